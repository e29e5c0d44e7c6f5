"""caissify-pairings' matchings by py4swiss's compiled matcher: the same matching as
networkx's on the graphs the Dutch engine builds (every edge carries a top "pair
them" bit), and the same pairings round by round on random events."""

from __future__ import annotations

import random
import threading

import networkx as nx
import pytest

from lanqi.tournament import dutch
from lanqi.tournament.dutch import NoValidPairingError, dutch_pairings
from lanqi.tournament.model import Player, Result


def random_graph(rng: random.Random, n: int) -> nx.Graph[int]:
    graph: nx.Graph[int] = nx.Graph()
    graph.add_nodes_from(range(n))
    for i in range(n):
        for j in range(i + 1, n):
            if rng.random() < 0.6:
                low = rng.randint(1, 1 << rng.choice((2, 20, 70)))
                graph.add_edge(i, j, weight=(1 << 80) + low)
    return graph


def test_the_compiled_matcher_finds_networkx_matching() -> None:
    rng = random.Random(22)
    for _ in range(150):
        graph = random_graph(rng, rng.randint(2, 36))
        want = {frozenset(e) for e in dutch._NX_MATCHING(graph, maxcardinality=True)}
        got = {frozenset(e) for e in dutch._compiled_matching(graph, "weight")}
        assert got == want


def random_event(rng: random.Random, n: int, rounds: int) -> list[list[tuple[str, str | None]]]:
    """Every round of a random event (draws, forfeits), paired by ``dutch``."""
    players = [Player(f"p{i:02d}", f"P{i}", 2400.0 - 7 * i) for i in range(n)]
    results: list[Result] = []
    out = []
    for rnd in range(1, rounds + 1):
        try:
            got = dutch_pairings(players, results, rnd, system="dutch", total_rounds=rounds)
        except NoValidPairingError:
            break
        out.append([(p.first or "", p.second) for p in got])
        for p in got:
            if p.second is None:
                results.append(Result.bye(p, 1.0))
            elif rng.random() < 0.05:
                results.append(Result.forfeit(p, absent=rng.choice(p.players())))
            else:
                results.append(Result.from_pairing(p, rng.choice((0.0, 0.5, 1.0, 1.0, 0.0))))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_dutch_pairs_alike_with_either_matcher(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    n = random.Random(seed).randint(7, 24)
    monkeypatch.setattr(dutch, "COMPILED_MATCHING", False)
    by_networkx = random_event(random.Random(seed), n, 5)
    monkeypatch.setattr(dutch, "COMPILED_MATCHING", True)
    assert random_event(random.Random(seed), n, 5) == by_networkx


def test_other_callers_keep_networkx() -> None:
    # the compiled matcher answers only inside lanqi's caissify call, on its thread
    seen: list[bool] = []

    def probe() -> None:
        seen.append(bool(getattr(dutch._COMPILED, "on", False)))

    dutch_pairings([Player(c, c.upper(), 2000.0 - ord(c)) for c in "abcdef"], [], 2)
    worker = threading.Thread(target=probe)
    worker.start()
    worker.join()
    probe()
    assert seen == [False, False]
