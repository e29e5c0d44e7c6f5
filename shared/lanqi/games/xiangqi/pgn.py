"""Xiangqi game records in PGN: text in, text out (no file I/O).

The tags follow the xiangqi PGN that common tools write: ``[Game "Chinese Chess"]``,
the seven-tag roster with ``Red``/``Black`` for the players, ``[FEN]`` and
``[SetUp "1"]`` for games that start elsewhere, and ``[Format]`` naming the move
notation.  Moves may be in ICCS, WXF or Chinese (one game may even mix them).

>>> from lanqi.games.xiangqi.core import Board
>>> board = Board()
>>> for text in ("h2e2", "h9g7"):
...     board.push_text(text)
Move.from_iccs('h2e2')
Move.from_iccs('h9g7')
>>> text = write_pgn(board, {"Red": "Lü Qin"})
>>> print(text.splitlines()[-1])
1. C2=5 H8+7 *
>>> game = read_pgn(text)
>>> game.headers["Red"], [str(m) for m in game.board.move_stack], game.result
('Lü Qin', ['h2e2', 'h9g7'], '*')
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from lanqi.games.base import InvalidPositionError, MoveError
from lanqi.games.xiangqi.core import STARTING_FEN, Board, Color
from lanqi.games.xiangqi.notation import NOTATIONS, move_to, parse_any

__all__ = ["PgnError", "PgnGame", "clock_comment", "read_pgn", "read_pgns", "write_pgn"]

#: Tags every record carries, in this order, with their defaults.
ROSTER = (
    ("Game", "Chinese Chess"),
    ("Event", "?"),
    ("Site", "?"),
    ("Date", "?"),
    ("Round", "?"),
    ("Red", "?"),
    ("Black", "?"),
    ("Result", "*"),
    ("Variant", "xiangqi"),
)
_FORMATS = {
    "iccs": "ICCS",
    "wxf": "WXF",
    "chinese": "Chinese",
    "chinese-traditional": "Chinese",
}
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
LINE_WIDTH = 80


class PgnError(ValueError):
    """A PGN text that cannot be read; the message names the game and the move."""


@dataclass
class PgnGame:
    """One game read from PGN: its tags, the board with every move played, the result."""

    headers: dict[str, str] = field(default_factory=dict)
    board: Board = field(default_factory=Board)
    result: str = "*"


# ----------------------------------------------------------------- writing


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _width(text: str) -> int:
    """Display columns: Chinese characters and full-width digits take two."""
    if text.isascii():
        return len(text)
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _wrap(units: list[str], width: int = LINE_WIDTH) -> str:
    lines: list[str] = []
    line: list[str] = []
    used = 0  # the line's display columns so far
    for unit in units:
        size = _width(unit)
        if line and used + 1 + size > width:
            lines.append(" ".join(line))
            line, used = [unit], size
        else:
            used += size + 1 if line else size
            line.append(unit)
    if line:
        lines.append(" ".join(line))
    return "\n".join(lines)


def clock_comment(ms: int) -> str:
    """A clock reading as the text of PGN's ``%clk`` comment (whole seconds, rounded
    down), for :func:`write_pgn`'s ``comments``.

    >>> clock_comment(3_725_900)
    '[%clk 1:02:05]'
    """
    seconds = max(0, ms) // 1000
    return f"[%clk {seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}]"


def write_pgn(
    board: Board,
    headers: Mapping[str, str] | None = None,
    *,
    notation: str = "wxf",
    comments: Sequence[str | None] = (),
) -> str:
    """The game on ``board`` (from its start position, with all its moves) as PGN.

    ``comments[i]`` (when given and not None) follows move ``i`` in braces, as
    engine matches write ``{+0.25/12 0.51s}``.

    ``headers`` override the defaults (``?``, and the result from the board) and
    add tags of their own, written after the roster.  ``FEN``, ``SetUp`` and
    ``Format`` always come from the board and ``notation`` (``wxf``, ``iccs``,
    ``chinese`` or ``chinese-traditional``).

    >>> board = Board("3k5/9/9/9/9/9/9/9/4A4/3AK1R2 b")
    >>> board.push_text("d9e9")
    Move.from_iccs('d9e9')
    >>> print(write_pgn(board, {"Event": "Demo"}, notation="chinese"), end="")
    [Game "Chinese Chess"]
    [Event "Demo"]
    [Site "?"]
    [Date "?"]
    [Round "?"]
    [Red "?"]
    [Black "?"]
    [Result "*"]
    [Variant "xiangqi"]
    [FEN "3k5/9/9/9/9/9/9/9/4A4/3AK1R2 b - - 0 1"]
    [SetUp "1"]
    [Format "Chinese"]
    <BLANKLINE>
    1... 将４平５ *
    """
    if notation not in NOTATIONS:
        raise ValueError(f"unknown notation {notation!r} (want one of {', '.join(NOTATIONS)})")
    given = dict(headers or {})
    tags: dict[str, str] = {}
    for name, default in ROSTER:
        tags[name] = given.pop(name, default)
    if "Result" not in (headers or {}):
        tags["Result"] = board.result()
    for name in ("FEN", "SetUp", "Format"):
        given.pop(name, None)
    if board.start_fen != STARTING_FEN:
        tags["FEN"] = board.start_fen
        tags["SetUp"] = "1"
    tags["Format"] = _FORMATS[notation]
    tags.update(given)

    replay = board.root()
    units: list[str] = []
    for index, move in enumerate(board.move_stack):
        text = move_to(replay, move, notation)
        if replay.turn is Color.RED:
            units.append(f"{replay.fullmove_number}. {text}")
        elif index == 0:
            units.append(f"{replay.fullmove_number}... {text}")
        else:
            units.append(text)
        replay.push(move)
        note = comments[index] if index < len(comments) else None
        if note:
            units.append("{" + note.replace("}", ")") + "}")
    units.append(tags["Result"])
    header_text = "\n".join(f'[{name} "{_escape(value)}"]' for name, value in tags.items())
    return f"{header_text}\n\n{_wrap(units)}\n"


# ----------------------------------------------------------------- reading

_TOKEN = re.compile(
    r"""
    (?P<tag>\[\s*(?P<name>[A-Za-z0-9_]+)\s*"(?P<value>(?:[^"\\]|\\.)*)"\s*\])
    | (?P<comment>\{[^}]*\})
    | (?P<line_comment>;[^\n]*)
    | (?P<escape>^[^\S\n]*%[^\n]*)
    | (?P<open>\()
    | (?P<close>\))
    | (?P<nag>\$\d+)
    | (?P<word>[^\s{}();\[\]]+)
    | (?P<space>[^\S\n]+|\n)
    | (?P<bad>.)
    """,
    re.VERBOSE | re.MULTILINE | re.DOTALL,
)
_MOVE_NUMBER = re.compile(r"(\d+)(\.+)(.*)", re.DOTALL)


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


@dataclass
class _RawGame:
    headers: dict[str, str] = field(default_factory=dict)
    moves: list[tuple[str, int]] = field(default_factory=list)  # (text, line)
    result: str | None = None

    @property
    def started(self) -> bool:
        return bool(self.moves) or self.result is not None


def _split_word(word: str) -> str | None:
    """The move in a movetext word, or None for a move number or dots.

    ``1.`` and ``12...`` are move numbers; ``1.C2=5`` carries one in front.  WXF
    ``33.4`` (the middle pawn of file 3) is a move, not move 33 and a ``4``.
    """
    if not word.strip("."):
        return None
    number = _MOVE_NUMBER.fullmatch(word)
    if number is None:
        return word
    rest = number[3]
    if not rest:
        return None
    if len(rest) == 1 and rest.isdigit():
        return word
    return rest


def _raw_games(text: str) -> Iterator[_RawGame]:
    game = _RawGame()
    depth = 0  # variation nesting: moves inside ( ... ) are skipped
    line = 1
    for token in _TOKEN.finditer(text.lstrip("\ufeff")):
        kind = token.lastgroup
        if kind == "bad":
            char = token.group()
            what = "unterminated comment" if char == "{" else f"unexpected {char!r}"
            raise PgnError(f"line {line}: {what}")
        if kind == "tag":
            if game.started:
                yield game
                game = _RawGame()
                depth = 0
            game.headers[token["name"]] = _unescape(token["value"])
        elif kind == "open":
            depth += 1
        elif kind == "close":
            depth = max(0, depth - 1)
        elif kind == "word" and depth == 0:
            word = token.group()
            if word in RESULTS:
                game.result = word
            else:
                move = _split_word(word.rstrip("!?"))
                if move is not None:
                    if game.result is not None:  # moves after a result: a new game
                        yield game
                        game = _RawGame()
                    game.moves.append((move, line))
        line += token.group().count("\n")
    if game.started or game.headers:
        yield game


def _play(raw: _RawGame, number: int) -> PgnGame:
    fen = raw.headers.get("FEN")
    try:
        board = Board(fen) if fen else Board()
    except InvalidPositionError as error:
        raise PgnError(f"game {number}: bad FEN tag {fen!r}: {error}") from None
    for text, line in raw.moves:
        dots = "." if board.turn is Color.RED else "..."
        try:
            board.push(parse_any(board, text))
        except MoveError as error:
            raise PgnError(
                f"game {number}, move {board.fullmove_number}{dots} {text} (line {line}): {error}"
            ) from None
    result = raw.result or raw.headers.get("Result", "*")
    return PgnGame(raw.headers, board, result)


def read_pgns(text: str) -> list[PgnGame]:
    """Every game in a PGN text, in order.

    Comments (``{...}`` and ``;`` to the end of the line), ``%`` escape lines,
    variations ``( ... )``, NAGs (``$1``), ``!``/``?`` marks, move numbers and
    result tokens are skipped; moves may be ICCS, WXF or Chinese.  Raises
    PgnError naming the game (counted from 1), the move number and the text.
    """
    return [_play(raw, number) for number, raw in enumerate(_raw_games(text), start=1)]


def read_pgn(text: str) -> PgnGame:
    """The first game in a PGN text; raises PgnError if there is none.

    >>> game = read_pgn('[Red "A"]\\n1. 炮二平五 {centre} 马８进７ (1... C8=5) 2. h0g2 1-0')
    >>> [str(m) for m in game.board.move_stack], game.result
    (['h2e2', 'h9g7', 'h0g2'], '1-0')
    """
    for number, raw in enumerate(_raw_games(text), start=1):
        return _play(raw, number)
    raise PgnError("no game found in the text")
