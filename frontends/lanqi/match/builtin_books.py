"""The opening books that ship with lanqi, in ``lanqi/match/books/``.

``-openings file=builtin:NAME`` (or ``builtin`` alone: the match's own variant and
rule) names one; :func:`builtin_book` finds its file.

>>> builtin_book("builtin", "gomoku", rule="renju").name
'renju.txt'
>>> is_builtin("builtin:xiangqi"), is_builtin("openings.epd")
(True, False)
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["BOOKS_DIR", "BUILTIN_BOOKS", "BUILTIN_PREFIX", "builtin_book", "is_builtin"]

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
    ``variant`` and its ``rule``); ``ValueError`` for an unknown name or a book of
    another variant."""
    text = str(file)
    name = text.partition(":")[2].strip().lower()
    if not name:  # the book of the rule (renju) if there is one for this game, else the game's
        name = rule if BUILTIN_BOOKS.get(rule, ("", ""))[0] == variant else variant
    if name not in BUILTIN_BOOKS:
        known = ", ".join(f"{BUILTIN_PREFIX}:{n}" for n in BUILTIN_BOOKS)
        raise ValueError(f"no built-in book {text!r}; there are {known}")
    book_variant, filename = BUILTIN_BOOKS[name]
    if book_variant != variant:
        raise ValueError(
            f"{BUILTIN_PREFIX}:{name} is a {book_variant} book; this match plays {variant}"
        )
    return BOOKS_DIR / filename
