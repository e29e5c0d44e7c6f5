"""Opening suites: where each game of a match starts.

- Xiangqi ``.fen`` / ``.epd``: one position per line (the first two FEN fields are
  enough; EPD operations after them are ignored).
- Xiangqi ``.pgn``: each game's moves (its first ``plies`` when given), from the
  game's own start position; they are played through the referee, so records keep
  them.
- Gomoku (any other extension): one opening per line, either lanqi moves
  (``h8 i9 j8``) or the Gomocup convention of stones relative to the centre,
  ``x,y`` pairs with ``y`` down (``0,0, 1,-1, -1,1``), Black first.

Lines that are empty or start with ``#`` are skipped.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import Path

from lanqi.games.base import InvalidPositionError, MoveError
from lanqi.games.registry import UnknownVariantError, create_game
from lanqi.match.config import MatchConfigError, OpeningsConfig

__all__ = ["Opening", "load_openings"]

_OFFSETS = re.compile(r"^\s*-?\d+\s*,\s*-?\d+(\s*,\s*-?\d+\s*,\s*-?\d+)*\s*,?\s*$")


@dataclass(frozen=True, slots=True)
class Opening:
    """A start position (``fen``, None for the standard one) and moves played from it."""

    name: str
    fen: str | None = None
    moves: tuple[str, ...] = field(default_factory=tuple)


def _lines(text: str) -> list[tuple[int, str]]:
    return [
        (number, line.strip())
        for number, line in enumerate(text.splitlines(), 1)
        if line.strip() and not line.lstrip().startswith("#")
    ]


def _xiangqi_fens(path: Path, text: str) -> list[Opening]:
    out = []
    for number, line in _lines(text):
        fields = line.replace(";", " ").split()
        if len(fields) < 2:
            raise MatchConfigError(f"{path}:{number}: not a FEN: {line!r}")
        fen = f"{fields[0]} {fields[1]}"
        try:
            create_game("xiangqi", fen=fen)
        except (UnknownVariantError, InvalidPositionError, ValueError) as exc:
            raise MatchConfigError(f"{path}:{number}: {exc}") from None
        out.append(Opening(f"{path.name}:{number}", fen=fen))
    return out


def _xiangqi_pgn(path: Path, text: str, plies: int | None) -> list[Opening]:
    from lanqi.games.xiangqi.core import STARTING_FEN
    from lanqi.games.xiangqi.pgn import PgnError, read_pgns

    try:
        games = read_pgns(text)
    except PgnError as exc:
        raise MatchConfigError(f"{path}: {exc}") from None
    out = []
    for number, game in enumerate(games, 1):
        moves = tuple(str(m) for m in game.board.move_stack)
        if plies is not None:
            moves = moves[:plies]
        start = game.board.start_fen
        out.append(
            Opening(
                f"{path.name}#{number}", fen=None if start == STARTING_FEN else start, moves=moves
            )
        )
    return out


def _gomoku_lines(path: Path, text: str, size: int, rule: str, plies: int | None) -> list[Opening]:
    from lanqi.games.gomoku import Move

    out = []
    centre = size // 2
    for number, line in _lines(text):
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
        board = create_game("gomoku", size=size, rule=rule)
        moves: list[str] = []
        try:
            for word in words:
                move = board.parse_move(word)
                board.push(move)
                moves.append(str(move))
        except (MoveError, ValueError) as exc:
            raise MatchConfigError(f"{path}:{number}: {exc}") from None
        if board.outcome() is not None:
            raise MatchConfigError(f"{path}:{number}: the opening already ends the game")
        out.append(Opening(f"{path.name}:{number}", moves=tuple(moves)))
    return out


def load_openings(
    config: OpeningsConfig, variant: str, *, size: int = 15, rule: str = "freestyle", seed: int = 0
) -> list[Opening]:
    """The openings of ``config.file``, in play order (shuffled with ``seed`` for random)."""
    path = config.file
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise MatchConfigError(f"cannot read opening file {path}: {exc.strerror}") from None
    kind = config.format or path.suffix.lower().lstrip(".")
    if variant == "xiangqi":
        if kind in ("fen", "epd"):
            openings = _xiangqi_fens(path, text)
        elif kind == "pgn":
            openings = _xiangqi_pgn(path, text, config.plies)
        else:
            raise MatchConfigError(
                f"{path}: xiangqi openings are .fen, .epd or .pgn (or give format=fen|epd|pgn)"
            )
    else:
        openings = _gomoku_lines(path, text, size, rule, config.plies)
    if not openings:
        raise MatchConfigError(f"{path}: no openings in it")
    start = max(0, config.start - 1) % len(openings)
    openings = openings[start:] + openings[:start]
    if config.order == "random":
        random.Random(seed).shuffle(openings)
    return openings
