"""Knockout: seeded brackets, matches of several games, tie-breaks, sudden death."""

from __future__ import annotations

import random

import pytest

from lanqi.tournament import (
    Pairing,
    Player,
    Result,
    TournamentError,
    knockout_bracket,
    knockout_next,
    seeding_order,
)


def seeded(n: int) -> list[Player]:
    return [Player(f"s{i}", f"Seed {i}", 2500.0 - 10 * i, seed=i) for i in range(1, n + 1)]


def test_seeding_order() -> None:
    assert seeding_order(2) == [1, 2]
    assert seeding_order(4) == [1, 4, 2, 3]
    assert seeding_order(16)[:4] == [1, 16, 8, 9]
    with pytest.raises(TournamentError):
        seeding_order(6)


def test_bracket_of_eight() -> None:
    bracket = knockout_bracket(seeded(8))
    assert bracket.size == 8 and bracket.rounds == 3
    assert bracket.slots == ("s1", "s8", "s4", "s5", "s2", "s7", "s3", "s6")


def test_byes_go_to_the_top_seeds() -> None:
    bracket = knockout_bracket(seeded(5))
    assert bracket.slots == ("s1", None, "s4", "s5", "s2", None, "s3", None)
    state = knockout_next(bracket, [])
    assert [(p.board, p.first, p.second) for p in state.to_play] == [
        (1, "s1", None),
        (2, "s4", "s5"),
        (3, "s2", None),
        (4, "s3", None),
    ]
    assert state.advanced(1) == ["s1", "s2", "s3"]


def game(p: Pairing, first_scores: float) -> Result:
    return Result.from_pairing(p, first_scores)


def test_tied_match_goes_to_tiebreaks_then_sudden_death() -> None:
    bracket = knockout_bracket(seeded(2))
    results: list[Result] = []

    def next_game() -> Pairing:
        state = knockout_next(bracket, results, games_per_match=2, tiebreak_games=2)
        assert len(state.to_play) == 1
        return state.to_play[0]

    seats = []
    phases = []
    # Regular games 1-1, tie-break games ½-½ twice: sudden death until a win.
    for score in (1.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.0):
        p = next_game()
        seats.append((p.game_no, p.first))
        state = knockout_next(bracket, results, games_per_match=2, tiebreak_games=2)
        phases.append(state.matches[0].phase)
        results.append(game(p, score))
    assert seats == [
        (1, "s1"),
        (2, "s2"),
        (3, "s1"),
        (4, "s2"),
        (5, "s1"),
        (6, "s2"),
        (7, "s1"),
    ]
    assert phases == ["regular"] * 2 + ["tiebreak"] * 2 + ["sudden_death"] * 3
    state = knockout_next(bracket, results, games_per_match=2, tiebreak_games=2)
    assert state.champion == "s2"  # s1 lost game 7 with the first move
    assert state.to_play == ()
    assert state.matches[0].score == (3.0, 4.0)
    assert state.eliminated() == ["s1"]


def test_no_tiebreak_games_means_straight_to_sudden_death() -> None:
    bracket = knockout_bracket(seeded(2))
    results = [
        Result(1, 1, "s1", "s2", 0.5, game_no=1),
        Result(1, 1, "s2", "s1", 0.5, game_no=2),
    ]
    state = knockout_next(bracket, results, games_per_match=2, tiebreak_games=0)
    assert state.matches[0].phase == "sudden_death"
    assert state.to_play[0].game_no == 3


def test_a_match_stops_when_decided() -> None:
    bracket = knockout_bracket(seeded(2))
    results = [
        Result(1, 1, "s1", "s2", 1.0, game_no=1),
        Result(1, 1, "s2", "s1", 0.0, game_no=2),
        Result(1, 1, "s1", "s2", 1.0, game_no=3),
    ]
    state = knockout_next(bracket, results, games_per_match=4)
    assert state.champion == "s1"  # 3-0 with one game left cannot be caught
    assert len(state.matches[0].games) == 3


def test_tiebreak_segment_can_end_early() -> None:
    bracket = knockout_bracket(seeded(2))
    results = [
        Result(1, 1, "s1", "s2", 0.5, game_no=1),
        Result(1, 1, "s2", "s1", 0.5, game_no=2),
        Result(1, 1, "s1", "s2", 1.0, game_no=3),
        Result(1, 1, "s2", "s1", 0.0, game_no=4),
    ]
    state = knockout_next(bracket, results, games_per_match=2, tiebreak_games=4)
    assert state.to_play[0].game_no == 5  # 2-0 in a 4-game tie-break: not yet decided
    results.append(Result(1, 1, "s1", "s2", 1.0, game_no=5))
    assert knockout_next(bracket, results, tiebreak_games=4).champion == "s1"


def test_whole_bracket_with_random_results() -> None:
    rng = random.Random(5)
    for n in range(2, 18):
        bracket = knockout_bracket(seeded(n))
        results: list[Result] = []
        rounds_seen = []
        for _ in range(500):
            state = knockout_next(bracket, results)
            if state.champion is not None:
                break
            assert state.to_play
            rounds_seen.append(state.current_round)
            for p in state.to_play:
                if p.is_bye:
                    results.append(Result.bye(p))
                else:
                    results.append(Result.from_pairing(p, rng.choice([1.0, 0.5, 0.0])))
        else:
            pytest.fail("the bracket never finished")
        assert rounds_seen == sorted(rounds_seen)
        assert len(state.eliminated()) == n - 1
        assert state.champion not in state.eliminated()


def test_results_must_name_the_match_players() -> None:
    bracket = knockout_bracket(seeded(4))
    with pytest.raises(TournamentError, match="names"):
        knockout_next(bracket, [Result(1, 1, "s1", "s2", 1.0, game_no=1)])


def test_bad_match_lengths() -> None:
    bracket = knockout_bracket(seeded(4))
    with pytest.raises(TournamentError):
        knockout_next(bracket, [], games_per_match=0)
    with pytest.raises(TournamentError):
        knockout_next(bracket, [], tiebreak_games=-1)
