"""The referee service: one loop, a ROUTER for requests and a PUB for events.

Every turn of the loop drains the requests waiting on the ROUTER, handles each
against its :class:`GameSession`, stores the resulting events (committed) and
only then publishes them and sends the replies.  Timers (flags, silent seats,
abandonment) are checked on every turn, with the poll timeout set to the next
deadline, so they fire on an idle server too.

A client in the referee's own process (``lanqi match``'s private referee) may skip
the sockets: :meth:`RefereeService.handle_local` answers a request in the caller's
thread, through the same codec, handlers, store and group commit as a request on the
ROUTER, and :meth:`RefereeService.listen` hands a game's events to a callback as
they are published (they still go out on the PUB too, for anyone watching).  A lock
keeps the loop and those callers one at a time.
"""

from __future__ import annotations

import contextlib
import logging
import re
import secrets
import socket as sockets
import sqlite3
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import zmq

from lanqi.gamestate import GameState
from lanqi.protocol import (
    MAX_MESSAGE_BYTES,
    Adjudicate,
    ChatRequest,
    CreateGame,
    ErrorReply,
    GameCreated,
    GameEnded,
    GameEvent,
    GameResult,
    GamesList,
    GameSummary,
    ListGames,
    Message,
    Ok,
    ProtocolError,
    Reply,
    Request,
    ResultsList,
    ResultsSince,
    TimeControl,
    decode_payload,
    decode_request,
    encode,
    encode_event,
    error_for,
    termination_label,
)
from lanqi.protocol.codec import encode_payload
from lanqi.protocol.endpoints import REFEREE_PORT, REFEREE_PUB_PORT, TOPIC_RESULTS, game_topic
from lanqi.protocol.schema import struct_from_wire, struct_to_wire
from lanqi.referee.store import ClockMark, EventStore, Finish, GameRow, StoredEvent
from lanqi.security import KeyPair, server_keys
from lanqi.server.limits import (
    LOCAL_ADDRESSES,
    AddressWindows,
    ConnectionCap,
    Limits,
    RequestBuckets,
    Verdict,
)
from lanqi.server.sockets import SecureSockets, bind_tcp
from lanqi.session import (
    GAME_REQUESTS,
    ClockReading,
    GameEndedError,
    GameSession,
    Liveness,
    RefereeError,
    SessionSetup,
    answer,
)

__all__ = ["RefereeConfig", "RefereeService"]

log = logging.getLogger(__name__)

MAX_BATCH = 256  # requests handled per loop turn before timers and publishing
IDLE_POLL_MS = 500
FINISHED_CACHE = 512  # finished games kept in memory for sync requests
#: While the store fails (locked by another process, disk full), due timers are tried
#: again after this long, doubling up to STORE_RETRY_MAX_MS.
STORE_RETRY_MS = 50.0
STORE_RETRY_MAX_MS = 1000.0
#: How often the running clocks are recorded (EventStore.mark_clocks): after a crash,
#: at most this much of the time the side to move used is given back.
CLOCK_MARK_MS = 250.0
#: a game id chosen by the creator (it is part of the topic ``game/<game_id>``)
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
STORE_FAILED_MSG = (
    "the referee could not store this (its database is locked or full); nothing was"
    " applied, send it again"
)


@dataclass(slots=True)
class RefereeConfig:
    host: str = "127.0.0.1"
    port: int = REFEREE_PORT
    pub_port: int = REFEREE_PUB_PORT
    data_dir: Path = field(default_factory=lambda: Path("lanqi-data"))
    admin_key: str | None = None
    liveness: Liveness = field(default_factory=Liveness)
    durable: bool = False
    #: plain ZeroMQ instead of CURVE (``--insecure``)
    insecure: bool = False
    #: the key pair (None: the data directory's, made on first start)
    keys: KeyPair | None = None
    #: the key port (None: the request port + 4; 0: a free port)
    key_port: int | None = None
    #: public keys (Z85) that may create games (empty: any client may)
    allow_keys: frozenset[bytes] = frozenset()
    #: the limits on people who try things (``--limit``): chat per address, connections
    limits: Limits = field(default_factory=Limits)
    #: client addresses not limited as one person (besides this machine's): a web gateway
    trusted_addresses: tuple[str, ...] = ()

    @property
    def db_path(self) -> Path:
        return self.data_dir / "referee.sqlite3"

    def key_pair(self) -> KeyPair | None:
        """The pair the referee serves CURVE with (None: ``--insecure``)."""
        if self.insecure:
            return None
        return self.keys or server_keys(self.data_dir)


def _now_ms() -> float:
    return time.monotonic() * 1000.0


def _wall_ms() -> int:
    return int(time.time() * 1000)


@dataclass(slots=True)
class _Outcome:
    """What handling one request produced."""

    reply: Message
    session: GameSession | None = None
    events: list[GameEvent] = field(default_factory=list)


class RefereeService:
    """Hosts many games; see the module docstring for the loop."""

    def __init__(self, config: RefereeConfig, context: zmq.Context[Any] | None = None) -> None:
        self.config = config
        self.context = context or zmq.Context.instance()
        self.store = EventStore(config.db_path, durable=config.durable)
        self.active: dict[str, GameSession] = {}
        self.finished: OrderedDict[str, GameSession] = OrderedDict()
        self.router: zmq.Socket[bytes] | None = None
        self.pub: zmq.Socket[bytes] | None = None
        self.security: SecureSockets | None = None
        #: the CURVE key (Z85 text) of each connection in the batch being handled
        self._peer_keys: dict[bytes, str] = {}
        #: the IP address of each connection in the batch being handled ("" unknown)
        self._peer_addresses: dict[bytes, str] = {}
        limits = config.limits
        self.trusted = LOCAL_ADDRESSES | frozenset(config.trusted_addresses)
        #: chat per address, over every game and seat (a seat's own limit is the session's)
        self.chat_meter = AddressWindows(
            limits.chat_per_address, limits.chat_window_s * 1000.0, self.trusted
        )
        #: the per-address connection caps of the request and event ports (after bind)
        self.caps: list[ConnectionCap] = []
        #: the requests each address may send (checked before a request is decoded;
        #: the services of ``--allow-key``, the matchmakers, are not limited)
        self.requests = RequestBuckets(
            limits.requests_per_address,
            limits.request_burst,
            self.trusted,
            shut_out=limits.shut_out_first_s > 0,
        )
        self.endpoint = ""
        self.pub_endpoint = ""
        self._stopping = False
        self._next_timer = 0.0
        #: frames to publish once the open batch commits, each with its game event for
        #: the in-process listeners (None: no batch open)
        self._outbox: list[tuple[list[bytes], GameEvent | None]] | None = None
        #: games whose events the open batch holds (rebuilt if it fails to commit)
        self._touched: set[str] | None = None
        #: the store's error while it keeps failing (logged once), and the timer retry
        self._store_failure: str | None = None
        self._retry_ms = 0.0
        #: when the running clocks are next recorded (0: at once)
        self._next_mark = 0.0
        #: the loop and the in-process callers (:meth:`handle_local`), one at a time
        self._lock = threading.RLock()
        #: game id -> what is called with each of its events as it is published
        self._listeners: dict[str, list[Callable[[GameEvent], None]]] = {}
        #: wakes the loop when an in-process request sets an earlier timer
        self._waker, self._wake_fd = sockets.socketpair()
        self._waker.setblocking(False)
        self._wake_fd.setblocking(False)
        #: when the loop's poll returns by itself (monotonic ms)
        self._sleep_until = 0.0
        self._handlers: dict[type[Message], Callable[[Any, bytes, float], _Outcome]] = {
            CreateGame: self._create,
            **dict.fromkeys(GAME_REQUESTS, self._game_request),
            Adjudicate: self._adjudicate,
            ListGames: self._list_games,
            ResultsSince: self._results_since,
        }

    # ------------------------------------------------------------ lifecycle

    def bind(self) -> None:
        """Open the sockets (port 0 picks a free port) and recover stored games."""
        keys = self.config.key_pair()
        if self.config.allow_keys and keys is None:
            raise ValueError("--allow-key needs CURVE: it cannot go with --insecure")
        self.security = SecureSockets(
            self.context, keys, service="referee", key_port=self.config.key_port
        )
        router = self.context.socket(zmq.ROUTER)
        router.setsockopt(zmq.LINGER, 0)
        router.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)
        router.setsockopt(zmq.ROUTER_MANDATORY, 0)
        # A client that comes back over a new TCP connection keeps its identity; while
        # the old connection is not yet known dead here (a cut link: no FIN, no RST),
        # a ROUTER without handover ignores the new one, for good once the old one
        # closes: the seat's join, moves and heartbeats never arrive (tests/net).
        router.setsockopt(zmq.ROUTER_HANDOVER, 1)
        router.setsockopt(zmq.RCVHWM, 10_000)
        pub = self.context.socket(zmq.PUB)
        pub.setsockopt(zmq.LINGER, 0)
        pub.setsockopt(zmq.SNDHWM, 100_000)
        self.security.server(pub)
        self.router, self.pub = router, pub
        self.endpoint = self.security.bind_requests(router, self.config.host, self.config.port)
        self.pub_endpoint = bind_tcp(pub, self.config.host, self.config.pub_port)
        most = self.config.limits.connections_per_address
        self.caps = [ConnectionCap(s, most, self.trusted) for s in (router, pub)]
        self.store.start_checkpoints()
        self.recover()
        log.info("referee listening on %s, publishing on %s", self.endpoint, self.pub_endpoint)

    def recover(self) -> None:
        """Rebuild every unfinished game from its stored events."""
        now = _now_ms()
        for row in self.store.unfinished_games():
            try:
                session = self._rebuild(row, now)
            except (ProtocolError, RefereeError, ValueError) as exc:
                log.error("cannot recover game %s: %s", row.game_id, exc)
                continue
            session.resumed(now)
            self.active[row.game_id] = session
            self._schedule(session)
        if self.active:
            log.info("recovered %d unfinished game(s)", len(self.active))

    def _rebuild(self, row: GameRow, now: float, *, live: bool = False) -> GameSession:
        """The game of ``row``, replayed from its stored events and its clock mark.

        ``live``: each event and the mark is replayed at the monotonic time it was
        stored, so the clock of the player to move runs from its latest reading (a
        rebuild in a running referee); otherwise at ``now``: after a restart the
        clock resumes from the latest reading, the time up to it charged (recorded
        every CLOCK_MARK_MS while it ran) and the downtime not.
        """
        setup = SessionSetup(
            game_id=row.game_id,
            variant=row.variant,
            options=dict(row.options),
            start_fen=row.start_fen,
            players=list(row.players),
            tokens=list(row.tokens),
            time_control=_stored_time_control(row),
            casual=row.casual,
            tag=row.tag,
        )
        wall = _wall_ms()

        def at(wall_ms: int) -> float:
            return now - max(0, wall - wall_ms) if live else now

        def timed_events() -> Iterator[tuple[GameEvent, float]]:
            for stored in self.store.events(row.game_id):
                event = decode_payload(stored.payload)
                if isinstance(event, GameEvent):
                    yield event, at(stored.at_ms)

        mark = self.store.clock_mark(row.game_id) if row.status == "active" else None
        reading = None
        if mark is not None:
            left = (float(mark.remaining_ms[0]), float(mark.remaining_ms[1]))
            window = None if mark.window_ms is None else float(mark.window_ms)
            reading = ClockReading(mark.seq, left, mark.running, window, at(mark.at_ms))
        return GameSession.restore(setup, timed_events(), now, self.config.liveness, reading)

    def stop(self) -> None:
        """Ask the loop to finish its turn and return (woken now: it may be waiting)."""
        self._stopping = True
        with contextlib.suppress(BlockingIOError, OSError):
            self._waker.send(b"s")

    @property
    def public_key(self) -> str | None:
        """The CURVE public key clients connect with (after :meth:`bind`; None: plain)."""
        if self.security is None or self.security.keys is None:
            return None
        return self.security.keys.public.decode("ascii")

    @property
    def key_endpoint(self) -> str:
        """The key port's endpoint (after :meth:`bind`)."""
        return self.security.key_endpoint if self.security is not None else ""

    def close(self) -> None:
        for cap in self.caps:
            cap.close()
        self.caps = []
        for socket in (self.router, self.pub):
            if socket is not None:
                socket.close(linger=0)
        if self.security is not None:
            self.security.close()
        self.store.close()
        self._waker.close()
        self._wake_fd.close()

    def serve_forever(self) -> None:
        if self.router is None:
            self.bind()
        assert self.router is not None
        assert self.security is not None
        keys = self.security.responder
        poller = zmq.Poller()
        poller.register(self.router, zmq.POLLIN)
        poller.register(keys.socket, zmq.POLLIN)
        poller.register(self._wake_fd, zmq.POLLIN)
        for cap in self.caps:
            poller.register(cap.monitor, zmq.POLLIN)
        while not self._stopping:
            timeout = self._poll_timeout()
            self._sleep_until = _now_ms() + timeout
            ready = dict(poller.poll(timeout))
            with self._lock:
                self._sleep_until = 0.0  # awake: no in-process caller needs to wake it
                if self._wake_fd.fileno() in ready:
                    self._drain_waker()
                for cap in self.caps:
                    if cap.monitor in ready:
                        cap.handle()
                    else:
                        cap.tick()
                if self.router in ready:
                    self.handle_ready()
                if keys.socket in ready:
                    keys.handle()
                self.run_timers()
                self.mark_clocks()

    def _drain_waker(self) -> None:
        with contextlib.suppress(BlockingIOError):
            while self._wake_fd.recv(64):
                pass

    # ------------------------------------------------------------ in process

    def handle_local(self, request: Request, sender: str) -> Reply:
        """Answer ``request`` now, in this thread, as if it came on the ROUTER from
        the connection ``sender``: the same codec (what the wire refuses as
        ``bad_message``, this refuses too), handler and group commit; its events are
        published (PUB and listeners) before this returns the reply."""
        identity = sender.encode("utf-8")
        frames = encode(request)
        with self._lock:
            self._peer_addresses[identity] = "127.0.0.1"  # this process, this machine
            self._open_group()
            try:
                with self.store.batch():
                    reply = self.handle_payload(identity, frames)
            except Exception as exc:  # the batch did not commit: none of it happened
                self._group_failed(exc, "an in-process request")
                reply = ErrorReply(re=request.id, code="internal", msg=STORE_FAILED_MSG)
            else:
                self._store_works()
            self._close_group()
            self._peer_addresses.pop(identity, None)
            if self._next_timer and self._next_timer < self._sleep_until:
                with contextlib.suppress(BlockingIOError):
                    self._waker.send(b"t")  # a deadline before the loop looks again
                self._sleep_until = 0.0
        assert isinstance(reply, Reply), reply  # every handler answers with a reply
        return reply

    def listen(self, game_id: str, listener: Callable[[GameEvent], None]) -> None:
        """Call ``listener`` with each event of ``game_id`` as it is published (from
        the thread that made it: keep it short); :meth:`unlisten` ends it."""
        with self._lock:
            self._listeners.setdefault(game_id, []).append(listener)

    def unlisten(self, game_id: str, listener: Callable[[GameEvent], None]) -> None:
        with self._lock:
            listeners = self._listeners.get(game_id, [])
            if listener in listeners:
                listeners.remove(listener)
            if not listeners:
                self._listeners.pop(game_id, None)

    def _poll_timeout(self) -> int:
        # the clock marks are due every CLOCK_MARK_MS (0: now), timers when set
        due = min(self._next_mark, self._next_timer) if self._next_timer else self._next_mark
        wait = due - _now_ms()
        return int(max(0.0, min(float(IDLE_POLL_MS), wait + 1)))

    def mark_clocks(self) -> None:
        """Record every running clock (every CLOCK_MARK_MS), so that a restart after
        a crash charges the time used before it: see :meth:`EventStore.mark_clocks`.
        While the store fails this is the write that finds out when it works again."""
        now = _now_ms()
        if now < self._next_mark:
            return
        self._next_mark = now + CLOCK_MARK_MS
        marks: dict[str, ClockMark] = {}
        for game_id, session in self.active.items():
            reading = session.clock_reading(now)
            if reading is not None:
                marks[game_id] = ClockMark(
                    seq=reading.seq,
                    remaining_ms=(round(reading.remaining_ms[0]), round(reading.remaining_ms[1])),
                    running=reading.running,
                    window_ms=None if reading.window_ms is None else round(reading.window_ms),
                    at_ms=_wall_ms(),
                )
        if not marks and self._store_failure is None:
            return
        try:
            self.store.mark_clocks(marks, _wall_ms())
        except sqlite3.Error as exc:
            self._store_fails(exc, "the clock marks")
            return
        self._store_works()

    # ------------------------------------------------------------ request handling

    def handle_ready(self) -> None:
        """Drain the waiting requests (up to MAX_BATCH) and handle them as one batch.

        Group commit: the events of the whole batch are stored in one transaction;
        only after it has committed are they published and the replies sent.
        """
        assert self.router is not None
        batch: list[list[bytes]] = []
        self._peer_keys.clear()
        self._peer_addresses.clear()
        for _ in range(MAX_BATCH):
            try:
                frames = self.router.recv_multipart(zmq.NOBLOCK, copy=False)
            except zmq.Again:
                break
            address = str(frames[-1].get("Peer-Address") or "")
            # the gate names each CURVE connection by its client key (User-Id)
            key = str(frames[-1].get("User-Id") or "") if self.config.allow_keys else ""
            verdict = Verdict.SERVE
            if not key or key.encode("ascii") not in self.config.allow_keys:
                verdict = self.requests.take(address, time.monotonic())
            if verdict is Verdict.DROP:
                continue
            if verdict is Verdict.SHUT_OUT:
                assert self.security is not None
                self.security.gate.shut_out_flood(
                    address, self.requests, self.caps, self.config.limits
                )
                continue
            identity = frames[0].bytes
            if verdict is Verdict.REFUSE:
                answer = self.requests.refusal(address, [f.bytes for f in frames[1:]])
                self.router.send_multipart([identity, *answer], zmq.NOBLOCK)
                continue
            self._peer_addresses[identity] = address
            if self.config.allow_keys:
                self._peer_keys[identity] = key
            batch.append([identity, *(frame.bytes for frame in frames[1:])])
        if batch:
            self.handle_batch(batch)

    def handle_batch(self, batch: list[list[bytes]]) -> None:
        """Handle requests as one group commit; every request with an identity gets a reply.

        If the store cannot begin or commit the batch (locked by another process, disk
        full), nothing of it happened: the games it touched are rebuilt from the store
        and every request is answered ``internal`` (send it again).
        """
        assert self.router is not None
        requests = [frames for frames in batch if len(frames) >= 2]  # else: not a DEALER
        replies: list[tuple[bytes, Message]] = []
        self._open_group()
        try:
            with self.store.batch():
                if self._store_failure is not None:
                    # reads write nothing: while the store fails, this write says
                    # whether it works again (else every request is answered internal)
                    self.store.mark_clocks({}, _wall_ms())
                for frames in requests:
                    replies.append((frames[0], self.handle_payload(frames[0], frames[1:])))
        except Exception as exc:  # the batch did not commit: none of it happened
            self._group_failed(exc, f"a batch of {len(requests)} requests")
            replies = [
                (
                    frames[0],
                    ErrorReply(re=_request_id(frames), code="internal", msg=STORE_FAILED_MSG),
                )
                for frames in requests
            ]
        else:
            self._store_works()
        self._close_group()
        for identity, reply in replies:
            self.router.send_multipart([identity, *encode(reply)])

    def _open_group(self) -> None:
        """Start collecting what a group commit publishes and which games it touches."""
        self._outbox = []
        self._touched = set()

    def _close_group(self) -> None:
        """Publish what the group committed (nothing if it failed)."""
        outbox, self._outbox = self._outbox, None
        self._touched = None
        self._flush(outbox or [])

    def _group_failed(self, exc: Exception, what: str) -> None:
        """A group commit failed: forget its events and rebuild what it touched."""
        if isinstance(exc, sqlite3.Error):
            self._store_fails(exc, what)
        else:
            log.exception("could not commit %s", what)
        for game_id in self._touched or ():
            try:
                self._reload(game_id)
            except sqlite3.Error as failure:  # not even readable: rebuilt when next asked for
                log.warning("cannot reload game %s now: %s", game_id, failure)
        self._outbox = []

    def _store_fails(self, exc: sqlite3.Error, what: str) -> None:
        self._retry_ms = min(STORE_RETRY_MAX_MS, max(STORE_RETRY_MS, 2 * self._retry_ms))
        if self._store_failure is None:  # logged once per outage, not per attempt
            self._store_failure = str(exc)
            log.warning(
                "the store %s fails (%s) on %s; requests are answered internal until it works",
                self.config.db_path,
                exc,
                what,
            )

    def _store_works(self) -> None:
        self._retry_ms = 0.0
        if self._store_failure is not None:
            self._next_timer = _now_ms()  # timers held back by the outage: try them now
            log.warning(
                "the store %s works again (was failing: %s)",
                self.config.db_path,
                self._store_failure,
            )
            self._store_failure = None

    def _send_event(self, frames: list[bytes], event: GameEvent | None = None) -> None:
        """Publish now, or after the batch commits when one is open; ``event`` (the
        game event the frames carry) goes to the game's in-process listeners too."""
        if self._outbox is not None:
            self._outbox.append((frames, event))
        else:
            self._flush([(frames, event)])

    def _flush(self, outbox: list[tuple[list[bytes], GameEvent | None]]) -> None:
        if not outbox:
            return
        assert self.pub is not None
        self.pub.getsockopt(zmq.EVENTS)  # apply new subscriptions now (libzmq may defer ~1 ms)
        listeners = self._listeners
        for frames, event in outbox:
            self.pub.send_multipart(frames)
            if event is not None and listeners:
                for listener in listeners.get(event.game_id, ()):
                    listener(event)

    def handle_payload(self, identity: bytes, frames: list[bytes]) -> Message:
        """Decode, dispatch, store and publish; returns the reply.  Never raises for bad input."""
        request_id: int | None = None
        try:
            request = decode_request(frames, self._handlers, "referee")
            request_id = getattr(request, "id", None)
            handler = self._handlers[type(request)]
            outcome = handler(request, identity, _now_ms())
        except ProtocolError as exc:
            return error_for(exc)
        except GameEndedError as exc:
            session = self._find(getattr(request, "game_id", ""))
            if session is not None:
                try:
                    self._commit(session, exc.events)
                except Exception as failure:
                    self._write_failed(failure, session.game_id)
            return exc.reply(request_id)
        except RefereeError as exc:
            return exc.reply(request_id)
        except sqlite3.Error as exc:  # the store cannot be read (nothing was changed)
            self._store_fails(exc, "a read")
            return ErrorReply(re=request_id, code="internal", msg=STORE_FAILED_MSG)
        except Exception:  # a bug must cost one request, never the service
            log.exception("internal error handling a request")
            return ErrorReply(
                re=request_id, code="internal", msg="internal error; see the referee log"
            )
        if outcome.session is not None and outcome.events:
            try:
                self._commit(outcome.session, outcome.events)
            except Exception as failure:
                self._write_failed(failure, outcome.session.game_id)
                return ErrorReply(re=request_id, code="internal", msg=STORE_FAILED_MSG)
        return outcome.reply

    def _write_failed(self, exc: Exception, game_id: str) -> None:
        """One game's write inside a batch failed (and was undone): rebuild the game."""
        if isinstance(exc, sqlite3.Error):
            self._store_fails(exc, f"the events of game {game_id}")
        else:
            log.exception("could not store events of game %s", game_id)
        self._reload(game_id)

    def _commit(self, session: GameSession, events: list[GameEvent]) -> None:
        """Store ``events`` (committed), then publish them; move a finished game aside."""
        if not events:
            return
        wall = _wall_ms()
        payloads = []  # each event encoded once: stored and published
        stored = []
        ended = None
        for event in events:
            payload = encode_payload(event)
            payloads.append(payload)
            stored.append(StoredEvent(event.seq, event.T, payload, wall))
            if type(event) is GameEnded:
                ended = event
        finish = None
        if ended is not None:
            # the column keeps the words a record says (the reason, when there is one),
            # as it always has; the events keep the termination and the reason apart
            label = termination_label(ended.termination, ended.reason)
            finish = Finish(ended.result, label, ended.winner, session.moves())
        result_seq = self.store.append(
            session.game_id,
            stored,
            status=None if finish is not None or session.status == "finished" else session.status,
            finish=finish,
        )
        if self._touched is not None:
            self._touched.add(session.game_id)
        topic = session.topic
        for payload, event in zip(payloads, events, strict=True):
            self._send_event([topic, payload], event)
        if ended is not None and result_seq is not None:
            self._send_event(encode_event(TOPIC_RESULTS, self._result(session, ended, result_seq)))
            self.active.pop(session.game_id, None)
            self.finished[session.game_id] = session
            while len(self.finished) > FINISHED_CACHE:
                self.finished.popitem(last=False)
        self._schedule(session)

    def _result(self, session: GameSession, ended: GameEnded, result_seq: int) -> GameResult:
        return GameResult(
            game_id=session.game_id,
            result_seq=result_seq,
            variant=session.setup.variant,
            options=session.options,
            players=list(session.setup.players),
            result=ended.result,
            termination=ended.termination,
            winner=ended.winner,
            start_fen=session.setup.start_fen,
            moves=session.moves(),
            tag=session.setup.tag,
            clocks=list(session.clock_log),
            reason=ended.reason,
        )

    def _reload(self, game_id: str) -> None:
        """Forget in-memory changes that could not be stored: rebuild from the store.

        The rebuilt game keeps running in real time: its clock is charged for the
        time since the last stored move, and the seats keep their last sign of life,
        so the timers that were due (a flag, an abandonment) are due again.
        """
        old = self.active.pop(game_id, None) or self.finished.pop(game_id, None)
        row = self.store.game(game_id)
        if row is None or row.status == "finished":
            return  # unknown (created by the failed batch), or rebuilt when asked for
        now = _now_ms()
        session = self._rebuild(row, now, live=True)
        session.resumed(now)
        if old is not None and len(old.seats) == len(session.seats):
            session.kept_seats(old)
        self.active[game_id] = session
        self._schedule(session)

    def _find(self, game_id: str) -> GameSession | None:
        session = self.active.get(game_id) or self.finished.get(game_id)
        if session is not None:
            return session
        row = self.store.game(game_id)
        if row is None:
            return None
        session = self._rebuild(row, _now_ms())
        if row.status == "finished":
            self.finished[game_id] = session
        else:
            self.active[game_id] = session
        return session

    def _session(self, game_id: str) -> GameSession:
        session = self._find(game_id)
        if session is None:
            raise RefereeError("unknown_game", f"no game {game_id!r} on this referee")
        return session

    # ------------------------------------------------------------ handlers

    def _authorise(self, identity: bytes, admin_key: str | None, doing: str) -> None:
        """Refuse ``doing`` (``creating games``...) to a client without a key the
        referee allows (``--allow-key``) or without its admin key (``--admin-key``)."""
        allowed = self.config.allow_keys
        if allowed and self._peer_keys.get(identity, "").encode("ascii") not in allowed:
            raise RefereeError(
                "unauthorized",
                f"{doing} on this referee needs a key it allows (lanqi referee --allow-key)",
            )
        key = self.config.admin_key
        if key is not None and not (
            admin_key is not None and secrets.compare_digest(admin_key.encode(), key.encode())
        ):
            raise RefereeError("unauthorized", f"{doing} needs this referee's admin key")

    def _create(self, request: CreateGame, identity: bytes, now: float) -> _Outcome:
        self._authorise(identity, request.admin_key, "creating games")
        if request.game_id is not None and not GAME_ID.fullmatch(request.game_id):
            raise RefereeError(
                "bad_request", "a game_id is 1 to 64 letters, digits, '-' or '_' (or null)"
            )
        options = dict(request.options)
        start_fen = options.pop("fen", None)
        if start_fen is not None and not isinstance(start_fen, str):
            raise RefereeError("bad_request", "option fen must be a string")
        setup = SessionSetup(
            game_id=request.game_id or uuid.uuid4().hex[:16],
            variant=request.variant,
            options=options,
            start_fen=start_fen,
            players=list(request.players),
            tokens=SessionSetup.new_tokens(),
            time_control=request.time_control,
            casual=request.casual,
            tag=request.tag,
        )
        session = GameSession(setup, now, self.config.liveness)
        over = session.game.outcome()
        if over is not None:
            raise RefereeError(
                "bad_request", f"that position is already over ({over.termination.value})"
            )
        if request.game_id is not None:
            existing = self.store.game(request.game_id)
            if existing is not None:
                return _Outcome(_repeated_create(request, existing, setup, session.options))
        created = session.created_event(now)
        row = GameRow(
            game_id=setup.game_id,
            variant=setup.variant,
            options=session.options,
            start_fen=start_fen,
            players=setup.players,
            tokens=setup.tokens,
            time_control=struct_to_wire(setup.time_control),
            casual=setup.casual,
            tag=setup.tag,
            status=session.status,
            created_ms=_wall_ms(),
        )
        stored = StoredEvent(created.seq, created.T, encode(created)[0], row.created_ms)
        self.store.create_game(row, [stored])
        self.active[setup.game_id] = session
        if self._touched is not None:
            self._touched.add(setup.game_id)
        self._send_event(encode_event(game_topic(setup.game_id), created), created)
        self._schedule(session)
        log.info("created %s game %s: %s", setup.variant, setup.game_id, " vs ".join(setup.players))
        return _Outcome(GameCreated(re=request.id, game_id=setup.game_id, tokens=setup.tokens))

    def _adjudicate(self, request: Adjudicate, identity: bytes, now: float) -> _Outcome:
        self._authorise(identity, request.admin_key, "adjudicating games")
        session = self._session(request.game_id)
        events = session.adjudicate(request.result, request.reason, now)
        if events:
            log.info("game %s adjudicated %s (%s)", session.game_id, request.result, request.reason)
        return _Outcome(Ok(re=request.id), session, events)

    def _game_request(self, request: Any, identity: bytes, now: float) -> _Outcome:
        """A request for one game: its session answers it (:func:`lanqi.session.answer`)."""
        session = self._session(request.game_id)
        if isinstance(request, ChatRequest):
            address = self._peer_addresses.get(identity, "")
            wait = self.chat_meter.take(address, now)
            if wait is not None:
                limits = self.config.limits
                raise RefereeError(
                    "rate_limited",
                    f"at most {limits.chat_per_address} chat messages per"
                    f" {limits.chat_window_s:g} s from one address (wait {wait} s)",
                )
        reply, events = answer(session, request, identity.hex(), now)
        return _Outcome(reply, session, events)

    def _list_games(self, request: ListGames, identity: bytes, now: float) -> _Outcome:
        if request.status not in ("active", "finished", "all"):
            raise RefereeError("bad_request", "status must be active, finished or all")
        games: list[GameSummary] = []
        if request.status in ("active", "all"):
            games.extend(s.summary() for s in self.active.values())
        if request.status in ("finished", "all"):
            games.extend(
                _summary_of(row) for row in self.store.list_games("finished", request.limit)
            )
        return _Outcome(GamesList(re=request.id, games=games[: request.limit]))

    def _results_since(self, request: ResultsSince, identity: bytes, now: float) -> _Outcome:
        rows = self.store.results_since(request.after, request.limit)
        results = []
        for row in rows:
            if row.termination is None:  # always set with the result_seq
                continue
            state, clocks = self._ending(row)
            results.append(
                GameResult(
                    game_id=row.game_id,
                    result_seq=row.result_seq or 0,
                    variant=row.variant,
                    options=dict(row.options),
                    players=list(row.players),
                    result=row.result or "*",
                    termination=state.termination or "aborted",
                    winner=row.winner,
                    start_fen=row.start_fen,
                    moves=list(row.moves),
                    tag=row.tag,
                    clocks=clocks,
                    reason=state.reason,
                )
            )
        return _Outcome(ResultsList(re=request.id, results=results))

    def _ending(self, row: GameRow) -> tuple[GameState, list[int]]:
        """The folded state and clock readings of a finished game, from its stored
        events (the same fold as a live game's, so a reconciled result carries what a
        published one did: the termination and reason apart, clocks)."""
        session = self.finished.get(row.game_id) or self._rebuild(row, 0.0, live=False)
        return session.state, list(session.clock_log)

    # ------------------------------------------------------------ timers

    def _schedule(self, session: GameSession) -> None:
        deadline = session.next_deadline()
        if deadline is not None and (not self._next_timer or deadline < self._next_timer):
            self._next_timer = deadline

    def run_timers(self) -> None:
        """Fire due timers of every game as one group commit; cheap when nothing is due.

        If the store cannot take the events, no game changes (or the ones that did are
        rebuilt from the store) and the timers are tried again a little later.
        """
        now = _now_ms()
        if not self._next_timer or now < self._next_timer:
            return
        self._next_timer = 0.0
        due = [s for s in self.active.values() if (d := s.next_deadline()) is not None and d <= now]
        if due:
            self._open_group()
            try:
                with self.store.batch():
                    for session in due:
                        self._tick(session, now)
            except Exception as exc:
                self._group_failed(exc, f"the timer events of {len(due)} game(s)")
                self._close_group()
                # not the due deadlines (passed): a back-off, or the loop would retry at once
                self._next_timer = _now_ms() + self._retry_ms
                return
            self._store_works()
            self._close_group()
        for session in self.active.values():
            self._schedule(session)

    def _tick(self, session: GameSession, now: float) -> None:
        """Fire one game's timers inside the timers' batch."""
        events = session.tick(now)
        if not events:
            return
        try:
            self._commit(session, events)
        except sqlite3.Error:
            raise  # the store fails: the whole batch is undone and retried
        except Exception:  # a bug costs this game's timer events, not the others'
            log.exception("could not store timer events of %s", session.game_id)
            self._reload(session.game_id)


def _repeated_create(
    request: CreateGame, row: GameRow, setup: SessionSetup, options: dict[str, Any]
) -> GameCreated:
    """The answer to a ``create_game`` whose ``game_id`` names a stored game: the same
    ``game_created`` if it asks for that very game (a retry), else ``game_exists``."""
    asked = (
        setup.variant,
        options,
        setup.start_fen,
        setup.players,
        setup.time_control,
        setup.casual,
        setup.tag,
    )
    stored = (
        row.variant,
        row.options,
        row.start_fen,
        row.players,
        _stored_time_control(row),
        row.casual,
        row.tag,
    )
    if asked != stored:
        raise RefereeError(
            "game_exists",
            f"game {row.game_id!r} exists with other players or options; choose another game_id",
        )
    log.info("create_game %s again: answered with the game created before", row.game_id)
    return GameCreated(re=request.id, game_id=row.game_id, tokens=list(row.tokens))


def _stored_time_control(row: GameRow) -> TimeControl:
    """The time control of a stored game.  Games stored before time controls had a
    first-move window started the clock at the join, and go on doing so."""
    return struct_from_wire(TimeControl, {"first_move_ms": 0, **row.time_control})


def _summary_of(row: GameRow) -> GameSummary:
    return GameSummary(
        game_id=row.game_id,
        variant=row.variant,
        players=list(row.players),
        status=row.status,
        ply=len(row.moves),
        result=row.result,
    )


def _request_id(frames: list[bytes]) -> int | None:
    """The id of the request in ``[identity, payload]``, if it can be read."""
    try:
        return getattr(decode_payload(frames[1]), "id", None) if len(frames) == 2 else None
    except ProtocolError:
        return None
