"""No bot loses on time when it has a move: real games on a real referee's clock.

Each test plays games through :class:`~lanqi.bot.runner.GamePlayer` (the runner's
own game loop) on a ``lanqi referee`` subprocess with a short clock, and asserts
on how the referee ended the game: never ``timeout``.  The built-in AIs search
until the deadline the runner gives them; the engine adapters say ``stop`` before
it (UCI, UCCI) or hand a Gomocup brain a turn time that ends before it.  So a
deadline too late for the referee's clock flags whatever the clock's length: the
per-move clock is 600 ms, longer only where a probe finds the machine too busy for
that (``clock_scale`` in tests/conftest.py: a thread here gets less than half a core).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq

from lanqi.bot.engines.gomocup import GomocupEngine
from lanqi.bot.engines.ucci import UcciEngine
from lanqi.bot.engines.uci import UciEngine
from lanqi.bot.gomoku_ai import GomokuAI
from lanqi.bot.simple import RandomBot
from lanqi.bot.xiangqi_ai import XiangqiAI
from lanqi.protocol import TimeControl
from lanqi.security import curve_server, server_keys

REPO = Path(__file__).resolve().parents[2]
SOURCE_PATH = os.pathsep.join(str(REPO / part) for part in ("shared", "services", "frontends"))
FAKES = Path(__file__).resolve().parent / "engines" / "fakes"
PlayGame = Callable[..., Any]  # the play_game fixture of tests/bot/conftest.py
PER_MOVE_MS = 600  # on an idle machine; see clock_scale in tests/conftest.py
FISCHER = TimeControl(kind="fischer", base_ms=3000, increment_ms=100)
CLOCKS = ["per_move", "fischer"]
# The endings the rules make (not the referee: timeout, abandonment, resignation).
RULE_ENDINGS = {
    "checkmate",
    "stalemate",
    "repetition",
    "perpetual_check",
    "perpetual_chase",
    "move_limit",
    "insufficient_material",
    "five_in_a_row",
    "board_full",
    "forbidden_move",
}


def _fake(script: str, mode: str) -> list[str]:
    return [sys.executable, str(FAKES / script), mode]


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=SOURCE_PATH)


def _clock(kind: str, scale: float) -> TimeControl:
    """600 ms per move, times ``clock_scale`` (longer on a machine too busy for that);
    the Fischer clock keeps a bank for a busy machine anyway."""
    if kind == "per_move":
        return TimeControl(kind="per_move", per_move_ms=round(PER_MOVE_MS * scale))
    return FISCHER


def _in_time(termination: str | None, status: str, ply: int, max_plies: int) -> None:
    if status == "finished":
        assert termination in RULE_ENDINGS, f"the game ended by {termination} at ply {ply}"
    else:
        assert ply >= max_plies


@pytest.mark.parametrize("clock", CLOCKS)
@pytest.mark.parametrize("rule", ["freestyle", "standard", "renju"])
def test_gomoku_ai_moves_in_time(
    play_game: PlayGame, clock_scale: float, rule: str, clock: str
) -> None:
    played = play_game(
        GomokuAI(level=5, seed=1),
        GomokuAI(level=4, seed=2),
        "gomoku",
        _clock(clock, clock_scale),
        options={"rule": rule},
        max_plies=40,
    )
    _in_time(played.termination, played.status, played.ply, 40)


@pytest.mark.parametrize("clock", CLOCKS)
def test_xiangqi_ai_moves_in_time(play_game: PlayGame, clock_scale: float, clock: str) -> None:
    played = play_game(
        XiangqiAI(level=8, seed=1),
        XiangqiAI(level=6, seed=2),
        "xiangqi",
        _clock(clock, clock_scale),
        max_plies=30,
    )
    _in_time(played.termination, played.status, played.ply, 30)


@pytest.mark.parametrize("clock", CLOCKS)
@pytest.mark.parametrize("adapter", ["uci", "ucci"])
def test_engine_that_thinks_until_stopped_moves_in_time(
    play_game: PlayGame, clock_scale: float, adapter: str, clock: str
) -> None:
    """The fake engine ignores the clock and answers only ``stop``: every one of its
    moves comes from the adapter's stop before the deadline."""
    engine: UciEngine | UcciEngine
    if adapter == "uci":
        engine = UciEngine(_fake("uci_fake.py", "slow"), env=_env())
    else:
        engine = UcciEngine(_fake("ucci_fake.py", "slow"), env=_env())
    played = play_game(
        engine, RandomBot(seed=3), "xiangqi", _clock(clock, clock_scale), max_plies=16
    )
    _in_time(played.termination, played.status, played.ply, 16)


@pytest.mark.parametrize("clock", CLOCKS)
def test_gomocup_brain_that_uses_its_whole_turn_moves_in_time(
    play_game: PlayGame, clock_scale: float, clock: str
) -> None:
    """The fake brain thinks for every millisecond of ``timeout_turn``: the turn time
    the adapter gives it must end before the referee's clock does."""
    brain = GomocupEngine(_fake("gomocup_fake.py", "fullturn"), env=_env())
    played = play_game(brain, RandomBot(seed=4), "gomoku", _clock(clock, clock_scale), max_plies=16)
    _in_time(played.termination, played.status, played.ply, 16)


@pytest.fixture
def deaf(referee_folder: Path) -> Iterator[str]:
    """An event endpoint that hears nothing: a PUB that never publishes."""
    context: zmq.Context[Any] = zmq.Context.instance()
    silent = context.socket(zmq.PUB)
    silent.setsockopt(zmq.LINGER, 0)
    curve_server(silent, server_keys(referee_folder / "data"))  # it poses as the referee
    try:
        yield f"tcp://127.0.0.1:{silent.bind_to_random_port('tcp://127.0.0.1')}"
    finally:
        silent.close(linger=0)


@pytest.mark.parametrize(
    "time_control",
    [TimeControl(kind="per_move", per_move_ms=2000), TimeControl(first_move_ms=1_000)],
    ids=["per_move", "first-move-window"],
)
def test_a_runner_that_hears_no_event_still_moves_in_time(
    play_game: PlayGame, deaf: str, time_control: TimeControl
) -> None:
    """PUB/SUB may drop events: a runner whose subscription hears nothing at all
    learns of its turns from the snapshots it asks for when the game is quiet, soon
    enough for the clock.  With the old fixed 2 s of quiet before a snapshot, a 2 s
    per-move clock always fell before the first mover even knew the game had
    started; a quiet time from the clock alone let a 1 s first-move window close
    (untimed: the whole 2 s)."""
    played = play_game(
        RandomBot(seed=1),
        RandomBot(seed=2),
        "xiangqi",
        time_control,
        max_plies=6,
        events_for={0: deaf, 1: deaf},
    )
    _in_time(played.termination, played.status, played.ply, 6)


def test_first_moves_are_made_within_their_windows_not_by_the_idle_clock(
    play_game: PlayGame,
) -> None:
    """Before a side's first move its clock does not run, only its first-move window
    (2 s here): engines that think until stopped must be stopped within the window,
    not after the 1/30 of a 10-minute clock a budget from the clock would give them
    (the game would end ``no_first_move``)."""
    engines = [UciEngine(_fake("uci_fake.py", "slow"), env=_env()) for _ in range(2)]
    windowed = TimeControl(kind="fischer", base_ms=600_000, first_move_ms=2_000)
    played = play_game(*engines, "xiangqi", windowed, max_plies=2, timeout_s=60)
    assert (played.status, played.ply) == ("active", 2), played.termination
