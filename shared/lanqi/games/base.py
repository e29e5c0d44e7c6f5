"""What every game in lanqi shares: outcomes, move errors and the ``Game`` protocol.

The referee, the bots and the GUI talk to games only through the names defined
here, so they never special-case a variant.  Seats are numbered 0 (the side that
moves first: Red in xiangqi, Black in gomoku) and 1.

>>> Outcome(None, Termination.REPETITION).result()
'1/2-1/2'
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Protocol, TypeVar, runtime_checkable

__all__ = [
    "AmbiguousMoveError",
    "Game",
    "IllegalMoveError",
    "InvalidMoveError",
    "InvalidPositionError",
    "MoveError",
    "Outcome",
    "Termination",
]


class Termination(enum.Enum):
    """Why a game ended.  Board rules first, then referee decisions."""

    CHECKMATE = "checkmate"
    STALEMATE = "stalemate"
    REPETITION = "repetition"
    PERPETUAL_CHECK = "perpetual_check"
    PERPETUAL_CHASE = "perpetual_chase"
    MOVE_LIMIT = "move_limit"
    INSUFFICIENT_MATERIAL = "insufficient_material"
    FIVE_IN_A_ROW = "five_in_a_row"
    BOARD_FULL = "board_full"
    FORBIDDEN_MOVE = "forbidden_move"
    # Decided outside the board, by the referee.
    RESIGNATION = "resignation"
    TIMEOUT = "timeout"
    AGREEMENT = "agreement"
    ABANDONED = "abandoned"
    ABORTED = "aborted"


C = TypeVar("C", bound=enum.IntEnum)


@dataclass(frozen=True, slots=True)
class Outcome(Generic[C]):
    """The end of a game: who won (``None`` for a draw or an aborted game) and why.

    ``winner`` is the game's own colour enum, whose value is the seat (0 or 1).
    """

    winner: C | None
    termination: Termination

    def result(self) -> str:
        """The result in PGN form: ``1-0`` (seat 0 won), ``0-1`` or ``1/2-1/2``.

        An aborted game has no result and gives ``*``.
        """
        if self.termination is Termination.ABORTED:
            return "*"
        if self.winner is None:
            return "1/2-1/2"
        return "1-0" if int(self.winner) == 0 else "0-1"

    @property
    def winner_seat(self) -> int | None:
        """The winning seat, 0 or 1, or ``None``."""
        return None if self.winner is None else int(self.winner)


class MoveError(ValueError):
    """Base class of the three ways a move can fail to parse or apply."""


class InvalidMoveError(MoveError):
    """The text is not a move in any notation the game understands."""


class IllegalMoveError(MoveError):
    """The text is a well-formed move, but the rules forbid it here."""


class AmbiguousMoveError(MoveError):
    """The text names more than one legal move."""


class InvalidPositionError(ValueError):
    """A position string (FEN or the like) that cannot be read."""


@runtime_checkable
class Game(Protocol):
    """What the referee, bots and GUI may rely on for any variant.

    Both ``lanqi.games.xiangqi.Board`` and ``lanqi.games.gomoku.Board`` satisfy it;
    use :func:`lanqi.games.registry.create_game` to make one by name.
    """

    variant: ClassVar[str]

    @property
    def options(self) -> Mapping[str, Any]: ...

    @property
    def ply(self) -> int: ...

    @property
    def seat_to_move(self) -> int: ...

    def legal_moves(self) -> Iterable[Any]: ...

    def parse_move(self, text: str) -> Any: ...

    def push(self, move: Any) -> None: ...

    def pop(self) -> Any: ...

    def outcome(self) -> Outcome[Any] | None: ...

    def fen(self) -> str: ...

    def move_text(self, move: Any) -> str: ...

    def snapshot(self) -> dict[str, Any]: ...
