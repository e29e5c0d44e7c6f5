"""The bot runner: does the networking so a bot only picks moves.

It says hello to the matchmaker as a bot (keeping its session in a file per server,
named for the server's key, so a restarted runner is the same player whatever
address it reaches the server at), accepts or declines challenges by its
:class:`Policy`, keeps a seek open if asked, joins tournaments, and plays every
assigned game in a thread of its own: a :class:`~lanqi.table.remote.RemoteTable`
on the runner's one :class:`~lanqi.client.connection.BlockingConnection` (the seat
joined, the game followed by snapshot and events), the bot asked for a move on its
turn (in a worker), the move sent with its ply at once, draw offers answered.

Nothing here waits for a reply: requests are sent and their answers read with the
game's events.  The connection's loop heartbeats every seat and pings the
matchmaker, and after a lost link reconnects by its one policy, joins the seats
again, re-syncs the games and says hello again with the session.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import zmq

from lanqi import gamestate
from lanqi.bot.base import Bot, PlayResult, SeatView, clock_margin_ms
from lanqi.bot.failures import failure_reason
from lanqi.client.connection import BlockingConnection, NoAnswer, Refused, process_connection
from lanqi.clock import awaits_first_move
from lanqi.games.base import Game, first_seat
from lanqi.i18n import tr
from lanqi.protocol import (
    AcceptChallenge,
    AcceptDraw,
    Assignment,
    ChallengeReceived,
    ChatRequest,
    CreateSeek,
    DeclineChallenge,
    DeclineDraw,
    ErrorReply,
    GameAssigned,
    Hello,
    JoinTournament,
    MoveAccepted,
    MoveRequest,
    OfferDraw,
    Request,
    Resign,
    Seek,
    Sync,
    Welcome,
    termination_label,
)
from lanqi.protocol.endpoints import reachable, with_host
from lanqi.security import KnownServers, NoServerKey, SecurityError, server_identity
from lanqi.table.port import Answered, LinkChanged, TableNews, ThreadTable
from lanqi.table.remote import UNREACHABLE

__all__ = ["BotRunner", "ClockSense", "GamePlayer", "Policy"]

log = logging.getLogger(__name__)

QUIET_RESYNC_MS = 2_000
MIN_QUIET_RESYNC_MS = 100
#: a game's thread looks at its table at least this often (news wakes it at once)
IDLE_POLL_MS = 200
#: a hello unanswered this long (seconds) means the server cannot be reached (yet)
HELLO_WAIT_S = 2.0
MAX_REFUSED_MOVES = 3
#: the players of a runner's last finished games it keeps (``BotRunner.finished``):
#: a house bot plays all evening, and each game kept for ever was memory for ever
FINISHED_KEPT = 100


@dataclass(slots=True)
class Policy:
    """Which challenges a bot takes.  ``None`` means "any"."""

    variants: tuple[str, ...] = ("xiangqi", "gomoku")
    max_games: int = 4
    accept_humans: bool = True
    accept_bots: bool = True
    rated: bool | None = None
    min_base_ms: int = 0
    allow_untimed: bool = True
    seek: Seek | None = None
    tournaments: tuple[str, ...] = ()

    def decline_reason(self, challenge: ChallengeReceived, games: int) -> str | None:
        """Why ``challenge`` is declined, or None to accept it."""
        seek = challenge.seek
        if seek.variant not in self.variants:
            return f"I play {', '.join(self.variants)} only"
        if games >= self.max_games:
            return f"busy: already playing {games} games"
        if challenge.challenger_kind == "bot" and not self.accept_bots:
            return "I do not play other bots"
        if challenge.challenger_kind == "human" and not self.accept_humans:
            return "I play bots only"
        if self.rated is not None and seek.rated != self.rated:
            return "I play rated games only" if self.rated else "I play casual games only"
        tc = seek.time_control
        if tc.kind == "none" and not self.allow_untimed:
            return "I play timed games only"
        if tc.kind == "fischer" and tc.base_ms < self.min_base_ms:
            return f"too fast: at least {self.min_base_ms // 1000} s base time"
        return None


@dataclass(slots=True)
class ClockSense:
    """What a runner learns about its own delays, shared by all its games (a busy
    machine slows every game of the process alike): recent move round trips to the
    referee, and how far its bot's moves came after their deadlines."""

    round_trips_ms: deque[float] = field(default_factory=lambda: deque(maxlen=16))
    overruns_ms: deque[float] = field(default_factory=lambda: deque(maxlen=16))

    def margin_ms(self, clock_ms: float, *, per_move: bool = False) -> float:
        """The time kept back from a clock of ``clock_ms``: the base margin
        (:func:`~lanqi.bot.base.clock_margin_ms`) or twice the slowest recent round
        trip, whichever is more, plus the worst recent overrun; at most half the clock."""
        slowest = max(self.round_trips_ms, default=0.0)
        overrun = max(self.overruns_ms, default=0.0)
        base = clock_margin_ms(clock_ms, per_move=per_move)
        return min(max(base, 2 * slowest) + overrun, clock_ms / 2)


class GamePlayer(threading.Thread):
    """Plays one assigned game to its end, through a
    :class:`~lanqi.table.remote.RemoteTable` on the process's connection.

    The thread never waits for a reply: it sends (a move, an answer to an offer, a
    chat line) and reads the answers with the game's events.  The connection's loop
    heartbeats the seat, re-syncs the game and joins it again after a lost link."""

    def __init__(
        self,
        bot: Bot,
        assignment: Assignment,
        *,
        close_bot: bool = False,
        context: zmq.Context[Any] | None = None,
        stop: threading.Event | None = None,
        clock_sense: ClockSense | None = None,
        connection: BlockingConnection | None = None,
    ) -> None:
        super().__init__(name=f"game-{assignment.game_id}", daemon=True)
        self.bot = bot
        self.close_bot = close_bot
        self.assignment = assignment
        #: unused: the connection's loop owns every socket (kept for callers)
        self.context = context
        self.connection = connection
        self.stop_event = stop or threading.Event()
        self.result: str | None = None
        self.termination: str | None = None
        self.error: str | None = None
        self.refused_move = ""  # the last move the referee refused
        self._worker = concurrent.futures.ThreadPoolExecutor(max_workers=1)
        self._board: Game[Any] | None = None  # the position after _board_moves
        self._board_moves: list[str] = []
        self._board_start: str | None = None
        #: the seat that moves first from the start position ``_parity_start``
        self._parity_start: str | None = None
        self._parity_first: int | None = None
        #: when this runner saw the current turn begin (``time.monotonic()``), and its ply
        self._turn_seen = time.monotonic()
        self._turn_ply = -1
        self.clock_sense = clock_sense or ClockSense()
        #: the deadline the bot was given for the move it is thinking about
        self._move_deadline: float | None = None
        #: why this runner gave up a game (the bot failed or kept playing illegal moves)
        self._gave_up: str | None = None
        #: a move the referee refused as too late, and when it was sent
        self._late_move: str | None = None
        self._chat_heard: set[int] = set()  # seqs of chat lines handed to on_chat
        self._chat_lines = 0
        #: the seq of the event of the move this runner's last accepted move made: until
        #: the state has it, the turn it was sent for is over (nothing is searched again)
        self._sent_seq = -1
        #: the move sent and not answered yet: (request id, move, sent at, timing)
        self._in_flight: tuple[int, str, float, str] | None = None
        self._refused = 0
        #: requests sent whose refusal needs more than a log line, by id
        self._asked: dict[int, Request] = {}
        #: the link to the referee is down (said once, and once when it is back)
        self._link_lost = False
        #: one turn of the game's loop at a time (:meth:`_step`): the game's thread, or
        #: (a match seat in process, ``lanqi.match.game``) the thread that made the move
        #: this seat waits for
        self._step_lock = threading.Lock()
        self._over = False  # the game's loop has ended (nothing may step it again)
        self._table: ThreadTable | None = None
        #: the game loop's own state (read and changed only under ``_step_lock``)
        self._game_started = False
        self._thinking: concurrent.futures.Future[PlayResult] | None = None
        self._thinking_ply = -1
        self._told_ply = -1
        self._answered_offer = False
        self._seen_at = time.monotonic()

    def seat_view(
        self,
        board: Game[Any],
        moves: list[str],
        start_fen: str | None,
        remaining: tuple[int, int] | None,
    ) -> SeatView:
        """This seat's view of a position (its clocks as given, no deadline yet)."""
        a = self.assignment
        tc, theirs = a.time_control.for_seat(a.seat), a.time_control.for_seat(1 - a.seat)
        state = SeatView(
            game_id=a.game_id,
            variant=a.variant,
            options=dict(a.options),
            seat=a.seat,
            board=board,
            moves=moves,
            start_fen=start_fen,
            remaining_ms=remaining,
            increment_ms=tc.increment_ms,
            per_move_ms=tc.per_move_ms,
            opponent_increment_ms=theirs.increment_ms,
        )
        state.opponent = a.players[1 - a.seat] if len(a.players) == 2 else ""
        state.rated = a.rated
        return state

    def state(self, view: gamestate.GameState) -> SeatView:
        a = self.assignment
        tc = a.time_control.for_seat(a.seat)
        remaining = None
        if tc.kind != "none" and len(view.clock.remaining_ms) == 2:
            remaining = (view.clock.remaining_ms[0], view.clock.remaining_ms[1])
        state = self.seat_view(self._board_at(view), list(view.moves), view.start_fen, remaining)
        deadlines = []
        if remaining is not None:  # as if the clock ran (before a first move it does not)
            deadlines.append(self._deadline(remaining[a.seat], per_move=tc.kind == "per_move"))
        window = view.clock.first_move_left_ms
        if window is not None and view.to_move == a.seat:
            # a first move: the window to make it in counts too (nothing carries over,
            # as on a per-move clock), so a long clock cannot take the bot past it
            deadlines.append(self._deadline(window, per_move=True))
        state.deadline = min(deadlines) if deadlines else None
        return state

    def _deadline(self, clock_ms: int, *, per_move: bool) -> float:
        """When the bot's move must be ready: the clock read when the turn was seen,
        less the margin :class:`ClockSense` keeps for the way to the referee."""
        margin = self.clock_sense.margin_ms(clock_ms, per_move=per_move)
        return self._turn_seen + (clock_ms - margin) / 1000

    def _board_at(self, view: gamestate.GameState) -> Game[Any]:
        """The board after the game's moves: the last one, brought up to date with the
        new moves only (replaying the whole game for every move costs O(plies) each,
        most of a random bot's time in long games), handed out as a copy so a bot that
        pushes moves on it cannot spoil it.  A takeback or a new start rebuilds it."""
        a = self.assignment
        moves, start = list(view.moves), view.start_fen
        known = len(self._board_moves)
        board = self._board
        if board is None or start != self._board_start or moves[:known] != self._board_moves:
            board = SeatView.start(
                a.variant, options=dict(a.options), start_fen=start, moves=list(moves)
            ).board
            self._board, self._board_moves, self._board_start = board, list(moves), start
        else:
            for text in moves[known:]:
                board.push(board.parse_move(text))
            self._board_moves.extend(moves[known:])
        return board.copy()

    def run(self) -> None:
        a = self.assignment
        conn = self.connection or process_connection()
        policy = conn.policy
        backoff = policy.first
        table: ThreadTable | None = None
        try:
            while table is None and not self.stop_event.is_set():
                try:
                    table = self.open_table(conn)
                except (NoAnswer, NoServerKey) as exc:
                    log.warning("game %s: no referee yet (%s); retrying", a.game_id, exc)
                    self.stop_event.wait(backoff)
                    backoff = min(policy.most, backoff * 2)
            if table is not None:
                self._play(table)
        except Refused as exc:
            self.error = f"{exc.code}: {exc}"
        except SecurityError as exc:  # a referee this player must not trust
            self.error = str(exc)
            log.error("game %s: refused: %s", a.game_id, self.error)
        finally:
            if table is not None:
                table.close()
            self._worker.shutdown(wait=False, cancel_futures=True)
            if self.close_bot:
                self.bot.close()
            # the position and its history (140 KiB after a random xiangqi game) are
            # needed no more; the player itself is kept a while by its runner
            self._board, self._board_moves = None, []

    def open_table(self, conn: BlockingConnection) -> ThreadTable:
        """The seat's table: joined on the referee, first snapshot in."""
        return conn.open_table(self.assignment)

    def _play(self, table: ThreadTable) -> None:
        self._game_started = False
        self._thinking = None
        self._thinking_ply = -1
        self._told_ply = -1
        self._answered_offer = False
        self._chat_lines = 0  # of this game's chat (it only grows)
        self._seen_at = time.monotonic()  # when the last news came in
        self._table = table
        try:
            while not self.stop_event.is_set():
                with self._step_lock:
                    if self._step(table, own=True):
                        return
                table.block(IDLE_POLL_MS / 1000)
        finally:
            with self._step_lock:
                self._over = True
                # a finished player is kept a while by its runner (FINISHED_KEPT): not
                # its game's table (every move of the game) nor its last search
                self._table, self._thinking = None, None
                self._asked.clear()

    def _step(self, table: ThreadTable, *, own: bool) -> bool:
        """One turn of the game's loop (the caller holds ``_step_lock``): read the
        news, then do what the game now asks (start, answer an offer, think, send
        the move).  True when the game is over for this player.

        ``own``: run by the game's thread.  Another thread (a match seat in process:
        the thread that has just made the move this seat waits for) does only what
        cannot block for long: a start, the end and a stop are left to the game's
        thread, which is woken for them."""
        a = self.assignment
        if not own and self.stop_event.is_set():
            table.wake()
            return False
        news = table.poll(0.0)
        if news:
            self._seen_at = time.monotonic()
        for item in news:
            self._hear(table, item)
        view = table.state
        if not own and (
            self.error is not None
            or view.finished
            or (not self._game_started and view.status == "active")
        ):
            table.wake()  # the game's thread ends or starts it
            return False
        if self.error is not None:
            return True
        table.quiet = self._quiet_ms(view) / 1000
        if view.finished:
            # what a record says: the reason (``crash``) when there is one
            ending = termination_label(view.termination, view.reason)
            self.result, self.termination = view.result, ending
            self._log_end(view)
            self.bot.on_game_end(self.state(view), view.result or "*", ending)
            return True
        if not self._game_started and view.status == "active":
            self._game_started = True
            self.bot.on_game_start(self.state(view))
        my_turn = self._see_turn(view, self._seen_at)
        if (
            self._game_started
            and not my_turn
            and view.status == "active"
            and view.ply != self._told_ply
        ):
            self._told_ply = view.ply  # the opponent's turn: the bot may ponder (in its worker)
            if self.bot.ponders:
                self._worker.submit(self._opponent_turn, self.state(view))
        if view.draw_offer == 1 - a.seat and not self._answered_offer:
            self._answered_offer = True
            accept = self.bot.on_draw_offer(self.state(view))
            kind = AcceptDraw if accept else DeclineDraw
            self._ask(table, kind(game_id=a.game_id, token=a.token))
        if view.draw_offer is None:
            self._answered_offer = False
        self._hear_chat(table, view)
        # The move sent for this ply was answered, but its event is not in yet (or
        # it is not answered yet): the turn is over (an event that came first, a
        # chat line, a presence, an offer, must not start a second search).
        sent = view.seq < self._sent_seq or self._in_flight is not None
        if my_turn and self._thinking is None and not sent:
            state = self.state(view)
            if not self._over_by_rule(state):
                self._move_deadline = state.deadline
                asked = self._thinking = self._worker.submit(self.bot.play, state)
                self._thinking_ply = view.ply
                asked.add_done_callback(lambda f: self._decided(f, table))
            # else the game is over by rule; the referee's "ended" is on its way
        thinking = self._thinking
        if thinking is not None and thinking.done():
            self._thinking = None
            # a move goes only for the turn it was asked for; a failure (a crash, a
            # hang) always resigns, whatever happened meanwhile: never asked again
            if (self._thinking_ply == view.ply and my_turn) or thinking.exception() is not None:
                self._send_move(table, thinking)
        return False

    def _over_by_rule(self, state: SeatView) -> bool:
        """Has the game ended by the rules on ``state``'s board (the referee's
        ``ended`` then is on its way: the bot is not asked)?"""
        return state.board.outcome() is not None

    def _decided(self, future: concurrent.futures.Future[PlayResult], table: ThreadTable) -> None:
        """The bot's move is ready (in the worker's thread): note when, and wake the
        game's thread to send it."""
        future.done_at = time.monotonic()  # type: ignore[attr-defined]
        table.wake()

    def _ask(self, table: ThreadTable, request: Request) -> int:
        """Send ``request``; its refusal is handled by :meth:`_refused_answer`."""
        request_id = table.send(request)
        self._asked[request_id] = request
        return request_id

    def _hear(self, table: ThreadTable, item: TableNews) -> None:
        """One piece of news: a link change is logged, an answer to this runner's
        request handled (events are read from the state)."""
        a = self.assignment
        if isinstance(item, LinkChanged):
            if not item.up and not self._link_lost:
                log.warning("game %s: lost the referee; the connection retries", a.game_id)
            elif item.up and self._link_lost:
                log.info("game %s: the referee is back", a.game_id)
            self._link_lost = not item.up
            return
        if not isinstance(item, Answered):
            return
        flight = self._in_flight
        if flight is not None and item.request.id == flight[0]:
            self._in_flight = None
            self._move_answered(table, item, flight)
            return
        request = self._asked.pop(item.request.id, None)
        refusal = item.refusal
        if request is None or refusal is None:
            return
        if isinstance(request, ChatRequest):
            log.warning("game %s: chat reply refused (%s)", a.game_id, refusal.code)
        elif isinstance(request, Resign | AcceptDraw | DeclineDraw):
            # the game ended meanwhile, or the offer was withdrawn: the state says so
            if refusal.code not in ("game_over", "no_offer", UNREACHABLE):
                self.error = f"{refusal.code}: {refusal.msg}"
            else:
                table.send(Sync(game_id=a.game_id))

    def _see_turn(self, view: gamestate.GameState, seen_at: float) -> bool:
        """Is it this seat's turn?  A turn seen for the first time is noted with
        ``seen_at``, when the news that showed it came in."""
        mine = view.status == "active" and view.ply % 2 == self._parity(view)
        if mine and view.ply != self._turn_ply:
            self._turn_ply = view.ply
            self._turn_seen = seen_at
        return mine

    def _opponent_turn(self, state: SeatView) -> None:
        try:
            self.bot.on_opponent_turn(state)
        except Exception:  # a bot's ponder failure costs it nothing more than the ponder
            log.exception("game %s: %s failed on the opponent's turn", state.game_id, self.bot.name)

    def _resign(self, table: ThreadTable, reason: str) -> None:
        """Give up with ``reason``; a game that already ended (an earlier resignation
        whose event is still on its way, a flag) needs nothing more."""
        a = self.assignment
        self._ask(table, Resign(game_id=a.game_id, token=a.token, reason=reason))

    def _quiet_ms(self, view: gamestate.GameState) -> float:
        """How long a silent game is trusted before a snapshot is asked for: a
        lost event (PUB/SUB may drop) must be noticed while the clock it started
        still has time to answer, so a quarter of the clock at stake (or of the
        first-move window, before a first move), at most :data:`QUIET_RESYNC_MS`
        and at least :data:`MIN_QUIET_RESYNC_MS`."""
        tc = self.assignment.time_control
        at_stake: list[float] = []
        if tc.kind == "per_move":
            at_stake.append(float(tc.per_move_ms))
        elif tc.kind == "fischer" and len(view.clock.remaining_ms) == 2:
            at_stake.append(float(view.clock.remaining_ms[self.assignment.seat]))
        if tc.first_move_ms and awaits_first_move(view.ply):
            at_stake.append(float(tc.first_move_ms))
        if not at_stake:
            return QUIET_RESYNC_MS
        return min(QUIET_RESYNC_MS, max(MIN_QUIET_RESYNC_MS, min(at_stake) / 4))

    def _log_end(self, view: gamestate.GameState) -> None:
        """Say at INFO how the game ended, and why it was lost if it was."""
        a = self.assignment
        if view.winner is None:
            outcome = "drew" if view.result == "1/2-1/2" else "stopped"
        else:
            outcome = "won" if view.winner == a.seat else "lost"
        why = termination_label(view.termination, view.reason) or "?"
        if outcome == "lost" and view.termination == "timeout":
            why = f"timeout: its clock ran out ({self._clock_note(view)})"
        elif outcome == "lost" and view.termination == "abandoned":
            why = "abandoned: the referee stopped hearing from this runner"
        elif outcome == "lost" and self._gave_up:  # it resigned, saying why (crash, illegal...)
            why = f"{view.reason or view.termination}: {self._gave_up}"
        log.info(
            "game %s: %s %s as seat %d against %s, %s (%s) after %d plies",
            a.game_id,
            a.players[a.seat] if len(a.players) == 2 else self.bot.name,
            outcome,
            a.seat,
            a.players[1 - a.seat] if len(a.players) == 2 else "?",
            view.result or "*",
            why,
            view.ply,
        )

    def _clock_note(self, view: gamestate.GameState) -> str:
        a = self.assignment
        tc = a.time_control.for_seat(a.seat)
        kind = f"{tc.per_move_ms} ms per move" if tc.kind == "per_move" else tc.kind
        if self._late_move is not None:
            return f"{kind}; {self._late_move}"
        if self._turn_ply != view.ply:
            return f"{kind}; it ran out before this runner saw the turn"
        thinking = (time.monotonic() - self._turn_seen) * 1000
        return f"{kind}; the bot was still thinking, {thinking:.0f} ms into its turn"

    def _hear_chat(self, table: ThreadTable, view: gamestate.GameState) -> None:
        """Hand every chat line not yet heard to ``on_chat`` (the bot's own lines are
        heard without it); say the reply, if any.  A refused reply (too long, too fast)
        is logged and dropped: chat never costs the game."""
        if len(view.chat) == self._chat_lines:
            return
        self._chat_lines = len(view.chat)
        a = self.assignment
        for line in view.chat:
            if line.seq in self._chat_heard:
                continue
            self._chat_heard.add(line.seq)
            if line.seat == a.seat:
                continue
            reply = self.bot.on_chat(self.state(view), line.name, line.text)
            if reply:
                self._ask(table, ChatRequest(game_id=a.game_id, text=reply, token=a.token))

    def _parity(self, view: gamestate.GameState) -> int:
        """Plies ``p`` with ``p % 2 == parity`` are ours (a position may start with seat 1)."""
        a = self.assignment
        start = view.start_fen
        if start != self._parity_start or self._parity_first is None:
            game = SeatView.start(a.variant, options=dict(a.options), start_fen=start).board
            self._parity_start, self._parity_first = start, first_seat(game)
        return (a.seat - self._parity_first) % 2

    def _send_move(self, table: ThreadTable, future: concurrent.futures.Future[PlayResult]) -> None:
        """Send the bot's move at once (its answer comes with the news), with its
        draw offer before it; or resign for a bot that resigns or failed to move."""
        a = self.assignment
        try:
            played = future.result()
        except Exception as exc:  # engine crash or hang: the engine loses this game
            log.error("game %s: %s failed to move (%s); resigning", a.game_id, self.bot.name, exc)
            self._gave_up = f"the bot failed to move: {type(exc).__name__}: {exc}"
            self._resign(table, failure_reason(exc))
            return
        if played.resign:
            log.info("game %s: %s resigns", a.game_id, self.bot.name)
            self._resign(table, "")
            return
        if played.offer_draw:
            # offered before the move goes, so the offer is pending when the opponent's
            # turn comes (its move would decline it); the opponent's pending offer is
            # taken instead, and the move is then refused as game_over (no matter);
            # a refused offer (one of ours is pending) costs nothing
            table.send(OfferDraw(game_id=a.game_id, token=a.token))
        move = played.move
        sent = time.monotonic()
        timing = (
            f"{(sent - self._turn_seen) * 1000:.0f} ms into the turn (the bot answered at "
            f"{_ms_after(getattr(future, 'done_at', None), self._turn_seen)} ms, its deadline "
            f"was at {_ms_after(self._move_deadline, self._turn_seen)} ms)"
        )
        if self._move_deadline is not None:
            overrun = max(0.0, (sent - self._move_deadline) * 1000)
            self.clock_sense.overruns_ms.append(overrun)
        request = MoveRequest(game_id=a.game_id, token=a.token, ply=table.state.ply, move=move)
        self._in_flight = (table.send(request), move, sent, timing)

    def _move_answered(
        self, table: ThreadTable, answer: Answered, flight: tuple[int, str, float, str]
    ) -> None:
        a = self.assignment
        _, move, sent, timing = flight
        self.clock_sense.round_trips_ms.append((time.monotonic() - sent) * 1000)
        reply, refusal = answer.reply, answer.refusal
        if isinstance(reply, MoveAccepted):
            self._sent_seq = reply.seq
            self._refused = 0
            log.debug("game %s: %s sent %s %s", a.game_id, self.bot.name, move, timing)
            return
        if refusal is None:
            return
        if refusal.code in ("illegal_move", "bad_move", "ambiguous_move"):
            log.error(
                "game %s: %s played %r: refused (%s: %s)",
                a.game_id,
                self.bot.name,
                move,
                refusal.code,
                refusal.msg,
            )
            self.refused_move = move
            self._refused += 1
            if self._refused >= MAX_REFUSED_MOVES:
                log.error(
                    "game %s: %s keeps sending refused moves; resigning", a.game_id, self.bot.name
                )
                self._gave_up = f"{self._refused} illegal moves in a row"
                self._resign(table, f"illegal move {self.refused_move}"[:32])
            return
        if refusal.code in ("game_over", "timeout", "stale_move", "not_your_turn", UNREACHABLE):
            if refusal.code == "timeout":
                self._late_move = f"the move {move} was sent {timing}"
            table.send(Sync(game_id=a.game_id))
            return
        self.error = f"{refusal.code}: {refusal.msg}"


@dataclass(slots=True)
class BotRunner:
    """One bot on one matchmaker; ``run()`` until ``stop`` is set.

    ``make_bot`` makes a bot (an engine process, say) for each game, so games
    played at once never share one.  The runner's lobby and every game it plays go
    over one :class:`~lanqi.client.connection.BlockingConnection`: the matchmaker
    knows a player by its connection, so each runner has its own.
    """

    make_bot: Callable[[], Bot]
    matchmaker: str
    name: str
    policy: Policy = field(default_factory=Policy)
    #: the bot's session file (``bots/Tiger.session``): the session is kept beside it
    #: per server, under the server's identity (``Tiger@8411-2785-d109-2a7e.session``:
    #: its key's fingerprint; the address for a server without a key); the file
    #: itself, where sessions were kept before, is read when there is none of those
    #: and moved there once the server welcomes its session
    session_file: Path | None = None
    #: a claim code from the director: takes over the roster entry ``name`` (used once,
    #: then the session kept in ``session_file`` is the bot's)
    claim: str | None = None
    #: the program that plays (an engine's ``id name``), told to the matchmaker in
    #: ``hello`` for tournament records
    engine: str | None = None
    #: why the matchmaker refused this bot for good (a bad claim code), if it did
    failure: str | None = None
    #: reach referees through this host instead of the one the matchmaker names
    #: (e.g. "referee" inside a compose network)
    referee_host: str | None = None
    #: the server's public key from elsewhere (mDNS), checked against the pins
    server_key: str | None = None
    #: the pins the server's key is checked against (None: the data directory's)
    known: KnownServers | None = None
    context: zmq.Context[Any] | None = None
    stop: threading.Event = field(default_factory=threading.Event)
    players: dict[str, GamePlayer] = field(default_factory=dict)
    #: the players of the last FINISHED_KEPT games that ended (their results, errors)
    finished: deque[GamePlayer] = field(default_factory=lambda: deque(maxlen=FINISHED_KEPT))
    #: what this runner learns about its delays, for all its games
    clock_sense: ClockSense = field(default_factory=ClockSense)
    #: the runner's connection, once made
    connection: BlockingConnection | None = None
    _session: str | None = None
    #: the server's identity, once its key is known (:func:`server_identity`)
    _server_id: str | None = None
    #: the file the session in hand was read from, if any
    _session_from: Path | None = None
    #: the server refused the session of the old, unkeyed file: not offered again
    _legacy_refused: bool = False
    _seek_open: bool = False
    #: has the matchmaker welcomed this runner since it (re)connected last?
    _welcomed: bool = False
    #: connection attempts since the last welcome
    attempts: int = 0
    #: games that ended since the runner started (``finished`` keeps the last ones)
    games_finished: int = 0

    @property
    def keyed_session_file(self) -> Path | None:
        """Where the session on this server is kept (None: not kept, or no server yet)."""
        if self.session_file is None or self._server_id is None:
            return None
        server = "".join(c if c.isalnum() or c in ".-" else "_" for c in self._server_id)
        base = self.session_file
        return base.with_name(f"{base.stem}@{server}{base.suffix}")

    def _load_session(self) -> None:
        """The session saved for this server, else the one of the old unkeyed file."""
        keyed, legacy = self.keyed_session_file, self.session_file
        for path in (keyed, None if self._legacy_refused else legacy):
            if path is not None and path.exists():
                self._session = path.read_text(encoding="utf-8").strip() or None
                self._session_from = path
                return
        self._session_from = None

    def _save_session(self, session: str) -> None:
        keyed = self.keyed_session_file
        if keyed is None:
            return
        keyed.parent.mkdir(parents=True, exist_ok=True)
        keyed.write_text(session, encoding="utf-8")
        moved = self._session_from
        if moved is not None and moved != keyed and moved == self.session_file:
            moved.unlink(missing_ok=True)  # the old file's session now lives under the key
        self._session_from = keyed

    def _forget_session(self) -> None:
        """The server does not know the session in hand: never offer it again."""
        self._session = None
        if self._session_from is not None and self._session_from == self.session_file:
            self._legacy_refused = True  # it may be another server's: kept
        elif self._session_from is not None:
            self._session_from.unlink(missing_ok=True)
        self._session_from = None

    def _hello(self) -> Hello:
        return Hello(
            name=self.name,
            kind="bot",
            variants=list(self.policy.variants),
            session=self._session,
            claim=self.claim if self._session is None else None,
            engine=_engine_field(self.engine),
        )

    def run(self) -> None:
        """Serve until ``stop`` is set: until the server first answers, try again with
        back-off; after that the connection reconnects by itself (and says hello again)."""
        conn = self.connection = BlockingConnection(
            self.matchmaker, key=self.server_key, known=self.known, name=f"lanqi-bot-{self.name}"
        )
        try:
            if self._enter(conn):
                self._serve(conn)
        except SecurityError as exc:  # a server this bot must not trust: only people can help
            self.failure = str(exc)
            self.stop.set()
        finally:
            for player in self.players.values():
                player.stop_event.set()
            for player in self.players.values():
                player.join(timeout=2)
            conn.close()

    def _enter(self, conn: BlockingConnection) -> bool:
        """Say hello until welcomed (False: stopped, or refused for good)."""
        backoff = conn.policy.first
        while not self.stop.is_set():
            self.attempts += 1
            try:
                link = conn.run(conn.connection.matchmaker_link())
                self._server_id = server_identity(link, self.matchmaker)
                self._load_session()
                reply = conn.request(self._hello(), timeout=HELLO_WAIT_S)
            except (NoAnswer, NoServerKey) as exc:
                log.debug("%s: %s", self.name, exc)
                self._say_unreachable(backoff)
                self.stop.wait(backoff)
                backoff = min(conn.policy.most, backoff * 2)
                continue
            if isinstance(reply, Welcome):
                conn.connection.welcomed(self._hello(), reply)
                self._on_welcome(conn, reply)
                return True
            if isinstance(reply, ErrorReply) and not self._refused(conn, reply):
                return False
        return False

    def _serve(self, conn: BlockingConnection) -> None:
        while not self.stop.is_set():
            for item in conn.inbox(IDLE_POLL_MS / 1000):
                self._handle(conn, item)
            self._reap(conn)

    def _say_unreachable(self, backoff: float) -> None:
        if self._welcomed:
            log.warning(
                "%s: lost the server at %s; reconnecting in %.1f s",
                self.name,
                self.matchmaker,
                backoff,
            )
        else:
            log.warning(
                "%s: cannot reach the server at %s (try %d): is it running, and is that its "
                "address? trying again in %.1f s",
                self.name,
                self.matchmaker,
                self.attempts,
                backoff,
            )

    def _reap(self, conn: BlockingConnection) -> None:
        for game_id, player in list(self.players.items()):
            if not player.is_alive():
                self.finished.append(self.players.pop(game_id))
                self.games_finished += 1
                self._seek_open = False
        if (
            self._session is not None
            and self.policy.seek is not None
            and not self._seek_open
            and len(self.players) < self.policy.max_games
        ):
            self._seek_open = True
            conn.post(CreateSeek(seek=self.policy.seek))

    def _on_welcome(self, conn: BlockingConnection, welcome: Welcome) -> None:
        self._session, self.claim = welcome.session, None
        self._save_session(welcome.session)
        self._welcomed = True
        self.attempts = 0
        log.info(
            "%s is in the lobby on %s (player %s)", welcome.name, self.matchmaker, welcome.player_id
        )
        for tournament_id in self.policy.tournaments:
            conn.post(JoinTournament(tournament_id=tournament_id))
        for assignment in welcome.games:
            self._start_game(conn, assignment)

    def _handle(self, conn: BlockingConnection, item: object) -> None:
        if isinstance(item, Welcome):  # said again by the connection after a lost link
            self._on_welcome(conn, item)
        elif isinstance(item, GameAssigned):
            self._start_game(conn, item.game)
        elif isinstance(item, ChallengeReceived):
            reason = self.policy.decline_reason(item, len(self.players))
            if reason is None:
                conn.post(AcceptChallenge(challenge_id=item.challenge_id))
            else:
                conn.post(DeclineChallenge(challenge_id=item.challenge_id, reason=reason))
        elif isinstance(item, LinkChanged):
            if not item.up:
                self._say_unreachable(max(0.0, (item.retry_at or item.since) - time.monotonic()))
        elif isinstance(item, Answered) and item.refusal is not None:
            what, refusal = item.request.T, item.refusal
            if not (what == "tour_join" and refusal.code == "already_joined"):
                log.warning("matchmaker refused %s: %s %s", what, refusal.code, refusal.msg)
        elif isinstance(item, ErrorReply):  # the hello said again was refused
            self._refused(conn, item)

    def _refused(self, conn: BlockingConnection, error: ErrorReply) -> bool:
        """A refused hello: True when another hello may do (a session the server does
        not know), else the runner stops and says why."""
        if error.code == "bad_session":
            self._forget_session()
            if self._welcomed:
                conn.post(self._hello(), welcome=True)
            return True
        if error.code in ("bad_claim", "claim_needed"):
            self.failure = error.msg  # only the director can help: stop (the
        elif error.code == "name_taken":  # held by a session this bot does not have
            self.failure = tr("bot.name_taken", name=self.name)
        else:
            self.failure = f"{error.code}: {error.msg}"
        self.stop.set()  # the command line says why
        return False

    def _start_game(self, conn: BlockingConnection, assignment: Assignment) -> None:
        if assignment.game_id in self.players:
            return
        if self.referee_host:
            assignment = dataclasses.replace(
                assignment,
                referee=with_host(assignment.referee, self.referee_host),
                referee_pub=with_host(assignment.referee_pub, self.referee_host),
            )
        else:  # a referee the matchmaker names by a wildcard or loopback host
            assignment = dataclasses.replace(
                assignment,
                referee=reachable(assignment.referee, self.matchmaker),
                referee_pub=reachable(assignment.referee_pub, self.matchmaker),
            )
        player = GamePlayer(
            self.make_bot(),
            assignment,
            close_bot=True,
            stop=self.stop,
            clock_sense=self.clock_sense,
            connection=conn,
        )
        self.players[assignment.game_id] = player
        player.start()


def _engine_field(engine: str | None) -> str | None:
    """An engine's name as ``hello`` takes it: printable, trimmed, at most 80 characters
    (an engine may say anything; the matchmaker refuses a hello it cannot store)."""
    text = "".join(c for c in engine or "" if c.isprintable()).strip()[:80].strip()
    return text or None


def _ms_after(moment: float | None, start: float) -> str:
    return "?" if moment is None else f"{(moment - start) * 1000:.0f}"
