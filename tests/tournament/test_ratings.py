"""Elo and Glicko-2."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lanqi.tournament import (
    Glicko2,
    TournamentError,
    elo_game,
    expected,
    glicko2_game,
    glicko2_idle,
    glicko2_update,
    k_factor,
    update,
)

ratings = st.floats(100, 3500)
scores = st.sampled_from([0.0, 0.5, 1.0])


def test_glicko2_worked_example_from_the_paper() -> None:
    # Glickman, "Example of the Glicko-2 system": 1500/200/0.06 against 1400/30,
    # 1550/100 and 1700/300, winning the first and losing the others, tau = 0.5.
    player = Glicko2(1500, 200, 0.06)
    games = [(Glicko2(1400, 30), 1.0), (Glicko2(1550, 100), 0.0), (Glicko2(1700, 300), 0.0)]
    new = glicko2_update(player, games, tau=0.5)
    assert new.rating == pytest.approx(1464.06, abs=0.01)
    assert new.rd == pytest.approx(151.52, abs=0.01)
    assert new.volatility == pytest.approx(0.05999, abs=1e-5)


def test_glicko2_one_game_at_a_time_is_a_batch_of_one() -> None:
    a, b = Glicko2(1600, 80, 0.06), Glicko2(1500, 120, 0.06)
    new_a, new_b = glicko2_game(a, b, 0.5)
    assert new_a == glicko2_update(a, [(b, 0.5)])
    assert new_b == glicko2_update(b, [(a, 0.5)])
    assert new_a.rating < a.rating and new_b.rating > b.rating  # a draw with a weaker player
    assert new_a.rd < a.rd and new_b.rd < b.rd


def test_glicko2_idle_grows_the_deviation_up_to_a_cap() -> None:
    player = Glicko2(1700, 60, 0.06)
    assert glicko2_update(player, []) == glicko2_idle(player)
    assert glicko2_idle(player).rd > 60
    assert glicko2_idle(player, periods=100_000).rd == 350.0
    assert glicko2_idle(player).rating == 1700


@given(ratings, scores)
def test_glicko2_equal_players_move_symmetrically(r: float, score: float) -> None:
    a = b = Glicko2(r, 200, 0.06)
    new_a, new_b = glicko2_game(a, b, score)
    assert new_a.rating - r == pytest.approx(r - new_b.rating)
    assert new_a.rd == pytest.approx(new_b.rd)


def test_glicko2_rejects_bad_values() -> None:
    with pytest.raises(TournamentError):
        Glicko2(1500, 0, 0.06)
    with pytest.raises(TournamentError):
        glicko2_update(Glicko2(), [(Glicko2(), 0.7)])
    with pytest.raises(TournamentError):
        glicko2_update(Glicko2(), [(Glicko2(), 1.0)], tau=0)


@given(ratings, ratings)
def test_elo_expectations_add_up_to_one(ra: float, rb: float) -> None:
    assert expected(ra, rb) + expected(rb, ra) == pytest.approx(1.0)
    if ra > rb:  # a rating a rounding error above the other may still expect 0.5 exactly
        assert expected(ra, rb) >= 0.5
    if ra - rb >= 0.01:
        assert expected(ra, rb) > 0.5


@given(ratings, ratings, scores, st.sampled_from([10.0, 20.0, 40.0]))
def test_elo_updates_are_symmetric(ra: float, rb: float, score: float, k: float) -> None:
    new_a, new_b = elo_game(ra, rb, score, k)
    assert new_a - ra == pytest.approx(rb - new_b)  # zero-sum with equal K
    assert new_a == update(ra, rb, score, k)
    assert (new_a > ra) == (score > expected(ra, rb))


def test_elo_known_values() -> None:
    assert expected(1500, 1500) == 0.5
    assert expected(1900, 1500) == pytest.approx(10 / 11)
    assert update(1500, 1500, 1.0, k=32) == 1516.0
    assert elo_game(2000, 1800, 0.0, 10, 40) == pytest.approx(
        (2000 - 7.5975, 1800 + 30.3899), abs=1e-3
    )


def test_k_factor_policy() -> None:
    assert k_factor(0, 1500) == 40
    assert k_factor(29, 2600) == 40
    assert k_factor(30, 2399) == 20
    assert k_factor(30, 2400) == 10
    assert k_factor(5, 1500, provisional_games=0) == 20


def test_elo_rejects_bad_scores_and_k() -> None:
    with pytest.raises(TournamentError):
        update(1500, 1500, 2.0, 20)
    with pytest.raises(TournamentError):
        update(1500, 1500, 1.0, 0)
