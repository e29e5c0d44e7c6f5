"""Opening suites: where each game of a match starts.

Each variant reads its own files (its spec's ``read_openings``): xiangqi ``.fen``,
``.epd`` (one position per line; an EPD ``id "..."`` names it) and ``.pgn`` (each
game's moves, its first ``plies`` when given, played through the referee so
records keep them; the ``Opening`` tag names it); gomoku one opening per line,
lanqi moves (``h8 i9 j8``) or Gomocup offsets from the centre (``0,0, 1,-1, -1,1``).
Lines that are empty or start with ``#`` are skipped.

Books ship with lanqi (:mod:`lanqi.match.builtin_books`, in ``lanqi/match/books/``):
name one as ``builtin:xiangqi``, ``builtin:gomoku`` or ``builtin:renju``, or just
``builtin`` for the match's own variant and rule.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from lanqi.games.base import Opening
from lanqi.games.registry import variant_spec
from lanqi.match.builtin_books import BOOKS_DIR, BUILTIN_BOOKS, builtin_book, is_builtin
from lanqi.match.config import MatchConfigError, OpeningsConfig

__all__ = ["BOOKS_DIR", "BUILTIN_BOOKS", "Opening", "load_openings"]


def load_openings(
    config: OpeningsConfig,
    variant: str,
    *,
    options: Mapping[str, Any] | None = None,
    seed: int = 0,
) -> list[Opening]:
    """The openings of ``config.file`` for games of ``variant`` with ``options``, in
    play order (shuffled with ``seed`` for random)."""
    path = config.file
    if is_builtin(path):
        rule = str((options or {}).get("rule", "freestyle"))
        try:
            path = builtin_book(path, variant, rule=rule)
        except ValueError as exc:
            raise MatchConfigError(str(exc)) from None
    read = variant_spec(variant).read_openings
    if read is None:
        raise MatchConfigError(f"{variant} has no opening files; drop -openings")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise MatchConfigError(f"cannot read opening file {path}: {exc.strerror}") from None
    try:
        openings = read(path, text, config.format, options or {}, config.plies)
    except ValueError as exc:
        raise MatchConfigError(str(exc)) from None
    if not openings:
        raise MatchConfigError(f"{path}: no openings in it")
    start = max(0, config.start - 1) % len(openings)
    openings = openings[start:] + openings[:start]
    if config.order == "random":
        random.Random(seed).shuffle(openings)
    return openings
