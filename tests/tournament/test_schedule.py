"""The uniform schedule interface, every format driven to the end; gauntlets; options."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from lanqi.tournament import (
    FORMATS,
    Format,
    OptionError,
    Pairing,
    Player,
    Result,
    RoundInProgressError,
    Schedule,
    TournamentError,
    gauntlet,
    make_schedule,
    unfinished,
)


def field(n: int) -> list[Player]:
    return [Player(f"p{i}", f"Player {i}", 2000.0 - 10 * i, seed=i) for i in range(1, n + 1)]


def drive(schedule: Schedule, seed: int = 0) -> tuple[list[list[Pairing]], list[Result]]:
    """The matchmaker's loop: play every round it gives until it says the event is over."""
    rng = random.Random(seed)
    rounds: list[list[Pairing]] = []
    results: list[Result] = []
    for _ in range(1000):
        pairings = schedule.next_round(results)
        if pairings is None:
            break
        assert not schedule.is_complete(results)
        assert pairings and not unfinished(rounds[-1] if rounds else [], results)
        rounds.append(pairings)
        for p in pairings:
            if p.is_bye:
                results.append(schedule.bye_result(p))
            else:
                results.append(Result.from_pairing(p, rng.choice([1.0, 0.5, 0.0])))
    else:
        pytest.fail("the event never ended")
    assert schedule.is_complete(results)
    assert schedule.next_round(results) is None
    return rounds, results


@pytest.mark.parametrize("fmt", list(Format))
@pytest.mark.parametrize("n", [2, 3, 6, 7])
def test_every_format_runs_to_completion(fmt: Format, n: int) -> None:
    schedule = make_schedule(fmt, field(n))
    rounds, results = drive(schedule, seed=n)
    rows = schedule.standings(results)
    assert len(rows) == n and rows[0].rank == 1
    assert schedule.crosstable(results).rows == tuple(rows)
    if fmt is not Format.KNOCKOUT:
        assert len(rounds) == schedule.planned_rounds


def test_round_robin_schedule() -> None:
    schedule = make_schedule("round_robin", field(5))
    rounds, results = drive(schedule)
    assert len(rounds) == 5
    met = Counter(frozenset(r.players()) for r in results if r.second is not None)
    assert len(met) == 10 and set(met.values()) == {1}
    byes = [r for r in results if r.kind == "bye"]
    assert len(byes) == 5 and all(r.score_first == 0.0 for r in byes)  # a rest, no point


def test_round_robin_refuses_the_next_round_while_one_is_in_progress() -> None:
    schedule = make_schedule("round_robin", field(4))
    first = schedule.next_round([])
    assert first is not None
    assert schedule.next_round([]) == first  # nothing played yet: the same round again
    with pytest.raises(RoundInProgressError, match="board 2"):
        schedule.next_round([Result.from_pairing(first[0], 1.0)])


def test_withdrawn_players_in_fixed_tables_are_flagged() -> None:
    schedule = make_schedule("round_robin", field(4))
    pairings = schedule.next_round([], withdrawn={"p1"})
    assert pairings is not None
    flagged = [p for p in pairings if p.warning]
    assert len(flagged) == 1 and "p1" in flagged[0].players()
    assert flagged[0].warning == "withdrawn: p1 (record a forfeit)"


def test_swiss_schedule_options_and_late_entries() -> None:
    schedule = make_schedule("swiss", field(6), {"rounds": 3, "bye_score": 0.5})
    assert schedule.options["rounds"] == 3 and schedule.options["bye_score"] == 0.5
    assert make_schedule("swiss", field(9)).planned_rounds == 4  # log2(9) rounded up
    results: list[Result] = []
    pairings = schedule.next_round(results)
    assert pairings is not None
    results += [Result.from_pairing(p, 1.0) for p in pairings]
    bigger = schedule.with_players([*field(6), Player("new", "Newcomer", 1500.0)])
    second = bigger.next_round(results, withdrawn={"p2", "p3"})
    assert second is not None
    ids = {pid for p in second for pid in p.players()}
    assert "new" in ids and not ids & {"p2", "p3"}
    bye = next(p for p in second if p.is_bye)
    assert bigger.bye_result(bye).score_first == 0.5
    with pytest.raises(TournamentError, match="late entries"):
        make_schedule("round_robin", field(4)).with_players(field(5))


def test_knockout_schedule_state() -> None:
    schedule = make_schedule("knockout", field(4), {"games_per_match": 1, "tiebreak_games": 0})
    results: list[Result] = []
    while (pairings := schedule.next_round(results)) is not None:
        results += [Result.from_pairing(p, 1.0) for p in pairings]  # first mover always wins
    state = schedule.state(results)  # type: ignore[attr-defined]
    assert state.champion == "p1"
    assert state.advanced(1) == ["p1", "p2"]


def test_gauntlet() -> None:
    champion, *others = field(4)
    rounds = gauntlet(champion, others, games_per_opponent=2)
    assert len(rounds) == 6 and all(len(r) == 1 for r in rounds)
    games = [r[0] for r in rounds]
    assert [(g.round, g.first, g.second, g.game_no) for g in games] == [
        (1, "p1", "p2", 1),
        (2, "p2", "p1", 2),
        (3, "p1", "p3", 1),
        (4, "p3", "p1", 2),
        (5, "p1", "p4", 1),
        (6, "p4", "p1", 2),
    ]
    odd = [r[0] for r in gauntlet(champion, others, games_per_opponent=1)]
    assert [g.first for g in odd] == ["p1", "p3", "p1"]  # colours alternate across opponents
    with pytest.raises(TournamentError):
        gauntlet(champion, others, games_per_opponent=0)


def test_gauntlet_schedule_with_a_chosen_champion() -> None:
    schedule = make_schedule("gauntlet", field(3), {"champion": "p3", "games_per_opponent": 3})
    rounds, results = drive(schedule)
    assert len(rounds) == 6
    assert all("p3" in r.players() for r in results)


@pytest.mark.parametrize(
    ("fmt", "options", "message"),
    [
        ("chess960", {}, "unknown format"),
        ("swiss", {"rounds": 0}, "between 1 and players - 1 = 5"),
        ("swiss", {"rounds": 6}, "between 1 and players - 1 = 5"),
        ("swiss", {"rounds": "3"}, "must be int"),
        ("swiss", {"rounds": True}, "must be int"),
        ("swiss", {"rounds": 2, "bye_score": 2}, "bye_score"),
        ("swiss", {"late_entries_score": -1}, "cannot be negative"),
        ("swiss", {"tiebreaks": ["buchholz", "median"]}, "unknown tie-break"),
        ("round_robin", {"rounds": 3}, "unknown option 'rounds'"),
        ("knockout", {"games_per_match": 0}, "games_per_match must be at least 1"),
        ("knockout", {"tiebreak_games": -1}, "tiebreak_games must be at least 0"),
        ("gauntlet", {"champion": "zz"}, "not a player"),
        ("gauntlet", {"games_per_opponent": 0}, "at least 1"),
    ],
)
def test_options_are_validated(fmt: str, options: dict[str, object], message: str) -> None:
    with pytest.raises(OptionError, match=message):
        make_schedule(fmt, field(6), options)


def test_too_few_players() -> None:
    with pytest.raises(TournamentError, match="at least 2"):
        make_schedule("round_robin", field(1))


def test_registry_describes_every_format() -> None:
    assert set(FORMATS) == set(Format)
    for info in FORMATS.values():
        assert info.description
        assert "tiebreaks" in {o.name for o in info.options}
        schedule = make_schedule(info.format, field(4))
        assert set(schedule.options) == {o.name for o in info.options}


@pytest.mark.parametrize("pairing", ["dutch", "dutch-2017", "lanqi"])
def test_a_swiss_schedule_takes_requested_byes_with_every_engine(pairing: str) -> None:
    schedule = make_schedule("swiss", field(6), {"rounds": 3, "pairing": pairing})
    got = schedule.next_round([], withdrawn={"p6"}, requested_byes={"p2": 0.5, "p5": 0.0})
    assert got is not None
    games = [p for p in got if p.second is not None]
    allocated = [p.first for p in got if p.second is None and not p.warning]
    # three left to pair (p6 withdrew, p2 and p5 asked for byes): a game and the bye
    assert len(games) == 1 and len(allocated) == 1
    assert {*games[0].players(), *allocated} == {"p1", "p3", "p4"}
    asked = {p.first: p.warning for p in got if p.warning.startswith("requested bye")}
    assert asked == {"p2": "requested bye (0.5 point)", "p5": "requested bye (0 point)"}
    assert [p.board for p in got] == list(range(1, len(got) + 1))
