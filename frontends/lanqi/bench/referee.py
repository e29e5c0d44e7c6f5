"""Referee throughput and latency under many concurrent games: ``lanqi bench referee``.

The referee runs as a real separate process (``lanqi referee`` on port 0 and a
temporary data directory), so it has a core of its own; this process is the load
generator.  The run has two measurements with the same client code and the same
concurrency, then (by default) the same two again at a paced load:

1. **referee**: ``games`` tables.  Each creates a game (``create_game``), joins both
   seats with their tokens, then plays a random legal game computed beforehand with
   the rules core (:func:`make_scripts`), one ``move`` request at a time with the
   right ply.  With ``think_ms`` 0 (the default) every table always has its next
   request outstanding, so ``games`` requests are in flight at once.  When a game
   ends by the rules (its last move is accepted), the table creates and joins a new
   game and goes on.  One spectator SUB, subscribed to every ``game/`` topic, times
   each move to its ``moved`` event.
2. **raw**: the same tables against :func:`raw_server`, a ROUTER in its own process
   that decodes nothing and answers every message at once with one fixed, encoded
   ``move_ok``.  Its games need no create; the two joins of each table are still
   sent before the clock starts, so every connection is up when it does.  This is
   the ceiling of the socket pattern with this client: what the referee would reach
   if validating, storing and publishing a move cost nothing.
3. **paced**: when the run saturates (``think_ms`` 0) and ``paced_think_ms`` is above
   0, both again with ``think_ms = paced_think_ms`` (see below): the referee (a fresh
   process, with a fresh data directory) then the raw server.

Sockets: one DEALER per seat (two per table, as two real players would have),
every socket in one :class:`zmq.Poller` together with the spectator's SUB.  A
move's round trip runs from just before ``send`` to just after the ``recv`` of its
reply (``time.perf_counter_ns``); its delivery latency from the same send to the
``recv`` of its ``moved`` event (the referee publishes before it replies, so this
can be shorter than the round trip).  Only ``move`` requests are timed and counted;
the ``create_game`` and ``join`` of the games that replace finished ones are load
on the referee during the measurement but not in the figures.

Each measurement lasts ``seconds`` (no new move is sent after that; the replies in
flight are awaited) or ends sooner when every table has sent ``moves_per_game``
moves.  Moves per second is accepted moves over the time from the first send to the
last reply.  The spectator's decoding runs in the load generator during the referee
measurements only (a few µs per event).

With every move in flight the server is saturated, and the mean round trip is
``games / moves per second`` whatever the server does (Little's law).
``think_ms`` paces the load instead: a table sends its next move about that long
(0.5 to 1.5 times, at random) after the last one was accepted, the tables out of
step with each other, which shows the latency at a given offered load.  So one
default run judges both targets: the moves/s ratio on the saturated pair, the p99
round trip on the paced referee (next to the raw server's p99 at the same pace, the
floor of this machine and client).  A run given ``think_ms`` is one paced pair: its
ratio is not judged, its p99 is.
"""

from __future__ import annotations

import argparse
import heapq
import random
import re
import secrets
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import FrameType
from typing import Any

import zmq

from lanqi.bench.process import ServiceProcess, file_system
from lanqi.games.registry import create_game
from lanqi.protocol import (
    ChatRequest,
    CreateGame,
    ErrorReply,
    GameCreated,
    GameEnded,
    Join,
    Message,
    MoveAccepted,
    MoveMade,
    MoveRequest,
    Ok,
    ProtocolError,
    Snapshot,
    TimeControl,
    decode,
    encode,
)

__all__ = [
    "TARGET_GAMES",
    "TARGET_P99_MS",
    "TARGET_RATIO",
    "Latency",
    "LoadResult",
    "RefereeBenchConfig",
    "RefereeBenchReport",
    "Script",
    "format_report",
    "main",
    "make_scripts",
    "raw_server",
    "run_referee_bench",
]

#: The referee should reach at least this fraction of the raw ceiling's moves/s ...
TARGET_RATIO = 0.5
#: ... and answer 99% of moves within this many milliseconds ...
TARGET_P99_MS = 2.0
#: ... with this many games in flight.
TARGET_GAMES = 64

VARIANTS = ("xiangqi", "gomoku")
MAX_GAMES = 1000  # two client sockets per game, and as many on the server
#: Every benchmark game gets this clock (long enough that no flag falls in a run).
TIME_CONTROL = TimeControl(kind="fischer", base_ms=600_000, increment_ms=5_000)
SCRIPT_MAX_PLIES = 1000  # a random game not over by then is thrown away (never seen)
SERVER_READY_S = 20.0  # wait this long for a server's ready line
STOP_S = 5.0  # SIGTERM, then SIGKILL after this long
REPLY_TIMEOUT_S = 10.0  # a request unanswered this long stops the measurement
EVENT_DRAIN_S = 1.0  # after the last reply, wait this long at most for late events
POLL_MS = 100
READY_REFEREE = re.compile(rb"referee ready: requests (\S+), events (\S+), data (.+)")
READY_RAW = re.compile(rb"raw server ready: (\S+)")

Progress = Callable[[str], None]


# ---------------------------------------------------------------- configuration


@dataclass(frozen=True, slots=True)
class RefereeBenchConfig:
    """What to run: ``games`` tables in flight, for ``seconds`` per measurement.

    ``moves_per_game`` caps the moves each table sends (across the games it plays
    one after another); None leaves the time budget alone to end the run.
    ``think_ms`` is how long a table waits, on average, after a move is accepted
    before it sends the next one (drawn evenly from half to one and a half times
    it; the first moves are spread over one think time): 0 (the default) saturates
    the server, more paces the load.  ``paced_think_ms`` is the think time of the
    paced phase that follows a saturated run (``think_ms`` 0): the referee and the
    raw server once more, at that pace, for the latency target; 0 leaves it out.  A
    paced run (``think_ms`` above 0) has no such phase.
    """

    games: int = TARGET_GAMES
    moves_per_game: int | None = None
    seconds: float = 8.0
    variant: str = "xiangqi"
    durable: bool = False
    seed: int = 1
    think_ms: float = 0.0
    paced_think_ms: float = 20.0

    def __post_init__(self) -> None:
        if not 1 <= self.games <= MAX_GAMES:
            raise ValueError(f"games must be from 1 to {MAX_GAMES}, not {self.games}")
        if self.moves_per_game is not None and self.moves_per_game < 1:
            raise ValueError(f"moves per game must be at least 1, not {self.moves_per_game}")
        if not 0 < self.seconds <= 600:
            raise ValueError(f"seconds must be above 0 and at most 600, not {self.seconds}")
        if not 0 <= self.think_ms <= 60_000:
            raise ValueError(f"think time must be from 0 to 60000 ms, not {self.think_ms}")
        if not 0 <= self.paced_think_ms <= 60_000:
            raise ValueError(
                f"paced think time must be from 0 to 60000 ms, not {self.paced_think_ms}"
            )
        if self.variant not in VARIANTS:
            raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, not {self.variant!r}")


# ---------------------------------------------------------------- scripted games


@dataclass(frozen=True, slots=True)
class Script:
    """A legal game from its start to its end by the rules, in wire notation."""

    variant: str
    moves: tuple[str, ...]
    first_seat: int
    termination: str

    def seat(self, ply: int) -> int:
        """The seat that plays ``ply``."""
        return (self.first_seat + ply) % 2


def make_scripts(variant: str, count: int, seed: int) -> list[Script]:
    """``count`` random legal games of ``variant``, each played to its end by the rules.

    >>> [s.termination for s in make_scripts("gomoku", 2, seed=3)]
    ['five_in_a_row', 'five_in_a_row']
    """
    rng = random.Random(seed)
    scripts: list[Script] = []
    while len(scripts) < count:
        game = create_game(variant)
        first = game.seat_to_move
        moves: list[str] = []
        outcome = game.outcome()
        while outcome is None and game.ply < SCRIPT_MAX_PLIES:
            move = rng.choice(list(game.legal_moves()))
            game.push(move)
            moves.append(str(move))
            outcome = game.outcome()
        if outcome is not None and moves:
            scripts.append(Script(variant, tuple(moves), first, outcome.termination.value))
    return scripts


# ---------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class Latency:
    """Percentiles (nearest rank) of ``count`` samples, in milliseconds."""

    count: int
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float

    @classmethod
    def of(cls, samples_ns: Sequence[int]) -> Latency | None:
        """The summary of ``samples_ns`` (nanoseconds); None when there are none.

        >>> Latency.of([i * 1_000_000 for i in range(1, 101)])
        Latency(count=100, p50_ms=50.0, p90_ms=90.0, p99_ms=99.0, max_ms=100.0)
        """
        if not samples_ns:
            return None
        ordered = sorted(samples_ns)
        n = len(ordered)

        def rank(percent: int) -> float:
            return ordered[max(0, -(-n * percent // 100) - 1)] / 1e6  # ceil(n*p/100) - 1

        return cls(n, rank(50), rank(90), rank(99), ordered[-1] / 1e6)


@dataclass(frozen=True, slots=True)
class LoadResult:
    """One measurement: ``server`` is ``"referee"`` or ``"raw"``.

    ``errors`` counts every refused or unexpected reply by its code (``move:
    illegal_move``, ``join: bad_token``...).  ``games_started`` counts the games
    the tables began during the measurement and before it, ``games_ended`` those
    whose last move was accepted.  ``delivery``, ``events_missing`` and
    ``ended_events`` come from the spectator (referee only).  ``problems`` says what
    broke: a server that would not start, died or stopped answering.
    """

    server: str
    moves: int
    seconds: float
    round_trip: Latency | None
    delivery: Latency | None
    games_started: int
    games_ended: int
    ended_events: int
    other_requests: int
    errors: dict[str, int]
    events_missing: int
    peak_rss_mib: float | None
    problems: tuple[str, ...] = ()

    @property
    def moves_per_second(self) -> float | None:
        if self.seconds <= 0 or not self.moves:
            return None
        return self.moves / self.seconds


@dataclass(frozen=True, slots=True)
class RefereeBenchReport:
    """The run's referee and raw results, and the paced phase's (referee, raw) if any.

    ``paced`` is None when the run had no paced phase (``paced_think_ms`` 0, or the
    run was itself paced); ``store`` says where the referee's database was, and on
    what file system.
    """

    config: RefereeBenchConfig
    referee: LoadResult
    raw: LoadResult
    store: str
    paced: tuple[LoadResult, LoadResult] | None = None

    @property
    def results(self) -> tuple[LoadResult, ...]:
        """Every measurement, in the order it ran."""
        return (self.referee, self.raw, *(self.paced or ()))

    @property
    def latency_pair(self) -> tuple[LoadResult, LoadResult] | None:
        """The (referee, raw) measured at a paced load, on which the p99 target is judged.

        The paced phase's when there is one, the run's own when it was paced; None
        at saturation (every move in flight), where latency is set by the load.
        """
        if self.paced is not None:
            return self.paced
        if self.config.think_ms > 0:
            return self.referee, self.raw
        return None

    @property
    def ratio(self) -> float | None:
        """Referee moves/s over raw moves/s (None if either is missing)."""
        ours, ceiling = self.referee.moves_per_second, self.raw.moves_per_second
        return ours / ceiling if ours and ceiling else None

    @property
    def ratio_met(self) -> bool | None:
        ratio = self.ratio
        return None if ratio is None else ratio >= TARGET_RATIO

    @property
    def p99_met(self) -> bool | None:
        """The p99 target on the paced referee; None if not measured at a paced load."""
        pair = self.latency_pair
        rtt = pair[0].round_trip if pair is not None else None
        return None if rtt is None else rtt.p99_ms < TARGET_P99_MS

    @property
    def ok(self) -> bool:
        """Nothing broke: every server ran, every move was accepted."""
        return not any(result.problems or result.errors for result in self.results)


# ---------------------------------------------------------------- server processes


# ---------------------------------------------------------------- the raw server


FIXED_REPLY = encode(MoveAccepted(re=0, game_id="0" * 16, ply=0, move="h2e2", seq=1))[0]
RAW_BATCH = 256  # messages drained per turn, like the referee's MAX_BATCH


def raw_server(host: str = "127.0.0.1", port: int = 0) -> int:
    """A ROUTER that answers every message with :data:`FIXED_REPLY`, decoding nothing.

    Prints ``raw server ready: <endpoint>`` and serves until SIGTERM or SIGINT.
    """
    stopping = False

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    context: zmq.Context[Any] = zmq.Context()
    router: zmq.Socket[bytes] = context.socket(zmq.ROUTER)
    router.setsockopt(zmq.LINGER, 0)
    router.setsockopt(zmq.RCVHWM, 10_000)
    if port == 0:
        endpoint = f"tcp://{host}:{router.bind_to_random_port(f'tcp://{host}')}"
    else:
        endpoint = f"tcp://{host}:{port}"
        router.bind(endpoint)
    print(f"raw server ready: {endpoint}", flush=True)
    reply = FIXED_REPLY
    try:
        while not stopping:
            if not router.poll(POLL_MS):
                continue
            for _ in range(RAW_BATCH):
                try:
                    frames = router.recv_multipart(zmq.NOBLOCK)
                except zmq.Again:
                    break
                router.send_multipart([frames[0], reply])
    finally:
        router.close(linger=0)
        context.term()
    return 0


# ---------------------------------------------------------------- the load


_CREATE, _JOIN0, _JOIN1, _READY, _THINK, _MOVE, _PROBE, _IDLE = range(8)
_KIND = {_CREATE: "create_game", _JOIN0: "join", _JOIN1: "join", _MOVE: "move", _PROBE: "chat"}
SPECTATOR_PROBES = 20  # spectator chat lines sent, at most, until the SUB sees an event
PROBE_WAIT_S = 0.25


@dataclass(slots=True)
class _Table:
    """One game slot: two seat sockets and the scripted game in play."""

    index: int
    sockets: tuple[zmq.Socket[bytes], zmq.Socket[bytes]]
    rng: random.Random
    script: Script
    state: int = _IDLE
    game_id: str = ""
    tokens: list[str] = field(default_factory=list)
    ply: int = 0
    sent_moves: int = 0
    request_id: int = 0
    sent_ns: int = 0


class _Load:
    """Drives every table against one server and collects the figures.

    Setup (before the clock starts) creates and joins every table's game; against
    the raw server it only sends the two joins, which are answered like anything
    else, so that every connection is up before the first timed move.
    """

    def __init__(
        self,
        server: str,
        *,
        label: str,
        endpoint: str,
        pub_endpoint: str | None,
        config: RefereeBenchConfig,
        scripts: Sequence[Script],
        context: zmq.Context[Any],
        alive: Callable[[], bool],
        progress: Progress | None,
    ) -> None:
        self.server = server
        self.label = label  # names the measurement in progress lines
        self.raw = pub_endpoint is None  # the raw server: no events, no create/join check
        self.config = config
        self.think_ns = int(config.think_ms * 1e6)
        self.scripts = scripts
        self.alive = alive
        self.progress = progress
        self.poller = zmq.Poller()
        self.sockets: list[zmq.Socket[bytes]] = []
        self.tables: list[_Table] = []
        self.by_socket: dict[zmq.Socket[bytes], _Table] = {}
        self.sub: zmq.Socket[bytes] | None = None
        self.context = context
        self.endpoint = endpoint
        self.pub_endpoint = pub_endpoint
        self.next_id = 0
        self.running = False  # moves may be sent
        self.start_ns = 0
        self.stop_at = 0
        self.pending = 0  # tables with a request in flight
        self.thinking: list[tuple[int, int]] = []  # heap of (due ns, table index)
        self.round_trips: list[int] = []
        self.deliveries: list[int] = []
        self.move_sent: dict[tuple[str, int], int] = {}  # (game, ply) -> send time, for events
        self.errors: dict[str, int] = {}
        self.problems: list[str] = []
        self.moves = 0
        self.other_requests = 0
        self.games_started = 0
        self.games_ended = 0
        self.ended_events = 0
        self.events = 0
        self.last_reply_ns = 0

    def _socket(self, context: zmq.Context[Any], kind: int, endpoint: str) -> zmq.Socket[bytes]:
        sock: zmq.Socket[bytes] = context.socket(kind)
        sock.setsockopt(zmq.LINGER, 0)
        sock.setsockopt(zmq.SNDTIMEO, int(REPLY_TIMEOUT_S * 1000))
        if kind == zmq.SUB:
            sock.setsockopt(zmq.RCVHWM, 0)  # keep every event: the spectator counts them
        sock.connect(endpoint)
        self.sockets.append(sock)
        self.poller.register(sock, zmq.POLLIN)
        return sock

    def open(self) -> None:
        """Connect the spectator (if there is an event endpoint) and every seat."""
        if self.pub_endpoint is not None:
            self.sub = self._socket(self.context, zmq.SUB, self.pub_endpoint)
            self.sub.setsockopt(zmq.SUBSCRIBE, b"game/")
        for index in range(self.config.games):
            pair = (
                self._socket(self.context, zmq.DEALER, self.endpoint),
                self._socket(self.context, zmq.DEALER, self.endpoint),
            )
            rng = random.Random(self.config.seed * 100_003 + index)
            table = _Table(index, pair, rng, self.scripts[index % len(self.scripts)])
            self.tables.append(table)
            self.by_socket[pair[0]] = self.by_socket[pair[1]] = table

    def close(self) -> None:
        for sock in self.sockets:
            sock.close(linger=0)

    # ------------------------------------------------------------ requests

    def _send(self, table: _Table, seat: int, state: int, message: Message, rid: int) -> None:
        table.state, table.request_id = state, rid
        self.pending += 1
        table.sent_ns = time.perf_counter_ns()
        table.sockets[seat].send_multipart(encode(message))

    def _new_id(self) -> int:
        self.next_id += 1
        return self.next_id

    def _may_continue(self, table: _Table) -> bool:
        cap = self.config.moves_per_game
        if cap is not None and table.sent_moves >= cap:
            return False
        return not (self.stop_at and time.perf_counter_ns() >= self.stop_at)

    def _begin_game(self, table: _Table) -> None:
        """Start the table's next game: create and join it (referee) or just name it (raw)."""
        table.ply = 0
        self.games_started += 1
        if self.raw:
            table.game_id = f"{table.index:04x}{self.games_started:012x}"
            table.tokens = [secrets.token_urlsafe(16), secrets.token_urlsafe(16)]
            if self.running:
                self._send_move(table)
            else:
                self._join(table, 0)
            return
        if self.running:
            self.other_requests += 1
        rid = self._new_id()
        request = CreateGame(
            id=rid,
            variant=table.script.variant,
            players=[f"bench{table.index}a", f"bench{table.index}b"],
            time_control=TIME_CONTROL,
            casual=False,
            tag="bench",
        )
        self._send(table, 0, _CREATE, request, rid)

    def _join(self, table: _Table, seat: int) -> None:
        if self.running:
            self.other_requests += 1
        rid = self._new_id()
        request = Join(id=rid, game_id=table.game_id, seat=seat, token=table.tokens[seat])
        self._send(table, seat, _JOIN1 if seat else _JOIN0, request, rid)

    def _send_move(self, table: _Table) -> None:
        if not self._may_continue(table):
            table.state = _IDLE
            return
        script, ply = table.script, table.ply
        seat = script.seat(ply)
        rid = self._new_id()
        request = MoveRequest(
            id=rid, game_id=table.game_id, token=table.tokens[seat], ply=ply, move=script.moves[ply]
        )
        table.sent_moves += 1
        self._send(table, seat, _MOVE, request, rid)
        if self.sub is not None:
            self.move_sent[(table.game_id, ply)] = table.sent_ns

    def _next_move(self, table: _Table, now: int) -> None:
        """Send the table's next move now, or after the think time."""
        if self.think_ns and self._may_continue(table):
            self._think(table, now + int(self.think_ns * table.rng.uniform(0.5, 1.5)))
        else:
            self._send_move(table)

    def _think(self, table: _Table, due_ns: int) -> None:
        table.state = _THINK
        heapq.heappush(self.thinking, (due_ns, table.index))

    def _next_game(self, table: _Table) -> None:
        table.script = table.rng.choice(self.scripts)
        if self._may_continue(table):
            self._begin_game(table)
        else:
            table.state = _IDLE

    # ------------------------------------------------------------ replies

    def _error(self, kind: str, reply: Message | None, fallback: str) -> None:
        code = reply.code if isinstance(reply, ErrorReply) else fallback
        key = f"{kind}: {code}"
        self.errors[key] = self.errors.get(key, 0) + 1

    def _answers(self, reply: Message | None, table: _Table, expected: type[Message]) -> bool:
        """Is ``reply`` the right answer to the table's request?  (The raw server's
        fixed reply answers everything.)"""
        if reply is None:
            return False
        if self.raw:
            return True
        return isinstance(reply, expected) and getattr(reply, "re", None) == table.request_id

    def _on_reply(self, table: _Table, frames: list[bytes], now: int) -> None:
        if table.state not in _KIND:
            self._error("unexpected", None, "reply with nothing in flight")
            return
        self.pending -= 1
        self.last_reply_ns = now
        state, kind = table.state, _KIND[table.state]
        reply: Message | None = None
        try:
            reply = decode(frames)
            bad = f"unexpected {reply.T!r} reply"
        except ProtocolError as exc:
            bad = f"undecodable reply ({exc.code})"
        if state == _MOVE:
            self._on_move_reply(table, reply, bad, now)
        elif (
            state == _CREATE
            and isinstance(reply, GameCreated)
            and self._answers(reply, table, GameCreated)
        ):
            table.game_id, table.tokens = reply.game_id, list(reply.tokens)
            self._join(table, 0)
        elif state == _JOIN0 and self._answers(reply, table, Snapshot):
            self._join(table, 1)
        elif state == _JOIN1 and self._answers(reply, table, Snapshot):
            table.state = _READY
            if self.running:
                self._send_move(table)
        elif state == _PROBE and self._answers(reply, table, Ok):
            table.state = _READY
        else:  # a table whose game cannot be set up sits out the rest of the run
            self._error(kind, reply, bad)
            table.state = _IDLE

    def _on_move_reply(self, table: _Table, reply: Message | None, bad: str, now: int) -> None:
        accepted = isinstance(reply, MoveAccepted) and (
            self.raw or (reply.re == table.request_id and reply.ply == table.ply)
        )
        if not accepted:
            self._error("move", reply, bad)
            self.move_sent.pop((table.game_id, table.ply), None)
            self._next_game(table)  # the game's state is in doubt: leave it
            return
        self.moves += 1
        self.round_trips.append(now - table.sent_ns)
        table.ply += 1
        if table.ply < len(table.script.moves):
            self._next_move(table, now)
        else:
            self.games_ended += 1
            self._next_game(table)

    def _on_event(self, frames: list[bytes], now: int) -> None:
        self.events += 1
        try:
            event = decode(frames)
        except ProtocolError as exc:
            self._error("event", None, f"undecodable event ({exc.code})")
            return
        if isinstance(event, MoveMade):
            sent = self.move_sent.pop((event.game_id, event.ply), None)
            if sent is not None:
                self.deliveries.append(now - sent)
        elif isinstance(event, GameEnded):
            self.ended_events += 1

    # ------------------------------------------------------------ the loop

    def _turn(self, timeout_ms: int) -> bool:
        """Handle whatever arrives within ``timeout_ms`` and send the moves due;
        False if nothing arrived."""
        if self.thinking:
            due_in = (self.thinking[0][0] - time.perf_counter_ns()) // 1_000_000
            timeout_ms = max(0, min(timeout_ms, due_in))
        ready = self.poller.poll(timeout_ms)
        sub = self.sub
        for sock, _ in ready:
            if sock is sub and sub is not None:
                while True:
                    try:
                        frames = sub.recv_multipart(zmq.NOBLOCK)
                    except zmq.Again:
                        break
                    self._on_event(frames, time.perf_counter_ns())
            else:
                try:
                    frames = sock.recv_multipart(zmq.NOBLOCK)
                except zmq.Again:
                    continue
                self._on_reply(self.by_socket[sock], frames, time.perf_counter_ns())
        now = time.perf_counter_ns()
        while self.thinking and self.thinking[0][0] <= now:
            _, index = heapq.heappop(self.thinking)
            self._send_move(self.tables[index])
        return bool(ready)

    def _idle(self) -> bool:
        return self.pending == 0 and not self.thinking

    def _wait(self, done: Callable[[], bool], limit_s: float, what: str) -> bool:
        """Turn the loop until ``done()``; a problem if nothing arrives for ``limit_s``."""
        quiet_since = time.monotonic()
        next_report = quiet_since + 1.0
        while not done():
            if self._turn(POLL_MS) or not self.pending:
                quiet_since = time.monotonic()
            now = time.monotonic()
            if now >= next_report:
                next_report = now + 1.0
                self._report_progress()
                if not self.alive():
                    self.problems.append(f"the {self.server} server died {what}")
                    return False
            if now - quiet_since > limit_s:
                self.problems.append(
                    f"no reply from the {self.server} server for {limit_s:g} s {what}"
                )
                return False
        return True

    def _report_progress(self) -> None:
        if self.progress is None or not self.running:
            return
        elapsed = (time.perf_counter_ns() - self.start_ns) / 1e9
        rate = self.moves / elapsed if elapsed > 0 else 0.0
        self.progress(
            f"{self.label}: {elapsed:4.1f} s, {self.moves:,} moves accepted ({rate:,.0f}/s)"
        )

    def _spectator_live(self) -> bool:
        """Make sure the SUB's subscription is live before any move is timed.

        Usually it already has the setup's events.  If not (it may have joined after
        them), spectator chat lines are posted to a game until one comes through:
        no sleeping on a slow joiner.
        """
        ready = [t for t in self.tables if t.state == _READY]
        for attempt in range(SPECTATOR_PROBES):
            if self.events > 0 or not ready:
                break
            table = ready[attempt % len(ready)]
            rid = self._new_id()
            chat = ChatRequest(id=rid, game_id=table.game_id, text="bench", name="bench")
            self._send(table, attempt % 2, _PROBE, chat, rid)
            if not self._wait(self._idle, REPLY_TIMEOUT_S, "at the spectator's chat probe"):
                return False
            until = time.monotonic() + PROBE_WAIT_S
            while self.events == 0 and time.monotonic() < until:
                self._turn(POLL_MS // 4)
        if self.events == 0 and ready:
            self.problems.append("the spectator received no event; its figures are missing")
        return True

    def run(self) -> None:
        """Set up every table, then play for the time budget and await the stragglers."""
        for table in self.tables:
            self._begin_game(table)
        if not self._wait(self._idle, REPLY_TIMEOUT_S, "while setting up"):
            return
        if self.sub is not None and not self._spectator_live():
            return
        self.running = True
        self.start_ns = self.last_reply_ns = time.perf_counter_ns()
        self.stop_at = self.start_ns + int(self.config.seconds * 1e9)
        for table in self.tables:
            if table.state != _READY:
                continue
            if self.think_ns:  # spread the first moves over one think time: no lockstep
                self._think(table, self.start_ns + int(self.think_ns * table.rng.random()))
            else:
                self._send_move(table)
        if not self._wait(self._idle, REPLY_TIMEOUT_S, "during the measurement"):
            return
        self.running = False
        drain_until = time.monotonic() + EVENT_DRAIN_S
        while self.sub is not None and self.move_sent and time.monotonic() < drain_until:
            self._turn(POLL_MS)

    def result(self, peak_rss_mib: float | None, problems: Sequence[str]) -> LoadResult:
        elapsed = (self.last_reply_ns - self.start_ns) / 1e9 if self.start_ns else 0.0
        return LoadResult(
            server=self.server,
            moves=self.moves,
            seconds=elapsed,
            round_trip=Latency.of(self.round_trips),
            delivery=Latency.of(self.deliveries),
            games_started=self.games_started,
            games_ended=self.games_ended,
            ended_events=self.ended_events,
            other_requests=self.other_requests,
            errors=dict(sorted(self.errors.items())),
            events_missing=len(self.move_sent) if self.sub is not None else 0,
            peak_rss_mib=peak_rss_mib,
            problems=(*self.problems, *problems),
        )


# ---------------------------------------------------------------- one measurement


def _measure(
    server: str,
    *,
    label: str,
    command: list[str],
    ready: re.Pattern[bytes],
    log_path: Path,
    config: RefereeBenchConfig,
    scripts: Sequence[Script],
    progress: Progress | None,
) -> LoadResult:
    try:
        process = ServiceProcess(command, ready, log_path, ready_s=SERVER_READY_S, stop_s=STOP_S)
    except (OSError, RuntimeError) as exc:
        problem = f"the {server} server did not start: {exc}"
        return LoadResult(server, 0, 0.0, None, None, 0, 0, 0, 0, {}, 0, None, (problem,))
    endpoint, *rest = process.endpoints
    pub_endpoint = rest[0] if server == "referee" else None
    context: zmq.Context[Any] = zmq.Context()
    load = _Load(
        server,
        label=label,
        endpoint=endpoint,
        pub_endpoint=pub_endpoint,
        config=config,
        scripts=scripts,
        context=context,
        alive=lambda: process.alive,
        progress=progress,
    )
    problems: list[str] = []
    try:
        load.open()
        load.run()
    except zmq.ZMQError as exc:  # e.g. a send that timed out: the figures so far still count
        problems.append(f"socket error against the {server} server: {exc}")
    finally:
        load.close()
        context.term()
        peak = process.peak_rss_mib()
        was_alive = process.alive
        code = process.stop()
        if was_alive and code != 0:
            problems.append(f"the {server} server exited with code {code} on SIGTERM")
        problems.extend(f"{server} log: {line}" for line in process.log_errors())
    return load.result(peak, problems)


def _referee_command(data: Path, durable: bool) -> list[str]:
    command = [
        sys.executable,
        "-m",
        "lanqi.cli.main",
        "referee",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--pub-port",
        "0",
        "--data-dir",
        str(data),
    ]
    return [*command, "--durable"] if durable else command


def _measure_pair(
    config: RefereeBenchConfig,
    scripts: Sequence[Script],
    root: Path,
    progress: Progress | None,
    *,
    paced: bool,
) -> tuple[LoadResult, LoadResult]:
    """The referee (a fresh process on a fresh data directory under ``root``), then
    the raw server, with the same load."""
    say = progress or (lambda line: None)
    suffix = "-paced" if paced else ""

    def measure(server: str, command: list[str], ready: re.Pattern[bytes]) -> LoadResult:
        phase = f" (paced {config.think_ms:g} ms)" if paced else ""
        say(f"{server}{phase}: {config.games} games, {config.seconds:g} s")
        return _measure(
            server,
            label=f"{server} paced" if paced else server,
            command=command,
            ready=ready,
            log_path=root / f"{server}{suffix}.log",
            config=config,
            scripts=scripts,
            progress=progress,
        )

    referee_data = root / f"data{suffix}"
    referee = measure("referee", _referee_command(referee_data, config.durable), READY_REFEREE)
    raw = measure("raw", [sys.executable, "-m", "lanqi.bench.referee", "--raw-server"], READY_RAW)
    return referee, raw


def run_referee_bench(
    config: RefereeBenchConfig | None = None, progress: Progress | None = None
) -> RefereeBenchReport:
    """Measure the referee, then the raw ceiling, with the same load; then, if the run
    saturates and ``paced_think_ms`` is above 0, both again at that pace.  See the
    module doc.

    ``progress`` receives a line about once a second (the CLI prints them on stderr).
    """
    config = config or RefereeBenchConfig()
    say = progress or (lambda line: None)
    pool = min(max(config.games, 8), 32)
    started = time.perf_counter()
    scripts = make_scripts(config.variant, pool, config.seed)
    plies = sum(len(s.moves) for s in scripts)
    say(
        f"{pool} random {config.variant} games computed ({plies / pool:.0f} plies on average, "
        f"{time.perf_counter() - started:.1f} s)"
    )
    with tempfile.TemporaryDirectory(prefix="lanqi-bench-") as tmp:
        root = Path(tmp)
        referee, raw = _measure_pair(config, scripts, root, progress, paced=False)
        store = f"{root / 'data'} ({file_system(root)})"
        paced: tuple[LoadResult, LoadResult] | None = None
        if config.think_ms == 0 and config.paced_think_ms > 0:
            paced_config = replace(config, think_ms=config.paced_think_ms)
            paced = _measure_pair(paced_config, scripts, root, progress, paced=True)
    return RefereeBenchReport(config, referee, raw, store, paced)


# ---------------------------------------------------------------- output


def _ms(value: float) -> str:
    return f"{value:.2f}"


def _verdict(met: bool) -> str:
    return "met" if met else "NOT met"


def _delivery_line(result: LoadResult, phase: str) -> str:
    head = f"move -> moved event at the spectator{phase}: "
    d = result.delivery
    if d is None:
        return head + "-"
    return head + (
        f"p50 {_ms(d.p50_ms)} ms, p99 {_ms(d.p99_ms)} ms, max {_ms(d.max_ms)} ms "
        f"({d.count:,} events, {result.events_missing} missing)"
    )


def _games_line(result: LoadResult, phase: str) -> str:
    return (
        f"games{phase}: {result.games_started} started, {result.games_ended} played to the end "
        f"({result.ended_events} ended events seen); {result.other_requests} create/join "
        "requests during the measurement"
    )


def _rate(result: LoadResult) -> str:
    rate = result.moves_per_second
    return f"{rate:,.0f}" if rate is not None else "-"


def format_report(report: RefereeBenchReport) -> str:
    """The report as plain text: a table of every measurement, then the details."""
    config = report.config
    if config.think_ms:
        shape = (
            f"each table sends its next move {config.think_ms:g} ms (on average) after the last "
            "was accepted"
        )
    elif report.paced is not None:
        shape = (
            "every table's next move always in flight, then paced "
            f"({config.paced_think_ms:g} ms think time)"
        )
    else:
        shape = "every table's next move always in flight"
    cap = f", at most {config.moves_per_game} moves per table" if config.moves_per_game else ""
    sync = "FULL (--durable)" if config.durable else "NORMAL"
    fresh = " (a fresh one for the paced phase)" if report.paced is not None else ""
    lines = [
        f"lanqi bench referee: {config.games} {config.variant} games, {shape}, "
        f"{config.seconds:g} s per measurement{cap}",
        f"referee in its own process{fresh}, store synchronous={sync} in {report.store}",
        "",
    ]
    measured = [("referee", report.referee), ("raw", report.raw)]
    if report.paced is not None:
        measured += [("referee paced", report.paced[0]), ("raw paced", report.paced[1])]
    rows = [["server", "moves", "seconds", "moves/s", "p50 ms", "p90 ms", "p99 ms", "max ms"]]
    for label, result in measured:
        rtt = result.round_trip
        times = (
            [_ms(rtt.p50_ms), _ms(rtt.p90_ms), _ms(rtt.p99_ms), _ms(rtt.max_ms)]
            if rtt is not None
            else ["-"] * 4
        )
        rows.append([label, f"{result.moves:,}", f"{result.seconds:.2f}", _rate(result), *times])
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for n, row in enumerate(rows):
        cells = [
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    lines.append("")
    ref, ratio = report.referee, report.ratio
    lines.append("ratio referee / raw (moves/s): " + (f"{ratio:.2f}" if ratio is not None else "-"))
    pair = report.latency_pair
    if pair is not None:
        think = config.think_ms or config.paced_think_ms
        lines.append(
            f"paced: each table waits {think:g} ms on average after a move is accepted "
            f"(0.5-1.5x, tables out of step): {_rate(pair[0])} moves/s offered"
        )
    lines.append(_delivery_line(ref, ""))
    if report.paced is not None:
        lines.append(_delivery_line(report.paced[0], ", paced"))
    rss = ref.peak_rss_mib
    lines.append("referee peak RSS: " + (f"{rss:.1f} MiB" if rss is not None else "-"))
    lines.append(_games_line(ref, ""))
    if report.paced is not None:
        lines.append(_games_line(report.paced[0], ", paced"))
    for label, result in measured:
        shown = ", ".join(f"{key} x{count}" for key, count in result.errors.items())
        lines.append(f"errors ({label}): {shown or 'none'}")
    for label, result in measured:
        where = " (paced phase)" if label.endswith(" paced") else ""
        lines.extend(f"problem{where}: {p}" for p in result.problems)
    lines.append("")
    target = f"target referee >= {TARGET_RATIO:g} x raw moves/s: "
    if ratio is None:
        lines.append(target + "not measured")
    elif config.think_ms:
        lines.append(target + f"not judged (a paced load sets the rate; {ratio:.2f} x)")
    else:
        lines.append(target + f"{_verdict(ratio >= TARGET_RATIO)} ({ratio:.2f} x)")
    lines.append(_p99_line(report))
    rate = ref.moves_per_second
    if not config.think_ms and rate:
        floor = config.games / rate * 1000
        judged = (
            "so the saturated p99 is not the one judged: the paced referee's is"
            if report.paced is not None
            else "so the saturated p99 is not judged; --paced-think-ms (or --think-ms) "
            "measures latency at a paced load"
        )
        lines.append(
            f"note: with every move in flight, the mean round trip is games / moves per second "
            f"(Little's law): {config.games} / {rate:,.0f} = {floor:.2f} ms here, {judged}"
        )
    return "\n".join(lines)


def _p99_line(report: RefereeBenchReport) -> str:
    """The p99 target's verdict: on the paced referee, the raw server's p99 beside it."""
    target = f"target p99 move round trip < {TARGET_P99_MS:g} ms at {TARGET_GAMES} games: "
    games = report.config.games
    pair = report.latency_pair
    if pair is None:
        rtt = report.referee.round_trip
        seen = f"; saturated p99 {rtt.p99_ms:.2f} ms" if rtt is not None else ""
        return target + f"not judged (no paced load in this run{seen})"
    referee, raw = pair
    rtt = referee.round_trip
    if rtt is None:
        return target + "not measured"
    if games != TARGET_GAMES:
        return target + f"not judged ({games} games in this run; paced p99 {rtt.p99_ms:.2f} ms)"
    raw_rtt = raw.round_trip
    floor = f"{raw_rtt.p99_ms:.2f} ms" if raw_rtt is not None else "-"
    return target + (
        f"{_verdict(rtt.p99_ms < TARGET_P99_MS)} ({rtt.p99_ms:.2f} ms at {_rate(referee)} "
        f"moves/s; raw server at the same pace: {floor})"
    )


# ---------------------------------------------------------------- entry point


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m lanqi.bench.referee --raw-server``: run the raw ceiling server."""
    parser = argparse.ArgumentParser(prog="python -m lanqi.bench.referee")
    parser.add_argument("--raw-server", action="store_true", help="run the raw ROUTER server")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    if not args.raw_server:
        parser.error("nothing to do: pass --raw-server (the benchmark is `lanqi bench referee`)")
    return raw_server(args.host, args.port)


if __name__ == "__main__":
    sys.exit(main())
