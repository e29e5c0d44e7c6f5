"""The data model refuses nonsense."""

from __future__ import annotations

import pytest

from lanqi.tournament import Pairing, Player, Result, TournamentError, seeded_order, unfinished


def test_players() -> None:
    with pytest.raises(TournamentError):
        Player("", "Nobody")
    with pytest.raises(TournamentError):
        Player("a", "A", seed=-1)
    with pytest.raises(TournamentError):
        Player("a", "A", rating=float("nan"))
    order = seeded_order(
        [Player("u", "U", 2000), Player("s2", "S", 1000, 2), Player("s1", "S", 900, 1)]
    )
    assert [p.id for p in order] == ["s1", "s2", "u"]


def test_pairings() -> None:
    with pytest.raises(TournamentError):
        Pairing(1, 1, None, "a")
    with pytest.raises(TournamentError):
        Pairing(1, 1, "a", "a")
    with pytest.raises(TournamentError):
        Pairing(0, 1, "a", "b")
    p = Pairing(2, 3, "a", "b", game_no=1)
    assert p.key == (2, 3, 1) and p.players() == ("a", "b") and not p.is_bye


@pytest.mark.parametrize(
    "args",
    [
        (1, 1, "a", "b", 0.7),  # not a score
        (1, 1, "a", "b", 1.0, "won"),  # not a kind
        (1, 1, "a", None, 1.0),  # a game without an opponent
        (1, 1, "a", "b", 1.0, "bye"),  # a bye with an opponent
        (1, 1, "a", "b", 1.0, "double_forfeit"),
        (1, 1, "a", "b", 0.5, "forfeit"),
        (1, 1, "a", "a", 1.0),
    ],
)
def test_bad_results(args: tuple) -> None:  # type: ignore[type-arg]
    with pytest.raises(TournamentError):
        Result(*args)


def test_result_helpers() -> None:
    p = Pairing(1, 1, "a", "b")
    r = Result.forfeit(p, absent="b")
    assert (r.kind, r.score_first, r.score_of("b"), r.opponent_of("b")) == (
        "forfeit",
        1.0,
        0.0,
        "a",
    )
    assert not r.is_game
    assert Result(1, 1, "a", "b", 0.0, "double_forfeit").score_second == 0.0
    bye = Result.bye(Pairing(1, 2, "c", None), 0.5)
    assert (bye.score_of("c"), bye.opponent_of("c"), bye.players()) == (0.5, None, ("c",))
    with pytest.raises(TournamentError):
        Result.bye(p)
    with pytest.raises(TournamentError):
        Result.forfeit(p, absent="z")
    with pytest.raises(TournamentError):
        r.score_of("z")
    assert unfinished([p, Pairing(1, 2, "c", None)], [r]) == [Pairing(1, 2, "c", None)]
