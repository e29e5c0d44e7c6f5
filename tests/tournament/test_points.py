"""Points systems (1/½/0, 2/1/0, 3/1/0) and the Chinese Xiangqi Association's tie-break
chains, on small events written out and computed by hand."""

from __future__ import annotations

import random

import pytest

from lanqi.tournament import (
    OptionError,
    Pairing,
    Player,
    Result,
    TournamentError,
    crosstable,
    crosstable_text,
    make_schedule,
    standings,
    standings_text,
    swiss_pairings,
)
from lanqi.tournament.report import EventFacts, html_report
from lanqi.tournament.scoring import points_system
from lanqi.tournament.standings import resolve_tiebreaks

ABCD = [Player(p, p.upper(), 2000.0 - 100 * i) for i, p in enumerate("abcd")]


def ranked(rows: list) -> list[tuple]:  # type: ignore[type-arg]
    return [(r.rank, r.player.id, r.points, *r.tiebreaks.values()) for r in rows]


# A four-player round robin in which everyone ends level on a 2/1/0 table; the first
# seat is written first (Red in xiangqi), the second moves second (Black):
#
#   R1: b-a ½-½   d-c 0-1        R2: d-a 1-0   b-c ½-½        R3: c-a 0-1   b-d ½-½
#
#        a   b   c   d    2/1/0  1/½/0  3/1/0
#   a    x   1   2   0    3      1½     4
#   b    1   x   1   1    3      1½     3
#   c    0   1   x   2    3      1½     4
#   d    2   1   0   x    3      1½     4
#
# 小分 (a beaten opponent's points, half a drawn one's), 2/1/0:
#   a: c 3 + ½·b 3 = 4.5   b: ½·(3+3+3) = 4.5   c: d 3 + 1.5 = 4.5   d: a 3 + 1.5 = 4.5
# 胜局 (wins): a 1, b 0, c 1, d 1                   -> b is fourth
# 直胜 among a, c, d (points in their games): a beat c, c beat d, d beat a: 2 each
# 后走局数 (games moving second, Black): a 3 (R1, R2, R3), c 2 (R1, R2), d 1 (R3), b 0
#   -> a, c, d, b
CYCLE = [
    Result(1, 1, "b", "a", 0.5),
    Result(1, 2, "d", "c", 0.0),
    Result(2, 1, "d", "a", 1.0),
    Result(2, 2, "b", "c", 0.5),
    Result(3, 1, "c", "a", 0.0),
    Result(3, 2, "b", "d", 0.5),
]


def test_cxa_round_robin_chain_separates_a_four_way_tie() -> None:
    chain = resolve_tiebreaks(["cxa"], "round_robin")
    assert chain == ("cxa_small_points", "cxa_wins", "cxa_direct", "cxa_black_games")
    rows = standings(ABCD, CYCLE, chain, unplayed="as_played", points="2-1-0")
    assert ranked(rows) == [
        (1, "a", 3.0, 4.5, 1, 2.0, 3),
        (2, "c", 3.0, 4.5, 1, 2.0, 2),
        (3, "d", 3.0, 4.5, 1, 2.0, 1),
        (4, "b", 3.0, 4.5, 0, 0.0, 0),  # alone after 胜局: 直胜 among one player is 0
    ]


def test_the_same_round_robin_under_each_points_system() -> None:
    one = standings(ABCD, CYCLE, ("sonneborn_berger",), unplayed="as_played")
    assert {r.player.id: (r.points, r.tiebreaks["sonneborn_berger"]) for r in one} == dict.fromkeys(
        "abcd", (1.5, 2.25)
    )
    three = standings(ABCD, CYCLE, ("sonneborn_berger",), unplayed="as_played", points="3-1-0")
    # 3/1/0: three draws (b, 3) are worth less than a win, a draw and a loss (4)
    assert [(r.rank, r.player.id, r.points) for r in three] == [
        (1, "a", 4.0),
        (1, "c", 4.0),
        (1, "d", 4.0),
        (4, "b", 3.0),
    ]
    # SB: the beaten opponent's 4 + half the drawn b's 3
    assert {r.tiebreaks["sonneborn_berger"] for r in three[:3]} == {5.5}


def test_crosstable_and_exports_count_in_the_events_points() -> None:
    chain = resolve_tiebreaks(["cxa"], "round_robin")
    table = crosstable(ABCD, CYCLE, chain, unplayed="as_played", points="2-1-0")
    assert table.cell("a", "c") == (2.0,) and table.cell("a", "b") == (1.0,)
    assert table.cell("c", "a") == (0.0,)
    text = crosstable_text(table)
    assert text.splitlines()[1].split() == ["1", "A", "x", "2", "0", "1", "3"]
    standings_table = standings_text(list(table.rows))
    head = standings_table.splitlines()[0]
    assert "小分 Sonneborn-Berger" in head and "胜局 Wins" in head and "后走局数" in head
    assert standings_table.splitlines()[1].split()[:3] == ["1", "A", "3"]
    facts = EventFacts("CXA", "xiangqi", "Round robin", "untimed", "club", "", False, "finished", 4)
    page = html_report(
        EventFacts(**{**{f: getattr(facts, f) for f in facts.__slots__}, "points": "2/1/0"}),
        [],
        list(table.rows),
        table,
        [],
    )
    assert "<dd>2/1/0 (win/draw/loss)</dd>" in page
    assert "<th>直胜 Direct encounter</th>" in page and "<th>后走局数 Games with Black</th>" in page


# A five-player Swiss of three rounds scored 2/1/0, with byes and a forfeit:
#
#   R1: a-b 1-0    c-d ½-½    e bye
#   R2: e-a 0-1    b-c 1-0    d bye
#   R3: a-d 1-0 by forfeit (d absent)    c-e 0-1    b bye
#
#   points (a bye is a win, 2):  a 6   b 4   c 1   d 3   e 4
# 对手分 (opponents' points; a bye has no opponent and adds 0; a forfeit counts its
# opponent):  a b4+e4+d3 = 11   b a6+c1 = 7   c d3+b4+e4 = 11   d c1+a6 = 7   e a6+c1 = 7
# b and e: 4 points, 对手分 7 both; 胜局 (byes and forfeit wins count) 2 both;
# 后走局数 (over the board, moving second) b 1 (R1), e 1 (R3); 后胜局 b 0, e 1 -> e, b
SWISS = [
    Result(1, 1, "a", "b", 1.0),
    Result(1, 2, "c", "d", 0.5),
    Result(1, 3, "e", None, 1.0, "bye"),
    Result(2, 1, "e", "a", 0.0),
    Result(2, 2, "b", "c", 1.0),
    Result(2, 3, "d", None, 1.0, "bye"),
    Result(3, 1, "a", "d", 1.0, "forfeit"),
    Result(3, 2, "c", "e", 0.0),
    Result(3, 3, "b", None, 1.0, "bye"),
]
ABCDE = [Player(p, p.upper(), 2000.0 - 100 * i) for i, p in enumerate("abcde")]


def test_cxa_swiss_chain_with_byes_and_a_forfeit() -> None:
    chain = resolve_tiebreaks(["cxa"], "swiss")
    assert chain == ("cxa_opponents", "cxa_wins", "cxa_black_games", "cxa_black_wins")
    rows = standings(ABCDE, SWISS, chain, points="2-1-0")
    assert ranked(rows) == [
        (1, "a", 6.0, 11.0, 3, 1, 1),
        (2, "e", 4.0, 7.0, 2, 1, 1),
        (3, "b", 4.0, 7.0, 2, 1, 0),
        (4, "d", 3.0, 7.0, 1, 1, 0),
        (5, "c", 1.0, 11.0, 0, 1, 0),
    ]
    b = rows[2]
    assert (b.games, b.wins, b.draws, b.losses, b.byes) == (2, 1, 0, 1, 1)


def test_cxa_progressive_drops_rounds_in_turn() -> None:
    # p: W L D -> running 2, 2, 3 (2/1/0 points), 累进分 7; without round 1: 5
    # q: D W L -> running 1, 3, 3, 累进分 7; without round 1: 6 -> q before p
    # s: D W D -> 1, 3, 4 = 8;  r: L L W -> 0, 0, 2 = 2
    players = [Player(x, x.upper(), 1500.0 - i) for i, x in enumerate("pqrs")]
    results = [
        Result(1, 1, "p", "r", 1.0),
        Result(1, 2, "q", "s", 0.5),
        Result(2, 1, "p", "q", 0.0),
        Result(2, 2, "r", "s", 0.0),
        Result(3, 1, "p", "s", 0.5),
        Result(3, 2, "q", "r", 0.0),
    ]
    chain = resolve_tiebreaks(["cxa-progressive"], "swiss")
    assert chain[0] == "cxa_progressive"
    rows = standings(players, results, chain[:1], points="2-1-0")
    assert [(r.rank, r.player.id, r.points, r.tiebreaks["cxa_progressive"]) for r in rows] == [
        (1, "s", 4.0, 8.0),
        (2, "q", 3.0, 7.0),
        (3, "p", 3.0, 7.0),
        (4, "r", 2.0, 2.0),
    ]
    # FIDE's PS has no such second look: p and q share the rank
    ps = standings(players, results, ("PS",), points="2-1-0")
    assert [(r.rank, r.player.id) for r in ps][1:3] == [(2, "p"), (2, "q")]


def test_fide_codes_and_the_new_fide_tiebreaks() -> None:
    assert resolve_tiebreaks(["BH-C1", "bh", "SB", "DE", "PS", "WIN", "BPG", "BWG"]) == (
        "buchholz_cut1",
        "buchholz",
        "sonneborn_berger",
        "head_to_head",
        "cumulative",
        "win",
        "black_games",
        "black_wins",
    )
    rows = standings(ABCDE, SWISS, ("win", "black_games", "black_wins", "wins"))
    got = {r.player.id: tuple(r.tiebreaks.values()) for r in rows}
    # WIN counts byes and forfeit wins; BPG/BWG only games played moving second;
    # the older "wins" counts forfeit wins but not byes
    assert got == {
        "a": (3, 1, 1, 3),
        "b": (2, 1, 0, 1),
        "c": (0, 1, 0, 0),
        "d": (1, 1, 0, 0),
        "e": (2, 1, 1, 1),
    }
    with pytest.raises(TournamentError, match="unknown tie-break 'XYZ'"):
        resolve_tiebreaks(["XYZ"])
    with pytest.raises(TournamentError, match="listed twice"):
        resolve_tiebreaks(["BH", "buchholz"])


def test_points_systems_by_name() -> None:
    assert points_system("2/1/0") is points_system("2-1-0")
    assert points_system("1-½-0").label == "1/½/0"
    assert points_system("3-1-0").points(0.5) == 1.0
    with pytest.raises(TournamentError, match="unknown points system '4-2-0'"):
        points_system("4-2-0")


def test_bye_score_is_in_the_events_points() -> None:
    five = [Player(p, p.upper(), 1500.0) for p in "abcde"]
    cxa = make_schedule("swiss", five, {"rounds": 2, "points": "2-1-0", "bye_score": 2})
    bye = Pairing(1, 3, "e", None)
    assert cxa.bye_result(bye).score_first == 1.0  # a win
    assert cxa.options["points"] == "2-1-0"
    half = make_schedule("swiss", five, {"rounds": 2, "points": "2-1-0", "bye_score": 1})
    assert half.bye_result(bye).score_first == 0.5
    default = make_schedule("swiss", five, {"rounds": 2, "points": "2/1/0"})
    assert default.bye_result(bye).score_first == 1.0  # by default a bye is a win
    assert default.standings([default.bye_result(bye)])[0].points == 2.0
    with pytest.raises(OptionError, match="2 points is not a result in 1/½/0"):
        make_schedule("swiss", five, {"rounds": 2, "bye_score": 2})
    with pytest.raises(OptionError, match="unknown points system"):
        make_schedule("round_robin", five, {"points": "5-0-0"})
    rr = make_schedule("round_robin", five, {"points": "3-1-0", "tiebreaks": ["cxa"]})
    assert rr.tiebreaks == resolve_tiebreaks(["cxa"], "round_robin")
    assert rr.bye_result(Pairing(1, 3, "e", None)).score_first == 0.0


def test_a_210_swiss_pairs_as_the_same_event_in_1_half_0() -> None:
    # score groups in 2/1/0 are those of 1/½/0: on random histories the pairings agree
    players = [Player(f"p{i}", f"P{i}", 2000.0 - 10 * i) for i in range(9)]
    for seed in range(6):
        rng = random.Random(seed)
        results: list[Result] = []
        for rnd in range(1, 5):
            one = swiss_pairings(players, results, rnd)
            two = swiss_pairings(players, results, rnd, points="2-1-0")
            assert one == two, (seed, rnd)
            results += [
                Result.bye(p) if p.is_bye else Result.from_pairing(p, rng.choice((0.0, 0.5, 1.0)))
                for p in one
            ]


def test_a_310_swiss_groups_by_its_own_points() -> None:
    # after two rounds a, c, e, f have a win and a loss, b, d, g, h two draws: in 1/½/0
    # all eight have 1 point (one score group), in 3/1/0 the first four have 3 and the
    # others 2, and each group pairs within itself (the only pairs not met yet):
    #   3s: a met e, f; c met f, e          -> a-c, e-f
    #   2s: b met g, h; d met h, g          -> b-d, g-h
    players = [Player(p, p.upper(), 2000.0 - 100 * i) for i, p in enumerate("abcdefgh")]
    results = [
        Result(1, 1, "a", "e", 1.0),
        Result(1, 2, "c", "f", 1.0),
        Result(1, 3, "b", "g", 0.5),
        Result(1, 4, "d", "h", 0.5),
        Result(2, 1, "f", "a", 1.0),
        Result(2, 2, "e", "c", 1.0),
        Result(2, 3, "h", "b", 0.5),
        Result(2, 4, "g", "d", 0.5),
    ]
    three = swiss_pairings(players, results, 3, points="3-1-0")
    assert {frozenset(p.players()) for p in three} == {
        frozenset(pair) for pair in ("ac", "ef", "bd", "gh")
    }
    # 1/½/0 pairs the one group of eight top half (a b c d) against bottom half
    # (e f g h), so every board has a player with a win and one with two draws
    one = swiss_pairings(players, results, 3)
    assert [(p.first, p.second) for p in one] == [("a", "g"), ("b", "f"), ("c", "h"), ("d", "e")]
