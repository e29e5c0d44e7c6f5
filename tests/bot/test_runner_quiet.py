"""While its bot's move is due, the runner asks the referee nothing: no heartbeat and
no snapshot request, whose round trip to a busy referee would hold the finished
move up (docs/bots.md, "Nothing in the way of a move").

A real game on a ``lanqi referee`` subprocess: seat 0's bot uses its time, up to just
before its deadline, on a 1.5 s per-move clock (the runner's deadline is 750 ms into
the turn, so the whole think is within a second of it).  Without the rule, the
runner's quiet-game snapshot (a quarter of the clock: 375 ms) falls inside every
think.  Every request each runner makes is recorded with the seat it plays.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from lanqi.bot.base import Bot, SeatView
from lanqi.bot.simple import RandomBot
from lanqi.client.referee import RefereeClient
from lanqi.protocol import Heartbeat, Join, Message, MoveRequest, Request, Sync, TimeControl

PlayGame = Callable[..., Any]  # the play_game fixture of tests/bot/conftest.py
PER_MOVE = TimeControl(kind="per_move", per_move_ms=1500)


class DeadlineBot(Bot):
    """Thinks until 20 ms before its deadline (waiting, as a bot using its time),
    and keeps when each think began and ended."""

    name = "deadline"

    def __init__(self) -> None:
        self.thinks: list[tuple[float, float]] = []
        self._never = threading.Event()

    def choose_move(self, state: SeatView) -> str:
        began = time.monotonic()
        left = state.ms_to_deadline()
        assert left is not None
        self._never.wait(max(0.0, left - 20) / 1000)
        self.thinks.append((began, time.monotonic()))
        return sorted(state.legal_moves())[0]


def test_no_request_while_the_move_is_due(
    play_game: PlayGame, monkeypatch: pytest.MonkeyPatch
) -> None:
    seats: dict[int, int] = {}  # id of a runner's client -> the seat it joined
    requests: list[tuple[float, int | None, type[Request]]] = []
    call = RefereeClient.call

    def recording(self: RefereeClient, message: Request, timeout_ms: int | None = None) -> Message:
        if isinstance(message, Join) and message.seat is not None:
            seats[id(self)] = message.seat
        requests.append((time.monotonic(), seats.get(id(self)), type(message)))
        return call(self, message, timeout_ms)

    monkeypatch.setattr(RefereeClient, "call", recording)
    bot = DeadlineBot()
    played = play_game(bot, RandomBot(seed=5), "xiangqi", PER_MOVE, max_plies=8)
    assert played.ply >= 8 and played.termination != "timeout"
    assert len(bot.thinks) >= 4
    mine = [(at, kind) for at, seat, kind in requests if seat == 0]
    assert sum(kind is MoveRequest for _, kind in mine) == len(bot.thinks)  # recorded
    during = [
        kind.__name__
        for at, kind in mine
        for began, ended in bot.thinks
        if began <= at <= ended and kind in (Sync, Heartbeat)
    ]
    assert during == []
