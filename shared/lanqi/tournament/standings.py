"""Standings with tie-breaks, and crosstables.

Points are the results counted in the event's points system (``points``: 1/½/0 by
default, 2/1/0 or 3/1/0; a bye is worth the points of the result it stands for).
Tie-breaks, in the order asked for, separate players level on points (every key, its
FIDE code and the Chinese Xiangqi Association's chains: docs/tournaments.md):

- ``sonneborn_berger`` (SB): the points of the opponents beaten plus half the points
  of the opponents drawn with;
- ``buchholz`` (BH): the sum of the opponents' points; ``buchholz_cut1`` (BH-C1)
  without the lowest one;
- ``head_to_head`` (DE): points scored in the games among the tied players, used only
  when each of them has met each other one (otherwise it gives 0 to all);
- ``wins``: games won, forfeit wins included, byes not; ``win`` (WIN): rounds worth a
  win, byes and forfeits included;
- ``black_games`` (BPG), ``black_wins`` (BWG): games played and won over the board
  moving second;
- ``cumulative`` (PS): the sum of the running score after each round (early points
  weigh more);
- ``cxa_*``: the CXA's 小分, 对手分, 累进分 (compared again without round 1, 2, ...
  when equal), 胜局 (a bye is a win), 直胜, 后走局数, 后胜局, on real results and
  points.

Unplayed rounds (byes, forfeits, rounds without a result) follow FIDE's rule of
2009-2022 when ``unplayed="virtual"`` (the default): for the player's own tie-breaks
an unplayed round ``R`` is a game against a virtual opponent who had the player's score
before the round, got the opposite result, and draws every later round
(in 1/½/0 ``Svon = SPR + (1 - SfPR) + 0.5 * (n - R)``; in other systems the same in
their points); for the opponents' tie-breaks a player's unplayed rounds count as draws.
``unplayed="fide2023"`` follows FIDE's tie-break regulations of 2023 (C.07, article
16) instead: for the player's own tie-breaks every unplayed round is a game against a
*dummy opponent* whose score is the player's own final score, capped at a draw's
points per round (and, for a forfeit, at the scheduled opponent's adjusted score);
Buchholz adds it, SB adds it times the round's result (a full-point bye the whole of
it, a forfeit loss nothing); for the opponents' tie-breaks a player's score is their
real score, except that voluntarily unplayed rounds (a requested or absence bye, a
forfeit loss, a round without a result) after their last round present count as
draws (a withdrawal); and the cut of BH-C1 takes a voluntarily unplayed round first.
``unplayed="as_played"`` (round robins) takes forfeits as ordinary results against the
real opponent and leaves byes out.

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
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
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
from lanqi.tournament.scoring import DEFAULT_POINTS, PointsSystem, points_system

__all__ = [
    "CXA_PRESETS",
    "DEFAULT_TIEBREAKS",
    "FIDE_CODES",
    "TIEBREAKS",
    "TIEBREAK_NAMES",
    "CrossEntry",
    "Crosstable",
    "StandingRow",
    "Unplayed",
    "crosstable",
    "resolve_tiebreaks",
    "standings",
    "tiebreak_label",
    "tiebreak_name",
]

Unplayed = Literal["virtual", "fide2023", "as_played"]
DEFAULT_TIEBREAKS = ("sonneborn_berger", "buchholz", "head_to_head", "wins")


@dataclass(frozen=True, slots=True)
class StandingRow:
    """One line of the standings. Players with equal points and tie-breaks share a rank.

    ``points`` are in the event's points system; ``wins``/``draws``/``losses`` count
    games with an opponent (forfeits included), ``byes`` the rounds without one."""

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

    def played(self) -> list[Result]:
        return [r for r in self.results if r.is_game]

    def with_opponent(self) -> list[Result]:
        return [r for r in self.results if r.second is not None]


class _Context:
    """Everything the tie-break functions share."""

    def __init__(
        self,
        records: Mapping[str, _Record],
        rounds: int,
        unplayed: Unplayed,
        system: PointsSystem,
    ) -> None:
        self.records = records
        self.rounds = rounds
        self.unplayed = unplayed
        self.system = system
        self.points = {pid: self.total(rec.results, pid) for pid, rec in records.items()}
        self.adjusted = {pid: self._adjusted(rec) for pid, rec in records.items()}

    def pts(self, result: Result, pid: str) -> float:
        """What ``pid`` scored in ``result``, in the event's points."""
        return self.system.points(result.score_of(pid))

    def total(self, results: Iterable[Result], pid: str) -> float:
        return sum(self.pts(r, pid) for r in results)

    @staticmethod
    def voluntary(result: Result | None, pid: str) -> bool:
        """A voluntarily unplayed round (C.07 2023): a requested or absence bye, a
        forfeit lost, or no result at all (``None``); not the pairing-allocated bye
        nor a forfeit won."""
        if result is None:
            return True
        if result.kind == "bye":
            return result.left_out
        return result.kind == "double_forfeit" or (
            result.kind == "forfeit" and result.score_of(pid) == 0.0
        )

    def _dummy(self, pid: str, got: Result | None) -> float:
        """The 2023 dummy opponent's score for ``pid``'s unplayed round ``got``: the
        player's own score, at most a draw's points for every round (half the
        maximum), and for a forfeit at most the scheduled opponent's adjusted score."""
        cap = self.system.draw * self.rounds
        if got is not None and got.kind in ("forfeit", "double_forfeit"):
            cap = min(cap, self.adjusted.get(str(got.opponent_of(pid)), 0.0))
        return min(self.points[pid], cap)

    def _by_round(self, pid: str) -> dict[int, Result]:
        return {r.round: r for r in self.records[pid].results}

    def _adjusted(self, rec: _Record) -> float:
        """The player's score as their opponents' tie-breaks see it."""
        pid = rec.player.id
        if self.unplayed == "as_played":
            return self.points[pid]
        if self.unplayed == "fide2023":
            by_round = self._by_round(pid)
            present = [
                rnd
                for rnd in range(1, self.rounds + 1)
                if not self.voluntary(by_round.get(rnd), pid)
            ]
            last = max(present, default=0)
            total = 0.0
            for rnd in range(1, self.rounds + 1):
                got = by_round.get(rnd)
                if rnd > last:  # withdrawn (or absent to the end): draws
                    total += self.system.draw
                elif got is not None:
                    total += self.pts(got, pid)
            return total
        played_rounds = {r.round for r in rec.played()}
        unplayed = sum(1 for rnd in range(1, self.rounds + 1) if rnd not in played_rounds)
        return self.total(rec.played(), pid) + self.system.draw * unplayed

    def opponent_scores(self, pid: str) -> list[tuple[float, float]]:
        """(own game result 1/0.5/0, opponent's points) for every game or unplayed round."""
        return [(own, opp) for own, opp, _ in self.opponent_entries(pid)]

    def opponent_entries(self, pid: str) -> list[tuple[float, float, bool]]:
        """:meth:`opponent_scores` with, for each, whether it stands for a
        voluntarily unplayed round (``fide2023`` only: cut first)."""
        rec = self.records[pid]
        if self.unplayed == "as_played":
            return [(own, opp, False) for own, opp in self.actual_opponents(pid)]
        if self.unplayed == "fide2023":
            by_round = self._by_round(pid)
            out = []
            for rnd in range(1, self.rounds + 1):
                got = by_round.get(rnd)
                if got is not None and got.is_game:
                    other = str(got.opponent_of(pid))
                    out.append((got.score_of(pid), self.adjusted.get(other, 0.0), False))
                else:  # the dummy opponent: the player's own final score, capped
                    own = got.score_of(pid) if got is not None else 0.0
                    out.append((own, self._dummy(pid, got), self.voluntary(got, pid)))
            return out
        pairs = [
            (r.score_of(pid), self.adjusted.get(str(r.opponent_of(pid)), 0.0)) for r in rec.played()
        ]
        played_rounds = {r.round for r in rec.played()}
        before = 0.0
        for rnd in range(1, self.rounds + 1):
            in_round = [r for r in rec.results if r.round == rnd]
            score = sum(r.score_of(pid) for r in in_round)
            if rnd not in played_rounds:
                opposite = self.system.points(1.0 - score)
                virtual = before + opposite + self.system.draw * (self.rounds - rnd)
                pairs.append((score, virtual))
            before += self.total(in_round, pid)
        return [(own, opp, False) for own, opp in pairs]

    def actual_opponents(self, pid: str) -> list[tuple[float, float]]:
        """(own game result, opponent's points) for every result with an opponent,
        forfeits included, byes left out: the real table, no adjustment."""
        return [
            (r.score_of(pid), self.points.get(str(r.opponent_of(pid)), 0.0))
            for r in self.records[pid].with_opponent()
        ]

    def running(self, pid: str) -> list[float]:
        """The player's points after each round, 1 to ``rounds``."""
        out, total = [], 0.0
        results = self.records[pid].results
        for rnd in range(1, self.rounds + 1):
            total += self.total((r for r in results if r.round == rnd), pid)
            out.append(total)
        return out


TieValue = float | tuple[float, ...]


def _sonneborn_berger(ctx: _Context, pid: str, _group: Collection[str]) -> float:
    return sum(own * opp for own, opp in ctx.opponent_scores(pid))


def _buchholz(ctx: _Context, pid: str, _group: Collection[str]) -> float:
    return sum(opp for _, opp in ctx.opponent_scores(pid))


def _buchholz_cut1(ctx: _Context, pid: str, _group: Collection[str]) -> float:
    # the least significant value is cut; under the 2023 rules a voluntarily
    # unplayed round is cut first
    scores = sorted((not vur, opp) for _, opp, vur in ctx.opponent_entries(pid))
    return sum(opp for _, opp in scores[1:])


def _wins(ctx: _Context, pid: str, _group: Collection[str]) -> float:
    return sum(1 for r in ctx.records[pid].with_opponent() if r.score_of(pid) == 1.0)


def _win_rounds(ctx: _Context, pid: str, _group: Collection[str]) -> float:
    """Rounds worth a win, with or without a game: byes and forfeit wins count."""
    return sum(1 for r in ctx.records[pid].results if r.score_of(pid) == 1.0)


def _second_games(ctx: _Context, pid: str, _group: Collection[str]) -> float:
    """Games played over the board moving second (Black in xiangqi)."""
    return sum(1 for r in ctx.records[pid].played() if r.second == pid)


def _second_wins(ctx: _Context, pid: str, _group: Collection[str]) -> float:
    """Games won over the board moving second."""
    return sum(1 for r in ctx.records[pid].played() if r.second == pid and r.score_second == 1.0)


def _cumulative(ctx: _Context, pid: str, _group: Collection[str]) -> float:
    return sum(ctx.running(pid))


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

    def between(member: str) -> float:
        return sum(
            ctx.pts(r, member)
            for r in ctx.records[member].with_opponent()
            if r.opponent_of(member) in group and r.opponent_of(member) != member
        )

    if len(met) < len(group) * (len(group) - 1) // 2:
        # not all have met: one who is alone at the top whatever the missing games
        # would have given (more points between them than any other could reach by
        # winning every encounter still missing) is ranked first, the rest stay tied
        def best(member: str) -> float:
            missing = sum(1 for o in group if o != member and frozenset((member, o)) not in met)
            return between(member) + missing * ctx.system.win

        mine = between(pid)
        if all(mine > best(o) for o in others):
            return mine
        return 0.0
    return between(pid)


def _cxa_small_points(ctx: _Context, pid: str, _group: Collection[str]) -> float:
    """小分: all of each beaten opponent's points, half of each drawn one's."""
    return sum(own * opp for own, opp in ctx.actual_opponents(pid))


def _cxa_opponents(ctx: _Context, pid: str, _group: Collection[str]) -> float:
    """对手分: the opponents' points; a bye has no opponent and adds nothing."""
    return sum(opp for _, opp in ctx.actual_opponents(pid))


def _cxa_progressive(ctx: _Context, pid: str, _group: Collection[str]) -> tuple[float, ...]:
    """累进分: the sum of the running scores; equal sums are compared again without
    round 1, then without rounds 1 and 2, ... (the value shown is the full sum)."""
    running = ctx.running(pid)
    return tuple(sum(running[cut:]) for cut in range(max(len(running), 1)))


TieBreak = Callable[[_Context, str, Collection[str]], TieValue]
#: Every tie-break by name.
TIEBREAKS: dict[str, TieBreak] = {
    "sonneborn_berger": _sonneborn_berger,
    "buchholz": _buchholz,
    "buchholz_cut1": _buchholz_cut1,
    "head_to_head": _head_to_head,
    "wins": _wins,
    "cumulative": _cumulative,
    "win": _win_rounds,
    "black_games": _second_games,
    "black_wins": _second_wins,
    "cxa_small_points": _cxa_small_points,
    "cxa_opponents": _cxa_opponents,
    "cxa_progressive": _cxa_progressive,
    "cxa_wins": _win_rounds,
    "cxa_direct": _head_to_head,
    "cxa_black_games": _second_games,
    "cxa_black_wins": _second_wins,
}

#: FIDE's codes (Handbook C.07) for the tie-breaks that follow its definitions; they
#: are read wherever a tie-break name is.
FIDE_CODES: dict[str, str] = {
    "SB": "sonneborn_berger",
    "BH": "buchholz",
    "BH-C1": "buchholz_cut1",
    "DE": "head_to_head",
    "PS": "cumulative",
    "WIN": "win",
    "BPG": "black_games",
    "BWG": "black_wins",
}

#: How people write the tie-breaks: FIDE's with their code, the Chinese Xiangqi
#: Association's in Chinese and English ("Black" is the side moving second: in
#: gomoku that is White).
TIEBREAK_NAMES: dict[str, str] = {
    "sonneborn_berger": "Sonneborn-Berger (SB)",
    "buchholz": "Buchholz (BH)",
    "buchholz_cut1": "Buchholz Cut 1 (BH-C1)",
    "head_to_head": "Direct encounter (DE)",
    "wins": "Wins",
    "cumulative": "Progressive score (PS)",
    "win": "Wins with byes (WIN)",
    "black_games": "Games with Black (BPG)",
    "black_wins": "Wins with Black (BWG)",
    "cxa_small_points": "小分 Sonneborn-Berger",
    "cxa_opponents": "对手分 Opponents' points",
    "cxa_progressive": "累进分 Progressive score",
    "cxa_wins": "胜局 Wins",
    "cxa_direct": "直胜 Direct encounter",
    "cxa_black_games": "后走局数 Games with Black",
    "cxa_black_wins": "后胜局 Wins with Black",
}
_CODES = {key: code for code, key in FIDE_CODES.items()}


def tiebreak_name(key: str) -> str:
    """The readable name of a tie-break key (unknown keys: spaces, capitalised).

    >>> tiebreak_name("cxa_progressive"), tiebreak_name("buchholz_cut1")
    ('累进分 Progressive score', 'Buchholz Cut 1 (BH-C1)')
    """
    return TIEBREAK_NAMES.get(key, key.replace("_", " ").capitalize())


def tiebreak_label(key: str) -> str:
    """A column heading: the FIDE code, the whole name of a CXA tie-break, else the key.

    >>> [tiebreak_label(k) for k in ("buchholz_cut1", "cxa_wins", "wins")]
    ['BH-C1', '胜局 Wins', 'wins']
    """
    if key in _CODES:
        return _CODES[key]
    return TIEBREAK_NAMES[key] if key.startswith("cxa_") else key


#: The Chinese Xiangqi Association's chains, by the format they are for.
CXA_PRESETS: dict[str, dict[str, tuple[str, ...]]] = {
    "round_robin": {
        "cxa": ("cxa_small_points", "cxa_wins", "cxa_direct", "cxa_black_games"),
    },
    "swiss": {
        "cxa": ("cxa_opponents", "cxa_wins", "cxa_black_games", "cxa_black_wins"),
        "cxa-progressive": ("cxa_progressive", "cxa_wins", "cxa_black_games", "cxa_black_wins"),
    },
}


def resolve_tiebreaks(tiebreaks: Sequence[str], kind: str = "swiss") -> tuple[str, ...]:
    """The tie-break keys ``tiebreaks`` names: FIDE codes become keys and a preset
    (``cxa``, ``cxa-progressive``) its chain for ``kind`` (``round_robin`` or
    ``swiss``); :class:`TournamentError` for anything unknown or repeated.

    >>> resolve_tiebreaks(["cxa"], "round_robin")
    ('cxa_small_points', 'cxa_wins', 'cxa_direct', 'cxa_black_games')
    >>> resolve_tiebreaks(["BH-C1", "SB"])
    ('buchholz_cut1', 'sonneborn_berger')
    """
    presets = CXA_PRESETS.get(kind, {})
    out: list[str] = []
    for name in tiebreaks:
        if name in presets:
            out += presets[name]
        elif name.upper() in FIDE_CODES:
            out.append(FIDE_CODES[name.upper()])
        else:
            out.append(name)
    check_tiebreaks(out)
    return tuple(out)


def check_tiebreaks(tiebreaks: Sequence[str]) -> None:
    """Raise :class:`TournamentError` for an unknown or repeated tie-break name."""
    unknown = [t for t in tiebreaks if t not in TIEBREAKS]
    if unknown:
        known = [*sorted(TIEBREAKS), *FIDE_CODES, "cxa", "cxa-progressive"]
        raise TournamentError(f"unknown tie-break {unknown[0]!r}; known: {', '.join(known)}")
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


def standings(  # noqa: PLR0913 - the table's inputs, each its own value
    players: Sequence[Player],
    results: Collection[Result],
    tiebreaks: Sequence[str] = DEFAULT_TIEBREAKS,
    *,
    rounds: int | None = None,
    unplayed: Unplayed = "virtual",
    points: PointsSystem | str = DEFAULT_POINTS,
) -> list[StandingRow]:
    """The standings: by points (in the ``points`` system), then each tie-break in
    turn; full ties share a rank and are listed in seeded order.

    ``rounds`` is the ``n`` of the virtual-opponent rule (default: the last round with
    a result, so interim standings treat the event as ending now). ``tiebreaks`` may
    name FIDE codes (``BH-C1``), not presets (see :func:`resolve_tiebreaks`).
    """
    tiebreaks = resolve_tiebreaks(tiebreaks, kind="")
    if unplayed not in ("virtual", "fide2023", "as_played"):
        raise TournamentError("unplayed is 'virtual', 'fide2023' or 'as_played'")
    records = _records(players, results)
    n = rounds if rounds is not None else max((r.round for r in results), default=0)
    ctx = _Context(records, n, unplayed, points_system(points))

    keys: dict[str, list[float]] = {pid: [ctx.points[pid]] for pid in records}
    values: dict[str, dict[str, float]] = {pid: {} for pid in records}
    for name in tiebreaks:
        groups: dict[tuple[float, ...], list[str]] = defaultdict(list)
        for pid in records:
            groups[tuple(keys[pid])].append(pid)
        for group in groups.values():
            for pid in group:
                value = TIEBREAKS[name](ctx, pid, group)
                if isinstance(value, tuple):  # a sequence compared in turn: show the first
                    values[pid][name] = value[0]
                    keys[pid].extend(value)
                else:
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
    points: float | None = None  # in the event's points system (None: the score)

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
        """``player``'s points against ``opponent``, in round order (empty: not met)."""
        return tuple(
            e.score if e.points is None else e.points
            for e in self.entries[player]
            if e.opponent == opponent
        )


def crosstable(
    players: Sequence[Player],
    results: Collection[Result],
    tiebreaks: Sequence[str] = DEFAULT_TIEBREAKS,
    *,
    unplayed: Unplayed = "virtual",
    points: PointsSystem | str = DEFAULT_POINTS,
) -> Crosstable:
    """The crosstable: standings order and every player's games.

    The same table serves both forms: :meth:`Crosstable.cell` reads it as a round-robin
    matrix, :attr:`Crosstable.entries` as a Swiss round-by-round list.

    >>> players = [Player("a", "A"), Player("b", "B")]
    >>> table = crosstable(players, [Result(1, 1, "a", "b", 1.0), Result(2, 1, "b", "a", 0.5)])
    >>> table.cell("a", "b"), [e.code for e in table.entries["b"]]
    ((1.0, 0.5), ['0', '='])
    """
    system = points_system(points)
    rows = standings(players, results, tiebreaks, unplayed=unplayed, points=system)
    entries: dict[str, list[CrossEntry]] = {p.id: [] for p in players}
    for r in sorted(results, key=lambda r: r.key):
        for pid in r.players():
            seat: Literal["first", "second"] | None = None
            if r.second is not None:
                seat = "first" if pid == r.first else "second"
            score = r.score_of(pid)
            entries[pid].append(
                CrossEntry(
                    r.round,
                    r.opponent_of(pid),
                    seat,
                    score,
                    r.kind,
                    r.game_no,
                    system.points(score),
                )
            )
    return Crosstable(tuple(rows), {pid: tuple(es) for pid, es in entries.items()})
