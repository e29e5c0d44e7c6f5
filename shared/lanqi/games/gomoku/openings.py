"""Gomoku opening suites for engine matches, and Piskvork ``.psq`` records.

An opening file has one opening per line, either lanqi moves (``h8 i9 j8``) or
the Gomocup convention of stones relative to the centre, ``x,y`` pairs with
``y`` down (``0,0, 1,-1, -1,1``), Black first.  Lines that are empty or start
with ``#`` are skipped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lanqi.games.base import MoveError, Opening, opening_lines
from lanqi.games.gomoku.board import Board, Move

__all__ = ["read_openings", "write_psq"]

_OFFSETS = re.compile(r"^\s*-?\d+\s*,\s*-?\d+(\s*,\s*-?\d+\s*,\s*-?\d+)*\s*,?\s*$")


def read_openings(
    path: Path, text: str, _kind: str, options: Mapping[str, Any], plies: int | None
) -> list[Opening]:
    """The openings in ``text`` (read from ``path``) for a board with ``options``."""
    size = int(options.get("size", 15))
    out = []
    centre = size // 2
    for number, line in opening_lines(text):
        if _OFFSETS.match(line):
            numbers = [int(n) for n in re.findall(r"-?\d+", line)]
            words = [
                str(Move.from_gomocup(f"{centre + dx},{centre + dy}", size))
                for dx, dy in zip(numbers[::2], numbers[1::2], strict=True)
            ]
        else:
            words = line.replace(",", " ").split()
        if plies is not None:
            words = words[:plies]
        board = Board.from_options(options)
        moves: list[str] = []
        try:
            for word in words:
                move = board.parse_move(word)
                board.push(move)
                moves.append(str(move))
        except (MoveError, ValueError) as exc:
            raise ValueError(f"{path}:{number}: {exc}") from None
        if board.outcome() is not None:
            raise ValueError(f"{path}:{number}: the opening already ends the game")
        out.append(Opening(f"{path.name}:{number}", moves=tuple(moves)))
    return out


def write_psq(board: Board, names: tuple[str, str], result: str, times_ms: Sequence[int]) -> str:
    """The game on ``board`` as a Piskvork ``.psq`` file.

    ``Piskvorky SxS, 11:11, 0``, then one ``x,y,ms`` line per move (1-based, ``y``
    from the top, ``times_ms[i]`` the think time of move ``i``), then the two
    players (the first mover first) and a last line with the winner: ``1``, ``2``,
    or ``0`` for a draw or no result.
    """
    size = board.size
    lines = [f"Piskvorky {size}x{size}, 11:11, 0"]
    for ply, move in enumerate(board.move_stack):
        x, y = (int(v) for v in move.gomocup(size).split(","))
        lines.append(f"{x + 1},{y + 1},{times_ms[ply] if ply < len(times_ms) else 0}")
    lines.extend(names)
    lines.append({"1-0": "1", "0-1": "2"}.get(result, "0"))
    return "\n".join(lines) + "\n"
