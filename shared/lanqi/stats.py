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

Normalized Elo (nElo) scales the mean score's distance from 1/2 by its standard
deviation per game, ``nElo = 800 / ln 10 * (mean - 1/2) / sigma_per_game``, so
that a given nElo costs the same number of games to detect whatever the draw
rate; its interval is ``± z * 800 / ln 10 / sqrt(games)``.  Like fishtest and
fastchess it is computed with an empty category counted as 1/1000.

The SPRT is the generalized SPRT fishtest runs: the log-likelihood ratio of the
observed counts under the most likely distribution whose expected score is that
of ``elo1`` against the most likely one whose score is that of ``elo0``
(``model="logistic"``), or whose t-value ``(mean - 1/2) / sigma`` is that of the
bounds (``model="normalized"``, bounds in nElo).  The constrained maxima are
found exactly (a one-dimensional root of the secular equation), not by the
normal approximation.

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
    "NELO_PER_T",
    "PAIR_SCORES",
    "SPRT_MODELS",
    "Estimate",
    "Sprt",
    "SprtState",
    "elo_from_score",
    "estimate",
    "format_elo",
    "format_nelo",
    "llr_logistic",
    "llr_normalized",
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
#: normalized Elo per unit of t-value per game: 800 / ln 10
NELO_PER_T = 800.0 / math.log(10.0)
_EMPTY = 1e-3  # fishtest's and fastchess's weight of an empty category (nElo, SPRT)


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
    variance: float  # per unit, regularised
    #: normalized Elo and its 95% interval (``nelo ± nelo_margin``)
    nelo: float = 0.0
    nelo_margin: float = math.inf
    #: the counts and the score of each category they came from (what the SPRT reads)
    counts: tuple[int, ...] = ()
    values: tuple[float, ...] = ()

    @property
    def margin(self) -> float:
        """Half the interval's width in Elo (``inf`` when it is open on one side)."""
        return (self.high - self.low) / 2.0

    @property
    def games(self) -> int:
        """Games behind the estimate: two per pair when the unit is a pair."""
        return 2 * self.units if len(self.values) == 5 else self.units


def estimate(counts: Sequence[int], values: Sequence[float], *, z: float = Z95) -> Estimate:
    """The estimate from ``counts[i]`` units that scored ``values[i]`` (in 0..1)."""
    if len(counts) != len(values):
        raise ValueError("one count per score value")
    if any(c < 0 for c in counts):
        raise ValueError("counts cannot be negative")
    n = sum(counts)
    kept = (tuple(counts), tuple(values))
    if n == 0:
        return Estimate(0, 0.5, 0.0, -math.inf, math.inf, 0.5, 0.25, 0.0, math.inf, *kept)
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
        nelo=_nelo(counts, values),
        nelo_margin=z * NELO_PER_T / math.sqrt(_games_per_unit(values) * n),
        counts=kept[0],
        values=kept[1],
    )


def _games_per_unit(values: Sequence[float]) -> int:
    """2 for pairs (five categories), else 1."""
    return 2 if len(values) == 5 else 1


def _distribution(counts: Sequence[int]) -> tuple[float, list[float]]:
    """(n, probabilities) with an empty category weighing :data:`_EMPTY`."""
    weights = [float(c) if c > 0 else _EMPTY for c in counts]
    n = sum(weights)
    return n, [w / n for w in weights]


def _nelo(counts: Sequence[int], values: Sequence[float]) -> float:
    """Normalized Elo: ``800 / ln 10 * (mean - 1/2) / sigma_per_game``."""
    _, probs = _distribution(counts)
    _, mean, var = _moments(probs, values)
    sigma_per_game = math.sqrt(_games_per_unit(values) * var)
    return NELO_PER_T * (mean - 0.5) / sigma_per_game


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


def format_nelo(est: Estimate) -> str:
    """``+52.3 ± 61.8`` (normalized Elo and half its 95% interval).

    >>> format_nelo(pentanomial([1, 2, 4, 2, 1]))
    '+0.0 ± 152.3'
    """
    margin = "inf" if math.isinf(est.nelo_margin) else f"{est.nelo_margin:.1f}"
    return f"{round(est.nelo, 1) + 0.0:+.1f} ± {margin}"


def trinomial(wins: int, draws: int, losses: int, *, z: float = Z95) -> Estimate:
    """Per-game estimate from wins, draws and losses."""
    return estimate([losses, draws, wins], _GAME_SCORES, z=z)


def pentanomial(counts: Sequence[int], *, z: float = Z95) -> Estimate:
    """Per-pair estimate: ``counts[i]`` pairs in which the first player scored ``i``
    half-points of the pair's two points (0, 1/2, 1, 3/2 or 2 points)."""
    if len(counts) != 5:
        raise ValueError("a pentanomial has five counts (pair scores 0, 1/2, 1, 3/2, 2)")
    return estimate(counts, PAIR_SCORES, z=z)


def _secular_root(probs: Sequence[float], shifts: Sequence[float]) -> float:
    """The ``x`` with ``sum p_i c_i / (1 + x c_i) = 0`` and every ``1 + x c_i > 0``.

    The left side falls strictly with ``x`` between the poles ``-1 / max c`` and
    ``-1 / min c``, so Newton steps kept inside a shrinking bracket converge."""
    if not (min(shifts) < 0.0 < max(shifts)):
        raise ValueError("the hypothesis lies outside what the outcomes can score")
    low, high = -1.0 / max(shifts), -1.0 / min(shifts)
    x = 0.0
    for _ in range(200):
        value = slope = 0.0
        for p, c in zip(probs, shifts, strict=True):
            term = c / (1.0 + x * c)
            value += p * term
            slope -= p * term * term
        if value > 0.0:
            low = x
        else:
            high = x
        if abs(value) < 1e-15 or high - low < 1e-15 * max(1.0, abs(x)):
            break
        step = x - value / slope
        x = step if low < step < high else (low + high) / 2.0
    return x


def _mle_with_mean(probs: Sequence[float], values: Sequence[float], s: float) -> list[float]:
    """The distribution on ``values`` with mean ``s`` that makes ``probs`` most likely."""
    shifts = [a - s for a in values]
    x = _secular_root(probs, shifts)
    return [p / (1.0 + x * c) for p, c in zip(probs, shifts, strict=True)]


def _mle_with_t(
    probs: Sequence[float], values: Sequence[float], ref: float, t: float
) -> list[float]:
    """The distribution on ``values`` with ``(mean - ref) / sigma = t`` that makes
    ``probs`` most likely.  The constraint is linearised around the current guess
    (its gradient is ``a - t (a - mean)^2 / (2 sigma)`` up to a constant), the
    linear problem solved exactly, and the guess updated until it stands still."""
    guess = [1.0 / len(values)] * len(values)  # (starting at ``probs`` can leave no root)
    for _ in range(100):
        _, mean, var = _moments(guess, values)
        sigma = math.sqrt(var)
        shifts = [a - ref - t * (sigma * sigma + (a - mean) ** 2) / (2.0 * sigma) for a in values]
        x = _secular_root(probs, shifts)
        new = [p / (1.0 + x * c) for p, c in zip(probs, shifts, strict=True)]
        moved = max(abs(a - b) for a, b in zip(new, guess, strict=True))
        guess = new
        if moved < 1e-11:
            break
    return guess


def _llr(counts: Sequence[int], h0: Sequence[float], h1: Sequence[float]) -> float:
    n, probs = _distribution(counts)
    return n * sum(p * math.log(q1 / q0) for p, q0, q1 in zip(probs, h0, h1, strict=True))


def _values_of(counts: Sequence[int]) -> tuple[float, ...]:
    if len(counts) == 3:
        return _GAME_SCORES
    if len(counts) == 5:
        return PAIR_SCORES
    raise ValueError("counts are a trinomial [L, D, W] or a pentanomial [LL, LD, DD+WL, WD, WW]")


def llr_logistic(elo0: float, elo1: float, counts: Sequence[int]) -> float:
    """The GSPRT log-likelihood ratio of ``elo1`` against ``elo0`` (logistic Elo) for
    trinomial counts ``[L, D, W]`` or pentanomial ``[LL, LD, DD+WL, WD, WW]``.

    >>> round(llr_logistic(0, 5, [38, 194, 372, 207, 44]), 3)
    0.429
    """
    if sum(counts) == 0:
        return 0.0
    values = _values_of(counts)
    _, probs = _distribution(counts)
    h0, h1 = (_mle_with_mean(probs, values, score_from_elo(e)) for e in (elo0, elo1))
    return _llr(counts, h0, h1)


def llr_normalized(nelo0: float, nelo1: float, counts: Sequence[int]) -> float:
    """The GSPRT log-likelihood ratio of ``nelo1`` against ``nelo0`` (normalized Elo)."""
    if sum(counts) == 0:
        return 0.0
    values = _values_of(counts)
    _, probs = _distribution(counts)
    per_unit = math.sqrt(_games_per_unit(values))  # a pair's t-value is sqrt(2) a game's
    h0, h1 = (
        _mle_with_t(probs, values, 0.5, nelo / NELO_PER_T * per_unit) for nelo in (nelo0, nelo1)
    )
    return _llr(counts, h0, h1)


@dataclass(frozen=True, slots=True)
class SprtState:
    llr: float
    lower: float
    upper: float
    #: ``"H0"`` (elo0 accepted: stop), ``"H1"`` (elo1 accepted: stop) or ``""`` (go on)
    decision: str


SPRT_MODELS = ("logistic", "normalized")


@dataclass(frozen=True, slots=True)
class Sprt:
    """A sequential probability ratio test of ``elo0`` against ``elo1``: logistic Elo
    (``model="logistic"``) or normalized Elo (``model="normalized"``).

    The log-likelihood ratio is fishtest's GSPRT (:func:`llr_logistic`,
    :func:`llr_normalized`) on the estimate's counts: pentanomial on pairs,
    trinomial on single games.  The test stops below ``log(beta / (1 - alpha))``
    (H0) or above ``log((1 - beta) / alpha)`` (H1).
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "logistic"

    def __post_init__(self) -> None:
        if not (0.0 < self.alpha < 1.0 and 0.0 < self.beta < 1.0):
            raise ValueError("SPRT alpha and beta must be between 0 and 1")
        if self.elo0 >= self.elo1:
            raise ValueError("SPRT elo0 must be below elo1")
        if self.model not in SPRT_MODELS:
            raise ValueError("SPRT model must be logistic or normalized")

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1.0 - self.beta) / self.alpha)

    def llr(self, est: Estimate | Sequence[int]) -> float:
        """From an estimate of :func:`trinomial` or :func:`pentanomial`, or their counts
        (``[L, D, W]`` or ``[LL, LD, DD+WL, WD, WW]``)."""
        counts = est.counts if isinstance(est, Estimate) else est
        if self.model == "normalized":
            return llr_normalized(self.elo0, self.elo1, counts)
        return llr_logistic(self.elo0, self.elo1, counts)

    def state(self, est: Estimate | Sequence[int]) -> SprtState:
        llr = self.llr(est)
        decision = "H1" if llr >= self.upper else "H0" if llr <= self.lower else ""
        return SprtState(llr, self.lower, self.upper, decision)
