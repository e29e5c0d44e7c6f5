"""The example bot in docs/bots.md really plays: extract it and play whole games."""

from __future__ import annotations

import re
import types
from pathlib import Path

import pytest

from lanqi.bot.base import Bot, SeatView
from lanqi.bot.simple import RandomBot

DOC = Path(__file__).resolve().parents[2] / "docs" / "bots.md"


def example_class() -> type[Bot]:
    text = DOC.read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", text, re.DOTALL)
    assert code is not None, "docs/bots.md lost its example"
    assert len(code.group(1).splitlines()) <= 30  # "a 20-line example", give or take imports
    module = types.ModuleType("capture_bot")
    exec(compile(code.group(1), str(DOC), "exec"), module.__dict__)
    cls = module.CaptureBot
    assert issubclass(cls, Bot)
    return cls  # type: ignore[no-any-return]


@pytest.mark.parametrize("variant", ["xiangqi", "gomoku"])
def test_example_bot_plays_a_whole_game(variant: str) -> None:
    players = [example_class()(), RandomBot(seed=3)]
    state = SeatView.start(variant)
    for _ in range(400):
        if state.board.outcome() is not None:
            break
        seat = state.board.seat_to_move
        state.seat = seat
        move = players[seat].choose_move(state)
        assert move in state.legal_moves()
        state.board.push(state.board.parse_move(move))
        state.moves.append(move)
    assert state.board.ply > 4


def test_example_bot_takes_the_most_valuable_piece() -> None:
    # The red rook on a0 can take the black cannon on a5 or the black soldier on b0.
    state = SeatView.start("xiangqi", start_fen="3k5/9/9/9/c8/9/9/9/9/Rp2K4 w - - 0 1")
    assert example_class()().choose_move(state) == "a0a5"
