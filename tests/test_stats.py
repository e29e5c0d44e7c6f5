"""lanqi.stats: Elo intervals, LOS and SPRT against known values and simulations."""

from __future__ import annotations

import math
import random
from collections.abc import Callable

import pytest

from lanqi.stats import (
    NELO_PER_T,
    PAIR_SCORES,
    Z95,
    Sprt,
    _mle_with_t,
    elo_from_score,
    format_nelo,
    llr_logistic,
    llr_normalized,
    los,
    pentanomial,
    score_from_elo,
    trinomial,
)


def test_elo_and_score_are_inverse_and_match_known_values() -> None:
    # the logistic table everyone uses: 75% is +190.85, 64% is +100, 91% is +400
    assert elo_from_score(0.75) == pytest.approx(190.85, abs=0.01)
    assert score_from_elo(100) == pytest.approx(0.6401, abs=1e-4)
    assert score_from_elo(400) == pytest.approx(10 / 11)
    for elo in (-500.0, -35.5, 0.0, 12.0, 800.0):
        assert elo_from_score(score_from_elo(elo)) == pytest.approx(elo)


def test_los_known_values() -> None:
    # LOS = Phi((W - L) / sqrt(W + L)): 10-5 is Phi(1.291) = 0.9016
    assert los(10, 5) == pytest.approx(0.90164, abs=1e-4)
    assert los(5, 10) == pytest.approx(1 - 0.90164, abs=1e-4)
    assert los(7, 7) == 0.5


def test_interval_agrees_with_the_normal_approximation_for_big_matches() -> None:
    # 6000-3000-1000: mean 0.75, sd 0.3354/game; normal 95% bounds 0.7434 .. 0.7566
    est = trinomial(6000, 3000, 1000)
    assert est.elo == pytest.approx(190.85, abs=0.01)
    assert est.low == pytest.approx(elo_from_score(0.75 - 1.96 * math.sqrt(0.1125 / 10000)), abs=1)
    assert est.high == pytest.approx(elo_from_score(0.75 + 1.96 * math.sqrt(0.1125 / 10000)), abs=1)


@pytest.mark.parametrize("games", [1, 2, 10, 50])
def test_sweeps_keep_an_interval(games: int) -> None:
    win = trinomial(games, 0, 0)
    assert win.elo == math.inf and win.high == math.inf
    assert win.low < math.inf
    loss = trinomial(0, 0, games)
    assert loss.low == -math.inf and loss.high > -math.inf
    assert loss.high == pytest.approx(-win.low)
    pairs = pentanomial([0, 0, 0, 0, games])
    assert pairs.high == math.inf and pairs.low < math.inf


def test_sweep_bounds_grow_with_the_evidence() -> None:
    lows = [trinomial(n, 0, 0).low for n in (1, 2, 5, 10, 20, 50, 100)]
    assert lows == sorted(lows) and len(set(lows)) == len(lows)
    # ten straight wins do not prove +2400: the lower bound stays modest
    assert 100 < trinomial(10, 0, 0).low < 400


def test_all_draws_do_not_collapse_to_zero_width() -> None:
    est = trinomial(0, 20, 0)
    assert est.elo == 0 and est.low < -10 and est.high > 10
    assert pentanomial([0, 0, 10, 0, 0]).margin > 0


def test_pentanomial_is_narrower_when_pairs_cancel_the_opening() -> None:
    # every pair 1-1 (each side wins with the good colour): trinomial sees 50/50 chaos
    per_game = trinomial(20, 0, 20)
    per_pair = pentanomial([0, 0, 20, 0, 0])
    assert per_game.score == per_pair.score == 0.5
    assert per_pair.margin < per_game.margin


def test_empty_match() -> None:
    est = trinomial(0, 0, 0)
    assert est.units == 0 and est.low == -math.inf and est.high == math.inf


def test_sprt_bounds_and_sign() -> None:
    sprt = Sprt(elo0=0, elo1=10, alpha=0.05, beta=0.05)
    assert sprt.lower == pytest.approx(math.log(0.05 / 0.95))
    assert sprt.upper == pytest.approx(math.log(0.95 / 0.05))
    assert sprt.state(trinomial(60, 20, 20)).llr > 0
    assert sprt.state(trinomial(20, 20, 60)).llr < 0
    assert sprt.state(trinomial(1000, 0, 0)).decision == "H1"
    assert sprt.state(trinomial(0, 0, 1000)).decision == "H0"
    assert sprt.state(pentanomial([0, 0, 0, 0, 0])).llr == 0.0
    with pytest.raises(ValueError):
        Sprt(elo0=5, elo1=0)
    with pytest.raises(ValueError):
        Sprt(elo0=0, elo1=5, model="bayeselo")


# ---------------------------------------------------------------- fishtest's GSPRT
#
# fishtest's log-likelihood ratio for "mean score s1" against "mean score s0" is
# N * sum_i p_i log(q1_i / q0_i): p the observed distribution (an empty category
# weighs 1e-3), q0/q1 the most likely distributions with mean s0/s1.  The checks
# below compute it without solving for q: by duality the constrained maximum is
# sum_i p_i log(p_i / q_i) = max over x of sum_i p_i log(1 + x (a_i - s)), a concave
# function of one variable, maximised here by golden-section search.

_GOLD = (math.sqrt(5.0) - 1.0) / 2.0


def _golden_max(f: Callable[[float], float], lo: float, hi: float) -> float:
    a, b = lo, hi
    for _ in range(200):
        c, d = b - _GOLD * (b - a), a + _GOLD * (b - a)
        if f(c) < f(d):
            a = c
        else:
            b = d
    return f((a + b) / 2.0)


def _fishtest_llr(counts: list[int], s0: float, s1: float) -> float:
    weights = [c if c else 1e-3 for c in counts]
    n = sum(weights)
    probs = [w / n for w in weights]
    values = [i / (len(counts) - 1) for i in range(len(counts))]

    def divergence(s: float) -> float:
        def dual(x: float) -> float:
            return sum(p * math.log(1.0 + x * (a - s)) for p, a in zip(probs, values, strict=True))

        eps = 1e-12
        return _golden_max(dual, -1.0 / (1.0 - s) + eps, 1.0 / s - eps)

    return n * (divergence(s0) - divergence(s1))


FISHTEST_PENTANOMIALS = [
    # fishtest's stat_util.py self-test (elo0=-3, elo1=1) and its
    # [39, 2226, 31451, 2412, 40] example (elo0=0.2, elo1=0.9), and small ones
    ([10789, 19328, 33806, 19402, 10543], -3.0, 1.0),
    ([39, 2226, 31451, 2412, 40], 0.2, 0.9),
    ([1187, 7410, 13475, 7378, 1164], -3.0, 1.0),
    ([38, 194, 372, 207, 44], 0.0, 5.0),
    ([0, 3, 10, 5, 0], 0.0, 10.0),
    ([0, 0, 0, 0, 12], 0.0, 10.0),
]


@pytest.mark.parametrize(("counts", "elo0", "elo1"), FISHTEST_PENTANOMIALS)
def test_pentanomial_llr_is_fishtests_gsprt(counts: list[int], elo0: float, elo1: float) -> None:
    expected = _fishtest_llr(counts, score_from_elo(elo0), score_from_elo(elo1))
    assert llr_logistic(elo0, elo1, counts) == pytest.approx(expected, rel=1e-7, abs=1e-9)
    state = Sprt(elo0=elo0, elo1=elo1).state(pentanomial(counts))
    assert state.llr == pytest.approx(expected, rel=1e-7, abs=1e-9)


def test_trinomial_llr_is_fishtests_gsprt() -> None:
    # fishtest's self-test W 65388, L 65804, D 56553 as [L, D, W]
    for counts, elo0, elo1 in (([65804, 56553, 65388], -3.0, 1.0), ([20, 20, 60], 0.0, 10.0)):
        expected = _fishtest_llr(counts, score_from_elo(elo0), score_from_elo(elo1))
        assert llr_logistic(elo0, elo1, counts) == pytest.approx(expected, rel=1e-7)
    wins, draws, losses = 60, 20, 20
    assert Sprt(elo0=0, elo1=10).llr(trinomial(wins, draws, losses)) == pytest.approx(
        _fishtest_llr([losses, draws, wins], 0.5, score_from_elo(10.0)), rel=1e-7
    )


def test_fishtests_paired_example_agrees_across_models() -> None:
    """fishtest's stat_util self-test runs [39, 2226, 31451, 2412, 40] once with the
    logistic bounds [0.2, 0.9] and once with the normalized bounds [0.764, 3.439]:
    the same test expressed in two models, so the two LLRs must agree (2.16, the
    value the dual computation above gives too)."""
    counts = [39, 2226, 31451, 2412, 40]
    assert llr_logistic(0.2, 0.9, counts) == pytest.approx(2.16, abs=0.005)
    assert llr_normalized(0.764, 3.439, counts) == pytest.approx(2.16, abs=0.005)
    big = [10789, 19328, 33806, 19402, 10543]
    assert llr_logistic(-3, 1, big) == pytest.approx(2.13, abs=0.005)


def _trinomial_llr_normalized(counts: list[int], nelo0: float, nelo1: float) -> float:
    """The normalized GSPRT on [L, D, W] by brute force: for each draw share d the
    win share w that gives the t-value is found by bisection, and the likelihood is
    maximised over d by golden-section search."""
    weights = [c if c else 1e-3 for c in counts]
    n = sum(weights)
    probs = [x / n for x in weights]

    def t_of(loss: float, draw: float, win: float) -> float:
        mean = win + draw / 2
        return (mean - 0.5) / math.sqrt(win + draw / 4 - mean * mean)

    def best(t: float) -> float:
        def loglik(draw: float) -> float:
            lo, hi = 1e-15, 1.0 - draw - 1e-15
            for _ in range(200):
                win = (lo + hi) / 2
                if t_of(1.0 - draw - win, draw, win) < t:
                    lo = win
                else:
                    hi = win
            win = (lo + hi) / 2
            q = (1.0 - draw - win, draw, win)
            return sum(p * math.log(x) for p, x in zip(probs, q, strict=True))

        return _golden_max(loglik, 1e-9, 1.0 - 1e-6)

    return n * (best(nelo1 / NELO_PER_T) - best(nelo0 / NELO_PER_T))


@pytest.mark.parametrize(
    ("counts", "nelo0", "nelo1"),
    [([65804, 56553, 65388], -3.0, 1.0), ([20, 20, 60], 0.0, 40.0), ([45, 10, 40], 0.0, 20.0)],
)
def test_normalized_llr_on_games_by_brute_force(
    counts: list[int], nelo0: float, nelo1: float
) -> None:
    expected = _trinomial_llr_normalized(counts, nelo0, nelo1)
    assert llr_normalized(nelo0, nelo1, counts) == pytest.approx(expected, rel=1e-6, abs=1e-8)


@pytest.mark.parametrize("counts", [c for c, _, _ in FISHTEST_PENTANOMIALS[:5]])
def test_normalized_llr_on_pairs_meets_its_optimality_conditions(counts: list[int]) -> None:
    """The most likely pentanomial with a given t-value q: its t-value is the target
    and p_i / q_i is a combination of the gradients of the two constraints
    (sum q = 1 and the t-value), as Lagrange says for a maximum."""
    weights = [c if c else 1e-3 for c in counts]
    probs = [w / sum(weights) for w in weights]
    for t in (0.0, 0.01, -0.02):
        q = _mle_with_t(probs, PAIR_SCORES, 0.5, t)
        mean = sum(x * a for x, a in zip(q, PAIR_SCORES, strict=True))
        var = sum(x * (a - mean) ** 2 for x, a in zip(q, PAIR_SCORES, strict=True))
        sigma = math.sqrt(var)
        assert sum(q) == pytest.approx(1.0, abs=1e-12)
        assert (mean - 0.5) / sigma == pytest.approx(t, abs=1e-9)
        grad = [(a - t * ((a - mean) ** 2 - mean * mean) / (2 * sigma)) for a in PAIR_SCORES]
        ratio = [p / x for p, x in zip(probs, q, strict=True)]
        # least squares fit ratio = lam + kappa * grad, then the residual must vanish
        gm, rm = sum(grad) / 5, sum(ratio) / 5
        kappa = sum((g - gm) * (r - rm) for g, r in zip(grad, ratio, strict=True)) / sum(
            (g - gm) ** 2 for g in grad
        )
        lam = rm - kappa * gm
        for g, r in zip(grad, ratio, strict=True):
            assert r == pytest.approx(lam + kappa * g, abs=1e-7)


def test_pentanomial_elo_interval_and_nelo_match_fishtests_formulas() -> None:
    """fishtest's get_elo and nElo on its big example: mean m, per-pair sd s over
    N pairs, Elo(m ± 1.96 s / sqrt N), nElo = 800/ln10 (m - 1/2) / (sqrt 2 s)."""
    counts = [10789, 19328, 33806, 19402, 10543]
    n = sum(counts)
    m = sum(c * a for c, a in zip(counts, PAIR_SCORES, strict=True)) / n
    sd = math.sqrt(sum(c * (a - m) ** 2 for c, a in zip(counts, PAIR_SCORES, strict=True)) / n)
    est = pentanomial(counts)
    assert est.elo == pytest.approx(elo_from_score(m))
    assert est.low == pytest.approx(elo_from_score(m - Z95 * sd / math.sqrt(n)), abs=0.02)
    assert est.high == pytest.approx(elo_from_score(m + Z95 * sd / math.sqrt(n)), abs=0.02)
    assert est.nelo == pytest.approx(800 / math.log(10) * (m - 0.5) / (math.sqrt(2) * sd))
    assert est.nelo_margin == pytest.approx(Z95 * 800 / math.log(10) / math.sqrt(2 * n))
    z = (m - 0.5) / (sd / math.sqrt(n))
    assert est.los == pytest.approx(0.5 * math.erfc(-z / math.sqrt(2)), abs=1e-3)
    # by hand: m = 0.498887, Elo -0.77 [-2.05, +0.50], nElo -0.95 ± 1.57
    assert round(est.elo, 2) == -0.77 and round(est.nelo, 2) == -0.95
    assert format_nelo(est) == "-1.0 ± 1.6"


def test_trinomial_nelo() -> None:
    # W 60 D 20 L 20: mean 0.7, sd sqrt(0.6 + 0.05 - 0.49) = 0.4 per game
    est = trinomial(60, 20, 20)
    assert est.nelo == pytest.approx(800 / math.log(10) * 0.2 / 0.4)
    assert est.nelo_margin == pytest.approx(Z95 * 800 / math.log(10) / 10)
    assert est.games == 100 and pentanomial([1, 2, 3, 2, 1]).games == 18


# ---------------------------------------------------------------- simulation


def _tilted(base: list[float], target: Callable[[list[float]], float], goal: float) -> list[float]:
    """``base`` tilted by exp(k * pair score) until ``target`` of it is ``goal``."""
    lo, hi = -50.0, 50.0
    for _ in range(200):
        k = (lo + hi) / 2
        q = [b * math.exp(k * a) for b, a in zip(base, PAIR_SCORES, strict=True)]
        q = [x / sum(q) for x in q]
        if target(q) < goal:
            lo = k
        else:
            hi = k
    return q


def _mean(q: list[float]) -> float:
    return sum(x * a for x, a in zip(q, PAIR_SCORES, strict=True))


def _nelo_of(q: list[float]) -> float:
    m = _mean(q)
    var = sum(x * (a - m) ** 2 for x, a in zip(q, PAIR_SCORES, strict=True))
    return NELO_PER_T * (m - 0.5) / math.sqrt(2 * var)


def _run_pairs(truth: list[float], sprt: Sprt, rng: random.Random) -> str:
    counts = [0] * 5
    cumulative = [sum(truth[: i + 1]) for i in range(5)]
    for _ in range(100_000):
        r = rng.random()
        counts[next((i for i, c in enumerate(cumulative) if r < c), 4)] += 1
        state = sprt.state(counts)
        if state.decision:
            return state.decision
    return ""


BASE = [0.05, 0.2, 0.5, 0.2, 0.05]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("model", "elo1", "runs"), [("logistic", 20, 1000), ("normalized", 20, 200)]
)
def test_sprt_error_rates_hold_in_simulation(model: str, elo1: float, runs: int) -> None:
    """Pairs drawn from a pentanomial whose true Elo (or nElo) is exactly elo0, then
    exactly elo1: the SPRT checked after every pair must accept the wrong
    hypothesis at most at the nominal rate plus three standard errors.  Seeded.
    (The normalized LLR costs 3x the logistic one, hence fewer runs.)"""
    sprt = Sprt(elo0=0, elo1=elo1, alpha=0.05, beta=0.05, model=model)
    target = _mean if model == "logistic" else _nelo_of
    goal = score_from_elo if model == "logistic" else float
    at_h0 = _tilted(BASE, target, goal(sprt.elo0))
    at_h1 = _tilted(BASE, target, goal(sprt.elo1))
    rng = random.Random(2026)
    h0_runs = [_run_pairs(at_h0, sprt, rng) for _ in range(runs)]
    h1_runs = [_run_pairs(at_h1, sprt, rng) for _ in range(runs)]
    assert "" not in h0_runs and "" not in h1_runs
    false_h1 = h0_runs.count("H1") / runs
    false_h0 = h1_runs.count("H0") / runs
    se = math.sqrt(0.05 * 0.95 / runs)
    print(f"{model}: false H1 {false_h1:.3f}, false H0 {false_h0:.3f} ({runs} runs each)")
    assert false_h1 <= sprt.alpha + 3 * se
    assert false_h0 <= sprt.beta + 3 * se
