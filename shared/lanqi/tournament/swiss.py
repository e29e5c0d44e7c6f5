"""Swiss pairings in the spirit of the FIDE Dutch system, as one weighted matching.

Every pair of players who may meet is an edge; its cost says how bad the pairing is,
rule by rule, and a maximum-weight perfect matching (networkx, Edmonds' blossom
algorithm) picks the round with the least total cost. The rules, most important first
(a rule only decides between pairings equal on every rule above it):

1. nobody plays the same opponent twice, no forbidden pair meets (the director's
   ``forbidden`` pairs: same club, family), and nobody gets a second bye while an
   active player has had none (hard rules: broken only when nothing else is possible,
   and then the pairing carries a ``warning``);
2. every round must leave the rest of the event pairable without a rematch, a second
   bye or a colour difference beyond 2 (when the number of rounds is known, see
   ``total_rounds``; the look-ahead assumes the field does not change);
3. no colour difference beyond 2, then no third game in a row with the same colour;
4. the bye goes to the lowest-ranked player (by score, then seeded order) who has had
   the fewest byes;
5. players meet opponents with the same score (cost: squared score difference);
6. colour preferences: a player due a colour after an imbalance gets it, then
   alternation;
7. within a score group the top half meets the bottom half in seeded order; a player
   floating down is the lowest of the upper group, meeting the highest of the lower.

>>> players = [Player(p, p.upper(), 2000.0 - 100 * i) for i, p in enumerate("abcde")]
>>> first = swiss_pairings(players, [], 1)
>>> [(p.board, p.first, p.second) for p in first]
[(1, 'a', 'c'), (2, 'd', 'b'), (3, 'e', None)]
>>> results = [Result.from_pairing(first[0], 1.0), Result.from_pairing(first[1], 0.0),
...            Result.bye(first[2])]
>>> [(p.first, p.second) for p in swiss_pairings(players, results, 2)]
[('b', 'a'), ('c', 'e'), ('d', None)]
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

import networkx as nx

from lanqi.tournament.model import (
    Pairing,
    Player,
    Result,
    TournamentError,
    check_players,
    seeded_order,
)
from lanqi.tournament.scoring import DEFAULT_POINTS, PointsSystem, points_system

__all__ = ["BYE", "swiss_pairings"]

#: The node standing for "no opponent" in the matching graph (not a valid player id).
BYE = "\x00bye"
#: How many alternative pairings of one round are tried before giving up the
#: look-ahead, and how many search steps the look-ahead may take.
_MAX_CANDIDATES = 60
_SEARCH_BUDGET = 20_000

Edge = tuple[str, str]
#: A colour history: +1 for a game as first, -1 as second, played games only.
History = tuple[int, ...]


@dataclass
class _Standing:
    """What the pairing needs to know about one active player."""

    id: str
    order: int  # position in the seeded order (0 = strongest)
    score: float = 0.0
    colours: list[int] = field(default_factory=list)  # +1 first, -1 second; played games
    met: set[str] = field(default_factory=set)
    forbidden: set[str] = field(default_factory=set)  # ids the director keeps apart
    byes: int = 0
    rank: int = 0  # position in the current ranking (score, then order)
    group_index: int = 0  # position inside its score group
    group_size: int = 1

    @property
    def history(self) -> History:
        return tuple(self.colours)


def swiss_pairings(
    players: Sequence[Player],
    results_so_far: Collection[Result],
    round_no: int,
    *,
    late_entries_score: float = 0.0,
    withdrawn: Collection[str] = frozenset(),
    total_rounds: int | None = None,
    points: PointsSystem | str = DEFAULT_POINTS,
    forbidden: Collection[frozenset[str]] = frozenset(),
) -> list[Pairing]:
    """The pairings of Swiss round ``round_no``, boards in order, the bye last.

    ``players`` are all registered players, ``results_so_far`` every result of the
    event (results of round ``round_no`` or later are ignored), ``withdrawn`` the ids
    no longer paired. A player without a result in round 1 is a late entry and starts
    from ``late_entries_score`` (for pairing only: standings count real points).
    The score of a bye is whatever its :class:`Result` says (see ``bye_score`` of the
    schedule). Scores are counted in the event's ``points`` system (score groups of
    2/1/0 are those of 1/½/0; in 3/1/0 a win and a loss outscore two draws), and
    ``late_entries_score`` is in those points too. ``total_rounds``, when given, turns
    on the look-ahead that keeps the remaining rounds pairable without rematches.
    ``forbidden`` pairs (two ids each) are kept apart like a rematch: this round and,
    in the look-ahead, the rest.

    The same input always gives the same pairings. When no pairing without a rematch
    (or without a second bye) exists, the least bad one is returned and every pairing
    that breaks a rule says so in its ``warning``.
    """
    if round_no < 1:
        raise TournamentError("rounds count from 1")
    check_players(players)
    past = sorted((r for r in results_so_far if r.round < round_no), key=lambda r: r.key)
    active = [p for p in seeded_order(players) if p.id not in set(withdrawn)]
    table = _standings(active, past, round_no, late_entries_score, points_system(points))
    for s in table:
        s.forbidden = {pid for pair in forbidden if s.id in pair for pid in pair if pid != s.id}
    if not table:
        return []
    nodes = [s.id for s in table] + ([BYE] if len(table) % 2 else [])
    by_id = {s.id: s for s in table}
    min_byes = min(s.byes for s in table)

    costs: dict[Edge, tuple[int, ...]] = {}
    for a, b in itertools.combinations(nodes, 2):
        costs[(a, b)] = _cost(by_id, a, b, min_byes, table)
    strict = {e: c for e, c in costs.items() if c[0] == 0}
    weights = _weights(costs, len(nodes) // 2)

    matching = _best_matching(nodes, strict, weights)
    if matching is None:
        matching = _best_matching(nodes, costs, weights)
        assert matching is not None  # the full graph is complete: always pairable
    elif total_rounds is not None and total_rounds > round_no:
        adjacency: dict[str, set[str]] = {n: set() for n in nodes}
        for a, b in strict:
            adjacency[a].add(b)
            adjacency[b].add(a)
        plan = _Plan(
            {n: frozenset(adj) for n, adj in adjacency.items()},
            {n: by_id[n].history if n in by_id else () for n in nodes},
            {n: i for i, n in enumerate(nodes)},
        )
        matching = _look_ahead(plan, (strict, weights, matching), by_id, total_rounds - round_no)
    return _boards(round_no, matching, by_id, costs)


def _standings(
    active: list[Player],
    past: list[Result],
    round_no: int,
    late_score: float,
    system: PointsSystem,
) -> list[_Standing]:
    """Scores, colour histories, opponents and byes of the active players, ranked."""
    table = {p.id: _Standing(p.id, i) for i, p in enumerate(active)}
    first_round: dict[str, int] = {}
    for r in past:
        for pid in r.players():
            first_round.setdefault(pid, r.round)
            s = table.get(pid)
            if s is None:
                continue
            s.score += system.points(r.score_of(pid))
            other = r.opponent_of(pid)
            if other is None:
                # a requested bye or an absence is no pairing-allocated bye: the
                # player may still get that one later (C.04.1)
                s.byes += r.allocated_bye
            else:
                s.met.add(other)
                if r.is_game:
                    s.colours.append(1 if pid == r.first else -1)
    for s in table.values():
        if round_no > 1 and first_round.get(s.id, round_no) > 1:
            s.score += late_score
    ranked = sorted(table.values(), key=lambda s: (-s.score, s.order))
    for rank, s in enumerate(ranked):
        s.rank = rank
    for _, group in itertools.groupby(ranked, key=lambda s: s.score):
        members = list(group)
        for i, s in enumerate(members):
            s.group_index, s.group_size = i, len(members)
    return ranked


# Cost components, most important first. Each is a small non-negative integer.
_REMATCH, _ABS_DIFF, _STREAK, _BYE, _SCORE, _STRONG, _MILD, _RANK = range(8)


def _colour_cost(history: History, colour: int) -> tuple[int, int, int, int]:
    """(abs diff, streak, strong, mild) rule breaks if a player gets ``colour``."""
    diff = sum(history)
    last = history[-1] if history else 0
    abs_diff = int(abs(diff + colour) > 2)
    streak = int(len(history) >= 2 and history[-2] == last == colour)
    strong = int(diff * colour > 0)
    mild = int(diff == 0 and last == colour)
    return abs_diff, streak, strong, mild


def _pair_colour_cost(a: History, b: History, a_colour: int) -> tuple[int, int, int, int]:
    ca, cb = _colour_cost(a, a_colour), _colour_cost(b, -a_colour)
    return (ca[0] + cb[0], ca[1] + cb[1], ca[2] + cb[2], ca[3] + cb[3])


def _allocate(a: History, b: History, *, a_higher: bool, board: int) -> int:
    """The colour ``a`` gets against ``b`` (+1 first, -1 second): the FIDE colour
    allocation rules, simplified.

    Least rule breaking first (so the stronger preference wins); then alternate from
    the most recent game where the two had different colours; then the higher-ranked
    player's alternation; with no history at all, the higher-ranked player moves first
    on odd boards and second on even boards.
    """
    a_first, b_first = _pair_colour_cost(a, b, 1), _pair_colour_cost(a, b, -1)
    if a_first != b_first:
        return 1 if a_first < b_first else -1
    for ca, cb in zip(reversed(a), reversed(b), strict=False):
        if ca != cb:
            return -ca
    hi, lo = (a, b) if a_higher else (b, a)
    if hi:
        hi_colour = -hi[-1]
    elif lo:
        hi_colour = lo[-1]
    else:
        hi_colour = 1 if board % 2 else -1
    return hi_colour if a_higher else -hi_colour


def _quarters(x: float) -> int:
    return round(abs(x) * 4)


def _cost(
    by_id: Mapping[str, _Standing], a: str, b: str, min_byes: int, table: list[_Standing]
) -> tuple[int, ...]:
    cost = [0] * 8
    if BYE in (a, b):
        s = by_id[b if a == BYE else a]
        cost[_REMATCH] = s.byes - min_byes
        cost[_BYE] = len(table) - 1 - s.rank  # 0 for the lowest-ranked player
        return tuple(cost)
    sa, sb = by_id[a], by_id[b]
    cost[_REMATCH] = int(b in sa.met or b in sa.forbidden)
    colours = min(
        _pair_colour_cost(sa.history, sb.history, 1), _pair_colour_cost(sa.history, sb.history, -1)
    )
    cost[_ABS_DIFF], cost[_STREAK], cost[_STRONG], cost[_MILD] = colours
    cost[_SCORE] = _quarters(sa.score - sb.score) ** 2
    if sa.score == sb.score:
        cost[_RANK] = abs(abs(sa.group_index - sb.group_index) - sa.group_size // 2)
    else:
        hi, lo = (sa, sb) if sa.score > sb.score else (sb, sa)
        cost[_RANK] = (hi.group_size - 1 - hi.group_index) + lo.group_index
    return tuple(cost)


def _weights(costs: Mapping[Edge, tuple[int, ...]], pairs: int) -> dict[Edge, int]:
    """Integer edge weights whose maximum-weight perfect matching minimises the costs
    lexicographically: each component outweighs all components after it together."""
    width = len(next(iter(costs.values()), ()))
    scale = [0] * width
    total = 0
    for c in reversed(range(width)):
        scale[c] = total + 1
        total += scale[c] * pairs * max((v[c] for v in costs.values()), default=0)
    top = total + 1
    return {e: top - sum(s * v for s, v in zip(scale, c, strict=True)) for e, c in costs.items()}


def _solve(nodes: Sequence[str], edges: Collection[Edge], weights: Mapping[Edge, int]) -> set[Edge]:
    graph: nx.Graph[str] = nx.Graph()
    graph.add_nodes_from(nodes)
    graph.add_weighted_edges_from((a, b, weights[(a, b)]) for a, b in edges)
    found = nx.max_weight_matching(graph, maxcardinality=True)
    order = {n: i for i, n in enumerate(nodes)}
    return {(a, b) if order[a] < order[b] else (b, a) for a, b in found}


def _best_matching(
    nodes: Sequence[str], edges: Collection[Edge], weights: Mapping[Edge, int]
) -> set[Edge] | None:
    matching = _solve(nodes, edges, weights)
    return matching if 2 * len(matching) == len(nodes) else None


def _ranked_matchings(
    nodes: Sequence[str], edges: Collection[Edge], weights: Mapping[Edge, int], best: set[Edge]
) -> Iterator[set[Edge]]:
    """Perfect matchings from the best down (Murty's partitioning), starting at ``best``."""
    counter = itertools.count()

    def value(m: set[Edge]) -> int:
        return sum(weights[e] for e in m)

    queue = [(-value(best), next(counter), best, frozenset[Edge](), frozenset[Edge]())]
    while queue:
        _, _, matching, forced, banned = heapq.heappop(queue)
        yield matching
        free = sorted(matching - forced)
        for i, edge in enumerate(free):
            keep = forced | set(free[:i])
            drop = banned | {edge}
            taken = {n for e in keep for n in e}
            rest = [n for n in nodes if n not in taken]
            sub = [e for e in edges if e not in drop and e[0] not in taken and e[1] not in taken]
            found = _best_matching(rest, sub, weights)
            if found is not None:
                whole = found | keep
                heapq.heappush(queue, (-value(whole), next(counter), whole, keep, drop))


class _OutOfBudgetError(Exception):
    pass


@dataclass(frozen=True)
class _Plan:
    """What the look-ahead needs: who may still meet whom, and everyone's colours."""

    adjacency: Mapping[str, frozenset[str]]
    histories: Mapping[str, History]
    order: Mapping[str, int]  # current ranking, standing in for future rankings
    strict: bool = False  # also keep everyone off a third colour in a row

    def without(self, mates: Mapping[str, str], colours: Mapping[str, int]) -> _Plan:
        """The plan after a round with these pairs and colours."""
        return _Plan(
            {n: adj - {mates[n]} for n, adj in self.adjacency.items()},
            {n: (*h, colours[n]) if n in colours else h for n, h in self.histories.items()},
            self.order,
            self.strict,
        )

    def colours_fit(self, a: str, b: str) -> bool:
        """True when ``a`` and ``b`` can meet without a colour difference beyond 2."""
        if BYE in (a, b):
            return True
        ha, hb = self.histories[a], self.histories[b]
        if self.strict:
            return not (
                any(_pair_colour_cost(ha, hb, 1)[:2]) and any(_pair_colour_cost(ha, hb, -1)[:2])
            )
        return not (_pair_colour_cost(ha, hb, 1)[0] and _pair_colour_cost(ha, hb, -1)[0])

    def colours(self, mates: Mapping[str, str]) -> dict[str, int]:
        """The colours of a future round with these pairs (boards unknown: as board 1)."""
        out = {}
        for a, b in mates.items():
            if BYE not in (a, b):
                higher = self.order[a] < self.order[b]
                out[a] = _allocate(self.histories[a], self.histories[b], a_higher=higher, board=1)
        return out


def _look_ahead(
    plan: _Plan,
    graph: tuple[Collection[Edge], Mapping[Edge, int], set[Edge]],
    by_id: Mapping[str, _Standing],
    rounds_left: int,
) -> set[Edge]:
    """The best matching after which ``rounds_left`` more rounds stay pairable without a
    rematch or a colour difference beyond 2 (or ``best`` when the look-ahead cannot help
    or runs out of budget). ``graph`` is (edges, weights, best matching)."""
    edges, weights, best = graph
    if _dirac(plan.adjacency, rounds_left + 1):
        return best
    budget = [_SEARCH_BUDGET]
    rounds = None
    for strict in (True, False):  # first try to avoid third colours in a row too
        plan = replace(plan, strict=strict)
        try:
            rounds = _decompose(plan, rounds_left + 1, budget)
        except _OutOfBudgetError:
            budget[0] = _SEARCH_BUDGET
            continue
        if rounds:
            break
    if not rounds:
        return best  # the remaining rounds break a rule whatever we do now
    fallback = {(a, b) for a, b in edges if rounds[0].get(a) == b}
    nodes = list(plan.adjacency)
    for tried, matching in enumerate(_ranked_matchings(nodes, edges, weights, best)):
        if tried >= _MAX_CANDIDATES:
            break
        mates = {a: b for e in matching for a, b in (e, e[::-1])}
        colours = {pid: c for pid, (_, c) in _round_colours(matching, by_id).items()}
        budget[0] = _SEARCH_BUDGET
        try:
            if _decompose(plan.without(mates, colours), rounds_left, budget) is not None:
                return matching
        except _OutOfBudgetError:
            return matching
    return fallback


def _dirac(adjacency: Mapping[str, Collection[str]], k: int) -> bool:
    """True when any ``k`` perfect matchings taken one after another are always
    possible: a minimum degree of ``n/2 + k - 1`` keeps Dirac's bound (n/2, which
    gives a Hamiltonian cycle, so a perfect matching) after ``k - 1`` removals.
    (Colours are not considered: they only get tight in small fields, below the bound.)"""
    n = len(adjacency)
    return n % 2 == 0 and (n == 0 or min(map(len, adjacency.values())) >= n / 2 + k - 1)


def _decompose(plan: _Plan, k: int, budget: list[int]) -> list[dict[str, str]] | None:
    """``k`` more rounds (as mates) without rematches or colour differences beyond 2,
    or None when there are none.

    The list may be shorter than ``k`` when Dirac's bound proves the rest exist."""
    if k <= 0 or _dirac(plan.adjacency, k):
        return []
    if len(plan.adjacency) % 2 or min(map(len, plan.adjacency.values())) < k:
        return None
    for mates in _perfect_matchings(plan, budget):
        tail = _decompose(plan.without(mates, plan.colours(mates)), k - 1, budget)
        if tail is not None:
            return [mates, *tail]
    return None


def _perfect_matchings(plan: _Plan, budget: list[int]) -> Iterator[dict[str, str]]:
    adjacency = plan.adjacency
    mates: dict[str, str] = {}

    def extend(free: frozenset[str]) -> Iterator[dict[str, str]]:
        budget[0] -= 1
        if budget[0] < 0:
            raise _OutOfBudgetError
        if not free:
            yield dict(mates)
            return
        node = min(free, key=lambda n: (len(adjacency[n] & free), n))
        for other in sorted(adjacency[node] & free):
            if plan.colours_fit(node, other):
                mates[node], mates[other] = other, node
                yield from extend(free - {node, other})
                del mates[node], mates[other]

    yield from extend(frozenset(adjacency))


def _round_colours(
    matching: Collection[Edge], by_id: Mapping[str, _Standing]
) -> dict[str, tuple[int, int]]:
    """Board number and colour of every player of this round (byes left out)."""
    games = [e for e in matching if BYE not in e]
    games.sort(
        key=lambda e: (
            -max(by_id[e[0]].score, by_id[e[1]].score),
            -(by_id[e[0]].score + by_id[e[1]].score),
            min(by_id[e[0]].rank, by_id[e[1]].rank),
        )
    )
    out = {}
    for board, (a, b) in enumerate(games, 1):
        sa, sb = by_id[a], by_id[b]
        colour = _allocate(sa.history, sb.history, a_higher=sa.rank < sb.rank, board=board)
        out[a], out[b] = (board, colour), (board, -colour)
    return out


def _boards(
    round_no: int,
    matching: set[Edge],
    by_id: Mapping[str, _Standing],
    costs: Mapping[Edge, tuple[int, ...]],
) -> list[Pairing]:
    seats = _round_colours(matching, by_id)
    games = sorted((e for e in matching if BYE not in e), key=lambda e: seats[e[0]][0])
    pairings = []
    for a, b in games:
        board, colour = seats[a]
        first, second = (by_id[a], by_id[b]) if colour == 1 else (by_id[b], by_id[a])
        notes = []
        if b in by_id[a].forbidden:
            notes.append(f"forbidden: {a} and {b} are kept apart")
        elif costs[(a, b)][_REMATCH]:
            notes.append(f"rematch: {a} and {b} have met before")
        for s, c in ((first, 1), (second, -1)):
            abs_diff, streak, _, _ = _colour_cost(s.history, c)
            if abs_diff:
                notes.append(f"colour: {s.id} gets a colour difference of 3")
            elif streak:
                notes.append(f"colour: {s.id} gets the same colour three times in a row")
        pairings.append(Pairing(round_no, board, first.id, second.id, warning="; ".join(notes)))
    for a, b in matching:
        if BYE in (a, b):
            pid = b if a == BYE else a
            note = f"second bye: {pid} has had a bye before" if costs[(a, b)][_REMATCH] else ""
            pairings.append(Pairing(round_no, len(pairings) + 1, pid, None, warning=note))
    return pairings
