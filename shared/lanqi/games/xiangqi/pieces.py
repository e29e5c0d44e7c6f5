"""Squares, pieces and moves of xiangqi: the vocabulary every other module shares.

The rules (:mod:`lanqi.games.xiangqi.core`), the notations and the repetition
judge all build on these; this module imports none of them.

>>> square_name(square(4, 0)), Move.from_iccs("h2e2").to_square
('e0', 22)
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from lanqi.games.base import InvalidMoveError

__all__ = [
    "ADVISOR",
    "CANNON",
    "ELEPHANT",
    "FILES",
    "HORSE",
    "KING",
    "NUM_SQUARES",
    "PAWN",
    "PIECE_NAMES",
    "PIECE_SYMBOLS",
    "ROOK",
    "Color",
    "Move",
    "Piece",
    "parse_square",
    "square",
    "square_file",
    "square_name",
    "square_rank",
]

FILES = "abcdefghi"
NUM_SQUARES = 90

KING, ADVISOR, ELEPHANT, HORSE, ROOK, CANNON, PAWN = range(1, 8)
PIECE_SYMBOLS = " kabnrcp"  # index = piece type, lowercase
#: Letters some tools write instead of the engine standard (E/H for B/N).
_PIECE_ALIASES = {"e": ELEPHANT, "h": HORSE}
PIECE_NAMES = {
    KING: "general",
    ADVISOR: "advisor",
    ELEPHANT: "elephant",
    HORSE: "horse",
    ROOK: "rook",
    CANNON: "cannon",
    PAWN: "soldier",
}

_CONSTANT_NAMES = ("", "KING", "ADVISOR", "ELEPHANT", "HORSE", "ROOK", "CANNON", "PAWN")


class Color(enum.IntEnum):
    """The two sides; the value is the seat (Red moves first)."""

    RED = 0
    BLACK = 1

    @property
    def other(self) -> Color:
        return Color.BLACK if self is Color.RED else Color.RED


def square(file: int, rank: int) -> int:
    """The square at ``file`` (0-8) and ``rank`` (0-9)."""
    return rank * 9 + file


def square_file(sq: int) -> int:
    return sq % 9


def square_rank(sq: int) -> int:
    return sq // 9


def square_name(sq: int) -> str:
    """ICCS name of a square: ``square_name(0) == 'a0'``."""
    if 0 <= sq < len(_SQUARE_NAMES):
        return _SQUARE_NAMES[sq]
    return FILES[sq % 9] + str(sq // 9)


_SQUARE_NAMES = tuple(FILES[sq % 9] + str(sq // 9) for sq in range(90))


def parse_square(name: str) -> int:
    """The square named ``name`` in ICCS (``'e0'``); raises ValueError."""
    if len(name) != 2 or name[0] not in FILES or not name[1].isdigit():
        raise ValueError(f"not a square: {name!r} (want a file a-i and a rank 0-9)")
    return square(FILES.index(name[0]), int(name[1]))


@dataclass(frozen=True, slots=True)
class Piece:
    """A piece: its type (``KING`` .. ``PAWN``) and colour.

    >>> Piece.from_symbol("C")
    Piece(CANNON, Color.RED)
    >>> Piece.from_symbol("c").symbol()
    'c'
    """

    piece_type: int
    color: Color

    @classmethod
    def from_symbol(cls, symbol: str) -> Piece:
        """The piece for a FEN letter (also ``E``/``H`` for elephant/horse)."""
        lower = symbol.lower()
        kind = -1
        if len(symbol) == 1 and lower.isalpha():
            kind = _PIECE_ALIASES.get(lower, PIECE_SYMBOLS.find(lower))
        if kind <= 0:
            raise ValueError(f"not a piece letter: {symbol!r}")
        return cls(kind, Color.RED if symbol.isupper() else Color.BLACK)

    def symbol(self) -> str:
        """FEN letter: uppercase for Red."""
        letter = PIECE_SYMBOLS[self.piece_type]
        return letter.upper() if self.color is Color.RED else letter

    @property
    def code(self) -> int:
        return self.piece_type | (int(self.color) << 3)

    @classmethod
    def from_code(cls, code: int) -> Piece:
        return cls(code & 7, Color(code >> 3))

    def __repr__(self) -> str:
        return f"Piece({_CONSTANT_NAMES[self.piece_type]}, Color.{self.color.name})"


@dataclass(frozen=True, slots=True)
class Move:
    """A move from one square to another.

    >>> move = Move.from_iccs("h2e2")
    >>> move
    Move.from_iccs('h2e2')
    >>> str(move), move.from_square, move.to_square
    ('h2e2', 25, 22)
    """

    from_square: int
    to_square: int

    @classmethod
    def from_iccs(cls, text: str) -> Move:
        """Parse ICCS (``h2e2``, also ``H2-E2``); raises InvalidMoveError."""
        known = _ICCS_MEMO.get(text)
        if known is not None and cls is Move:
            return known
        cleaned = text.strip().lower().replace("-", "")
        if len(cleaned) != 4:
            raise InvalidMoveError(f"not an ICCS move: {text!r} (want e.g. 'h2e2')")
        try:
            move = cls(parse_square(cleaned[:2]), parse_square(cleaned[2:]))
        except ValueError:
            raise InvalidMoveError(f"not an ICCS move: {text!r} (want e.g. 'h2e2')") from None
        if cls is Move and len(_ICCS_MEMO) < _ICCS_MEMO_MAX:
            _ICCS_MEMO[text] = move
        return move

    def iccs(self) -> str:
        return square_name(self.from_square) + square_name(self.to_square)

    def __str__(self) -> str:
        return self.iccs()

    def __repr__(self) -> str:
        return f"Move.from_iccs({self.iccs()!r})"


#: Parsed ICCS texts (moves are immutable, so one object serves every parse).
_ICCS_MEMO: dict[str, Move] = {}
_ICCS_MEMO_MAX = 20_000
