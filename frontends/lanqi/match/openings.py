"""Opening suites: where each game of a match starts.

Each variant reads its own files (its spec's ``read_openings``): xiangqi ``.fen``,
``.epd`` (one position per line; an EPD ``id "..."`` names it) and ``.pgn`` (each
game's moves, its first ``plies`` when given, played through the referee so
records keep them; the ``Opening`` tag names it); gomoku one opening per line,
lanqi moves (``h8 i9 j8``) or Gomocup offsets from the centre (``0,0, 1,-1, -1,1``).
Lines that are empty or start with ``#`` are skipped.

Books ship with lanqi (:data:`BUILTIN_BOOKS`, in ``lanqi/match/books/``): name one
as ``builtin:xiangqi``, ``builtin:gomoku`` or ``builtin:renju``, or just ``builtin``
for the match's own variant and rule.

>>> builtin_book("builtin", "gomoku", rule="renju").name
'renju.txt'
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lanqi.games.base import Opening
from lanqi.games.registry import variant_spec
from lanqi.match.config import MatchConfigError, OpeningsConfig

__all__ = ["BUILTIN_BOOKS", "BUILTIN_PREFIX", "Opening", "builtin_book", "load_openings"]

#: where the shipped books live (inside the package, so the wheel has them)
BOOKS_DIR = Path(__file__).resolve().parent / "books"
#: ``-openings file=builtin:NAME``: NAME -> (the variant it is for, its file in BOOKS_DIR)
BUILTIN_BOOKS: dict[str, tuple[str, str]] = {
    "xiangqi": ("xiangqi", "xiangqi.epd"),
    "gomoku": ("gomoku", "gomoku.txt"),
    "renju": ("gomoku", "renju.txt"),
}
BUILTIN_PREFIX = "builtin"


def is_builtin(file: Path | str) -> bool:
    """Whether an ``-openings file=`` names a shipped book (``builtin`` or ``builtin:NAME``)."""
    text = str(file)
    return text == BUILTIN_PREFIX or text.startswith(BUILTIN_PREFIX + ":")


def builtin_book(file: Path | str, variant: str, *, rule: str = "freestyle") -> Path:
    """The path of the shipped book ``file`` names (``builtin`` alone: the one for
    ``variant`` and its ``rule``); :class:`MatchConfigError` for an unknown name or a
    book of another variant."""
    text = str(file)
    name = text.partition(":")[2].strip().lower()
    if not name:
        name = "renju" if variant == "gomoku" and rule == "renju" else variant
    if name not in BUILTIN_BOOKS:
        known = ", ".join(f"{BUILTIN_PREFIX}:{n}" for n in BUILTIN_BOOKS)
        raise MatchConfigError(f"no built-in book {text!r}; there are {known}")
    book_variant, filename = BUILTIN_BOOKS[name]
    if book_variant != variant:
        raise MatchConfigError(
            f"{BUILTIN_PREFIX}:{name} is a {book_variant} book; this match plays {variant}"
        )
    return BOOKS_DIR / filename


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
        path = builtin_book(path, variant, rule=str((options or {}).get("rule", "freestyle")))
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
