"""FIDE Dutch pairings: worked examples written out by hand, the bridge to the two
packages (byes, forfeits, late entries, withdrawals, acceleration), and properties over
random events for both systems."""

from __future__ import annotations

import random

import pytest

from lanqi.tournament.check import check_pairings
from lanqi.tournament.dutch import (
    Entry,
    NoValidPairingError,
    allocate_colour,
    dutch_pairings,
    history,
)
from lanqi.tournament.model import Pairing, Player, Result
from lanqi.tournament.schedule import make_schedule

SYSTEMS = ("dutch", "dutch-2017")


def field_of(n: int) -> list[Player]:
    """Players a, b, c, ... seeded in that order (TPN 1, 2, 3, ...)."""
    return [Player(chr(ord("a") + i), chr(ord("A") + i), 2400.0 - 10 * i) for i in range(n)]


def games(pairings: list[Pairing]) -> list[tuple[str | None, str | None]]:
    return [(p.first, p.second) for p in pairings]


@pytest.mark.parametrize("system", SYSTEMS)
def test_round_one_top_half_meets_bottom_half(system: str) -> None:
    # C.04.3: S1 = TPN 1-3 meets S2 = TPN 4-6 in order (1-4, 2-5, 3-6). Colours by
    # 5.2.5: the higher-ranked player has the initial colour (first move) when their
    # TPN is odd, the other colour when it is even: a first, e first (b even), c first.
    got = dutch_pairings(field_of(6), [], 1, system=system, total_rounds=5)
    assert games(got) == [("a", "d"), ("e", "b"), ("c", "f")]


@pytest.mark.parametrize("system", SYSTEMS)
def test_round_one_odd_field_gives_the_lowest_the_bye(system: str) -> None:
    # five players: the pairing-allocated bye goes to the lowest-ranked (TPN 5), the
    # other four pair 1-3 and 2-4 (2 is even: 4 moves first)
    got = dutch_pairings(field_of(5), [], 1, system=system, total_rounds=4)
    assert games(got) == [("a", "c"), ("d", "b"), ("e", None)]


@pytest.mark.parametrize("system", SYSTEMS)
def test_round_two_winners_meet_and_the_drawn_pair_floats_down(system: str) -> None:
    # round 1: a-d 1-0, e-b 0-1, c-f 1/2. Round 2 score groups: {a, b} with 1,
    # {c, f} with 1/2, {d, e} with 0. a-b pair (b had the second move, a the first:
    # both preferences granted, b first). c and f have met: neither can be paired in
    # their bracket, so both move down to {d, e} and meet them in order, c-d and f-e.
    # Colours by preference: d had the second move (now first), c the first; f had
    # the second move, e the first. Boards: by the higher-ranked player's score.
    players = field_of(6)
    r1 = dutch_pairings(players, [], 1, system=system, total_rounds=5)
    results = [
        Result.from_pairing(r1[0], 1.0),
        Result.from_pairing(r1[1], 0.0),
        Result.from_pairing(r1[2], 0.5),
    ]
    got = dutch_pairings(players, results, 2, system=system, total_rounds=5)
    assert games(got) == [("b", "a"), ("d", "c"), ("f", "e")]


def test_a_forfeit_is_not_met_gives_no_colour_and_no_bye_later() -> None:
    # a beat b by forfeit (b absent): the game was not played, so a and b may meet
    # again, neither has a colour history, and a (who scored a win without playing)
    # may not get the pairing-allocated bye
    r = Result.forfeit(Pairing(1, 1, "a", "b"), absent="b")
    table = history(field_of(3), [r], 2)
    assert table["a"].met == set() and table["b"].met == set()
    assert table["a"].colours == [] and table["a"].full_byes == 1
    assert table["a"].floats == ["down"] and table["b"].floats == ["none"]


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_forfeit_winner_never_gets_the_bye(system: str) -> None:
    # three players: round 1 a-b (b forfeits, a wins), c has the bye. In round 2 both
    # a (forfeit win) and c (bye) are out of the bye: it goes to b, and a meets c.
    players = field_of(3)
    results = [
        Result.forfeit(Pairing(1, 1, "a", "b"), absent="b"),
        Result.bye(Pairing(1, 2, "c", None)),
    ]
    got = dutch_pairings(players, results, 2, system=system, total_rounds=2)
    assert {p.first for p in got if p.second is None} == {"b"}


@pytest.mark.parametrize("system", SYSTEMS)
def test_forfeited_pair_may_meet_again(system: str) -> None:
    # two players, two rounds: round 1 was forfeited, so round 2 pairs them again
    # (had they played, there would be no valid pairing)
    players = field_of(2)
    forfeit = [Result.forfeit(Pairing(1, 1, "a", "b"), absent="b")]
    assert games(dutch_pairings(players, forfeit, 2, system=system, total_rounds=2))[0] in (
        ("a", "b"),
        ("b", "a"),
    )
    played = [Result.from_pairing(Pairing(1, 1, "a", "b"), 1.0)]
    with pytest.raises(NoValidPairingError) as exc:
        dutch_pairings(players, played, 2, system=system, total_rounds=2)
    assert "\n" not in str(exc.value)
    assert str(exc.value).startswith("no valid pairing for round 2: ")


@pytest.mark.parametrize("system", SYSTEMS)
def test_requested_byes_and_withdrawals_are_left_out(system: str) -> None:
    players = field_of(6)
    got = dutch_pairings(
        players,
        [],
        1,
        system=system,
        total_rounds=3,
        withdrawn={"f"},
        requested_byes={"a": 0.5},
    )
    seated = [x for p in got for x in p.players()]
    assert "f" not in seated
    # b c d e pair top half against bottom half, b-d and c-e; pairing numbers stay
    # as they were, so b (TPN 2, even) has the second move and c (TPN 3) the first.
    # The bye a asked for is marked as such.
    assert games(got)[:2] == [("d", "b"), ("c", "e")]
    assert got[-1].first == "a" and got[-1].second is None and "requested bye" in got[-1].warning


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_late_entry_is_paired_from_round_two(system: str) -> None:
    players = field_of(4)
    r1 = dutch_pairings(players, [], 1, system=system, total_rounds=3)
    results = [Result.from_pairing(p, 1.0) for p in r1]
    late = [*players, Player("z", "Z", 2500.0)]  # the strongest, so TPN 1 now
    got = dutch_pairings(late, results, 2, system=system, total_rounds=3)
    seated = [x for p in got for x in p.players()]
    assert sorted(seated) == ["a", "b", "c", "d", "z"]
    # the late entry has 0 points: it meets a 0-point player or has the bye
    zero = {p.first for p in r1 if p.second} | {p.second for p in r1 if p.second}
    zero -= {r.first for r in results}
    mate = next(p for p in got if "z" in p.players())
    assert mate.second is None or set(mate.players()) - {"z"} <= zero


@pytest.mark.parametrize("system", SYSTEMS)
def test_baku_acceleration_pairs_the_top_half_together_in_round_one(system: str) -> None:
    # eight players: a-d have a virtual point, so round 1 pairs a-d among themselves
    got = dutch_pairings(field_of(8), [], 1, system=system, total_rounds=5, accelerated=True)
    tops = {frozenset(p.players()) for p in got[:2]}
    assert tops == {frozenset("ac"), frozenset("bd")}


def test_colour_rules_by_hand() -> None:
    # 1. both preferences granted
    assert allocate_colour(Entry("a", 1, colours=[1]), Entry("b", 2, colours=[-1])) == -1
    # 2. the stronger preference wins: b (two second moves in a row) is absolute
    assert allocate_colour(Entry("a", 1, colours=[-1]), Entry("b", 2, colours=[1, -1, -1])) == -1
    # 2. both absolute for the first move (top scorers): the wider colour difference
    a = Entry("a", 1, colours=[-1, -1, 1, -1], score=3.0)  # difference -2
    b = Entry("b", 2, colours=[1, -1, -1], score=3.0)  # difference -1, two in a row
    assert allocate_colour(a, b) == 1
    # 3. same histories back to a round where they differed: alternate from there
    assert allocate_colour(
        Entry("a", 1, colours=[1, 1, -1]), Entry("b", 2, colours=[-1, 1, -1])
    ) == (-1)
    # 5. no history: the higher-ranked (score first, then TPN) gets the initial
    # colour when its TPN is odd
    assert allocate_colour(Entry("a", 3, score=1.0), Entry("b", 2)) == 1
    assert allocate_colour(Entry("a", 4, score=1.0), Entry("b", 1)) == 1 * -1


def simulate(
    system: str, seed: int, n: int, rounds: int
) -> tuple[list[Player], list[list[Pairing]], list[Result]]:
    rng = random.Random(seed)
    players = [Player(f"p{i:02d}", f"P{i}", 2400.0 - 7 * i) for i in range(n)]
    rounds_played: list[list[Pairing]] = []
    results: list[Result] = []
    for round_no in range(1, rounds + 1):
        try:
            got = dutch_pairings(players, results, round_no, system=system, total_rounds=rounds)
        except NoValidPairingError:
            break
        rounds_played.append(got)
        for p in got:
            if p.second is None:
                results.append(Result.bye(p, 1.0))
            elif rng.random() < 0.06:
                results.append(Result.forfeit(p, absent=rng.choice(p.players())))
            else:
                results.append(Result.from_pairing(p, rng.choice((1.0, 0.5, 0.0))))
    return players, rounds_played, results


@pytest.mark.parametrize("system", SYSTEMS)
def test_properties_over_random_events(system: str) -> None:
    for seed in range(12):
        n = 5 + seed * 2
        rounds = min(7, n - 1)
        players, rounds_played, results = simulate(system, seed, n, rounds)
        assert len(rounds_played) >= 3
        for got in rounds_played:
            round_no = got[0].round
            before = [r for r in results if r.round < round_no]
            table = history(players, before, round_no)
            seated = [x for p in got for x in p.players()]
            assert sorted(seated) == sorted(p.id for p in players)  # everyone once
            byes = [p.first for p in got if p.second is None]
            assert len(byes) == n % 2  # at most one bye, and only for an odd field
            for pid in byes:
                assert pid is not None
                assert table[pid].full_byes == 0, "a second bye or a bye after a forfeit win"
            last = round_no == rounds
            for p in got:
                if p.second is None:
                    continue
                assert p.first is not None
                a, b = table[p.first], table[p.second]
                assert b.id not in a.met, f"rematch in round {round_no}"
                top = last and (a.score > (round_no - 1) / 2 or b.score > (round_no - 1) / 2)
                for e, colour in ((a, 1), (b, -1)):
                    after = [*e.colours, colour]
                    if not top:
                        assert abs(sum(after)) <= 2, f"colour difference in round {round_no}"
                        assert after[-3:] != [colour] * 3, f"3 in a row in round {round_no}"


@pytest.mark.parametrize("system", SYSTEMS)
def test_same_input_in_any_order_gives_the_same_pairing(system: str) -> None:
    players, rounds_played, results = simulate(system, 5, 13, 5)
    round_no = len(rounds_played)
    before = [r for r in results if r.round < round_no]
    want = dutch_pairings(players, before, round_no, system=system, total_rounds=5)
    rng = random.Random(1)
    for _ in range(3):
        shuffled_players = players[:]
        shuffled_results = before[:]
        rng.shuffle(shuffled_players)
        rng.shuffle(shuffled_results)
        got = dutch_pairings(
            shuffled_players, shuffled_results, round_no, system=system, total_rounds=5
        )
        assert got == want


def test_lanqi_colours_match_the_2017_engine_where_the_pairs_agree() -> None:
    # py4swiss gives the colours of the endorsed bbpPairings; the 2026 rules kept the
    # colour allocation, so wherever the two systems pair alike the colours must agree
    agree = 0
    for seed in range(8):
        players, rounds_played, results = simulate("dutch-2017", 100 + seed, 9 + seed, 6)
        for got in rounds_played:
            round_no = got[0].round
            before = [r for r in results if r.round < round_no]
            ours = dutch_pairings(players, before, round_no, system="dutch", total_rounds=6)
            if {frozenset(p.players()) for p in ours} == {frozenset(p.players()) for p in got}:
                agree += 1
                assert {(p.first, p.second) for p in ours} == {(p.first, p.second) for p in got}
    assert agree >= 20


def test_check_finds_a_pairing_the_engine_would_not_make() -> None:
    players, rounds_played, results = simulate("dutch", 3, 8, 4)
    schedule = make_schedule("swiss", players, {"rounds": 4, "pairing": "dutch"})
    played = [p for rnd in rounds_played for p in rnd]
    assert check_pairings(schedule, results, played) == []
    # swap the second players of round 2's first two boards
    b1, b2 = rounds_played[1][0], rounds_played[1][1]
    altered = [
        Pairing(2, 1, b1.first, b2.second)
        if p == b1
        else Pairing(2, 2, b2.first, b1.second)
        if p == b2
        else p
        for p in played
    ]
    lines = check_pairings(schedule, results, altered)
    assert [line.split(":")[0] for line in lines] == ["round 2 board 1", "round 2 board 2"]


def test_new_swiss_events_default_to_dutch_and_lanqi_stays_selectable() -> None:
    players = field_of(6)
    assert make_schedule("swiss", players, {"rounds": 3}).options["pairing"] == "dutch"
    lanqi = make_schedule("swiss", players, {"rounds": 3, "pairing": "lanqi"})
    assert lanqi.next_round([]) is not None
    with pytest.raises(ValueError, match="pairing must be dutch, dutch-2017, lanqi"):
        make_schedule("swiss", players, {"rounds": 3, "pairing": "monrad"})


@pytest.mark.parametrize("system", ["dutch", "dutch-2017"])
def test_forbidden_pairs_are_never_paired(system: str) -> None:
    """Issue 22, item 4: a forbidden pair (same club, family) is kept apart by both Dutch
    systems as if the two had met; round 1 would pair 1-4 and 2-5 otherwise."""
    players = [Player(f"p{i}", f"P{i}", 2000.0 - i) for i in range(1, 7)]
    free = dutch_pairings(players, [], 1, system=system, total_rounds=3)
    pairs = [frozenset((p.first, p.second)) for p in free if p.first and p.second]
    forbidden = {pairs[0]}
    kept = dutch_pairings(players, [], 1, system=system, total_rounds=3, forbidden=forbidden)
    assert not forbidden & {frozenset((p.first, p.second)) for p in kept if p.first and p.second}
    assert sorted(pid for p in kept for pid in (p.first, p.second) if pid) == sorted(
        p.id for p in players
    )
