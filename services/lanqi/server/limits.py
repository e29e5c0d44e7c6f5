"""The limits a server puts on people who try things, and the connection cap.

:class:`Limits` holds every number (``--limit NAME=VALUE`` on ``lanqi serve``,
``lanqi matchmaker`` and ``lanqi referee``; the defaults below are the documented
ones, see docs/protocol.md, "People who try things").  The matchmaker's
:class:`~lanqi.matchmaker.guard.Guard` applies the claim-code, name and post limits;
the referee applies the chat limit per address with :class:`AddressWindows`; both
cap the connections one address holds on each bound socket with
:class:`ConnectionCap`.

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

import contextlib
import dataclasses
import logging
import math
import os
import socket as stdsocket
from collections import Counter, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import zmq
from zmq.utils.monitor import recv_monitor_message

__all__ = [
    "LOCAL_ADDRESSES",
    "AddressWindows",
    "ConnectionCap",
    "Limits",
    "limits_help",
]

log = logging.getLogger(__name__)

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


class ConnectionCap:
    """At most ``most`` connections per address on one bound socket (0: no cap).

    ZeroMQ accepts connections on its own threads and does not say who they are from;
    its socket monitor does: each accepted connection's file descriptor
    (``EVENT_ACCEPTED``) and its end (``EVENT_DISCONNECTED``).  :meth:`handle`,
    called when :attr:`monitor` is readable, reads the peer's address of each new
    connection; one over its address's cap is shut down (``shutdown(2)`` on the
    descriptor: ZeroMQ sees the connection end and closes it itself), before it costs
    more than its accept.  Trusted addresses are not counted.

    The events arrive a moment after the fact: a descriptor closed and reused in
    between is counted for its new connection, and its old end then uncounts it; the
    counts come right again with the next events.
    """

    def __init__(
        self, socket: zmq.Socket[Any], most: int, trusted: Iterable[str] = LOCAL_ADDRESSES
    ) -> None:
        self.most = most
        self.trusted = frozenset(trusted)
        self.monitor: zmq.Socket[Any] = socket.get_monitor_socket(
            zmq.EVENT_ACCEPTED | zmq.EVENT_DISCONNECTED
        )
        self.monitor.setsockopt(zmq.LINGER, 0)
        self._socket = socket
        self._by_fd: dict[int, str] = {}
        #: connections open, per limited address
        self.open: Counter[str] = Counter()
        #: connections shut for being over the cap, per address
        self.refused: Counter[str] = Counter()

    def handle(self) -> None:
        """Read the monitor's waiting events (never blocks)."""
        while True:
            try:
                event = recv_monitor_message(self.monitor, zmq.NOBLOCK)
            except zmq.Again:
                return
            fd = int(event["value"])
            if event["event"] == zmq.EVENT_ACCEPTED:
                self._accepted(fd)
            else:
                address = self._by_fd.pop(fd, None)
                if address is not None:
                    self.open[address] -= 1
                    if self.open[address] <= 0:
                        del self.open[address]

    def _accepted(self, fd: int) -> None:
        try:
            peer = stdsocket.socket(fileno=os.dup(fd))
        except OSError:  # already closed again
            return
        with peer:
            try:
                address = str(peer.getpeername()[0])
            except OSError:
                return
            if address in self.trusted or self.most <= 0:
                return
            if self.open[address] < self.most:
                self._by_fd[fd] = address
                self.open[address] += 1
                return
            try:
                peer.shutdown(stdsocket.SHUT_RDWR)
            except OSError:
                return
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
        with contextlib.suppress(zmq.ZMQError):  # the socket is closed already
            self._socket.disable_monitor()
        self.monitor.close(linger=0)
