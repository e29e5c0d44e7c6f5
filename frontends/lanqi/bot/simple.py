"""Simple built-in bots: a random mover for any variant and a one-ply greedy gomoku player.

They are sparring partners and baselines: :class:`GreedyGomokuBot` is the "simple
greedy player" the gomoku AI is measured against.

>>> from lanqi.bot.base import SeatView
>>> state = SeatView.start("gomoku", moves=["h8", "a1", "i8", "a2", "j8", "a3", "k8", "a4"])
>>> GreedyGomokuBot(seed=0).choose_move(state) in {"g8", "l8"}
True
>>> RandomBot(seed=0).choose_move(state) in state.legal_moves()
True
"""

from __future__ import annotations

import random

from lanqi.bot.base import Bot, SeatView
from lanqi.games.gomoku import Board, Color, Move
from lanqi.games.registry import variant_names

__all__ = ["GreedyGomokuBot", "RandomBot"]

_DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))
# Score of a line by (stones in a row through the point, open ends): the
# classic hand-made table of greedy gomoku programs.
_LINE_SCORE = {
    (4, 2): 100_000,
    (4, 1): 10_000,
    (3, 2): 5_000,
    (3, 1): 500,
    (2, 2): 200,
    (2, 1): 50,
    (1, 2): 10,
    (1, 1): 2,
}


class RandomBot(Bot):
    """Plays a uniformly random legal move (any variant); ``seed`` makes it repeatable."""

    name = "random"
    variants = variant_names()

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose_move(self, state: SeatView) -> str:
        moves = state.legal_moves()
        if not moves:
            raise ValueError("the game is over: there is no move to choose")
        return self.rng.choice(moves)


class GreedyGomokuBot(Bot):
    """One ply of greed: win if it can, else block a five, else the best local score.

    The score of a point adds, over the four lines through it, how long a row
    (and how open) a stone there would make for itself and would spoil for the
    opponent.  Only points within two of a stone are considered.
    """

    name = "greedy"
    variants = ("gomoku",)

    def __init__(self, seed: int | None = None, defence: float = 0.9) -> None:
        self.rng = random.Random(seed)
        self.defence = defence

    def choose_move(self, state: SeatView) -> str:
        board = state.board
        if not isinstance(board, Board):
            raise TypeError(f"{self.name} plays gomoku, not {state.variant}")
        legal = board.legal_moves()
        if not legal:
            raise ValueError("the game is over: there is no move to choose")
        me = board.turn
        near = _near_stones(board, legal)
        long_wins = _overline_wins(board, me), _overline_wins(board, me.other)
        for move in near:
            if _makes_five(board, move):
                return str(move)
        for move in near:
            if _opponent_five(board, move, me.other, long_wins[1]):
                return str(move)
        best = max(
            near,
            key=lambda m: (
                _point_score(board, m, me, long_wins[0])
                + self.defence * _point_score(board, m, me.other, long_wins[1]),
                self.rng.random(),
            ),
        )
        return str(best)


def _near_stones(board: Board, legal: list[Move]) -> list[Move]:
    size = board.size
    near = [
        m
        for m in legal
        if any(
            board.stone_at(m.x + dx, m.y + dy) is not None
            for dx in range(-2, 3)
            for dy in range(-2, 3)
            if 0 <= m.x + dx < size and 0 <= m.y + dy < size
        )
    ]
    if near:
        return near
    centre = Move(size // 2, size // 2)
    return [centre] if centre in legal else legal


def _makes_five(board: Board, move: Move) -> bool:
    """Does the side to move win by playing ``move`` (by the board's own rule)?"""
    board.push(move)
    try:
        outcome = board.outcome()
        return outcome is not None and outcome.winner is not None
    finally:
        board.pop()


def _overline_wins(board: Board, color: Color) -> bool:
    """Does six or more in a row win for ``color`` under the board's rule?"""
    return board.rule == "freestyle" or (board.rule == "renju" and color is Color.WHITE)


def _opponent_five(board: Board, move: Move, opponent: Color, long_wins: bool) -> bool:
    """Would ``opponent`` win by playing ``move``?"""
    for dx, dy in _DIRECTIONS:
        count = 1 + _run(board, move, dx, dy, opponent) + _run(board, move, -dx, -dy, opponent)
        if count == 5 or (count > 5 and long_wins):
            return True
    return False


def _run(board: Board, move: Move, dx: int, dy: int, color: Color) -> int:
    size = board.size
    x, y = move.x + dx, move.y + dy
    count = 0
    while 0 <= x < size and 0 <= y < size and board.stone_at(x, y) is color:
        count += 1
        x, y = x + dx, y + dy
    return count


def _point_score(board: Board, move: Move, color: Color, long_wins: bool) -> int:
    """How good a ``color`` stone on ``move`` looks along its four lines."""
    size = board.size
    total = 0
    for dx, dy in _DIRECTIONS:
        count = 1
        open_ends = 0
        for sx, sy in ((dx, dy), (-dx, -dy)):
            x, y = move.x + sx, move.y + sy
            while 0 <= x < size and 0 <= y < size and board.stone_at(x, y) is color:
                count += 1
                x, y = x + sx, y + sy
            if 0 <= x < size and 0 <= y < size and board.stone_at(x, y) is None:
                open_ends += 1
        if count == 5 or (count > 5 and long_wins):
            total += 1_000_000
        elif count > 5:
            continue  # an overline that does not win is worth nothing
        else:
            total += _LINE_SCORE.get((count, open_ends), 0)
    return total
