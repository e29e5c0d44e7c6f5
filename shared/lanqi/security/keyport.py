"""The key port: a plain (unencrypted) ROUTER beside each service that answers one
request, ``server_key``, with the service's public key.  Trust on first use needs the
key before CURVE can start; a pinned client checks it against its pin, so a forged
answer is refused, and no secret ever travels here.

By default a service's key port is its request port + :data:`KEY_PORT_OFFSET`
(5054 for the matchmaker on 5050, 5056 for a referee on 5052); that is where a
client that was given only ``HOST:PORT`` asks.
"""

from __future__ import annotations

import logging
from typing import Any

import zmq

from lanqi.protocol import (
    MAX_MESSAGE_BYTES,
    GetServerKey,
    Message,
    ProtocolError,
    ServerKey,
    decode,
    decode_request,
    encode,
    error_for,
)
from lanqi.protocol.endpoints import host_of, tcp
from lanqi.security.errors import NoServerKey
from lanqi.security.keys import KeyPair

__all__ = [
    "KEY_FRAME_BYTES",
    "KEY_PORT_OFFSET",
    "KEY_REQUEST_BYTES",
    "KeyResponder",
    "fetch_server_key",
    "key_endpoint",
]

log = logging.getLogger(__name__)

#: a service's key port is its request port plus this
KEY_PORT_OFFSET = 4
#: requests answered per call of :meth:`KeyResponder.handle`
MAX_BATCH = 64
#: the longest request the key port answers (a longer frame gets ``too_large``)
KEY_REQUEST_BYTES = 4096
#: the key port's socket limit (ZMQ_MAXMSGSIZE): a longer frame makes ZeroMQ drop
#: the connection, and the replies still due on it with it
KEY_FRAME_BYTES = 65536


def key_endpoint(endpoint: str) -> str:
    """The key port of the service whose request endpoint is ``endpoint``.

    >>> key_endpoint("tcp://192.168.1.20:5050")
    'tcp://192.168.1.20:5054'
    """
    port = int(endpoint.rpartition(":")[2])
    return tcp(host_of(endpoint), port + KEY_PORT_OFFSET)


class KeyResponder:
    """The plain ROUTER of a key port; a service polls :attr:`socket` in its loop
    and calls :meth:`handle` when it is readable."""

    def __init__(
        self,
        context: zmq.Context[Any],
        keys: KeyPair | None,
        *,
        service: str,
        name: str = "",
    ) -> None:
        self.answer = ServerKey(
            key=None if keys is None else keys.public.decode("ascii"),
            secure=keys is not None,
            service=service,
            name=name,
        )
        self.socket: zmq.Socket[bytes] = context.socket(zmq.ROUTER)
        self.socket.setsockopt(zmq.LINGER, 0)
        # The socket's cap is well above the longest request: a frame between the two
        # is answered too_large, in order, so the requests before it on the same
        # connection keep their answers (ZeroMQ drops a connection at the cap).
        self.socket.setsockopt(zmq.MAXMSGSIZE, KEY_FRAME_BYTES)
        self.endpoint = ""

    def handle(self) -> None:
        """Answer the requests waiting (never blocks)."""
        for _ in range(MAX_BATCH):
            try:
                frames = self.socket.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                return
            if len(frames) < 2:
                continue
            reply: Message
            try:
                request = decode_request(
                    frames[1:], (GetServerKey,), "key port", max_bytes=KEY_REQUEST_BYTES
                )
                reply = ServerKey(
                    re=getattr(request, "id", 0),
                    key=self.answer.key,
                    secure=self.answer.secure,
                    service=self.answer.service,
                    name=self.answer.name,
                )
            except ProtocolError as exc:
                reply = error_for(exc)
            self.socket.send_multipart([frames[0], *encode(reply)])

    def close(self) -> None:
        self.socket.close(linger=0)


def fetch_server_key(
    endpoint: str, context: zmq.Context[Any] | None = None, timeout_ms: int = 3000
) -> ServerKey:
    """Ask the key port of the service at ``endpoint`` (its request endpoint) for its
    key; :class:`NoServerKey` (one line) if it does not answer in time."""
    where = key_endpoint(endpoint)
    ctx = context or zmq.Context.instance()
    socket: zmq.Socket[bytes] = ctx.socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 0)
    socket.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)
    try:
        socket.connect(where)
        socket.send_multipart(encode(GetServerKey(id=1)))
        if not socket.poll(timeout_ms, zmq.POLLIN):
            raise NoServerKey(
                f"no answer from {where}, the key port of {endpoint}, within"
                f" {timeout_ms / 1000:g} s: is a lanqi server running there, and its key"
                " port reachable?"
            )
        try:
            reply = decode(socket.recv_multipart())
        except ProtocolError as exc:
            raise NoServerKey(f"{where} is not a lanqi key port ({exc.msg})") from None
    finally:
        socket.close(linger=0)
    if not isinstance(reply, ServerKey) or (reply.secure and not reply.key):
        raise NoServerKey(f"{where} is not a lanqi key port (it answered {reply.T!r})")
    return reply
