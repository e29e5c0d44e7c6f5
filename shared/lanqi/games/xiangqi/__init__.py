"""Xiangqi (Chinese chess): board, moves, rules, notations and PGN.

>>> from lanqi.games.xiangqi import Board, Move
>>> board = Board()
>>> board.push(board.parse_move("C2=5"))
>>> board.peek()
Move.from_iccs('h2e2')
"""

from lanqi.games.xiangqi.core import (
    ADVISOR,
    CANNON,
    ELEPHANT,
    HORSE,
    KING,
    PAWN,
    ROOK,
    STARTING_FEN,
    Board,
    Color,
    Move,
    Piece,
    parse_square,
    square,
    square_file,
    square_name,
    square_rank,
)
from lanqi.games.xiangqi.variant import VARIANT

__all__ = [
    "ADVISOR",
    "CANNON",
    "ELEPHANT",
    "HORSE",
    "KING",
    "PAWN",
    "ROOK",
    "STARTING_FEN",
    "VARIANT",
    "Board",
    "Color",
    "Move",
    "Piece",
    "parse_square",
    "square",
    "square_file",
    "square_name",
    "square_rank",
]
