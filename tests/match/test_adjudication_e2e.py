"""lanqi match adjudicates through the referee's ``adjudicate`` request on the admin
key: Fairy-Stockfish (nodes=1000) against the built-in AI on a real ``lanqi referee``
subprocess; the referee's own record of each game says ``adjudication`` with the
reason, and the match's PGN says the reason as it always did."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from lanqi.bench.process import LanqiService
from lanqi.client.connection import BlockingConnection, checked
from lanqi.games.xiangqi.pgn import read_pgns
from lanqi.match.runner import MatchSummary
from lanqi.protocol import ResultsList, ResultsSince

Runner = Callable[[list[str]], tuple[MatchSummary, list[str]]]
KEY = "match-admin-key"
READY = re.compile(rb"referee ready: requests (?P<requests>\S+), events (?P<events>[^\s,]+)")


@pytest.fixture
def referee(tmp_path: Path) -> Iterator[LanqiService]:
    service = LanqiService(
        "referee",
        ["--host", "127.0.0.1", "--data-dir", str(tmp_path / "data"), "--admin-key", KEY],
        tmp_path / "logs",
        name="referee",
        ready=READY,
        ports={"--port": "requests", "--pub-port": "events"},
    )
    (tmp_path / "logs").mkdir()
    service.start()
    try:
        yield service
    finally:
        code = service.stop()
        errors = service.new_errors()
    assert code == 0 and not errors, errors


def test_a_match_adjudicates_on_the_referee_with_its_admin_key(
    fsf: str, tmp_path: Path, run_match: Runner, referee: LanqiService
) -> None:
    requests, events = referee.endpoints["requests"], referee.endpoints["events"]
    pgn = tmp_path / "match.pgn"
    summary, _ = run_match(
        [
            "-referee", requests, "-referee-pub", events, "-admin-key", KEY,
            "-engine", "name=SF", f"cmd={fsf}", "proto=uci", "nodes=1000", "option.Threads=1",
            "-engine", "name=AI", "proto=builtin", "depth=1",
            "-games", "2", "-resign", "movecount=2", "score=300", "-maxmoves", "30",
            "-pgnout", str(pgn),
        ]
    )  # fmt: skip
    assert len(summary.games) == 2
    with BlockingConnection() as conn:
        reply = conn.referee_request(requests, ResultsSince(after=0, limit=100))
        results = {r.game_id: r for r in checked(reply, ResultsList).results}
    records = read_pgns(pgn.read_text(encoding="utf-8"))
    adjudicated = 0
    for game, record in zip(summary.games, records, strict=True):
        entry = results[game.game_id]
        # the match's label is the referee's reason (or its word), and the PGN says it
        assert game.termination == (entry.reason or entry.termination)
        assert record.headers["Termination"] == game.termination
        if entry.termination == "adjudication":
            adjudicated += 1
            assert entry.reason in ("adjudication: score", "adjudication: max moves"), entry
            if entry.reason == "adjudication: score":  # the loser's own last 2 scores fell
                assert entry.winner is not None, entry
                lost = [n for n in game.notes if n.seat == 1 - entry.winner][-2:]
                assert all(n.score_cp is not None and n.score_cp <= -300 for n in lost), lost
        else:  # only the rules end a game before that; never a seat's token for the match
            assert entry.termination not in ("resignation", "agreement"), entry
    assert adjudicated >= 1, [(r.termination, r.reason) for r in results.values()]
