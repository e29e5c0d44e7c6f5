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

from collections.abc import Mapping
from typing import Any

from lanqi.games import gomoku, xiangqi
from lanqi.games.base import Game, VariantSpec

__all__ = ["VARIANTS", "UnknownVariantError", "create_game", "restore_game", "variant_spec"]


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
