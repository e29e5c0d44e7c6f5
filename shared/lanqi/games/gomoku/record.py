"""Gomoku game records: a plain text format with PGN-like tags, then the moves.

::

    [Game "Gomoku"]
    [Rule "freestyle"]
    [Size "15"]
    [Black "alice"]
    [White "bob"]
    [Result "1-0"]

    1. h8 h9 2. i8 i9 3. j8 j9 4. k8 k9 5. l8 1-0

``Game``, ``Rule``, ``Size``, ``Black``, ``White`` and ``Result`` are always
written, in that order, then ``FEN`` when the game started from a set-up
position, then any other tags in the order given.  Tag values escape ``"`` and
``\\`` with a backslash, as in PGN.  Move numbers count Black-White pairs from
the start position; a game whose first move is White's starts with ``1...``.
The movetext ends with the result and is wrapped at 80 columns.  Several
records in one file are separated by a blank line.

Reading replays every move through the rules, so a record that breaks them
raises :class:`RecordError` naming the move number and text.  Comments in
braces ``{...}`` and after ``;`` are skipped.  Only this module's text is
produced or consumed; opening files is the caller's business.

>>> from lanqi.games.gomoku import Board
>>> board = Board()
>>> for text in ["h8", "h9", "i8", "i9", "j8", "j9", "k8", "k9", "l8"]:
...     _ = board.push_text(text)
>>> text = write_record(board, {"Black": "alice", "White": "bob"})
>>> print(text, end="")
[Game "Gomoku"]
[Rule "freestyle"]
[Size "15"]
[Black "alice"]
[White "bob"]
[Result "1-0"]
<BLANKLINE>
1. h8 h9 2. i8 i9 3. j8 j9 4. k8 k9 5. l8 1-0
>>> headers, again = read_record(text)
>>> headers["White"], again.fen() == board.fen(), write_record(again, headers) == text
('bob', True, True)
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from lanqi.games.base import InvalidPositionError, MoveError
from lanqi.games.gomoku.board import Board, Color

__all__ = ["RESULTS", "RecordError", "read_record", "read_records", "write_record"]

#: The values of the ``Result`` tag and of the movetext terminator.
RESULTS: tuple[str, ...] = ("1-0", "0-1", "1/2-1/2", "*")

_WIDTH = 80
_TAG_NAME_RE = re.compile(r"[A-Za-z0-9_]+")
_TAG_RE = re.compile(r'\[([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\]')
_NUMBER_RE = re.compile(r"[0-9]+\.(?:\.\.)?")
_TOKEN_RE = re.compile(r"\{[^}]*\}?|;[^\n]*|[0-9]+\.(?:\.\.)?|[^\s{;]+")


class RecordError(ValueError):
    """A record that cannot be read: bad syntax, bad tags, or moves that break the rules."""


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def _start_position(board: Board) -> str:
    if board.start_fen is not None:
        return board.start_fen
    return "/".join([str(board.size)] * board.size) + " b"


def _start_turn(board: Board) -> Color:
    return board.turn if board.ply % 2 == 0 else board.turn.other


def write_record(
    board: Board, headers: Mapping[str, str] | None = None, *, comments: Sequence[str | None] = ()
) -> str:
    """The record of ``board``'s game, with extra tags from ``headers``; ``comments[i]``
    (when given and not None) follows move ``i`` in braces.

    ``Game``, ``Rule``, ``Size`` and ``FEN`` come from the board; given values
    must agree with it.  ``Result`` comes from the board when the game ended on
    the board; otherwise (a resignation, a timeout...) a given ``Result`` is
    used, and ``*`` by default.  ``Black`` and ``White`` default to ``?``.
    Raises ``ValueError`` for a conflicting or malformed tag.
    """
    given = dict(headers or {})
    for name, value in given.items():
        if not isinstance(name, str) or _TAG_NAME_RE.fullmatch(name) is None:
            raise ValueError(f"bad tag name {name!r}: use letters, digits and '_'")
        if not isinstance(value, str):
            raise ValueError(f"tag {name} must be a string, not {type(value).__name__}")
        if "\n" in value or "\r" in value:
            raise ValueError(f"tag {name} must fit on one line: {value!r}")

    game = given.pop("Game", "Gomoku")
    if game.lower() != "gomoku":
        raise ValueError(f"tag Game is {game!r}, but this is a gomoku record")
    tags: dict[str, str] = {"Game": game}
    for name, value in (("Rule", board.rule), ("Size", str(board.size))):
        if given.get(name, value) != value:
            raise ValueError(f"tag {name} is {given[name]!r}, but the board says {value!r}")
        given.pop(name, None)
        tags[name] = value
    tags["Black"] = given.pop("Black", "?")
    tags["White"] = given.pop("White", "?")
    result = board.result()
    declared = given.pop("Result", result)
    if declared not in RESULTS:
        raise ValueError(f"tag Result must be one of {', '.join(RESULTS)}, not {declared!r}")
    if result not in ("*", declared):
        raise ValueError(f"tag Result is {declared!r}, but the game ended {result} on the board")
    tags["Result"] = declared
    start = _start_position(board)
    fen = given.pop("FEN", None)
    if fen is not None and fen != start:
        raise ValueError(f"tag FEN is {fen!r}, but the game started from {start!r}")
    if fen is not None or board.start_fen is not None:
        tags["FEN"] = start
    tags.update(given)

    lines = [f'[{name} "{_escape(value)}"]' for name, value in tags.items()]
    lines.append("")
    lines.extend(_wrap(_movetext_units(board, declared, comments)))
    return "\n".join(lines) + "\n"


def _movetext_units(board: Board, result: str, comments: Sequence[str | None] = ()) -> list[str]:
    units: list[str] = []
    number = 1
    color = _start_turn(board)
    for index, move in enumerate(board.move_stack):
        if color is Color.BLACK:
            units.append(f"{number}. {move}")
        elif index == 0:
            units.append(f"{number}... {move}")
        else:
            units.append(str(move))
        note = comments[index] if index < len(comments) else None
        if note:
            units.append("{" + note.replace("}", ")") + "}")
        if color is Color.WHITE:
            number += 1
        color = color.other
    units.append(result)
    return units


def _wrap(units: list[str]) -> list[str]:
    lines: list[str] = []
    current = ""
    for unit in units:
        if current and len(current) + 1 + len(unit) > _WIDTH:
            lines.append(current)
            current = unit
        else:
            current = f"{current} {unit}" if current else unit
    lines.append(current)
    return lines


def _split_games(text: str) -> list[tuple[int, list[str]]]:
    """Cut text into games: a tag line after movetext starts a new game.

    Returns the 1-based number of each game's first line, and its lines.
    """
    games: list[tuple[int, list[str]]] = []
    lines: list[str] = []
    first = 1
    seen_moves = False
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("[") and seen_moves:
            games.append((first, lines))
            lines, first, seen_moves = [], number, False
        if not lines and not stripped:
            first = number + 1
            continue  # blank lines before a game
        if stripped and not stripped.startswith("[") and not stripped.startswith(";"):
            seen_moves = True
        lines.append(line)
    if lines:
        games.append((first, lines))
    return games


def _read_game(first: int, lines: list[str]) -> tuple[dict[str, str], Board]:
    headers: dict[str, str] = {}
    index = 0
    while index < len(lines):
        stripped = lines[index].strip()
        if stripped.startswith("["):
            match = _TAG_RE.fullmatch(stripped)
            if match is None:
                raise RecordError(f"line {first + index}: bad tag {stripped!r}")
            name, value = match.group(1), _unescape(match.group(2))
            if name in headers:
                raise RecordError(f"line {first + index}: tag {name} given twice")
            headers[name] = value
        elif stripped and not stripped.startswith(";"):
            break
        index += 1
    board = _start_board(headers)
    movetext = "\n".join(lines[index:])
    _replay(board, movetext, headers.get("Result"))
    return headers, board


def _start_board(headers: Mapping[str, str]) -> Board:
    game = headers.get("Game", "Gomoku")
    if game.lower() != "gomoku":
        raise RecordError(f"tag Game is {game!r}, not Gomoku")
    rule = headers.get("Rule", "freestyle")
    size_text = headers.get("Size")
    fen = headers.get("FEN")
    try:
        if fen is None:
            size = 15 if size_text is None else int(size_text)
            return Board(size, rule)
        board = Board.from_fen(fen, rule)
    except InvalidPositionError as exc:
        raise RecordError(f"tag FEN: {exc}") from exc
    except ValueError as exc:
        raise RecordError(f"bad tags: {exc}") from exc
    if size_text is not None and size_text != str(board.size):
        raise RecordError(f"tag Size is {size_text!r}, but the FEN is {board.size}x{board.size}")
    return board


def _replay(board: Board, movetext: str, tag_result: str | None) -> None:
    if tag_result is not None and tag_result not in RESULTS:
        raise RecordError(f"tag Result must be one of {', '.join(RESULTS)}, not {tag_result!r}")
    terminator: str | None = None
    number = 1
    color = _start_turn(board)
    for token in _TOKEN_RE.findall(movetext):
        if token.startswith(("{", ";")) or _NUMBER_RE.fullmatch(token):
            if token.startswith("{") and not token.endswith("}"):
                raise RecordError("unterminated comment: '{' without '}'")
            continue  # comments and move numbers
        if terminator is not None:
            raise RecordError(f"{token!r} after the result {terminator}")
        if token in RESULTS:
            terminator = token
            continue
        label = f"move {number}{'.' if color is Color.BLACK else '...'} {token}"
        try:
            board.push(board.parse_move(token))
        except MoveError as exc:
            raise RecordError(f"{label}: {exc}") from exc
        if color is Color.WHITE:
            number += 1
        color = color.other
    declared = tag_result or terminator
    if tag_result is not None and terminator is not None and tag_result != terminator:
        raise RecordError(f"tag Result is {tag_result}, but the moves end with {terminator}")
    on_board = board.result()
    if declared is not None and on_board not in ("*", declared):
        raise RecordError(f"the record says {declared}, but the moves end the game {on_board}")


def read_record(text: str) -> tuple[dict[str, str], Board]:
    """Read one record: its tags, in file order, and the board after replaying its moves.

    Missing tags default to a 15x15 freestyle game from the empty board.
    Raises :class:`RecordError` for bad syntax, a move that is not a move or
    breaks the rules (naming its number and text), or a result the moves
    contradict.
    """
    games = _split_games(text)
    if not games:
        raise RecordError("no game in the text")
    if len(games) > 1:
        raise RecordError(f"{len(games)} games in the text; use read_records()")
    return _read_game(*games[0])


def read_records(text: str) -> list[tuple[dict[str, str], Board]]:
    """Read every record in ``text`` (records are separated by their tag sections).

    Errors name the game (1-based) and its first line.
    """
    records: list[tuple[dict[str, str], Board]] = []
    for count, (first, lines) in enumerate(_split_games(text), start=1):
        try:
            records.append(_read_game(first, lines))
        except RecordError as exc:
            raise RecordError(f"game {count} (line {first}): {exc}") from exc
    return records
