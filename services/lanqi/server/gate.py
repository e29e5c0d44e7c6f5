"""Who may connect at all: the ZAP handler that shuts a flooding address out.

A request flood over an address's request limit is dropped unread (see
:class:`~lanqi.server.limits.RequestBuckets`), but every dropped request still costs
the service a read, and a flood of thousands a second slows the games the service
holds.  An address that floods (more requests dropped in one second than its limit
lets through in a second) is **shut out**: its open connections are closed and
ZeroMQ refuses its new ones during the handshake (the ZAP handler below answers
``400``), before any of its messages reaches a service.  A ZeroMQ client whose
handshake is refused does not reconnect that socket (whatever it queued is never
delivered); one that opens new sockets costs a refused handshake each.  A shut-out
lasts ``shut_out_first_s`` (--limit), twice as long each next time for the same address, at most
``lock_max_s``; the director sees them in ``lockouts`` (kind ``flood``) and lifts
them with ``unlock``.

ZeroMQ asks one ZAP handler per context, for every connection of every socket in it
that binds with CURVE or with a ZAP domain; :meth:`Gate.open` gives each service of
a context the same gate (the referee and the matchmaker of ``lanqi serve``
together), started with the first and stopped with the last :meth:`Gate.close`.  The
gate also names each CURVE connection by its client key (``User-Id``: the referee's
``--allow-key`` reads it).  Addresses of this machine and ``--trust-address`` ones
are never shut out (the services do not count them).
"""

from __future__ import annotations

import contextlib
import errno
import logging
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

import zmq
from zmq.utils import z85

from lanqi.security.curve import SHUT_OUT_STATUS
from lanqi.server.limits import ConnectionCap, Limits, RequestBuckets

__all__ = ["ZAP_DOMAIN", "Gate", "ShutOut"]

log = logging.getLogger(__name__)

#: where ZeroMQ sends the handshakes of a context to be judged (RFC 27)
ZAP_ENDPOINT = "inproc://zeromq.zap.01"
ZAP_VERSION = b"1.0"
#: how long a busy ZAP endpoint is tried again before the gate gives up
BIND_WAIT_S = 2.0
#: the domain a service's bound sockets set: without one ZeroMQ does not ask about
#: plain (--insecure) connections
ZAP_DOMAIN = "lanqi"


@dataclass(slots=True)
class ShutOut:
    """An address shut out for flooding."""

    #: when it may connect again (monotonic seconds)
    until: float
    #: shut-outs so far (each twice as long as the last)
    times: int
    #: its requests dropped unanswered (over its limit) before it was shut out
    dropped: int

    def retry_s(self, now: float) -> int:
        return max(0, int(self.until - now + 0.999))


class Gate:
    """The ZAP handler of one context; see the module docstring."""

    _gates: ClassVar[dict[int, Gate]] = {}
    _gates_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, context: zmq.Context[Any]) -> None:
        self.context = context
        self._users = 0
        self._lock = threading.Lock()
        #: every address ever shut out (its count doubles the next one), by address
        self._shut: dict[str, ShutOut] = {}
        #: :meth:`close` wakes the gate's thread through this pair to stop it
        self._stop_endpoint = f"inproc://lanqi-gate-stop-{id(self):x}"
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        #: handshakes refused so far
        self.refused = 0

    # ------------------------------------------------------------ lifecycle

    @classmethod
    def open(cls, context: zmq.Context[Any]) -> Gate:
        """The gate of ``context``, started if it is the first user."""
        with cls._gates_lock:
            gate = cls._gates.get(id(context))
            if gate is None or gate.context is not context:
                gate = cls._gates[id(context)] = Gate(context)
            if gate._users == 0:
                gate._start()
            gate._users += 1
            return gate

    def close(self) -> None:
        """One user less; the last one stops the gate."""
        with Gate._gates_lock:
            self._users -= 1
            if self._users > 0:
                return
            if Gate._gates.get(id(self.context)) is self:
                del Gate._gates[id(self.context)]
        if self._thread is not None:
            with contextlib.suppress(zmq.ZMQError):  # the context is gone: so is the thread
                waker = self.context.socket(zmq.PAIR)
                waker.setsockopt(zmq.LINGER, 0)
                waker.connect(self._stop_endpoint)
                waker.send(b"stop", zmq.NOBLOCK)
                waker.close(linger=100)
            self._thread.join(timeout=5)

    def _start(self) -> None:
        self._ready.clear()
        self._thread = threading.Thread(target=self._run, name="lanqi-gate", daemon=True)
        self._thread.start()
        self._ready.wait(timeout=5)
        if self._error is not None:
            raise RuntimeError(f"cannot start the connection gate: {self._error}")

    # ------------------------------------------------------------ shut-outs

    def shut_out(
        self, address: str, *, first_s: float, most_s: float, dropped: int, now: float
    ) -> ShutOut:
        """Refuse ``address``'s connections from ``now`` on, for ``first_s`` doubled
        for each earlier shut-out (at most ``most_s``)."""
        with self._lock:
            earlier = self._shut.get(address)
            times = 1 if earlier is None else earlier.times + 1
            seconds = min(most_s, first_s * 2.0 ** (times - 1)) if most_s > 0 else first_s
            shut = self._shut[address] = ShutOut(until=now + seconds, times=times, dropped=dropped)
        log.warning(
            "%s floods (%d requests dropped over its limit): its connections are closed"
            " and refused for %.0f s (lanqi lobby unlock %s lifts it)",
            address,
            dropped,
            seconds,
            address,
        )
        return shut

    def shut_out_flood(
        self,
        address: str,
        requests: RequestBuckets,
        caps: Iterable[ConnectionCap],
        limits: Limits,
    ) -> None:
        """A service's answer to a SHUT_OUT verdict: shut ``address`` out, close its
        connections on the service's ports, and leave its request bucket empty until
        the shut-out ends."""
        now = time.monotonic()
        if self.is_shut(address, now):
            return  # a connection the caps did not know of: it is refused when it reconnects
        shut = self.shut_out(
            address,
            first_s=limits.shut_out_first_s,
            most_s=limits.lock_max_s,
            dropped=requests.dropped[address],
            now=now,
        )
        requests.emptied(address, shut.until)
        for cap in caps:
            cap.shut(address)

    def lift(self, address: str) -> bool:
        """Let ``address`` connect again now; False if it was not shut out."""
        with self._lock:
            shut = self._shut.get(address)
            if shut is None or shut.until <= time.monotonic():
                return False
            shut.until = 0.0
            return True

    def shut_outs(self, now: float) -> list[tuple[str, ShutOut]]:
        """The addresses shut out now, with their shut-outs."""
        with self._lock:
            return sorted((a, s) for a, s in self._shut.items() if s.until > now)

    def is_shut(self, address: str, now: float) -> bool:
        with self._lock:
            shut = self._shut.get(address)
            return shut is not None and shut.until > now

    # ------------------------------------------------------------ the handler

    def _run(self) -> None:
        handler = self.context.socket(zmq.REP)
        handler.setsockopt(zmq.LINGER, 0)
        stop = self.context.socket(zmq.PAIR)
        stop.setsockopt(zmq.LINGER, 0)
        try:
            stop.bind(self._stop_endpoint)
            _bind_zap(handler)
        except zmq.ZMQError as exc:
            self._error = exc
            self._ready.set()
            handler.close(linger=0)
            stop.close(linger=0)
            return
        self._ready.set()
        poller = zmq.Poller()
        poller.register(handler, zmq.POLLIN)
        poller.register(stop, zmq.POLLIN)
        try:
            while stop not in dict(poller.poll()):
                frames = handler.recv_multipart()
                handler.send_multipart(self._answer(frames))
        except zmq.ZMQError as exc:  # the context was terminated under it
            log.debug("connection gate stopped: %s", exc)
        finally:
            with contextlib.suppress(zmq.ZMQError):  # free the endpoint for the next gate now
                handler.unbind(ZAP_ENDPOINT)
            handler.close(linger=0)
            stop.close(linger=0)

    def _answer(self, frames: list[bytes]) -> list[bytes]:
        """The ZAP reply to one request: version, request id, status code and text,
        user id, metadata (RFC 27)."""
        if len(frames) < 6:
            request_id = frames[1] if len(frames) > 1 else b""
            return [ZAP_VERSION, request_id, b"400", b"malformed ZAP request", b"", b""]
        _, request_id, _, address, _, mechanism, *credentials = frames
        now = time.monotonic()
        with self._lock:
            shut = self._shut.get(address.decode("ascii", "replace"))
            wait_s = shut.retry_s(now) if shut is not None else 0
        if wait_s > 0:
            self.refused += 1
            text = f"shut out for flooding: wait {wait_s} s".encode("ascii")
            status = str(SHUT_OUT_STATUS).encode("ascii")
            return [ZAP_VERSION, request_id, status, text, b"", b""]
        user = b""
        if mechanism == b"CURVE" and len(credentials) == 1 and len(credentials[0]) == 32:
            user = z85.encode(credentials[0])
        return [ZAP_VERSION, request_id, b"200", b"OK", user, b""]


def _bind_zap(handler: zmq.Socket[Any]) -> None:
    """Bind the ZAP endpoint; the last gate of this context may still be letting it go
    (ZeroMQ closes sockets on a thread of its own), so a busy endpoint is tried again
    for a while before it counts as another handler's."""
    deadline = time.monotonic() + BIND_WAIT_S
    while True:
        try:
            handler.bind(ZAP_ENDPOINT)
            return
        except zmq.ZMQError as exc:
            if exc.errno != errno.EADDRINUSE or time.monotonic() >= deadline:
                raise
            time.sleep(0.01)  # the endpoint is freed by ZeroMQ's own thread
