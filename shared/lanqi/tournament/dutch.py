"""FIDE Dutch system pairings (Handbook C.04.3), through two pairing packages.

lanqi does not write its own Dutch engine: two packages made for it do the bracket
work, and this module is the bridge (history in, pairings out) plus what lanqi checks
itself.

- ``dutch``: the rules in force from 1 February 2026. Pairs by caissify-pairings
  (its ``dutch`` engine, cross-checked by its authors against bbpPairings); colours
  by :func:`allocate_colour` below, lanqi's own implementation of the colour
  allocation rules, because the package's ranks players by pairing number alone
  where the rules rank by score first (issue 22 measured other colours in 13 % of
  rounds).
- ``dutch-2017``: the rules of 2017 (in force until 31 January 2026), pairs and
  colours by py4swiss, which reads the history as a TRF (see :mod:`lanqi.tournament.trf`).

Both see the same history: a forfeited game is not "met" and gives no colour; a
forfeit win, a pairing-allocated bye or a full-point bye makes a player ineligible
for the bye; requested byes (half or zero point, asked before the round), withdrawn
players and late entries are left out of the round's pairing. Before any engine runs,
:func:`pairable` proves a legal pairing exists; if none does, :class:`NoValidPairingError`
says why in one line. After it runs, every pairing is checked against the absolute
rules (no rematch, no second bye, absolute colours outside the last round's top
scorers), so a package's bug cannot reach a board.

>>> ps = [Player(p, p.upper(), 2000.0 - 100 * i) for i, p in enumerate("abcd")]
>>> [(p.first, p.second) for p in dutch_pairings(ps, [], 1)]
[('a', 'c'), ('d', 'b')]
"""

from __future__ import annotations

import logging
import threading
import warnings
from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import networkx as nx
from caissify_pairings.engines.dutch import DutchEngine as CaissifyDutch
from py4swiss.dynamicuint import DynamicUint
from py4swiss.engines import DutchEngine as Py4SwissDutch
from py4swiss.engines.common import PairingError
from py4swiss.matching_computer import ComputerDutchOptimality
from py4swiss.trf import ParsedTrf
from py4swiss.trf.codes import PlayerCode, TournamentCode, XCode
from py4swiss.trf.exceptions import ParsingError
from py4swiss.trf.sections import PlayerSection, TournamentSection, XSection
from py4swiss.trf.trf_line import TrfLine

from lanqi.tournament.model import Pairing, Player, Result, TournamentError, seeded_order
from lanqi.tournament.scoring import DEFAULT_POINTS, PointsSystem, points_system
from lanqi.tournament.trf import trf_text

__all__ = [
    "DUTCH_SYSTEMS",
    "PAIRING_SYSTEMS",
    "NoValidPairingError",
    "allocate_colour",
    "dutch_pairings",
    "history",
]

log = logging.getLogger(__name__)

PairingSystem = Literal["dutch", "dutch-2017", "lanqi"]
#: Every Swiss pairing system, the default of new events first.
PAIRING_SYSTEMS: tuple[str, ...] = ("dutch", "dutch-2017", "lanqi")
DUTCH_SYSTEMS: tuple[str, ...] = ("dutch", "dutch-2017")
WHITE, BLACK = 1, -1


class NoValidPairingError(TournamentError):
    """No pairing of the round keeps the absolute rules; the message says why."""


@dataclass
class Entry:
    """One player's pairing history, as the Dutch rules read it."""

    id: str
    tpn: int  # tournament pairing number (1 = top seed)
    score: float = 0.0  # pairing score (with acceleration and late-entry points)
    colours: list[int] = field(default_factory=list)  # played games only: +1 first
    floats: list[str] = field(default_factory=list)  # one per round taken part in
    met: set[str] = field(default_factory=set)  # opponents of played games
    full_byes: int = 0  # unplayed rounds worth a win: no pairing-allocated bye now

    @property
    def diff(self) -> int:
        return sum(self.colours)

    def preference(self) -> tuple[int, int]:
        """(colour, strength): strength 3 absolute, 2 strong, 1 mild, 0 none."""
        h = self.colours
        if not h:
            return 0, 0
        d = self.diff
        if d > 1:
            return BLACK, 3
        if d < -1:
            return WHITE, 3
        if len(h) >= 2 and h[-1] == h[-2]:
            return -h[-1], 3
        if d:
            return -d, 2
        return -h[-1], 1

    def absolute_block(self) -> int:
        """The colour this player may not get (0: none)."""
        colour, strength = self.preference()
        return -colour if strength == 3 else 0


def history(  # noqa: PLR0912, PLR0913 - one branch per kind of round; keyword-only options
    players: Sequence[Player],
    results: Collection[Result],
    round_no: int,
    *,
    late_entries_score: float = 0.0,
    accelerated: bool = False,
    points: PointsSystem | str = DEFAULT_POINTS,
) -> dict[str, Entry]:
    """Every player's :class:`Entry` before round ``round_no``, keyed by id; scores
    in the event's ``points`` (score brackets of 3/1/0 are not those of 1/½/0).

    A pairing-allocated bye (whatever it is worth) or a forfeit win makes a player
    ineligible for the bye (C.04.1: "a participant who has already received a
    pairing-allocated bye, or has already scored a (forfeit) win due to an opponent
    not appearing in time"); a requested bye or an absence does not."""
    system = points_system(points)
    ordered = seeded_order(players)
    table = {p.id: Entry(p.id, i) for i, p in enumerate(ordered, start=1)}
    past = sorted((r for r in results if r.round < round_no), key=lambda r: r.key)
    before: dict[str, float] = dict.fromkeys(table, 0.0)
    first_round: dict[str, int] = {}
    for rnd in sorted({r.round for r in past}):
        in_round = [r for r in past if r.round == rnd]
        for r in in_round:
            for pid in r.players():
                first_round.setdefault(pid, rnd)
                e = table.get(pid)
                if e is None:
                    continue
                score = r.score_of(pid)
                other = r.opponent_of(pid)
                if r.is_game and other is not None:
                    e.met.add(other)
                    e.colours.append(WHITE if pid == r.first else BLACK)
                    mine, theirs = before[pid], before.get(other, 0.0)
                    e.floats.append("down" if mine > theirs else "up" if mine < theirs else "none")
                else:
                    e.floats.append("down" if score > 0 else "none")
                    if r.allocated_bye or (r.kind == "forfeit" and score == 1.0):
                        e.full_byes += 1
        for r in in_round:
            for pid in r.players():
                if pid in before:
                    before[pid] += system.points(r.score_of(pid))
    for pid, e in table.items():
        e.score = before[pid]
        if round_no > 1 and first_round.get(pid, round_no) > 1:
            e.score += late_entries_score
    if accelerated:
        for pid, virtual in baku_points(ordered, round_no, system.win).items():
            table[pid].score += virtual
    return table


def baku_points(ordered: Sequence[Player], round_no: int, win: float = 1.0) -> dict[str, float]:
    """Baku acceleration (C.04.5.1, simplified to its usual form): the top half of the
    seeded order, rounded up, has one virtual point (a ``win``'s points) in rounds 1
    and 2."""
    if round_no > 2:
        return {}
    top = (len(ordered) + 1) // 2
    return {p.id: win for p in ordered[:top]}


def allocate_colour(a: Entry, b: Entry, *, initial: int = WHITE) -> int:
    """The colour ``a`` gets against ``b`` (+1 first, -1 second), by the Dutch colour
    allocation rules (C.04.3 2026, article 5.2; E.1-E.5 in 2017), in order:

    1. grant both colour preferences;
    2. grant the stronger preference (both absolute: the wider colour difference);
    3. alternate from the most recent round in which one had the first move and the
       other the second (played games, counted back from each one's last);
    4. grant the higher-ranked player's preference (rank: score, then TPN);
    5. the higher-ranked player gets the initial colour if their TPN is odd, the
       other colour if it is even.

    >>> allocate_colour(Entry("a", 1), Entry("b", 2))
    1
    >>> allocate_colour(Entry("a", 1, colours=[1]), Entry("b", 2, colours=[1, -1]))
    -1
    """
    ca, sa = a.preference()
    cb, sb = b.preference()
    if ca and cb and ca != cb:
        return ca
    if sa != sb:
        return ca if sa > sb else -cb
    if sa == 3 and abs(a.diff) != abs(b.diff):
        return ca if abs(a.diff) > abs(b.diff) else -cb
    for x, y in zip(reversed(a.colours), reversed(b.colours), strict=False):
        if x != y:
            return -x
    a_higher = (a.score, -a.tpn) > (b.score, -b.tpn)
    high = a if a_higher else b
    colour = high.preference()[0]
    if not colour:
        colour = initial if high.tpn % 2 else -initial
    return colour if a_higher else -colour


def _top_scorers(table: Mapping[str, Entry], last_round: bool, max_score: float) -> set[str]:
    """Players above half the maximum score in the last round (they may meet in spite
    of absolute colour preferences: C.04.3 topscorers)."""
    if not last_round:
        return set()
    return {pid for pid, e in table.items() if e.score > max_score / 2}


def _compatible(a: Entry, b: Entry, topscorers: Collection[str]) -> bool:
    if b.id in a.met:
        return False
    if a.id in topscorers or b.id in topscorers:
        return True
    block_a, block_b = a.absolute_block(), b.absolute_block()
    # a gets WHITE and b BLACK, or the other way round
    return not ((block_a == WHITE or block_b == BLACK) and (block_a == BLACK or block_b == WHITE))


def pairable(
    table: Mapping[str, Entry], ids: Sequence[str], topscorers: Collection[str]
) -> str | None:
    """``None`` when ``ids`` can be paired by the absolute rules, else the reason."""
    bye = "\x00bye" if len(ids) % 2 else None
    graph: nx.Graph[str] = nx.Graph()
    graph.add_nodes_from(ids)
    for i, a in enumerate(ids):
        for b in ids[i + 1 :]:
            if _compatible(table[a], table[b], topscorers):
                graph.add_edge(a, b)
    eligible = [pid for pid in ids if table[pid].full_byes == 0]
    if bye is not None:
        graph.add_node(bye)
        graph.add_edges_from((bye, pid) for pid in eligible)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matching) == graph.number_of_nodes():
        return None
    matched = {n for edge in matching for n in edge}
    left = sorted((n for n in graph.nodes if n not in matched and n != bye), key=str)
    if bye is not None and not eligible:
        return "every player has had a bye or a forfeit win, and the count is odd"
    return (
        "every pairing needs a rematch or a forbidden pair, or breaks an absolute colour rule "
        f"(cannot place {', '.join(left) or 'the bye'})"
    )


def _check(
    pairs: Sequence[tuple[str, str | None]],
    table: Mapping[str, Entry],
    ids: Sequence[str],
    topscorers: Collection[str],
) -> None:
    seen = [pid for pair in pairs for pid in pair if pid is not None]
    if sorted(seen) != sorted(ids):
        raise TournamentError("the pairing engine did not pair every player exactly once")
    byes = [a for a, b in pairs if b is None]
    if len(byes) > len(ids) % 2:
        raise TournamentError("the pairing engine gave more than one bye")
    for a, b in pairs:
        if b is None:
            if table[a].full_byes and any(table[p].full_byes == 0 for p in ids):
                raise TournamentError(f"the pairing engine gave {a} a second bye")
        elif not _compatible(table[a], table[b], topscorers):
            raise TournamentError(f"the pairing engine broke an absolute rule: {a} - {b}")


def dutch_pairings(  # noqa: PLR0913 - keyword-only: the round's circumstances
    players: Sequence[Player],
    results_so_far: Collection[Result],
    round_no: int,
    *,
    system: str = "dutch",
    total_rounds: int | None = None,
    withdrawn: Collection[str] = frozenset(),
    requested_byes: Mapping[str, float] | None = None,
    late_entries_score: float = 0.0,
    accelerated: bool = False,
    forbidden: Collection[frozenset[str]] = frozenset(),
    points: PointsSystem | str = DEFAULT_POINTS,
    bye_points: float | None = None,
) -> list[Pairing]:
    """The pairings of round ``round_no`` by the FIDE Dutch ``system`` (``dutch`` or
    ``dutch-2017``), boards in the published order, byes last.

    Scores are the event's ``points`` (the Dutch rules pair by score: in 3/1/0 a
    win and a loss outscore two draws, so the brackets differ from 1/½/0);
    ``bye_points`` is what the pairing-allocated bye is worth in them (default: a
    win). py4swiss reads both from the TRF's ``XXS``; caissify-pairings counts in
    1/½/0 only, so it is given every score divided by a win's points (brackets and
    their order unchanged, the top scorers' threshold exact; its score-difference
    weights see a 3/1/0 draw as a third of a win).

    ``forbidden`` pairs (two ids each: same club, family) are never paired, as if the
    two had met: the pairing programs' forbidden pairs (TRF ``XXP``) work so.

    ``requested_byes`` maps players who asked before the round not to be paired to
    the points of their bye (0.5 or 0): they get a bye pairing marked ``requested
    bye`` and are not paired. ``withdrawn`` players are left out. Raises
    :class:`NoValidPairingError` when no pairing keeps the absolute rules.
    """
    if system not in DUTCH_SYSTEMS:
        raise TournamentError(f"unknown Dutch system {system!r}; known: dutch, dutch-2017")
    rounds = total_rounds or round_no
    requested = dict(requested_byes or {})
    system_points = points_system(points)
    table = history(
        players,
        results_so_far,
        round_no,
        late_entries_score=late_entries_score,
        accelerated=accelerated,
        points=system_points,
    )
    for pair in forbidden:
        if len(pair) == 2 and pair <= table.keys():
            one, other = sorted(pair)
            table[one].met.add(other)
            table[other].met.add(one)
    gone = set(withdrawn) | set(requested)
    ids = [pid for pid, _ in sorted(table.items(), key=lambda kv: kv[1].tpn) if pid not in gone]
    top = _top_scorers(
        {pid: table[pid] for pid in ids}, round_no == rounds, (round_no - 1) * system_points.win
    )
    reason = pairable(table, ids, top)
    if reason is not None:
        raise NoValidPairingError(f"no valid pairing for round {round_no}: {reason}")
    if len(ids) < 2:
        pairs: list[tuple[str, str | None]] = [(pid, None) for pid in ids]
    elif system == "dutch":
        win = system_points.win
        virtual = baku_points(seeded_order(players), round_no, win) if accelerated else {}
        pairs = _caissify(table, ids, round_no, rounds, virtual, win)
    else:
        pairs = _py4swiss(
            players,
            results_so_far,
            round_no,
            rounds,
            ids,
            late_entries_score,
            accelerated,
            forbidden,
            system_points,
            bye_points,
        )
    _check(pairs, table, ids, top)
    games = [(a, b) for a, b in pairs if b is not None]
    games.sort(key=lambda ab: _board_key(table[ab[0]], table[ab[1]]))
    out = [Pairing(round_no, i, a, b) for i, (a, b) in enumerate(games, start=1)]
    board = len(out)
    for a, b in pairs:
        if b is None:
            board += 1
            out.append(Pairing(round_no, board, a, None))
    for pid in sorted(requested, key=lambda p: table[p].tpn if p in table else 0):
        if pid in table and pid not in set(withdrawn):
            board += 1
            note = f"requested bye ({requested[pid]:g} point)"
            out.append(Pairing(round_no, board, pid, None, warning=note))
    return out


def _board_key(a: Entry, b: Entry) -> tuple[float, float, int]:
    """Publishing order: the higher-ranked player's score, both scores, that player's TPN."""
    hi, lo = (a, b) if (a.score, -a.tpn) > (b.score, -b.tpn) else (b, a)
    return (-hi.score, -(hi.score + lo.score), hi.tpn)


#: caissify-pairings' matchings by the compiled matcher (see ``_max_weight_matching``);
#: False: by networkx, as the package does on its own (the tests compare the two)
COMPILED_MATCHING = True
#: set (per thread) while caissify-pairings pairs a round for lanqi
_COMPILED = threading.local()
_NX_MATCHING = nx.max_weight_matching


def _dynamic_uint(value: int, parts: int) -> DynamicUint:
    """``value`` as py4swiss's ``DynamicUint`` of ``parts`` 32-bit parts."""
    out = DynamicUint(1)
    out.shift_grow(32 * (parts - 1))
    out -= out  # zero, with the parts
    for k in range(parts - 1, -1, -1):
        out <<= 32
        out |= (value >> (32 * k)) & 0xFFFFFFFF
    return out


@dataclass
class _Matcher:
    """The compiled matcher of one caissify round, kept between its matchings (as
    bbpPairings keeps its own): each new graph only resets the edges that changed."""

    nodes: list[int]
    parts: int
    width: int
    computer: ComputerDutchOptimality
    weights: dict[tuple[int, int], int] = field(default_factory=dict)
    values: dict[int, DynamicUint] = field(default_factory=dict)

    def value(self, weight: int) -> DynamicUint:
        got = self.values.get(weight)
        if got is None:
            got = self.values[weight] = _dynamic_uint(weight, self.parts)
        return got


def _compiled_matching(graph: nx.Graph[int], weight: str) -> set[tuple[int, int]]:
    """A maximum weight matching of ``graph`` by py4swiss's compiled blossom matcher
    (bbpPairings' matching computer, in C++), in networkx's answer shape. Edge weights
    must be positive integers; every edge weight of caissify's Dutch graphs carries a
    top "pair them" component, so a maximum weight matching is also of maximum
    cardinality, as ``maxcardinality=True`` asks. Within one caissify round the
    matcher is kept and only the edges whose weight changed are set again."""
    nodes = list(graph.nodes)
    index = {v: i for i, v in enumerate(nodes)}
    weights: dict[tuple[int, int], int] = {}
    for u, nbrs in graph.adj.items():
        iu = index[u]
        for v, data in nbrs.items():
            iv = index[v]
            w = int(data.get(weight, 1))
            if iu < iv and w > 0:
                weights[iu, iv] = w
    if not weights:
        return set()
    top = max(weights.values()).bit_length() + 2  # the matcher's 2-bit margin
    matcher: _Matcher | None = getattr(_COMPILED, "matcher", None)
    if matcher is None or matcher.nodes != nodes or top > matcher.width:
        width = top + 16  # room for the round's later weights
        parts = (width + 31) // 32
        computer = ComputerDutchOptimality(len(nodes), _dynamic_uint((1 << width) - 1, parts))
        for _ in nodes:
            computer.add_vertex()
        matcher = _Matcher(nodes, parts, width, computer)
        _COMPILED.matcher = matcher
    old = matcher.weights
    for key in old.keys() - weights.keys():
        matcher.computer.set_edge_weight(key[0], key[1], matcher.value(0))
    for key, w in weights.items():
        if old.get(key) != w:
            matcher.computer.set_edge_weight(key[0], key[1], matcher.value(w))
    matcher.weights = weights
    matcher.computer.compute_matching()
    mate = matcher.computer.get_matching()
    return {(nodes[i], nodes[j]) for i, j in enumerate(mate) if i < j}


def _max_weight_matching(
    graph: nx.Graph[int], maxcardinality: bool = False, weight: str = "weight"
) -> set[tuple[int, int]]:
    """networkx's ``max_weight_matching``, answered by the compiled matcher while
    caissify-pairings pairs a round for lanqi (this thread only), else by networkx."""
    if maxcardinality and getattr(_COMPILED, "on", False):
        return _compiled_matching(graph, weight)
    found: set[tuple[int, int]] = _NX_MATCHING(graph, maxcardinality=maxcardinality, weight=weight)
    return found


# caissify-pairings imports networkx inside its engine and calls
# nx.max_weight_matching dozens of times a round (bbpPairings' bracket-by-bracket
# scheme): in pure Python that is almost all of a round's time (a 128-player round:
# 37-51 s). The function is swapped here for one that uses the compiled matcher while
# lanqi's caissify call runs on this thread; every other caller gets networkx's.
nx.max_weight_matching = _max_weight_matching  # type: ignore[assignment]


def _caissify(  # noqa: PLR0913, PLR0917 - the bridge's inputs, private
    table: Mapping[str, Entry],
    ids: Sequence[str],
    round_no: int,
    rounds: int,
    virtual: Mapping[str, float],
    win: float = 1.0,
) -> list[tuple[str, str | None]]:
    """Pairs by caissify-pairings, colours by :func:`allocate_colour`. ``virtual``:
    the Baku points in the scores, taken out again and given to the engine as its own
    acceleration option (its round 1 ignores scores otherwise). Scores go in as
    wins (points / ``win``): the engine counts 1/½/0."""
    number = {pid: table[pid].tpn for pid in ids}
    by_number = {n: pid for pid, n in number.items()}
    players = []
    previous: set[tuple[int, int]] = set()
    for pid in ids:
        e = table[pid]
        players.append(
            {
                "id": e.tpn,
                "name": pid,
                "score": (e.score - virtual.get(pid, 0.0)) / win,
                "rating": 0,
                "pairing_number": e.tpn,
                "starting_number": e.tpn,
                "color_hist": ["white" if c == WHITE else "black" for c in e.colours],
                "float_history": list(e.floats),
                "bye_count": e.full_byes,
                "forfeit_win_count": 0,
            }
        )
        for other in e.met:
            if other in number:
                previous.add((min(e.tpn, number[other]), max(e.tpn, number[other])))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        engine = CaissifyDutch(
            players=players,
            previous_pairings=previous,
            round_number=round_no,
            total_rounds=rounds,
            accelerated=bool(virtual),
        )
        if round_no == 1 and previous:
            # caissify's round 1 is the plain top-half/bottom-half split, blind to
            # forbidden pairs (given as previous pairings); its bracket matching,
            # the path an accelerated round 1 takes, honours them. The flag is read
            # only there once the engine is built (virtual points are added at build)
            engine.accelerated = True
        _COMPILED.on = COMPILED_MATCHING
        try:
            raw = engine.generate_pairings()
        finally:
            _COMPILED.on = False
            _COMPILED.matcher = None
    pairs: list[tuple[str, str | None]] = []
    for p in raw:
        white, black = p.get("white_id"), p.get("black_id")
        if black is None or p.get("bye"):
            pairs.append((by_number[white], None))
            continue
        a, b = table[by_number[white]], table[by_number[black]]
        pairs.append((a.id, b.id) if allocate_colour(a, b) == WHITE else (b.id, a.id))
    return pairs


def _py4swiss(  # noqa: PLR0913, PLR0917 - the bridge's inputs, private
    players: Sequence[Player],
    results: Collection[Result],
    round_no: int,
    rounds: int,
    ids: Sequence[str],
    late_entries_score: float,
    accelerated: bool,
    forbidden: Collection[frozenset[str]],
    points: PointsSystem,
    bye_points: float | None,
) -> list[tuple[str, str | None]]:
    ordered = seeded_order(players)
    past = [r for r in results if r.round < round_no]
    # late entries: a zero-point absence for each round missed, plus their
    # pairing points as virtual points (XXA) in every round from then on
    first_round: dict[str, int] = {}
    for r in sorted(past, key=lambda r: r.round):
        for pid in r.players():
            first_round.setdefault(pid, r.round)
    accelerations: dict[str, list[float]] = {}
    for p in ordered:
        virtual = [0.0] * rounds
        if late_entries_score and round_no > 1 and first_round.get(p.id, round_no) > 1:
            virtual[round_no - 1] += late_entries_score
        if accelerated:
            for rnd in (1, 2):
                if rnd == round_no:
                    virtual[rnd - 1] += baku_points(ordered, rnd, points.win).get(p.id, 0.0)
        accelerations[p.id] = virtual
    text = trf_text(
        ordered,
        past,
        name="lanqi",
        rounds=max(rounds, round_no),
        zeroed=[p.id for p in ordered if p.id not in set(ids)],
        accelerations=accelerations,
        points=points,
        bye_points=bye_points,
    )
    trf = _parse_trf(text)
    tpn = {p.id: i for i, p in enumerate(ordered, start=1)}
    trf.x_section.forbidden_pairs = {  # type: ignore[attr-defined]
        (tpn[a], tpn[b])
        for a, b in (sorted(pair) for pair in forbidden if len(pair) == 2)
        if a in tpn and b in tpn
    }
    try:
        found = Py4SwissDutch.generate_pairings(trf)
    except PairingError as exc:
        raise NoValidPairingError(f"no valid pairing for round {round_no}: {exc}") from None
    number = {i: p.id for i, p in enumerate(ordered, start=1)}
    return [(number[p.white], number[p.black] if p.black else None) for p in found]


def _parse_trf(text: str) -> object:
    """py4swiss's parsed TRF from text (its parser reads files; this is the same
    steps on lines)."""
    lines: dict[object, list[TrfLine]] = defaultdict(list)
    for i, raw in enumerate(text.splitlines()):
        if raw.startswith("132"):
            # round dates: py4swiss 0.3.1 reads one every 9 columns where TRF-2026
            # puts one every 10 (92-99, 102-109, ...); the engine does not need them
            continue
        try:
            line = TrfLine(i, raw.rstrip())
        except ParsingError:
            continue  # tags py4swiss does not know (the TRF-2026 ones): skipped
        lines[line.code_type].append(line)
    trf = ParsedTrf(
        player_sections=[PlayerSection.from_string(str(x)) for x in lines[PlayerCode]],
        team_sections=[],
        tournament_section=TournamentSection.from_lines(lines[TournamentCode]),
        x_section=XSection.from_lines(lines[XCode]),
    )
    trf.validate_contents()
    return trf
