"""A bot answers with a PlayResult (or only a move): the runner plays the move and acts
on the draw offer or resignation it carries, through a real referee subprocess."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from lanqi.bot.base import Bot, PlayResult, SearchInfo, SeatView
from lanqi.bot.simple import RandomBot
from lanqi.protocol import TimeControl

PlayGame = Callable[..., Any]  # the play_game fixture of tests/bot/conftest.py
UNTIMED = TimeControl(kind="none", first_move_ms=0)


class OneMethodBot(Bot):
    """The SDK's promise: one method, a move as text."""

    name = "one-method"

    def choose_move(self, state: SeatView) -> str:
        return state.legal_moves()[0]


class ResigningBot(Bot):
    """Plays ``moves`` of its own, then resigns instead of moving."""

    name = "resigning"

    def __init__(self, moves: int) -> None:
        self.moves = moves
        self.asked = 0

    def play(self, state: SeatView) -> PlayResult:
        self.asked += 1
        move = state.legal_moves()[0]
        return PlayResult(move, info=SearchInfo(score_cp=-900), resign=self.asked > self.moves)


class DrawOfferingBot(Bot):
    """Offers a draw with its ``at``-th move."""

    name = "drawish"

    def __init__(self, at: int) -> None:
        self.at = at
        self.asked = 0

    def play(self, state: SeatView) -> PlayResult:
        self.asked += 1
        return PlayResult(state.legal_moves()[-1], offer_draw=self.asked == self.at)


class DrawTaker(RandomBot):
    """A one-method bot that accepts any draw offer.  After the offering move it
    waits for the offer before it answers (its move would decline the offer)."""

    def __init__(self, seed: int, offer_ply: int) -> None:
        super().__init__(seed)
        self.offer_ply = offer_ply
        self.offered = threading.Event()
        self.offers = 0

    def choose_move(self, state: SeatView) -> str:
        if len(state.moves) == self.offer_ply + 1:
            assert self.offered.wait(30), "the draw offer never came"
        return super().choose_move(state)

    def on_draw_offer(self, state: SeatView) -> bool:
        self.offers += 1
        self.offered.set()
        return True


def test_a_bot_with_neither_method_says_so() -> None:
    with pytest.raises(NotImplementedError, match="neither choose_move nor play"):
        Bot().play(SeatView.start("gomoku"))
    with pytest.raises(NotImplementedError, match="neither choose_move nor play"):
        Bot().choose_move(SeatView.start("gomoku"))


def test_one_method_and_play_result_bots_meet(play_game: PlayGame) -> None:
    # a one-method bot and a PlayResult bot play each other; the resignation is the
    # PlayResult's, sent by its runner with its own seat (no move played for it)
    resigner = ResigningBot(moves=3)
    played = play_game(OneMethodBot(), resigner, "gomoku", UNTIMED, timeout_s=60)
    assert (played.status, played.result, played.termination) == ("finished", "1-0", "resignation")
    assert played.reason == ""
    assert played.ply == 7  # three moves each, then the first's fourth; the fourth answer resigns
    assert resigner.asked == 4


def test_a_draw_offer_rides_with_the_move(play_game: PlayGame) -> None:
    taker = DrawTaker(seed=3, offer_ply=2)
    played = play_game(DrawOfferingBot(at=2), taker, "gomoku", UNTIMED, timeout_s=60)
    assert (played.status, played.result, played.termination) == (
        "finished",
        "1/2-1/2",
        "agreement",
    )
    # the offer came with the drawish bot's second move (ply 2; the offer goes first, so
    # the taker may end the game before that move lands), and was taken at once
    assert played.ply in (2, 3) and taker.offers == 1
