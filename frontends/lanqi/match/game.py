"""One match game, played through a real referee.

The match creates the game on the referee (``create_game`` with its admin key),
seats both players with the ordinary bot runner
(:class:`~lanqi.bot.runner.GamePlayer`), and watches the game like any spectator
(a watched :class:`~lanqi.table.remote.RemoteTable`), so anyone can watch it live
too.  All of it goes over one :class:`~lanqi.client.connection.BlockingConnection`
(the process's): the creation, the watching table, both seats' tables and the
adjudications share its referee DEALER, its SUB and the game's one feed; the match
thread never waits for a reply once the game is created (an adjudication's answer
comes back with the game's events).  Each
player is wrapped in a :class:`MatchSeat`, which plays the opening's book moves,
times every move and keeps what the engine's :class:`~lanqi.bot.base.PlayResult`
says (its evaluation, a draw offer, a resignation) for the record and for
adjudication.  The referee decides the end: a rule, a flag, an engine failure
(the seat resigns with the reason: ``crash``, ``hang``, ``illegal move h2h9``...),
an engine's own resignation or draw (its runner acts for its seat) or an
adjudication (the match's ``adjudicate`` request on the referee's admin key, with
the reason).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import datetime as dt
import logging
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lanqi.bot.base import Bot, PlayResult, SeatView
from lanqi.bot.engines import EngineError
from lanqi.bot.failures import failure_reason
from lanqi.bot.runner import GamePlayer
from lanqi.client.connection import (
    BlockingConnection,
    NoAnswer,
    checked,
    process_connection,
)
from lanqi.games.base import ResultText, result_for, score_of
from lanqi.gamestate import GameState
from lanqi.match.adjudicate import MoveNote, Verdict, adjudicate
from lanqi.match.config import Adjudication
from lanqi.match.openings import Opening
from lanqi.protocol import (
    Adjudicate,
    Assignment,
    CreateGame,
    ErrorReply,
    GameCreated,
    TimeControl,
    termination_label,
)
from lanqi.table.inproc import InProcessReferee, InProcessTable
from lanqi.table.port import Answered, LinkChanged, TableNews, ThreadTable
from lanqi.table.remote import UNREACHABLE

__all__ = ["GameSpec", "MatchSeat", "Played", "RefereeLink", "play_game"]

log = logging.getLogger(__name__)

#: how long the match thread waits for news before it looks at ``stop`` again
POLL_S = 0.1
JOIN_TIMEOUT_S = 10.0
#: the reason of a game the match stopped (interrupted: not scored)
STOPPED = "match stopped"
#: turns of a seat's loop run at most from another thread in one go (a move sent,
#: then its answer read)
FOREIGN_STEPS = 4


@dataclass(frozen=True, slots=True)
class RefereeLink:
    endpoint: str
    pub_endpoint: str
    admin_key: str | None
    #: the referee's CURVE key when known (None: asked at its key port)
    key: str | None = None
    #: the referee itself when it runs in this process (the match's private one): the
    #: game is created, played and watched on it without its sockets
    #: (:class:`~lanqi.table.inproc.InProcessTable`); it still publishes every event
    local: InProcessReferee | None = None


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
        points = score_of(self.result)
        if points is None:
            return None
        return points if seat == 0 else 1.0 - points


def engine_id(bot: Bot) -> str:
    """The name an engine gives itself (``id name``, ``ABOUT``), or the bot's name."""
    return str(getattr(bot, "engine_name", "") or getattr(bot, "name", "") or type(bot).__name__)


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

    def on_game_start(self, state: SeatView) -> None:
        if len(state.moves) >= len(self.book):
            self._start_inner(state)

    def _start_inner(self, state: SeatView) -> None:
        self.idle.clear()
        try:
            self.inner.on_game_start(state)
        except EngineError as exc:
            log.warning("%s failed at game start: %s", engine_id(self.inner), exc)
            self.start_error = exc
        finally:
            self.idle.set()
        self.started = True

    def play(self, state: SeatView) -> PlayResult:
        ply = len(state.moves)
        if ply < len(self.book):
            self._note(
                MoveNote(ply, self.seat, self.book[ply], book=True, answered_at=time.perf_counter())
            )
            return PlayResult(self.book[ply])
        if not self.started:
            self._start_inner(state)
        if self.start_error is not None:
            raise _StartFailureError(failure_reason(self.start_error)) from self.start_error
        with self.lock:
            theirs = self._last_note(lambda n: n.seat != self.seat)
        if theirs is not None and theirs.offers_draw:  # told before it searches (UCCI: go draw)
            self.inner.on_draw_offer(state)
        self.idle.clear()
        try:
            began = time.perf_counter()
            played = self.inner.play(state)
            answered = time.perf_counter()
        finally:
            self.idle.set()
        with self.lock:  # the referee's latency: the last move's hand-over to this ask
            before = self._last_note(lambda n: n.ply == ply - 1)
        # the engine's own moments when it has them: its go (written before this ask
        # when its search started early) and its bestmove (read before its checks)
        early = getattr(self.inner, "search_began", None)
        if isinstance(early, float) and before is not None and before.answered_at < early < began:
            began = early
        got = getattr(self.inner, "bestmove_at", None)
        if isinstance(got, float) and began <= got <= answered:
            answered = got
        spent = round((answered - began) * 1000)
        latency = (began - before.answered_at) * 1000 if before is not None else None
        info = played.info
        self._note(
            MoveNote(
                ply,
                self.seat,
                played.move,
                score_cp=info.score,
                mate=info.mate,
                depth=info.depth,
                time_ms=spent,
                offers_draw=played.offer_draw,
                resigns=played.resign,
                latency_ms=latency,
                answered_at=answered,
            )
        )
        return played

    def start_early(self, state: SeatView) -> bool:
        """Start the engine's search of ``state`` before the referee has committed the
        opponent's move that it ends with (the adapters' ``start_early``): not for a
        book move, nor before the engine's game started.  True if started."""
        start = getattr(self.inner, "start_early", None)
        if start is None or len(state.moves) < len(self.book) or not self.started:
            return False
        return self.start_error is None and bool(start(state))

    @property
    def ponders(self) -> bool:
        return self.inner.ponders

    def on_opponent_turn(self, state: SeatView) -> None:
        if not self.started or self.start_error is not None:
            return
        self.idle.clear()
        try:
            self.inner.on_opponent_turn(state)
        finally:
            self.idle.set()

    def _note(self, note: MoveNote) -> None:
        with self.lock:  # the notes are in ply order: a ply played again replaces the rest
            notes = self.notes
            while notes and notes[-1].ply >= note.ply:
                notes.pop()
            notes.append(note)

    def _last_note(self, wanted: Callable[[MoveNote], bool]) -> MoveNote | None:
        """The latest note that is ``wanted`` (the caller holds the lock): looked for
        from the end, where the notes of the last plies are."""
        for note in reversed(self.notes):
            if wanted(note):
                return note
        return None

    def on_draw_offer(self, state: SeatView) -> bool:
        """Accept only when this engine offered a draw with its own last move (UCCI's
        ``bestmove ... draw``): both engines' last moves then say draw."""
        with self.lock:
            mine = self._last_note(lambda n: n.seat == self.seat)
        return mine is not None and mine.offers_draw

    def on_game_end(self, state: SeatView, result: str, termination: str) -> None:
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
    """Adjudicates a running game for the match: the referee's ``adjudicate`` on its
    admin key, sent through the watching table (an engine's own resignation or draw
    offer is its runner's to send).  It never waits: the answer is news."""

    table: ThreadTable
    admin_key: str | None
    rules: Adjudication
    done: bool = False
    #: the adjudication sent and not answered yet (sent again if its link was lost)
    asked: dict[int, Verdict] = field(default_factory=dict)

    def look(self, state: GameState, notes: list[MoveNote]) -> None:
        if self.done or state.finished or state.status != "active":
            return
        on_board = [n for n in notes if n.ply < state.ply]
        verdict = adjudicate(self.rules, on_board, state.ply)
        if verdict is not None:
            self.end(verdict)

    def end(self, verdict: Verdict) -> None:
        """Ask the referee to end the game with ``verdict``; a game that ended
        meanwhile (a move came first and ended it) needs nothing more."""
        result: ResultText = "1/2-1/2" if verdict.loser is None else result_for(1 - verdict.loser)
        request = Adjudicate(
            game_id=self.table.game_id,
            result=result,
            reason=verdict.reason,
            admin_key=self.admin_key,
        )
        self.asked[self.table.send(request)] = verdict
        self.done = True

    def heard(self, news: TableNews) -> None:
        """The referee's answer to an adjudication, or the link's news."""
        game_id = self.table.game_id
        if isinstance(news, LinkChanged):
            if not news.up:
                log.warning("game %s: the link to the referee is down; waiting", game_id)
            return
        if not isinstance(news, Answered) or news.request.id not in self.asked:
            return
        verdict = self.asked.pop(news.request.id)
        refusal = news.refusal
        if refusal is None:
            return
        over = self.table.state.finished
        if refusal.code == "game_over" or (refusal.code == UNREACHABLE and over):
            log.debug("game %s: over before the adjudication", game_id)
        elif refusal.code == UNREACHABLE and self.table.link_up:
            self.end(verdict)  # the link came back before the answer: ask again
        else:
            log.error("game %s: adjudication refused: %s", game_id, refusal.msg)


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
    stop: threading.Event,
    connection: BlockingConnection | None = None,
) -> tuple[Played, tuple[MatchSeat, MatchSeat]]:
    """Play ``spec`` to its end on the referee, over ``connection`` (the process's by
    default); returns the game and both seats (whose ``idle`` events tell when an
    engine may be used again)."""
    conn = connection or process_connection()
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
    create = CreateGame(
        game_id=uuid.uuid4().hex[:16],  # chosen here: a create sent again is the same game
        variant=variant,
        players=list(names),
        options=game_options,
        time_control=time_control,
        casual=False,
        tag=f"match game {spec.number}",
        admin_key=link.admin_key,
    )
    created = _create(conn, link, create, stop)
    game_id = created.game_id
    watch: ThreadTable
    if link.local is not None:
        watch = InProcessTable(link.local, game_id, None, None).open()
    else:
        watch = conn.open_table(
            game_id=game_id, referee=link.endpoint, events=link.pub_endpoint, key=link.key
        )
    game_stop = threading.Event()
    players = [
        _SeatPlayer(
            seats[seat],
            Assignment(
                game_id=game_id,
                referee=link.endpoint,
                referee_pub=link.pub_endpoint,
                referee_key=link.key,
                seat=seat,
                token=created.tokens[seat],
                variant=variant,
                options=dict(options),
                time_control=time_control,
                players=list(names),
                rated=True,
            ),
            stop=game_stop,
            connection=conn,
            local=link.local,
        )
        for seat in (0, 1)
    ]
    if link.local is not None:
        players[0].partner, players[1].partner = players[1], players[0]
        for player in players:
            player.hook_moves(True)
    try:
        for player in players:
            player.start()
        arbiter = _Arbiter(watch, link.admin_key, rules)
        stopping = False
        while not watch.state.finished:
            if stop.is_set() and not stopping:
                stopping = True  # interrupted: the game ends now (it is not scored)
                arbiter.end(Verdict(watch.state.ply % 2, STOPPED))
            watch.block(POLL_S)
            for news in watch.poll():
                arbiter.heard(news)
            with lock:
                snapshot = list(notes)
            arbiter.look(watch.state, snapshot)
        for news in watch.poll():  # an answer already in (a refusal is logged)
            arbiter.heard(news)
    finally:
        game_stop.set()
        for player in players:
            if player.is_alive():
                player.join(JOIN_TIMEOUT_S)
            player.hook_moves(False)
        watch.close()
    final = watch.state
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
        termination=termination_label(final.termination, final.reason),
        time_control=time_control,
        started=started,
        game_id=game_id,
        seconds=time.monotonic() - began,
    )
    return played, seats


def _create(
    conn: BlockingConnection, link: RefereeLink, create: CreateGame, stop: threading.Event
) -> GameCreated:
    """Create the game, sending the same request again until the referee answers
    (it is idempotent by its ``game_id``); a refusal raises :class:`Refused`."""
    if link.local is not None:
        return checked(link.local.handle_local(create, "match"), GameCreated)
    wait = conn.policy.first
    while True:
        try:
            reply = conn.referee_request(link.endpoint, create, key=link.key)
        except (NoAnswer, concurrent.futures.CancelledError) as exc:
            reply = ErrorReply(code=UNREACHABLE, msg=str(exc) or "the request was dropped")
        if not (isinstance(reply, ErrorReply) and reply.code == UNREACHABLE) or stop.is_set():
            return checked(reply, GameCreated)
        log.warning("game %s: no answer from the referee (%s); retrying", create.game_id, reply.msg)
        stop.wait(wait)
        wait = min(conn.policy.most, wait * 2)


class _SeatPlayer(GamePlayer):
    """The runner's game player, losing with the real reason when its bot fails; on
    an in-process referee (``local``) its table needs no connection, and a move is
    handed over in the engine's thread: the thread that has the engine's answer
    sends it to the referee and starts the other seat's turn (:meth:`_decided`)."""

    def __init__(self, *args: Any, local: InProcessReferee | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.local = local
        #: the other seat's player (in process): its turn starts from this seat's move
        self.partner: _SeatPlayer | None = None

    def open_table(self, conn: BlockingConnection) -> ThreadTable:
        if self.local is None:
            return super().open_table(conn)
        a = self.assignment
        return InProcessTable(self.local, a.game_id, a.seat, a.token).open()

    def _decided(self, future: concurrent.futures.Future[PlayResult], table: ThreadTable) -> None:
        """The engine's move is ready, in its worker's thread.  Over the wire the
        game's thread is woken to send it.  In process this thread sends it (the
        referee checks, stores and publishes it before the send returns), then runs
        the other seat's turn (its view, its engine's search started in its worker),
        with both game threads' wake-ups held back: two thread hand-offs fewer per
        move.  Whatever this thread cannot do at once (a game thread is in its loop
        just then; the game ended) is left to the game's thread, woken as before."""
        future.done_at = time.monotonic()  # type: ignore[attr-defined]
        partner = self.partner
        theirs = partner._table if partner is not None else None
        if not isinstance(table, InProcessTable):
            table.wake()
            return
        with contextlib.ExitStack() as held:
            held.enter_context(table.holding_wakes())
            if isinstance(theirs, InProcessTable):
                held.enter_context(theirs.holding_wakes())
            if not self._try_step(table):
                table.wake()
                return
            if partner is not None and isinstance(theirs, InProcessTable):
                partner._try_step(theirs)

    def hook_moves(self, on: bool) -> None:
        """In process: have this seat's engine say its move the moment it has read and
        checked it (:meth:`_move_found`); ``on=False`` after the game (the engine
        plays other games after this one)."""
        inner = getattr(self.bot, "inner", None)
        if inner is not None and hasattr(inner, "move_found"):
            inner.move_found = self._move_found if on else None

    def _move_found(self, state: SeatView, move: str, draw: bool, resign: bool) -> None:
        """This seat's engine has its move for ``state`` (in its thread, before the
        move goes anywhere): the other seat's engine starts searching the position
        after it now (:meth:`_head_start`)."""
        partner = self.partner
        theirs = partner._table if partner is not None else None
        if partner is not None and isinstance(theirs, InProcessTable) and not (draw or resign):
            partner._head_start(theirs, state, move)

    def _head_start(self, table: InProcessTable, before: SeatView, move: str) -> None:
        """The opponent has ``move`` for ``before`` (its view of the game): start this
        seat's search of the position after it now, so that the referee's work on
        that move is done while the engine thinks.  The referee still decides: this
        seat's turn comes as ever, and its engine's ``play`` then finds the search
        running (or, another position or the game over, stops it).  Only on a
        Fischer clock or none, after each side's first move, and only if this seat's
        loop is free just now."""
        a = self.assignment
        tc = a.time_control.for_seat(a.seat)
        start = getattr(self.bot, "start_early", None)
        if start is None or tc.kind not in ("none", "fischer"):
            return
        if not self._step_lock.acquire(blocking=False):
            return
        try:
            view = table.state
            ply = len(before.moves)
            if (
                self._over
                or self._table is not table
                or not self._game_started
                or self._thinking is not None
                or view.status != "active"
                or view.ply != ply
                or ply < 2
                or view.draw_offer is not None
                or view.to_move == a.seat
            ):
                return
            board = before.board.copy()  # its checks of the move come along: no new search
            board.push(board.parse_move(move))
            state = self.seat_view(
                board, [*before.moves, move], before.start_fen, before.remaining_ms
            )
            if state.remaining_ms is not None:
                clock = state.remaining_ms[a.seat]
                margin = self.clock_sense.margin_ms(clock, per_move=False)
                state.deadline = time.monotonic() + (clock - margin) / 1000
            start(state)
        except Exception:  # nothing started: the turn asks the engine as ever
            log.debug("game %s: no early start", a.game_id, exc_info=True)
        finally:
            self._step_lock.release()

    def _over_by_rule(self, state: SeatView) -> bool:
        """In process the referee's events are all in when the seat reads its turn
        (its ``ended`` with the move that ends a game): nothing to guess."""
        if self.local is not None:
            return False
        return super()._over_by_rule(state)

    def _try_step(self, table: InProcessTable) -> bool:
        """One turn of this seat's loop in the calling thread, and again while it
        leaves news (the answer to the move it sent) unread; False when the game's
        thread is in its loop (the held wake-ups then tell it)."""
        if not self._step_lock.acquire(blocking=False):
            return False
        try:
            if self._over or self._table is not table:
                return True
            for _ in range(FOREIGN_STEPS):
                self._step(table, own=False)
                if not table.has_news:
                    break
        except Exception:  # a refused sync, say: the game's thread meets it and acts
            log.debug("game %s: left to the seat's thread", table.game_id, exc_info=True)
            table.wake()
        finally:
            self._step_lock.release()
        return True

    def _send_move(self, table: ThreadTable, future: concurrent.futures.Future[PlayResult]) -> None:
        error = future.exception() if future.done() else None
        if error is not None:
            log.info("game %s: %s loses: %s", self.assignment.game_id, self.bot.name, error)
            self._resign(table, _seat_reason(error))
            return
        super()._send_move(table, future)
