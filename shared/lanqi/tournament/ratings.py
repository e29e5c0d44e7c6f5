"""Ratings: Elo and Glicko-2, as pure functions of numbers.

Elo (Arpad Elo; the logistic curve with 400 points per factor of ten):

>>> round(expected(1600, 1400), 3)
0.76
>>> round(update(1600, 1400, 1.0, k=20), 1), round(update(1400, 1600, 0.0, k=20), 1)
(1604.8, 1395.2)

Glicko-2 (Mark Glickman, "Example of the Glicko-2 system", 2012), the worked example:

>>> me = Glicko2(1500, 200, 0.06)
>>> new = glicko2_update(me, [(Glicko2(1400, 30), 1.0), (Glicko2(1550, 100), 0.0),
...                           (Glicko2(1700, 300), 0.0)])
>>> round(new.rating, 2), round(new.rd, 2), round(new.volatility, 6)
(1464.05, 151.52, 0.059996)

lanqi's default is Glicko-2 updated after every game (see docs/tournaments.md).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from lanqi.tournament.model import SCORES, TournamentError

__all__ = [
    "DEFAULT_TAU",
    "GLICKO2_SCALE",
    "Glicko2",
    "elo_game",
    "expected",
    "glicko2_game",
    "glicko2_idle",
    "glicko2_update",
    "k_factor",
    "update",
]


def _check_score(score: float) -> None:
    if score not in SCORES:
        raise TournamentError(f"a score is 0, 0.5 or 1, not {score!r}")


# --- Elo -------------------------------------------------------------------------


def expected(ra: float, rb: float) -> float:
    """The score ``a`` is expected to make against ``b`` (0..1)."""
    return 1.0 / (1.0 + math.pow(10.0, (rb - ra) / 400.0))


def update(ra: float, rb: float, score: float, k: float) -> float:
    """``a``'s new rating after scoring ``score`` (1, 0.5, 0) against ``b``."""
    _check_score(score)
    if k <= 0:
        raise TournamentError("the K-factor must be positive")
    return ra + k * (score - expected(ra, rb))


def k_factor(games_played: int, rating: float, *, provisional_games: int = 30) -> float:
    """lanqi's K-factor policy, FIDE's: 40 for a player's first ``provisional_games``
    games, then 20, and 10 from a rating of 2400 up.

    >>> k_factor(5, 1500), k_factor(100, 1500), k_factor(100, 2450)
    (40.0, 20.0, 10.0)
    """
    if games_played < provisional_games:
        return 40.0
    return 10.0 if rating >= 2400 else 20.0


def elo_game(
    ra: float, rb: float, score_a: float, k_a: float = 20.0, k_b: float | None = None
) -> tuple[float, float]:
    """Both new ratings after one game; with equal K the points ``a`` wins ``b`` loses.

    >>> elo_game(1500, 1500, 0.5)
    (1500.0, 1500.0)
    """
    _check_score(score_a)
    kb = k_a if k_b is None else k_b
    return update(ra, rb, score_a, k_a), update(rb, ra, 1.0 - score_a, kb)


# --- Glicko-2 ----------------------------------------------------------------------

#: Glicko-2 works on its own scale: (rating - 1500) / 173.7178.
GLICKO2_SCALE = 173.7178
#: The system constant: how much volatility may change. Glickman suggests 0.3 to 1.2.
DEFAULT_TAU = 0.5
_EPSILON = 1e-6
_MAX_RD = 350.0


@dataclass(frozen=True, slots=True)
class Glicko2:
    """A Glicko-2 rating: the rating, its deviation (uncertainty) and volatility.

    A new player starts at 1500 / 350 / 0.06, Glickman's suggested values.
    """

    rating: float = 1500.0
    rd: float = 350.0
    volatility: float = 0.06

    def __post_init__(self) -> None:
        if not (self.rd > 0 and self.volatility > 0):
            raise TournamentError("rating deviation and volatility must be positive")

    @property
    def mu(self) -> float:
        return (self.rating - 1500.0) / GLICKO2_SCALE

    @property
    def phi(self) -> float:
        return self.rd / GLICKO2_SCALE

    def interval(self) -> tuple[float, float]:
        """The 95% interval ``rating ± 2 RD``."""
        return (self.rating - 2 * self.rd, self.rating + 2 * self.rd)


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def glicko2_update(
    player: Glicko2,
    games: Iterable[tuple[Glicko2, float]],
    *,
    tau: float = DEFAULT_TAU,
) -> Glicko2:
    """The player's rating after a batch of games (Glickman's rating period): each game
    is ``(opponent's rating before the batch, score)``. No games: only the deviation
    grows (:func:`glicko2_idle`).
    """
    games = list(games)
    if tau <= 0:
        raise TournamentError("tau must be positive")
    if not games:
        return glicko2_idle(player)
    for _, score in games:
        _check_score(score)
    mu, phi, sigma = player.mu, player.phi, player.volatility
    # Steps 3 and 4: estimated variance and improvement.
    v_inv = 0.0
    delta_sum = 0.0
    for opp, score in games:
        g = _g(opp.phi)
        e = _e(mu, opp.mu, opp.phi)
        v_inv += g * g * e * (1.0 - e)
        delta_sum += g * (score - e)
    v = 1.0 / v_inv
    delta = v * delta_sum
    # Step 5: new volatility (Illinois algorithm).
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        num = ex * (delta * delta - phi * phi - v - ex)
        den = 2.0 * (phi * phi + v + ex) ** 2
        return num / den - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > _EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    new_sigma = math.exp(big_a / 2.0)
    # Steps 6 to 8: new deviation and rating.
    phi_star = math.sqrt(phi * phi + new_sigma * new_sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * delta_sum
    return Glicko2(
        rating=1500.0 + GLICKO2_SCALE * new_mu,
        rd=GLICKO2_SCALE * new_phi,
        volatility=new_sigma,
    )


def glicko2_idle(player: Glicko2, periods: int = 1) -> Glicko2:
    """The rating after ``periods`` rating periods without games: the deviation grows
    (capped at 350, a new player's), the rest stays.

    >>> round(glicko2_idle(Glicko2(1500, 50, 0.06)).rd, 2)
    51.07
    """
    phi = player.phi
    for _ in range(periods):
        phi = math.sqrt(phi * phi + player.volatility**2)
    rd = min(GLICKO2_SCALE * phi, _MAX_RD)
    return Glicko2(player.rating, rd, player.volatility)


def glicko2_game(
    a: Glicko2, b: Glicko2, score_a: float, *, tau: float = DEFAULT_TAU
) -> tuple[Glicko2, Glicko2]:
    """Both new ratings after one game, each rated as a rating period of one game.

    >>> a, b = glicko2_game(Glicko2(), Glicko2(), 1.0)
    >>> round(a.rating, 1), round(b.rating, 1)
    (1662.3, 1337.7)
    """
    _check_score(score_a)
    return (
        glicko2_update(a, [(b, score_a)], tau=tau),
        glicko2_update(b, [(a, 1.0 - score_a)], tau=tau),
    )
