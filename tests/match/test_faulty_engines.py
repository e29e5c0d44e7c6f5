"""Engines that fail lose their games, and the record says how (real referee, real
processes: a scripted UCI engine against the built-in AI)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from lanqi.games.xiangqi.pgn import read_pgns
from lanqi.match.runner import MatchSummary

Runner = Callable[[list[str]], tuple[MatchSummary, list[str]]]


def _faulty_games(pgn: Path) -> list[tuple[str, str]]:
    """(the faulty engine's result as seen by it, termination) per game."""
    out = []
    for game in read_pgns(pgn.read_text(encoding="utf-8")):  # every game replays legally
        tags = game.headers
        red = tags["Red"] == "Faulty"
        won = {"1-0": red, "0-1": not red}.get(tags["Result"])
        outcome = "draw" if won is None else "win" if won else "loss"
        out.append((outcome, tags["Termination"]))
    return out


@pytest.mark.parametrize(
    ("mode", "extra", "margin", "termination"),
    [
        ("crash", ["-each", "st=0.2"], "0.4", "crash"),
        ("hang", ["-each", "st=0.2"], "0.4", "hang"),  # silent past its fixed move time
        ("illegal", ["-each", "st=0.2"], "0.4", r"illegal move [a-i][0-9][a-i][0-9]"),
        ("garbage", ["-each", "st=0.2"], "0.4", "unreadable output"),
        # under a clock the referee waits past zero for a move on its way, up to the
        # seat's lag cap (0.9 s at 1.5+0, docs/protocol.md): with a longer margin its
        # flag falls first; with a shorter one the runner gives up first (docs/engines.md)
        ("hang", ["-tc", "1.5+0"], "1.5", "time forfeit"),
        ("hang", ["-tc", "1.5+0"], "0.4", "hang"),
    ],
)
def test_a_failing_engine_loses_with_the_reason(
    mode: str,
    extra: list[str],
    margin: str,
    termination: str,
    *,
    tmp_path: Path,
    run_match: Runner,
    faulty: Callable[..., str],
) -> None:
    pgn = tmp_path / "games.pgn"
    summary, lines = run_match(
        [
            "-engine", "name=Faulty", f"cmd={faulty(mode, 3)}", "proto=uci", f"timemargin={margin}",
            "-engine", "name=AI", "proto=builtin", "depth=1",
            "-games", "2", "-pgnout", str(pgn), *extra,
        ]
    )  # fmt: skip
    games = _faulty_games(pgn)
    assert len(games) == 2 == len(summary.games)
    for outcome, reason in games:
        assert outcome == "loss" and re.fullmatch(termination, reason), games
    assert summary.tallies[(0, 1)].losses == 2
    assert any(line.startswith("Score of Faulty vs AI: 0 - 2 - 0") for line in lines)
    # the report counts the games lost on time and by disconnects, with the engine
    on_time = 2 if termination == "time forfeit" else 0
    disconnected = 2 if termination in ("crash", "hang") else 0
    assert dict(summary.time_losses) == ({0: 2} if on_time else {})
    assert dict(summary.disconnects) == ({0: 2} if disconnected else {})

    def counted(n: int) -> str:
        return f"{n} (Faulty {n})" if n else "0"

    assert f"Time losses: {counted(on_time)}, disconnects: {counted(disconnected)}" in lines
    assert "Pairs: 1, Ptnml(0-2): [1, 0, 0, 0, 0]" in lines


def test_a_crashed_engine_that_restarts_too_slowly_loses_the_next_game(
    tmp_path: Path, run_match: Runner, faulty: Callable[..., str]
) -> None:
    """Game 1: the engine crashes.  Game 2: its restart misses the handshake time.  The
    handshake time is far above a start on a loaded machine (the fake, a Python
    program, took 2 s to answer ``uci`` at a load of 11 on 2 cores; with 1 s the
    first launch missed it too) and far below the slow restart's 30 s."""
    pgn = tmp_path / "games.pgn"
    launches = tmp_path / "launches"
    summary, _ = run_match(
        [
            "-engine", "name=Faulty", f"cmd={faulty('slow-restart', 2, str(launches))}",
            "proto=uci", "st=0.2", "handshake=10",
            "-engine", "name=AI", "proto=builtin", "depth=1",
            "-games", "2", "-pgnout", str(pgn),
        ]
    )  # fmt: skip
    assert _faulty_games(pgn) == [("loss", "crash"), ("loss", "start-up: hang")]
    assert summary.endings == {"crash": 1, "start-up: hang": 1}
