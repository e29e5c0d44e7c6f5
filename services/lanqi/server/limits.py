"""The limits a server puts on people who try things, and the connection cap.

:class:`Limits` holds every number (``--limit NAME=VALUE`` on ``lanqi serve``,
``lanqi matchmaker`` and ``lanqi referee``; the defaults below are the documented
ones, see docs/protocol.md, "People who try things").  The matchmaker's
:class:`~lanqi.matchmaker.guard.Guard` applies the claim-code, name and post limits;
the referee applies the chat limit per address with :class:`AddressWindows`; both
cap the connections one address holds on each bound socket with
:class:`ConnectionCap`, and the requests it sends with :class:`RequestBuckets`
(before a request is decoded).

Addresses are the client's IP address as ZeroMQ gives it (the ``Peer-Address`` of a
received message, ``getpeername`` of an accepted connection).  This machine's
addresses and the ``--trust-address`` ones (a web gateway speaks for many people)
are limited per name and per seat only, never as one person.

>>> Limits.parse(["chat_per_address=40", "lock_max_s=600"]).chat_per_address
40
>>> Limits.parse(["chat=1"])
Traceback (most recent call last):
...
ValueError: unknown limit 'chat'; one of: claim_tries_per_name, ...
"""

from __future__ import annotations

import bisect
import contextlib
import dataclasses
import enum
import logging
import math
import os
import random
import socket as stdsocket
import time
from collections import Counter, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import zmq
from zmq.utils.monitor import recv_monitor_message

from lanqi.protocol import ErrorReply, encode, read_request_id

__all__ = [
    "LOCAL_ADDRESSES",
    "AddressWindows",
    "ConnectionCap",
    "Limits",
    "RequestBuckets",
    "Verdict",
    "limits_help",
]

log = logging.getLogger(__name__)

#: monitor events a service's loop reads (and held connections it shuts) per turn:
#: then its requests have their turn
MONITOR_BATCH = 16
#: how long a connection over the cap is held before it is shut, and how many are held
HOLD_S = 5.0
HOLD_MOST = 1024
#: how often the counted descriptors are checked against their connections
CHECK_EVERY_S = 1.0
#: an address over its request limit is answered ``rate_limited`` at most once per
#: REFUSE_EVERY_S; its other requests over the limit are dropped unanswered
REFUSE_EVERY_S = 0.1
#: addresses whose request buckets are kept before the full (idle) ones are forgotten
BUCKETS_KEPT = 4 * 1024
#: this machine: the web gateway and the director's tools, many people behind one address
LOCAL_ADDRESSES = frozenset({"127.0.0.1", "::1", "::ffff:127.0.0.1"})


@dataclass(frozen=True, slots=True)
class Limits:
    """Every limit, with its default (0 turns a count limit off)."""

    #: wrong claim codes for one name before it is locked out
    claim_tries_per_name: int = 5
    #: wrong claim codes from one address (any names) before it is locked out
    claim_tries_per_address: int = 20
    #: the first lock-out; each next one of the same name or address lasts twice as long
    lock_first_s: float = 30.0
    #: the longest lock-out
    lock_max_s: float = 3600.0
    #: new names one address may make per name window
    names_per_address: int = 10
    name_window_s: float = 600.0
    #: seeks and challenges one address may post per post window
    posts_per_address: int = 20
    post_window_s: float = 10.0
    #: chat messages one address may post per chat window, over every game and seat
    chat_per_address: int = 20
    chat_window_s: float = 10.0
    #: connections one address may hold open on each of a service's ports
    connections_per_address: int = 64
    #: requests one address may send each service, per second over time, and at once
    #: (a token bucket: ``request_burst`` tokens, ``requests_per_address`` back a second)
    requests_per_address: float = 100.0
    request_burst: int = 1000
    #: an address with more requests dropped in one second than ``requests_per_address``
    #: is shut out (its connections closed and refused) this long, twice as long each
    #: next time, at most ``lock_max_s`` (0: never shut out)
    shut_out_first_s: float = 60.0

    @classmethod
    def parse(cls, specs: Sequence[str], base: Limits | None = None) -> Limits:
        """``base`` (the defaults) with each ``NAME=VALUE`` of ``specs`` applied;
        ValueError names what is wrong in one line."""
        known = {f.name: f for f in dataclasses.fields(cls)}
        changes: dict[str, Any] = {}
        for spec in specs:
            name, sep, text = spec.partition("=")
            name = name.strip().replace("-", "_")
            if name not in known:
                raise ValueError(f"unknown limit {name!r}; one of: {', '.join(known)}")
            if not sep:
                raise ValueError(f"limit {name} needs a value: {name}=VALUE")
            kind = int if known[name].type in (int, "int") else float
            try:
                value = kind(text)
            except ValueError:
                raise ValueError(f"limit {name}: {text!r} is not a number") from None
            if value < 0 or (kind is float and not math.isfinite(value)):
                raise ValueError(f"limit {name}: {text!r} must be a number from 0 up")
            changes[name] = value
        return dataclasses.replace(base or cls(), **changes)


def limits_help() -> str:
    """The ``--limit`` help: every name with its default."""
    defaults = Limits()
    names = ", ".join(f"{f.name}={getattr(defaults, f.name):g}" for f in dataclasses.fields(Limits))
    return (
        "change a limit on people who try things (repeat for several; 0 turns a count"
        f" off; see docs/protocol.md); the defaults: {names}"
    )


@dataclass(slots=True)
class AddressWindows:
    """At most ``most`` events per ``window_ms`` for each address (0: no limit).

    >>> chat = AddressWindows(most=2, window_ms=1000.0)
    >>> [chat.take("10.0.0.9", now) for now in (0.0, 1.0, 2.0, 1000.0)]
    [None, None, 1, None]
    """

    most: int
    window_ms: float
    trusted: frozenset[str] = LOCAL_ADDRESSES
    times: dict[str, deque[float]] = field(default_factory=dict)

    def limited(self, address: str) -> bool:
        return bool(address) and address not in self.trusted and self.most > 0

    def take(self, address: str, now: float) -> int | None:
        """Count one more for ``address``; the seconds to wait instead if its window is
        full (the event is then not counted)."""
        if not self.limited(address):
            return None
        times = self.times.setdefault(address, deque())
        while times and now - times[0] >= self.window_ms:
            times.popleft()
        if len(times) >= self.most:
            return max(1, math.ceil((times[0] + self.window_ms - now) / 1000.0))
        times.append(now)
        if len(self.times) > 4 * 1024:  # forget idle addresses (bounded memory)
            for key in [k for k, v in self.times.items() if not v or now - v[-1] >= self.window_ms]:
                del self.times[key]
        return None


class Verdict(enum.Enum):
    """What a service does with one request (:meth:`RequestBuckets.take`)."""

    SERVE = "serve"
    #: answer ``rate_limited`` without decoding it
    REFUSE = "refuse"
    #: read and forget: no answer
    DROP = "drop"
    #: read and forget, and shut the address out: it floods (:mod:`lanqi.server.gate`)
    SHUT_OUT = "shut_out"


@dataclass(slots=True)
class RequestBuckets:
    """A token bucket per address: ``burst`` requests at once, ``rate`` a second over
    time (a rate of 0: no limit).  Over it, one request per REFUSE_EVERY_S is
    refused (the client learns why) and the others are dropped (a flood costs the
    service a read each, not an answer each).  When more than ``rate`` requests of an
    address are dropped within one second (it sends at least twice its limit) and
    ``shut_out`` is on, the verdict is SHUT_OUT, once: the service shuts the address
    out (:mod:`lanqi.server.gate`), and its bucket is left empty until the shut-out
    ends (:meth:`emptied`), so a flood that comes back gets no burst.

    >>> buckets = RequestBuckets(rate=10.0, burst=2)
    >>> [buckets.take("10.0.0.9", now).value for now in (0.0, 0.0, 0.0, 0.05, 0.1, 0.125)]
    ['serve', 'serve', 'refuse', 'drop', 'serve', 'refuse']
    >>> from lanqi.protocol import Ping, decode
    >>> decode(buckets.refusal("10.0.0.9", encode(Ping(id=3)))).msg
    'at most 10 requests a second ... once); more are dropped unanswered (wait 75 ms)'
    >>> buckets.take("127.0.0.1", 0.2).value, dict(buckets.dropped)
    ('serve', {'10.0.0.9': 1})
    """

    rate: float
    burst: int
    trusted: frozenset[str] = LOCAL_ADDRESSES
    #: each limited address's tokens and when they were counted
    tokens: dict[str, tuple[float, float]] = field(default_factory=dict)
    #: when each address over its limit was last refused
    refused_at: dict[str, float] = field(default_factory=dict)
    #: requests dropped (not answered), per address
    dropped: Counter[str] = field(default_factory=Counter)
    #: whether a flood gets the SHUT_OUT verdict
    shut_out: bool = False
    #: each address's requests dropped in its current second: (second's start, count)
    _second: dict[str, tuple[float, int]] = field(default_factory=dict)

    def take(self, address: str, now: float) -> Verdict:
        """Count one request from ``address`` at ``now`` (monotonic seconds)."""
        if self.rate <= 0 or not address or address in self.trusted:
            return Verdict.SERVE
        tokens, then = self.tokens.get(address, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - then) * self.rate)
        if tokens >= 1.0:
            self.tokens[address] = (tokens - 1.0, now)
            if len(self.tokens) > BUCKETS_KEPT:
                self._forget(now)
            return Verdict.SERVE
        self.tokens[address] = (tokens, now)
        last = self.refused_at.get(address)
        if last is None or now - last >= REFUSE_EVERY_S:
            if last is None:
                log.warning(
                    "%s sends more than %g requests a second (--limit"
                    " requests_per_address): more are refused or dropped",
                    address,
                    self.rate,
                )
            self.refused_at[address] = now
            return Verdict.REFUSE
        self.dropped[address] += 1
        start, count = self._second.get(address, (now, 0))
        if now - start >= 1.0:
            start, count = now, 0
        self._second[address] = (start, count + 1)
        if self.shut_out and count + 1 > self.rate:
            del self._second[address]
            return Verdict.SHUT_OUT
        return Verdict.DROP

    def emptied(self, address: str, until: float) -> None:
        """Leave ``address``'s bucket empty until ``until`` (a shut-out's end)."""
        self.tokens[address] = (0.0, until)

    def refusal(self, address: str, frames: Sequence[bytes]) -> list[bytes]:
        """The frames of the ``rate_limited`` answer to a refused request: the limit,
        and how long to wait before the next request is served."""
        tokens, _ = self.tokens.get(address, (float(self.burst), 0.0))
        wait_ms = max(1, math.ceil((1.0 - tokens) * 1000.0 / self.rate)) if self.rate > 0 else 0
        msg = (
            f"at most {self.rate:g} requests a second from one address ({self.burst} at"
            f" once); more are dropped unanswered (wait {wait_ms} ms)"
        )
        return encode(ErrorReply(re=read_request_id(frames), code="rate_limited", msg=msg))

    def _forget(self, now: float) -> None:
        """Forget the addresses whose buckets are full again (bounded memory)."""
        for address, (tokens, then) in list(self.tokens.items()):
            if tokens + (now - then) * self.rate >= self.burst:
                del self.tokens[address]
                self.refused_at.pop(address, None)
                self._second.pop(address, None)


class ConnectionCap:
    """At most ``most`` connections per address on one bound socket (0: no cap).

    ZeroMQ accepts connections on its own threads and does not say who they are from;
    its socket monitor does: each accepted connection's file descriptor
    (``EVENT_ACCEPTED``) and its end (``EVENT_DISCONNECTED``).  :meth:`handle`,
    called when :attr:`monitor` is readable, reads the peer's address of each new
    connection; one over its address's cap is shut down (``shutdown(2)`` on the
    descriptor: ZeroMQ sees the connection end and closes it itself) after HOLD_S to
    twice that, not at once: a flood that opens again each connection shut would make the server
    accept and close as fast as it can (on this 2-core machine that took the game's
    p99 from 0.6 to 5-30 ms); held, each costs a descriptor for HOLD_S and the flood
    runs at its number of connections per HOLD_S.  At most HOLD_MOST are held per
    socket; more are shut at once.  Trusted addresses are not counted.

    The events arrive a moment after the fact: a descriptor closed and reused in
    between is counted for its new connection, and its old end then uncounts it; the
    counts come right again with the next events, and every CHECK_EVERY_S the counted
    descriptors are checked against the peers they were counted for.
    """

    def __init__(
        self, socket: zmq.Socket[Any], most: int, trusted: Iterable[str] = LOCAL_ADDRESSES
    ) -> None:
        self.most = most
        self.trusted = frozenset(trusted)
        # the monitor's own queue is unbounded (RCVHWM 0 before connecting): a dropped
        # event would leave a connection uncounted, or counted after its end
        address = f"inproc://lanqi-monitor-{id(self):x}"
        socket.monitor(address, zmq.EVENT_ACCEPTED | zmq.EVENT_DISCONNECTED)
        self.monitor: zmq.Socket[Any] = socket.context.socket(zmq.PAIR)
        self.monitor.setsockopt(zmq.LINGER, 0)
        self.monitor.setsockopt(zmq.RCVHWM, 0)
        self.monitor.connect(address)
        self._socket = socket
        #: each counted connection's descriptor -> its peer (address, port)
        self._by_fd: dict[int, tuple[str, int]] = {}
        self._next_check = 0.0
        #: connections over the cap, shut when their time is up: (when, fd, peer)
        self._held: list[tuple[float, int, tuple[str, int]]] = []
        #: connections open, per limited address
        self.open: Counter[str] = Counter()
        #: connections shut for being over the cap, per address
        self.refused: Counter[str] = Counter()

    def handle(self) -> None:
        """Read up to MONITOR_BATCH waiting events (never blocks): a burst of
        connections waits for the next turn of the loop, not the requests."""
        for _ in range(MONITOR_BATCH):
            try:
                event = recv_monitor_message(self.monitor, zmq.NOBLOCK)
            except zmq.Again:
                break
            fd = int(event["value"])
            if event["event"] == zmq.EVENT_ACCEPTED:
                self._accepted(fd)
            else:
                self._forget(fd)
        self.tick()

    def tick(self) -> None:
        """Shut the held connections whose time is up; check the counts now and then
        (on every turn of the service's loop)."""
        now = time.monotonic()
        for _ in range(MONITOR_BATCH):
            if not self._held or self._held[0][0] > now:
                break
            _, fd, peer = self._held.pop(0)
            if _peer(fd) != peer:
                continue  # it ended already (and its descriptor may be another's)
            with contextlib.suppress(OSError), stdsocket.socket(fileno=os.dup(fd)) as conn:
                conn.shutdown(stdsocket.SHUT_RDWR)
        if now >= self._next_check:
            self._check()

    def shut(self, address: str) -> int:
        """Shut every connection of ``address`` now (it is shut out); how many."""
        fds = [fd for fd, peer in self._by_fd.items() if peer[0] == address]
        fds += [fd for _, fd, peer in self._held if peer[0] == address]
        self._held = [held for held in self._held if held[2][0] != address]
        shut = 0
        for fd in fds:
            with contextlib.suppress(OSError), stdsocket.socket(fileno=os.dup(fd)) as conn:
                if str(conn.getpeername()[0]) == address:
                    conn.shutdown(stdsocket.SHUT_RDWR)
                    shut += 1
        return shut

    def _forget(self, fd: int) -> None:
        peer = self._by_fd.pop(fd, None)
        if peer is not None:
            self.open[peer[0]] -= 1
            if self.open[peer[0]] <= 0:
                del self.open[peer[0]]

    def _check(self) -> None:
        """Uncount the descriptors that are no longer the connection counted (an end
        whose event came before its descriptor's reuse was read)."""
        self._next_check = time.monotonic() + CHECK_EVERY_S
        for fd, peer in list(self._by_fd.items()):
            if _peer(fd) != peer:
                self._forget(fd)

    def _accepted(self, fd: int) -> None:
        if fd in self._by_fd:  # reused before the end of the last one was read
            self._forget(fd)
        try:
            conn = stdsocket.socket(fileno=os.dup(fd))
        except OSError:  # already closed again
            return
        with conn:
            try:
                peer = conn.getpeername()
            except OSError:
                return
            address = str(peer[0])
            if address in self.trusted or self.most <= 0:
                return
            if self.open[address] < self.most:
                self._by_fd[fd] = (address, int(peer[1]))
                self.open[address] += 1
                return
            if len(self._held) >= HOLD_MOST:
                with contextlib.suppress(OSError):
                    conn.shutdown(stdsocket.SHUT_RDWR)
            else:
                # spread over HOLD_S..2*HOLD_S: a flood's connections, accepted in a burst,
                # are not shut (and opened again) in one burst each time
                due = time.monotonic() + HOLD_S * (1.0 + random.random())
                bisect.insort(self._held, (due, fd, (address, int(peer[1]))))
        if not self.refused[address]:
            log.warning(
                "%s holds %d connections, the most one address may (--limit"
                " connections_per_address=%d): more are closed",
                address,
                self.most,
                self.most,
            )
        self.refused[address] += 1

    def close(self) -> None:
        self.monitor.close(linger=0)
        with contextlib.suppress(zmq.ZMQError):  # the socket is closed already
            self._socket.disable_monitor()


def _peer(fd: int) -> tuple[str, int] | None:
    """The peer of the connection on descriptor ``fd`` (None: none now)."""
    try:
        with stdsocket.socket(fileno=os.dup(fd)) as conn:
            peer = conn.getpeername()
    except OSError:
        return None
    return (str(peer[0]), int(peer[1]))
