"""Ratings of the matchmaker's players: Glicko-2, one per game (variant), one game at a time.

Each rated game is its own rating period (``lanqi.tournament.ratings.glicko2_game``),
so a rating moves right after every game, in that game's variant only; see
docs/tournaments.md, "Ratings".
"""

from __future__ import annotations

from lanqi.matchmaker.store import MatchmakerStore
from lanqi.tournament.ratings import Glicko2, glicko2_game

__all__ = ["rate_game"]


def rate_game(
    store: MatchmakerStore, variant: str, player_ids: list[str], score_first: float
) -> dict[str, Glicko2]:
    """New ratings in ``variant`` of both players after a game ``score_first`` (0, .5, 1)."""
    first, second = (store.rating(pid, variant) for pid in player_ids)
    a, b = glicko2_game(
        Glicko2(first.rating, first.rd, first.volatility),
        Glicko2(second.rating, second.rd, second.volatility),
        score_first,
    )
    return {player_ids[0]: a, player_ids[1]: b}
