"""lanqi match on shared cores: with ``pause=true`` the waiting engine is stopped
unless it ponders,
``memory=MB`` caps an engine (over it the game is lost as ``out of memory``),
``-use-affinity`` gives each engine process a core of its own."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from lanqi.bot.engines import XiangqiEngine
from lanqi.games.xiangqi.pgn import read_pgns
from lanqi.match.config import EngineConfig, MatchConfigError, parse_args
from lanqi.match.runner import MatchSummary, _Pool

Runner = Callable[[list[str]], tuple[MatchSummary, list[str]]]
FAULTY = Path(__file__).parents[1] / "bot" / "engines" / "fakes" / "faulty.py"
UCI_FAKE = Path(__file__).parents[1] / "bot" / "engines" / "fakes" / "uci_fake.py"


def test_a_hungry_engine_loses_its_games_as_out_of_memory(
    tmp_path: Path, run_match: Runner
) -> None:
    pgn = tmp_path / "match.pgn"
    summary, lines = run_match(
        [
            "-engine", "name=Hungry", f"cmd={sys.executable} {FAULTY} uci hungry", "proto=uci",
            "memory=256",
            "-engine", "name=AI", "proto=builtin", "depth=1",
            "-games", "2", "-pgnout", str(pgn),
        ]
    )  # fmt: skip
    games = read_pgns(pgn.read_text(encoding="utf-8"))
    assert len(games) == 2 == len(summary.games)
    for game in games:
        assert game.headers["Termination"] == "out of memory"
        assert game.result == ("0-1" if game.headers["Red"] == "Hungry" else "1-0")
    assert sum("{out of memory}" in line for line in lines if line.startswith("Finished")) == 2


def _engine(**keys: str) -> EngineConfig:
    config = parse_args(
        ["-engine", "name=E", f"cmd={sys.executable} {UCI_FAKE} ok", "proto=uci",
         *(f"{k}={v}" for k, v in keys.items()), "-engine", "name=AI", "proto=builtin"]
    )  # fmt: skip
    return config.engines[0]


@pytest.mark.parametrize(
    ("keys", "paused"),
    [({"pause": "true"}, True), ({"pause": "true", "ponder": "true"}, False), ({}, False)],
)
def test_engines_wait_stopped_when_asked_unless_they_ponder(
    keys: dict[str, str], paused: bool
) -> None:
    bot = _engine(**keys).make_bot("xiangqi")
    try:
        assert isinstance(bot, XiangqiEngine) and bot.pause_waiting is paused
    finally:
        bot.close()


def test_memory_must_be_megabytes() -> None:
    assert _engine(memory="64").memory == 64
    with pytest.raises(MatchConfigError, match="memory is in MB"):
        _engine(memory="0")


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="Linux only")
def test_use_affinity_pins_each_engine_to_the_next_core() -> None:
    config = parse_args(
        ["-engine", "name=A", f"cmd={sys.executable} {UCI_FAKE} ok", "proto=uci",
         "-engine", "name=B", f"cmd={sys.executable} {UCI_FAKE} ok", "proto=uci",
         "-use-affinity", "-concurrency", "2"]
    )  # fmt: skip
    assert config.use_affinity
    usable = sorted(os.sched_getaffinity(0))
    pool = _Pool(config)
    try:
        bots = [pool.start(config.engines[i % 2]) for i in range(3)]
        for at, bot in enumerate(bots):
            assert isinstance(bot, XiangqiEngine) and bot.process.pid is not None
            assert os.sched_getaffinity(bot.process.pid) == {usable[at % len(usable)]}
    finally:
        pool.close()
    plain = ["-engine", "name=A", "proto=builtin", "-engine", "name=B", "proto=builtin"]
    assert not parse_args(plain).use_affinity


def test_the_referees_latency_is_in_each_moves_comment_and_summarised(
    tmp_path: Path, run_match: Runner
) -> None:
    pgn = tmp_path / "match.pgn"
    summary, lines = run_match(
        [
            "-engine", "name=A", "proto=builtin", "depth=1",
            "-engine", "name=B", "proto=builtin", "depth=1",
            "-games", "2", "-maxmoves", "6", "-pgnout", str(pgn),
        ]
    )  # fmt: skip
    text = pgn.read_text(encoding="utf-8")
    assert len(read_pgns(text)) == 2  # the comments keep the records readable
    measured = [n.latency_ms for g in summary.games for n in g.notes if n.latency_ms is not None]
    moves = sum(len(g.moves) for g in summary.games)
    assert len(measured) == moves - 2  # every move but each game's first
    assert all(value >= 0 for value in measured)
    assert text.count("[%lat ") == len(measured)
    (line,) = [line for line in lines if line.startswith("Referee latency per move: ")]
    assert line.endswith(f"({len(measured)} moves)")


def test_latency_comment_and_summary_format() -> None:
    from lanqi.match.adjudicate import MoveNote
    from lanqi.match.records import latency_text

    note = MoveNote(3, 1, "h9g7", score_cp=-35, depth=7, time_ms=1230, latency_ms=1.84)
    assert note.comment() == "-0.35/7 1.23s [%lat 1.8ms]"
    assert MoveNote(0, 0, "h2e2", time_ms=50).comment() == "0.05s"
    assert latency_text([]) is None
