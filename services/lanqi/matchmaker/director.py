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
import logging
import secrets
import socket
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lanqi.games.registry import restore_game, variant_spec
from lanqi.matchmaker.claims import claim_hash, new_code
from lanqi.matchmaker.errors import MatchmakerError
from lanqi.matchmaker.lobby import check_game
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
from lanqi.protocol import (
    ClaimCode,
    CreateTournament,
    DeleteTournament,
    Exported,
    ExportTournament,
    FinishTournament,
    GetStandings,
    JoinTournament,
    ListTournaments,
    Message,
    Ok,
    PairingInfo,
    PauseTournament,
    ReclaimName,
    ReclaimTournament,
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
    TourPaused,
    TourResult,
    TourResumed,
    TourRound,
    TourStarted,
    TourWithdrawn,
    WithdrawTournament,
)
from lanqi.protocol.endpoints import tour_topic
from lanqi.tournament import export, report
from lanqi.tournament.check import check_pairings
from lanqi.tournament.dutch import PAIRING_SYSTEMS
from lanqi.tournament.model import Pairing, Player, Result, ResultKind, TournamentError
from lanqi.tournament.schedule import Format, Schedule, make_schedule
from lanqi.tournament.scoring import score_unplayed
from lanqi.tournament.standings import Crosstable, StandingRow
from lanqi.tournament.trf import trf_text

__all__ = ["Director", "TournamentHost"]

log = logging.getLogger(__name__)

RETRY_MS = 5_000.0
#: the notations a tournament's PGN can be written in (ICCS is what most other
#: xiangqi tools read; WXF and Chinese are for people)
EXPORT_NOTATIONS = ("wxf", "iccs", "chinese")
MAX_ENTRANTS = 256  # as many as a tournament_info may list


def _error(code: str, msg: str) -> MatchmakerError:
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
    return "½-½" if p.result == "1/2-1/2" else p.result


def _anchor(game: GameRecord) -> str:
    return f"r{game.round}b{game.board}g{game.game_no}"


def _game_moves(game: GameRecord) -> report.GameMoves:
    notations, lines = report.readable_moves(game.variant, game.start_fen, game.moves)
    return report.GameMoves(
        anchor=_anchor(game),
        round=game.round,
        board=game.board,
        first=game.names[0],
        second=game.names[1],
        result="½-½" if game.result == "1/2-1/2" else (game.result or "*"),
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


def _pgn_time_control(tc: TimeControl) -> str:
    """PGN's ``TimeControl``: ``base+increment`` in seconds, ``1/seconds`` per move,
    ``-`` untimed."""
    if tc.kind == "fischer":
        return f"{tc.base_ms // 1000}+{tc.increment_ms // 1000}"
    if tc.kind == "per_move":
        return f"1/{tc.per_move_ms // 1000}"
    return "-"


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
        if fmt is Format.SWISS:
            # an event stored before the option existed keeps lanqi's own matching
            swiss: dict[str, object] = {
                "pairing": spec.pairing or "lanqi",
                "acceleration": spec.acceleration,
            }
            if spec.rounds:
                swiss["rounds"] = spec.rounds
            return swiss
        if fmt is Format.KNOCKOUT:
            return {"games_per_match": spec.games_per_match}
        if fmt is Format.GAUNTLET:
            options: dict[str, object] = {"games_per_opponent": spec.games_per_match}
            if spec.champion:
                champion = self.store.player_by_name(spec.champion)
                options["champion"] = champion.player_id if champion else spec.champion
            return options
        return {}

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
            out.append(Result(p.round, p.board, p.first, p.second, p.score_first, kind, p.game_no))
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
            game_id=p.game_id,
            result=p.result,
        )

    def _info(self, record: TournamentRecord) -> TournamentInfo:
        players, _ = self._players(record)
        return TournamentInfo(
            tournament_id=record.tournament_id,
            spec=record.spec,
            status=record.status,
            round=record.round,
            players=[p.name for p in players],
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
        self.host.publish(tour_topic(event.tournament_id), event)

    # ------------------------------------------------------------ requests

    def create(self, request: CreateTournament, identity: bytes, now: float) -> Message:
        self._authorise(request.director_key)
        spec = request.spec
        try:
            Format(spec.format)
        except ValueError:
            raise _error("bad_request", f"unknown format {spec.format!r}") from None
        check_game(spec.variant, spec.options, spec.time_control)
        spec = dataclasses.replace(spec, time_control=_tournament_clock(spec.time_control))
        if Format(spec.format) is Format.SWISS:
            spec = dataclasses.replace(spec, pairing=spec.pairing or "dutch")
            if spec.pairing not in PAIRING_SYSTEMS:
                raise _error(
                    "bad_request",
                    f"pairing must be {', '.join(PAIRING_SYSTEMS)}, not {spec.pairing!r}",
                )
            if spec.acceleration not in ("none", "baku"):
                raise _error("bad_request", "acceleration must be none or baku")
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
            # before "closed": a bot re-joining after a reconnect is simply in already
            raise _error("already_joined", "already entered")
        self._check_open(record, entered)
        if not self.store.add_entrant(record.tournament_id, player_id, record.round):
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
        by_rating = sorted(
            entrants, key=lambda e: (-self._rating(e.player_id, record.spec.variant), e.seed)
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
        )

    def export(self, request: ExportTournament, identity: bytes, now: float) -> Message:
        record = self._tournament(request.tournament_id)
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
            raise _error("bad_request", "format must be pgn, txt, csv, html, trf or check")
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
            title = f"{spec.name} ({spec.format}, {spec.variant})"
            return (
                "\n\n".join([title, export.standings_text(rows), export.crosstable_text(table)])
                + "\n"
            )
        return export.standings_csv(rows)

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
            ranks = {row.player.id: row.rank for row in schedule.standings(results)}
            return trf_text(
                players,
                results,
                name=record.spec.name,
                rounds=schedule.planned_rounds,
                ranks=ranks,
            )
        if Format(record.spec.format) is not Format.SWISS:
            raise _error("bad_request", "only a Swiss event is paired round by round")
        played = [
            Pairing(p.round, p.board, p.first, p.second, p.game_no)
            for p in stored
            if p.first is not None
        ]
        lines = check_pairings(schedule, results, played)
        system = schedule.options.get("pairing")
        rounds = len({p.round for p in played})
        lines.append(f"{rounds} rounds checked by {system}: {len(lines)} differences")
        return "\n".join(lines) + "\n"

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
            time_control=report.time_control_text(
                tc.kind,
                base_ms=tc.base_ms,
                increment_ms=tc.increment_ms,
                per_move_ms=tc.per_move_ms,
            ),
            site=site,
            dates=report.date_span(stamps),
            rated=spec.rated,
            status=record.status,
            players=len(players),
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
                "TimeControl": _pgn_time_control(tc),
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
        """Retry tournaments whose game creation failed."""
        for tournament_id, when in list(self._retry_at.items()):
            if now >= when:
                del self._retry_at[tournament_id]
                self.advance(tournament_id, now)

    def result_recorded(self, tournament_id: str) -> None:
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
        self.advance(tournament_id, 0.0)

    def game_started(self, game: GameRecord) -> None:
        assert game.tournament_id is not None
        key = (game.tournament_id, game.round, game.board, game.game_no)
        self._creating.discard(key)
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

    def advance(self, tournament_id: str, now: float) -> None:
        """Create missing games; when a round is complete, pair the next one (or finish)."""
        if not self.host.reconciled():
            return  # results may still come in from the referees: decide nothing yet
        for _ in range(1000):  # rounds of only byes/forfeits follow at once
            record = self.store.tournament(tournament_id)
            if record is None or record.status != "running":
                return
            current = self.store.pairings(tournament_id, record.round) if record.round else []
            waiting = [p for p in current if p.result is None]
            if waiting:
                self._create_missing(record, waiting)
                return
            schedule, withdrawn = self._schedule(record)
            results = self._results(self.store.pairings(tournament_id))
            try:
                upcoming = schedule.next_round(results, withdrawn=withdrawn)
            except TournamentError as exc:
                log.error("tournament %s cannot continue: %s", tournament_id, exc)
                return
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
            self._store_round(record, schedule, upcoming, withdrawn)

    def _store_round(
        self,
        record: TournamentRecord,
        schedule: Schedule,
        upcoming: list[Pairing],
        withdrawn: set[str],
    ) -> None:
        rows = []
        for p in upcoming:
            result: str | None = None
            score: float | None = None
            kind: ResultKind | None = None
            if p.second is None:
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
