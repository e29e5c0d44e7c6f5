"""Create any game by name and options, and restore one from a snapshot.

Each variant's package provides one :class:`~lanqi.games.base.VariantSpec`
(``VARIANT``); :data:`VARIANTS` lists them.  Adding a variant is its package plus
one entry here.  Everything else dispatches through the spec.

>>> game = create_game("gomoku", size=15, rule="standard")
>>> game.variant, dict(game.options)
('gomoku', {'size': 15, 'rule': 'standard'})
>>> game.push(game.parse_move("h8"))
>>> restore_game(game.snapshot()).fen() == game.fen()
True
>>> variant_spec("xiangqi").seat_names
('Red', 'Black')
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from lanqi.games import gomoku, xiangqi
from lanqi.games.base import Game, RecordGames, VariantSpec

__all__ = [
    "VARIANTS",
    "UnknownVariantError",
    "create_game",
    "notation_names",
    "read_records",
    "restore_game",
    "variant_names",
    "variant_spec",
]


class UnknownVariantError(ValueError):
    """No game is registered under that name, or an option is wrong for it."""


VARIANTS: dict[str, VariantSpec[Any]] = {
    spec.name: spec
    for spec in (
        xiangqi.VARIANT,
        gomoku.VARIANT,
    )
}


def variant_spec(variant: str) -> VariantSpec[Any]:
    """The registered spec of ``variant``; raises :class:`UnknownVariantError`."""
    try:
        return VARIANTS[variant]
    except KeyError:
        known = ", ".join(sorted(VARIANTS))
        raise UnknownVariantError(f"unknown variant {variant!r}; known: {known}") from None


def create_game(variant: str, /, **options: Any) -> Game[Any]:
    """A new game of ``variant`` at its start position (or ``fen=...`` if given).

    Raises :class:`UnknownVariantError` for an unknown name or a bad option.
    """
    spec = variant_spec(variant)
    try:
        game: Game[Any] = spec.create(options)
    except (TypeError, ValueError) as exc:
        raise UnknownVariantError(f"bad options for {variant}: {exc}") from exc
    return game


def restore_game(snapshot: Mapping[str, Any]) -> Game[Any]:
    """Rebuild a game from :meth:`Game.snapshot`: same start, same moves, same history.

    Every move is replayed through the rules, so a tampered snapshot raises.
    """
    options = dict(snapshot.get("options", {}))
    start = snapshot.get("start")
    if start is not None:
        options["fen"] = start
    game = create_game(str(snapshot["variant"]), **options)
    for text in snapshot.get("moves", []):
        game.push_text(str(text))
    return game


def variant_names() -> tuple[str, ...]:
    """The registered variants' names, in registry order: what every ``--variant``
    takes (``choices=variant_names()``).

    >>> variant_names()
    ('xiangqi', 'gomoku')
    """
    return tuple(VARIANTS)


def notation_names() -> tuple[str, ...]:
    """Every registered variant's notations by their one name, in order, once each
    (what ``--notation`` takes).

    >>> notation_names()
    ('chinese', 'wxf', 'iccs')
    """
    names = (name for spec in VARIANTS.values() for name in spec.notations)
    return tuple(dict.fromkeys(names))


#: a record's ``Game`` tag: ``[Game "Gomoku"]``
_GAME_TAG = re.compile(r'^\s*\[Game\s+"([^"]*)"\]', re.MULTILINE)


def read_records(text: str) -> tuple[VariantSpec[Any], RecordGames]:
    """The variant of a record text and its games: (tags, board, result) each.

    The ``Game`` tag of the first game names the variant (its spec's
    ``record_game``, or its name); a record without one is the first registered
    variant's (xiangqi PGN, as most tools write it).  Raises ``ValueError`` when no
    registered variant reads records of that name, or the text has no game.

    >>> spec, games = read_records('[Game "Gomoku"]\\n[Result "*"]\\n\\n1. h8 h9\\n')
    >>> spec.name, [str(m) for m in games[0][1].move_stack], games[0][2]
    ('gomoku', ['h8', 'h9'], '*')
    """
    text = text.lstrip("\ufeff")
    tag = _GAME_TAG.search(text)
    readers = [spec for spec in VARIANTS.values() if spec.read is not None]
    if tag is None:
        chosen = readers[:1]
    else:
        name = tag.group(1).strip().casefold()
        chosen = [s for s in readers if name in (s.record_game.casefold(), s.name.casefold())]
    if not chosen:
        game = tag.group(1) if tag else "?"
        known = ", ".join(s.record_game or s.name for s in readers)
        raise ValueError(f"no variant reads {game!r} records (known: {known})")
    spec = chosen[0]
    assert spec.read is not None
    games = spec.read(text)
    if not games:
        raise ValueError("no game found in the text")
    return spec, games
