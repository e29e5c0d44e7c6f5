"""Xiangqi opening suites for engine matches.

- ``.fen`` / ``.epd``: one position per line (the first two FEN fields are
  enough); of the EPD operations after them, ``id "..."`` names the opening.
- ``.pgn``: each game's moves (its first ``plies`` when given), from the game's
  own start position; its ``Opening`` tag names it.

Lines that are empty or start with ``#`` are skipped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lanqi.games.base import InvalidPositionError, Opening, opening_lines
from lanqi.games.xiangqi.core import STARTING_FEN, Board
from lanqi.games.xiangqi.pgn import PgnError, read_pgns

__all__ = ["read_openings"]


_EPD_ID = re.compile(r'(?:^|[\s;])id\s+"([^"]*)"')


def _fens(path: Path, text: str) -> list[Opening]:
    out = []
    for number, line in opening_lines(text):
        named = _EPD_ID.search(line)  # EPD: id "..." names the position
        fields = line.replace(";", " ").split()
        if len(fields) < 2:
            raise ValueError(f"{path}:{number}: not a FEN: {line!r}")
        fen = f"{fields[0]} {fields[1]}"
        try:
            Board.from_options({"fen": fen})
        except (InvalidPositionError, ValueError) as exc:
            raise ValueError(f"{path}:{number}: {exc}") from None
        name = named.group(1) if named is not None else f"{path.name}:{number}"
        out.append(Opening(name, fen=fen))
    return out


def _pgn(path: Path, text: str, plies: int | None) -> list[Opening]:
    try:
        games = read_pgns(text)
    except PgnError as exc:
        raise ValueError(f"{path}: {exc}") from None
    out = []
    for number, game in enumerate(games, 1):
        moves = tuple(str(m) for m in game.board.move_stack)
        if plies is not None:
            moves = moves[:plies]
        start = game.board.start_fen
        name = game.headers.get("Opening") or f"{path.name}#{number}"
        out.append(Opening(name, fen=None if start == STARTING_FEN else start, moves=moves))
    return out


def read_openings(
    path: Path, text: str, kind: str, _options: Mapping[str, Any], plies: int | None
) -> list[Opening]:
    """The openings in ``text`` (read from ``path``) of format ``kind`` or by its suffix."""
    kind = kind or path.suffix.lower().lstrip(".")
    if kind in ("fen", "epd"):
        return _fens(path, text)
    if kind == "pgn":
        return _pgn(path, text, plies)
    raise ValueError(
        f"{path}: xiangqi openings are .fen, .epd or .pgn (or give format=fen|epd|pgn)"
    )
