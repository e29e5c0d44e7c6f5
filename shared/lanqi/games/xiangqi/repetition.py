"""Judging repeated positions: perpetual check and chase (filled in next)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lanqi.games.base import Outcome, Termination

if TYPE_CHECKING:
    from lanqi.games.xiangqi.core import Board, Color


def judge_repetition(board: Board, span: int) -> Outcome[Color]:
    return Outcome(None, Termination.REPETITION)
