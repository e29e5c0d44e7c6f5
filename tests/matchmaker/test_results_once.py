"""A result reaches the matchmaker more than once (live on ``results`` and again from
``results_since`` when a gap is filled or on a reconcile): it is counted once.

The matchmaker runs in this process on a real SQLite file; the result is handed to it
the way its referee link hands it, twice, and then once more after a restart.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import zmq

from lanqi.matchmaker.referees import RefereeLink
from lanqi.matchmaker.service import MatchmakerConfig, MatchmakerService
from lanqi.matchmaker.store import GameRecord, MatchmakerStore, PlayerRecord
from lanqi.protocol import GameResult, TimeControl
from lanqi.tournament.ratings import Glicko2
from lanqi.tournament.scoring import GameScore


def _service(data_dir: Path, context: zmq.Context[zmq.Socket[bytes]]) -> MatchmakerService:
    link = RefereeLink("r1", "tcp://127.0.0.1:1", "tcp://127.0.0.1:2", "", "")
    config = MatchmakerConfig(data_dir=data_dir, referees=[link], director_key="key")
    return MatchmakerService(config, context)


@pytest.fixture
def context() -> Iterator[zmq.Context[zmq.Socket[bytes]]]:
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    yield ctx
    ctx.destroy(linger=0)


def test_a_result_delivered_twice_is_counted_once(
    tmp_path: Path, context: zmq.Context[zmq.Socket[bytes]]
) -> None:
    service = _service(tmp_path, context)
    for pid, name in (("p1", "ann"), ("p2", "bob")):
        service.store.add_player(PlayerRecord(pid, name, "human", f"s-{pid}"), 0)
    service.store.add_game(
        GameRecord(
            game_id="g1",
            referee="r1",
            variant="xiangqi",
            options={},
            time_control=TimeControl(),
            player_ids=["p1", "p2"],
            names=["ann", "bob"],
            tokens=["t1", "t2"],
            rated=True,
            status="playing",
            created_ms=0,
        )
    )
    link = service.config.referees[0]
    link.games_in_progress = 1
    result = GameResult(
        game_id="g1",
        result_seq=1,
        variant="xiangqi",
        players=["ann", "bob"],
        result="1-0",
        termination="checkmate",
        winner=0,
        moves=["h2e2", "h9g7"],
    )

    def seen(store: MatchmakerStore) -> tuple[tuple[float, float, int], ...]:
        ratings = (store.rating("p1", "xiangqi"), store.rating("p2", "xiangqi"))
        return tuple((r.rating, r.rd, r.games) for r in ratings)

    service.apply_result(link, result)
    once = seen(service.store)
    assert once[0][0] > 1500.0 > once[1][0] and once[0][2] == once[1][2] == 1, once
    game = service.store.game("g1")
    assert game is not None and (game.status, game.result) == ("finished", "1-0")

    service.apply_result(link, result)  # the same result again (gap filled, reconcile)
    assert seen(service.store) == once
    assert link.games_in_progress == 0
    service.store.close()

    # and after a restart, when reconciling hands over the result once more
    again = _service(tmp_path, context)
    try:
        again.apply_result(again.config.referees[0], result)
        assert seen(again.store) == once
        assert again.store.referee_cursor("r1") == 1
    finally:
        again.store.close()


def test_the_store_records_a_game_result_once(
    tmp_path: Path, context: zmq.Context[zmq.Socket[bytes]]
) -> None:
    service = _service(tmp_path, context)
    try:
        store = service.store
        for pid in ("p1", "p2"):
            store.add_player(PlayerRecord(pid, pid, "human", f"s-{pid}"), 0)
        store.add_game(
            GameRecord(
                "g1",
                "r1",
                "gomoku",
                {},
                TimeControl(),
                ["p1", "p2"],
                ["p1", "p2"],
                ["a", "b"],
                True,
                "playing",
                0,
            )
        )
        record = dict(
            result="1-0",
            termination="five",
            moves=["h8"],
            ended_ms=1,
            referee="r1",
            result_seq=1,
            score=GameScore(1.0, "played"),
            ratings={"p1": Glicko2(1600.0, 300.0, 0.06), "p2": Glicko2(1400.0, 300.0, 0.06)},
        )
        assert store.record_result("g1", **record) is True  # type: ignore[arg-type]
        assert store.record_result("g1", **record) is False  # type: ignore[arg-type]
        assert [store.rating(p, "gomoku").games for p in ("p1", "p2")] == [1, 1]
        assert [store.rating(p, "xiangqi").games for p in ("p1", "p2")] == [0, 0]
        assert store.referee_cursor("r1") == 1
    finally:
        service.store.close()
