"""Create any game by name and options, and restore one from a snapshot.

>>> game = create_game("gomoku", size=15, rule="standard")
>>> game.variant, dict(game.options)
('gomoku', {'size': 15, 'rule': 'standard'})
>>> game.push(game.parse_move("h8"))
>>> restore_game(game.snapshot()).fen() == game.fen()
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from lanqi.games import gomoku, xiangqi
from lanqi.games.base import Game

__all__ = ["VARIANTS", "UnknownVariantError", "create_game", "restore_game"]


class UnknownVariantError(ValueError):
    """No game is registered under that name, or an option is wrong for it."""


def _make_xiangqi(options: Mapping[str, Any]) -> Game:
    return xiangqi.Board.from_options(options)


def _make_gomoku(options: Mapping[str, Any]) -> Game:
    return gomoku.Board.from_options(options)


VARIANTS: dict[str, Callable[[Mapping[str, Any]], Game]] = {
    "xiangqi": _make_xiangqi,
    "gomoku": _make_gomoku,
}


def create_game(variant: str, /, **options: Any) -> Game:
    """A new game of ``variant`` at its start position (or ``fen=...`` if given).

    Raises :class:`UnknownVariantError` for an unknown name or a bad option.
    """
    try:
        factory = VARIANTS[variant]
    except KeyError:
        known = ", ".join(sorted(VARIANTS))
        raise UnknownVariantError(f"unknown variant {variant!r}; known: {known}") from None
    try:
        return factory(options)
    except (TypeError, ValueError) as exc:
        raise UnknownVariantError(f"bad options for {variant}: {exc}") from exc


def restore_game(snapshot: Mapping[str, Any]) -> Game:
    """Rebuild a game from :meth:`Game.snapshot`: same start, same moves, same history.

    Every move is replayed through the rules, so a tampered snapshot raises.
    """
    options = dict(snapshot.get("options", {}))
    start = snapshot.get("start")
    if start is not None:
        options["fen"] = start
    game = create_game(str(snapshot["variant"]), **options)
    for text in snapshot.get("moves", []):
        game.push(game.parse_move(str(text)))
    return game
