"""The one serialisation pair used by every socket: ``encode`` and ``decode``.

A request or reply is one frame holding a msgpack map; a broadcast is two
frames, ``[topic, payload]``.  Every map carries ``v`` (the protocol version).

>>> from lanqi.protocol.messages import Sync
>>> frames = encode(Sync(id=7, game_id="g1"))
>>> decode(frames)
Sync(id=7, game_id='g1')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgpack

from lanqi.protocol.schema import Message, ProtocolError, from_wire, to_wire

__all__ = [
    "MAX_MESSAGE_BYTES",
    "PROTOCOL_VERSION",
    "decode",
    "decode_payload",
    "encode",
    "encode_event",
    "error_for",
]

PROTOCOL_VERSION = 1
#: Cap on one frame; services also set ZMQ_MAXMSGSIZE to it on their sockets.
MAX_MESSAGE_BYTES = 1024 * 1024

_UNPACK_LIMITS: dict[str, Any] = {
    "raw": False,
    "strict_map_key": True,
    "max_str_len": MAX_MESSAGE_BYTES,
    "max_bin_len": 0,
    "max_array_len": 4200,
    "max_map_len": 256,
    "max_ext_len": 0,
}


def encode_payload(message: Message) -> bytes:
    data = to_wire(message)
    data["v"] = PROTOCOL_VERSION
    payload: bytes = msgpack.packb(data, use_bin_type=True)
    return payload


def encode(message: Message) -> list[bytes]:
    """Frames of a request or reply (one frame)."""
    return [encode_payload(message)]


def encode_event(topic: str, message: Message) -> list[bytes]:
    """Frames of a broadcast: ``[topic, payload]``."""
    return [topic.encode("utf-8"), encode_payload(message)]


def decode_payload(payload: bytes) -> Message:
    """Decode and validate one payload; raises :class:`ProtocolError`."""
    if len(payload) > MAX_MESSAGE_BYTES:
        raise ProtocolError("too_large", f"message over {MAX_MESSAGE_BYTES} bytes")
    try:
        data = msgpack.unpackb(payload, **_UNPACK_LIMITS)
    except Exception as exc:  # msgpack raises several unrelated types for bad input
        raise ProtocolError("bad_message", f"not valid msgpack: {type(exc).__name__}") from None
    if type(data) is not dict:
        raise ProtocolError("bad_message", "a message must be a msgpack map")
    version = data.get("v")
    if version != PROTOCOL_VERSION:
        request_id = data.get("id") if type(data.get("id")) is int else None
        raise ProtocolError(
            "bad_version",
            f"protocol version {version!r} not supported; this server speaks {PROTOCOL_VERSION}",
            request_id,
        )
    return from_wire(data)


def decode(frames: Sequence[bytes]) -> Message:
    """Decode a request/reply (one frame) or an event (``[topic, payload]``)."""
    if len(frames) not in (1, 2):
        raise ProtocolError("bad_message", f"expected 1 or 2 frames, got {len(frames)}")
    return decode_payload(frames[-1])


def error_for(exc: ProtocolError) -> Message:
    """The error reply for a refused message."""
    from lanqi.protocol.messages import ErrorReply

    return ErrorReply(re=exc.request_id, code=exc.code, msg=exc.msg[:500])
