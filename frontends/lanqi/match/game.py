"""One match game, played through a real referee.

The match creates the game on the referee (with its admin key), seats both
players with the ordinary bot runner (:class:`~lanqi.bot.runner.GamePlayer`), and
watches the game like any spectator, so anyone can watch it live too.  Each
player is wrapped in a :class:`MatchSeat`, which plays the opening's book moves,
times every move and keeps the engine's evaluation for the record and for
adjudication.  The referee decides the end: a rule, a flag, an engine failure
(the seat resigns with the reason: ``crash``, ``hang``, ``illegal move h2h9``...)
or an adjudication (a resignation or an accepted draw carrying the reason).
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import zmq

from lanqi.bot.base import Bot, GameState
from lanqi.bot.engines import EngineError, UcciEngine, XiangqiEngine
from lanqi.bot.failures import failure_reason
from lanqi.bot.runner import GamePlayer
from lanqi.client.matchmaker import referee_link
from lanqi.client.referee import GameView, RefereeClient, RefereeTimeout, RequestRefused
from lanqi.match.adjudicate import MATE_CP, MoveNote, Verdict, adjudicate
from lanqi.match.config import Adjudication
from lanqi.match.openings import Opening
from lanqi.protocol import Assignment, ErrorReply, TimeControl
from lanqi.table.remote import RemoteTable

__all__ = ["GameSpec", "MatchSeat", "Played", "RefereeLink", "play_game"]

log = logging.getLogger(__name__)

POLL_MS = 100
JOIN_TIMEOUT_S = 10.0


@dataclass(frozen=True, slots=True)
class RefereeLink:
    endpoint: str
    pub_endpoint: str
    admin_key: str | None
    #: the referee's CURVE key when known (None: asked at its key port)
    key: str | None = None


@dataclass(frozen=True, slots=True)
class GameSpec:
    """Game ``number`` (1-based) of ``round``: engine ``seats[0]`` moves first side
    (Red, or Black in gomoku), from ``opening``; games of one ``pair`` share it."""

    number: int
    round: int
    seats: tuple[int, int]
    opening: Opening | None
    pair: int


@dataclass(slots=True)
class Played:
    """A finished game, with all a record needs."""

    spec: GameSpec
    names: tuple[str, str]
    engine_ids: tuple[str, str]
    variant: str
    options: dict[str, Any]
    start_fen: str | None
    moves: list[str]
    notes: list[MoveNote]
    result: str
    termination: str
    time_control: TimeControl
    started: dt.datetime
    game_id: str
    seconds: float = 0.0

    def score_of(self, seat: int) -> float | None:
        """1, 0.5 or 0 for ``seat``; None when the game has no result."""
        points = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}.get(self.result)
        if points is None:
            return None
        return points if seat == 0 else 1.0 - points


def engine_id(bot: Bot) -> str:
    """The name an engine gives itself (``id name``, ``ABOUT``), or the bot's name."""
    return str(getattr(bot, "engine_name", "") or getattr(bot, "name", "") or type(bot).__name__)


def _report(bot: Bot) -> tuple[int | None, int | None, int | None]:
    """(score in cp, mate in moves, depth) of ``bot``'s last search, where it says."""
    from lanqi.bot.xiangqi_ai import XiangqiAI

    if isinstance(bot, XiangqiEngine):
        info = bot.last_info
        if info.mate is not None:
            return (MATE_CP - abs(info.mate)) * (1 if info.mate > 0 else -1), info.mate, info.depth
        return info.score_cp, None, info.depth
    if isinstance(bot, XiangqiAI) and bot.last is not None:
        mate = bot.last.mate_in
        if mate is not None:
            return (MATE_CP - abs(mate)) * (1 if mate > 0 else -1), mate, bot.last.depth
        return bot.last.score, None, bot.last.depth
    depth = getattr(getattr(bot, "last_info", None), "depth", None)
    return None, None, depth if isinstance(depth, int) else None


class MatchSeat(Bot):
    """A player as the match sees it: book moves first, then the engine, every move
    timed and noted.  An error at game start is kept and lost on the first move."""

    def __init__(
        self,
        inner: Bot,
        seat: int,
        book: tuple[str, ...],
        notes: list[MoveNote],
        lock: threading.Lock,
    ) -> None:
        self.inner = inner
        self.seat = seat
        self.book = book
        self.notes = notes
        self.lock = lock
        self.idle = threading.Event()
        self.idle.set()
        self.start_error: BaseException | None = None
        self.started = False
        self.label = str(getattr(inner, "name", "bot"))

    def on_game_start(self, state: GameState) -> None:
        if len(state.moves) >= len(self.book):
            self._start_inner(state)

    def _start_inner(self, state: GameState) -> None:
        self.idle.clear()
        try:
            self.inner.on_game_start(state)
        except EngineError as exc:
            log.warning("%s failed at game start: %s", engine_id(self.inner), exc)
            self.start_error = exc
        finally:
            self.idle.set()
        self.started = True

    def choose_move(self, state: GameState) -> str:
        ply = len(state.moves)
        if ply < len(self.book):
            self._note(MoveNote(ply, self.seat, self.book[ply], book=True))
            return self.book[ply]
        if not self.started:
            self._start_inner(state)
        if self.start_error is not None:
            raise _StartFailureError(failure_reason(self.start_error)) from self.start_error
        self.idle.clear()
        try:
            from lanqi.bot.xiangqi_ai import XiangqiAI

            if isinstance(self.inner, XiangqiAI):
                self.inner.last = None
            began = time.perf_counter()
            move = self.inner.choose_move(state)
            spent = round((time.perf_counter() - began) * 1000)
        finally:
            self.idle.set()
        score, mate, depth = _report(self.inner)
        flagged = isinstance(self.inner, UcciEngine)
        self._note(
            MoveNote(
                ply,
                self.seat,
                move,
                score_cp=score,
                mate=mate,
                depth=depth,
                time_ms=spent,
                offers_draw=flagged and self.inner.draw_offered,  # type: ignore[attr-defined]
                resigns=flagged and self.inner.resigned,  # type: ignore[attr-defined]
            )
        )
        return move

    def on_opponent_turn(self, state: GameState) -> None:
        if not self.started or self.start_error is not None:
            return
        self.idle.clear()
        try:
            self.inner.on_opponent_turn(state)
        finally:
            self.idle.set()

    def _note(self, note: MoveNote) -> None:
        with self.lock:
            self.notes[:] = [n for n in self.notes if n.ply < note.ply]
            self.notes.append(note)

    def on_draw_offer(self, state: GameState) -> bool:
        """Accept only when this engine flagged its own last move ``draw`` (UCCI)."""
        with self.lock:
            mine = [n for n in self.notes if n.seat == self.seat]
        return bool(mine) and mine[-1].offers_draw

    def on_game_end(self, state: GameState, result: str, termination: str) -> None:
        self.inner.on_game_end(state, result, termination)


class _StartFailureError(EngineError):
    """The engine could not start the game: it loses it."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"the engine could not start the game ({reason})")
        self.reason = f"start-up: {reason}"


def _seat_reason(exc: BaseException) -> str:
    if isinstance(exc, _StartFailureError):
        return exc.reason
    return failure_reason(exc)


@dataclass(slots=True)
class _Arbiter:
    """Acts for the match on a running game: UCCI flags and adjudication."""

    client: RefereeClient
    game_id: str
    tokens: list[str]
    rules: Adjudication
    flagged: set[tuple[int, str]] = field(default_factory=set)
    done: bool = False

    def look(self, view: GameView, notes: list[MoveNote]) -> None:
        if self.done or view.finished or view.status != "active":
            return
        on_board = [n for n in notes if n.ply < view.ply]
        last = on_board[-1] if on_board and on_board[-1].ply == view.ply - 1 else None
        try:
            if last is not None and last.resigns and (last.ply, "resign") not in self.flagged:
                self.flagged.add((last.ply, "resign"))
                self.client.resign(self.game_id, self.tokens[last.seat])
                self.done = True
                return
            latest = {n.seat: n for n in on_board}
            if len(latest) == 2 and all(n.offers_draw for n in latest.values()):
                self._act(Verdict(None, ""))  # both engines' last moves say draw: agreement
                return
            verdict = adjudicate(self.rules, on_board, view.ply)
            if verdict is not None:
                self._act(verdict)
        except RequestRefused as exc:
            # the game ended meanwhile, or a player answered first: look again next turn
            log.debug("game %s: %s refused: %s", self.game_id, "adjudication", exc)

    def _act(self, verdict: Verdict) -> None:
        if verdict.loser is not None:
            self.client.resign(self.game_id, self.tokens[verdict.loser], verdict.reason)
        else:
            # offer and accept in one go: both requests reach the referee before
            # either player has seen the offer
            offer = self.client.send(_offer(self.game_id, self.tokens[0]))
            accept = self.client.send(_accept(self.game_id, self.tokens[1], verdict.reason))
            self.client.receive(offer)  # refused when an offer is pending already: no matter
            if isinstance(self.client.receive(accept), ErrorReply):
                return  # a player's move came first: look again after it
        self.done = True


def _offer(game_id: str, token: str) -> Any:
    from lanqi.protocol import OfferDraw

    return OfferDraw(game_id=game_id, token=token)


def _accept(game_id: str, token: str, reason: str) -> Any:
    from lanqi.protocol import AcceptDraw

    return AcceptDraw(game_id=game_id, token=token, reason=reason)


def play_game(
    spec: GameSpec,
    *,
    variant: str,
    options: dict[str, Any],
    names: tuple[str, str],
    bots: tuple[Bot, Bot],
    time_control: TimeControl,
    rules: Adjudication,
    link: RefereeLink,
    context: zmq.Context[Any],
    stop: threading.Event,
) -> tuple[Played, tuple[MatchSeat, MatchSeat]]:
    """Play ``spec`` to its end on the referee; returns the game and both seats (whose
    ``idle`` events tell when an engine may be used again)."""
    opening = spec.opening
    game_options = dict(options)
    if opening is not None and opening.fen is not None:
        game_options["fen"] = opening.fen
    book = opening.moves if opening is not None else ()
    notes: list[MoveNote] = []
    lock = threading.Lock()
    seats = (MatchSeat(bots[0], 0, book, notes, lock), MatchSeat(bots[1], 1, book, notes, lock))
    started = dt.datetime.now(dt.UTC)
    began = time.monotonic()
    game_stop = threading.Event()
    with RefereeClient(
        link.endpoint, link.pub_endpoint, context=context, link=referee_link(link.key)
    ) as client:
        created = client.create_game(
            variant,
            players=list(names),
            options=game_options,
            time_control=time_control,
            casual=False,
            tag=f"match game {spec.number}",
            admin_key=link.admin_key,
        )
        players = [
            _SeatPlayer(
                seats[seat],
                Assignment(
                    game_id=created.game_id,
                    referee=link.endpoint,
                    referee_pub=link.pub_endpoint,
                    seat=seat,
                    token=created.tokens[seat],
                    variant=variant,
                    options=dict(options),
                    time_control=time_control,
                    players=list(names),
                    rated=True,
                ),
                context=context,
                stop=game_stop,
            )
            for seat in (0, 1)
        ]
        for player in players:
            player.start()
        view = GameView(client, created.game_id)
        arbiter = _Arbiter(client, created.game_id, list(created.tokens), rules)
        quiet_since = time.monotonic()
        stopping = False
        while not view.finished:
            if stop.is_set() and not stopping:
                stopping = True  # interrupted: the game ends now (it is not scored)
                try:
                    client.resign(created.game_id, created.tokens[view.ply % 2], "match stopped")
                except RequestRefused as exc:
                    log.debug("game %s: %s", created.game_id, exc)
            try:
                if view.poll(POLL_MS):
                    quiet_since = time.monotonic()
                elif time.monotonic() - quiet_since > 1.0:
                    quiet_since = time.monotonic()
                    view.resync()
            except RefereeTimeout:
                log.warning("game %s: the referee is slow to answer; waiting", created.game_id)
                continue
            with lock:
                snapshot = list(notes)
            arbiter.look(view, snapshot)
        game_stop.set()
        for player in players:
            player.join(JOIN_TIMEOUT_S)
        final = client.sync(created.game_id)
    with lock:
        kept = [n for n in notes if n.ply < len(final.moves)]
    played = Played(
        spec=spec,
        names=names,
        engine_ids=(engine_id(bots[0]), engine_id(bots[1])),
        variant=variant,
        options=dict(final.options),
        start_fen=final.start_fen,
        moves=list(final.moves),
        notes=kept,
        result=final.result or "*",
        termination=final.termination or "",
        time_control=time_control,
        started=started,
        game_id=created.game_id,
        seconds=time.monotonic() - began,
    )
    return played, seats


class _SeatPlayer(GamePlayer):
    """The runner's game player, losing with the real reason when its bot fails."""

    def _send_move(self, table: RemoteTable, future: Any) -> None:
        error = future.exception() if future.done() else None
        if error is not None:
            log.info("game %s: %s loses: %s", self.assignment.game_id, self.bot.name, error)
            self._resign(table, _seat_reason(error))
            return
        super()._send_move(table, future)
