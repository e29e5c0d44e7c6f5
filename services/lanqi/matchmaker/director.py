"""Tournaments inside the matchmaker: requests, rounds, games, results, standings, exports.

The pairing rules live in :mod:`lanqi.tournament` and hold no state: every
decision is made from what the store holds (entrants, pairings and results), so
after a restart the director picks up exactly where it was.  A round is stored
before its games are created and is never paired again; a pairing whose game
was not created (a crash in between) gets its game when the tournament resumes.
What the director needs from the matchmaker around it is a
:class:`TournamentHost` (it does not import the service); what a result is worth
is :mod:`lanqi.tournament.scoring`'s.
"""

from __future__ import annotations

import dataclasses
import datetime
import itertools
import logging
import os
import secrets
import socket
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path

from lanqi.games.registry import restore_game, variant_spec
from lanqi.matchmaker.claims import claim_hash, new_code
from lanqi.matchmaker.errors import MatchmakerError
from lanqi.matchmaker.lobby import check_game
from lanqi.matchmaker.ratings_book import rate_game
from lanqi.matchmaker.referees import GameOrder, new_game_id
from lanqi.matchmaker.store import (
    EntrantRecord,
    GameRecord,
    MatchmakerStore,
    PairingRecord,
    PlayerRecord,
    TournamentRecord,
    TournamentStatus,
)
from lanqi.phrases import result_text, time_control_text
from lanqi.protocol import (
    CheckIn,
    ClaimCode,
    CreateTournament,
    DeleteTournament,
    EntrantFields,
    EntryCode,
    Exported,
    ExportTournament,
    FinishTournament,
    ForbidPair,
    GetStandings,
    Imported,
    ImportEntrants,
    JoinTournament,
    ListTournaments,
    Message,
    Ok,
    PairingInfo,
    PairRound,
    PauseTournament,
    ReclaimName,
    ReclaimTournament,
    ReportResult,
    RequestBye,
    ResultNoted,
    ResumeTournament,
    StandingInfo,
    Standings,
    StartTournament,
    TimeControl,
    TourCreated,
    TourDeleted,
    TourFinished,
    TourGame,
    TourJoined,
    TournamentCreated,
    TournamentEvent,
    TournamentInfo,
    TournamentsList,
    TournamentSpec,
    TourPairing,
    TourPaused,
    TourReported,
    TourResult,
    TourResumed,
    TourRound,
    TourStarted,
    TourStuck,
    TourWithdrawn,
    WithdrawTournament,
)
from lanqi.protocol.endpoints import tour_topic
from lanqi.protocol.schema import ErrorCode
from lanqi.tournament import export, report
from lanqi.tournament.check import check_pairings
from lanqi.tournament.dutch import PAIRING_SYSTEMS
from lanqi.tournament.model import Pairing, Player, Result, ResultKind, TournamentError
from lanqi.tournament.schedule import Format, Schedule, make_schedule
from lanqi.tournament.scoring import DEFAULT_POINTS, GameScore, points_system, score_unplayed
from lanqi.tournament.standings import Crosstable, StandingRow, resolve_tiebreaks
from lanqi.tournament.trf import TrfEntrant, trf_text

__all__ = ["Director", "TournamentHost"]

#: the standings on the wire carry at most this many tie-break values (StandingInfo)
MAX_TIEBREAKS = 8

log = logging.getLogger(__name__)

RETRY_MS = 5_000.0
#: a Swiss round with at least this many players is paired off the service loop (a
#: worker thread): the Dutch systems take seconds from about 64 players (docs/bench.md)
OFF_LOOP_PLAYERS = 24
#: test only: a file path; when set, every Swiss round is paired off the loop and the
#: pairing waits until that file exists (a slow pairing the test controls)
PAIRING_GATE_ENV = "LANQI_TEST_PAIRING_GATE"
#: the longest note a ``tour_event`` carries
MAX_NOTE = 300
#: A tournament's result news (``TourResult``: the round and the whole standings) is
#: published at most this often: the first result after a quiet spell at once, those
#: that follow within it as one news at its end (or before the tournament's next
#: news); the result that completes a round is told at once, with that round's
#: pairings.  Standings per result cost O(players^2): with a 256-player Swiss the 128
#: results at a round's end stalled the matchmaker for 16-28 s (lanqi bench crowd).
RESULT_NEWS_MS = 1000.0
#: the notations a tournament's PGN can be written in (ICCS is what most other
#: xiangqi tools read; WXF and Chinese are for people)
EXPORT_NOTATIONS = ("wxf", "iccs", "chinese")
MAX_ENTRANTS = 256  # as many as a tournament_info may list
#: the referee name of games played over the board (no referee)
OTB_REFEREE = "otb"
#: what a ``tour_result`` may say, and what it means: (result, first's points, kind);
#: forfeits (``+-``: the second player did not come) only from the director
BOARD_RESULTS: dict[str, tuple[str, float, ResultKind]] = {
    "1-0": ("1-0", 1.0, "played"),
    "0-1": ("0-1", 0.0, "played"),
    "1/2-1/2": ("1/2-1/2", 0.5, "played"),
    "½-½": ("1/2-1/2", 0.5, "played"),
    "=": ("1/2-1/2", 0.5, "played"),
    "+-": ("1-0", 1.0, "forfeit"),
    "-+": ("0-1", 0.0, "forfeit"),
    "--": ("0-0", 0.0, "double_forfeit"),
}


def _error(code: ErrorCode, msg: str) -> MatchmakerError:
    return MatchmakerError(code, msg)


@dataclass(frozen=True, slots=True)
class TournamentHost:
    """What the director needs from the matchmaker around it, and nothing more."""

    #: send an event to the subscribers of a topic
    publish: Callable[[str, Message], None]
    #: ask a referee for a game; :meth:`Director.game_started` or
    #: :meth:`Director.game_failed` follows
    create_game: Callable[[GameOrder], None]
    #: the player who said ``hello`` on a connection (``no_session`` if nobody did)
    player_of: Callable[[bytes], PlayerRecord]
    #: the loop's monotonic clock, in ms
    now: Callable[[], float]
    #: True once every referee has answered the reconcile after a start: until then
    #: results may still come in, and the director decides nothing
    reconciled: Callable[[], bool]
    #: forget a player's connection (its session was replaced by a new claim code)
    sign_out: Callable[[str], None]


def _result_text(p: PairingRecord) -> str:
    """A pairing's result as a report shows it (forfeits as ``+/-``)."""
    if p.result is None:
        return ""
    if p.kind == "forfeit" and p.score_first is not None:
        return {1.0: "+/-", 0.0: "-/+"}.get(p.score_first, "-/-")
    return result_text(p.result, style="people")


def _score(points: float | None) -> str:
    return "½" if points == 0.5 else f"{points or 0:g}"


def _anchor(game: GameRecord) -> str:
    return f"r{game.round}b{game.board}g{game.game_no}"


def _game_moves(game: GameRecord) -> report.GameMoves:
    notations, lines = report.readable_moves(game.variant, game.start_fen, game.moves, game.options)
    return report.GameMoves(
        anchor=_anchor(game),
        round=game.round,
        board=game.board,
        first=game.names[0],
        second=game.names[1],
        result=result_text(game.result, style="people"),
        termination=game.termination or "",
        notations=notations,
        lines=lines,
    )


def _event_ratings(games: list[GameRecord]) -> dict[str, tuple[float | None, float | None]]:
    """Each player's rating before their first rated game of the event and after
    their last (from what the store kept with each game's result)."""
    out: dict[str, tuple[float | None, float | None]] = {}
    for game in sorted(games, key=lambda g: g.ended_ms or 0):
        pairs = zip(game.ratings_before, game.ratings_after, strict=True)
        for pid, (before, after) in zip(game.player_ids, pairs, strict=False):
            first = out.get(pid, (before, after))[0]
            out[pid] = (first, after)
    return out


def _pgn_date(ms: int) -> str:
    """PGN's ``YYYY.MM.DD`` for a wall-clock stamp (local date)."""
    return time.strftime("%Y.%m.%d", time.localtime(ms / 1000))


def _tournament_clock(tc: TimeControl) -> TimeControl:
    """A tournament game's clock: no first-move window (``first_move_ms`` 0), the
    clock of the side to move starts when both have joined; a no-show is the
    forfeit's business (``forfeit_after_s``, sent as ``join_within_ms``)."""
    return dataclasses.replace(tc, first_move_ms=0)


@dataclass(frozen=True)
class _RoundInputs:
    """Everything a Swiss round's engine pairing is computed from: a pairing made
    off the loop is applied only if these are still what the store says."""

    round_no: int
    #: the players in seeded order (what the engines take from them; a rating that
    #: moves meanwhile, from a game elsewhere, does not make the pairing stale)
    order: tuple[str, ...]
    options: Mapping[str, object]
    results: tuple[Result, ...]
    #: withdrawn, paired by hand, absent
    left_out: frozenset[str]
    forbidden: frozenset[frozenset[str]]
    #: requested byes: (player id, points as a result), by id
    requested: tuple[tuple[str, float], ...]


def _engine_round(schedule: Schedule, inputs: _RoundInputs) -> list[Pairing]:
    """The engine's part of a Swiss round (pure: runs on the loop or in a worker)."""
    return (
        schedule.next_round(
            list(inputs.results),
            withdrawn=inputs.left_out,
            forbidden=inputs.forbidden,
            requested_byes=dict(inputs.requested),
        )
        or []
    )


def _pair_in_worker(
    schedule: Schedule, inputs: _RoundInputs, done: Future[list[Pairing]], gate: str
) -> None:
    if gate:  # test only: hold the pairing until the test lets it go
        while not Path(gate).exists():
            time.sleep(0.02)
    try:
        pairings = _engine_round(schedule, inputs)
    except TournamentError as exc:  # no valid pairing: the loop tells the director
        done.set_exception(exc)
    except Exception:  # a bug must cost this round's pairing, never the service loop
        log.exception("pairing round %d failed", inputs.round_no)
        done.set_exception(TournamentError("internal error while pairing; see the server log"))
    else:
        done.set_result(pairings)


@dataclass
class _PairingJob:
    inputs: _RoundInputs
    done: Future[list[Pairing]]


class _StillPairingError(Exception):
    """The round is being paired off the loop; the director carries on when it is done."""


class Director:
    """The tournament side of the matchmaker: its store, its key and a narrow host."""

    def __init__(
        self,
        store: MatchmakerStore,
        director_key: str,
        host: TournamentHost,
        site: str | None = None,
    ) -> None:
        self.store = store
        #: what exports name as the event's site unless a request names one
        self.site = site or socket.gethostname()
        self.host = host
        self._key = director_key
        self._creating: set[tuple[str, int, int, int]] = set()
        self._retry_at: dict[str, float] = {}
        #: Swiss rounds being paired off the loop, by tournament
        self._pairing: dict[str, _PairingJob] = {}
        #: what the director should know about the next round: ``pairing round N...``
        #: while it is paired off the loop, or why it cannot be paired
        self._notes: dict[str, str] = {}
        #: when each tournament's last result news went out (monotonic ms), and the
        #: tournaments with results not told yet (see RESULT_NEWS_MS)
        self._result_news_at: dict[str, float] = {}
        self._result_news_due: set[str] = set()

    # ------------------------------------------------------------ helpers

    def _authorise(self, key: str | None) -> None:
        if key is None or not secrets.compare_digest(key.encode(), self._key.encode()):
            raise _error("unauthorized", "this needs the tournament director's key")

    def _tournament(self, tournament_id: str) -> TournamentRecord:
        record = self.store.tournament(tournament_id)
        if record is None:
            raise _error("unknown_tournament", f"no tournament {tournament_id!r}")
        return record

    def _players(self, record: TournamentRecord) -> tuple[list[Player], set[str]]:
        players, withdrawn = [], set()
        for entrant in self.store.entrants(record.tournament_id):
            info = self.store.player(entrant.player_id)
            name = info.name if info else entrant.player_id
            rating = self.store.rating(entrant.player_id, record.spec.variant).rating
            players.append(Player(entrant.player_id, name, rating, entrant.seed))
            if entrant.withdrawn:
                withdrawn.add(entrant.player_id)
        return players, withdrawn

    def _options(self, spec: TournamentSpec) -> dict[str, object]:
        fmt = Format(spec.format)
        options: dict[str, object] = {"points": spec.points}
        if spec.tiebreaks:
            options["tiebreaks"] = tuple(spec.tiebreaks)
        if fmt is Format.SWISS:
            # an event stored before the option existed keeps lanqi's own matching
            options["pairing"] = spec.pairing or "lanqi"
            options["acceleration"] = spec.acceleration
            options["unplayed"] = spec.unplayed or "fide2009"
            if spec.rounds:
                options["rounds"] = spec.rounds
        elif fmt is Format.KNOCKOUT:
            options["games_per_match"] = spec.games_per_match
        elif fmt is Format.GAUNTLET:
            options["games_per_opponent"] = spec.games_per_match
            if spec.champion:
                champion = self.store.player_by_name(spec.champion)
                options["champion"] = champion.player_id if champion else spec.champion
        return options

    def _schedule(self, record: TournamentRecord) -> tuple[Schedule, set[str]]:
        players, withdrawn = self._players(record)
        return make_schedule(record.spec.format, players, self._options(record.spec)), withdrawn

    @staticmethod
    def _results(pairings: list[PairingRecord]) -> list[Result]:
        out = []
        for p in pairings:
            if p.result is None or p.first is None or p.score_first is None:
                continue
            kind = p.kind or "played"
            left_out = kind == "bye" and p.origin in ("requested", "absent")
            out.append(
                Result(
                    p.round,
                    p.board,
                    p.first,
                    p.second,
                    p.score_first,
                    kind,
                    p.game_no,
                    left_out=left_out,
                )
            )
        return out

    def _name(self, player_id: str | None) -> str | None:
        if player_id is None:
            return None
        info = self.store.player(player_id)
        return info.name if info else player_id

    def _engine(self, player_id: str | None) -> str | None:
        info = self.store.player(player_id) if player_id else None
        return info.engine if info else None

    def _engine_tags(self, seats: Sequence[str], player_ids: Sequence[str]) -> dict[str, str]:
        """``RedEngine``-style tags for the seats whose player named its engine."""
        engines = [self._engine(p) for p in player_ids]
        return {f"{seat}Engine": e for seat, e in zip(seats, engines, strict=True) if e}

    def _pairing_info(self, p: PairingRecord) -> PairingInfo:
        return PairingInfo(
            round=p.round,
            board=p.board,
            first=self._name(p.first),
            second=self._name(p.second),
            game_id=None if p.otb else p.game_id,
            result=p.result,
            table=p.table,
            otb=p.otb,
            manual=p.origin == "manual",
            note=self._note(p),
        )

    def _note(self, p: PairingRecord) -> str | None:
        """What the director should see next to a pairing: the pairing rule it had to
        break, an absence, the players' words on an over-the-board game that does not
        count yet."""
        note = self._origin_note(p)
        if p.warning:
            return f"{p.warning}; {note}" if note else p.warning
        return note

    def _origin_note(self, p: PairingRecord) -> str | None:
        if p.origin == "absent":
            return "absent"
        if p.origin == "requested":
            return "requested bye, " + ("half point" if p.score_first else "zero point")
        if p.result is not None or not any(p.reports):
            return None
        said = [
            f"{self._name(pid)} says {r}"
            for pid, r in zip((p.first, p.second), p.reports, strict=True)
            if r is not None
        ]
        if all(p.reports) and p.reports[0] != p.reports[1]:
            return "disputed: " + ", ".join(said) + " (the director decides)"
        return ", ".join(said)

    def _info(self, record: TournamentRecord) -> TournamentInfo:
        # names only, in one query: every lobby reads the tournaments' list after
        # news, and a rating query per entrant stalled the matchmaker for 17-28 s
        # with 244 followers and a 256-player Swiss (lanqi bench crowd)
        return TournamentInfo(
            tournament_id=record.tournament_id,
            spec=record.spec,
            status=record.status,
            round=record.round,
            players=self.store.entrant_names(record.tournament_id),
        )

    def _standing_rows(self, record: TournamentRecord) -> list[StandingInfo]:
        players, _ = self._players(record)
        if len(players) < 2:
            return []
        try:
            schedule, _ = self._schedule(record)
        except TournamentError:  # open, and not valid yet (a Swiss with too few entrants)
            return []
        rows = schedule.standings(self._results(self.store.pairings(record.tournament_id)))
        before = self.ratings_before(record)
        return [
            StandingInfo(
                rank=row.rank,
                player=row.player.name,
                points=float(row.points),
                games=row.games,
                wins=row.wins,
                draws=row.draws,
                losses=row.losses,
                tiebreaks={k: float(round(v, 2)) for k, v in row.tiebreaks.items()},
                rating=round(self.store.rating(row.player.id, record.spec.variant).rating, 1),
                rating_before=before.get(row.player.id),
            )
            for row in rows
        ]

    def ratings_before(self, record: TournamentRecord) -> dict[str, float]:
        """Each entrant's rating in the tournament's variant before their first rated
        game of it, by player id (players with no rated game yet are left out)."""
        before: dict[str, float] = {}
        for game in self.store.games(tournament_id=record.tournament_id):
            for pid, rating in zip(game.player_ids, game.ratings_before, strict=False):
                before.setdefault(pid, round(rating, 1))
        return before

    def _publish(self, event: TournamentEvent) -> None:
        if event.tournament_id in self._result_news_due and not isinstance(event, TourResult):
            self._result_news(event.tournament_id)  # the results come before what follows
        self.host.publish(tour_topic(event.tournament_id), event)

    def _result_news(self, tournament_id: str) -> None:
        """Publish the tournament's round and standings as they stand now."""
        self._result_news_due.discard(tournament_id)
        self._result_news_at[tournament_id] = time.monotonic() * 1000
        record = self.store.tournament(tournament_id)
        if record is not None:
            pairings = self.store.pairings(tournament_id, record.round)
            self._publish(
                TourResult(
                    tournament_id=tournament_id,
                    round=record.round,
                    pairings=[self._pairing_info(p) for p in pairings],
                    standings=self._standing_rows(record),
                )
            )

    # ------------------------------------------------------------ requests

    def create(self, request: CreateTournament, identity: bytes, now: float) -> Message:
        self._authorise(request.director_key)
        spec = request.spec
        try:
            Format(spec.format)
        except ValueError:
            raise _error("bad_request", f"unknown format {spec.format!r}") from None
        check_game(spec.variant, spec.options, spec.time_control)
        try:
            system = points_system(spec.points)
            kind = "swiss" if spec.format == Format.SWISS else "round_robin"
            if len(resolve_tiebreaks(spec.tiebreaks, kind)) > MAX_TIEBREAKS:
                raise TournamentError(f"at most {MAX_TIEBREAKS} tie-breaks, presets counted out")
        except TournamentError as exc:
            raise _error("bad_request", str(exc)) from None
        spec = dataclasses.replace(
            spec, time_control=_tournament_clock(spec.time_control), points=system.name
        )
        if Format(spec.format) is Format.SWISS:
            spec = dataclasses.replace(spec, pairing=spec.pairing or "dutch")
            if spec.pairing not in PAIRING_SYSTEMS:
                raise _error(
                    "bad_request",
                    f"pairing must be {', '.join(PAIRING_SYSTEMS)}, not {spec.pairing!r}",
                )
            if spec.acceleration not in ("none", "baku"):
                raise _error("bad_request", "acceleration must be none or baku")
            if spec.unplayed not in ("", "fide2009", "fide2023"):
                raise _error("bad_request", "unplayed must be fide2009 or fide2023")
        tournament_id = uuid.uuid4().hex[:10]
        self.store.add_tournament(TournamentRecord(tournament_id, spec, "open", 0, int(now)))
        self._publish(TourCreated(tournament_id=tournament_id))
        log.info("tournament %s created: %s (%s)", tournament_id, spec.name, spec.format)
        return TournamentCreated(re=request.id, tournament_id=tournament_id)

    def _entrant(self, request: JoinTournament | WithdrawTournament, identity: bytes) -> str:
        if request.player is not None:
            self._authorise(request.director_key)
            info = self.store.player_by_name(request.player)
            if info is None:
                raise _error("unknown_player", f"no player named {request.player!r}")
            return info.player_id
        return self.host.player_of(identity).player_id

    def _roster_entry(self, name: str) -> tuple[str, str]:
        """A new player nobody holds yet, and the claim code that takes it over."""
        name = name.strip()
        if not name or not name.isprintable():
            raise _error("bad_request", "a name must be printable and not empty")
        player_id, code = uuid.uuid4().hex[:12], new_code()
        self.store.add_player(
            PlayerRecord(player_id, name, "human", secrets.token_urlsafe(18), claimable=True),
            int(time.time() * 1000),
            claim_hash=claim_hash(player_id, code),
        )
        log.info("roster entry %s added", name)
        return player_id, code

    def join(self, request: JoinTournament, identity: bytes, now: float) -> Message:
        record = self._tournament(request.tournament_id)
        code = None
        if request.player is not None and self.store.player_by_name(request.player) is None:
            self._authorise(request.director_key)
            self._check_open(record, [e for e in self.store.entrants(record.tournament_id)])
            player_id, code = self._roster_entry(request.player)
        else:
            player_id = self._entrant(request, identity)
        entered = [e for e in self.store.entrants(record.tournament_id) if not e.withdrawn]
        if any(e.player_id == player_id for e in entered):
            if request.fields is not None and request.director_key is not None:
                # the director corrects an entrant's fields (rating, club, title, born)
                self.store.set_entrant_fields(record.tournament_id, player_id, request.fields)
                return Ok(re=request.id)
            # before "closed": a bot re-joining after a reconnect is simply in already
            raise _error("already_joined", "already entered")
        self._check_open(record, entered)
        fields = request.fields if request.director_key is not None else None
        if not self.store.add_entrant(record.tournament_id, player_id, record.round, fields):
            raise _error("already_joined", "already entered")
        name = self._name(player_id) or ""
        self._publish(TourJoined(tournament_id=record.tournament_id, player=name))
        if code is not None:
            return ClaimCode(
                re=request.id, tournament_id=record.tournament_id, player=name, code=code
            )
        return Ok(re=request.id)

    def _check_open(self, record: TournamentRecord, entrants: list[EntrantRecord]) -> None:
        late = record.status in ("running", "paused")
        if record.status == "finished" or (late and record.spec.format != Format.SWISS):
            raise _error("closed", "entries are closed for this tournament")
        if len([e for e in entrants if not e.withdrawn]) >= MAX_ENTRANTS:
            raise _error("full", f"the tournament has its {MAX_ENTRANTS} players")

    def reclaim(self, request: ReclaimTournament, identity: bytes, now: float) -> Message:
        """A new claim code for an entrant; the session they had stops working."""
        self._authorise(request.director_key)
        record = self._tournament(request.tournament_id)
        info = self.store.player_by_name(request.player)
        entered = {e.player_id for e in self.store.entrants(record.tournament_id)}
        if info is None or info.player_id not in entered:
            raise _error("not_entered", f"{request.player!r} is not entered in this tournament")
        code = new_code()
        self.store.set_claim(
            info.player_id, claim_hash(info.player_id, code), secrets.token_urlsafe(18)
        )
        self.host.sign_out(info.player_id)
        log.info("tournament %s: new claim code for %s", record.tournament_id, info.name)
        return ClaimCode(
            re=request.id, tournament_id=record.tournament_id, player=info.name, code=code
        )

    def reclaim_name(self, request: ReclaimName, identity: bytes, now: float) -> Message:
        """A claim code for any player (a lobby name whose session was lost); the
        session they had stops working, the player (ratings, games) stays theirs."""
        self._authorise(request.director_key)
        info = self.store.player_by_name(request.player)
        if info is None:
            raise _error("unknown_player", f"no player named {request.player!r}")
        code = new_code()
        self.store.set_claim(
            info.player_id, claim_hash(info.player_id, code), secrets.token_urlsafe(18)
        )
        self.host.sign_out(info.player_id)
        log.info("new claim code for %s", info.name)
        return ClaimCode(re=request.id, tournament_id="", player=info.name, code=code)

    def withdraw(self, request: WithdrawTournament, identity: bytes, now: float) -> Message:
        record = self._tournament(request.tournament_id)
        player_id = self._entrant(request, identity)
        if record.status == "finished":
            raise _error("closed", "the tournament is over")
        if not self.store.withdraw(record.tournament_id, player_id):
            raise _error("not_entered", "not entered in this tournament")
        self._publish(
            TourWithdrawn(
                tournament_id=record.tournament_id, player=self._name(player_id) or player_id
            )
        )
        return Ok(re=request.id)

    # ------------------------------------------------------------ the arbiter's tools

    def import_entrants(self, request: ImportEntrants, identity: bytes, now: float) -> Message:
        """Enter every row (new names become roster entries with a claim code), or,
        on any bad row, nobody: the error names the row."""
        self._authorise(request.director_key)
        record = self._tournament(request.tournament_id)
        entrants = self.store.entrants(record.tournament_id)
        self._check_open(record, entrants)
        entered = {e.player_id for e in entrants if not e.withdrawn}
        if len(entered) + len(request.rows) > MAX_ENTRANTS:
            raise _error("full", f"the tournament takes {MAX_ENTRANTS} players")
        seen: set[str] = set()
        new: list[tuple[PlayerRecord, str]] = []
        rows: list[tuple[str, EntrantFields]] = []
        codes: list[EntryCode] = []
        for number, row in enumerate(request.rows, 1):
            name = row.player.strip()
            where = f"row {number} ({name or 'no name'})"
            if not name or not name.isprintable():
                raise _error("bad_request", f"{where}: a name must be printable and not empty")
            if name.casefold() in seen:
                raise _error("bad_request", f"{where}: the name is in the list twice")
            seen.add(name.casefold())
            info = self.store.player_by_name(name)
            if info is None:
                player_id, code = uuid.uuid4().hex[:12], new_code()
                player = PlayerRecord(
                    player_id, name, "human", secrets.token_urlsafe(18), claimable=True
                )
                new.append((player, claim_hash(player_id, code)))
                codes.append(EntryCode(player=name, code=code))
            else:
                player_id = info.player_id
                if player_id in entered:
                    raise _error("already_joined", f"{where}: already entered")
            rows.append((player_id, row.fields))
        self.store.import_entrants(
            record.tournament_id, new, rows, record.round, int(time.time() * 1000)
        )
        for player_id, _ in rows:
            name = self._name(player_id) or player_id
            self._publish(TourJoined(tournament_id=record.tournament_id, player=name))
        log.info("tournament %s: %d entrants imported", record.tournament_id, len(rows))
        return Imported(re=request.id, entered=len(rows), codes=codes)

    def _entrant_ids(self, record: TournamentRecord, names: Sequence[str]) -> list[str]:
        """The ids of entrants (not withdrawn) by name; ``not_entered`` names the first
        name that is not one."""
        active = {e.player_id for e in self.store.entrants(record.tournament_id) if not e.withdrawn}
        ids = []
        for name in names:
            info = self.store.player_by_name(name)
            if info is None or info.player_id not in active:
                raise _error("not_entered", f"{name!r} is not entered in this tournament")
            ids.append(info.player_id)
        return ids

    def _swiss_only(self, record: TournamentRecord, what: str) -> None:
        if record.spec.format != Format.SWISS:
            raise _error("not_allowed", f"{what} is for Swiss events (this one is fixed)")
        if record.status == "finished":
            raise _error("closed", "the tournament is over")

    def _next_round(self, record: TournamentRecord, round_no: int) -> int:
        """The round a director's request is for: 0 means the next; a round that has
        started (or is past) is refused."""
        upcoming = record.round + 1
        if round_no == 0:
            return upcoming
        if round_no != upcoming:
            raise _error(
                "not_allowed",
                f"round {round_no} cannot be changed: only the next round ({upcoming}), "
                "before it starts (pause the event to hold it)",
            )
        return round_no

    def forbid(self, request: ForbidPair, identity: bytes, now: float) -> Message:
        """Keep two players apart, or players of one club apart up to a round."""
        self._authorise(request.director_key)
        record = self._tournament(request.tournament_id)
        self._swiss_only(record, "keeping players apart")
        if len(request.players) not in (0, 2) or (
            not request.players and request.same_club_until is None
        ):
            raise _error("bad_request", "name two players, or same_club_until, or both")
        if request.players:
            a, b = self._entrant_ids(record, request.players)
            if a == b:
                raise _error("bad_request", "name two different players")
            self.store.forbid(record.tournament_id, a, b)
        if request.same_club_until is not None:
            spec = dataclasses.replace(record.spec, same_club_until=request.same_club_until)
            self.store.set_spec(record.tournament_id, spec)
        return Ok(re=request.id)

    def pair_round(self, request: PairRound, identity: bytes, now: float) -> Message:
        """The director's pairings of the next round (the rest: as usual)."""
        self._authorise(request.director_key)
        record = self._tournament(request.tournament_id)
        self._swiss_only(record, "pairing by hand")
        round_no = self._next_round(record, request.round)
        if round_no > 1 and not self._swiss_rounds_left(record):
            raise _error("not_allowed", "the event has played all its rounds")
        pairs: list[tuple[str, str]] = []
        seen: set[str] = set()
        for pair in request.pairs:
            if len(pair) != 2:
                raise _error("bad_request", f"a pair is two names, not {len(pair)}: {pair}")
            first, second = self._entrant_ids(record, pair)
            for name, pid in zip(pair, (first, second), strict=True):
                if pid in seen:
                    raise _error("bad_request", f"{name!r} is paired twice")
                seen.add(pid)
            pairs.append((first, second))
        self.store.set_manual(record.tournament_id, round_no, pairs)
        log.info(
            "tournament %s: %d pairs of round %d by hand",
            record.tournament_id,
            len(pairs),
            round_no,
        )
        return Ok(re=request.id)

    def _swiss_rounds_left(self, record: TournamentRecord) -> bool:
        try:
            schedule, _ = self._schedule(record)
        except TournamentError:
            return True
        return record.round < schedule.planned_rounds

    def check_in(self, request: CheckIn, identity: bytes, now: float) -> Message:
        """Players present for the next round; once anyone is, the others are absent."""
        self._authorise(request.director_key)
        record = self._tournament(request.tournament_id)
        self._swiss_only(record, "check-in")
        round_no = self._next_round(record, request.round)
        self.store.check_in(
            record.tournament_id, round_no, self._entrant_ids(record, request.players)
        )
        return Ok(re=request.id)

    def request_bye(self, request: RequestBye, identity: bytes, now: float) -> Message:
        """A player's bye for the next Swiss round, asked before it is paired: half a
        point (a draw's points) or none; ``none`` takes it back."""
        self._authorise(request.director_key)
        record = self._tournament(request.tournament_id)
        self._swiss_only(record, "a requested bye")
        scores = {"half": 0.5, "zero": 0.0, "none": None}
        if request.bye not in scores:
            raise _error("bad_request", f"a bye is half, zero or none, not {request.bye!r}")
        round_no = self._next_round(record, request.round)
        if round_no > 1 and not self._swiss_rounds_left(record):
            raise _error("not_allowed", "the event has played all its rounds")
        (player_id,) = self._entrant_ids(record, [request.player])
        self.store.request_bye(record.tournament_id, round_no, player_id, scores[request.bye])
        log.info(
            "tournament %s: %s bye for %s in round %d",
            record.tournament_id,
            request.bye,
            request.player,
            round_no,
        )
        return Ok(re=request.id)

    def report_result(self, request: ReportResult, identity: bytes, now: float) -> Message:
        """An over-the-board result: the director's decides; a player's counts when
        the other player says the same."""
        record = self._tournament(request.tournament_id)
        director = request.director_key is not None
        if director:
            self._authorise(request.director_key)
        found = [
            p
            for p in self.store.pairings(record.tournament_id, request.round)
            if p.table == request.table and p.second is not None
        ]
        if not found:
            raise _error("bad_request", f"round {request.round} has no table {request.table}")
        pairing = found[0]
        if not pairing.otb:
            raise _error(
                "not_allowed", f"table {request.table} plays on screen: the referee has its result"
            )
        if request.correct:
            if not director:
                raise _error("unauthorized", "only the director corrects a result")
            return self._correct_board(record, pairing, request)
        if pairing.result is not None:
            raise _error("not_allowed", f"table {request.table} has its result: {pairing.result}")
        said = BOARD_RESULTS.get(request.result.strip())
        if said is None or (not director and said[2] != "played"):
            allowed = "1-0, 0-1 or 1/2-1/2" + ("; +-, -+ or -- for forfeits" if director else "")
            raise _error("bad_request", f"a result is {allowed}, not {request.result!r}")
        if director:
            self._record_board(record, pairing, said)
            return ResultNoted(re=request.id, status="recorded")
        me = self.host.player_of(identity).player_id
        if me not in (pairing.first, pairing.second):
            raise _error("not_allowed", f"you do not play at table {request.table}")
        seat = 0 if me == pairing.first else 1
        self.store.set_report(record.tournament_id, pairing.round, pairing.board, seat, said[0])
        reports = list(pairing.reports)
        reports[seat] = said[0]
        if reports[0] == reports[1]:
            self._record_board(record, pairing, said)
            return ResultNoted(re=request.id, status="recorded")
        status = "waiting" if None in reports else "disputed"
        pairings = self.store.pairings(record.tournament_id, pairing.round)
        self._publish(
            TourReported(
                tournament_id=record.tournament_id,
                round=pairing.round,
                pairings=[self._pairing_info(p) for p in pairings],
            )
        )
        log.info(
            "tournament %s round %d table %d: %s",
            record.tournament_id,
            pairing.round,
            request.table,
            status,
        )
        return ResultNoted(re=request.id, status=status)

    def _correct_board(
        self, record: TournamentRecord, pairing: PairingRecord, request: ReportResult
    ) -> Message:
        """The director's correction of a counted over-the-board result: standings,
        ratings (every rated game of the variant replayed) and exports follow; a
        round paired since stays as it was paired. Logged with both results."""
        said = BOARD_RESULTS.get(request.result.strip())
        if said is None:
            raise _error(
                "bad_request",
                f"a result is 1-0, 0-1, 1/2-1/2, +-, -+ or --, not {request.result!r}",
            )
        if pairing.result is None or pairing.game_id is None:
            raise _error(
                "not_allowed",
                f"table {request.table} has no result to correct: send it without --correct",
            )
        result, score_first, kind = said
        if (pairing.result, pairing.kind) == (result, kind):
            raise _error("not_allowed", f"table {request.table} has that result already: {result}")
        if not self.store.correct_board_result(
            pairing.game_id,
            result=result,
            termination="over_the_board" if kind == "played" else "forfeit",
            score=GameScore(score_first, kind),
            rated=record.spec.rated and kind == "played",
        ):
            raise _error("not_allowed", f"table {request.table} has no counted game to correct")
        later = record.round > pairing.round
        log.warning(
            "tournament %s round %d table %d: result corrected by the director from %s to %s%s",
            record.tournament_id,
            pairing.round,
            request.table,
            pairing.result,
            result,
            f" (round {record.round} was paired before: it stays as paired)" if later else "",
        )
        self.result_recorded(record.tournament_id)
        return ResultNoted(re=request.id, status="corrected")

    def _record_board(
        self, record: TournamentRecord, pairing: PairingRecord, said: tuple[str, float, ResultKind]
    ) -> None:
        result, score_first, kind = said
        spec = record.spec
        assert pairing.first is not None and pairing.second is not None
        ids = [pairing.first, pairing.second]
        ratings = None
        if spec.rated and kind == "played":
            ratings = rate_game(self.store, spec.variant, ids, score_first)
        wall = int(time.time() * 1000)
        game = GameRecord(
            game_id=new_game_id(),
            referee=OTB_REFEREE,
            variant=spec.variant,
            options=dict(spec.options),
            time_control=spec.time_control,
            player_ids=ids,
            names=[self._name(pid) or pid for pid in ids],
            tokens=[],
            rated=spec.rated,
            status="finished",
            created_ms=wall,
            tournament_id=record.tournament_id,
            round=pairing.round,
            board=pairing.board,
            game_no=pairing.game_no,
            result=result,
            termination="over_the_board" if kind == "played" else "forfeit",
            ended_ms=wall,
        )
        if self.store.record_board_result(
            game, score=GameScore(score_first, kind), ratings=ratings
        ):
            log.info("tournament %s: table %s %s", record.tournament_id, pairing.table, result)
            self.result_recorded(record.tournament_id)

    def start(self, request: StartTournament, identity: bytes, now: float) -> Message:
        self._authorise(request.director_key)
        record = self._tournament(request.tournament_id)
        if record.status != "open":
            raise _error("not_allowed", f"the tournament is {record.status}, not open")
        try:
            self._schedule(record)  # refuse before anything changes
        except TournamentError as exc:
            raise _error("bad_request", str(exc)) from None
        entrants = [e for e in self.store.entrants(record.tournament_id) if not e.withdrawn]
        # a federation rating the director entered first (FIDE's order: rated players
        # by that rating), then the others by their lanqi rating
        by_rating = sorted(
            entrants,
            key=lambda e: (
                e.fields.rating is None,
                -(e.fields.rating or self._rating(e.player_id, record.spec.variant)),
                e.seed,
            ),
        )
        self.store.set_seeds(record.tournament_id, [e.player_id for e in by_rating])
        self.store.set_tournament_status(record.tournament_id, "running")
        self._publish(TourStarted(tournament_id=record.tournament_id))
        self.advance(record.tournament_id, now)
        return Ok(re=request.id)

    def _rating(self, player_id: str, variant: str) -> float:
        return self.store.rating(player_id, variant).rating

    def _set_status(
        self,
        request: PauseTournament | ResumeTournament,
        want: TournamentStatus,
        to: TournamentStatus,
    ) -> Message:
        self._authorise(request.director_key)
        record = self._tournament(request.tournament_id)
        if record.status != want:
            raise _error("not_allowed", f"the tournament is {record.status}, not {want}")
        self.store.set_tournament_status(record.tournament_id, to)
        event = TourResumed if to == "running" else TourPaused
        self._publish(
            event(
                tournament_id=record.tournament_id,
                round=record.round,
                standings=self._standing_rows(record),
            )
        )
        return Ok(re=request.id)

    def pause(self, request: PauseTournament, identity: bytes, now: float) -> Message:
        return self._set_status(request, "running", "paused")

    def resume(self, request: ResumeTournament, identity: bytes, now: float) -> Message:
        reply = self._set_status(request, "paused", "running")
        self.advance(request.tournament_id, now)
        return reply

    def finish(self, request: FinishTournament, identity: bytes, now: float) -> Message:
        self._authorise(request.director_key)
        record = self._tournament(request.tournament_id)
        if record.status == "finished":
            raise _error("not_allowed", "the tournament is already finished")
        self.store.set_tournament_status(record.tournament_id, "finished")
        self._pairing.pop(record.tournament_id, None)  # a round being paired is dropped
        self._notes.pop(record.tournament_id, None)
        self._publish(
            TourFinished(
                tournament_id=record.tournament_id,
                round=record.round,
                standings=self._standing_rows(record),
            )
        )
        return Ok(re=request.id)

    def delete(self, request: DeleteTournament, identity: bytes, now: float) -> Message:
        self._authorise(request.director_key)
        record = self._tournament(request.tournament_id)
        if record.status != "open" or not self.store.delete_tournament(record.tournament_id):
            raise _error(
                "not_allowed",
                f"the tournament is {record.status}: only one that has not started can be "
                "deleted (finish it instead)",
            )
        self._publish(TourDeleted(tournament_id=record.tournament_id))
        log.info("tournament %s deleted: %s", record.tournament_id, record.spec.name)
        return Ok(re=request.id)

    def list_all(self, request: ListTournaments, identity: bytes, now: float) -> Message:
        infos = [self._info(t) for t in self.store.tournaments()]
        return TournamentsList(re=request.id, tournaments=infos[-1000:])

    def standings(self, request: GetStandings, identity: bytes, now: float) -> Message:
        record = self._tournament(request.tournament_id)
        pairings = [self._pairing_info(p) for p in self.store.pairings(record.tournament_id)]
        return Standings(
            re=request.id,
            tournament=self._info(record),
            rows=self._standing_rows(record),
            pairings=pairings[-4096:],
            note=self.note(record.tournament_id),
        )

    def export(self, request: ExportTournament, identity: bytes, now: float) -> Message:
        record = self._tournament(request.tournament_id)
        if request.format == "sheet":
            text = self.round_sheet(record, request.round, request.site or self.site)
        else:
            text = self.export_text(
                record, request.format, request.notation, request.site, clocks=request.clocks
            )
        if len(text) > 300_000:
            raise _error("too_large", "the export is too large to send; use a smaller format")
        return Exported(re=request.id, format=request.format, text=text)

    def export_text(
        self,
        record: TournamentRecord,
        fmt: str,
        notation: str = "wxf",
        site: str | None = None,
        *,
        clocks: bool = True,
    ) -> str:
        """The tournament as ``pgn`` (all games, xiangqi moves in ``notation``, with
        ``%clk`` comments if ``clocks``), ``txt``, ``csv`` or ``html`` (the report)."""
        spec = record.spec
        players, _ = self._players(record)
        if notation not in EXPORT_NOTATIONS:
            raise _error("bad_request", f"notation must be {', '.join(EXPORT_NOTATIONS)}")
        if fmt == "pgn":
            return self._games_text(record, notation, site or self.site, clocks=clocks)
        if fmt in ("trf", "check"):
            return self._trf_or_check(record, players, fmt)
        if fmt not in ("txt", "csv", "html"):
            raise _error("bad_request", "format must be pgn, txt, csv, html, sheet, trf or check")
        rows: list[StandingRow] = []
        table: Crosstable | None = None
        if len(players) >= 2:
            try:
                schedule, _ = self._schedule(record)
            except TournamentError:  # open, and not valid yet: no standings to show
                schedule = None
            if schedule is not None:
                results = self._results(self.store.pairings(record.tournament_id))
                rows = schedule.standings(results)
                table = schedule.crosstable(results)
        if fmt == "html":
            return self._report(record, players, rows, table, site or self.site)
        if not rows or table is None:
            return ""
        if fmt == "txt":
            system = points_system(spec.points)
            scored = "" if system.name == DEFAULT_POINTS else f", points {system.label}"
            title = f"{spec.name} ({spec.format}, {spec.variant}{scored})"
            return (
                "\n\n".join([title, export.standings_text(rows), export.crosstable_text(table)])
                + "\n"
            )
        return export.standings_csv(rows)

    def _entrant_info(self, record: TournamentRecord) -> dict[str, str]:
        """What the director entered of each entrant, as a sheet shows it
        (``1850 · FM · Riverside · 2011``), by player id."""
        out = {}
        for e in self.store.entrants(record.tournament_id):
            f = e.fields
            parts = [
                f"{f.rating:.0f}" if f.rating is not None else "",
                f.title or "",
                f.club or "",
                str(f.birth_year) if f.birth_year else "",
            ]
            out[e.player_id] = " · ".join(p for p in parts if p)
        return out

    def round_sheet(self, record: TournamentRecord, round_no: int, site: str) -> str:
        """A round's sheet and pairing cards (HTML to print); ``round_no`` 0: the
        current round."""
        round_no = round_no or record.round
        pairings = self.store.pairings(record.tournament_id, round_no) if round_no else []
        if not pairings:
            raise _error("bad_request", f"round {round_no} is not paired yet")
        info = self._entrant_info(record)
        lines = [
            report.SheetLine(
                table=p.table,
                first=self._name(p.first) or "",
                second=self._name(p.second),
                first_info=info.get(p.first or "", ""),
                second_info=info.get(p.second or "", ""),
                result=_result_text(p) if p.second is not None else "",
                otb=p.otb,
                manual=p.origin == "manual",
                note="absent (0)" if p.origin == "absent" else f"bye ({_score(p.score_first)})",
            )
            for p in pairings
        ]
        return report.round_sheet(
            record.spec.name,
            round_no,
            record.spec.variant,
            lines,
            site=site,
            date=time.strftime("%Y-%m-%d"),
        )

    def _trf_or_check(self, record: TournamentRecord, players: list[Player], fmt: str) -> str:
        """``trf``: FIDE's tournament report file; ``check``: every Swiss round re-paired
        by the event's pairing system and compared with what was played, one line per
        difference and a last line that counts them."""
        if len(players) < 2:
            raise _error("bad_request", "the event has fewer than two players")
        try:
            schedule, _ = self._schedule(record)
        except TournamentError as exc:
            raise _error("bad_request", str(exc)) from None
        stored = self.store.pairings(record.tournament_id)
        results = self._results(stored)
        if fmt == "trf":
            return self._trf(record, schedule, players, stored, results)
        if Format(record.spec.format) is not Format.SWISS:
            raise _error("bad_request", "only a Swiss event is paired round by round")
        played = [
            Pairing(p.round, p.board, p.first, p.second, p.game_no)
            for p in stored
            if p.first is not None
        ]
        forbidden = {n: self.forbidden_pairs(record, n) for n in {p.round for p in played}}
        lines = check_pairings(schedule, results, played, forbidden)
        system = schedule.options.get("pairing")
        rounds = len({p.round for p in played})
        lines.append(f"{rounds} rounds checked by {system}: {len(lines)} differences")
        return "\n".join(lines) + "\n"

    def _trf(
        self,
        record: TournamentRecord,
        schedule: Schedule,
        players: list[Player],
        stored: list[PairingRecord],
        results: list[Result],
    ) -> str:
        """The event's TRF: each player's rating as it was at the start (a federation
        rating the director entered, else lanqi's rating before the first rated game
        of the event), the fields the director entered, round dates (the day the
        round's first game began), hand-made pairings marked."""
        before = self.ratings_before(record)
        at_start = [dataclasses.replace(p, rating=before.get(p.id, p.rating)) for p in players]
        entrants = {
            e.player_id: TrfEntrant(
                rating=e.fields.rating,
                sex=e.fields.sex or "",
                title=e.fields.title or "",
                federation=e.fields.federation or "",
                fide_id=str(e.fields.fide_id) if e.fields.fide_id else "",
                birth=str(e.fields.birth_year) if e.fields.birth_year else "",
            )
            for e in self.store.entrants(record.tournament_id)
        }
        dates: dict[int, datetime.date] = {}
        for game in self.store.games(tournament_id=record.tournament_id):
            day = datetime.date.fromtimestamp(game.created_ms / 1000)
            if game.round and (game.round not in dates or day < dates[game.round]):
                dates[game.round] = day
        manual = [
            (p.round, p.first, p.second)
            for p in stored
            if p.origin == "manual" and p.first is not None and p.second is not None
        ]
        ranks = {row.player.id: row.rank for row in schedule.standings(results)}
        return trf_text(
            at_start,
            results,
            name=record.spec.name,
            rounds=schedule.planned_rounds,
            points=record.spec.points,
            ranks=ranks,
            bye_points=schedule.bye_points,
            entrants=entrants,
            round_dates=dates,
            manual=manual,
        )

    def _finished_games(self, record: TournamentRecord) -> list[GameRecord]:
        games = self.store.games(tournament_id=record.tournament_id)
        finished = [g for g in games if g.status == "finished"]
        return sorted(finished, key=lambda g: (g.round, g.board, g.game_no))

    def _report(
        self,
        record: TournamentRecord,
        players: list[Player],
        rows: list[StandingRow],
        table: Crosstable | None,
        site: str,
    ) -> str:
        spec = record.spec
        tc = spec.time_control
        games = self._finished_games(record)
        all_games = self.store.games(tournament_id=record.tournament_id)
        stamps = [g.created_ms for g in all_games] + [g.ended_ms for g in games if g.ended_ms]
        facts = report.EventFacts(
            name=spec.name,
            variant=spec.variant,
            format=report.FORMAT_NAMES.get(spec.format, spec.format),
            time_control=time_control_text(tc),
            site=site,
            dates=report.date_span(stamps),
            rated=spec.rated,
            status=record.status,
            players=len(players),
            points=points_system(spec.points).label,
        )
        by_id = {g.game_id: g for g in games}
        rounds: dict[int, list[report.BoardLine]] = {}
        for p in self.store.pairings(record.tournament_id):
            game = by_id.get(p.game_id or "")
            rounds.setdefault(p.round, []).append(
                report.BoardLine(
                    board=p.board,
                    first=self._name(p.first) or "",
                    second=self._name(p.second),
                    result=_result_text(p),
                    termination=(game.termination or "") if game else "",
                    game=_anchor(game) if game else None,
                    note={"manual": "manual", "absent": "absent"}.get(p.origin, ""),
                    table=p.table,
                )
            )
        return report.html_report(
            facts,
            [report.RoundLines(n, boards) for n, boards in sorted(rounds.items())],
            rows,
            table,
            [_game_moves(g) for g in games],
            ratings=_event_ratings(games),
            engines={p.id: e for p in players if (e := self._engine(p.id))},
        )

    def _games_text(
        self, record: TournamentRecord, notation: str, site: str, *, clocks: bool
    ) -> str:
        from lanqi.games.xiangqi.pgn import clock_comment  # the %clk text PGN readers know

        spec = record.spec
        tc = spec.time_control
        texts = []
        for game in self._finished_games(record):
            board = restore_game(
                {
                    "variant": game.variant,
                    "options": game.options,
                    "start": game.start_fen,
                    "moves": game.moves,
                }
            )
            variant = variant_spec(game.variant)
            headers = {
                "Event": spec.name,
                "Site": site,
                "Date": _pgn_date(game.ended_ms or game.created_ms),
                "Round": f"{game.round}.{game.board}",
                "Result": game.result or "*",
                "TimeControl": time_control_text(tc, "pgn"),
                "Termination": game.termination or "unterminated",
                **dict(zip(variant.seat_names, game.names, strict=True)),
                **self._engine_tags(variant.seat_names, game.player_ids),
            }
            comments = [clock_comment(ms) for ms in game.clocks] if clocks else []
            texts.append(
                variant.write_record(board, headers, None, notation=notation, comments=comments)
            )
        return export.join_pgn(texts)

    # ------------------------------------------------------------ the engine

    def resume_all(self) -> None:
        """After a start: carry on every running tournament (missing games are created)."""
        for record in self.store.tournaments():
            if record.status == "running":
                self.advance(record.tournament_id, 0.0)

    def tick(self, now: float) -> None:
        """Retry tournaments whose game creation failed; apply rounds paired off the loop;
        publish result news held back (:data:`RESULT_NEWS_MS`)."""
        for tournament_id in list(self._result_news_due):
            if time.monotonic() * 1000 - self._result_news_at[tournament_id] >= RESULT_NEWS_MS:
                self._result_news(tournament_id)
        for tournament_id, when in list(self._retry_at.items()):
            if now >= when:
                del self._retry_at[tournament_id]
                self.advance(tournament_id, now)
        for tournament_id, job in list(self._pairing.items()):
            if job.done.done():
                self.advance(tournament_id, now)

    def note(self, tournament_id: str) -> str:
        """``pairing round N...`` while a round is paired off the loop, the one-line
        reason when the next round cannot be paired, else how many pairings of the
        current round break a pairing rule (empty when none)."""
        if tournament_id in self._notes:
            return self._notes[tournament_id]
        record = self.store.tournament(tournament_id)
        if record is None or not record.round:
            return ""
        broken = [p for p in self.store.pairings(tournament_id, record.round) if p.warning]
        if not broken:
            return ""
        n = len(broken)
        return (
            f"round {record.round}: {n} pairing{'s' if n > 1 else ''} had to break a "
            f"pairing rule ({broken[0].warning}{'; ...' if n > 1 else ''})"
        )[:MAX_NOTE]

    def _named(self, warning: str, p: Pairing) -> str:
        """An engine's warning with the players' names for their ids."""
        for pid in p.players():
            warning = warning.replace(pid, self._name(pid) or pid)
        return warning

    def result_recorded(self, tournament_id: str) -> None:
        last = self._result_news_at.get(tournament_id)
        if (
            last is None
            or time.monotonic() * 1000 - last >= RESULT_NEWS_MS
            or self._round_complete(tournament_id)  # told with its round, before the next
        ):
            self._result_news(tournament_id)
        else:  # told at the end of the spell (tick), or before the next news
            self._result_news_due.add(tournament_id)
        self.advance(tournament_id, 0.0)

    def _round_complete(self, tournament_id: str) -> bool:
        record = self.store.tournament(tournament_id)
        if record is None or not record.round:
            return False  # no round to tell
        return all(p.result is not None for p in self.store.pairings(tournament_id, record.round))

    def game_started(self, game: GameRecord) -> None:
        assert game.tournament_id is not None
        key = (game.tournament_id, game.round, game.board, game.game_no)
        self._creating.discard(key)
        table = next(
            (
                p.table
                for p in self.store.pairings(game.tournament_id, game.round)
                if (p.board, p.game_no) == (game.board, game.game_no)
            ),
            game.board,
        )
        self._publish(
            TourGame(
                tournament_id=game.tournament_id,
                round=game.round,
                pairings=[
                    PairingInfo(
                        round=game.round,
                        board=game.board,
                        first=game.names[0],
                        second=game.names[1],
                        game_id=game.game_id,
                        table=table,
                    )
                ],
            )
        )

    def game_failed(self, order: GameOrder, why: str) -> None:
        assert order.tournament_id is not None
        self._creating.discard((order.tournament_id, order.round, order.board, order.game_no))
        self._retry_at[order.tournament_id] = self.host.now() + RETRY_MS
        log.error(
            "tournament %s: game could not be created (%s); will retry", order.tournament_id, why
        )

    def advance(self, tournament_id: str, now: float) -> None:  # noqa: PLR0911 - one per wait
        """Create missing games; when a round is complete, pair the next one (or finish)."""
        if not self.host.reconciled():
            return  # results may still come in from the referees: decide nothing yet
        for _ in range(1000):  # rounds of only byes/forfeits follow at once
            record = self.store.tournament(tournament_id)
            if record is None or record.status != "running":
                self._pairing.pop(tournament_id, None)  # paused, finished: pair on resume
                self._notes.pop(tournament_id, None)
                return
            current = self.store.pairings(tournament_id, record.round) if record.round else []
            waiting = [p for p in current if p.result is None]
            if waiting:
                self._create_missing(record, waiting)
                return
            schedule, withdrawn = self._schedule(record)
            results = self._results(self.store.pairings(tournament_id))
            origins: dict[str, str] = {}  # player id -> "manual" / "absent" / "requested"
            upcoming: list[Pairing] | None
            try:
                if schedule.format is Format.SWISS and not schedule.is_complete(results):
                    upcoming = self._swiss_round(record, schedule, results, withdrawn, origins)
                else:
                    upcoming = schedule.next_round(results, withdrawn=withdrawn)
            except _StillPairingError:
                return  # tick() comes back when the worker is done
            except TournamentError as exc:
                self._stuck(record, str(exc))
                return
            if upcoming == []:
                self._stuck(record, "nobody left to pair")
                return
            self._notes.pop(tournament_id, None)
            if upcoming is None:
                self.store.set_tournament_status(tournament_id, "finished")
                self._publish(
                    TourFinished(
                        tournament_id=tournament_id,
                        round=record.round,
                        standings=self._standing_rows(record),
                    )
                )
                log.info("tournament %s finished", tournament_id)
                return
            self._store_round(record, schedule, upcoming, withdrawn, origins)

    def forbidden_pairs(self, record: TournamentRecord, round_no: int) -> set[frozenset[str]]:
        """The pairs a Swiss round must keep apart: the director's, and players of
        the same club (any case) up to ``same_club_until``."""
        pairs = self.store.forbidden(record.tournament_id)
        if round_no <= record.spec.same_club_until:
            clubs: dict[str, list[str]] = {}
            for e in self.store.entrants(record.tournament_id):
                if e.fields.club and e.fields.club.strip():
                    clubs.setdefault(e.fields.club.strip().casefold(), []).append(e.player_id)
            for members in clubs.values():
                pairs |= {frozenset((a, b)) for a in members for b in members if a < b}
        return pairs

    def _swiss_round(
        self,
        record: TournamentRecord,
        schedule: Schedule,
        results: list[Result],
        withdrawn: set[str],
        origins: dict[str, str],
    ) -> list[Pairing]:
        """The next Swiss round: the director's pairs first, then the engine's pairing
        of everyone else who is present (forbidden pairs kept apart), then a
        zero-point bye for each absent player (not checked in when check-in is used)."""
        round_no = record.round + 1
        manual = [  # a pair with a player who withdrew since is dropped
            pair
            for pair in self.store.manual(record.tournament_id, round_no)
            if not withdrawn.intersection(pair)
        ]
        fixed = {pid for pair in manual for pid in pair}
        requested = {
            pid: score
            for pid, score in self.store.requested_byes(record.tournament_id, round_no).items()
            if pid not in withdrawn and pid not in fixed
        }
        present = self.store.checked_in(record.tournament_id, round_no)
        active = [e.player_id for e in self.store.entrants(record.tournament_id) if not e.withdrawn]
        absent = [
            pid
            for pid in active
            if present and pid not in present and pid not in fixed and pid not in requested
        ]
        inputs = _RoundInputs(
            round_no=round_no,
            order=tuple(p.id for p in schedule.players),
            options=schedule.options,
            results=tuple(results),
            left_out=frozenset(withdrawn | fixed | set(absent)),
            forbidden=frozenset(self.forbidden_pairs(record, round_no)),
            requested=tuple(sorted(requested.items())),
        )
        engine = self._engine_pairing(record, schedule, inputs)
        out = [Pairing(round_no, b, first, second) for b, (first, second) in enumerate(manual, 1)]
        for first, second in manual:
            origins[first] = origins[second] = "manual"
        games = [p for p in engine if p.second is not None]
        byes = [p for p in engine if p.second is None and p.first not in requested]
        for p in [*games, *byes]:
            out.append(Pairing(round_no, len(out) + 1, p.first, p.second, warning=p.warning))
        for pid, _score in inputs.requested:
            origins[pid] = "requested"
            out.append(Pairing(round_no, len(out) + 1, pid, None))
        for pid in absent:
            origins[pid] = "absent"
            out.append(Pairing(round_no, len(out) + 1, pid, None))
        return out

    def _engine_pairing(
        self, record: TournamentRecord, schedule: Schedule, inputs: _RoundInputs
    ) -> list[Pairing]:
        """The engine's pairing of ``inputs``: on the loop for a small field; else
        from a worker thread, started here, whose answer is taken only while the
        inputs are unchanged (else it is dropped and the round paired again).
        Raises :class:`_StillPairingError` while the worker works."""
        gate = os.environ.get(PAIRING_GATE_ENV, "")
        if not gate and len(schedule.players) - len(inputs.left_out) < OFF_LOOP_PLAYERS:
            return _engine_round(schedule, inputs)
        tournament_id = record.tournament_id
        job = self._pairing.get(tournament_id)
        if job is not None and job.inputs == inputs:
            if not job.done.done():
                raise _StillPairingError
            del self._pairing[tournament_id]
            return job.done.result()  # the engine's TournamentError is raised here
        if job is not None:
            log.info(
                "tournament %s: round %d changed while it was paired; pairing it again",
                tournament_id,
                inputs.round_no,
            )
        done: Future[list[Pairing]] = Future()
        self._pairing[tournament_id] = _PairingJob(inputs, done)
        worker = threading.Thread(
            target=_pair_in_worker,
            args=(schedule, inputs, done, gate),
            name=f"pairing-{tournament_id}",
            daemon=True,  # a stop never waits for it: nothing is stored until it is applied
        )
        worker.start()
        text = f"pairing round {inputs.round_no}..."
        self._notes[tournament_id] = text
        self._publish(TourPairing(tournament_id=tournament_id, round=inputs.round_no, note=text))
        raise _StillPairingError

    def _stuck(self, record: TournamentRecord, reason: str) -> None:
        """The next round cannot be paired: the director is told why (an event, and
        the note of the standings) and the event waits for them."""
        round_no = record.round + 1
        said = reason if "round" in reason else f"round {round_no} cannot be paired: {reason}"
        todo = " (pair it by hand with `lanqi tournament pair`, or finish the event)"
        if len(said) + len(todo) > MAX_NOTE:  # a long list of players: cut it, keep the advice
            said = said[: MAX_NOTE - len(todo) - 3] + "..."
        text = said + todo
        log.warning("tournament %s cannot continue: %s", record.tournament_id, reason)
        self._notes[record.tournament_id] = text
        self._publish(TourStuck(tournament_id=record.tournament_id, round=round_no, note=text))

    def _tables(
        self, record: TournamentRecord, upcoming: list[Pairing]
    ) -> dict[tuple[int, int, int], int]:
        """The table of each game of a new round, by pairing key: a player's fixed
        table (a wheelchair place) where the director gave one (the higher board's
        player first when two ask for tables), the other games numbered in board
        order on the tables left. Byes have none. Without fixed tables, a game's
        table is its board. A later game of a knockout match keeps the numbering
        of its round."""
        fixed = {
            e.player_id: e.fields.table
            for e in self.store.entrants(record.tournament_id)
            if e.fields.table is not None and not e.withdrawn
        }
        games = [p for p in upcoming if p.second is not None]
        if not fixed:
            return {p.key: p.board for p in games}
        taken: dict[tuple[int, int, int], int] = {}
        used: set[int] = set()
        for p in sorted(games, key=lambda p: p.key):
            for pid in p.players():
                want = fixed.get(pid)
                if want is not None and want not in used and p.key not in taken:
                    taken[p.key] = want
                    used.add(want)
        free = (n for n in itertools.count(1) if n not in used)
        for p in sorted(games, key=lambda p: p.key):
            if p.key not in taken:
                taken[p.key] = next(free)
        return taken

    def _is_otb(self, spec: TournamentSpec, table: int) -> bool:
        return spec.boards == "otb" or (spec.boards == "mixed" and table in spec.otb_tables)

    def _store_round(
        self,
        record: TournamentRecord,
        schedule: Schedule,
        upcoming: list[Pairing],
        withdrawn: set[str],
        origins: dict[str, str] | None = None,
    ) -> None:
        origins = origins or {}
        tables = self._tables(record, upcoming)
        # a Swiss engine's warnings (a rematch, a forbidden pair, a second bye); the
        # fixed formats' "withdrawn" notes are settled by the forfeit recorded here
        swiss = schedule.format is Format.SWISS
        rows = []
        for p in upcoming:
            result: str | None = None
            score: float | None = None
            kind: ResultKind | None = None
            origin = origins.get(p.first or "", "")
            if p.second is None and origin == "absent":
                result, score, kind = "bye", 0.0, "bye"  # absent: a zero-point bye
            elif p.second is None and origin == "requested":
                asked = self.store.requested_byes(record.tournament_id, p.round)
                result, score, kind = "bye", asked.get(p.first or "", 0.0), "bye"
            elif p.second is None:
                bye = schedule.bye_result(p)
                result, score, kind = "bye", bye.score_first, "bye"
            elif p.first in withdrawn or p.second in withdrawn:
                unplayed = score_unplayed(
                    first_gone=p.first in withdrawn, second_gone=p.second in withdrawn
                )
                result, score, kind = unplayed.result, unplayed.score_first, unplayed.kind
            rows.append(
                PairingRecord(
                    record.tournament_id,
                    p.round,
                    p.board,
                    p.game_no,
                    p.first,
                    p.second,
                    None,
                    result,
                    score,
                    kind,
                    table=tables.get(p.key),
                    otb=p.second is not None and self._is_otb(record.spec, tables[p.key]),
                    origin=origin,
                    warning=self._named(p.warning, p) if swiss and origin != "requested" else "",
                )
            )
        round_no = upcoming[0].round
        if round_no > record.round:
            self.store.start_round(record.tournament_id, round_no, rows, "running")
        else:
            self.store.add_pairings(rows)
        self._publish(
            TourRound(
                tournament_id=record.tournament_id,
                round=round_no,
                pairings=[self._pairing_info(r) for r in rows],
            )
        )
        log.info(
            "tournament %s: round %d paired (%d pairings)",
            record.tournament_id,
            round_no,
            len(rows),
        )

    def _create_missing(self, record: TournamentRecord, waiting: list[PairingRecord]) -> None:
        spec = record.spec
        tc = dataclasses.replace(
            _tournament_clock(spec.time_control), join_within_ms=spec.forfeit_after_s * 1000
        )
        for p in waiting:
            key = (record.tournament_id, p.round, p.board, p.game_no)
            if p.game_id is not None or key in self._creating or p.first is None or not p.second:
                continue
            if p.otb:  # played on a physical board: the result comes from people
                continue
            self._creating.add(key)
            self.host.create_game(
                GameOrder(
                    game_id=new_game_id(),
                    variant=spec.variant,
                    options=dict(spec.options),
                    time_control=tc,
                    player_ids=[p.first, p.second],
                    names=[self._name(p.first) or "", self._name(p.second) or ""],
                    rated=spec.rated,
                    tournament_id=record.tournament_id,
                    round=p.round,
                    board=p.board,
                    game_no=p.game_no,
                )
            )
