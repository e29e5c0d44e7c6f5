"""A blocking matchmaker client for the CLI, the demo and tests: a thin face on the
one client connection (:mod:`lanqi.client.connection`).

Requests wait for the reply with their id; private pushes (``game_assigned``,
``challenge_received``...) that arrive meanwhile are kept in :attr:`pushes`.
Lobby and tournament events come through the connection's SUB on the matchmaker's
PUB, whose endpoint it learns from the matchmaker (``server_info``) unless it is
given.  The connection reconnects by its one policy and says hello again with the
session; its errors are the connection's (:class:`MatchmakerRefused` is
:class:`~lanqi.client.connection.Refused`, :class:`MatchmakerTimeout` is
:class:`~lanqi.client.connection.NoAnswer`).
"""

from __future__ import annotations

import time
from collections import deque
from typing import Any, Self, TypeVar

import zmq

from lanqi.client.connection import BlockingConnection, NoAnswer, Refused
from lanqi.protocol import (
    GameAssigned,
    GameResult,
    Hello,
    LobbyEvent,
    Message,
    Request,
    ServerInfo,
    TournamentEvent,
    Welcome,
)
from lanqi.security import KnownServers, Link
from lanqi.table.port import Answered, LinkChanged

__all__ = ["MatchmakerClient", "MatchmakerRefused", "MatchmakerTimeout", "referee_link"]

R = TypeVar("R", bound=Message)

#: the names the callers use for the connection's errors
MatchmakerTimeout = NoAnswer
MatchmakerRefused = Refused


class MatchmakerClient:
    """The matchmaker through a :class:`~lanqi.client.connection.BlockingConnection`.

    ``link`` says how to talk to the matchmaker (its CURVE key); without it the
    matchmaker's key port is asked (here, so a silent server raises
    :class:`~lanqi.security.NoServerKey` at once) and the key checked against (or
    pinned in) ``known``, the data directory's pins by default; ``key`` is the
    server's key from elsewhere (an mDNS announcement), checked the same way.
    Refusals are one line (:class:`~lanqi.security.SecurityError`).
    """

    def __init__(  # noqa: PLR0913 - keyword-only: how and where to connect
        self,
        endpoint: str,
        pub_endpoint: str | None = None,
        *,
        context: zmq.Context[Any] | None = None,
        timeout_ms: int = 5000,
        link: Link | None = None,
        known: KnownServers | None = None,
        key: str | None = None,
    ) -> None:
        del context  # the connection's loop has its own
        self.endpoint = endpoint
        self.timeout_ms = timeout_ms
        self.connection = BlockingConnection(
            endpoint, events=pub_endpoint, key=key, known=known, link=link, name="lanqi-client"
        )
        try:
            self.link: Link = self.connection.run(self.connection.connection.matchmaker_link())
        except BaseException:
            self.connection.close()
            raise
        self.pushes: deque[Message] = deque()
        self.events: deque[Message] = deque()
        self.welcome: Welcome | None = None

    def close(self) -> None:
        self.connection.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _timeout(self, timeout_ms: int | None) -> float:
        return (timeout_ms or self.timeout_ms) / 1000

    def request(self, message: Request, timeout_ms: int | None = None) -> Message:
        """Send ``message`` (its id is assigned by the connection) and wait for its reply."""
        return self.connection.request(message, self._timeout(timeout_ms))

    def call(self, message: Request, expect: type[R], timeout_ms: int | None = None) -> R:
        """Like :meth:`request`, raising :class:`MatchmakerRefused` on an error reply."""
        return self.connection.call(message, expect, self._timeout(timeout_ms))

    def hello(
        self,
        name: str,
        *,
        kind: str = "human",
        session: str | None = None,
        claim: str | None = None,
    ) -> Welcome:
        """Say hello (with a ``session`` to reconnect, a ``claim`` code to take over a
        roster entry)."""
        hello = Hello(name=name, kind=kind, session=session, claim=claim)
        self.welcome = self.call(hello, Welcome)
        self.connection.connection.welcomed(hello, self.welcome)
        self.pushes.extend(GameAssigned(game=game) for game in self.welcome.games)
        return self.welcome

    def _sort(self, timeout_s: float) -> None:
        """Move what the connection heard into :attr:`pushes` and :attr:`events`."""
        for item in self.connection.inbox(timeout_s):
            if isinstance(item, LobbyEvent | TournamentEvent | GameResult):
                self.events.append(item)
            elif isinstance(item, Welcome):  # said again after a lost link
                self.welcome = item
            elif isinstance(item, Message) and not isinstance(item, Answered | LinkChanged):
                self.pushes.append(item)

    def _next(self, queue: deque[Message], timeout_ms: int) -> Message | None:
        deadline = time.monotonic() + timeout_ms / 1000
        self._sort(0)
        while not queue:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self._sort(left)
        return queue.popleft()

    def next_push(self, timeout_ms: int = 0) -> Message | None:
        """The next private push (kept ones first)."""
        return self._next(self.pushes, timeout_ms)

    def server_info(self) -> ServerInfo:
        """Where the matchmaker publishes and where its referees are, as this client
        reaches them (a wildcard or loopback host becomes the matchmaker's host)."""
        return self.connection.server_info()

    def subscribe(self, topic: str) -> None:
        """Subscribe to ``topic`` (on the given event endpoint, or the one learnt)."""
        self.connection.subscribe(topic)

    def next_event(self, timeout_ms: int = 0) -> Message | None:
        """The next message on a subscribed topic, or None after ``timeout_ms``."""
        return self._next(self.events, timeout_ms)


def referee_link(key: str | None) -> Link | None:
    """How to reach a referee the matchmaker named with ``key`` (``server_info``,
    ``game_assigned``): that key, trusted through the matchmaker; None when it gave
    none (the referee's key port is asked then)."""
    return Link.to(key) if key else None
