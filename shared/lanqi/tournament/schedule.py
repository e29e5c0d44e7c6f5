"""One interface for every format, driven round by round by the matchmaker.

>>> players = [Player(p, p.upper(), 1500.0, seed=i) for i, p in enumerate("abcd", 1)]
>>> schedule = make_schedule("swiss", players, {"rounds": 2})
>>> results = []
>>> while (pairings := schedule.next_round(results)) is not None:
...     results += [Result.from_pairing(p, 1.0) for p in pairings]
>>> schedule.is_complete(results), [row.player.id for row in schedule.standings(results)][:1]
(True, ['d'])

The schedule holds no state of its own beyond players and options: every call takes
all results so far, so the matchmaker can rebuild it at any time from what it stored.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

from lanqi.tournament.dutch import DUTCH_SYSTEMS, PAIRING_SYSTEMS, dutch_pairings
from lanqi.tournament.knockout import KnockoutState, knockout_bracket, knockout_next
from lanqi.tournament.model import (
    Pairing,
    Player,
    Result,
    RoundInProgressError,
    TournamentError,
    check_players,
    seeded_order,
)
from lanqi.tournament.pairing import gauntlet, round_robin
from lanqi.tournament.scoring import DEFAULT_POINTS, POINTS_SYSTEMS, PointsSystem, points_system
from lanqi.tournament.standings import (
    FIDE_CODES,
    TIEBREAKS,
    Crosstable,
    StandingRow,
    Unplayed,
    crosstable,
    resolve_tiebreaks,
    standings,
)
from lanqi.tournament.swiss import swiss_pairings

__all__ = [
    "FORMATS",
    "Format",
    "FormatInfo",
    "OptionError",
    "OptionSpec",
    "Schedule",
    "make_schedule",
]

OptionValue = int | float | bool | str | tuple[str, ...] | None


class Format(StrEnum):
    """The tournament formats."""

    ROUND_ROBIN = "round_robin"
    DOUBLE_ROUND_ROBIN = "double_round_robin"
    SWISS = "swiss"
    KNOCKOUT = "knockout"
    GAUNTLET = "gauntlet"


class OptionError(TournamentError):
    """An option that is unknown, of the wrong type or out of range for a format."""


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One option of a format: its type, default and what it means."""

    name: str
    type: type
    default: OptionValue
    help: str


class Schedule(ABC):
    """A tournament in one format, for the given players and options.

    The matchmaker's loop: start a round with :meth:`next_round`, record a
    :class:`Result` for every pairing it returned (byes too: :meth:`bye_result`), and
    when all of them have results (:func:`~lanqi.tournament.model.unfinished` is empty)
    call :meth:`next_round` again; ``None`` means the event is over.
    """

    format: Format
    tiebreaks: tuple[str, ...]
    unplayed: ClassVar[Unplayed] = "virtual"

    def __init__(
        self, format: Format, players: Sequence[Player], options: Mapping[str, OptionValue]
    ):
        self.format = format
        self.players = tuple(seeded_order(players))
        self.options = dict(options)
        tiebreaks = options.get("tiebreaks")
        assert isinstance(tiebreaks, tuple)
        self.tiebreaks = tiebreaks
        system = options.get("points", DEFAULT_POINTS)
        assert isinstance(system, str)
        #: what a win, a draw and a loss are worth in this event
        self.points: PointsSystem = points_system(system)

    @property
    @abstractmethod
    def planned_rounds(self) -> int:
        """How many rounds the event has (a knockout: up to and including the final)."""

    @abstractmethod
    def next_round(
        self,
        results: Collection[Result],
        *,
        withdrawn: Collection[str] = frozenset(),
        forbidden: Collection[frozenset[str]] = frozenset(),
        requested_byes: Mapping[str, float] | None = None,
    ) -> list[Pairing] | None:
        """The pairings to play next, or ``None`` when the event is complete.

        Call it when every pairing issued so far has a result. ``withdrawn`` players
        are left out of Swiss pairings; in the fixed formats their games stay in the
        table with a ``warning`` and the matchmaker records them as forfeits
        (:meth:`Result.forfeit`). ``forbidden``: pairs of ids the director keeps
        apart (same club, family); a Swiss pairs them only when nothing else is
        possible (with a ``warning``), the fixed formats ignore them.
        ``requested_byes``: Swiss players who asked before the round not to be paired,
        with the points of their bye (0.5 or 0, as a result: in 2/1/0 a 0.5 is a
        draw's 1 point); they get a bye pairing whose ``warning`` says ``requested bye``.
        The Dutch systems take them as the FIDE rules say; lanqi's own matching leaves
        them out as if absent. The fixed formats ignore them.
        """

    @abstractmethod
    def is_complete(self, results: Collection[Result]) -> bool:
        """True when every game of the event has a result."""

    def bye_result(self, pairing: Pairing) -> Result:
        """The result to record for a bye of this event: the result its ``bye_score``
        (in the event's points) stands for, a win when none is set."""
        score = self.options.get("bye_score")
        if score is None:
            return Result.bye(pairing, 1.0)
        assert isinstance(score, float)
        return Result.bye(pairing, self.points.result_for(score))

    @property
    def bye_points(self) -> float | None:
        """What the pairing-allocated bye is worth in the event's points (``None``:
        a win)."""
        score = self.options.get("bye_score")
        return float(score) if isinstance(score, (int, float)) else None

    def standings(self, results: Collection[Result]) -> list[StandingRow]:
        """The standings with this format's points, tie-breaks and unplayed-game rule."""
        return standings(
            self.players, results, self.tiebreaks, unplayed=self.unplayed, points=self.points
        )

    def crosstable(self, results: Collection[Result]) -> Crosstable:
        """The crosstable with this format's points, tie-breaks and unplayed-game rule."""
        return crosstable(
            self.players, results, self.tiebreaks, unplayed=self.unplayed, points=self.points
        )

    def with_players(self, players: Sequence[Player]) -> Schedule:
        """The same event with another player list (late entries: Swiss only)."""
        if {p.id for p in players} != {p.id for p in self.players}:
            raise TournamentError(f"a {self.format} cannot take late entries")
        return make_schedule(self.format, players, self.options)


def _mark_withdrawn(pairings: list[Pairing], withdrawn: Collection[str]) -> list[Pairing]:
    out = []
    for p in pairings:
        gone = [pid for pid in p.players() if pid in withdrawn]
        note = f"withdrawn: {', '.join(gone)} (record a forfeit)" if gone else p.warning
        out.append(Pairing(p.round, p.board, p.first, p.second, p.game_no, note))
    return out


class _FixedSchedule(Schedule):
    """Round robins and gauntlets: the whole table is known from the start."""

    unplayed = "as_played"
    rounds: list[list[Pairing]]

    @property
    def planned_rounds(self) -> int:
        return len(self.rounds)

    def next_round(
        self,
        results: Collection[Result],
        *,
        withdrawn: Collection[str] = frozenset(),
        forbidden: Collection[frozenset[str]] = frozenset(),
        requested_byes: Mapping[str, float] | None = None,
    ) -> list[Pairing] | None:
        keys = {r.key for r in results}
        for rnd in self.rounds:
            games = [p for p in rnd if not p.is_bye]
            done = [p for p in games if p.key in keys]
            if len(done) == len(games):
                continue
            if done:
                missing = ", ".join(f"board {p.board}" for p in games if p.key not in keys)
                raise RoundInProgressError(f"round {rnd[0].round} still has {missing} to play")
            return _mark_withdrawn(rnd, withdrawn)
        return None

    def is_complete(self, results: Collection[Result]) -> bool:
        keys = {r.key for r in results}
        return all(p.key in keys for rnd in self.rounds for p in rnd if not p.is_bye)


class _RoundRobinSchedule(_FixedSchedule):
    def __init__(
        self, format: Format, players: Sequence[Player], options: Mapping[str, OptionValue]
    ):
        super().__init__(format, players, options)
        self.rounds = round_robin(self.players, double=format is Format.DOUBLE_ROUND_ROBIN)


class _GauntletSchedule(_FixedSchedule):
    def __init__(
        self, format: Format, players: Sequence[Player], options: Mapping[str, OptionValue]
    ):
        super().__init__(format, players, options)
        champion_id = options["champion"]
        champion = next(p for p in self.players if p.id == champion_id)
        field = [p for p in self.players if p.id != champion_id]
        games = options["games_per_opponent"]
        assert isinstance(games, int)
        self.champion = champion
        self.rounds = gauntlet(champion, field, games)


#: The Swiss ``unplayed`` option: which FIDE rule unplayed rounds follow in tie-breaks.
UNPLAYED_RULES: dict[str, Unplayed] = {"fide2009": "virtual", "fide2023": "fide2023"}


class _SwissSchedule(Schedule):
    @property
    def unplayed(self) -> Unplayed:  # type: ignore[override]
        """The unplayed-rounds rule of the ``unplayed`` option."""
        return UNPLAYED_RULES[str(self.options["unplayed"])]

    @property
    def planned_rounds(self) -> int:
        rounds = self.options["rounds"]
        assert isinstance(rounds, int)
        return rounds

    def next_round(
        self,
        results: Collection[Result],
        *,
        withdrawn: Collection[str] = frozenset(),
        forbidden: Collection[frozenset[str]] = frozenset(),
        requested_byes: Mapping[str, float] | None = None,
    ) -> list[Pairing] | None:
        last = max((r.round for r in results), default=0)
        if last >= self.planned_rounds:
            return None
        late = self.options["late_entries_score"]
        assert isinstance(late, float)
        system = self.options["pairing"]
        requested = dict(requested_byes or {})
        if system in DUTCH_SYSTEMS:
            assert isinstance(system, str)
            return dutch_pairings(
                self.players,
                results,
                last + 1,
                system=system,
                total_rounds=self.planned_rounds,
                withdrawn=withdrawn,
                requested_byes=requested,
                late_entries_score=late,
                accelerated=self.options["acceleration"] == "baku",
                forbidden=forbidden,
                points=self.points,
                bye_points=self.bye_points,
            )
        out = swiss_pairings(
            self.players,
            results,
            last + 1,
            late_entries_score=late,
            withdrawn=set(withdrawn) | set(requested),
            total_rounds=self.planned_rounds if self.options["look_ahead"] else None,
            points=self.points,
            forbidden=forbidden,
        )
        order = {p.id: i for i, p in enumerate(self.players)}
        for pid in sorted(requested, key=lambda p: order.get(p, len(order))):
            if pid in order and pid not in withdrawn:
                note = f"requested bye ({requested[pid]:g} point)"
                out.append(Pairing(last + 1, len(out) + 1, pid, None, warning=note))
        return out

    def is_complete(self, results: Collection[Result]) -> bool:
        return max((r.round for r in results), default=0) >= self.planned_rounds

    def with_players(self, players: Sequence[Player]) -> Schedule:
        return make_schedule(self.format, players, self.options)


class _KnockoutSchedule(Schedule):
    def __init__(
        self, format: Format, players: Sequence[Player], options: Mapping[str, OptionValue]
    ):
        super().__init__(format, players, options)
        self.bracket = knockout_bracket(self.players)

    @property
    def planned_rounds(self) -> int:
        return self.bracket.rounds

    def state(self, results: Collection[Result]) -> KnockoutState:
        """The bracket after ``results``: matches, scores, who advanced, the champion."""
        games, tiebreak = self.options["games_per_match"], self.options["tiebreak_games"]
        assert isinstance(games, int) and isinstance(tiebreak, int)
        return knockout_next(self.bracket, results, games_per_match=games, tiebreak_games=tiebreak)

    def next_round(
        self,
        results: Collection[Result],
        *,
        withdrawn: Collection[str] = frozenset(),
        forbidden: Collection[frozenset[str]] = frozenset(),
        requested_byes: Mapping[str, float] | None = None,
    ) -> list[Pairing] | None:
        state = self.state(results)
        if state.champion is not None:
            return None
        return _mark_withdrawn(list(state.to_play), withdrawn)

    def is_complete(self, results: Collection[Result]) -> bool:
        return self.state(results).champion is not None


# --- the registry --------------------------------------------------------------------

RR_TIEBREAKS = ("sonneborn_berger", "head_to_head", "wins")
SWISS_TIEBREAKS = ("buchholz_cut1", "buchholz", "sonneborn_berger", "head_to_head", "wins")


def _tiebreaks_option(default: tuple[str, ...], presets: str = "") -> OptionSpec:
    return OptionSpec(
        "tiebreaks",
        tuple,
        default,
        f"tie-breaks in order, from: {', '.join(sorted(TIEBREAKS))}; FIDE codes "
        f"{', '.join(FIDE_CODES)}{presets}",
    )


_POINTS = OptionSpec(
    "points",
    str,
    DEFAULT_POINTS,
    f"what a win, a draw and a loss are worth: {', '.join(POINTS_SYSTEMS)}",
)
_BYE_RR = OptionSpec(
    "bye_score", float, 0.0, "points for sitting out a round (odd count), in the event's points"
)
_RR_PRESETS = "; or the preset cxa (小分, 胜局, 直胜, 后走局数)"
_SWISS_PRESETS = (
    "; or the presets cxa (对手分, 胜局, 后走局数, 后胜局) and cxa-progressive (累进分 first)"
)


@dataclass(frozen=True, slots=True)
class FormatInfo:
    """What a format is, its options, and how to build its schedule."""

    format: Format
    description: str
    options: tuple[OptionSpec, ...]
    factory: Callable[[Format, Sequence[Player], Mapping[str, OptionValue]], Schedule]
    min_players: int = 2


FORMATS: dict[Format, FormatInfo] = {
    Format.ROUND_ROBIN: FormatInfo(
        Format.ROUND_ROBIN,
        "everyone meets everyone once (FIDE Berger tables)",
        (_POINTS, _BYE_RR, _tiebreaks_option(RR_TIEBREAKS, _RR_PRESETS)),
        _RoundRobinSchedule,
    ),
    Format.DOUBLE_ROUND_ROBIN: FormatInfo(
        Format.DOUBLE_ROUND_ROBIN,
        "everyone meets everyone twice, colours reversed in the second cycle",
        (_POINTS, _BYE_RR, _tiebreaks_option(RR_TIEBREAKS, _RR_PRESETS)),
        _RoundRobinSchedule,
    ),
    Format.SWISS: FormatInfo(
        Format.SWISS,
        "a fixed number of rounds; players with equal scores meet, never twice",
        (
            OptionSpec(
                "rounds",
                int,
                None,
                "number of rounds, 1 to players - 1 "
                "(default: log2 of the player count, rounded up)",
            ),
            _POINTS,
            OptionSpec(
                "bye_score",
                float,
                None,
                "points for a pairing bye (odd count), in the event's points (default: a win)",
            ),
            OptionSpec(
                "late_entries_score",
                float,
                0.0,
                "pairing score a late entry starts with, in the event's points",
            ),
            OptionSpec("look_ahead", bool, True, "keep the remaining rounds pairable"),
            OptionSpec(
                "pairing",
                str,
                "dutch",
                "dutch (FIDE Dutch, rules from February 2026), dutch-2017 (the 2017 "
                "rules) or lanqi (lanqi's own matching, not FIDE)",
            ),
            OptionSpec(
                "acceleration",
                str,
                "none",
                "none, or baku: the top half has a virtual point in rounds 1-2 (Dutch only)",
            ),
            OptionSpec(
                "unplayed",
                str,
                "fide2009",
                "unplayed rounds in tie-breaks: fide2009 (a virtual opponent) or fide2023 "
                "(C.07 2023: a dummy opponent with the player's own score)",
            ),
            _tiebreaks_option(SWISS_TIEBREAKS, _SWISS_PRESETS),
        ),
        _SwissSchedule,
    ),
    Format.KNOCKOUT: FormatInfo(
        Format.KNOCKOUT,
        "seeded bracket of matches; ties go to tie-break games, then sudden death",
        (
            OptionSpec("games_per_match", int, 2, "games in a match, colours alternating"),
            OptionSpec("tiebreak_games", int, 2, "games played after a tied match"),
            _POINTS,
            _tiebreaks_option(("wins",)),
        ),
        _KnockoutSchedule,
    ),
    Format.GAUNTLET: FormatInfo(
        Format.GAUNTLET,
        "a champion meets every other player in turn",
        (
            OptionSpec("champion", str, None, "id of the champion (default: the top seed)"),
            OptionSpec("games_per_opponent", int, 2, "games against each opponent"),
            _POINTS,
            _tiebreaks_option(("head_to_head", "wins")),
        ),
        _GauntletSchedule,
    ),
}


def _coerce(spec: OptionSpec, value: object) -> OptionValue:
    """The value in the option's type, or :class:`OptionError`."""
    name = spec.name
    if spec.type is bool:
        if isinstance(value, bool):
            return value
    elif spec.type is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif spec.type is float:
        if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
            return float(value)
    elif spec.type is str:
        if isinstance(value, str):
            return value
    elif (
        spec.type is tuple
        and isinstance(value, list | tuple)
        and all(isinstance(v, str) for v in value)
    ):
        return tuple(str(v) for v in value)
    raise OptionError(f"option {name!r} must be {spec.type.__name__}, not {value!r}")


def _validate(
    info: FormatInfo, players: Sequence[Player], options: Mapping[str, OptionValue]
) -> None:
    n = len(players)
    ids = {p.id for p in players}

    def at_least(name: str, low: int) -> None:
        value = options[name]
        assert isinstance(value, int)
        if value < low:
            raise OptionError(f"{info.format}: {name} must be at least {low}, not {value}")

    system = options["points"]
    assert isinstance(system, str)
    try:
        bye = options.get("bye_score")
        if isinstance(bye, float):
            points_system(system).result_for(bye)
    except TournamentError as exc:
        raise OptionError(f"{info.format}: bye_score: {exc}") from None
    if info.format is Format.SWISS:
        rounds = options["rounds"]
        assert isinstance(rounds, int)
        if not 1 <= rounds <= n - 1:
            raise OptionError(
                f"swiss: rounds must be between 1 and players - 1 = {n - 1}, not {rounds}"
            )
        late = options["late_entries_score"]
        assert isinstance(late, float)
        if late < 0:
            raise OptionError("swiss: late_entries_score cannot be negative")
        if options["pairing"] not in PAIRING_SYSTEMS:
            raise OptionError(
                f"swiss: pairing must be {', '.join(PAIRING_SYSTEMS)}, not {options['pairing']!r}"
            )
        if options["acceleration"] not in ("none", "baku"):
            raise OptionError("swiss: acceleration must be none or baku")
        if options["unplayed"] not in UNPLAYED_RULES:
            raise OptionError("swiss: unplayed must be fide2009 or fide2023")
    elif info.format is Format.KNOCKOUT:
        at_least("games_per_match", 1)
        at_least("tiebreak_games", 0)
    elif info.format is Format.GAUNTLET:
        at_least("games_per_opponent", 1)
        if options["champion"] not in ids:
            raise OptionError(f"gauntlet: champion {options['champion']!r} is not a player")


def make_schedule(
    format: Format | str,
    players: Sequence[Player],
    options: Mapping[str, object] | None = None,
) -> Schedule:
    """The schedule of a ``format`` event for ``players``; ``options`` are checked
    against :data:`FORMATS` (unknown names, types and ranges raise
    :class:`OptionError`) and completed with defaults (see ``schedule.options``).

    >>> make_schedule("swiss", [Player("a", "A"), Player("b", "B")], {"rounds": 3})
    Traceback (most recent call last):
    ...
    lanqi.tournament.schedule.OptionError: swiss: rounds must be between 1 and players - 1 ...
    """
    try:
        fmt = Format(format)
    except ValueError:
        known = ", ".join(f.value for f in Format)
        raise OptionError(f"unknown format {format!r}; known: {known}") from None
    info = FORMATS[fmt]
    check_players(players, minimum=info.min_players)
    given = dict(options or {})
    specs = {spec.name: spec for spec in info.options}
    unknown = sorted(set(given) - set(specs))
    if unknown:
        raise OptionError(
            f"{fmt}: unknown option {unknown[0]!r}; options: {', '.join(sorted(specs))}"
        )
    values: dict[str, OptionValue] = {}
    for name, spec in specs.items():
        value = given.get(name, spec.default)
        values[name] = None if value is None else _coerce(spec, value)
    if fmt is Format.SWISS and values["rounds"] is None:
        values["rounds"] = max(1, math.ceil(math.log2(len(players))))
    if fmt is Format.GAUNTLET and values["champion"] is None:
        values["champion"] = seeded_order(players)[0].id
    try:
        values["points"] = points_system(str(values["points"])).name
        kind = "swiss" if fmt is Format.SWISS else "round_robin"
        tiebreaks = values["tiebreaks"]
        assert isinstance(tiebreaks, tuple)
        values["tiebreaks"] = resolve_tiebreaks(tiebreaks, kind)
    except TournamentError as exc:
        raise OptionError(f"{fmt}: {exc}") from None
    _validate(info, players, values)
    return info.factory(fmt, players, values)
