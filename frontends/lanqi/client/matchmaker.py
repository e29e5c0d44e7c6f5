"""A small synchronous matchmaker client (for the CLI, the demo and tests).

Requests wait for the reply with their id; private pushes (``game_assigned``,
``challenge_received``...) that arrive meanwhile are kept in :attr:`pushes`.
Lobby and tournament events come through a SUB on the matchmaker's PUB, whose
endpoint the client learns from the matchmaker (``server_info``) unless it is given.
"""

from __future__ import annotations

import dataclasses
import time
from collections import deque
from typing import Any, Self, TypeVar

import zmq

from lanqi.protocol import (
    ErrorReply,
    GameAssigned,
    GetServerInfo,
    Hello,
    Message,
    PlayerKind,
    RefereeEndpoints,
    Request,
    ServerInfo,
    Welcome,
    decode,
    decode_payload,
    encode,
)
from lanqi.protocol.endpoints import reachable
from lanqi.security import HandshakeWatch, KnownServers, Link, trust_server

__all__ = ["MatchmakerClient", "MatchmakerRefused", "MatchmakerTimeout", "referee_link"]

R = TypeVar("R", bound=Message)


class MatchmakerTimeout(TimeoutError):  # noqa: N818 - reads as what happened
    """No reply in time."""


class MatchmakerRefused(Exception):  # noqa: N818 - reads as what happened
    """The matchmaker answered with an error reply."""

    def __init__(self, code: str, msg: str) -> None:
        super().__init__(f"{code}: {msg}")
        self.code = code
        self.msg = msg


class MatchmakerClient:
    """DEALER for requests and pushes, SUB for ``lobby`` and ``tour/<id>`` events.

    ``link`` says how to talk to the matchmaker (its CURVE key); without it the
    matchmaker's key port is asked and the key checked against (or pinned in)
    ``known``, the data directory's pins by default; ``key`` is the server's key
    from elsewhere (an mDNS announcement), checked the same way.  Refusals are one
    line (:class:`~lanqi.security.SecurityError`), including a handshake the server
    turns down, raised by the request that meets it.
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
        self.context = context or zmq.Context.instance()
        self.timeout_ms = timeout_ms
        if link is None:
            known = known or KnownServers.of()
            link = trust_server(endpoint, known=known, key=key, context=self.context)
        self.link = link
        self.dealer = self.context.socket(zmq.DEALER)
        self.dealer.setsockopt(zmq.LINGER, 0)
        link.setup(self.dealer)
        self.handshake = HandshakeWatch(self.dealer, endpoint, link)
        self.dealer.connect(endpoint)
        self.endpoint = endpoint
        self.sub: zmq.Socket[bytes] | None = None
        if pub_endpoint:
            self._connect_sub(pub_endpoint)
        self.pushes: deque[Message] = deque()
        self.welcome: Welcome | None = None
        self._info: ServerInfo | None = None
        self._next_id = 0

    def _connect_sub(self, pub_endpoint: str) -> None:
        self.sub = self.context.socket(zmq.SUB)
        self.sub.setsockopt(zmq.LINGER, 0)
        self.link.setup(self.sub)
        self.sub.connect(pub_endpoint)

    def close(self) -> None:
        self.handshake.close()
        self.dealer.close(linger=0)
        if self.sub is not None:
            self.sub.close(linger=0)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def next_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def request(self, message: Request, timeout_ms: int | None = None) -> Message:
        """Send ``message`` (its id is assigned here) and wait for its reply."""
        request_id = self.next_id()
        self.dealer.send_multipart(encode(dataclasses.replace(message, id=request_id)))
        deadline = time.monotonic() + (timeout_ms or self.timeout_ms) / 1000
        while True:
            left = int((deadline - time.monotonic()) * 1000)
            if left <= 0 or not self.handshake.poll(left):
                raise MatchmakerTimeout(f"no answer to {message.T} in time")
            reply = decode(self.dealer.recv_multipart())
            re = getattr(reply, "re", None)
            if re == request_id:
                return reply
            if re is None:
                self.pushes.append(reply)

    def call(self, message: Request, expect: type[R], timeout_ms: int | None = None) -> R:
        """Like :meth:`request`, raising :class:`MatchmakerRefused` on an error reply."""
        reply = self.request(message, timeout_ms)
        if isinstance(reply, ErrorReply):
            raise MatchmakerRefused(reply.code, reply.msg)
        if not isinstance(reply, expect):
            raise MatchmakerRefused("bad_reply", f"expected {expect.T}, got {reply.T}")
        return reply

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
        who: PlayerKind = "bot" if kind == "bot" else "human"
        self.welcome = self.call(Hello(name=name, kind=who, session=session, claim=claim), Welcome)
        self.pushes.extend(_assigned(self.welcome))
        return self.welcome

    def next_push(self, timeout_ms: int = 0) -> Message | None:
        """The next private push (kept ones first)."""
        if self.pushes:
            return self.pushes.popleft()
        if self.handshake.poll(timeout_ms):
            reply = decode(self.dealer.recv_multipart())
            if getattr(reply, "re", None) is None:
                return reply
        return None

    def server_info(self) -> ServerInfo:
        """Where the matchmaker publishes and where its referees are, as this client
        reaches them (a wildcard or loopback host becomes the matchmaker's host)."""
        if self._info is None:
            info = self.call(GetServerInfo(), ServerInfo)
            self._info = ServerInfo(
                re=info.re,
                events=reachable(info.events, self.endpoint),
                referees=[
                    RefereeEndpoints(
                        endpoint=reachable(r.endpoint, self.endpoint),
                        events=reachable(r.events, self.endpoint),
                        key=r.key,
                    )
                    for r in info.referees
                ],
            )
        return self._info

    def subscribe(self, topic: str) -> None:
        """Subscribe to ``topic`` (connecting to the learnt event endpoint if none was given)."""
        if self.sub is None:
            self._connect_sub(self.server_info().events)
        assert self.sub is not None
        self.sub.setsockopt(zmq.SUBSCRIBE, topic.encode())

    def next_event(self, timeout_ms: int = 0) -> Message | None:
        if self.sub is None or not self.sub.poll(timeout_ms):
            return None
        return decode_payload(self.sub.recv_multipart()[-1])


def referee_link(key: str | None) -> Link | None:
    """How to reach a referee the matchmaker named with ``key`` (``server_info``,
    ``game_assigned``): that key, trusted through the matchmaker; None when it gave
    none (the referee's key port is asked then)."""
    return Link.to(key) if key else None


def _assigned(welcome: Welcome) -> list[Message]:
    return [GameAssigned(game=game) for game in welcome.games]
