"""Round robins from the FIDE Berger tables: every pair once, colours balanced."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lanqi.tournament import Pairing, Player, TournamentError, berger_table, round_robin


def field(n: int) -> list[Player]:
    return [Player(f"p{i:02d}", f"Player {i}", 2000.0 - i, seed=i) for i in range(1, n + 1)]


def colour_runs(rounds: list[list[Pairing]]) -> dict[str, list[int]]:
    seq: dict[str, list[int]] = {}
    for rnd in rounds:
        for p in rnd:
            if p.second is not None:
                assert p.first is not None
                seq.setdefault(p.first, []).append(1)
                seq.setdefault(p.second, []).append(-1)
    return seq


def longest_run(colours: list[int]) -> int:
    best = run = 0
    for i, c in enumerate(colours):
        run = run + 1 if i and c == colours[i - 1] else 1
        best = max(best, run)
    return best


def test_berger_table_for_six_is_fides() -> None:
    assert berger_table(6) == [
        [(1, 6), (2, 5), (3, 4)],
        [(6, 4), (5, 3), (1, 2)],
        [(2, 6), (3, 1), (4, 5)],
        [(6, 5), (1, 4), (2, 3)],
        [(3, 6), (4, 2), (5, 1)],
    ]


def test_berger_table_needs_an_even_count() -> None:
    with pytest.raises(TournamentError):
        berger_table(5)


@pytest.mark.parametrize("n", range(2, 21))
def test_single_round_robin(n: int) -> None:
    players = field(n)
    rounds = round_robin(players)
    assert len(rounds) == n - 1 + n % 2
    met: Counter[frozenset[str]] = Counter()
    byes: Counter[str] = Counter()
    for number, rnd in enumerate(rounds, 1):
        seen = [pid for p in rnd for pid in p.players()]
        assert sorted(seen) == sorted(p.id for p in players)  # everyone once, bye included
        assert [p.board for p in rnd] == list(range(1, len(rnd) + 1))
        assert all(p.round == number and p.game_no == 0 for p in rnd)
        assert all(p.is_bye for p in rnd[n // 2 :])  # the bye comes after the games
        for p in rnd:
            if p.second is None:
                assert p.first is not None
                byes[p.first] += 1
            else:
                met[frozenset(p.players())] += 1
    assert set(met) == {frozenset(c) for c in combinations([p.id for p in players], 2)}
    assert set(met.values()) == {1}
    assert byes == (Counter({p.id: 1 for p in players}) if n % 2 else Counter())
    for colours in colour_runs(rounds).values():
        assert abs(sum(colours)) <= 1
        assert longest_run(colours) <= 2


@pytest.mark.parametrize("n", range(2, 21))
def test_double_round_robin(n: int) -> None:
    rounds = round_robin(field(n), double=True)
    assert len(rounds) == 2 * (n - 1 + n % 2)
    games: Counter[tuple[str | None, str | None]] = Counter(
        (p.first, p.second) for rnd in rounds for p in rnd if not p.is_bye
    )
    for a, b in combinations([p.id for p in field(n)], 2):
        assert games[(a, b)] == 1 and games[(b, a)] == 1  # twice, colours reversed
    for colours in colour_runs(rounds).values():
        assert sum(colours) == 0
        assert longest_run(colours) <= 2  # the turn of the cycles included


def test_seeds_take_the_slots() -> None:
    players = [Player("x", "X", seed=2), Player("y", "Y", seed=1), Player("z", "Z", seed=3)]
    rounds = round_robin(players)
    assert [(p.first, p.second) for p in rounds[0]] == [("x", "z"), ("y", None)]


@given(st.lists(st.text(min_size=1, max_size=4), min_size=2, max_size=12, unique=True))
def test_any_ids_same_table_whatever_the_input_order(ids: list[str]) -> None:
    players = [Player(pid, pid, 1500.0 + i) for i, pid in enumerate(ids)]
    assert round_robin(players) == round_robin(list(reversed(players)))


def test_duplicate_ids_are_refused() -> None:
    with pytest.raises(TournamentError, match="duplicate"):
        round_robin([Player("a", "A"), Player("a", "B")])
