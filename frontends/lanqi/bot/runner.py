"""The bot runner: does the networking so a bot only picks moves.

It says hello to the matchmaker as a bot (keeping its session in a file per server,
named for the server's key, so a restarted runner is the same player whatever
address it reaches the server at), accepts or declines challenges by its
:class:`Policy`, keeps a seek open if asked, joins tournaments, and plays every
assigned game in a thread of its own: join the seat, follow the game with a
:class:`~lanqi.client.referee.GameView`, ask the bot for a move on its turn (in
a worker, heartbeating meanwhile), send it with its ply, answer draw offers.
Lost connections are retried with capped back-off and the game re-synced.
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
from functools import partial
from pathlib import Path
from typing import Any

import zmq

from lanqi.bot.base import Bot, GameState, PlayResult, clock_margin_ms
from lanqi.bot.failures import failure_reason
from lanqi.client.matchmaker import referee_link
from lanqi.client.referee import GameView, RefereeClient, RefereeTimeout, RequestRefused
from lanqi.clock import awaits_first_move
from lanqi.games.base import Game, first_seat
from lanqi.i18n import tr
from lanqi.protocol import (
    AcceptChallenge,
    Assignment,
    ChallengeReceived,
    CreateSeek,
    DeclineChallenge,
    ErrorReply,
    GameAssigned,
    Hello,
    JoinTournament,
    Message,
    Ping,
    ProtocolError,
    Request,
    Seek,
    Welcome,
    decode_payload,
    encode,
    termination_label,
)
from lanqi.protocol.endpoints import reachable, with_host
from lanqi.security import (
    HandshakeWatch,
    KnownServers,
    NoServerKey,
    SecurityError,
    server_identity,
    trust_server,
)

__all__ = ["BotRunner", "ClockSense", "GamePlayer", "Policy"]

log = logging.getLogger(__name__)

HEARTBEAT_MS = 1_000
QUIET_RESYNC_MS = 2_000
MIN_QUIET_RESYNC_MS = 100
THINK_POLL_S = 0.02  # while the bot thinks, look at the network this often
IDLE_POLL_MS = 200
PING_MS = 3_000
#: a hello unanswered this long (seconds) means the server cannot be reached (yet)
HELLO_WAIT_S = 2.0
MAX_BACKOFF_S = 10.0
MAX_REFUSED_MOVES = 3


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
    """Plays one assigned game to its end."""

    def __init__(
        self,
        bot: Bot,
        assignment: Assignment,
        *,
        close_bot: bool = False,
        context: zmq.Context[Any] | None = None,
        stop: threading.Event | None = None,
        clock_sense: ClockSense | None = None,
    ) -> None:
        super().__init__(name=f"game-{assignment.game_id}", daemon=True)
        self.bot = bot
        self.close_bot = close_bot
        self.assignment = assignment
        self.context = context
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
        #: the view has it, the turn it was sent for is over (nothing is searched again)
        self._sent_seq = -1

    def state(self, view: GameView) -> GameState:
        a = self.assignment
        tc, theirs = a.time_control.for_seat(a.seat), a.time_control.for_seat(1 - a.seat)
        remaining = None
        if tc.kind != "none" and len(view.clock.remaining_ms) == 2:
            remaining = (view.clock.remaining_ms[0], view.clock.remaining_ms[1])
        state = GameState(
            game_id=a.game_id,
            variant=a.variant,
            options=dict(a.options),
            seat=a.seat,
            board=self._board_at(view),
            moves=list(view.moves),
            start_fen=view.snapshot.start_fen,
            remaining_ms=remaining,
            increment_ms=tc.increment_ms,
            per_move_ms=tc.per_move_ms,
            opponent_increment_ms=theirs.increment_ms,
        )
        state.opponent = a.players[1 - a.seat] if len(a.players) == 2 else ""
        state.rated = a.rated
        deadlines = []
        if remaining is not None:  # as if the clock ran (before a first move it does not)
            deadlines.append(self._deadline(remaining[a.seat], per_move=tc.kind == "per_move"))
        window = view.clock.first_move_left_ms
        if window is not None and view.state.to_move == a.seat:
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

    def _board_at(self, view: GameView) -> Game[Any]:
        """The board after the view's moves: the last one, brought up to date with the
        new moves only (replaying the whole game for every move costs O(plies) each,
        most of a random bot's time in long games), handed out as a copy so a bot that
        pushes moves on it cannot spoil it.  A takeback or a new start rebuilds it."""
        a = self.assignment
        moves, start = view.moves, view.snapshot.start_fen
        known = len(self._board_moves)
        board = self._board
        if board is None or start != self._board_start or moves[:known] != self._board_moves:
            board = GameState.start(
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
        backoff = 0.5
        try:
            while not self.stop_event.is_set():
                try:
                    with RefereeClient(
                        a.referee,
                        a.referee_pub,
                        context=self.context,
                        link=referee_link(a.referee_key),
                    ) as client:
                        # Follow the game before taking the seat: the event connection is
                        # up and subscribed, so the event that starts the clock (the
                        # opponent's join, the first move) is not lost to a slow joiner
                        # (a lost one was noticed only by the quiet-resync fallback,
                        # after the first mover's per-move clock had run out).
                        client.wait_connected()
                        view = GameView(client, a.game_id)
                        view.take(client.join(a.game_id, a.seat, a.token))
                        self._play(client, view)
                        return
                except (RefereeTimeout, NoServerKey, zmq.ZMQError) as exc:
                    log.warning("game %s: lost the referee (%s); retrying", a.game_id, exc)
                    self.stop_event.wait(backoff)
                    backoff = min(MAX_BACKOFF_S, backoff * 2)
        except RequestRefused as exc:
            self.error = f"{exc.code}: {exc}"
        except SecurityError as exc:  # a referee this player must not trust
            log.error("game %s: %s", a.game_id, exc)
            self.error = str(exc)
            log.error("game %s: refused: %s", a.game_id, self.error)
        finally:
            self._worker.shutdown(wait=False, cancel_futures=True)
            if self.close_bot:
                self.bot.close()

    def _play(self, client: RefereeClient, view: GameView) -> None:
        a = self.assignment
        started = False
        thinking: concurrent.futures.Future[PlayResult] | None = None
        thinking_ply = -1
        told_ply = -1
        refused = 0
        answered_offer = False
        self._chat_lines = 0  # of this view's chat (it only grows)
        last_beat = 0.0
        last_event = time.monotonic() * 1000
        last_event_at = time.monotonic()  # when the last event (or snapshot) came in
        while not self.stop_event.is_set():
            if view.finished:
                # what a record says: the reason (``crash``) when there is one
                ending = termination_label(view.termination, view.state.reason)
                self.result, self.termination = view.result, ending
                self._log_end(view)
                self.bot.on_game_end(self.state(view), view.result or "*", ending)
                return
            if not started and view.status == "active":
                started = True
                self.bot.on_game_start(self.state(view))
            my_turn = self._see_turn(view, last_event_at)
            if started and not my_turn and view.status == "active" and view.ply != told_ply:
                told_ply = view.ply  # the opponent's turn: the bot may ponder (in its worker)
                self._worker.submit(self._opponent_turn, self.state(view))
            if view.draw_offer == 1 - a.seat and not answered_offer:
                answered_offer = True
                accept = self.bot.on_draw_offer(self.state(view))
                try:
                    (client.accept_draw if accept else client.decline_draw)(a.game_id, a.token)
                except RequestRefused as exc:  # the game ended, or the offer was withdrawn
                    if exc.code not in ("game_over", "no_offer"):
                        raise
                    view.resync()
            if view.draw_offer is None:
                answered_offer = False
            self._hear_chat(client, view)
            # Answering an offer or a chat line may have re-synced the view: look again.
            my_turn = self._see_turn(view, last_event_at)
            # The move sent for this ply was accepted, but its event is not in yet: the
            # turn is over (an event that came first, a chat line, a presence, an offer,
            # must not start a second search for the same ply).
            sent = view.seq < self._sent_seq
            if my_turn and thinking is None and not sent:
                state = self.state(view)
                if state.board.outcome() is None:
                    self._move_deadline = state.deadline
                    thinking = self._worker.submit(self.bot.play, state)
                    thinking.add_done_callback(lambda f: setattr(f, "done_at", time.monotonic()))
                    thinking_ply = view.ply
                else:  # the game is over by rule; the referee's "ended" is on its way
                    view.wait_for(partial(_moved_on, ply=state.board.ply), 1000)
                    continue
            if thinking is not None:
                concurrent.futures.wait([thinking], timeout=THINK_POLL_S)
            if thinking is not None and thinking.done():
                move_future, thinking = thinking, None
                if thinking_ply == view.ply and my_turn:
                    refused = self._send_move(client, view, move_future, refused)
                    if refused >= MAX_REFUSED_MOVES:
                        log.error(
                            "game %s: %s keeps sending refused moves; resigning",
                            a.game_id,
                            self.bot.name,
                        )
                        self._gave_up = f"{refused} illegal moves in a row"
                        self._resign(client, view, f"illegal move {self.refused_move}"[:32])
            now = time.monotonic() * 1000
            hold = thinking is not None and self._move_due_soon()
            if now - last_beat >= HEARTBEAT_MS and not hold:
                last_beat = now
                client.heartbeat(a.game_id, a.token)
            if view.poll(0 if thinking is not None else IDLE_POLL_MS):
                last_event = now
                last_event_at = time.monotonic()
            elif now - last_event > self._quiet_ms(view) and not hold:
                last_event = now  # a lost last event must not stall us: ask for a snapshot
                view.resync()
                last_event_at = time.monotonic()

    def _see_turn(self, view: GameView, seen_at: float) -> bool:
        """Is it this seat's turn in ``view``?  A turn seen for the first time is noted
        with ``seen_at``, when the event (or snapshot) that showed it came in."""
        mine = view.status == "active" and view.ply % 2 == self._parity(view)
        if mine and view.ply != self._turn_ply:
            self._turn_ply = view.ply
            self._turn_seen = seen_at
        return mine

    def _move_due_soon(self) -> bool:
        """Is the thinking bot's deadline less than :data:`HEARTBEAT_MS` away, or past
        by less than that?
        Then the runner asks the referee nothing (no heartbeat, no snapshot): on a
        busy machine a round trip takes tens of milliseconds or more, and the move
        that comes back meanwhile would wait for it.  The move is itself a sign of
        life; a bot that overruns its deadline by more than that is heartbeated again."""
        if self._move_deadline is None:
            return False
        return abs(self._move_deadline - time.monotonic()) * 1000 < HEARTBEAT_MS

    def _opponent_turn(self, state: GameState) -> None:
        try:
            self.bot.on_opponent_turn(state)
        except Exception:  # a bot's ponder failure costs it nothing more than the ponder
            log.exception("game %s: %s failed on the opponent's turn", state.game_id, self.bot.name)

    def _resign(self, client: RefereeClient, view: GameView, reason: str) -> None:
        """Give up with ``reason``; a game that already ended (an earlier resignation
        whose event is still on its way, a flag) needs nothing more."""
        try:
            client.resign(self.assignment.game_id, self.assignment.token, reason)
        except RequestRefused as exc:
            if exc.code != "game_over":
                raise
            view.resync()

    def _quiet_ms(self, view: GameView) -> float:
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

    def _log_end(self, view: GameView) -> None:
        """Say at INFO how the game ended, and why it was lost if it was."""
        a = self.assignment
        if view.winner is None:
            outcome = "drew" if view.result == "1/2-1/2" else "stopped"
        else:
            outcome = "won" if view.winner == a.seat else "lost"
        why = termination_label(view.termination, view.state.reason) or "?"
        if outcome == "lost" and view.termination == "timeout":
            why = f"timeout: its clock ran out ({self._clock_note(view)})"
        elif outcome == "lost" and view.termination == "abandoned":
            why = "abandoned: the referee stopped hearing from this runner"
        elif outcome == "lost" and self._gave_up:  # it resigned, saying why (crash, illegal...)
            why = f"{view.state.reason or view.termination}: {self._gave_up}"
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

    def _clock_note(self, view: GameView) -> str:
        a = self.assignment
        tc = a.time_control.for_seat(a.seat)
        kind = f"{tc.per_move_ms} ms per move" if tc.kind == "per_move" else tc.kind
        if self._late_move is not None:
            return f"{kind}; {self._late_move}"
        if self._turn_ply != view.ply:
            return f"{kind}; it ran out before this runner saw the turn"
        thinking = (time.monotonic() - self._turn_seen) * 1000
        return f"{kind}; the bot was still thinking, {thinking:.0f} ms into its turn"

    def _hear_chat(self, client: RefereeClient, view: GameView) -> None:
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
            if not reply:
                continue
            try:
                client.chat(a.game_id, reply, token=a.token)
            except RequestRefused as exc:
                log.warning("game %s: chat reply refused (%s)", a.game_id, exc)

    def _parity(self, view: GameView) -> int:
        """Plies ``p`` with ``p % 2 == parity`` are ours (a position may start with seat 1)."""
        a = self.assignment
        start = view.snapshot.start_fen
        if start != self._parity_start or self._parity_first is None:
            game = GameState.start(a.variant, options=dict(a.options), start_fen=start).board
            self._parity_start, self._parity_first = start, first_seat(game)
        return (a.seat - self._parity_first) % 2

    def _send_move(
        self,
        client: RefereeClient,
        view: GameView,
        future: concurrent.futures.Future[PlayResult],
        refused: int,
    ) -> int:
        a = self.assignment
        try:
            played = future.result()
        except Exception as exc:  # engine crash or hang: the engine loses this game
            log.error("game %s: %s failed to move (%s); resigning", a.game_id, self.bot.name, exc)
            self._gave_up = f"the bot failed to move: {type(exc).__name__}: {exc}"
            self._resign(client, view, failure_reason(exc))
            return refused
        if played.resign:
            log.info("game %s: %s resigns", a.game_id, self.bot.name)
            self._resign(client, view, "")
            return refused
        if played.offer_draw:
            # offered before the move goes, so the offer is pending when the opponent's
            # turn comes (its move would decline it); the opponent's pending offer is
            # taken instead, and the move is then refused as game_over (no matter)
            self._say_draw(client, view)
        move = played.move
        sent = time.monotonic()
        timing = (
            f"{(sent - self._turn_seen) * 1000:.0f} ms into the turn (the bot answered at "
            f"{_ms_after(getattr(future, 'done_at', None), self._turn_seen)} ms, its deadline "
            f"was at {_ms_after(self._move_deadline, self._turn_seen)} ms)"
        )
        sense = self.clock_sense
        if self._move_deadline is not None:
            sense.overruns_ms.append(max(0.0, (sent - self._move_deadline) * 1000))
        try:
            try:
                accepted = client.move(a.game_id, a.token, view.ply, move)
            finally:
                sense.round_trips_ms.append((time.monotonic() - sent) * 1000)
            self._sent_seq = accepted.seq
            log.debug("game %s: %s sent %s %s", a.game_id, self.bot.name, move, timing)
        except RequestRefused as exc:
            if exc.code in ("illegal_move", "bad_move", "ambiguous_move"):
                log.error(
                    "game %s: %s played %r: refused (%s)", a.game_id, self.bot.name, move, exc
                )
                self.refused_move = move
                return refused + 1
            if exc.code in ("game_over", "timeout", "stale_move", "not_your_turn"):
                if exc.code == "timeout":
                    self._late_move = f"the move {move} was sent {timing}"
                view.resync()
                return refused
            raise
        return 0

    def _say_draw(self, client: RefereeClient, view: GameView) -> None:
        """Offer a draw (or take the pending one) for the bot; refused offers (one of
        ours is pending, the game ended) cost nothing."""
        try:
            client.offer_draw(self.assignment.game_id, self.assignment.token)
        except RequestRefused as exc:
            if exc.code not in ("game_over", "not_allowed", "not_started"):
                raise
            log.debug("game %s: draw offer refused (%s)", self.assignment.game_id, exc)


@dataclass(slots=True)
class _Pending:
    request: Request
    sent_at: float


@dataclass(slots=True)
class BotRunner:
    """One bot on one matchmaker; ``run()`` until ``stop`` is set.

    ``make_bot`` makes a bot (an engine process, say) for each game, so games
    played at once never share one.
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
    finished: list[GamePlayer] = field(default_factory=list)
    #: what this runner learns about its delays, for all its games
    clock_sense: ClockSense = field(default_factory=ClockSense)
    _socket: zmq.Socket[bytes] | None = None
    _watch: HandshakeWatch | None = None
    _next_id: int = 0
    _session: str | None = None
    #: the server's identity, once its key is known (:func:`server_identity`)
    _server_id: str | None = None
    #: the file the session in hand was read from, if any
    _session_from: Path | None = None
    #: the server refused the session of the old, unkeyed file: not offered again
    _legacy_refused: bool = False
    _pending: dict[int, _Pending] = field(default_factory=dict)
    _last_reply: float = 0.0
    _seek_open: bool = False
    #: has the matchmaker welcomed this runner since it (re)connected last?
    _welcomed: bool = False
    #: connection attempts since the last welcome
    attempts: int = 0

    def _send(self, request: Request) -> None:
        assert self._socket is not None
        self._socket.send_multipart(encode(request))
        self._pending[request.id] = _Pending(request, time.monotonic())

    def _id(self) -> int:
        self._next_id += 1
        return self._next_id

    def _connect(self) -> bool:
        """A new connection (the server's key checked first); False if the server's key
        port does not answer (it is down: the caller says so and tries again)."""
        context = self.context or zmq.Context.instance()
        try:
            link = trust_server(
                self.matchmaker,
                known=self.known or KnownServers.of(),
                key=self.server_key,
                context=context,
                timeout_ms=round(HELLO_WAIT_S * 1000),
            )
        except NoServerKey as exc:
            log.debug("%s: %s", self.name, exc)
            self.attempts += 1
            return False
        self._server_id = server_identity(link, self.matchmaker)
        self._close_socket()
        self._socket = context.socket(zmq.DEALER)
        self._socket.setsockopt(zmq.LINGER, 0)
        link.setup(self._socket)
        self._watch = HandshakeWatch(self._socket, self.matchmaker, link)
        self._socket.connect(self.matchmaker)
        self._pending.clear()
        self._welcomed = False
        self.attempts += 1
        self._load_session()
        self._hello()
        self._last_reply = time.monotonic()
        return True

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

    def _close_socket(self) -> None:
        if self._watch is not None:
            self._watch.close()
            self._watch = None
        if self._socket is not None:
            self._socket.close(linger=0)
            self._socket = None

    def _hello(self) -> None:
        now = time.monotonic()
        if any(
            isinstance(p.request, Hello) and now - p.sent_at < PING_MS / 1000
            for p in self._pending.values()
        ):
            return  # one hello in flight is enough (one lost with a dead server is not)
        self._send(
            Hello(
                id=self._id(),
                name=self.name,
                kind="bot",
                variants=list(self.policy.variants),
                session=self._session,
                claim=self.claim if self._session is None else None,
                engine=_engine_field(self.engine),
            )
        )

    def run(self) -> None:
        """Serve until ``stop`` is set: reconnect with back-off when the matchmaker is silent."""
        backoff = 0.5
        try:
            while not self._connect():
                self._say_unreachable(backoff)
                if self.stop.wait(backoff):
                    return
                backoff = min(MAX_BACKOFF_S, backoff * 2)
            self._serve(backoff)
        except SecurityError as exc:  # a server this bot must not trust: only people can help
            self.failure = str(exc)
            self.stop.set()
        finally:
            for player in self.players.values():
                player.stop_event.set()
            for player in self.players.values():
                player.join(timeout=2)
            self._close_socket()

    def _serve(self, backoff: float) -> None:
        last_ping = 0.0
        while not self.stop.is_set():
            assert self._socket is not None and self._watch is not None
            if self._watch.poll(100):
                frames = self._socket.recv_multipart()
                self._last_reply = time.monotonic()
                backoff = 0.5
                try:
                    self._handle(decode_payload(frames[-1]))
                except ProtocolError as exc:
                    log.error("bad message from the matchmaker: %s", exc)
            now = time.monotonic()
            if now - last_ping >= PING_MS / 1000:
                last_ping = now
                self._send(Ping(id=self._id()))
            silent_after = 3 * PING_MS / 1000 if self._welcomed else HELLO_WAIT_S
            if now - self._last_reply > silent_after:
                self._say_unreachable(backoff)
                self.stop.wait(backoff)
                backoff = min(MAX_BACKOFF_S, backoff * 2)
                self._connect()  # if it is still down, the silence goes on: tried again
            self._reap()

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

    def _reap(self) -> None:
        for game_id, player in list(self.players.items()):
            if not player.is_alive():
                self.finished.append(self.players.pop(game_id))
                self._seek_open = False
        if (
            self._session is not None
            and self.policy.seek is not None
            and not self._seek_open
            and len(self.players) < self.policy.max_games
        ):
            self._seek_open = True
            self._send(CreateSeek(id=self._id(), seek=self.policy.seek))

    def _handle(self, message: Message) -> None:
        re = getattr(message, "re", None)
        pending = self._pending.pop(re, None) if re is not None else None
        if isinstance(message, Welcome):
            self._session, self.claim = message.session, None
            self._save_session(message.session)
            self._welcomed = True
            self.attempts = 0
            log.info(
                "%s is in the lobby on %s (player %s)",
                message.name,
                self.matchmaker,
                message.player_id,
            )
            for tournament_id in self.policy.tournaments:
                self._send(JoinTournament(id=self._id(), tournament_id=tournament_id))
            for assignment in message.games:
                self._start_game(assignment)
        elif isinstance(message, GameAssigned):
            self._start_game(message.game)
        elif isinstance(message, ChallengeReceived):
            reason = self.policy.decline_reason(message, len(self.players))
            if reason is None:
                self._send(AcceptChallenge(id=self._id(), challenge_id=message.challenge_id))
            else:
                self._send(
                    DeclineChallenge(
                        id=self._id(), challenge_id=message.challenge_id, reason=reason
                    )
                )
        elif isinstance(message, ErrorReply):
            what = pending.request.T if pending else "?"
            if message.code == "bad_session":
                self._forget_session()
                self._connect()
            elif message.code in ("bad_claim", "claim_needed"):
                self.failure = message.msg  # only the director can help: stop (the
                self.stop.set()  # command line says why)
            elif message.code == "name_taken":  # held by a session this bot does not have
                self.failure = tr("bot.name_taken", name=self.name)
                self.stop.set()
            elif message.code == "no_session":
                # the matchmaker restarted and no longer knows this connection: the
                # socket reconnected by itself, so no silence ever triggers _connect()
                self._hello()
            elif not (what == "tour_join" and message.code == "already_joined"):
                log.warning("matchmaker refused %s: %s %s", what, message.code, message.msg)

    def _start_game(self, assignment: Assignment) -> None:
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
            context=self.context,
            stop=self.stop,
            clock_sense=self.clock_sense,
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


def _moved_on(view: GameView, *, ply: int) -> bool:
    return view.finished or view.ply != ply
