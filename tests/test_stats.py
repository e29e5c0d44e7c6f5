"""lanqi.stats: Elo intervals, LOS and SPRT against known values and simulations."""

from __future__ import annotations

import math
import random

import pytest

from lanqi.stats import (
    Sprt,
    elo_from_score,
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
    with pytest.raises(ValueError):
        Sprt(elo0=5, elo1=0)


def _run_sprt(true_elo: float, sprt: Sprt, rng: random.Random) -> str:
    p_win = score_from_elo(true_elo) - 0.15
    p_draw = 0.3
    wins = draws = losses = 0
    for _ in range(20000):
        r = rng.random()
        if r < p_win:
            wins += 1
        elif r < p_win + p_draw:
            draws += 1
        else:
            losses += 1
        state = sprt.state(trinomial(wins, draws, losses))
        if state.decision:
            return state.decision
    return ""


def test_sprt_error_rates_hold_in_simulation() -> None:
    """With the truth at elo0 the test should accept H0, at elo1 H1.  Checked after
    every game, the normal approximation overshoots the nominal 5% a little (9% and
    3% here); twice alpha is the bound it must keep.  Seeded, so it cannot flake."""
    sprt = Sprt(elo0=0, elo1=50, alpha=0.05, beta=0.05)
    rng = random.Random(2026)
    runs = 200
    at_h0 = [_run_sprt(0, sprt, rng) for _ in range(runs)]
    at_h1 = [_run_sprt(50, sprt, rng) for _ in range(runs)]
    assert "" not in at_h0 and "" not in at_h1
    assert at_h0.count("H1") / runs <= 2 * sprt.alpha
    assert at_h1.count("H0") / runs <= 2 * sprt.beta
