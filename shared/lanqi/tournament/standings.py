"""Standings with tie-breaks, and crosstables.

Points are what the results say (1, 0.5, 0 per game; a bye is worth what its result
says). Tie-breaks, in the order asked for, separate players level on points:

- ``sonneborn_berger``: the scores of the opponents beaten plus half the scores of
  the opponents drawn with;
- ``buchholz``: the sum of the opponents' scores; ``buchholz_cut1`` without the
  lowest one;
- ``head_to_head``: points scored in the games among the tied players, used only when
  each of them has met each other one (otherwise it gives 0 to all);
- ``wins``: games won, forfeit wins included, byes not;
- ``cumulative``: the sum of the running score after each round (early points weigh
  more).

Unplayed rounds (byes, forfeits, rounds without a result) follow FIDE's rule of
2009-2022 when ``unplayed="virtual"`` (the default): for the player's own tie-breaks
an unplayed round ``R`` is a game against a virtual opponent who had the player's score
before the round, got the opposite result, and draws every later round
(``Svon = SPR + (1 - SfPR) + 0.5 * (n - R)``); for the opponents' tie-breaks a
player's unplayed rounds count as draws. ``unplayed="as_played"`` (round robins)
takes forfeits as ordinary results against the real opponent and leaves byes out.

>>> players = [Player(p, p.upper()) for p in "abc"]
>>> results = [Result(1, 1, "a", "b", 1.0), Result(2, 1, "b", "c", 0.5),
...            Result(3, 1, "c", "a", 0.5)]
>>> [(r.rank, r.player.id, r.points, r.tiebreaks["sonneborn_berger"])
...  for r in standings(players, results, unplayed="as_played")]
[(1, 'a', 1.5, 1.0), (2, 'c', 1.0, 1.0), (3, 'b', 0.5, 0.5)]
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from lanqi.tournament.model import (
    Player,
    Result,
    ResultKind,
    TournamentError,
    check_players,
    seeded_order,
)

__all__ = [
    "DEFAULT_TIEBREAKS",
    "TIEBREAKS",
    "CrossEntry",
    "Crosstable",
    "StandingRow",
    "Unplayed",
    "crosstable",
    "standings",
]

Unplayed = Literal["virtual", "as_played"]
DEFAULT_TIEBREAKS = ("sonneborn_berger", "buchholz", "head_to_head", "wins")


@dataclass(frozen=True, slots=True)
class StandingRow:
    """One line of the standings. Players with equal points and tie-breaks share a rank."""

    rank: int
    player: Player
    points: float
    games: int  # games with an opponent: played, forfeited, double forfeits
    wins: int
    draws: int
    losses: int
    byes: int
    tiebreaks: dict[str, float] = field(default_factory=dict, hash=False)


@dataclass
class _Record:
    """One player's results, by round, and the derived values tie-breaks need."""

    player: Player
    results: list[Result] = field(default_factory=list)

    def points(self) -> float:
        return sum(r.score_of(self.player.id) for r in self.results)

    def played(self) -> list[Result]:
        return [r for r in self.results if r.is_game]

    def with_opponent(self) -> list[Result]:
        return [r for r in self.results if r.second is not None]


class _Context:
    """Everything the tie-break functions share."""

    def __init__(self, records: Mapping[str, _Record], rounds: int, unplayed: Unplayed) -> None:
        self.records = records
        self.rounds = rounds
        self.unplayed = unplayed
        self.points = {pid: rec.points() for pid, rec in records.items()}
        self.adjusted = {pid: self._adjusted(rec) for pid, rec in records.items()}

    def _adjusted(self, rec: _Record) -> float:
        """The player's score as their opponents' tie-breaks see it."""
        if self.unplayed == "as_played":
            return rec.points()
        pid = rec.player.id
        played_rounds = {r.round for r in rec.played()}
        unplayed = sum(1 for rnd in range(1, self.rounds + 1) if rnd not in played_rounds)
        return sum(r.score_of(pid) for r in rec.played()) + 0.5 * unplayed

    def opponent_scores(self, pid: str) -> list[tuple[float, float]]:
        """(own score, opponent's score) for every game or unplayed round."""
        rec = self.records[pid]
        if self.unplayed == "as_played":
            return [
                (r.score_of(pid), self.points.get(str(r.opponent_of(pid)), 0.0))
                for r in rec.with_opponent()
            ]
        pairs = [
            (r.score_of(pid), self.adjusted.get(str(r.opponent_of(pid)), 0.0)) for r in rec.played()
        ]
        played_rounds = {r.round for r in rec.played()}
        before = 0.0
        for rnd in range(1, self.rounds + 1):
            in_round = sum(r.score_of(pid) for r in rec.results if r.round == rnd)
            if rnd not in played_rounds:
                virtual = before + (1.0 - in_round) + 0.5 * (self.rounds - rnd)
                pairs.append((in_round, virtual))
            before += in_round
        return pairs


def _sonneborn_berger(ctx: _Context, pid: str, _group: Collection[str]) -> float:
    return sum(own * opp for own, opp in ctx.opponent_scores(pid))


def _buchholz(ctx: _Context, pid: str, _group: Collection[str]) -> float:
    return sum(opp for _, opp in ctx.opponent_scores(pid))


def _buchholz_cut1(ctx: _Context, pid: str, _group: Collection[str]) -> float:
    scores = sorted(opp for _, opp in ctx.opponent_scores(pid))
    return sum(scores[1:])


def _wins(ctx: _Context, pid: str, _group: Collection[str]) -> float:
    return sum(1 for r in ctx.records[pid].with_opponent() if r.score_of(pid) == 1.0)


def _cumulative(ctx: _Context, pid: str, _group: Collection[str]) -> float:
    total = running = 0.0
    results = ctx.records[pid].results
    for rnd in range(1, ctx.rounds + 1):
        running += sum(r.score_of(pid) for r in results if r.round == rnd)
        total += running
    return total


def _head_to_head(ctx: _Context, pid: str, group: Collection[str]) -> float:
    others = set(group) - {pid}
    if not others:
        return 0.0
    met: set[frozenset[str]] = set()
    for member in group:
        for r in ctx.records[member].with_opponent():
            other = r.opponent_of(member)
            if other in group:
                met.add(frozenset((member, str(other))))
    if len(met) < len(group) * (len(group) - 1) // 2:
        return 0.0
    return sum(
        r.score_of(pid) for r in ctx.records[pid].with_opponent() if r.opponent_of(pid) in others
    )


TieBreak = Callable[[_Context, str, Collection[str]], float]
#: Every tie-break by name.
TIEBREAKS: dict[str, TieBreak] = {
    "sonneborn_berger": _sonneborn_berger,
    "buchholz": _buchholz,
    "buchholz_cut1": _buchholz_cut1,
    "head_to_head": _head_to_head,
    "wins": _wins,
    "cumulative": _cumulative,
}


def check_tiebreaks(tiebreaks: Sequence[str]) -> None:
    """Raise :class:`TournamentError` for an unknown or repeated tie-break name."""
    unknown = [t for t in tiebreaks if t not in TIEBREAKS]
    if unknown:
        raise TournamentError(
            f"unknown tie-break {unknown[0]!r}; known: {', '.join(sorted(TIEBREAKS))}"
        )
    if len(set(tiebreaks)) != len(tiebreaks):
        raise TournamentError("a tie-break is listed twice")


def _records(players: Sequence[Player], results: Collection[Result]) -> dict[str, _Record]:
    check_players(players)
    records = {p.id: _Record(p) for p in players}
    for r in sorted(results, key=lambda r: r.key):
        for pid in r.players():
            if pid not in records:
                raise TournamentError(f"result of round {r.round} names unknown player {pid!r}")
            records[pid].results.append(r)
    return records


def standings(
    players: Sequence[Player],
    results: Collection[Result],
    tiebreaks: Sequence[str] = DEFAULT_TIEBREAKS,
    *,
    rounds: int | None = None,
    unplayed: Unplayed = "virtual",
) -> list[StandingRow]:
    """The standings: by points, then each tie-break in turn; full ties share a rank
    and are listed in seeded order.

    ``rounds`` is the ``n`` of the virtual-opponent rule (default: the last round with
    a result, so interim standings treat the event as ending now).
    """
    check_tiebreaks(tiebreaks)
    if unplayed not in ("virtual", "as_played"):
        raise TournamentError("unplayed is 'virtual' or 'as_played'")
    records = _records(players, results)
    n = rounds if rounds is not None else max((r.round for r in results), default=0)
    ctx = _Context(records, n, unplayed)

    keys: dict[str, list[float]] = {pid: [ctx.points[pid]] for pid in records}
    values: dict[str, dict[str, float]] = {pid: {} for pid in records}
    for name in tiebreaks:
        groups: dict[tuple[float, ...], list[str]] = defaultdict(list)
        for pid in records:
            groups[tuple(keys[pid])].append(pid)
        for group in groups.values():
            for pid in group:
                value = TIEBREAKS[name](ctx, pid, group)
                values[pid][name] = value
                keys[pid].append(value)

    order = {p.id: i for i, p in enumerate(seeded_order(players))}
    ranked = sorted(records, key=lambda pid: ([-k for k in keys[pid]], order[pid]))
    rows: list[StandingRow] = []
    for position, pid in enumerate(ranked, 1):
        rank = position
        if rows and keys[rows[-1].player.id] == keys[pid]:
            rank = rows[-1].rank
        rec = records[pid]
        games = rec.with_opponent()
        rows.append(
            StandingRow(
                rank=rank,
                player=rec.player,
                points=ctx.points[pid],
                games=len(games),
                wins=sum(1 for r in games if r.score_of(pid) == 1.0),
                draws=sum(1 for r in games if r.score_of(pid) == 0.5),
                losses=sum(1 for r in games if r.score_of(pid) == 0.0),
                byes=len(rec.results) - len(games),
                tiebreaks=values[pid],
            )
        )
    return rows


@dataclass(frozen=True, slots=True)
class CrossEntry:
    """One game (or bye) of a player, as a crosstable shows it."""

    round: int
    opponent: str | None
    seat: Literal["first", "second"] | None
    score: float
    kind: ResultKind
    game_no: int = 0

    @property
    def code(self) -> str:
        """The result as the FIDE tournament report file writes it: ``1 = 0`` played,
        ``+ -`` forfeit won/lost, ``F H Z`` full, half and zero-point bye."""
        if self.kind == "bye":
            return {1.0: "F", 0.5: "H"}.get(self.score, "Z")
        if self.kind == "played":
            return {1.0: "1", 0.5: "="}.get(self.score, "0")
        return "+" if self.score == 1.0 else "-"


@dataclass(frozen=True, slots=True)
class Crosstable:
    """Players in standings order, numbered from 1, with their games round by round."""

    rows: tuple[StandingRow, ...]
    entries: dict[str, tuple[CrossEntry, ...]] = field(hash=False)

    @property
    def numbers(self) -> dict[str, int]:
        """Player id -> line number in the table."""
        return {row.player.id: i for i, row in enumerate(self.rows, 1)}

    @property
    def rounds(self) -> int:
        """The last round with an entry."""
        return max((e.round for es in self.entries.values() for e in es), default=0)

    @property
    def is_round_robin(self) -> bool:
        """True when every player has met every other: the matrix form fits."""
        ids = [row.player.id for row in self.rows]
        met = {
            frozenset((pid, e.opponent))
            for pid, es in self.entries.items()
            for e in es
            if e.opponent is not None
        }
        return len(ids) > 1 and all(frozenset(p) in met for p in itertools.combinations(ids, 2))

    def cell(self, player: str, opponent: str) -> tuple[float, ...]:
        """``player``'s scores against ``opponent``, in round order (empty: not met)."""
        return tuple(e.score for e in self.entries[player] if e.opponent == opponent)


def crosstable(
    players: Sequence[Player],
    results: Collection[Result],
    tiebreaks: Sequence[str] = DEFAULT_TIEBREAKS,
    *,
    unplayed: Unplayed = "virtual",
) -> Crosstable:
    """The crosstable: standings order and every player's games.

    The same table serves both forms: :meth:`Crosstable.cell` reads it as a round-robin
    matrix, :attr:`Crosstable.entries` as a Swiss round-by-round list.

    >>> players = [Player("a", "A"), Player("b", "B")]
    >>> table = crosstable(players, [Result(1, 1, "a", "b", 1.0), Result(2, 1, "b", "a", 0.5)])
    >>> table.cell("a", "b"), [e.code for e in table.entries["b"]]
    ((1.0, 0.5), ['0', '='])
    """
    rows = standings(players, results, tiebreaks, unplayed=unplayed)
    entries: dict[str, list[CrossEntry]] = {p.id: [] for p in players}
    for r in sorted(results, key=lambda r: r.key):
        for pid in r.players():
            seat: Literal["first", "second"] | None = None
            if r.second is not None:
                seat = "first" if pid == r.first else "second"
            entries[pid].append(
                CrossEntry(r.round, r.opponent_of(pid), seat, r.score_of(pid), r.kind, r.game_no)
            )
    return Crosstable(tuple(rows), {pid: tuple(es) for pid, es in entries.items()})
