"""Xiangqi move notations in and out: ICCS, WXF and Chinese.

Pure functions of a board (any object with the :class:`NotationBoard` queries:
a :class:`~lanqi.games.xiangqi.core.Board`) and a
:class:`~lanqi.games.xiangqi.pieces.Move`; standard library only.  The board's
``parse_move`` and ``move_text`` call into this module, so it imports the rules
core only in its examples.  The conventions
(files counted from each side's right, tandem pieces, pawns stacked on a file)
are spelled out in ``docs/notation.md``.

>>> from lanqi.games.xiangqi.core import Board, Move
>>> board = Board()
>>> move = Move.from_iccs("h2e2")
>>> wxf(board, move), chinese(board, move), iccs(board, move)
('C2=5', '炮二平五', 'h2e2')
>>> parse_any(board, "炮二平五") == parse_any(board, "C2.5") == move
True
>>> board.push(move)
>>> chinese(board, Move.from_iccs("h9g7"), traditional=True)
'馬８進７'

Every writer round-trips through its reader, for every legal move: the head of
a move (the part before ``+``/``-``/``=``) names the piece as the conventions
require in that position, and a reader first looks the head up among the
canonical heads of the position before it tries a looser reading.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Protocol

from lanqi.games.base import AmbiguousMoveError, IllegalMoveError, InvalidMoveError, Outcome
from lanqi.games.xiangqi.pieces import (
    ADVISOR,
    ELEPHANT,
    HORSE,
    KING,
    PAWN,
    PIECE_NAMES,
    Color,
    Move,
    Piece,
    square_name,
)

__all__ = [
    "NOTATIONS",
    "NotationBoard",
    "chinese",
    "iccs",
    "move_to",
    "parse_any",
    "parse_chinese",
    "parse_iccs",
    "parse_move",
    "parse_wxf",
    "wxf",
]


class NotationBoard(Protocol):
    """What the notations ask of a board; :class:`~lanqi.games.xiangqi.core.Board` answers."""

    @property
    def turn(self) -> Color: ...
    def piece_map(self) -> dict[int, Piece]: ...
    def piece_codes(self) -> list[int]: ...
    def legal_moves(self) -> list[Move]: ...
    def generate_pseudo_legal_moves(self) -> Iterator[Move]: ...
    def is_legal(self, move: Move) -> bool: ...
    def obeys_movement_rules(self, move: Move) -> bool: ...
    def outcome(self) -> Outcome[Color] | None: ...
    def _illegal_error(self, move: Move) -> IllegalMoveError: ...


#: The names :func:`move_to` and :func:`parse_move` accept.
NOTATIONS = ("iccs", "wxf", "chinese", "chinese-traditional")

# Index = piece type (KING = 1 ... PAWN = 7).
_WXF_LETTERS = " KAEHRCP"
_LETTER_TYPES = {letter: kind for kind, letter in enumerate(_WXF_LETTERS) if kind}
_DIAGONAL = (ADVISOR, ELEPHANT, HORSE)  # the last WXF figure is the destination file
_UNTANDEM = (KING, ADVISOR, ELEPHANT)  # never written with front/rear markers

_CN_NAMES = {
    (False, Color.RED): " 帅仕相马车炮兵",
    (False, Color.BLACK): " 将士象马车炮卒",
    (True, Color.RED): " 帥仕相傌俥炮兵",
    (True, Color.BLACK): " 將士象馬車砲卒",
}
_CN_NUMERALS = "一二三四五六七八九"
_FULLWIDTH_DIGITS = "１２３４５６７８９"
_CN_ACTIONS = {False: {"+": "进", "-": "退", "=": "平"}, True: {"+": "進", "-": "退", "=": "平"}}
_CN_FRONT, _CN_MIDDLE = "前", "中"
_CN_REAR = {False: "后", True: "後"}

# Reading Chinese: every accepted character maps to one normalised character.
# Pieces become WXF letters, 前/中/后 become f/m/b, actions become + - =, and
# every digit (Chinese numeral, full-width or ASCII) becomes an ASCII digit.
_CN_READ: dict[str, str] = {
    char: norm
    for chars, norm in (
        ("帅帥将將", "K"),
        ("仕士", "A"),
        ("相象", "E"),
        ("马馬傌", "H"),
        ("车車俥", "R"),
        ("炮砲包", "C"),
        ("兵卒", "P"),
        ("前", "f"),
        ("中", "m"),
        ("后後", "b"),
        ("进進", "+"),
        ("退", "-"),
        ("平", "="),
    )
    for char in chars
} | {
    char: str(value)
    for digits in (_CN_NUMERALS, _FULLWIDTH_DIGITS, "123456789")
    for value, char in enumerate(digits, start=1)
}

_FRONT, _MIDDLE, _REAR = "front", "middle", "rear"
_CN_POSITIONS = {"f": _FRONT, "m": _MIDDLE, "b": _REAR}
_ORDINAL_WORDS = ("1st", "2nd", "3rd", "4th", "5th")

_WXF_SHAPE = re.compile(r"([KAEHRCP1-9+\-]{2})([+\-=])([1-9])")
_WXF_PREFIXED = re.compile(r"([+\-])([KAEHRCP])(.*)")
_WXF_BARE_TRAVERSE = re.compile(r"([KAEHRCP][1-9])([1-9])")
_CN_SHAPE = re.compile(r"([KAEHRCPfmb1-9]{2,3})([+\-=])([1-9])")


# ----------------------------------------------------------------- geometry


def _side_file(color: Color, file: int) -> int:
    """File 0-8 (a-i) as the side ``color`` counts it: 1-9 from its own right."""
    return 9 - file if color is Color.RED else file + 1


@dataclass(frozen=True, slots=True)
class _PieceInfo:
    """One piece of the side to move, with what its notation needs."""

    square: int
    piece_type: int
    color: Color
    file: int  # 1-9, counted from the owner's right
    index: int  # 0 = the front one (nearest the opponent) among its kind on its file
    count: int  # pieces of its kind and colour on its file
    multi: bool  # two or more files each hold two or more of its side's pawns


def _pieces_info(board: NotationBoard) -> dict[int, _PieceInfo]:
    """Square -> info for every piece of the side to move."""
    color = board.turn
    groups: dict[tuple[int, int], list[int]] = {}
    for sq, piece in board.piece_map().items():
        if piece.color is color:
            groups.setdefault((piece.piece_type, sq % 9), []).append(sq)
    stacked_pawn_files = sum(
        1 for (kind, _), sqs in groups.items() if kind == PAWN and len(sqs) >= 2
    )
    infos = {}
    for (kind, file), sqs in groups.items():
        # Front = nearest the opponent: highest rank for Red, lowest for Black.
        sqs.sort(reverse=color is Color.RED)
        for index, sq in enumerate(sqs):
            infos[sq] = _PieceInfo(
                sq,
                kind,
                color,
                _side_file(color, file),
                index,
                len(sqs),
                kind == PAWN and stacked_pawn_files >= 2,
            )
    return infos


def _piece_info(board: NotationBoard, sq: int) -> _PieceInfo:
    """The info of the piece on ``sq`` alone (cheaper than :func:`_pieces_info`)."""
    codes = board.piece_codes()
    code = codes[sq]
    assert code
    color, kind = Color(code >> 3), code & 7
    same = [s for s in range(sq % 9, 90, 9) if codes[s] == code]
    same.sort(reverse=color is Color.RED)
    multi = False
    if kind == PAWN and len(same) >= 2:
        stacked = 0
        for file in range(9):
            stacked += codes[file:90:9].count(code) >= 2
        multi = stacked >= 2
    return _PieceInfo(sq, kind, color, _side_file(color, sq % 9), same.index(sq), len(same), multi)


def _tail(info: _PieceInfo, move: Move) -> tuple[str, int]:
    """The action (``+`` advance, ``-`` retreat, ``=`` traverse) and its figure."""
    from_rank, to_rank = move.from_square // 9, move.to_square // 9
    to_file = _side_file(info.color, move.to_square % 9)
    forward = to_rank - from_rank if info.color is Color.RED else from_rank - to_rank
    if forward == 0:
        return "=", to_file
    action = "+" if forward > 0 else "-"
    return action, to_file if info.piece_type in _DIAGONAL else abs(forward)


# ----------------------------------------------------------------- heads


def _wxf_head(info: _PieceInfo) -> str:
    """The WXF piece designation: ``C2``, ``R+``, ``P-``, ``++``, ``3+``, ``33`` ..."""
    letter = _WXF_LETTERS[info.piece_type]
    if info.count == 1 or info.piece_type in _UNTANDEM:
        return f"{letter}{info.file}"
    last = info.count - 1
    if info.piece_type != PAWN:
        return letter + ("+" if info.index == 0 else "-")
    if info.multi:  # several files hold several pawns: the file digit leads
        mark = "+" if info.index == 0 else "-" if info.index == last else str(info.file)
        return f"{info.file}{mark}"
    index = info.index
    if info.count >= 4:  # the outermost of four or five pawns: ++ and --
        if index in (0, last):
            return "++" if index == 0 else "--"
        index, last = index - 1, last - 2
    if index == 0:
        return "P+"
    if index == last:
        return "P-"
    return f"P{info.file}"  # the middle pawn of three (or five)


def _cn_digit(color: Color, value: int) -> str:
    """A file or distance: Chinese numeral for Red, full-width digit for Black."""
    return (_CN_NUMERALS if color is Color.RED else _FULLWIDTH_DIGITS)[value - 1]


def _chinese_head(info: _PieceInfo, traditional: bool) -> str:
    """The Chinese piece designation: ``炮二``, ``前车``, ``中兵``, ``二兵``, ``前三`` ..."""
    name = _CN_NAMES[traditional, info.color][info.piece_type]
    if info.count == 1 or info.piece_type in _UNTANDEM:
        return name + _cn_digit(info.color, info.file)
    last = info.count - 1
    if info.index == 0:
        position = _CN_FRONT
    elif info.index == last:
        position = _CN_REAR[traditional]
    else:
        position = _CN_MIDDLE
    if info.piece_type != PAWN or (info.count <= 3 and not info.multi):
        return position + name
    if info.multi:  # several files hold several pawns: the file replaces the name
        return position + _cn_digit(info.color, info.file)
    return _CN_NUMERALS[info.index] + name  # four or five pawns: 一兵 (front) .. 五兵


# ----------------------------------------------------------------- writing


def _checked_info(board: NotationBoard, move: Move) -> _PieceInfo:
    """The moving piece's info; raises IllegalMoveError unless ``move`` is legal
    by the movement rules (draw rules that ended the game are ignored)."""
    if not board.obeys_movement_rules(move):
        if board.outcome() is None:
            raise board._illegal_error(move)
        raise IllegalMoveError(f"illegal move {move}: not a legal move in this position")
    return _piece_info(board, move.from_square)


def iccs(board: NotationBoard, move: Move) -> str:
    """The move in ICCS coordinates (``h2e2``); the position does not matter.

    >>> from lanqi.games.xiangqi import Board
    >>> iccs(Board(), Move.from_iccs("h0g2"))
    'h0g2'
    """
    return move.iccs()


def wxf(board: NotationBoard, move: Move) -> str:
    """The move in WXF notation (``C2=5``); raises IllegalMoveError if not legal.

    >>> from lanqi.games.xiangqi import Board
    >>> board = Board("3k5/9/9/9/9/9/9/R8/R8/4K4 w")
    >>> wxf(board, Move.from_iccs("a2a5")), wxf(board, Move.from_iccs("a1d1"))
    ('R++3', 'R-=6')
    """
    info = _checked_info(board, move)
    action, figure = _tail(info, move)
    return f"{_wxf_head(info)}{action}{figure}"


def chinese(board: NotationBoard, move: Move, *, traditional: bool = False) -> str:
    """The move in Chinese notation (``炮二平五``); raises IllegalMoveError if not legal.

    Red writes files and distances in Chinese numerals, Black in full-width
    digits; ``traditional=True`` uses the traditional character set.

    >>> from lanqi.games.xiangqi import Board
    >>> board = Board("3k5/9/9/9/9/9/9/R8/R8/4K4 w")
    >>> chinese(board, Move.from_iccs("a1d1"), traditional=True)
    '後俥平六'
    """
    info = _checked_info(board, move)
    action, figure = _tail(info, move)
    head = _chinese_head(info, traditional)
    return f"{head}{_CN_ACTIONS[traditional][action]}{_cn_digit(info.color, figure)}"


_WRITERS: Mapping[str, Callable[[NotationBoard, Move], str]] = {
    "iccs": iccs,
    "wxf": wxf,
    "chinese": chinese,
    "chinese-traditional": lambda board, move: chinese(board, move, traditional=True),
}


def move_to(board: NotationBoard, move: Move, notation: str) -> str:
    """The move in ``notation``: one of :data:`NOTATIONS`.

    >>> from lanqi.games.xiangqi import Board
    >>> move_to(Board(), Move.from_iccs("h0g2"), "chinese-traditional")
    '傌二進三'
    """
    try:
        writer = _WRITERS[notation]
    except KeyError:
        raise ValueError(
            f"unknown notation {notation!r} (want one of {', '.join(NOTATIONS)})"
        ) from None
    return writer(board, move)


# ----------------------------------------------------------------- reading


@dataclass(frozen=True, slots=True)
class _Spec:
    """What a move text says: the head (normalised) and its loose reading, the tail."""

    text: str
    head: str
    piece_type: int
    file: int | None
    position: str | None  # _FRONT, _MIDDLE or _REAR
    ordinal: int | None  # 1 = front, for 一兵 .. 五兵
    action: str
    figure: int

    def fits(self, info: _PieceInfo) -> bool:
        """Does the loose reading of the head name this piece?"""
        if info.piece_type != self.piece_type:
            return False
        if self.file is not None and info.file != self.file:
            return False
        n, i = info.count, info.index
        if self.position == _FRONT:
            return n >= 2 and i == 0
        if self.position == _REAR:
            return n >= 2 and i == n - 1
        if self.position == _MIDDLE:
            return n >= 3 and 0 < i < n - 1
        if self.ordinal is not None:
            return n >= 2 and i == self.ordinal - 1
        return True

    def describe(self) -> str:
        """The pieces the head names, in words: ``front rook``, ``pawn on file 3``."""
        name = PIECE_NAMES[self.piece_type]
        where = "" if self.file is None else f" on file {self.file}"
        if self.ordinal is not None:
            return f"{_ORDINAL_WORDS[self.ordinal - 1]} {name} from the front{where}"
        position = "" if self.position is None else self.position + " "
        return f"{position}{name}{where}"


def _wxf_spec(text: str) -> _Spec | None:
    """Read WXF text, or None if it is not WXF."""
    norm = unicodedata.normalize("NFKC", text)
    norm = "".join(norm.split()).upper().replace(".", "=").replace("B", "E").replace("N", "H")
    if prefixed := _WXF_PREFIXED.fullmatch(norm):  # +R+1 is read as R++1
        norm = prefixed[2] + prefixed[1] + prefixed[3]
    if bare := _WXF_BARE_TRAVERSE.fullmatch(norm):  # C25 is read as C2=5
        norm = f"{bare[1]}={bare[2]}"
    shape = _WXF_SHAPE.fullmatch(norm)
    if shape is None:
        return None
    head, action, figure = shape[1], shape[2], int(shape[3])
    first, second = head[0], head[1]
    position = {"+": _FRONT, "-": _REAR}.get(second)
    if first in _LETTER_TYPES:
        file = int(second) if second.isdigit() else None
        return _Spec(text, head, _LETTER_TYPES[first], file, position, None, action, figure)
    # No letter: a pawn.  ++ and -- (outermost of four or five), or the file
    # digit followed by + (front), - (rear) or the same digit again (middle).
    if first in "+-":
        if second != first:
            return None
        return _Spec(text, head, PAWN, None, position, None, action, figure)
    if second == first:
        position = _MIDDLE
    elif position is None:
        return None
    return _Spec(text, head, PAWN, int(first), position, None, action, figure)


def _chinese_normalize(text: str) -> str | None:
    chars = []
    for char in text:
        if char.isspace():
            continue
        norm = _CN_READ.get(char)
        if norm is None:
            return None
        chars.append(norm)
    return "".join(chars)


def _chinese_spec(text: str) -> _Spec | None:
    """Read Chinese text, or None if it is not Chinese notation."""
    norm = _chinese_normalize(text)
    shape = None if norm is None else _CN_SHAPE.fullmatch(norm)
    if shape is None:
        return None
    head, action, figure = shape[1], shape[2], int(shape[3])
    kinds = [_LETTER_TYPES[c] for c in head if c in _LETTER_TYPES]
    positions = [_CN_POSITIONS[c] for c in head if c in _CN_POSITIONS]
    digits = [int(c) for c in head if c.isdigit()]
    if len(kinds) > 1 or len(positions) > 1 or len(digits) > 1:
        return None
    kind = kinds[0] if kinds else PAWN  # 前三进一: the name is left out for pawns
    position = positions[0] if positions else None
    digit = digits[0] if digits else None
    letter = _WXF_LETTERS[kind]
    shapes_ok = (
        # 炮二 | 前炮, 炮前 | 前兵三 | 前三
        (len(head) == 2 and kinds and digits and head[0] == letter)
        or (len(head) == 2 and kinds and positions)
        or (len(head) == 3 and head[0] in _CN_POSITIONS and head[1] == letter and digits)
        or (len(head) == 2 and not kinds and positions and head[0] in _CN_POSITIONS)
    )
    if shapes_ok:
        return _Spec(text, head, kind, digit, position, None, action, figure)
    # 一兵 .. 五兵: four or five pawns on a file, counted from the front.
    if len(head) == 2 and kinds and digit is not None and head[0].isdigit() and digit <= 5:
        return _Spec(text, head, kind, None, None, digit, action, figure)
    return None


def _resolve(
    board: NotationBoard,
    spec: _Spec,
    canonical_head: Callable[[_PieceInfo], str],
    write: Callable[[NotationBoard, Move], str],
) -> Move:
    """The one legal move ``spec`` names; raises IllegalMoveError or AmbiguousMoveError.

    ``canonical_head`` gives a piece's head in the notation, normalised as the
    reader normalises text; ``write`` writes a move (for the error message).
    """
    text = spec.text
    outcome = board.outcome()
    if outcome is not None:
        raise IllegalMoveError(
            f"illegal move {text!r}: the game is over ({outcome.termination.value})"
        )
    infos = _pieces_info(board)
    # The canonical reading first (P3 is the middle pawn of three, P+ the second
    # of four), then the loose one (R1 for either rook on file 1).
    pieces = [info for info in infos.values() if canonical_head(info) == spec.head]
    if not pieces:
        pieces = [info for info in infos.values() if spec.fits(info)]
    side = "Red" if board.turn is Color.RED else "Black"
    if not pieces:
        raise IllegalMoveError(f"illegal move {text!r}: {side} has no {spec.describe()}")
    by_square = {info.square: info for info in pieces}
    tail = (spec.action, spec.figure)

    def named(moves: list[Move]) -> list[Move]:
        return [
            m
            for m in moves
            if m.from_square in by_square and _tail(by_square[m.from_square], m) == tail
        ]

    matches = named(list(board.legal_moves()))
    if len(matches) == 1:
        return matches[0]
    if matches:
        choices = " or ".join(f"{write(board, m)} ({m})" for m in matches)
        raise AmbiguousMoveError(f"ambiguous move {text!r}: write {choices}")
    unsafe = named(list(board.generate_pseudo_legal_moves()))
    if unsafe:
        error = board._illegal_error(unsafe[0])
        raise IllegalMoveError(
            f"{error} (read from {text!r})", code=error.code, detail=error.detail
        )
    if len(pieces) == 1:
        name = PIECE_NAMES[pieces[0].piece_type]
        reason = f"the {name} on {square_name(pieces[0].square)} cannot move that way"
        code, detail = "piece_cannot_move", {"piece": name}
    else:
        reason = f"no {spec.describe()} can move that way"
        code, detail = "no_such_move", {}
    raise IllegalMoveError(f"illegal move {text!r}: {reason}", code=code, detail=detail)


def parse_iccs(board: NotationBoard, text: str) -> Move:
    """A legal move in ICCS (``h2e2``, ``H2-E2``).

    Raises InvalidMoveError (not ICCS) or IllegalMoveError (with the reason).

    >>> from lanqi.games.xiangqi import Board
    >>> parse_iccs(Board(), "h2-e2")
    Move.from_iccs('h2e2')
    """
    move = Move.from_iccs(text)
    if not board.is_legal(move):
        raise board._illegal_error(move)
    return move


def parse_wxf(board: NotationBoard, text: str) -> Move:
    """A legal move in WXF notation.

    Case does not matter; ``B``/``E`` and ``N``/``H`` are synonyms, ``=`` and
    ``.`` both traverse, ``+R+1`` is read as ``R++1`` and ``C25`` as ``C2=5``.
    Raises InvalidMoveError (not WXF), IllegalMoveError (with the reason) or
    AmbiguousMoveError (e.g. ``R1+1`` with both rooks on file 1).

    >>> from lanqi.games.xiangqi import Board
    >>> parse_wxf(Board(), "h2+3")
    Move.from_iccs('h0g2')
    """
    spec = _wxf_spec(text)
    if spec is None:
        raise InvalidMoveError(f"not a WXF move: {text!r} (want e.g. 'C2=5' or 'R++1')")
    return _resolve(board, spec, _wxf_head, wxf)


def _chinese_canonical_head(info: _PieceInfo) -> str:
    return _chinese_normalize(_chinese_head(info, False)) or ""


def parse_chinese(board: NotationBoard, text: str) -> Move:
    """A legal move in Chinese notation, in either character set.

    Piece names of both colours and both character sets are accepted for either
    side (车車俥, 马馬傌, 炮砲包, 帅帥将將, 仕士, 相象, 兵卒), as are 后/後,
    进/進, and files and distances as Chinese numerals, full-width or ASCII digits.
    Raises InvalidMoveError, IllegalMoveError or AmbiguousMoveError.

    >>> from lanqi.games.xiangqi import Board
    >>> parse_chinese(Board(), "馬2進3")
    Move.from_iccs('h0g2')
    """
    spec = _chinese_spec(text)
    if spec is None:
        raise InvalidMoveError(
            f"not a move in Chinese notation: {text!r} (want e.g. '炮二平五' or '马８进７')"
        )
    return _resolve(board, spec, _chinese_canonical_head, chinese)


def parse_any(board: NotationBoard, text: str) -> Move:
    """A legal move in ICCS, WXF or Chinese notation, tried in that order.

    Raises InvalidMoveError (no notation reads it), IllegalMoveError (a move the
    rules forbid here, or the game is over) or AmbiguousMoveError.

    >>> from lanqi.games.xiangqi import Board
    >>> board = Board()
    >>> [str(parse_any(board, t)) for t in ("h2e2", "h2-e2", "C2=5", "c2.5", "炮二平五")]
    ['h2e2', 'h2e2', 'h2e2', 'h2e2', 'h2e2']
    """
    stripped = text.strip()
    try:
        move = Move.from_iccs(stripped)
    except InvalidMoveError:
        pass
    else:
        if not board.is_legal(move):
            raise board._illegal_error(move)
        return move
    spec = _wxf_spec(stripped)
    if spec is not None:
        return _resolve(board, spec, _wxf_head, wxf)
    spec = _chinese_spec(stripped)
    if spec is not None:
        return _resolve(board, spec, _chinese_canonical_head, chinese)
    raise InvalidMoveError(
        f"not a move: {text!r} (tried ICCS like 'h2e2', WXF like 'C2=5' "
        "and Chinese like '炮二平五')"
    )


_READERS: Mapping[str, Callable[[NotationBoard, str], Move]] = {
    "iccs": parse_iccs,
    "wxf": parse_wxf,
    "chinese": parse_chinese,
    "chinese-traditional": parse_chinese,
}


def parse_move(board: NotationBoard, text: str, notation: str | None = None) -> Move:
    """A legal move in ``notation`` (one of :data:`NOTATIONS`), or in any if None.

    >>> from lanqi.games.xiangqi import Board
    >>> parse_move(Board(), "R1+1", "wxf")
    Move.from_iccs('i0i1')
    """
    if notation is None:
        return parse_any(board, text)
    try:
        reader = _READERS[notation]
    except KeyError:
        raise ValueError(
            f"unknown notation {notation!r} (want one of {', '.join(NOTATIONS)})"
        ) from None
    return reader(board, text)
