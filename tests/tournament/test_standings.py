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
