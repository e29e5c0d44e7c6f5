"""Every line a player reads, in Chinese and English, from one catalogue.

Frontends never spell a player-facing sentence themselves: they ask the catalogue
by key and get both languages, Chinese first (``"提和 Bob offers a draw"``), with
the fields filled in and English plurals right::

    >>> tr("moves_taken_back", n=1)
    '悔了 1 步 1 move taken back'
    >>> tr("moves_taken_back", n=3)
    '悔了 3 步 3 moves taken back'
    >>> zh("draw_offered", name="Bob"), en("draw_offered", name="Bob")
    ('Bob 提和', 'Bob offers a draw')

A key missing from the catalogue is a programming error (``KeyError``), so a
test that walks the screens finds it; only the words for a seat (``side.red``,
``to_move.red``, ``wins.red``) of a variant the catalogue has none for are made
from the seat's name in its spec (``to_move.first``: ``First to move``), so a new
variant needs no entries here::

    >>> tr("to_move.first"), tr("to_move.red")
    ('First走棋 First to move', '红方走棋 Red to move')

The catalogue itself is plain data (:data:`CATALOGUE`), so another frontend (the
web page) can ship it as JSON.
"""

from __future__ import annotations

from dataclasses import dataclass

from lanqi.i18n.catalogue import CATALOGUE, Text

__all__ = ["CATALOGUE", "Term", "Text", "Words", "en", "tr", "zh"]


@dataclass(frozen=True, slots=True)
class Term:
    """A field that is itself a catalogue entry, put in each line in that line's
    language::

        >>> tr("illegal.piece_cannot_move", piece=Term("piece.horse"))
        '马不能这样走 a horse cannot move like that'
    """

    key: str


@dataclass(frozen=True, slots=True)
class Words:
    """A field its caller has in both languages (a variant's names from its spec),
    put in each line in that line's language::

        >>> tr("menu.two_players", variant=Words("象棋", "Xiangqi"))
        '双人象棋 Xiangqi: two players'
    """

    zh: str
    en: str


def _fill(fields: dict[str, object], language: str) -> dict[str, object]:
    def one(value: object) -> object:
        if isinstance(value, Term):
            return zh(value.key) if language == "zh" else en(value.key)
        if isinstance(value, Words):
            return value.zh if language == "zh" else value.en
        return value

    return {name: one(value) for name, value in fields.items()}


#: the families of seat words, each with the entry that says a seat by its name
_SEAT_WORDS = {"side": "seat.side", "to_move": "seat.to_move", "wins": "seat.wins"}


def _text(key: str) -> Text:
    try:
        return CATALOGUE[key]
    except KeyError:
        family, _, seat = key.partition(".")
        if family in _SEAT_WORDS and seat:
            words, who = CATALOGUE[_SEAT_WORDS[family]], seat.capitalize()
            return Text(words.zh.format(who=who), words.en.format(who=who))
        raise KeyError(f"no catalogue entry {key!r}: add it to lanqi.i18n.catalogue") from None


def zh(key: str, /, *, n: int | None = None, **fields: object) -> str:
    """The Chinese line of ``key`` with ``fields`` (and ``n``) filled in."""
    return _text(key).zh.format(n=n, **_fill(fields, "zh"))


def en(key: str, /, *, n: int | None = None, **fields: object) -> str:
    """The English line of ``key``; ``en_plural`` when ``n`` is given and not 1."""
    text = _text(key)
    pattern = text.en_plural if n is not None and n != 1 and text.en_plural else text.en
    return pattern.format(n=n, **_fill(fields, "en"))


def tr(key: str, /, *, n: int | None = None, **fields: object) -> str:
    """Both lines, Chinese then English, as the GUI shows them side by side."""
    chinese, english = zh(key, n=n, **fields), en(key, n=n, **fields)
    return f"{chinese} {english}".strip() if chinese != english else english
