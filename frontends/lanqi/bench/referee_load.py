"""The load generator of ``lanqi bench referee``: scripted games played by many
tables at once against one server (the referee or the raw ceiling), each move timed.

See :mod:`lanqi.bench.referee` for the method; this module owns the configuration,
the scripted games (:func:`make_scripts`), the tables and their one poll loop
(:class:`Load`), and the figures of one measurement (:class:`LoadResult`).
"""

from __future__ import annotations

import heapq
import random
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import zmq

from lanqi.games.registry import VARIANTS, create_game
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
from lanqi.security import Link

__all__ = [
    "TARGET_GAMES",
    "TARGET_P99_MS",
    "TARGET_RATIO",
    "Latency",
    "Load",
    "LoadResult",
    "Progress",
    "RefereeBenchConfig",
    "Script",
    "make_scripts",
]

#: The referee should reach at least this fraction of the raw ceiling's moves/s ...
TARGET_RATIO = 0.5
#: ... and answer 99% of moves within this many milliseconds ...
TARGET_P99_MS = 2.0
#: ... with this many games in flight.
TARGET_GAMES = 64

MAX_GAMES = 1000  # two client sockets per game, and as many on the server
#: Every benchmark game gets this clock (long enough that no flag falls in a run).
#: no first-move window: the clocks run from the join, as in tournament games (a
#: table that waits for the others before its first move must not be aborted)
TIME_CONTROL = TimeControl(kind="fischer", base_ms=600_000, increment_ms=5_000, first_move_ms=0)
SCRIPT_MAX_PLIES = 1000  # a random game not over by then is thrown away (never seen)
REPLY_TIMEOUT_S = 10.0  # a request unanswered this long stops the measurement
EVENT_DRAIN_S = 1.0  # after the last reply, wait this long at most for late events
POLL_MS = 100

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
    paced run (``think_ms`` above 0) has no such phase.  ``curve`` measures the
    referee with CURVE too, before its plain run (``--insecure``) and the raw server,
    in each phase: what encryption costs.
    """

    games: int = TARGET_GAMES
    moves_per_game: int | None = None
    seconds: float = 8.0
    variant: str = "xiangqi"
    durable: bool = False
    seed: int = 1
    think_ms: float = 0.0
    paced_think_ms: float = 20.0
    curve: bool = False

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
    ``cpu_seconds``: the server process's CPU time (user + system, every thread)
    from the first move sent to the last reply, when it was measured.
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
    cpu_seconds: float | None = None

    @property
    def moves_per_second(self) -> float | None:
        if self.seconds <= 0 or not self.moves:
            return None
        return self.moves / self.seconds

    @property
    def cpu_us_per_move(self) -> float | None:
        """The server's CPU time per accepted move, in µs (None if not measured)."""
        if self.cpu_seconds is None or not self.moves:
            return None
        return self.cpu_seconds / self.moves * 1e6


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


class Load:
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
        link: Link | None = None,
        server_cpu: Callable[[], float] | None = None,
    ) -> None:
        self.server = server
        self.server_cpu = server_cpu  # the server's CPU seconds so far, if it can be read
        self.cpu_span: list[float] = []  # at the clock's start, then at the last reply
        self.link = link or Link.plain()  # CURVE on every socket when the server has it
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
        self.link.setup(sock)
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
        if self.server_cpu is not None:
            self.cpu_span.append(self.server_cpu())
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
        if self.server_cpu is not None:
            self.cpu_span.append(self.server_cpu())
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
            cpu_seconds=self.cpu_span[1] - self.cpu_span[0] if len(self.cpu_span) == 2 else None,
        )
