"""What the runner tells a bot about the opponent's turns, on a real referee: one
``on_opponent_turn`` per opponent turn, in the bot's own worker (the thread of
``choose_move``), and under time odds each side's own increment."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from lanqi.bot.base import SeatView
from lanqi.bot.simple import RandomBot
from lanqi.protocol import TimeControl


class TurnRecorder(RandomBot):
    def __init__(self) -> None:
        super().__init__(seed=5)
        self.told: list[tuple[int, bool, int, int | None]] = []  # ply, my turn, inc, opp inc
        self.move_threads: set[int] = set()
        self.told_threads: set[int] = set()

    def choose_move(self, state: SeatView) -> str:
        self.move_threads.add(threading.get_ident())
        return super().choose_move(state)

    def on_opponent_turn(self, state: SeatView) -> None:
        self.told_threads.add(threading.get_ident())
        self.told.append(
            (len(state.moves), state.my_turn, state.increment_ms, state.opponent_increment_ms)
        )


def test_the_bot_hears_of_each_opponent_turn_once(play_game: Callable[..., Any]) -> None:
    recorder = TurnRecorder()
    odds = TimeControl(
        kind="fischer",
        base_ms=60_000,
        seat_base_ms=[60_000, 30_000],
        seat_increment_ms=[1_000, 500],
    )
    played = play_game(RandomBot(seed=6), recorder, "xiangqi", odds, max_plies=20)
    assert played.ply >= 20
    plies = [ply for ply, *_ in recorder.told]
    assert plies == list(range(0, len(plies) * 2, 2))  # seat 1: every even ply, each once
    assert len(plies) >= 9
    assert all(not my_turn for _, my_turn, *_ in recorder.told)
    assert {(inc, opp) for *_, inc, opp in recorder.told} == {(500, 1_000)}
    assert recorder.told_threads == recorder.move_threads and len(recorder.move_threads) == 1


class NoPonder(TurnRecorder):
    """Says it does not ponder: the runner does not call ``on_opponent_turn`` (each
    call costs a worker's wake-up and a board copy right when a turn starts)."""

    @property
    def ponders(self) -> bool:
        return False


def test_a_bot_that_does_not_ponder_is_not_told(play_game: Callable[..., Any]) -> None:
    quiet, told = NoPonder(), TurnRecorder()
    assert told.ponders and not quiet.ponders and not RandomBot(seed=1).ponders
    played = play_game(quiet, told, "xiangqi", TimeControl(kind="none"), max_plies=12)
    assert played.ply >= 12
    assert quiet.told == [] and len(told.told) >= 5
