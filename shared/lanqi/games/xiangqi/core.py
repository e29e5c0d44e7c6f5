"""Xiangqi board, moves and rules: pure Python, standard library only.

Squares are numbered ``rank * 9 + file``: files a-i (0-8) from Red's left, ranks
0-9 from Red's side, as in ICCS.  The board is a 90-entry mailbox with move
tables computed once; pieces are small ints (type | colour << 3).

Squares, pieces and moves come from :mod:`lanqi.games.xiangqi.pieces`; the board
reads and writes moves through :mod:`~lanqi.games.xiangqi.notation` and judges a
repeated position through :mod:`~lanqi.games.xiangqi.repetition`, which build
on ``pieces`` and never import this module.

>>> board = Board()
>>> len(list(board.legal_moves()))
44
>>> board.push(Move.from_iccs("h2e2"))
>>> board.fen()
'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1'
>>> Board().perft(2)
1920
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar

from lanqi.games.base import (
    Game,
    GameRecord,
    IllegalMoveError,
    InvalidPositionError,
    Outcome,
    Position,
    Termination,
    Token,
)
from lanqi.games.xiangqi.notation import parse_any, wxf
from lanqi.games.xiangqi.pieces import (
    ADVISOR,
    CANNON,
    ELEPHANT,
    FILES,
    HORSE,
    KING,
    NUM_SQUARES,
    PAWN,
    PIECE_NAMES,
    ROOK,
    Color,
    Move,
    Piece,
    parse_square,
    square,
    square_file,
    square_name,
    square_rank,
)
from lanqi.games.xiangqi.repetition import judge_repetition

__all__ = [
    "ADVISOR",
    "CANNON",
    "ELEPHANT",
    "HORSE",
    "KING",
    "PAWN",
    "ROOK",
    "STARTING_FEN",
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

STARTING_FEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"

#: FEN letter of each piece code (type | colour << 3)
_FEN_LETTERS = ("", "K", "A", "B", "N", "R", "C", "P", "", "k", "a", "b", "n", "r", "c", "p")
_DIGITS = tuple(str(n) for n in range(10))
#: FEN text of one rank (9 piece codes), memoised: a game has few distinct ranks.
_RANK_TEXT: dict[tuple[int, ...], str] = {}
_RANK_TEXT_MAX = 20_000  # about 6 MB at most


def _rank_text(rank: tuple[int, ...]) -> str:
    out = []
    empty = 0
    for code in rank:
        if code:
            if empty:
                out.append(_DIGITS[empty])
                empty = 0
            out.append(_FEN_LETTERS[code])
        else:
            empty += 1
    if empty:
        out.append(_DIGITS[empty])
    return "".join(out)


# --------------------------------------------------------------------------
# Move tables, computed once.

_STEPS = ((0, 1), (0, -1), (1, 0), (-1, 0))  # N, S, E, W (dfile, drank)


def _on_board(f: int, r: int) -> bool:
    return 0 <= f < 9 and 0 <= r < 10


def _in_palace(color: int, f: int, r: int) -> bool:
    return 3 <= f <= 5 and (r <= 2 if color == 0 else r >= 7)


def _own_half(color: int, r: int) -> bool:
    return r <= 4 if color == 0 else r >= 5


def _build_rays() -> tuple[tuple[tuple[int, ...], ...], ...]:
    rays = []
    for sq in range(NUM_SQUARES):
        f0, r0 = sq % 9, sq // 9
        per_dir = []
        for df, dr in _STEPS:
            line = []
            f, r = f0 + df, r0 + dr
            while _on_board(f, r):
                line.append(square(f, r))
                f, r = f + df, r + dr
            per_dir.append(tuple(line))
        rays.append(tuple(per_dir))
    return tuple(rays)


def _build_horse() -> tuple[
    tuple[tuple[tuple[int, int], ...], ...], tuple[tuple[tuple[int, int], ...], ...]
]:
    """(moves, attackers): moves[sq] = ((leg, to), ...); attackers[sq] = ((from, leg), ...)."""
    moves: list[list[tuple[int, int]]] = [[] for _ in range(NUM_SQUARES)]
    attackers: list[list[tuple[int, int]]] = [[] for _ in range(NUM_SQUARES)]
    for sq in range(NUM_SQUARES):
        f0, r0 = sq % 9, sq // 9
        for df, dr in ((1, 2), (-1, 2), (1, -2), (-1, -2), (2, 1), (2, -1), (-2, 1), (-2, -1)):
            f, r = f0 + df, r0 + dr
            if not _on_board(f, r):
                continue
            leg = square(f0 + df // 2, r0) if abs(df) == 2 else square(f0, r0 + dr // 2)
            moves[sq].append((leg, square(f, r)))
            attackers[square(f, r)].append((sq, leg))
    return tuple(tuple(m) for m in moves), tuple(tuple(a) for a in attackers)


def _build_elephant() -> tuple[tuple[tuple[tuple[int, int], ...], ...], ...]:
    tables = []
    for color in (0, 1):
        table = []
        for sq in range(NUM_SQUARES):
            f0, r0 = sq % 9, sq // 9
            entries = []
            for df, dr in ((2, 2), (2, -2), (-2, 2), (-2, -2)):
                f, r = f0 + df, r0 + dr
                if _on_board(f, r) and _own_half(color, r) and _own_half(color, r0):
                    entries.append((square(f0 + df // 2, r0 + dr // 2), square(f, r)))
            table.append(tuple(entries))
        tables.append(tuple(table))
    return tuple(tables)


def _build_steps(
    color: int, deltas: tuple[tuple[int, int], ...], palace: bool
) -> tuple[tuple[int, ...], ...]:
    table = []
    for sq in range(NUM_SQUARES):
        f0, r0 = sq % 9, sq // 9
        targets = []
        if not palace or _in_palace(color, f0, r0):
            for df, dr in deltas:
                f, r = f0 + df, r0 + dr
                if _on_board(f, r) and (not palace or _in_palace(color, f, r)):
                    targets.append(square(f, r))
        table.append(tuple(targets))
    return tuple(table)


def _build_pawn(color: int) -> tuple[tuple[int, ...], ...]:
    forward = 1 if color == 0 else -1
    table = []
    for sq in range(NUM_SQUARES):
        f0, r0 = sq % 9, sq // 9
        targets = []
        if _on_board(f0, r0 + forward):
            targets.append(square(f0, r0 + forward))
        if not _own_half(color, r0):
            targets.extend(square(f0 + d, r0) for d in (-1, 1) if _on_board(f0 + d, r0))
        table.append(tuple(targets))
    return tuple(table)


RAYS = _build_rays()
HORSE_MOVES, HORSE_ATTACKERS = _build_horse()
ELEPHANT_MOVES = _build_elephant()
_DIAGONALS = ((1, 1), (1, -1), (-1, 1), (-1, -1))
ADVISOR_MOVES = (_build_steps(0, _DIAGONALS, True), _build_steps(1, _DIAGONALS, True))
KING_MOVES = (_build_steps(0, _STEPS, True), _build_steps(1, _STEPS, True))
PAWN_MOVES = (_build_pawn(0), _build_pawn(1))
#: PAWN_ATTACKERS[color][sq]: squares from which a pawn of ``color`` attacks sq.
PAWN_ATTACKERS = tuple(
    tuple(tuple(f for f in range(NUM_SQUARES) if sq in PAWN_MOVES[c][f]) for sq in range(90))
    for c in (0, 1)
)


def _build_line_dirs() -> tuple[tuple[int, ...], ...]:
    """LINE_DIR[k][sq]: index of the ray from k that passes sq, or -1."""
    table = []
    for k in range(NUM_SQUARES):
        row = [-1] * NUM_SQUARES
        for d, ray in enumerate(RAYS[k]):
            for sq in ray:
                row[sq] = d
        table.append(tuple(row))
    return tuple(table)


LINE_DIR = _build_line_dirs()

#: per colour, per piece code on a square (0: empty): may that colour move there?
_TARGETS = tuple(tuple(p == 0 or p >> 3 != c for p in range(16)) for c in (0, 1))
#: ... and capture there?
_CAPTURES = tuple(tuple(p != 0 and p >> 3 != c for p in range(16)) for c in (0, 1))
#: HORSE_BY_LEG[k]: leg square -> horse squares that attack k through that leg.
HORSE_BY_LEG: tuple[dict[int, tuple[int, ...]], ...] = tuple(
    {
        leg: tuple(f for f, lg in HORSE_ATTACKERS[k] if lg == leg)
        for leg in {lg for _, lg in HORSE_ATTACKERS[k]}
    }
    for k in range(NUM_SQUARES)
)

_zobrist_rng = random.Random(0x1A9C1)
ZOBRIST = tuple(tuple(_zobrist_rng.getrandbits(64) for _ in range(NUM_SQUARES)) for _ in range(16))
ZOBRIST_BLACK = _zobrist_rng.getrandbits(64)
del _zobrist_rng

_MOVE_CACHE: dict[int, Move] = {}


def _move_of(code: int) -> Move:
    move = _MOVE_CACHE.get(code)
    if move is None:
        move = _MOVE_CACHE[code] = Move(code >> 7, code & 127)
    return move


def _code_of(move: Move) -> int:
    return (move.from_square << 7) | move.to_square


# --------------------------------------------------------------------------
# Rules options


REPETITION_RULES = ("axf", "check", "draw")


@dataclass(frozen=True, slots=True)
class _UndoInfo:
    code: int
    captured: int
    halfmove_clock: int
    hash: int


class Board:
    """A xiangqi position with its move history and the rules to judge it.

    Options (all keyword, also accepted by :meth:`from_options` and the registry):

    - ``repetition``: ``"axf"`` (default: perpetual check and perpetual chase lose,
      other repetition draws), ``"check"`` (only perpetual check loses) or
      ``"draw"`` (every repetition is a draw).
    - ``repetition_count``: occurrences of a position that end the game (default 3).
    - ``move_limit``: plies without a capture that draw the game (default 120;
      0 turns the limit off).
    """

    variant: ClassVar[str] = "xiangqi"

    def __init__(
        self,
        fen: str | None = STARTING_FEN,
        *,
        repetition: str = "axf",
        repetition_count: int = 3,
        move_limit: int = 120,
    ) -> None:
        if repetition not in REPETITION_RULES:
            raise ValueError(
                f"repetition must be one of {', '.join(REPETITION_RULES)}, not {repetition!r}"
            )
        if type(repetition_count) is not int or not 2 <= repetition_count <= 10:  # not a bool
            raise ValueError("repetition_count must be a whole number from 2 to 10")
        if type(move_limit) is not int or not 0 <= move_limit <= 1000:
            raise ValueError("move_limit must be a number of plies from 0 (off) to 1000")
        self.repetition = repetition
        self.repetition_count = repetition_count
        self.move_limit = move_limit
        self._squares: list[int] = [0] * NUM_SQUARES
        self._kings = [-1, -1]
        self._pieces: tuple[set[int], set[int]] = (set(), set())
        self._turn = 0
        self.halfmove_clock = 0
        self.fullmove_number = 1
        self._hash = 0
        self._undo: list[_UndoInfo] = []
        self.move_stack: list[Move] = []
        self._start_fen: str | None = None
        self._cache_hash = -1
        self._cache_codes: list[int] = []
        self._pseudo_hash = -1
        self._pseudo_cache: list[int] = []
        self._any_hash = -1
        self._any_legal = False
        self._checked = (-1, -1)  # (position hash, move code) last asked by _is_legal_code
        self._checked_legal = False
        #: outcome() of (hash, plies, history version); pop() bumps the version
        self._outcome_key: tuple[int, int, int] = (-1, -1, -1)
        self._outcome_value: Outcome[Color] | None = None
        self._history_version = 0
        if fen is not None:
            self.set_fen(fen)

    # ------------------------------------------------------------------ setup

    @classmethod
    def from_fen(cls, fen: str, **options: Any) -> Board:
        """A board set up from ``fen``; raises InvalidPositionError."""
        return cls(fen, **options)

    @classmethod
    def empty(cls, **options: Any) -> Board:
        """A board with no pieces, Red to move (for setting up positions)."""
        return cls(None, **options)

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Board:
        """Build from a registry option mapping: ``fen`` plus the rules options."""
        known = {"fen", "repetition", "repetition_count", "move_limit"}
        unknown = set(options) - known
        if unknown:
            raise ValueError(
                f"unknown option(s) {', '.join(sorted(unknown))}; known: {', '.join(sorted(known))}"
            )
        rest = {k: v for k, v in options.items() if k != "fen"}
        fen = options.get("fen") or STARTING_FEN
        if not isinstance(fen, str):
            raise ValueError("fen must be a string")
        return cls(fen, **rest)

    @property
    def options(self) -> dict[str, Any]:
        return {
            "repetition": self.repetition,
            "repetition_count": self.repetition_count,
            "move_limit": self.move_limit,
        }

    def _rules_kwargs(self) -> dict[str, Any]:
        return self.options

    def clear(self) -> None:
        """Remove every piece and forget the history."""
        self._squares = [0] * NUM_SQUARES
        self._kings = [-1, -1]
        self._pieces = (set(), set())
        self._turn = 0
        self.halfmove_clock = 0
        self.fullmove_number = 1
        self._hash = 0
        self._undo = []
        self.move_stack = []
        self._start_fen = None
        self._cache_hash = -1
        self._pseudo_hash = -1
        self._any_hash = -1
        self._checked = (-1, -1)
        self._history_version += 1

    def set_fen(self, fen: str) -> None:
        """Set up the position from ``fen`` and forget the history.

        The side to move may be ``w`` or ``r`` for Red and ``b`` for Black; the
        castling and en-passant fields (``- -``) and the counters are optional.
        """
        fields = fen.split()
        if not fields:
            raise InvalidPositionError("empty FEN")
        rows = fields[0].split("/")
        if len(rows) != 10:
            raise InvalidPositionError(
                f"FEN board needs 10 ranks separated by '/', got {len(rows)}"
            )
        squares = [0] * NUM_SQUARES
        for row_index, row in enumerate(rows):
            rank = 9 - row_index
            file = 0
            for char in row:
                if char.isdigit():
                    file += int(char)
                else:
                    try:
                        piece = Piece.from_symbol(char)
                    except ValueError:
                        raise InvalidPositionError(
                            f"FEN rank {rank}: {char!r} is not a piece letter"
                        ) from None
                    if file >= 9:
                        raise InvalidPositionError(f"FEN rank {rank} has more than 9 files")
                    squares[square(file, rank)] = piece.code
                    file += 1
            if file != 9:
                raise InvalidPositionError(f"FEN rank {rank} has {file} files, not 9")
        side = fields[1].lower() if len(fields) > 1 else "w"
        if side not in ("w", "r", "b"):
            raise InvalidPositionError(f"FEN side to move must be w (or r) or b, not {side!r}")
        counters = fields[4:6] if len(fields) >= 6 else []
        try:
            halfmove = int(counters[0]) if counters else 0
            fullmove = int(counters[1]) if counters else 1
        except ValueError:
            raise InvalidPositionError("FEN move counters must be whole numbers") from None
        if halfmove < 0 or fullmove < 1:
            raise InvalidPositionError("FEN move counters out of range")
        self._check_placement(squares)
        self.clear()
        self._squares = squares
        for sq, code in enumerate(squares):
            if code:
                self._pieces[code >> 3].add(sq)
                if code & 7 == KING:
                    self._kings[code >> 3] = sq
        self._turn = 1 if side == "b" else 0
        self.halfmove_clock = halfmove
        self.fullmove_number = fullmove
        self._hash = self._compute_hash()
        if self._is_attacked(self._kings[1 - self._turn], self._turn):
            raise InvalidPositionError("the side not to move is in check (or the generals face)")
        self._start_fen = None if self.fen() == STARTING_FEN else self.fen()

    @staticmethod
    def _check_placement(squares: list[int]) -> None:
        for color in (0, 1):
            name = "Red" if color == 0 else "Black"
            kings = [sq for sq, c in enumerate(squares) if c == (KING | color << 3)]
            if len(kings) != 1:
                raise InvalidPositionError(f"{name} must have exactly one general")
            for sq, code in enumerate(squares):
                if not code or code >> 3 != color:
                    continue
                kind, f, r = code & 7, sq % 9, sq // 9
                if kind in (KING, ADVISOR) and not _in_palace(color, f, r):
                    raise InvalidPositionError(
                        f"{name} {PIECE_NAMES[kind]} on {square_name(sq)} is outside its palace"
                    )
                if kind == ADVISOR and (f + r) % 2 != (1 if color == 0 else 0):
                    raise InvalidPositionError(
                        f"{name} advisor on {square_name(sq)} is off the palace diagonals"
                    )
                if kind == ELEPHANT and (
                    not _own_half(color, r) or sq not in _ELEPHANT_POINTS[color]
                ):
                    raise InvalidPositionError(
                        f"{name} elephant on {square_name(sq)} is not on an elephant point"
                    )
                if kind == PAWN and (
                    (color == 0 and r < 3)
                    or (color == 1 and r > 6)
                    or (_own_half(color, r) and f % 2 == 1)
                ):
                    raise InvalidPositionError(
                        f"{name} soldier on {square_name(sq)} cannot stand there"
                    )

    def _compute_hash(self) -> int:
        h = ZOBRIST_BLACK if self._turn else 0
        for sq, code in enumerate(self._squares):
            if code:
                h ^= ZOBRIST[code][sq]
        return h

    def fen(self) -> str:
        """The position in engine FEN (``w`` = Red to move)."""
        side = "b" if self._turn else "w"
        return f"{self.board_fen()} {side} - - {self.halfmove_clock} {self.fullmove_number}"

    def board_fen(self) -> str:
        """The placement part of the FEN (ranks 9 to 0)."""
        sqs = self._squares
        memo = _RANK_TEXT
        rows = []
        for base in range(81, -1, -9):
            rank = tuple(sqs[base : base + 9])
            text = memo.get(rank)
            if text is None:
                text = _rank_text(rank)
                if len(memo) < _RANK_TEXT_MAX:
                    memo[rank] = text
            rows.append(text)
        return "/".join(rows)

    def copy(self, *, stack: bool = True) -> Board:
        """A copy of the board; with ``stack=False`` the history is dropped."""
        board = Board(None, **self._rules_kwargs())
        board._squares = self._squares.copy()
        board._kings = self._kings.copy()
        board._pieces = (set(self._pieces[0]), set(self._pieces[1]))
        board._turn = self._turn
        board.halfmove_clock = self.halfmove_clock
        board.fullmove_number = self.fullmove_number
        board._hash = self._hash
        # what this position's move generation found holds for the copy (keyed by
        # the position; the lists are replaced, never changed in place)
        board._pseudo_hash, board._pseudo_cache = self._pseudo_hash, self._pseudo_cache
        board._cache_hash, board._cache_codes = self._cache_hash, self._cache_codes
        board._any_hash, board._any_legal = self._any_hash, self._any_legal
        board._checked, board._checked_legal = self._checked, self._checked_legal
        if stack:
            board._undo = self._undo.copy()
            board.move_stack = self.move_stack.copy()
            board._start_fen = self._start_fen
            board._history_version = self._history_version  # the same history
            board._outcome_key, board._outcome_value = self._outcome_key, self._outcome_value
        else:
            board._start_fen = None if board.fen() == STARTING_FEN else board.fen()
        return board

    def root(self) -> Board:
        """A new board at the position the game started from."""
        if self._start_fen is None:
            return Board(STARTING_FEN, **self._rules_kwargs())
        return Board(self._start_fen, **self._rules_kwargs())

    @property
    def start_fen(self) -> str:
        return self._start_fen or STARTING_FEN

    # ------------------------------------------------------------- queries

    @property
    def turn(self) -> Color:
        return Color(self._turn)

    @property
    def seat_to_move(self) -> int:
        return self._turn

    @property
    def ply(self) -> int:
        return len(self.move_stack)

    def piece_at(self, sq: int) -> Piece | None:
        code = self._squares[sq]
        return Piece.from_code(code) if code else None

    def piece_codes(self) -> list[int]:
        """The 90 squares as piece codes (0 empty, else ``piece_type | color << 3``),
        a read-only view for fast scans: do not modify it."""
        return self._squares

    def piece_map(self) -> dict[int, Piece]:
        return {sq: Piece.from_code(c) for sq, c in enumerate(self._squares) if c}

    def king(self, color: Color) -> int:
        """The square of ``color``'s general."""
        return self._kings[int(color)]

    def zobrist_hash(self) -> int:
        return self._hash

    def is_check(self) -> bool:
        """Is the side to move's general attacked?"""
        return self._is_attacked(self._kings[self._turn], 1 - self._turn)

    def is_attacked_by(self, color: Color, sq: int) -> bool:
        """Does ``color`` attack ``sq`` (ignoring whether the capture would be legal)?"""
        return bool(self.attackers(color, sq))

    def attackers(self, color: Color, sq: int) -> list[int]:
        """Squares of ``color``'s pieces that attack ``sq`` by the movement rules."""
        c = int(color)
        result = []
        for f in self._pieces[c]:
            if self._attacks(f, sq):
                result.append(f)
        return result

    def _attacks(self, frm: int, to: int) -> bool:
        """Does the piece on ``frm`` move to ``to`` by its movement rules (no legality)?"""
        code = self._squares[frm]
        kind, color = code & 7, code >> 3
        sqs = self._squares
        if kind in (ROOK, CANNON):
            d = LINE_DIR[frm][to]
            if d < 0:
                return False
            between = 0
            for s in RAYS[frm][d]:
                if s == to:
                    return between == 0 if kind == ROOK else between == 1
                if sqs[s]:
                    between += 1
            return False
        if kind == HORSE:
            return any(t == to and not sqs[leg] for leg, t in HORSE_MOVES[frm])
        if kind == ELEPHANT:
            return any(t == to and not sqs[eye] for eye, t in ELEPHANT_MOVES[color][frm])
        if kind == ADVISOR:
            return to in ADVISOR_MOVES[color][frm]
        if kind == PAWN:
            return to in PAWN_MOVES[color][frm]
        if kind == KING:
            if to in KING_MOVES[color][frm]:
                return True
            # the flying general: a general "attacks" the other one on an open file
            if sqs[to] & 7 == KING and frm % 9 == to % 9:
                return self._between_empty(frm, to)
        return False

    def _between_empty(self, a: int, b: int) -> bool:
        """Are all squares strictly between ``a`` and ``b`` (on one line) empty?"""
        d = LINE_DIR[a][b]
        for s in RAYS[a][d]:
            if s == b:
                return True
            if self._squares[s]:
                return False
        return False

    def _is_attacked(self, k: int, by: int) -> bool:
        """Is square ``k`` attacked by side ``by``?  (Used for general squares.)

        Written for speed: move generation and the search ask it at every node.
        """
        sqs = self._squares
        shift = by << 3
        horse = HORSE | shift
        for f, leg in HORSE_ATTACKERS[k]:
            if sqs[f] == horse and not sqs[leg]:
                return True
        pawn = PAWN | shift
        for f in PAWN_ATTACKERS[by][k]:
            if sqs[f] == pawn:
                return True
        rook = ROOK | shift
        king = KING | shift
        cannon = CANNON | shift
        for ray in RAYS[k]:
            screen = False
            for s in ray:
                p = sqs[s]
                if p:
                    if screen:
                        if p == cannon:
                            return True
                        break
                    if p in (rook, king):
                        return True
                    screen = True
        return False

    def _ray_attacked(self, k: int, d: int, by: int) -> bool:
        sqs = self._squares
        screen = False
        for s in RAYS[k][d]:
            p = sqs[s]
            if p:
                if screen:
                    return p == (CANNON | by << 3)
                if p == (ROOK | by << 3) or p == (KING | by << 3):
                    return True
                screen = True
        return False

    # ------------------------------------------------------- move generation

    def _pseudo_codes(self, quiet: bool = True) -> list[int]:
        """Moves by the movement rules for the side to move, as ``from << 7 | to``;
        captures only when ``quiet`` is False (the search's quiescence asks for those).

        Whether a square may be moved to is one look-up in :data:`_TARGETS` (quiet
        moves too) or :data:`_CAPTURES`, indexed by the piece code on it (0: empty).
        """
        us = self._turn
        sqs = self._squares
        ok = _TARGETS[us] if quiet else _CAPTURES[us]
        out: list[int] = []
        append = out.append
        for f in self._pieces[us]:
            kind = sqs[f] & 7
            base = f << 7
            if kind == ROOK:
                for ray in RAYS[f]:
                    for t in ray:
                        p = sqs[t]
                        if p:
                            if p >> 3 != us:
                                append(base | t)
                            break
                        if quiet:
                            append(base | t)
            elif kind == CANNON:
                for ray in RAYS[f]:
                    screen = False
                    for t in ray:
                        p = sqs[t]
                        if not p:
                            if quiet and not screen:
                                append(base | t)
                        elif screen:
                            if p >> 3 != us:
                                append(base | t)
                            break
                        else:
                            screen = True
            elif kind == HORSE:
                for leg, t in HORSE_MOVES[f]:
                    if not sqs[leg] and ok[sqs[t]]:
                        append(base | t)
            elif kind == PAWN:
                for t in PAWN_MOVES[us][f]:
                    if ok[sqs[t]]:
                        append(base | t)
            elif kind == ELEPHANT:
                for eye, t in ELEPHANT_MOVES[us][f]:
                    if not sqs[eye] and ok[sqs[t]]:
                        append(base | t)
            else:  # ADVISOR, KING
                for t in (ADVISOR_MOVES if kind == ADVISOR else KING_MOVES)[us][f]:
                    if ok[sqs[t]]:
                        append(base | t)
        return out

    def _current_pseudo(self) -> list[int]:
        """Pseudo-legal codes of the current position, cached by position hash."""
        if self._pseudo_hash != self._hash:
            self._pseudo_cache = self._pseudo_codes()
            self._pseudo_hash = self._hash
        return self._pseudo_cache

    def _safe_after(self, code: int) -> bool:
        """Would the pseudo-legal move ``code`` leave our general unattacked?"""
        us = self._turn
        sqs = self._squares
        f = code >> 7
        t = code & 127
        p = sqs[f]
        cap = sqs[t]
        sqs[t] = p
        sqs[f] = 0
        king = self._kings[us]
        safe = not self._is_attacked(t if f == king else king, 1 - us)
        sqs[f] = p
        sqs[t] = cap
        return safe

    def _is_legal_code(self, code: int) -> bool:
        """Is ``code`` legal by the movement rules?  Without the full legal list of
        the position at hand, checks this one move only."""
        if self._cache_hash == self._hash:
            return code in self._cache_codes
        if self._checked == (self._hash, code):  # parse, then push, asks twice
            return self._checked_legal
        legal = code in self._current_pseudo() and self._safe_after(code)
        self._checked, self._checked_legal = (self._hash, code), legal
        return legal

    def _has_legal(self) -> bool:
        """Has the side to move a legal move?  Stops at the first one found."""
        if self._cache_hash == self._hash:
            return bool(self._cache_codes)
        if self._any_hash != self._hash:
            safe_after = self._safe_after
            self._any_legal = any(safe_after(code) for code in self._current_pseudo())
            self._any_hash = self._hash
        return self._any_legal

    def _current_codes(self) -> list[int]:
        """Legal move codes of the current position, cached by position hash.

        Public queries (legal_moves, is_legal, outcome, push) share one
        generation per position; internal make/unmake paths use _legal_codes.
        """
        if self._cache_hash != self._hash:
            self._cache_codes = self._legal_codes()
            self._cache_hash = self._hash
        return self._cache_codes

    def _legal_codes(self) -> list[int]:
        """Legal moves as codes: pseudo-legal moves that leave our general safe.

        Out of check, only moves that could expose the general are tried on the
        board: general moves, moves off or onto a line through the general, and
        moves off a horse-leg square next to it.
        """
        us = self._turn
        them = 1 - us
        sqs = self._squares
        k = self._kings[us]
        kings = self._kings
        pseudo = self._pseudo_codes()
        legal: list[int] = []
        append = legal.append
        is_attacked = self._is_attacked
        if is_attacked(k, them):
            for code in pseudo:
                f = code >> 7
                t = code & 127
                p = sqs[f]
                cap = sqs[t]
                sqs[t] = p
                sqs[f] = 0
                if f == k:
                    kings[us] = t
                    if not is_attacked(t, them):
                        append(code)
                    kings[us] = k
                elif not is_attacked(k, them):
                    append(code)
                sqs[f] = p
                sqs[t] = cap
            return legal
        line = LINE_DIR[k]
        legs = HORSE_BY_LEG[k]
        ray_attacked = self._ray_attacked
        horse = HORSE | them << 3
        for code in pseudo:
            f = code >> 7
            t = code & 127
            df = line[f]
            dt = line[t]
            if f == k:
                p = sqs[f]
                cap = sqs[t]
                sqs[t] = p
                sqs[f] = 0
                ok = not is_attacked(t, them)
                sqs[f] = p
                sqs[t] = cap
                if ok:
                    append(code)
                continue
            leg_horses = legs.get(f)
            if df < 0 and leg_horses is None and (dt < 0 or sqs[t]):
                append(code)
                continue
            p = sqs[f]
            cap = sqs[t]
            sqs[t] = p
            sqs[f] = 0
            ok = True
            if (df >= 0 and ray_attacked(k, df, them)) or (
                dt >= 0 and dt != df and not cap and ray_attacked(k, dt, them)
            ):
                ok = False
            elif leg_horses is not None:
                for h in leg_horses:
                    if sqs[h] == horse:
                        ok = False
                        break
            sqs[f] = p
            sqs[t] = cap
            if ok:
                append(code)
        return legal

    def legal_moves(self) -> list[Move]:
        """The legal moves of the side to move; none once the game is over by rule."""
        codes = self._current_codes()
        if self._outcome(bool(codes)) is not None:
            return []
        return [_move_of(c) for c in codes]

    def generate_legal_moves(self) -> Iterator[Move]:
        """The legal moves by the movement rules, even if a draw rule has ended the game."""
        return (_move_of(c) for c in self._current_codes())

    def generate_pseudo_legal_moves(self) -> Iterator[Move]:
        """Moves by the movement rules that may leave the general attacked."""
        return (_move_of(c) for c in self._pseudo_codes())

    def is_pseudo_legal(self, move: Move) -> bool:
        return self._owns_from(move) and _code_of(move) in self._pseudo_codes()

    def _owns_from(self, move: Move) -> bool:
        if not (0 <= move.from_square < NUM_SQUARES and 0 <= move.to_square < NUM_SQUARES):
            return False
        code = self._squares[move.from_square]
        return bool(code) and code >> 3 == self._turn

    def is_legal(self, move: Move) -> bool:
        """Can ``move`` be played now?  False also once the game is over by rule."""
        return self.obeys_movement_rules(move) and self.outcome() is None

    def obeys_movement_rules(self, move: Move) -> bool:
        """Is ``move`` one of :meth:`generate_legal_moves` (draw rules that ended
        the game ignored)?  Checks this one move, without generating the others."""
        return self._owns_from(move) and self._is_legal_code(_code_of(move))

    def has_legal_moves(self) -> bool:
        return self._has_legal()

    def is_capture(self, move: Move) -> bool:
        return bool(self._squares[move.to_square])

    def gives_check(self, move: Move) -> bool:
        """Would ``move`` attack the opponent's general?"""
        code = _code_of(move)
        captured = self._make(code)
        try:
            return self._is_attacked(self._kings[self._turn], 1 - self._turn)
        finally:
            self._unmake(code, captured)

    # ----------------------------------------------------------- make / unmake

    def _make(self, code: int) -> int:
        """Play a move code on the board, the hash kept up to date, no history and no
        legality check; returns the captured piece code (0 for none)."""
        f = code >> 7
        t = code & 127
        sqs = self._squares
        p = sqs[f]
        cap = sqs[t]
        sqs[t] = p
        sqs[f] = 0
        us = self._turn
        mine = self._pieces[us]
        mine.discard(f)
        mine.add(t)
        zp = ZOBRIST[p]
        if cap:
            self._pieces[1 - us].discard(t)
            self._hash ^= zp[f] ^ zp[t] ^ ZOBRIST[cap][t] ^ ZOBRIST_BLACK
        else:
            self._hash ^= zp[f] ^ zp[t] ^ ZOBRIST_BLACK
        if p & 7 == KING:
            self._kings[us] = t
        self._turn = 1 - us
        return cap

    def _unmake(self, code: int, cap: int) -> None:
        """Take back :meth:`_make` (pass the piece code it returned)."""
        f = code >> 7
        t = code & 127
        sqs = self._squares
        p = sqs[t]
        sqs[f] = p
        sqs[t] = cap
        us = 1 - self._turn
        self._turn = us
        mine = self._pieces[us]
        mine.discard(t)
        mine.add(f)
        zp = ZOBRIST[p]
        if cap:
            self._pieces[1 - us].add(t)
            self._hash ^= zp[f] ^ zp[t] ^ ZOBRIST[cap][t] ^ ZOBRIST_BLACK
        else:
            self._hash ^= zp[f] ^ zp[t] ^ ZOBRIST_BLACK
        if p & 7 == KING:
            self._kings[us] = f

    def push(self, move: Move) -> None:
        """Play ``move``; raises IllegalMoveError (with the reason) if it is not legal now."""
        if not self.is_legal(move):
            raise self._illegal_error(move)
        self._push_unchecked(move)

    def _push_unchecked(self, move: Move) -> None:
        code = _code_of(move)
        cap = self._squares[move.to_square]
        self._undo.append(_UndoInfo(code, cap, self.halfmove_clock, self._hash))
        self._make(code)
        self.halfmove_clock = 0 if cap else self.halfmove_clock + 1
        if self._turn == 0:
            self.fullmove_number += 1
        self.move_stack.append(move)

    def pop(self) -> Move:
        """Take back the last move and return it; raises IndexError if there is none."""
        if not self._undo:
            raise IndexError("pop from a board with no moves played")
        info = self._undo.pop()
        self._history_version += 1
        move = self.move_stack.pop()
        if self._turn == 0:
            self.fullmove_number -= 1
        self._unmake(info.code, info.captured)
        self.halfmove_clock = info.halfmove_clock
        self._hash = info.hash
        return move

    def peek(self) -> Move:
        return self.move_stack[-1]

    def _illegal_error(self, move: Move) -> IllegalMoveError:
        """Why ``move`` is illegal now, with the broken rule's code."""
        text = (
            str(move)
            if min(move.from_square, move.to_square) >= 0
            and max(move.from_square, move.to_square) < NUM_SQUARES
            else repr(move)
        )

        def error(reason: str, code: str, **detail: str) -> IllegalMoveError:
            return IllegalMoveError(f"illegal move {text}: {reason}", code=code, detail=detail)

        outcome = self.outcome()
        if outcome is not None:
            return error(f"the game is over ({outcome.termination.value})", "game_over")
        if not 0 <= move.from_square < NUM_SQUARES or not 0 <= move.to_square < NUM_SQUARES:
            return error("square off the board", "off_board")
        code = self._squares[move.from_square]
        if not code:
            square = square_name(move.from_square)
            return error(f"no piece on {square}", "no_piece", square=square)
        if code >> 3 != self._turn:
            side = "Red" if self._turn == 0 else "Black"
            return error(f"it is {side}'s turn", "not_your_turn", side=side)
        name = PIECE_NAMES[code & 7]
        if _code_of(move) not in self._pseudo_codes():
            return error(f"a {name} cannot move like that", "piece_cannot_move", piece=name)
        return error("it would leave the general in check or facing the other", "self_check")

    # ------------------------------------------------------------- perft

    def perft(self, depth: int) -> int:
        """Count leaf nodes of the legal move tree ``depth`` plies deep."""
        if depth < 1:
            return 1
        return self._perft(depth)

    def _perft(self, depth: int) -> int:
        codes = self._legal_codes()
        if depth == 1:
            return len(codes)
        total = 0
        make = self._make
        unmake = self._unmake
        for code in codes:
            cap = make(code)
            total += self._perft(depth - 1)
            unmake(code, cap)
        return total

    def divide(self, depth: int) -> dict[Move, int]:
        """Perft per root move (as Stockfish's ``go perft`` prints it)."""
        result = {}
        for code in self._legal_codes():
            cap = self._make(code)
            result[_move_of(code)] = self._perft(depth - 1) if depth > 1 else 1
            self._unmake(code, cap)
        return result

    # ------------------------------------------------------------- game end

    def has_insufficient_material(self) -> bool:
        """Neither side has a rook, horse, cannon or soldier: nobody can mate."""
        sqs = self._squares
        for c in (0, 1):
            for sq in self._pieces[c]:
                if sqs[sq] & 7 in (ROOK, HORSE, CANNON, PAWN):
                    return False
        return True

    def is_move_limit(self) -> bool:
        return self.move_limit > 0 and self.halfmove_clock >= self.move_limit

    def repetition_span(self) -> int | None:
        """If the position now stands for the ``repetition_count``-th time, the
        number of plies back to its first occurrence in this run of reversible
        moves; else None."""
        target = self._hash
        seen = 1
        limit = min(self.halfmove_clock, len(self._undo))
        for back in range(2, limit + 1, 2):
            if self._undo[-back].hash == target:
                seen += 1
                if seen >= self.repetition_count:
                    return back
        return None

    def is_repetition(self) -> bool:
        return self.repetition_span() is not None

    def repeating_moves(self) -> list[Move]:
        """The legal moves after which :meth:`is_repetition` holds, found by hash
        without playing them: none at all, at the cost of a look at the history,
        unless some position of this run of reversible moves already stands
        ``repetition_count - 1`` times (with the default 3: one was seen before).

        >>> board = Board()
        >>> board.repeating_moves()
        []
        >>> for text in ["h2e2", "h9g7", "e2h2", "g7h9", "h2e2", "h9g7", "e2h2"]:
        ...     _ = board.push_text(text)
        >>> board.repeating_moves()  # the start position a third time
        [Move.from_iccs('g7h9')]
        """
        # After a move that captures nothing, repetition_span() looks back at the
        # positions with the opponent to move: _undo[-1], _undo[-3], ... as far as
        # the run of reversible moves (one longer by then) and the history reach.
        undo = self._undo
        reach = min(self.halfmove_clock + 1, len(undo) + 1)
        seen: dict[int, int] = {}
        for back in range(1, reach, 2):
            key = undo[-back].hash
            seen[key] = seen.get(key, 0) + 1
        need = self.repetition_count - 1
        targets = {key for key, count in seen.items() if count >= need}
        if not targets:
            return []
        sqs = self._squares
        turned = self._hash ^ ZOBRIST_BLACK
        found: list[Move] = []
        for code in self._current_codes():
            f = code >> 7
            t = code & 127
            if sqs[t]:
                continue  # a capture starts a new run: nothing before it repeats
            zp = ZOBRIST[sqs[f]]
            if turned ^ zp[f] ^ zp[t] in targets:
                found.append(_move_of(code))
        return found

    def outcome(self) -> Outcome[Color] | None:
        """How the game has ended by rule, or None while it goes on.

        In order: no legal move (checkmate or stalemate: the side to move loses),
        repetition (judged per the ``repetition`` rule set), the move limit,
        insufficient material.
        """
        key = (self._hash, len(self._undo), self._history_version)
        if self._outcome_key != key:
            self._outcome_value = self._outcome(self._has_legal())
            self._outcome_key = key
        return self._outcome_value

    def _outcome(self, has_legal: bool) -> Outcome[Color] | None:
        if not has_legal:
            termination = Termination.CHECKMATE if self.is_check() else Termination.STALEMATE
            return Outcome(Color(1 - self._turn), termination)
        span = self.repetition_span()
        if span is not None:
            return judge_repetition(self, span)
        if self.is_move_limit():
            return Outcome(None, Termination.MOVE_LIMIT)
        if self.has_insufficient_material():
            return Outcome(None, Termination.INSUFFICIENT_MATERIAL)
        return None

    def is_game_over(self) -> bool:
        return self.outcome() is not None

    def is_checkmate(self) -> bool:
        return self.is_check() and not self._has_legal()

    def is_stalemate(self) -> bool:
        return not self.is_check() and not self._has_legal()

    def result(self) -> str:
        """``1-0``, ``0-1``, ``1/2-1/2`` or ``*`` while the game goes on."""
        outcome = self.outcome()
        return "*" if outcome is None else outcome.result()

    # ------------------------------------------------------------- text

    def parse_move(self, text: str) -> Move:
        """Parse a legal move in ICCS, WXF or Chinese notation.

        Raises InvalidMoveError (not a move), IllegalMoveError (a move the rules
        forbid here) or AmbiguousMoveError (names several legal moves).
        """
        return parse_any(self, text)

    def push_text(self, text: str) -> Move:
        """Parse ``text`` (any notation) and play it; returns the move."""
        move = self.parse_move(text)
        self.push(move)
        return move

    def move_text(self, move: Move) -> str:
        """The move in WXF, the game's human notation (``C2=5``)."""
        return wxf(self, move)

    def snapshot(self) -> GameRecord:
        """Start position, options and moves: enough for the registry to restore."""
        return {
            "variant": self.variant,
            "options": self.options,
            "start": self._start_fen,
            "moves": [str(m) for m in self.move_stack],
        }

    def position(self) -> Position:
        """The position to draw: pieces by their upper-case FEN letter, the last
        move's two points, and ``check`` marking the general in check.

        >>> board = Board()
        >>> _ = board.push_text("h2e2")
        >>> position = board.position()
        >>> position.cells[(4, 2)], position.last_move
        (Token(seat=0, kind='C'), ((7, 2), (4, 2)))
        """
        cells = {
            (sq % 9, sq // 9): Token(code >> 3, _FEN_LETTERS[code & 7])
            for sq, code in enumerate(self._squares)
            if code
        }
        last: tuple[tuple[int, int], ...] = ()
        if self.move_stack:
            move = self.move_stack[-1]
            last = (
                (move.from_square % 9, move.from_square // 9),
                (move.to_square % 9, move.to_square // 9),
            )
        markers: dict[str, tuple[tuple[int, int], ...]] = {}
        if self.is_check():
            king = self._kings[self._turn]
            markers["check"] = ((king % 9, king // 9),)
        outcome = self.outcome()
        return Position(
            variant=self.variant,
            files=9,
            ranks=10,
            file_names=tuple(FILES),
            rank_names=tuple(str(r) for r in range(10)),
            cells=cells,
            to_move=None if outcome is not None else self._turn,
            last_move=last,
            markers=markers,
        )

    def unicode(self) -> str:
        """A text diagram, Black at the top."""
        lines = []
        for rank in range(9, -1, -1):
            row = " ".join(
                Piece.from_code(c).symbol() if (c := self._squares[square(f, rank)]) else "."
                for f in range(9)
            )
            lines.append(f"{rank} {row}")
        lines.append("  " + " ".join(FILES))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.unicode()

    def __repr__(self) -> str:
        return f"Board({self.fen()!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return self.fen() == other.fen()

    __hash__ = None  # type: ignore[assignment]


def _elephant_points(color: int) -> frozenset[int]:
    start = (square(2, 0), square(6, 0)) if color == 0 else (square(2, 9), square(6, 9))
    seen = set(start)
    frontier = list(start)
    while frontier:
        sq = frontier.pop()
        for _, t in ELEPHANT_MOVES[color][sq]:
            if t not in seen:
                seen.add(t)
                frontier.append(t)
    return frozenset(seen)


_ELEPHANT_POINTS = (_elephant_points(0), _elephant_points(1))


# ---- search support (used by lanqi.bot.xiangqi_ai)
#
# A game-tree search plays and takes back thousands of moves a second, so it
# works on move codes (``from << 7 | to``) and skips the history bookkeeping of
# push()/pop().  SearchBoard adds the few public entry points it needs; it does
# not change how a Board behaves.


class SearchBoard(Board):
    """A board for game-tree search: make/unmake on move codes, hash kept up to date.

    >>> board = SearchBoard.from_board(Board())
    >>> code = board.code_of(Move.from_iccs("h2e2"))
    >>> captured = board.make_code(code)
    >>> board.zobrist_hash() == Board(board.fen()).zobrist_hash()
    True
    >>> board.unmake_code(code, captured)
    >>> board.fen() == STARTING_FEN
    True
    >>> len(board.legal_codes()), len(board.capture_codes())
    (44, 2)
    """

    @classmethod
    def from_board(cls, board: Board) -> SearchBoard:
        """A copy of ``board`` (with its history) to search on."""
        search = cls(None, **board.options)
        search._squares = board._squares.copy()
        search._kings = board._kings.copy()
        search._pieces = (set(board._pieces[0]), set(board._pieces[1]))
        search._turn = board._turn
        search.halfmove_clock = board.halfmove_clock
        search.fullmove_number = board.fullmove_number
        search._hash = board._hash
        search._undo = board._undo.copy()
        search.move_stack = board.move_stack.copy()
        search._start_fen = board._start_fen
        return search

    @staticmethod
    def code_of(move: Move) -> int:
        """The move code ``from << 7 | to`` of ``move``."""
        return _code_of(move)

    @staticmethod
    def move_of(code: int) -> Move:
        """The Move for a move code."""
        return _move_of(code)

    @property
    def squares(self) -> list[int]:
        """The 90-entry mailbox (piece code or 0 per square).  Read it, don't write it."""
        return self._squares

    @property
    def kings(self) -> list[int]:
        """The squares of the two generals, indexed by colour.  Read only."""
        return self._kings

    #: Play a move code (no legality check, no history); returns the captured piece.
    make_code = Board._make
    #: Take back :meth:`make_code` (pass the piece it returned).
    unmake_code = Board._unmake

    def make_null(self) -> None:
        """Pass the move (for null-move pruning); undo with :meth:`unmake_null`."""
        self._turn = 1 - self._turn
        self._hash ^= ZOBRIST_BLACK

    unmake_null = make_null

    def legal_codes(self) -> list[int]:
        """The legal move codes (movement rules only: no repetition or move limit)."""
        return self._legal_codes()

    #: Move codes by the movement rules; they may leave the own general attacked.
    pseudo_codes = Board._pseudo_codes

    def is_attacked_code(self, sq: int, by: int) -> bool:
        """Does side ``by`` (0 Red, 1 Black) attack the general's square ``sq``?"""
        return self._is_attacked(sq, by)

    @property
    def capture_codes(self) -> Callable[[], list[int]]:
        """``capture_codes()``: the pseudo-legal captures of the side to move, as move
        codes (the one generator, quiet moves left out; a partial, not a method, so
        the search's hot loop calls the generator without a frame in between)."""
        return partial(self._pseudo_codes, False)

    def reversible_history(self) -> list[tuple[int, bool]]:
        """(hash, side to move in check) of the positions since the last capture,
        oldest first, ending with the current one: what repetition can reach back to."""
        replay = self.copy()
        span = min(self.halfmove_clock, len(self._undo))
        out = [(replay._hash, replay.is_check())]
        for _ in range(span):
            replay.pop()
            out.append((replay._hash, replay.is_check()))
        out.reverse()
        return out


__all__ += ["SearchBoard"]


if TYPE_CHECKING:
    _IS_A_GAME: Game[Move] = Board()
