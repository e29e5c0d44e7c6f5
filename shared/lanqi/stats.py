"""Match statistics: Elo with a 95% interval, LOS and SPRT (pure logic, no I/O).

A match is summed up as a distribution of scores per unit: per game (trinomial:
win 1, draw 1/2, loss 0) or per colour-reversed pair of games (pentanomial: the
pair's points 0, 1/2, 1, 3/2, 2, scaled to 0..1).  Pairs are the better unit when
each opening is played twice with colours reversed: the opening's bias cancels
inside a pair, so the variance is smaller and honest.

The interval is a Wilson-type interval on the mean score: the set of true scores
``s`` for which the observed mean is within ``z`` standard errors, where the
standard error at ``s`` is ``sqrt(r * s * (1 - s) / n)``.  ``r`` is the ratio of
the observed variance to the largest a score with that mean could have (draws and
balanced pairs make it smaller than 1).  It is estimated with half a pseudo-count
in every category (a Jeffreys prior), so a sweep or an all-draw match never gets
a zero-width interval, and the interval never leaves 0..1 (so a sweep's upper
Elo bound is infinite, as it should be).  For large matches it agrees with the
usual normal approximation.

>>> est = trinomial(60, 30, 10)
>>> round(est.elo), round(est.low), round(est.high)
(191, 130, 252)
>>> sweep = trinomial(10, 0, 0)
>>> round(sweep.low) > 0, sweep.high
(True, inf)
>>> sprt = Sprt(elo0=0, elo1=10, alpha=0.05, beta=0.05)
>>> round(sprt.lower, 3), round(sprt.upper, 3)
(-2.944, 2.944)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "PAIR_SCORES",
    "Estimate",
    "Sprt",
    "SprtState",
    "elo_from_score",
    "estimate",
    "format_elo",
    "los",
    "pentanomial",
    "score_from_elo",
    "trinomial",
]

#: The score of each pentanomial category, as a share of the pair's two points.
PAIR_SCORES: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)
_GAME_SCORES: tuple[float, ...] = (0.0, 0.5, 1.0)
Z95 = 1.959963984540054
_PSEUDO = 0.5
_EDGE = 1e-9  # a bound this close to 0 or 1 is 0 or 1 (rounding)


def elo_from_score(score: float) -> float:
    """The logistic Elo difference that gives ``score`` (``±inf`` at 1 and 0).

    >>> round(elo_from_score(0.75), 2), elo_from_score(1.0)
    (190.85, inf)
    """
    if score >= 1.0:
        return math.inf
    if score <= 0.0:
        return -math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def score_from_elo(elo: float) -> float:
    """The expected score at an Elo difference ``elo``.

    >>> score_from_elo(0.0), round(score_from_elo(400.0), 4)
    (0.5, 0.9091)
    """
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def _normal_cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def los(wins: int, losses: int) -> float:
    """Likelihood of superiority from wins and losses (draws say nothing).

    >>> round(los(10, 5), 4), los(0, 0)
    (0.9016, 0.5)
    """
    if wins + losses == 0:
        return 0.5
    return _normal_cdf((wins - losses) / math.sqrt(wins + losses))


def _moments(counts: Sequence[float], values: Sequence[float]) -> tuple[float, float, float]:
    """(n, mean, variance) of a categorical distribution."""
    n = float(sum(counts))
    mean = sum(c * v for c, v in zip(counts, values, strict=True)) / n
    var = sum(c * (v - mean) ** 2 for c, v in zip(counts, values, strict=True)) / n
    return n, mean, var


@dataclass(frozen=True, slots=True)
class Estimate:
    """What a match says about the difference between two players (first player's view)."""

    units: int  # games (trinomial) or pairs (pentanomial)
    score: float  # mean score, 0..1
    elo: float
    low: float  # 95% interval
    high: float
    los: float  # likelihood that the first player is the stronger one
    variance: float  # per unit, regularised (what the SPRT uses)

    @property
    def margin(self) -> float:
        """Half the interval's width in Elo (``inf`` when it is open on one side)."""
        return (self.high - self.low) / 2.0


def estimate(counts: Sequence[int], values: Sequence[float], *, z: float = Z95) -> Estimate:
    """The estimate from ``counts[i]`` units that scored ``values[i]`` (in 0..1)."""
    if len(counts) != len(values):
        raise ValueError("one count per score value")
    if any(c < 0 for c in counts):
        raise ValueError("counts cannot be negative")
    n = sum(counts)
    if n == 0:
        return Estimate(0, 0.5, 0.0, -math.inf, math.inf, 0.5, 0.25)
    _, mean, _ = _moments(counts, values)
    _, reg_mean, reg_var = _moments([c + _PSEUDO for c in counts], values)
    ratio = min(1.0, reg_var / (reg_mean * (1.0 - reg_mean)))
    k = z * z * ratio / n
    # (mean - s)^2 = k s (1 - s)  <=>  (1 + k) s^2 - (2 mean + k) s + mean^2 = 0
    b = 2.0 * mean + k
    root = math.sqrt(max(0.0, b * b - 4.0 * (1.0 + k) * mean * mean))
    low = (b - root) / (2.0 * (1.0 + k))
    high = (b + root) / (2.0 * (1.0 + k))
    # the variance at the observed mean, never below what the prior allows
    variance = ratio * max(mean * (1.0 - mean), reg_mean * (1.0 - reg_mean))
    sigma = math.sqrt(variance / n)
    return Estimate(
        units=n,
        score=mean,
        elo=elo_from_score(mean),
        low=elo_from_score(low) if low > _EDGE else -math.inf,
        high=elo_from_score(high) if high < 1.0 - _EDGE else math.inf,
        los=_normal_cdf((mean - 0.5) / sigma),
        variance=variance,
    )


def format_elo(est: Estimate) -> str:
    """``+35 [-40, +110]``; ``inf`` where a sweep leaves the interval open.

    >>> format_elo(trinomial(10, 0, 0))
    '+inf [+200, +inf]'
    """

    def one(x: float) -> str:
        if math.isinf(x):
            return "+inf" if x > 0 else "-inf"
        return f"{round(x) + 0:+d}"

    return f"{one(est.elo)} [{one(est.low)}, {one(est.high)}]"


def trinomial(wins: int, draws: int, losses: int, *, z: float = Z95) -> Estimate:
    """Per-game estimate from wins, draws and losses."""
    return estimate([losses, draws, wins], _GAME_SCORES, z=z)


def pentanomial(counts: Sequence[int], *, z: float = Z95) -> Estimate:
    """Per-pair estimate: ``counts[i]`` pairs in which the first player scored ``i``
    half-points of the pair's two points (0, 1/2, 1, 3/2 or 2 points)."""
    if len(counts) != 5:
        raise ValueError("a pentanomial has five counts (pair scores 0, 1/2, 1, 3/2, 2)")
    return estimate(counts, PAIR_SCORES, z=z)


@dataclass(frozen=True, slots=True)
class SprtState:
    llr: float
    lower: float
    upper: float
    #: ``"H0"`` (elo0 accepted: stop), ``"H1"`` (elo1 accepted: stop) or ``""`` (go on)
    decision: str


@dataclass(frozen=True, slots=True)
class Sprt:
    """A sequential probability ratio test of ``elo0`` against ``elo1`` (logistic Elo).

    The log-likelihood ratio is the generalised SPRT's normal approximation:
    ``n * ((m - s0)^2 - (m - s1)^2) / (2 var)`` with the observed mean ``m`` and
    per-unit variance ``var`` (regularised as for the interval), ``s0``/``s1`` the
    scores of ``elo0``/``elo1``.  The test stops below ``log(beta / (1 - alpha))``
    (H0) or above ``log((1 - beta) / alpha)`` (H1).
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not (0.0 < self.alpha < 1.0 and 0.0 < self.beta < 1.0):
            raise ValueError("SPRT alpha and beta must be between 0 and 1")
        if self.elo0 >= self.elo1:
            raise ValueError("SPRT elo0 must be below elo1")

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1.0 - self.beta) / self.alpha)

    def llr(self, est: Estimate) -> float:
        if est.units == 0:
            return 0.0
        s0, s1 = score_from_elo(self.elo0), score_from_elo(self.elo1)
        m = est.score
        return est.units * ((m - s0) ** 2 - (m - s1) ** 2) / (2.0 * est.variance)

    def state(self, est: Estimate) -> SprtState:
        llr = self.llr(est)
        decision = "H1" if llr >= self.upper else "H0" if llr <= self.lower else ""
        return SprtState(llr, self.lower, self.upper, decision)
