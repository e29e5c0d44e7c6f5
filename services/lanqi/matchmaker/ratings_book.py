"""Ratings of the matchmaker's players: Glicko-2, one game at a time.

Each rated game is its own rating period (``lanqi.tournament.ratings.glicko2_game``),
so a rating moves right after every game; see docs/tournaments.md.
"""

from __future__ import annotations

from lanqi.matchmaker.store import MatchmakerStore
from lanqi.tournament.ratings import Glicko2, glicko2_game

__all__ = ["DEFAULT_RATING", "rate_game"]

DEFAULT_RATING = Glicko2()


def rate_game(
    store: MatchmakerStore, player_ids: list[str], score_first: float
) -> dict[str, tuple[float, float, float]]:
    """New (rating, rd, volatility) of both players after a game ``score_first`` (0, .5, 1)."""
    first, second = (store.player(pid) for pid in player_ids)
    if first is None or second is None:
        return {}
    a, b = glicko2_game(
        Glicko2(first.rating, first.rd, first.volatility),
        Glicko2(second.rating, second.rd, second.volatility),
        score_first,
    )
    return {
        first.player_id: (a.rating, a.rd, a.volatility),
        second.player_id: (b.rating, b.rd, b.volatility),
    }
