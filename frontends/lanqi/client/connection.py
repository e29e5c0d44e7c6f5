"""One process's connection to a lanqi server: every socket, one asyncio loop.

A :class:`Connection` owns one DEALER per service it talks to (the matchmaker, each
referee it learns of) and one SUB per publisher, all on one asyncio loop
(``zmq.asyncio``).  Requests are pending by id (each an ``asyncio.Future``), so any
number are in flight at once and nothing waits for a reply it does not need: a
seat's heartbeats go out from the loop's timer and their answers are only read.

Games are followed by topic (``game/<id>``) the way the ZeroMQ guide's Clone
pattern says (:class:`GameFeed`): subscribe, take a snapshot (``sync``), apply the
events after its ``seq``, and on a gap, an event the fold cannot follow, a late
join or a quiet spell take a fresh snapshot and go on from its ``seq``.  Many games
share one SUB per referee.

**One reconnect policy** (:data:`RECONNECT`): ZeroMQ's own reconnect with capped
back-off, ZMTP heartbeats that close a silent link, and on each link that comes
back: pending idempotent requests (moves name their ply, reads) sent again, seats
joined again, games re-synced, the lobby's ``hello`` said again with its session.
Other pending requests are answered with a local :class:`ErrorReply` of code
:data:`UNREACHABLE` (they may or may not have been done).  A table hears of its
referee's link as :class:`~lanqi.table.port.LinkChanged`.

**Trust** is :func:`lanqi.security.trust_server`'s, as for every lanqi client: the
server's key from a trusted source or its key port, checked against the pins; a
referee the matchmaker names comes with its key.  A changed key or a refused
handshake is a :class:`~lanqi.security.SecurityError` (one line).

The async API, for a program that runs on asyncio (the web gateway)::

    async def play(server: str) -> None:
        async with Connection(server) as conn:
            welcome = await conn.hello("Tiger", kind="bot")
            assigned = await conn.next_push(GameAssigned)        # a private push
            table = await conn.open_table(assigned.game)         # join, snapshot
            if table.state.to_move == table.seat:
                table.send(MoveRequest(game_id=table.game_id, token=table.token,
                                       ply=table.state.ply, move="h2e2"))
            while not table.state.finished:
                await table.wait(1.0)
                for news in table.poll(0):                       # events, answers
                    print(news)

A program without a loop (a frame loop, a command line, a bot runner) starts the
loop in a thread of its own with :class:`BlockingConnection`, whose calls wait for
their answers; tables made through it are read and written from any thread.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import itertools
import logging
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Self, TypeVar

import zmq
import zmq.asyncio
from zmq.utils.monitor import parse_monitor_message

from lanqi import gamestate
from lanqi.protocol import (
    MAX_MESSAGE_BYTES,
    Assignment,
    ErrorReply,
    ExportTournament,
    GameEvent,
    GetServerInfo,
    GetServerKey,
    GetStandings,
    Heartbeat,
    Hello,
    Join,
    ListGames,
    ListLockouts,
    ListPlayers,
    ListSeeks,
    ListTournaments,
    Message,
    MoveRequest,
    Ping,
    PlayerKind,
    ProtocolError,
    RefereeEndpoints,
    Reply,
    Request,
    ResultsSince,
    ServerInfo,
    Snapshot,
    Sync,
    Welcome,
    decode_payload,
    encode,
)
from lanqi.protocol.endpoints import game_topic, reachable
from lanqi.security import (
    HandshakeRefused,
    KnownServers,
    Link,
    trust_server,
)
from lanqi.security.curve import confirm, refusal
from lanqi.table.port import Answered, LinkChanged
from lanqi.table.remote import UNREACHABLE, RemoteTable

__all__ = [
    "RECONNECT",
    "UNREACHABLE",
    "BlockingConnection",
    "Connection",
    "GameFeed",
    "NoAnswer",
    "Reconnect",
    "Refused",
    "Service",
    "process_connection",
]

log = logging.getLogger(__name__)

R = TypeVar("R", bound=Message)
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Reconnect:
    """The one reconnect policy of every lanqi client, in seconds.

    ``first``/``most``: ZeroMQ's reconnect interval, doubled after each failed try
    up to ``most``.  ``beat``/``dead``: ZMTP heartbeats on every socket; a link
    silent for ``dead`` is closed and reconnected.  ``seat_beat``: a seat's
    ``heartbeat`` to its referee (unless another seat request went out meanwhile);
    ``ping``: the lobby's ``ping`` to the matchmaker.  ``quiet``: a game with no
    event for this long is re-synced (a lost last event cannot leave a view
    behind).  ``reply``: how long a blocking call waits for its answer."""

    first: float = 0.5
    most: float = 8.0
    beat: float = 1.0
    dead: float = 3.0
    seat_beat: float = 1.0
    ping: float = 3.0
    quiet: float = 2.0
    reply: float = 5.0


RECONNECT = Reconnect()
#: how often the loop's timer looks at heartbeats, quiet games and silent links
TICK_S = 0.05
#: requests sent again on a link that comes back (a retried move names its ply)
IDEMPOTENT: tuple[type[Request], ...] = (
    MoveRequest,
    Sync,
    Join,
    Heartbeat,
    Ping,
    ListGames,
    ResultsSince,
    GetServerInfo,
    GetServerKey,
    ListPlayers,
    ListSeeks,
    ListTournaments,
    GetStandings,
    ExportTournament,
    ListLockouts,
)


class NoAnswer(TimeoutError):  # noqa: N818 - reads as what happened
    """No answer to a request in time (the server is away, or slow)."""


class Refused(Exception):  # noqa: N818 - reads as what happened
    """A service answered with an error reply; ``code`` is stable."""

    def __init__(self, code: str, msg: str) -> None:
        super().__init__(f"{code}: {msg}")
        self.code = code
        self.msg = msg


def checked(reply: Message, expect: type[R]) -> R:
    """``reply`` if it is an ``expect``; an error reply (or another type) raises
    :class:`Refused`."""
    if isinstance(reply, ErrorReply):
        raise Refused(reply.code, reply.msg)
    if not isinstance(reply, expect):
        raise Refused("unexpected_reply", f"expected {expect.T!r}, got {reply.T!r}")
    return reply


def _prepare(socket: zmq.Socket[Any], link: Link, policy: Reconnect) -> None:
    socket.setsockopt(zmq.LINGER, 0)
    socket.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)
    socket.setsockopt(zmq.RECONNECT_IVL, round(policy.first * 1000))
    socket.setsockopt(zmq.RECONNECT_IVL_MAX, round(policy.most * 1000))
    socket.setsockopt(zmq.HEARTBEAT_IVL, round(policy.beat * 1000))
    socket.setsockopt(zmq.HEARTBEAT_TIMEOUT, round(policy.dead * 1000))
    socket.setsockopt(zmq.HEARTBEAT_TTL, round(policy.dead * 1000))
    link.setup(socket)


_MONITORED = (
    zmq.EVENT_HANDSHAKE_SUCCEEDED
    | zmq.EVENT_DISCONNECTED
    | zmq.EVENT_CONNECT_RETRIED
    | zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL
    | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL
    | zmq.EVENT_HANDSHAKE_FAILED_AUTH
)
_FAILED = (
    zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL
    | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL
    | zmq.EVENT_HANDSHAKE_FAILED_AUTH
)


class _Watched:
    """A socket's link as its monitor tells it: up/down, since when, next try.

    A handshake the server refuses (a certain refusal, or an ambiguous one the key
    port confirms) is kept in :attr:`refused` and raised by :meth:`check`."""

    def __init__(self, conn: Connection, socket: zmq.asyncio.Socket, endpoint: str, link: Link):
        self.conn = conn
        self.socket = socket
        self.endpoint = endpoint
        self.link = link
        self.up = False
        self.ever_up = False
        self.since = time.monotonic()
        self.retry_at: float | None = None
        self.refused: str | None = None
        self._next_confirm = 0.0
        self.monitor: zmq.asyncio.Socket = socket.get_monitor_socket(_MONITORED)
        self.task = conn._spawn(self._watch())

    def check(self) -> None:
        if self.refused is not None:
            raise HandshakeRefused(self.refused)

    async def _watch(self) -> None:
        while True:
            frames = await self.monitor.recv_multipart()
            event = parse_monitor_message(frames)
            kind, value = int(event["event"]), int(event["value"])
            now = time.monotonic()
            if kind == zmq.EVENT_HANDSHAKE_SUCCEEDED:
                again = self.ever_up
                self.up, self.ever_up, self.since, self.retry_at = True, True, now, None
                self.on_up(again=again)
            elif kind == zmq.EVENT_DISCONNECTED:
                if self.up:
                    self.up, self.since = False, now
                    self.retry_at = now + self.conn.policy.first
                    self.on_down()
            elif kind == zmq.EVENT_CONNECT_RETRIED:
                self.retry_at = now + value / 1000
                if self.ever_up:
                    self.on_down()
            elif kind & _FAILED:
                await self._failed(kind, value)

    async def _failed(self, kind: int, value: int) -> None:
        why = refusal(self.endpoint, self.link, kind, value)
        if why is None and time.monotonic() >= self._next_confirm:
            self._next_confirm = time.monotonic() + 2.0
            why = await asyncio.to_thread(confirm, self.endpoint, self.link, self.conn.sync_context)
        if why is not None:
            log.error("%s", why)
            self.refused = why
            self.on_refused(why)

    def on_up(self, *, again: bool) -> None:
        """The link is up (``again``: after it was lost)."""

    def on_down(self) -> None:
        """The link went down, or another try to bring it up failed."""

    def on_refused(self, why: str) -> None:
        """The server refused the handshake: nothing will get through."""

    def close(self) -> None:
        self.task.cancel()
        self.socket.disable_monitor()
        self.monitor.close(linger=0)


@dataclass(slots=True)
class _Pending:
    request: Request
    future: asyncio.Future[Reply]
    sent_at: float


class Service(_Watched):
    """One DEALER to one service; requests pending by id.

    Private pushes (replies with no ``re``: ``game_assigned``, a challenge) go to
    ``on_push``."""

    def __init__(self, conn: Connection, endpoint: str, link: Link, kind: str) -> None:
        socket = conn.context.socket(zmq.DEALER)
        _prepare(socket, link, conn.policy)
        socket.setsockopt(zmq.IDENTITY, b"lanqi-" + secrets.token_hex(8).encode("ascii"))
        super().__init__(conn, socket, endpoint, link)
        #: ``matchmaker`` or ``referee``
        self.kind = kind
        self.pending: dict[int, _Pending] = {}
        self.on_push: Callable[[Message], None] | None = None
        #: called with the service when its link comes back after it was lost
        self.on_back: list[Callable[[Service], None]] = []
        #: called with the service's link state when it changes
        self.on_link: list[Callable[[bool, float, float | None], None]] = []
        self.last_heard = 0.0
        socket.connect(endpoint)
        self.reader = conn._spawn(self._read())

    def send(self, request: Request, *, keep_id: bool = False) -> tuple[int, asyncio.Future[Reply]]:
        """Send ``request`` with the connection's next id (``keep_id``: with its own);
        its reply comes to the future (a refused handshake: its exception)."""
        if not keep_id:
            request = dataclasses.replace(request, id=next(self.conn._ids))
        request_id = request.id
        future: asyncio.Future[Reply] = self.conn.loop.create_future()
        self.pending[request_id] = _Pending(request, future, time.monotonic())
        if self.refused is not None:
            future.set_exception(HandshakeRefused(self.refused))
            del self.pending[request_id]
            return request_id, future
        self.socket.send_multipart(encode(request))
        return request_id, future

    async def request(self, request: Request, timeout: float | None = None) -> Reply:
        """Send ``request`` and wait for its reply (``timeout`` seconds: :class:`NoAnswer`)."""
        request_id, future = self.send(request)
        wait = self.conn.policy.reply if timeout is None else timeout
        try:
            return await asyncio.wait_for(asyncio.shield(future), wait)
        except TimeoutError:
            self.pending.pop(request_id, None)
            future.cancel()
            self.check()
            raise NoAnswer(f"no answer to {request.T} from {self.endpoint}") from None

    async def _read(self) -> None:
        while True:
            frames = await self.socket.recv_multipart()
            self.last_heard = time.monotonic()
            try:
                message = decode_payload(frames[-1])
            except ProtocolError as exc:
                log.warning("%s: ignoring an undecodable reply: %s", self.endpoint, exc.msg)
                continue
            re = getattr(message, "re", None)
            if re is None:
                if self.on_push is not None:
                    self.on_push(message)
                else:
                    log.debug("%s: ignoring push %r", self.endpoint, message)
                continue
            pending = self.pending.pop(re, None)
            if pending is None:
                log.debug("%s: a reply nobody waits for: %r", self.endpoint, message)
            elif not pending.future.done():
                assert isinstance(message, Reply)
                pending.future.set_result(message)

    def on_up(self, *, again: bool) -> None:
        self._tell(True)
        if not again:
            return
        log.info("%s is back", self.endpoint)
        for request_id, pending in list(self.pending.items()):
            if isinstance(pending.request, IDEMPOTENT):
                self.socket.send_multipart(encode(pending.request))
            else:  # it may or may not have been done: say so, do not repeat it
                del self.pending[request_id]
                if not pending.future.done():
                    pending.future.set_result(self._unreachable(pending.request))
        for back in list(self.on_back):
            back(self)

    def _unreachable(self, request: Request) -> ErrorReply:
        return ErrorReply(
            re=request.id,
            code=UNREACHABLE,
            msg=f"the link to {self.endpoint} was lost before an answer came: send it again",
        )

    def on_down(self) -> None:
        self._tell(False)

    def on_refused(self, why: str) -> None:
        for pending in self.pending.values():
            if not pending.future.done():
                pending.future.set_exception(HandshakeRefused(why))
        self.pending.clear()
        self._tell(False)

    def _tell(self, up: bool) -> None:
        for listener in list(self.on_link):
            listener(up, self.since, self.retry_at)

    def close(self) -> None:
        self.reader.cancel()
        super().close()
        for pending in self.pending.values():
            pending.future.cancel()
        self.pending.clear()
        self.socket.close(linger=0)


class Publisher(_Watched):
    """One SUB on one publisher; each message goes to the listeners of its topic."""

    def __init__(self, conn: Connection, endpoint: str, link: Link) -> None:
        socket = conn.context.socket(zmq.SUB)
        _prepare(socket, link, conn.policy)
        # no receive limit: a subscriber that falls a high-water mark behind (a lobby's
        # burst of presence on a busy machine) stops reading its TCP link, misses its
        # ZMTP heartbeats' answers, and libzmq 4.3.5 then aborts the process
        # (``_input_stopped``, stream_engine_base.cpp); the publisher's send limit
        # still bounds what waits for a slow reader
        socket.setsockopt(zmq.RCVHWM, 0)
        super().__init__(conn, socket, endpoint, link)
        self.listeners: dict[str, list[Callable[[Message], None]]] = {}
        self.ready = asyncio.Event()
        socket.connect(endpoint)
        self.reader = conn._spawn(self._read())

    def listen(self, topic: str, listener: Callable[[Message], None]) -> None:
        if topic not in self.listeners:
            self.listeners[topic] = []
            self.socket.setsockopt(zmq.SUBSCRIBE, topic.encode("utf-8"))
        self.listeners[topic].append(listener)

    def unlisten(self, topic: str, listener: Callable[[Message], None]) -> None:
        listeners = self.listeners.get(topic, [])
        if listener in listeners:
            listeners.remove(listener)
        if not listeners and topic in self.listeners:
            del self.listeners[topic]
            self.socket.setsockopt(zmq.UNSUBSCRIBE, topic.encode("utf-8"))

    async def _read(self) -> None:
        while True:
            frames = await self.socket.recv_multipart()
            if len(frames) != 2:
                continue
            topic = frames[0].decode("utf-8", "replace")
            listeners = self.listeners.get(topic)
            if not listeners:
                continue
            try:
                message = decode_payload(frames[1])
            except ProtocolError as exc:
                log.warning("%s: ignoring an undecodable broadcast: %s", self.endpoint, exc.msg)
                continue
            for listener in list(listeners):
                listener(message)

    def on_up(self, *, again: bool) -> None:
        self.ready.set()

    def close(self) -> None:
        self.reader.cancel()
        super().close()
        self.socket.close(linger=0)


FeedListener = Callable[["GameEvent | tuple[Sync, Snapshot]", gamestate.GameState], None]


class GameFeed:
    """One game followed on one referee by the Clone pattern; tables listen to it.

    ``state`` is None until the first snapshot.  Each event applied, and each
    snapshot taken, is told to the listeners with the state after it."""

    def __init__(self, conn: Connection, game_id: str, referee: Service, events: Publisher):
        self.conn = conn
        self.game_id = game_id
        self.referee = referee
        self.events = events
        self.state: gamestate.GameState | None = None
        #: the latest snapshot taken
        self.snapshot: Snapshot | None = None
        self.listeners: list[FeedListener] = []
        #: events that came before the first snapshot, or during a resync
        self._early: list[GameEvent] = []
        self._syncing = False
        self.resyncs = 0
        self.last_event = time.monotonic()
        #: how long a quiet game is trusted before a snapshot (None: the policy's)
        self.quiet: float | None = None
        self.first = conn.loop.create_future()
        self.topic = game_topic(game_id)
        events.listen(self.topic, self._on_message)
        referee.on_back.append(self._on_back)

    async def start(self) -> None:
        """Wait (a little) for the subscription to be live, then take a snapshot."""
        try:
            await asyncio.wait_for(self.events.ready.wait(), self.conn.policy.reply)
        except TimeoutError:
            log.debug("%s: no event link yet; a snapshot anyway", self.game_id)
        self.resync()

    def _on_back(self, _service: Service) -> None:
        self.resync()

    def resync(self) -> None:
        """Ask for a snapshot (one at a time); the events meanwhile are kept."""
        if self._syncing:
            return
        self._syncing = True
        self.resyncs += 1
        request = Sync(id=next(self.conn._ids), game_id=self.game_id)
        _, future = self.referee.send(request, keep_id=True)
        future.add_done_callback(lambda f: self._synced(request, f))

    def _synced(self, request: Sync, future: asyncio.Future[Reply]) -> None:
        self._syncing = False
        self.last_event = time.monotonic()
        if future.cancelled() or future.exception() is not None:
            return
        reply = future.result()
        if isinstance(reply, Snapshot):
            self.take(request, reply)
        elif isinstance(reply, ErrorReply) and not self.first.done():
            self.first.set_result(reply)

    def take(
        self, request: Sync | Join, snapshot: Snapshot, *, asker: FeedListener | None = None
    ) -> bool:
        """Start again from ``snapshot`` unless it is older than the state; then
        the events kept meanwhile that follow it.  The listeners hear of it (but
        ``asker``, which hears its own answer)."""
        if snapshot.game_id != self.game_id:
            return False
        if self.state is not None and snapshot.seq < self.state.seq:
            return False
        self.state = gamestate.from_snapshot(snapshot)
        self.snapshot = snapshot
        sync = request if isinstance(request, Sync) else Sync(id=request.id, game_id=self.game_id)
        for listener in list(self.listeners):
            if listener != asker:
                listener((sync, snapshot), self.state)
        if not self.first.done():
            self.first.set_result(snapshot)
        early, self._early = self._early, []
        for event in sorted(early, key=lambda e: e.seq):
            self._apply(event)
        return True

    def _on_message(self, message: Message) -> None:
        if isinstance(message, GameEvent) and message.game_id == self.game_id:
            self.last_event = time.monotonic()
            self._apply(message)

    def _apply(self, event: GameEvent) -> None:
        if self.state is None or self._syncing:
            self._early.append(event)
            return
        if event.seq <= self.state.seq:
            return
        try:
            self.state = gamestate.apply(self.state, event)
        except gamestate.CannotFollow as exc:
            log.debug("game %s: %s; taking a snapshot", self.game_id, exc)
            self._early.append(event)
            self.resync()
            return
        for listener in list(self.listeners):
            listener(event, self.state)

    def tick(self, now: float) -> None:
        quiet = self.quiet if self.quiet is not None else self.conn.policy.quiet
        if self.referee.up and now - self.last_event > quiet and not self._syncing:
            self.last_event = now
            self.resync()

    def close(self) -> None:
        self.events.unlisten(self.topic, self._on_message)
        if self._on_back in self.referee.on_back:
            self.referee.on_back.remove(self._on_back)


@dataclass(slots=True)
class _Seat:
    """A seat this process holds: joined again when its referee comes back and
    heartbeated (unless a seat request went out meanwhile)."""

    game_id: str
    seat: int
    token: str
    referee: Service
    last_sent: float = 0.0


@dataclass(slots=True)
class _Box:
    """A thread-safe mailbox: the lobby's pushes and broadcasts, the links' news."""

    items: deque[object] = field(default_factory=deque)
    wake: threading.Event = field(default_factory=threading.Event)
    waiters: list[asyncio.Future[None]] = field(default_factory=list)

    def put(self, item: object) -> None:
        self.items.append(item)
        self.wake.set()
        for waiter in self.waiters:
            if not waiter.done():
                waiter.get_loop().call_soon_threadsafe(_resolve, waiter)
        self.waiters.clear()

    def take(self) -> list[object]:
        self.wake.clear()
        items: list[object] = []
        while self.items:
            items.append(self.items.popleft())
        return items


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class Connection:
    """Every socket of a process to one server, on one asyncio loop (see the module).

    ``matchmaker``: the server's front door (None: referees only, named per table).
    ``key``: the matchmaker's key from elsewhere (mDNS, a flag); ``known``: the pins
    (the data directory's by default); ``events``: the matchmaker's event endpoint
    (default: the one it names).  Create it inside the loop it is to run on."""

    def __init__(
        self,
        matchmaker: str | None = None,
        *,
        events: str | None = None,
        key: str | None = None,
        known: KnownServers | None = None,
        link: Link | None = None,
        context: zmq.asyncio.Context | None = None,
        policy: Reconnect = RECONNECT,
    ) -> None:
        self.loop = asyncio.get_running_loop()
        self.context = context or zmq.asyncio.Context.instance()
        #: a blocking twin of the context, for the key port (asked in a worker thread)
        self.sync_context: zmq.Context[Any] = zmq.Context.shadow(self.context.underlying)
        self.policy = policy
        self.known = known
        self.matchmaker_endpoint = matchmaker
        self._events_endpoint = events
        self._key = key
        self._link = link
        self._ids = itertools.count(1)
        self._tasks: set[asyncio.Task[Any]] = set()
        self.services: dict[str, Service] = {}
        self.publishers: dict[str, Publisher] = {}
        #: (referee, events, game id) -> the game's feed
        self.feeds: dict[tuple[str, str, str], GameFeed] = {}
        self.seats: dict[tuple[str, str], _Seat] = {}
        #: the lobby's private pushes, broadcasts on its topics, its welcomes again
        self.inbox = _Box()
        self.welcome: Welcome | None = None
        self._hello: Hello | None = None
        self._info: ServerInfo | None = None
        self._last_ping = 0.0
        self._closed = False
        self._ticker = self._spawn(self._tick())

    # ------------------------------------------------------------ lifetime

    def _spawn(self, coro: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        task = self.loop.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("connection task failed", exc_info=task.exception())

    async def close(self) -> None:
        """Close every socket at once (linger 0)."""
        if self._closed:
            return
        self._closed = True
        for feed in self.feeds.values():
            feed.close()
        for service in self.services.values():
            service.close()
        for publisher in self.publishers.values():
            publisher.close()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self.services.clear()
        self.publishers.clear()
        self.feeds.clear()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # ------------------------------------------------------------ sockets

    async def trust(self, endpoint: str, key: str | None = None) -> Link:
        """How to reach ``endpoint`` (:func:`~lanqi.security.trust_server`, in a worker
        thread: it may ask the key port)."""
        known = self.known if self.known is not None else KnownServers.of()
        return await asyncio.to_thread(
            trust_server, endpoint, known=known, key=key, context=self.sync_context
        )

    async def service(
        self, endpoint: str, *, key: str | None = None, link: Link | None = None
    ) -> Service:
        """The DEALER to ``endpoint`` (made on first use)."""
        found = self.services.get(endpoint)
        if found is not None:
            return found
        if link is None:
            link = Link.to(key) if key else await self.trust(endpoint)
        found = self.services.get(endpoint)  # made while the key was asked
        if found is not None:
            return found
        kind = "matchmaker" if endpoint == self.matchmaker_endpoint else "referee"
        service = Service(self, endpoint, link, kind)
        self.services[endpoint] = service
        return service

    def publisher(self, endpoint: str, link: Link) -> Publisher:
        """The SUB on ``endpoint`` (made on first use)."""
        found = self.publishers.get(endpoint)
        if found is None:
            found = self.publishers[endpoint] = Publisher(self, endpoint, link)
        return found

    async def request(self, endpoint: str, message: Request, timeout: float | None = None) -> Reply:
        """Send ``message`` to the service at ``endpoint`` and wait for its reply."""
        return await (await self.service(endpoint)).request(message, timeout)

    # ------------------------------------------------------------ the matchmaker half

    async def matchmaker(self) -> Service:
        """The DEALER to the matchmaker (its key trusted as every client trusts it)."""
        if self.matchmaker_endpoint is None:
            raise ValueError("this connection names no matchmaker")
        service = self.services.get(self.matchmaker_endpoint)
        if service is not None:
            return service
        if self._link is None:
            known = self.known if self.known is not None else KnownServers.of()
            self._link = await asyncio.to_thread(
                trust_server,
                self.matchmaker_endpoint,
                known=known,
                key=self._key,
                context=self.sync_context,
                timeout_ms=round(self.policy.reply * 1000),
            )
        service = await self.service(self.matchmaker_endpoint, link=self._link)
        service.on_push = self.inbox.put
        service.on_back.append(self._matchmaker_back)
        service.on_link.append(self._matchmaker_link)
        return service

    @property
    def link(self) -> Link | None:
        """How the matchmaker is reached, once known."""
        return self._link

    async def matchmaker_link(self) -> Link:
        """How the matchmaker is reached (its key asked and checked on first use)."""
        await self.matchmaker()
        assert self._link is not None
        return self._link

    async def call(self, message: Request, expect: type[R], timeout: float | None = None) -> R:
        """A request to the matchmaker; an error reply raises :class:`Refused`."""
        service = await self.matchmaker()
        return checked(await service.request(message, timeout), expect)

    async def hello(
        self,
        name: str,
        *,
        kind: str = "human",
        session: str | None = None,
        claim: str | None = None,
        variants: list[str] | None = None,
        engine: str | None = None,
    ) -> Welcome:
        """Enter the lobby; said again, with the session, whenever the link comes back
        (the new :class:`Welcome` goes to the inbox).  Raises :class:`Refused`."""
        who: PlayerKind = "bot" if kind == "bot" else "human"
        hello = Hello(name=name, kind=who, session=session, claim=claim, engine=engine)
        if variants is not None:
            hello = dataclasses.replace(hello, variants=list(variants))
        welcome = await self.call(hello, Welcome)
        self.welcomed(hello, welcome)
        return welcome

    def welcomed(self, hello: Hello, welcome: Welcome) -> None:
        """``hello`` was answered with ``welcome``: said again, with its session,
        whenever the link comes back."""
        self.welcome = welcome
        self._hello = dataclasses.replace(hello, session=welcome.session, claim=None)

    def _matchmaker_back(self, service: Service) -> None:
        if self._hello is None:
            return
        hello = self._hello
        _, future = service.send(hello)

        def welcomed(future: asyncio.Future[Reply]) -> None:
            if future.cancelled() or future.exception() is not None:
                return
            reply = future.result()
            if isinstance(reply, Welcome):
                self.welcomed(hello, reply)
            self.inbox.put(reply)

        future.add_done_callback(welcomed)

    def _matchmaker_link(self, up: bool, since: float, retry_at: float | None) -> None:
        self.inbox.put(LinkChanged(up, since, retry_at))

    async def post(self, message: Request, *, welcome: bool = False) -> None:
        """Send ``message`` to the matchmaker without waiting: its answer goes to the
        inbox as an :class:`~lanqi.table.port.Answered` (a ``hello`` with ``welcome``:
        the :class:`Welcome`, taken as :meth:`welcomed` does, or its refusal)."""
        service = await self.matchmaker()
        request_id, future = service.send(message)
        request = dataclasses.replace(message, id=request_id)

        def answered(future: asyncio.Future[Reply]) -> None:
            if future.cancelled() or future.exception() is not None:
                return
            reply = future.result()
            if welcome and isinstance(request, Hello):
                if isinstance(reply, Welcome):
                    self.welcomed(request, reply)
                self.inbox.put(reply)
            else:
                self.inbox.put(Answered(request, reply))

        future.add_done_callback(answered)

    async def server_info(self) -> ServerInfo:
        """Where the matchmaker publishes and where its referees are, as this process
        reaches them (a wildcard or loopback host becomes the matchmaker's)."""
        if self._info is None:
            info = await self.call(GetServerInfo(), ServerInfo)
            here = self.matchmaker_endpoint or ""
            self._info = ServerInfo(
                re=info.re,
                events=reachable(info.events, here),
                referees=[
                    RefereeEndpoints(
                        endpoint=reachable(r.endpoint, here),
                        events=reachable(r.events, here),
                        key=r.key,
                    )
                    for r in info.referees
                ],
            )
        return self._info

    async def subscribe(self, topic: str) -> None:
        """Follow ``topic`` on the matchmaker's publisher (``lobby``, ``tour/<id>``): its
        messages go to the inbox."""
        await self.matchmaker()
        events = self._events_endpoint or (await self.server_info()).events
        assert self._link is not None
        publisher = self.publisher(events, self._link)
        if self.inbox.put not in publisher.listeners.get(topic, []):
            publisher.listen(topic, self.inbox.put)

    async def next_push(self, kind: type[R], timeout: float | None = None) -> R:
        """Wait for the next inbox item of type ``kind`` (others are dropped)."""
        deadline = time.monotonic() + (self.policy.reply if timeout is None else timeout)
        while True:
            for item in self.inbox.take():
                if isinstance(item, kind):
                    return item
            left = deadline - time.monotonic()
            if left <= 0:
                raise NoAnswer(f"no {kind.T} in time")
            await self.inbox_wait(left)

    async def inbox_wait(self, timeout: float | None = None) -> None:
        """Return when the inbox has something (or after ``timeout`` seconds)."""
        if self.inbox.items:
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.inbox.waiters.append(future)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(future, timeout)

    # ------------------------------------------------------------ games

    async def feed(
        self, game_id: str, referee: str, events: str, *, key: str | None = None
    ) -> GameFeed:
        """Follow ``game_id`` on the referee at ``referee``/``events`` (one feed a game)."""
        found = self.feeds.get((referee, events, game_id))
        if found is not None:
            return found
        service = await self.service(referee, key=key)
        publisher = self.publisher(events, service.link)
        found = self.feeds.get((referee, events, game_id))
        if found is not None:
            return found
        feed = GameFeed(self, game_id, service, publisher)
        self.feeds[(referee, events, game_id)] = feed
        await feed.start()
        return feed

    def hold_seat(self, game_id: str, seat: int, token: str, referee: Service) -> _Seat:
        """Heartbeat this seat from now on and join it again when the referee is back."""
        held = self.seats.get((referee.endpoint, game_id))
        if held is None:
            held = _Seat(game_id, seat, token, referee, time.monotonic())
            self.seats[(referee.endpoint, game_id)] = held
            referee.on_back.append(lambda service: self._rejoin(held))
        return held

    def _rejoin(self, held: _Seat) -> None:
        if (held.referee.endpoint, held.game_id) not in self.seats:
            return
        request = Join(id=next(self._ids), game_id=held.game_id, seat=held.seat, token=held.token)
        _, future = held.referee.send(request, keep_id=True)
        held.last_sent = time.monotonic()
        feeds = [f for f in self.feeds.values() if f.referee is held.referee]
        feed = next((f for f in feeds if f.game_id == held.game_id), None)

        def joined(future: asyncio.Future[Reply]) -> None:
            if future.cancelled() or future.exception() is not None:
                return
            reply = future.result()
            if feed is not None and isinstance(reply, Snapshot):
                feed.take(request, reply)

        future.add_done_callback(joined)

    def release_seat(self, game_id: str, referee: Service) -> None:
        self.seats.pop((referee.endpoint, game_id), None)

    def release_feed(self, feed: GameFeed) -> None:
        """Stop following a game nobody listens to any more; close a referee's sockets
        once no game is followed or held there."""
        if feed.listeners:
            return
        feed.close()
        self.feeds.pop((feed.referee.endpoint, feed.events.endpoint, feed.game_id), None)
        service, publisher = feed.referee, feed.events
        used = {f.referee for f in self.feeds.values()} | {h.referee for h in self.seats.values()}
        if service.kind == "referee" and service not in used:
            self.services.pop(service.endpoint, None)
            service.close()
        if not publisher.listeners and publisher.endpoint != self._events_endpoint:
            self.publishers.pop(publisher.endpoint, None)
            publisher.close()

    async def open_table(
        self,
        assignment: Assignment | None = None,
        *,
        game_id: str | None = None,
        referee: str | None = None,
        events: str | None = None,
        key: str | None = None,
        seat: int | None = None,
        token: str | None = None,
    ) -> RemoteTable:
        """A :class:`~lanqi.table.remote.RemoteTable` on a game: an assignment's seat,
        or ``game_id`` on ``referee``/``events`` (with ``seat``/``token`` to play, without
        to watch).  Returns once the first snapshot is in; a refused join or sync
        raises :class:`Refused`."""
        if assignment is not None:
            game_id, referee, events = (
                assignment.game_id,
                assignment.referee,
                assignment.referee_pub,
            )
            key, seat, token = assignment.referee_key, assignment.seat, assignment.token
        if game_id is None or referee is None or events is None:
            raise ValueError("open_table needs an assignment, or game_id, referee and events")
        if self.matchmaker_endpoint is not None:
            referee, events = (
                reachable(referee, self.matchmaker_endpoint),
                reachable(events, self.matchmaker_endpoint),
            )
        feed = await self.feed(game_id, referee, events, key=key)
        table = RemoteTable(self, feed, seat if token else None, token)
        try:
            if table.seat is not None and token is not None:
                join = Join(game_id=game_id, seat=table.seat, token=token)
                reply = await feed.referee.request(join)
                if isinstance(reply, ErrorReply):
                    raise Refused(reply.code, reply.msg)
                if isinstance(reply, Snapshot):
                    feed.take(join, reply)
                self.hold_seat(game_id, table.seat, token, feed.referee)
            try:
                first = await asyncio.wait_for(asyncio.shield(feed.first), self.policy.reply)
            except TimeoutError:
                raise NoAnswer(f"no snapshot of game {game_id} from {referee}") from None
            if isinstance(first, ErrorReply):
                raise Refused(first.code, first.msg)
        except BaseException:
            table.close()
            raise
        table.start()
        return table

    # ------------------------------------------------------------ the timer

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(TICK_S)
            try:
                self._on_tick(time.monotonic())
            except Exception:  # a timer that dies would stop every heartbeat
                log.exception("connection timer")

    def _on_tick(self, now: float) -> None:
        for feed in list(self.feeds.values()):
            feed.tick(now)
        for held in list(self.seats.values()):
            over = any(
                f.game_id == held.game_id and f.state is not None and f.state.finished
                for f in self.feeds.values()
                if f.referee is held.referee
            )
            if over or not held.referee.up:
                continue
            if now - held.last_sent >= self.policy.seat_beat:
                held.last_sent = now
                held.referee.send(Heartbeat(game_id=held.game_id, token=held.token))
        matchmaker = self.services.get(self.matchmaker_endpoint or "")
        if (
            matchmaker is not None
            and self.welcome is not None
            and matchmaker.up
            and now - self._last_ping >= self.policy.ping
        ):
            self._last_ping = now
            _, future = matchmaker.send(Ping())
            future.add_done_callback(lambda f: self._pinged(matchmaker, f))

    def _pinged(self, matchmaker: Service, future: asyncio.Future[Reply]) -> None:
        """A ping the matchmaker answers ``no_session``: it no longer knows this
        connection's player (a restart, the session reclaimed): hello again; its
        answer (a welcome, or why not) goes to the inbox."""
        if future.cancelled() or future.exception() is not None:
            return
        reply = future.result()
        if isinstance(reply, ErrorReply) and reply.code == "no_session":
            self._matchmaker_back(matchmaker)

    def seat_sent(self, referee: Service, game_id: str) -> None:
        """A seat request went out: it counts as the seat's heartbeat."""
        held = self.seats.get((referee.endpoint, game_id))
        if held is not None:
            held.last_sent = time.monotonic()


# ================================================================ without a loop


class BlockingConnection:
    """A :class:`Connection` on a loop in a thread of its own, for code without a
    loop: each call waits for its answer (at most ``timeout`` seconds, then
    :class:`NoAnswer`); tables are read and written from any thread."""

    def __init__(
        self,
        matchmaker: str | None = None,
        *,
        events: str | None = None,
        key: str | None = None,
        known: KnownServers | None = None,
        link: Link | None = None,
        policy: Reconnect = RECONNECT,
        name: str = "lanqi-connection",
    ) -> None:
        self.policy = policy
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()
        self.connection: Connection = self.run(
            self._make(matchmaker, events=events, key=key, known=known, link=link, policy=policy)
        )

    @staticmethod
    async def _make(matchmaker: str | None, **kwargs: Any) -> Connection:
        return Connection(matchmaker, **kwargs)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Run ``coro`` on the connection's loop; its future, at once."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run ``coro`` on the connection's loop and wait for its result."""
        wait = self.policy.reply + 1 if timeout is None else timeout
        future = self.submit(coro)
        try:
            return future.result(wait)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise NoAnswer("no answer in time") from None

    def later(self, fn: Callable[[], object]) -> None:
        """Call ``fn`` on the connection's loop soon (from any thread)."""
        self.loop.call_soon_threadsafe(fn)

    def close(self) -> None:
        if self.loop.is_closed():
            return
        if self._thread.is_alive():
            try:
                self.run(self.connection.close(), timeout=5)
            except NoAnswer:
                log.warning("the connection did not close in time")
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(5)
        if not self._thread.is_alive():
            self.loop.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ the matchmaker half

    def call(self, message: Request, expect: type[R], timeout: float | None = None) -> R:
        """A request to the matchmaker; an error reply raises :class:`Refused`."""
        return self.run(self.connection.call(message, expect, timeout), self._wait(timeout))

    def request(self, message: Request, timeout: float | None = None) -> Reply:
        """A request to the matchmaker; its reply, error replies included."""

        async def ask() -> Reply:
            return await (await self.connection.matchmaker()).request(message, timeout)

        return self.run(ask(), self._wait(timeout))

    def post(self, message: Request, *, welcome: bool = False) -> None:
        """Send ``message`` to the matchmaker; its answer comes to the inbox
        (:meth:`Connection.post`).  Never waits for the server."""
        self.submit(self.connection.post(message, welcome=welcome))

    def hello(self, name: str, **fields: Any) -> Welcome:
        return self.run(self.connection.hello(name, **fields))

    def server_info(self) -> ServerInfo:
        return self.run(self.connection.server_info())

    def subscribe(self, topic: str) -> None:
        self.run(self.connection.subscribe(topic))

    def inbox(self, timeout: float = 0.0) -> list[object]:
        """The inbox's items (waiting up to ``timeout`` seconds for the first)."""
        box = self.connection.inbox
        if not box.items and timeout > 0:
            box.wake.wait(timeout)
        return box.take()

    # ------------------------------------------------------------ referees

    def referee_request(
        self,
        endpoint: str,
        message: Request,
        *,
        key: str | None = None,
        timeout: float | None = None,
    ) -> Reply:
        """A request to the referee at ``endpoint``; its reply, error replies included."""

        async def ask() -> Reply:
            return await (await self.connection.service(endpoint, key=key)).request(
                message, timeout
            )

        return self.run(ask(), self._wait(timeout))

    def open_table(self, assignment: Assignment | None = None, **where: Any) -> RemoteTable:
        """As :meth:`Connection.open_table`, waiting for the first snapshot."""
        return self.run(self.connection.open_table(assignment, **where), self.policy.reply * 2 + 1)

    def _wait(self, timeout: float | None) -> float:
        return (self.policy.reply if timeout is None else timeout) + 1


_PROCESS: BlockingConnection | None = None
_PROCESS_LOCK = threading.Lock()


def process_connection() -> BlockingConnection:
    """The process's connection for games it is given by place and token (a bot's
    assignment, a GUI's game screen): one loop, one DEALER per referee, one SUB per
    publisher, made on first use.  (A lobby identity has a connection of its own:
    the matchmaker knows a player by its connection.)"""
    global _PROCESS  # noqa: PLW0603 - one connection per process, made on first use
    with _PROCESS_LOCK:
        if _PROCESS is None or _PROCESS.loop.is_closed():
            _PROCESS = BlockingConnection(name="lanqi-games")
        return _PROCESS
