"""Standings and tie-breaks, checked by hand on small written-out events."""

from __future__ import annotations

import pytest

from lanqi.tournament import Player, Result, TournamentError, crosstable, standings

ABCD = [Player(p, p.upper(), 2000.0 - 100 * i) for i, p in enumerate("abcd")]

# A four-player round robin, written out:
#
#        a    b    c    d    pts   Sonneborn-Berger           Buchholz
#   a    x    0    1    1    2     1.5 (d) + 1 (c)    = 2.5   1.5+1+1.5 = 4
#   b    1    x    ½    0    1.5   2 (a) + ½·1 (c)    = 2.5   2+1+1.5   = 4.5
#   c    0    ½    x    ½    1     ½·1.5 + ½·1.5      = 1.5   2+1.5+1.5 = 5
#   d    0    1    ½    x    1.5   1.5 (b) + ½·1 (c)  = 2.0   2+1.5+1   = 4.5
RR = [
    Result(1, 1, "a", "d", 1.0),
    Result(1, 2, "b", "c", 0.5),
    Result(2, 1, "d", "c", 0.5),
    Result(2, 2, "a", "b", 0.0),
    Result(3, 1, "b", "d", 0.0),
    Result(3, 2, "c", "a", 0.0),
]


def table(rows: list) -> list[tuple]:  # type: ignore[type-arg]
    return [(r.rank, r.player.id, r.points, *r.tiebreaks.values()) for r in rows]


def test_round_robin_sonneborn_berger_and_buchholz() -> None:
    rows = standings(ABCD, RR, ("sonneborn_berger", "buchholz"), unplayed="as_played")
    assert table(rows) == [
        (1, "a", 2.0, 2.5, 4.0),
        (2, "b", 1.5, 2.5, 4.5),  # b and d level on points: SB splits them
        (3, "d", 1.5, 2.0, 4.5),
        (4, "c", 1.0, 1.5, 5.0),
    ]
    b = rows[1]
    assert (b.games, b.wins, b.draws, b.losses, b.byes) == (3, 1, 1, 1, 0)


def test_tiebreak_order_matters_and_head_to_head() -> None:
    rows = standings(ABCD, RR, ("buchholz", "head_to_head"), unplayed="as_played")
    # Buchholz ties b and d (4.5); d beat b.
    assert [(r.rank, r.player.id) for r in rows] == [(1, "a"), (2, "d"), (3, "b"), (4, "c")]
    assert rows[1].tiebreaks == {"buchholz": 4.5, "head_to_head": 1.0}


def test_full_ties_share_a_rank() -> None:
    rows = standings(ABCD, RR, ("buchholz",), unplayed="as_played")
    assert [(r.rank, r.player.id) for r in rows] == [(1, "a"), (2, "b"), (2, "d"), (4, "c")]


def test_head_to_head_needs_everyone_to_have_met() -> None:
    results = [Result(1, 1, "a", "b", 1.0), Result(1, 2, "c", "d", 1.0)]
    rows = standings(ABCD, results, ("head_to_head",))
    assert {r.player.id: r.tiebreaks["head_to_head"] for r in rows} == dict.fromkeys("abcd", 0.0)
    assert [r.rank for r in rows] == [1, 1, 3, 3]


# A five-player Swiss, two rounds, byes in both (the FIDE virtual opponent rule):
#
#   round 1: a-b 1-0, c-d ½-½, e bye (1)      round 2: e-a 0-1, b-c 1-0, d bye (1)
#   points:  a 2, b 1, c ½, d 1½, e 1
#   seen by opponents (unplayed rounds as draws): a 2, b 1, c ½, d 1, e ½
#   virtual opponents: e in round 1: 0 + (1 - 1) + ½·(2 - 1) = ½
#                      d in round 2: ½ + (1 - 1) + ½·(2 - 2) = ½
#   Buchholz: a 1 + ½ = 1½   b 2 + ½ = 2½   c 1 + 1 = 2   d ½ + ½ = 1   e ½ + 2 = 2½
#   SB:       a 1 + ½ = 1½   b ½            c ½·1 = ½     d ½·½ + ½ = ¾ e ½
SWISS = [
    Result(1, 1, "a", "b", 1.0),
    Result(1, 2, "c", "d", 0.5),
    Result(1, 3, "e", None, 1.0, "bye"),
    Result(2, 1, "e", "a", 0.0),
    Result(2, 2, "b", "c", 1.0),
    Result(2, 3, "d", None, 1.0, "bye"),
]
ABCDE = [Player(p, p.upper(), 2000.0 - 100 * i) for i, p in enumerate("abcde")]


def test_swiss_with_byes_uses_virtual_opponents() -> None:
    rows = standings(ABCDE, SWISS, ("buchholz", "sonneborn_berger"))
    by_id = {
        r.player.id: (r.points, r.tiebreaks["buchholz"], r.tiebreaks["sonneborn_berger"])
        for r in rows
    }
    assert by_id == {
        "a": (2.0, 1.5, 1.5),
        "b": (1.0, 2.5, 0.5),
        "c": (0.5, 2.0, 0.5),
        "d": (1.5, 1.0, 0.75),
        "e": (1.0, 2.5, 0.5),
    }
    d = next(r for r in rows if r.player.id == "d")
    assert (d.games, d.byes, d.draws) == (1, 1, 1)


def test_fide_virtual_opponent_example() -> None:
    # FIDE's example: a nine-round event, P has 1.5 after two rounds and does not show
    # up in round 3: the virtual opponent ends with 1.5 + 1 + 0.5 * 6 = 5.5.
    players = [Player("p", "P"), Player("x", "X"), Player("y", "Y"), Player("z", "Z")]
    results = [
        Result(1, 1, "p", "x", 1.0),
        Result(2, 1, "y", "p", 0.5),
        Result(3, 1, "p", "z", 0.0, "forfeit"),
    ]
    p = standings(players, results, ("buchholz",), rounds=3)
    assert dict((r.player.id, r.tiebreaks["buchholz"]) for r in p)["p"] == pytest.approx(
        # x: 0 played + ½·2 unplayed rounds = 1; y: ½ + ½·2 = 1.5; virtual: 1.5 + 1 + 0
        1.0 + 1.5 + 2.5
    )
    nine = standings(players, results, ("buchholz",), rounds=9)
    rounds_4_to_9 = sum(1.5 + 1.0 + 0.5 * (9 - r) for r in range(4, 10))  # absent later
    expected = (0 + 0.5 * 8) + (0.5 + 0.5 * 8) + 5.5 + rounds_4_to_9
    assert dict((r.player.id, r.tiebreaks["buchholz"]) for r in nine)["p"] == expected


def test_forfeits_count_as_wins_and_double_forfeits_as_losses() -> None:
    results = [
        Result(1, 1, "a", "b", 1.0, "forfeit"),
        Result(1, 2, "c", "d", 0.0, "double_forfeit"),
    ]
    rows = {r.player.id: r for r in standings(ABCD, results, ("wins",))}
    assert (rows["a"].points, rows["a"].wins) == (1.0, 1)
    assert (rows["c"].points, rows["c"].losses, rows["d"].losses) == (0.0, 1, 1)


def test_cumulative_and_buchholz_cut1() -> None:
    rows = standings(ABCD, RR, ("cumulative", "buchholz_cut1"), unplayed="as_played")
    values = {r.player.id: r.tiebreaks for r in rows}
    assert values["a"] == {"cumulative": 1 + 1 + 2, "buchholz_cut1": 4.0 - 1.0}
    assert values["b"] == {"cumulative": 0.5 + 1.5 + 1.5, "buchholz_cut1": 4.5 - 1.0}


def test_bad_input() -> None:
    with pytest.raises(TournamentError, match="unknown tie-break"):
        standings(ABCD, RR, ("median",))
    with pytest.raises(TournamentError, match="unknown player"):
        standings(ABCD, [Result(1, 1, "a", "zz", 1.0)])
    with pytest.raises(TournamentError):
        standings(ABCD, RR, ("wins", "wins"))


def test_crosstable_matrix_and_rounds() -> None:
    ct = crosstable(ABCD, RR, ("sonneborn_berger",), unplayed="as_played")
    assert [r.player.id for r in ct.rows] == ["a", "b", "d", "c"]
    assert ct.is_round_robin
    assert ct.cell("b", "a") == (1.0,)
    assert ct.cell("a", "b") == (0.0,)
    assert ct.numbers == {"a": 1, "b": 2, "d": 3, "c": 4}
    swiss = crosstable(ABCDE, SWISS)
    assert not swiss.is_round_robin
    d = swiss.entries["d"]
    assert [(e.round, e.opponent, e.seat, e.code) for e in d] == [
        (1, "c", "second", "="),
        (2, None, None, "F"),
    ]


# Five players, a, b and c level on 2 points: a and b with two wins each, c with one win
# and two draws.  Among a, b and c every one beat one other (a cycle), but a beat b.
#
#        a    b    c    d    e    pts  wins
#   a    x    1    0    1    0    2    2
#   b    0    x    1    0    1    2    2
#   c    1    0    x    ½    ½    2    1
#   d    0    1    ½    x    1    2.5  2
#   e    1    0    ½    0    x    1.5  1
CYCLE = [
    Result(1, 1, "a", "b", 1.0),
    Result(1, 2, "c", "d", 0.5),
    Result(2, 1, "b", "c", 1.0),
    Result(2, 2, "d", "e", 1.0),
    Result(3, 1, "c", "a", 1.0),
    Result(3, 2, "e", "c", 0.5),
    Result(4, 1, "a", "d", 1.0),
    Result(4, 2, "b", "e", 1.0),
    Result(5, 1, "e", "a", 1.0),
    Result(5, 2, "d", "b", 1.0),
]
ABCDE = [Player(p, p.upper(), 2000.0 - 100 * i) for i, p in enumerate("abcde")]


def test_wins_counts_won_games_only_not_draws() -> None:
    rows = {r.player.id: r for r in standings(ABCDE, CYCLE, ("wins",), unplayed="as_played")}
    assert {pid: row.tiebreaks["wins"] for pid, row in rows.items()} == {
        "a": 2,
        "b": 2,
        "c": 1,
        "d": 2,
        "e": 1,
    }
    assert (rows["c"].wins, rows["c"].draws) == (1, 2)
    # level on points, c is behind a and b on wins
    assert rows["c"].rank > max(rows["a"].rank, rows["b"].rank)


def test_each_tiebreak_splits_the_group_left_level_by_the_previous_ones() -> None:
    # By points alone a, b and c form a group in which each beat one other: head to
    # head among the three is 1 each and separates nobody.  But wins first leave only
    # a and b level, and between those two a beat b.
    rows = standings(ABCDE, CYCLE, ("wins", "head_to_head"), unplayed="as_played")
    assert [(r.rank, r.player.id, r.points) for r in rows] == [
        (1, "d", 2.5),
        (2, "a", 2.0),
        (3, "b", 2.0),
        (4, "c", 2.0),
        (5, "e", 1.5),
    ]
    by_id = {r.player.id: r.tiebreaks["head_to_head"] for r in rows}
    assert (by_id["a"], by_id["b"], by_id["c"]) == (1.0, 0.0, 0.0)


def test_fide_2023_dummy_opponent_for_unplayed_rounds() -> None:
    # C.07 (2023) art. 16, worked by hand. Points: a 2, b ½, c 2½, d 2.
    # Opponents see a player's real score, except voluntarily unplayed rounds after
    # their last round present (b: a requested bye, then a forfeit lost) as draws:
    # b 0 + ½ + ½ = 1; a, c, d their real scores (c's round 3 is the allocated bye).
    # A player's own unplayed round is a game against a dummy opponent with the
    # player's own final score, at most a draw per round (1½ here), and for a forfeit
    # at most the scheduled opponent's score as opponents see it.
    from lanqi.tournament.model import Pairing

    ps = [Player(p, p.upper()) for p in "abcd"]
    results = [
        Result(1, 1, "a", "b", 1.0),
        Result(1, 2, "c", "d", 1.0),
        Result(2, 1, "a", "c", 0.5),
        Result.bye(Pairing(2, 2, "b", None), 0.5, left_out=True),  # asked for
        Result.bye(Pairing(2, 3, "d", None), 1.0),  # the pairing-allocated bye
        Result.bye(Pairing(3, 1, "a", None), 0.5, left_out=True),
        Result.forfeit(Pairing(3, 2, "d", "b"), absent="b"),
        Result.bye(Pairing(3, 3, "c", None), 1.0),
    ]
    rows = {
        r.player.id: r
        for r in standings(
            ps, results, ("buchholz", "buchholz_cut1", "sonneborn_berger"), unplayed="fide2023"
        )
    }
    # a: b (1) + c (2½) + the dummy of round 3 (a's own 2, capped at 1½) = 5; the
    # cut takes the voluntarily unplayed round 3 first (not b's lower 1): 3½;
    # SB 1·1 + ½·2½ + ½·1½ = 3
    assert rows["a"].tiebreaks == {
        "buchholz": 5.0,
        "buchholz_cut1": 3.5,
        "sonneborn_berger": 3.0,
    }
    # d: c (2½), the allocated bye's dummy (1½), the forfeit won against b (capped
    # at b's 1): 5; SB 0·2½ + 1·1½ + 1·1 = 2½
    assert rows["d"].tiebreaks["buchholz"] == 5.0
    assert rows["d"].tiebreaks["sonneborn_berger"] == 2.5
    # the 2009 rule on the same history: a's round 3 is a virtual opponent with
    # a's 1½ before it, ½ for the half-point bye, 0 rounds after: 2; b and c as seen
    # by a count every unplayed round a draw (b 0 + ½ + ½, c 1½ + ½): 5
    old = {r.player.id: r for r in standings(ps, results, ("buchholz",))}
    assert old["a"].tiebreaks["buchholz"] == 5.0


def test_direct_encounter_alone_at_the_top() -> None:
    # a, b and c tie on 2 points; a beat both, b and c never met. Not all met, but
    # no missing game could lift b or c (0 + one win = 1) to a's 2 between them:
    # a is alone at the top, ranked first by DE; b and c stay tied.
    ps = [Player(p, p.upper()) for p in "abcde"]
    results = [
        Result(1, 1, "a", "b", 1.0),
        Result(1, 2, "c", "e", 1.0),
        Result(2, 1, "a", "c", 1.0),
        Result(2, 2, "b", "d", 1.0),
        Result(3, 1, "d", "a", 1.0),
        Result(3, 2, "b", "e", 1.0),
        Result(4, 1, "c", "d", 1.0),
    ]
    rows = standings(ps, results, ("DE",))
    ranks = {r.player.id: r.rank for r in rows}
    assert [r.points for r in rows[:3]] == [2.0, 2.0, 2.0]
    assert (ranks["a"], ranks["b"], ranks["c"]) == (1, 2, 2)  # on main: all three 1
    assert {r.player.id: r.tiebreaks["head_to_head"] for r in rows[:3]} == {
        "a": 2.0,
        "b": 0.0,
        "c": 0.0,
    }


def test_a_swiss_takes_the_2023_unplayed_rule_as_an_option() -> None:
    from lanqi.tournament.model import Pairing
    from lanqi.tournament.schedule import OptionError, make_schedule

    ps = [Player(p, p.upper()) for p in "abcde"]
    results = [
        Result(1, 1, "a", "b", 1.0),
        Result(1, 2, "c", "d", 1.0),
        Result.bye(Pairing(1, 3, "e", None), 1.0),  # the pairing-allocated bye
        Result(2, 1, "a", "e", 1.0),
        Result(2, 2, "b", "c", 0.5),
        Result.bye(Pairing(2, 3, "d", None), 1.0),
    ]
    fide2023 = make_schedule("swiss", ps, {"rounds": 3, "unplayed": "fide2023"})
    fide2009 = make_schedule("swiss", ps, {"rounds": 3})
    # a met b (½) and e (1: the bye and a loss); the 2023 rule counts e's bye with
    # its point, the 2009 rule as a draw (e ½)
    by2023 = {r.player.id: r.tiebreaks for r in fide2023.standings(results)}
    by2009 = {r.player.id: r.tiebreaks for r in fide2009.standings(results)}
    assert by2023["a"]["buchholz"] == 1.5
    assert by2009["a"]["buchholz"] == 1.0
    with pytest.raises(OptionError, match="unplayed must be fide2009 or fide2023"):
        make_schedule("swiss", ps, {"rounds": 3, "unplayed": "fide2024"})
