"""CURVE on a ZeroMQ socket: the server side, the client side (:class:`Link`), and
:class:`HandshakeWatch`, which turns a failed handshake into a one-line refusal
instead of a request that waits forever.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import zmq
from zmq.utils.monitor import recv_monitor_message

from lanqi.security.errors import HandshakeRefused, NoServerKey
from lanqi.security.keyport import fetch_server_key
from lanqi.security.keys import KeyPair, fingerprint
from lanqi.security.known import address_of

__all__ = ["HandshakeWatch", "Link", "confirm", "curve_client", "curve_server", "refusal"]

#: the ZAP status a server's gate refuses a shut-out (flooding) address with
#: (lanqi.server.gate): ZeroMQ sends it to the client, whose monitor sees
#: EVENT_HANDSHAKE_FAILED_AUTH with this value, and does not reconnect that socket
#: (a 300 would close the connection without a word, and the client would try again)
SHUT_OUT_STATUS = 400
#: how long a key-port check of an ambiguous handshake failure waits for an answer
CONFIRM_TIMEOUT_MS = 2000

_FAILED = (
    zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL
    | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL
    | zmq.EVENT_HANDSHAKE_FAILED_AUTH
)


def curve_server(socket: zmq.Socket[Any], keys: KeyPair | None) -> None:
    """Make a socket that binds a CURVE server with ``keys`` (None: plain ZeroMQ, for
    ``--insecure``).  Call before ``bind``."""
    if keys is None:
        return
    socket.setsockopt(zmq.CURVE_SERVER, 1)
    socket.setsockopt(zmq.CURVE_SECRETKEY, keys.secret)
    socket.setsockopt(zmq.CURVE_PUBLICKEY, keys.public)


def curve_client(socket: zmq.Socket[Any], server_public: bytes, client: KeyPair) -> None:
    """Make a socket that connects a CURVE client of the server whose public key is
    ``server_public``, as ``client``.  Call before ``connect``."""
    socket.setsockopt(zmq.CURVE_SERVERKEY, server_public)
    socket.setsockopt(zmq.CURVE_PUBLICKEY, client.public)
    socket.setsockopt(zmq.CURVE_SECRETKEY, client.secret)


@dataclass(frozen=True, slots=True)
class Link:
    """How a client's sockets talk to one server: CURVE with the server's public key
    (``server_key``, Z85), or plain ZeroMQ when it is None (a server run with
    ``--insecure``).  ``client`` is the client's own pair: ephemeral unless given (a
    matchmaker gives its server pair, so referees can allow it by its key)."""

    server_key: bytes | None
    client: KeyPair = field(default_factory=KeyPair.ephemeral)

    @classmethod
    def to(cls, key: str | bytes | None, client: KeyPair | None = None) -> Link:
        """A link to a server with this public key (None: plain)."""
        raw = key.encode("ascii") if isinstance(key, str) else key
        return cls(raw, client) if client is not None else cls(raw)

    @classmethod
    def plain(cls) -> Link:
        return cls(None)

    @property
    def secure(self) -> bool:
        return self.server_key is not None

    @property
    def key_text(self) -> str | None:
        """The server key as text (for messages), or None."""
        return None if self.server_key is None else self.server_key.decode("ascii")

    def setup(self, socket: zmq.Socket[Any]) -> None:
        """Set the socket's CURVE options (nothing for a plain link); before ``connect``."""
        if self.server_key is not None:
            curve_client(socket, self.server_key, self.client)


class HandshakeWatch:
    """Watches one client socket's handshakes (a socket monitor) and raises
    :class:`HandshakeRefused` with what to do when the server turns one down.

    ``poll(timeout_ms)`` waits for the socket to be readable like ``socket.poll``,
    but returns early with the refusal.  A mechanism mismatch (one side without
    CURVE) and a ZAP refusal are certain; a CURVE server that does not hold the key
    the client trusts just hangs up, as a server killed during a handshake does, so
    such a failure is confirmed by asking the server's key port (at most every
    :data:`CONFIRM_EVERY_S`) and taken as passing when it still offers that key or
    does not answer.
    """

    #: the monitor events of a failed handshake
    FAILED = _FAILED
    #: seconds between two key-port checks of an ambiguous failure
    CONFIRM_EVERY_S = 2.0

    def __init__(self, socket: zmq.Socket[Any], endpoint: str, link: Link) -> None:
        self.socket = socket
        self.endpoint = endpoint
        self.link = link
        #: connections lost so far (a socket has one monitor: others may read this)
        self.disconnects = 0
        self.monitor: zmq.Socket[bytes] | None = socket.get_monitor_socket(
            _FAILED | zmq.EVENT_DISCONNECTED
        )
        self._poller = zmq.Poller()
        self._poller.register(socket, zmq.POLLIN)
        self._poller.register(self.monitor, zmq.POLLIN)
        self._next_confirm = 0.0

    def close(self) -> None:
        if self.monitor is not None:
            self.socket.disable_monitor()
            self.monitor.close(linger=0)
            self.monitor = None

    def check(self) -> None:
        """Raise the refusal for a failed handshake seen so far (waits only for a
        key-port check)."""
        while self.monitor is not None and self.monitor.poll(0, zmq.POLLIN):
            event = recv_monitor_message(self.monitor)
            kind, value = int(event["event"]), int(event["value"])
            if kind == zmq.EVENT_DISCONNECTED:
                self.disconnects += 1
                continue
            certain = refusal(self.endpoint, self.link, kind, value)
            if certain is not None:
                raise HandshakeRefused(certain)
            if time.monotonic() >= self._next_confirm:
                self._next_confirm = time.monotonic() + self.CONFIRM_EVERY_S
                confirmed = confirm(self.endpoint, self.link, self.socket.context)
                if confirmed is not None:
                    raise HandshakeRefused(confirmed)

    def poll(self, timeout_ms: int) -> bool:
        """Whether the socket became readable within ``timeout_ms``; raises
        :class:`HandshakeRefused` as soon as the server refuses the handshake."""
        if self.monitor is None:
            return bool(self.socket.poll(timeout_ms, zmq.POLLIN))
        deadline = time.monotonic() + timeout_ms / 1000
        while True:  # monitor events wake the poll: wait on for the socket
            left = max(0, round((deadline - time.monotonic()) * 1000))
            ready = dict(self._poller.poll(left))
            self.check()
            if self.socket in ready:
                return True
            if left == 0:
                return False


def refusal(endpoint: str, link: Link, event: int, value: int) -> str | None:
    """One line for a handshake failure (monitor ``event`` and its ``value``) that
    certainly is a refusal, saying what to do; None when it may be a passing fault
    (see :func:`confirm`)."""
    where = address_of(endpoint)
    if event == zmq.EVENT_HANDSHAKE_FAILED_AUTH:
        return (
            f"{where} refused this machine: it takes no connection from an address shut"
            " out for sending far more requests than a client needs (the director can"
            " lift it: `lanqi lobby unlock ADDRESS`), nor a client key it was not given"
        )
    if value != zmq.PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH:
        return None
    if not link.secure:
        return (
            f"{where} requires encryption (CURVE) and this client has no key for it;"
            " lanqi's own clients get it from the server's key port (docs/protocol.md)"
        )
    return (
        f"{where} does not speak CURVE (was it restarted with --insecure?);"
        " connect again to learn how it runs now"
    )


def confirm(endpoint: str, link: Link, context: zmq.Context[Any]) -> str | None:
    """Ask the key port whether an ambiguous handshake failure means the server holds
    another key than ``link`` trusts: one line saying so, or None (same key, or no
    answer: a passing fault, the socket keeps trying)."""
    if not link.secure:
        return None
    try:
        answer = fetch_server_key(endpoint, context, CONFIRM_TIMEOUT_MS)
    except NoServerKey:
        return None
    where = address_of(endpoint)
    trusted = fingerprint(link.key_text or "")
    if not answer.secure:
        return (
            f"{where} now runs without encryption (--insecure), not with the key this"
            f" client trusts ({trusted}); connect again to learn how it runs now"
        )
    if answer.key == link.key_text:
        return None
    return (
        f"{where} did not accept the encrypted handshake: it holds key"
        f" {fingerprint(answer.key or '')}, not {trusted}, which this client trusts; if the"
        f" server was reinstalled, run `lanqi servers forget {where}` and connect again"
    )
