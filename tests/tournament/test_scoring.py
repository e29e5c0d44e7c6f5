"""The tournament's scoring rules: result strings to points, what counts as a forfeit."""

from __future__ import annotations

import pytest

from lanqi.tournament import (
    Pairing,
    Result,
    TournamentError,
    points_of,
    score_game,
    score_unplayed,
)
from lanqi.tournament.scoring import FORFEIT_BEFORE_PLIES


@pytest.mark.parametrize(
    ("result", "points"),
    [("1-0", 1.0), ("0-1", 0.0), ("1/2-1/2", 0.5), ("*", None), ("", None), ("1-1", None)],
)
def test_points_of_a_result_string(result: str, points: float | None) -> None:
    assert points_of(result) == points


@pytest.mark.parametrize("termination", ["checkmate", "resignation", "timeout", "agreement"])
@pytest.mark.parametrize("plies", [0, 1, 2, 40])
def test_a_game_that_ended_over_the_board_was_played(termination: str, plies: int) -> None:
    score = score_game("0-1", termination, plies)
    assert (score.score_first, score.kind) == (0.0, "played")


def test_an_abandoned_game_after_both_moved_was_played() -> None:
    for plies in (FORFEIT_BEFORE_PLIES, FORFEIT_BEFORE_PLIES + 7):
        score = score_game("1-0", "abandoned", plies)
        assert (score.score_first, score.kind) == (1.0, "played")


@pytest.mark.parametrize("plies", range(FORFEIT_BEFORE_PLIES))
def test_an_abandoned_game_before_both_moved_is_a_forfeit(plies: int) -> None:
    assert score_game("1-0", "abandoned", plies) == score_game("1-0", "abandoned", 0)
    won = score_game("1-0", "abandoned", plies)
    lost = score_game("0-1", "abandoned", plies)
    assert (won.score_first, won.kind) == (1.0, "forfeit")
    assert (lost.score_first, lost.kind) == (0.0, "forfeit")
    nobody = score_game("*", "abandoned", plies)
    assert (nobody.score_first, nobody.kind) == (0.0, "double_forfeit")


def test_a_game_without_a_winner_string_has_no_score_when_played() -> None:
    score = score_game("*", "checkmate", 30)
    assert (score.score_first, score.kind) == (None, "played")


def test_every_score_makes_a_valid_tournament_result() -> None:
    pairing = Pairing(1, 1, "a", "b")
    for result in ("1-0", "0-1", "1/2-1/2", "*"):
        for termination in ("abandoned", "checkmate"):
            for plies in (0, 1, 2, 9):
                score = score_game(result, termination, plies)
                if score.score_first is not None:
                    Result.from_pairing(pairing, score.score_first, score.kind)


def test_withdrawn_players_forfeit_unplayed_games() -> None:
    first = score_unplayed(first_gone=True, second_gone=False)
    second = score_unplayed(first_gone=False, second_gone=True)
    both = score_unplayed(first_gone=True, second_gone=True)
    assert (first.result, first.score_first, first.kind) == ("0-1", 0.0, "forfeit")
    assert (second.result, second.score_first, second.kind) == ("1-0", 1.0, "forfeit")
    assert (both.result, both.score_first, both.kind) == ("0-0", 0.0, "double_forfeit")
    pairing = Pairing(1, 1, "a", "b")
    assert Result.from_pairing(pairing, first.score_first, first.kind) == Result.forfeit(
        pairing, absent="a"
    )
    with pytest.raises(TournamentError):
        score_unplayed(first_gone=False, second_gone=False)
