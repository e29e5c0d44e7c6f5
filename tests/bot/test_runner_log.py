"""The runner says at INFO why its bot lost a game: a crash, a timeout, illegal moves."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from lanqi.bot.base import Bot, SeatView
from lanqi.bot.simple import RandomBot
from lanqi.protocol import TimeControl

PlayGame = Callable[..., Any]  # the play_game fixture of tests/bot/conftest.py
#: the clock runs from the join (no first-move window), as in tournaments
PER_MOVE = TimeControl(kind="per_move", per_move_ms=300, first_move_ms=0)


class CrashingBot(Bot):
    name = "crashing"

    def choose_move(self, state: SeatView) -> str:
        raise RuntimeError("out of cheese")


class StuckBot(Bot):
    """Thinks until the test lets it go: the clock runs out first."""

    name = "stuck"

    def __init__(self, release: threading.Event) -> None:
        self.release = release

    def choose_move(self, state: SeatView) -> str:
        self.release.wait()
        return state.legal_moves()[0]


class IllegalBot(Bot):
    name = "illegal"

    def choose_move(self, state: SeatView) -> str:
        return "a1" if state.variant == "gomoku" else "a0a9"


@pytest.fixture
def release() -> Iterator[threading.Event]:
    event = threading.Event()
    yield event
    event.set()


def _lost_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "lanqi.bot.runner" and r.levelno == logging.INFO and " lost " in r.getMessage()
    ]


def test_a_crash_is_named(play_game: PlayGame, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="lanqi.bot.runner")
    played = play_game(CrashingBot(), RandomBot(seed=1), "xiangqi", PER_MOVE)
    # the runner resigned, and its reason goes beside the termination
    assert (played.termination, played.reason) == ("resignation", "bot error")
    (line,) = _lost_lines(caplog)
    assert "bot error: the bot failed to move: RuntimeError: out of cheese" in line


def test_a_timeout_is_named(
    play_game: PlayGame, caplog: pytest.LogCaptureFixture, release: threading.Event
) -> None:
    caplog.set_level(logging.INFO, logger="lanqi.bot.runner")
    played = play_game(RandomBot(seed=1), StuckBot(release), "gomoku", PER_MOVE)
    assert played.termination == "timeout"
    (line,) = _lost_lines(caplog)
    assert "timeout: its clock ran out (300 ms per move; the bot was still thinking" in line


def test_a_first_move_not_made_in_its_window_is_named(
    play_game: PlayGame, caplog: pytest.LogCaptureFixture, release: threading.Event
) -> None:
    caplog.set_level(logging.INFO, logger="lanqi.bot.runner")
    windowed = TimeControl(kind="per_move", per_move_ms=300, first_move_ms=1_000)
    played = play_game(StuckBot(release), RandomBot(seed=1), "gomoku", windowed)
    assert (played.termination, played.ply) == ("no_first_move", 0)
    stopped = [r.getMessage() for r in caplog.records if " stopped as seat " in r.getMessage()]
    assert len(stopped) == 2 and all("* (no_first_move) after 0 plies" in m for m in stopped)


def test_illegal_moves_are_named(play_game: PlayGame, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="lanqi.bot.runner")
    played = play_game(IllegalBot(), RandomBot(seed=1), "xiangqi", TimeControl())
    assert (played.termination, played.reason) == ("resignation", "illegal move a0a9")
    (line,) = _lost_lines(caplog)
    assert "illegal move a0a9: 3 illegal moves in a row" in line
