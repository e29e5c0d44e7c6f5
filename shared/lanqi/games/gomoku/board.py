"""Gomoku rules: the board, moves, position strings and the end of the game.

Pure Python, standard library only, no I/O.  Coordinates: ``x`` is the column
from the left (0-based, written as a letter a, b, c, ... including ``i``), ``y``
the row from the bottom (0-based, written 1-based), so the centre of a 15x15
board is ``h8`` = ``Move(x=7, y=7)``.

>>> board = Board()
>>> for text in ["h8", "h9", "i8", "i9", "j8", "j9", "k8", "k9"]:
...     _ = board.push_text(text)
>>> board.outcome() is None
True
>>> _ = board.push_text("l8")
>>> board.result(), [str(m) for m in board.winning_line()]
('1-0', ['h8', 'i8', 'j8', 'k8', 'l8'])
>>> board.pop()
Move(x=11, y=7)
>>> board.result()
'*'
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal, NamedTuple, Self, cast

from lanqi.games.base import (
    Game,
    GameRecord,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    Outcome,
    Position,
    Termination,
    Token,
)
from lanqi.games.gomoku import renju
from lanqi.games.gomoku.renju import Forbidden

__all__ = [
    "COLUMNS",
    "RULES",
    "SIZES",
    "Board",
    "Color",
    "Move",
    "Rule",
]

#: Supported board sizes (the board is square).
SIZES: tuple[int, ...] = (15, 19, 20)
#: Supported rules: five or more wins; exactly five wins; renju.
RULES: tuple[str, ...] = ("freestyle", "standard", "renju")
#: Column letters from the left.  Unlike Go, gomoku keeps the letter ``i``.
COLUMNS = "abcdefghijklmnopqrst"
MAX_SIZE = max(SIZES)

Rule = Literal["freestyle", "standard", "renju"]

_EMPTY = renju.EMPTY
_DIRECTIONS = renju.DIRECTIONS
_TEXT_RE = re.compile(r"([a-z])([1-9][0-9]?)")
_GOMOCUP_RE = re.compile(r"([0-9]{1,2})\s*,\s*([0-9]{1,2})")
_RUN_RE = re.compile(r"[0-9]+|[xo]|.")


class Color(enum.IntEnum):
    """A side.  The value is the seat: Black moves first and sits in seat 0.

    >>> Color.BLACK.other, ~Color.WHITE
    (<Color.WHITE: 1>, <Color.BLACK: 0>)
    >>> Color.WHITE.stone
    'o'
    """

    BLACK = 0
    WHITE = 1

    @property
    def other(self) -> Color:
        """The opponent."""
        return Color.WHITE if self is Color.BLACK else Color.BLACK

    def __invert__(self) -> Color:
        return self.other

    @property
    def stone(self) -> str:
        """The stone letter in position strings: ``x`` for Black, ``o`` for White."""
        return "x" if self is Color.BLACK else "o"

    @property
    def letter(self) -> str:
        """The side-to-move letter in position strings: ``b`` or ``w``."""
        return "b" if self is Color.BLACK else "w"


@dataclass(frozen=True, slots=True, order=True)
class Move:
    """A stone placed on the point (x, y): column from the left, row from the bottom.

    Both are 0-based.  The text form is the column letter and the 1-based row.

    >>> move = Move.from_text("h8")
    >>> move, str(move)
    (Move(x=7, y=7), 'h8')
    >>> move.gomocup(15), Move.from_gomocup("0,0", 15)
    ('7,7', Move(x=0, y=14))
    >>> str(Move(19, 19))
    't20'
    """

    x: int
    y: int

    def __post_init__(self) -> None:
        for name, value in (("x", self.x), ("y", self.y)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"Move.{name} must be an int, not {type(value).__name__}")
            if not 0 <= value < MAX_SIZE:
                raise ValueError(f"Move.{name} must be in 0..{MAX_SIZE - 1}, not {value}")

    def __str__(self) -> str:
        return f"{COLUMNS[self.x]}{self.y + 1}"

    @classmethod
    def from_text(cls, text: str, size: int = 15) -> Move:
        """Parse ``h8`` (case and surrounding spaces ignored) on a board of ``size``.

        Raises :class:`~lanqi.games.base.InvalidMoveError` for text that is not a
        point, or a point off the board.
        """
        match = _TEXT_RE.fullmatch(text.strip().lower())
        if match is None:
            raise InvalidMoveError(
                f"not a move: {text!r} (expected a column letter and a row number, like 'h8')"
            )
        x = ord(match.group(1)) - ord("a")
        y = int(match.group(2)) - 1
        if x >= size or y >= size:
            raise InvalidMoveError(f"{text.strip()!r} is off the board: {_board_range(size)}")
        return cls(x, y)

    @classmethod
    def from_gomocup(cls, text: str, size: int) -> Move:
        """Parse the Gomocup form ``x,y``: 0-based, with ``y`` counted from the TOP row.

        Raises :class:`~lanqi.games.base.InvalidMoveError` for bad text or a point
        off the board.
        """
        match = _GOMOCUP_RE.fullmatch(text.strip())
        if match is None:
            raise InvalidMoveError(f"not a Gomocup move: {text!r} (expected 'x,y', like '7,7')")
        x, top = int(match.group(1)), int(match.group(2))
        if x >= size or top >= size:
            raise InvalidMoveError(
                f"{text.strip()!r} is off the {size}x{size} board (x and y run 0-{size - 1})"
            )
        return cls(x, size - 1 - top)

    def gomocup(self, size: int) -> str:
        """The Gomocup form ``x,y`` on a board of ``size`` (``y`` from the top)."""
        if self.x >= size or self.y >= size:
            raise ValueError(f"{self} is off the {size}x{size} board")
        return f"{self.x},{size - 1 - self.y}"


def _board_range(size: int) -> str:
    return f"the {size}x{size} board has columns a-{COLUMNS[size - 1]} and rows 1-{size}"


class _Ply(NamedTuple):
    """What one push changed: the move and the outcome it produced."""

    move: Move
    outcome: Outcome[Color] | None
    line: tuple[Move, ...] | None


class Board:
    """A gomoku position with its move history.

    ``rule`` is ``"freestyle"`` (five or more in a row wins), ``"standard"``
    (exactly five wins; six or more does not) or ``"renju"`` (Black must make
    exactly five and may not play overlines, double-fours or double-threes;
    White wins with five or more).  A full board without a win is a draw.

    >>> board = Board(size=15, rule="standard")
    >>> board.turn, board.ply, board.fen()
    (<Color.BLACK: 0>, 0, '15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 b')
    >>> board.push(board.parse_move("h8"))
    >>> board.push(board.parse_move("7,6"))  # Gomocup x,y: y from the top, so h9
    >>> board.move_stack, board.stone_at(7, 8)
    ([Move(x=7, y=7), Move(x=7, y=8)], <Color.WHITE: 1>)
    >>> board.fen()
    '15/15/15/15/15/15/7o7/7x7/15/15/15/15/15/15/15 b'
    >>> Board.from_fen(board.fen(), rule="standard").stone_at(7, 7)
    <Color.BLACK: 0>
    """

    variant: ClassVar[str] = "gomoku"

    def __init__(self, size: int = 15, rule: str = "freestyle") -> None:
        if isinstance(size, bool) or not isinstance(size, int) or size not in SIZES:
            choices = ", ".join(str(s) for s in SIZES)
            raise ValueError(f"unsupported board size {size!r}; choose one of {choices}")
        if rule not in RULES:
            raise ValueError(f"unknown rule {rule!r}; choose one of {', '.join(RULES)}")
        self._size = size
        self._rule = cast(Rule, rule)
        self._cells: list[int] = [_EMPTY] * (size * size)
        self._empty = size * size
        self._start_turn = Color.BLACK
        self._start_fen: str | None = None
        self._start_outcome: Outcome[Color] | None = None
        self._start_line: tuple[Move, ...] | None = None
        self._plies: list[_Ply] = []
        # Renju only: whether Black, to move, has nothing but forbidden points left.
        self._stuck: dict[int, bool] = {}

    # -- construction -------------------------------------------------------

    @classmethod
    def from_fen(cls, text: str, rule: str = "freestyle") -> Self:
        """A board starting from the position string ``text`` (see :meth:`fen`).

        Raises :class:`~lanqi.games.base.InvalidPositionError` saying what is
        wrong.  Stone counts are not checked (a game may start from any setup),
        but both sides cannot have a five, and under renju Black cannot have an
        overline, since neither can arise in play.
        """
        if not isinstance(text, str):
            raise InvalidPositionError(f"position must be a string, not {type(text).__name__}")
        parts = text.split()
        if len(parts) != 2:
            raise InvalidPositionError(
                f"position {text!r} must be '<rows> <side to move>', like '15/.../15 b'"
            )
        placement, side = parts
        if side not in ("b", "w"):
            raise InvalidPositionError(f"side to move must be 'b' or 'w', not {side!r}")
        rows = placement.split("/")
        size = len(rows)
        if size not in SIZES:
            choices = ", ".join(str(s) for s in SIZES)
            raise InvalidPositionError(
                f"position has {size} rows; the board must be {choices} points square"
            )
        board = cls(size, rule)
        cells = board._cells
        for row_number, row in enumerate(rows, start=1):
            y = size - row_number
            x = 0
            for token in _RUN_RE.findall(row):
                if token.isdigit():
                    run = int(token)
                    if run == 0 or token.startswith("0"):
                        raise InvalidPositionError(
                            f"row {row_number} from the top: bad empty run {token!r}"
                        )
                    x += run
                elif token in ("x", "o"):
                    if x < size:
                        cells[y * size + x] = 0 if token == "x" else 1
                    x += 1
                else:
                    raise InvalidPositionError(
                        f"row {row_number} from the top: unexpected {token!r} "
                        "(use 'x' for Black, 'o' for White, digits for empty points)"
                    )
                if x > size:
                    break
            if x != size:
                raise InvalidPositionError(
                    f"row {row_number} from the top has {'more' if x > size else 'fewer'} "
                    f"than {size} points: {row!r}"
                )
        board._empty = cells.count(_EMPTY)
        board._start_turn = Color.BLACK if side == "b" else Color.WHITE
        board._start_outcome, board._start_line = board._scan_outcome()
        canonical = board.fen()
        board._start_fen = None if canonical == _empty_fen(size) else canonical
        return board

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Self:
        """A board from game options: ``size``, ``rule`` and ``fen`` (a start position).

        Unknown keys, and a ``size`` that disagrees with ``fen``, raise ``ValueError``.

        >>> Board.from_options({"size": 19, "rule": "renju"}).options
        {'size': 19, 'rule': 'renju'}
        """
        unknown = sorted(set(options) - {"size", "rule", "fen"})
        if unknown:
            raise ValueError(
                f"unknown gomoku option(s): {', '.join(map(str, unknown))}; known: size, rule, fen"
            )
        rule = options.get("rule", "freestyle")
        if not isinstance(rule, str):
            raise ValueError(f"rule must be a string, not {rule!r}")
        fen = options.get("fen")
        if fen is None:
            return cls(options.get("size", 15), rule)
        if not isinstance(fen, str):
            raise ValueError(f"fen must be a string, not {fen!r}")
        board = cls.from_fen(fen, rule)
        if "size" in options and options["size"] != board.size:
            raise ValueError(
                f"size {options['size']!r} disagrees with the fen ({board.size}x{board.size})"
            )
        return board

    def copy(self) -> Self:
        """An independent copy, history included."""
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._cells = self._cells.copy()
        new._plies = self._plies.copy()
        new._stuck = self._stuck.copy()
        return new

    # -- state ---------------------------------------------------------------

    @property
    def size(self) -> int:
        """The number of points along a side: 15, 19 or 20."""
        return self._size

    @property
    def rule(self) -> Rule:
        """``"freestyle"``, ``"standard"`` or ``"renju"``."""
        return self._rule

    @property
    def options(self) -> dict[str, Any]:
        """The options that make this game: ``{"size": ..., "rule": ...}``."""
        return {"size": self._size, "rule": self._rule}

    @property
    def ply(self) -> int:
        """The number of moves played since the start position."""
        return len(self._plies)

    @property
    def turn(self) -> Color:
        """The side to move."""
        return self._start_turn if len(self._plies) % 2 == 0 else self._start_turn.other

    @property
    def seat_to_move(self) -> int:
        """The seat to move: 0 for Black, 1 for White."""
        return int(self.turn)

    @property
    def move_stack(self) -> list[Move]:
        """The moves played since the start position (a copy)."""
        return [ply.move for ply in self._plies]

    @property
    def start_fen(self) -> str | None:
        """The start position, or ``None`` for the usual empty board with Black to move."""
        return self._start_fen

    def stone_at(self, x: int, y: int) -> Color | None:
        """The stone on (x, y), or ``None`` for an empty point."""
        if not (0 <= x < self._size and 0 <= y < self._size):
            raise IndexError(f"({x}, {y}) is off the {self._size}x{self._size} board")
        value = self._cells[y * self._size + x]
        return None if value == _EMPTY else Color(value)

    def stones(self, color: Color) -> list[Move]:
        """The points holding ``color``'s stones, bottom row first."""
        size = self._size
        return [Move(i % size, i // size) for i, v in enumerate(self._cells) if v == color]

    # -- moves ----------------------------------------------------------------

    def _on_board(self, move: Move) -> bool:
        return move.x < self._size and move.y < self._size

    def legal_moves(self) -> list[Move]:
        """Every legal move, bottom row first, left to right; empty once the game is over."""
        if self.outcome() is not None:
            return []
        size = self._size
        moves = [Move(i % size, i // size) for i, v in enumerate(self._cells) if v == _EMPTY]
        if self._black_restricted():
            moves = [m for m in moves if self._forbidden(m) is None]
        return moves

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` may be played now."""
        return self._illegal_error(move) is None

    def _illegal_error(self, move: Move) -> IllegalMoveError | None:
        """Why ``move`` cannot be played now (with the broken rule's code), or None."""
        point = str(move)
        if not self._on_board(move):
            reason = f"{move} is off the board: {_board_range(self._size)}"
            return IllegalMoveError(reason, code="off_board", detail={"point": point})
        outcome = self.outcome()
        if outcome is not None:
            reason = f"the game is over ({outcome.result()}, {outcome.termination.value})"
            return IllegalMoveError(reason, code="game_over")
        value = self._cells[move.y * self._size + move.x]
        if value != _EMPTY:
            color = Color(value).name.lower()
            reason = f"{move} is occupied by a {color} stone"
            return IllegalMoveError(reason, code="occupied", detail={"point": point})
        if self._black_restricted():
            forbidden = self._forbidden(move)
            if forbidden is not None:
                reason = f"{move} is forbidden for Black under renju: {forbidden.value}"
                detail = {"point": point, "why": forbidden.value}
                return IllegalMoveError(reason, code="forbidden", detail=detail)
        return None

    def parse_move(self, text: str) -> Move:
        """The move named by ``text`` (``h8``, ``H8`` or Gomocup ``7,7``), if legal now.

        Raises :class:`~lanqi.games.base.InvalidMoveError` for text that is not a
        point on this board, :class:`~lanqi.games.base.IllegalMoveError` for a
        point that cannot be played now (occupied, game over, renju forbidden).
        """
        if not isinstance(text, str):
            raise InvalidMoveError(f"a move must be text, not {type(text).__name__}")
        if "," in text:
            move = Move.from_gomocup(text, self._size)
        else:
            move = Move.from_text(text, self._size)
        error = self._illegal_error(move)
        if error is not None:
            raise error
        return move

    def push(self, move: Move) -> None:
        """Play ``move``.  Raises :class:`~lanqi.games.base.IllegalMoveError` if illegal."""
        if not isinstance(move, Move):
            raise TypeError(f"push() takes a Move, not {type(move).__name__}")
        error = self._illegal_error(move)
        if error is not None:
            raise error
        color = self.turn
        self._cells[move.y * self._size + move.x] = int(color)
        self._empty -= 1
        line = self._five_through(move, color)
        outcome: Outcome[Color] | None
        if line is not None:
            outcome = Outcome(color, Termination.FIVE_IN_A_ROW)
        elif self._empty == 0:
            outcome = Outcome(None, Termination.BOARD_FULL)
        else:
            outcome = None
        self._plies.append(_Ply(move, outcome, line))

    def push_text(self, text: str) -> Move:
        """Parse ``text`` with :meth:`parse_move` and play it; returns the move."""
        move = self.parse_move(text)
        self.push(move)
        return move

    def pop(self) -> Move:
        """Take back the last move and return it.  Raises ``IndexError`` at the start."""
        if not self._plies:
            raise IndexError("pop from a board with no moves played")
        self._stuck.pop(len(self._plies), None)
        move = self._plies.pop().move
        self._cells[move.y * self._size + move.x] = _EMPTY
        self._empty += 1
        return move

    def move_text(self, move: Move) -> str:
        """The text of ``move``: ``h8``."""
        return str(move)

    # -- renju -----------------------------------------------------------------

    def _black_restricted(self) -> bool:
        return self._rule == "renju" and self.turn is Color.BLACK

    def _forbidden(self, move: Move) -> Forbidden | None:
        return renju.forbidden_reason(self._cells, self._size, move.x, move.y)

    def forbidden_reason(self, move: Move) -> Forbidden | None:
        """Why ``move`` is forbidden for Black under renju now, or ``None``.

        Always ``None`` under other rules, with White to move, or on an occupied
        point.

        >>> board = Board.from_fen(
        ...     "15/15/15/15/15/15/15/5xx8/7x7/7x7/15/15/15/15/15 w", rule="renju"
        ... )
        >>> _ = board.push_text("a1")
        >>> board.forbidden_reason(Move.from_text("h8"))
        <Forbidden.DOUBLE_THREE: 'double-three'>
        """
        if not self._black_restricted() or not self._on_board(move):
            return None
        if self._cells[move.y * self._size + move.x] != _EMPTY:
            return None
        return self._forbidden(move)

    def forbidden_moves(self) -> list[Move]:
        """The empty points Black may not play now (for a GUI to mark); see :mod:`.renju`."""
        if not self._black_restricted() or self._last_outcome() is not None:
            return []
        size = self._size
        return [
            Move(i % size, i // size)
            for i, v in enumerate(self._cells)
            if v == _EMPTY and self._forbidden(Move(i % size, i // size)) is not None
        ]

    def _black_is_stuck(self) -> bool:
        """Renju, Black to move: is every empty point forbidden?  Cached per ply."""
        ply = len(self._plies)
        stuck = self._stuck.get(ply)
        if stuck is None:
            size = self._size
            stuck = all(
                self._forbidden(Move(i % size, i // size)) is not None
                for i, v in enumerate(self._cells)
                if v == _EMPTY
            )
            self._stuck[ply] = stuck
        return stuck

    # -- the end of the game ------------------------------------------------------

    def _wins_with_overline(self, color: Color) -> bool:
        if self._rule == "freestyle":
            return True
        if self._rule == "standard":
            return False
        return color is Color.WHITE  # renju: Black needs exactly five

    def _line(self, move: Move, dx: int, dy: int, color: int) -> tuple[Move, ...]:
        """The unbroken run of ``color`` through ``move`` along (dx, dy), in order."""
        size, cells = self._size, self._cells
        x, y = move.x, move.y
        while True:  # walk back to the start of the run
            bx, by = x - dx, y - dy
            if not (0 <= bx < size and 0 <= by < size) or cells[by * size + bx] != color:
                break
            x, y = bx, by
        run: list[Move] = []
        while 0 <= x < size and 0 <= y < size and cells[y * size + x] == color:
            run.append(Move(x, y))
            x, y = x + dx, y + dy
        return tuple(run)

    def _five_through(self, move: Move, color: Color) -> tuple[Move, ...] | None:
        """The first winning run through ``move`` (only its four lines are looked at)."""
        overline_wins = self._wins_with_overline(color)
        for dx, dy in _DIRECTIONS:
            run = self._line(move, dx, dy, color)
            if len(run) == 5 or (overline_wins and len(run) > 5):
                return run
        return None

    def _scan_outcome(self) -> tuple[Outcome[Color] | None, tuple[Move, ...] | None]:
        """The outcome of a set-up position, from a scan of the whole board."""
        size = self._size
        found: dict[Color, tuple[Move, ...]] = {}
        overline: Move | None = None  # of Black under renju
        for index, value in enumerate(self._cells):
            if value == _EMPTY:
                continue
            color = Color(value)
            move = Move(index % size, index // size)
            if color not in found:
                line = self._five_through(move, color)
                if line is not None:
                    found[color] = line
            if self._rule == "renju" and color is Color.BLACK and overline is None:
                for dx, dy in _DIRECTIONS:
                    if len(self._line(move, dx, dy, color)) > 5:
                        overline = move
                        break
        # A five wins even if the same stone makes an overline on another line: only
        # an overline without a five is a position renju cannot reach.
        if overline is not None and Color.BLACK not in found:
            raise InvalidPositionError(
                f"Black has an overline through {overline}, which renju forbids"
            )
        if len(found) == 2:
            raise InvalidPositionError(
                f"both sides have five in a row (Black through {found[Color.BLACK][0]}, "
                f"White through {found[Color.WHITE][0]})"
            )
        for color, line in found.items():
            return Outcome(color, Termination.FIVE_IN_A_ROW), line
        if self._empty == 0:
            return Outcome(None, Termination.BOARD_FULL), None
        return None, None

    def _last_outcome(self) -> Outcome[Color] | None:
        return self._plies[-1].outcome if self._plies else self._start_outcome

    def outcome(self) -> Outcome[Color] | None:
        """How the game ended, or ``None`` while it goes on.

        Decided by the last move alone: a five (``FIVE_IN_A_ROW``) or the last
        empty point filled (``BOARD_FULL``, a draw).  Under renju, Black to move
        with only forbidden points left is also a ``BOARD_FULL`` draw.
        """
        outcome = self._last_outcome()
        if outcome is None and self._black_restricted() and self._black_is_stuck():
            return Outcome(None, Termination.BOARD_FULL)
        return outcome

    def is_game_over(self) -> bool:
        """Whether the game has ended on the board."""
        return self.outcome() is not None

    def result(self) -> str:
        """``1-0`` (Black won), ``0-1`` (White won), ``1/2-1/2`` or ``*`` (not over)."""
        outcome = self.outcome()
        return "*" if outcome is None else outcome.result()

    def winning_line(self) -> tuple[Move, ...] | None:
        """The points of the winning row, end to end, or ``None``.

        Exactly five points, except for a freestyle (or White renju) overline,
        where the whole row is given.
        """
        if self._plies:
            return self._plies[-1].line
        return self._start_line

    # -- text -------------------------------------------------------------------

    def fen(self) -> str:
        """The position string: rows from the top, ``x``/``o`` stones, run lengths
        for empty points, then ``b`` or ``w`` for the side to move."""
        size, cells = self._size, self._cells
        rows: list[str] = []
        for y in range(size - 1, -1, -1):
            row: list[str] = []
            empty = 0
            for value in cells[y * size : (y + 1) * size]:
                if value == _EMPTY:
                    empty += 1
                    continue
                if empty:
                    row.append(str(empty))
                    empty = 0
                row.append(Color(value).stone)
            if empty:
                row.append(str(empty))
            rows.append("".join(row))
        return f"{'/'.join(rows)} {self.turn.letter}"

    def snapshot(self) -> GameRecord:
        """Everything needed to rebuild the game: variant, options, start and moves."""
        return {
            "variant": self.variant,
            "options": self.options,
            "start": self._start_fen,
            "moves": [str(ply.move) for ply in self._plies],
        }

    def position(self) -> Position:
        """The position to draw: ``stone`` tokens, the last stone, and the markers
        ``line`` (the winning row) and ``forbidden`` (renju points Black may not play)."""
        size = self._size
        cells = {
            (i % size, i // size): Token(value, "stone")
            for i, value in enumerate(self._cells)
            if value != _EMPTY
        }
        last = self._plies[-1].move if self._plies else None
        markers: dict[str, tuple[tuple[int, int], ...]] = {}
        line = self.winning_line()
        if line:
            markers["line"] = tuple((m.x, m.y) for m in line)
        forbidden = self.forbidden_moves()
        if forbidden:
            markers["forbidden"] = tuple((m.x, m.y) for m in forbidden)
        return Position(
            variant=self.variant,
            files=size,
            ranks=size,
            file_names=tuple(COLUMNS[:size]),
            rank_names=tuple(str(y + 1) for y in range(size)),
            cells=cells,
            to_move=None if self.outcome() is not None else self.seat_to_move,
            last_move=() if last is None else ((last.x, last.y),),
            markers=markers,
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}.from_fen({self.fen()!r}, rule={self._rule!r})"

    def __str__(self) -> str:
        """A text diagram, top row first, with coordinates."""
        size = self._size
        lines = []
        for y in range(size - 1, -1, -1):
            points = " ".join(
                "." if v == _EMPTY else Color(v).stone
                for v in self._cells[y * size : (y + 1) * size]
            )
            lines.append(f"{y + 1:>2} {points}")
        lines.append("   " + " ".join(COLUMNS[:size]))
        return "\n".join(lines)


def _empty_fen(size: int) -> str:
    return "/".join([str(size)] * size) + " b"


if TYPE_CHECKING:
    _IS_A_GAME: Game[Move] = Board()
