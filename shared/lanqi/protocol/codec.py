"""The one serialisation pair used by every socket: ``encode`` and ``decode``.

A request or reply is one frame holding a msgpack map; a broadcast is two
frames, ``[topic, payload]``.  Every map carries ``v`` (the protocol version).

>>> from lanqi.protocol.messages import Sync
>>> frames = encode(Sync(id=7, game_id="g1"))
>>> decode(frames)
Sync(id=7, game_id='g1')
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import msgpack

from lanqi.protocol.messages import ErrorReply
from lanqi.protocol.schema import (
    Message,
    ProtocolError,
    Struct,
    from_wire,
    request_id_of,
    struct_to_wire,
    to_wire,
)

__all__ = [
    "MAX_MESSAGE_BYTES",
    "PROTOCOL_VERSION",
    "SharedReply",
    "decode",
    "decode_payload",
    "decode_request",
    "encode",
    "encode_event",
    "error_for",
    "packed_list",
    "packed_struct",
    "read_request_id",
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


@dataclass(frozen=True, slots=True)
class SharedReply:
    """A reply encoded once and sent to many requests: only its ``re`` differs.

    A lobby list read by every GUI after each piece of news is the same bytes for
    all of them; encoding it (1,000 players, about 110 KB) for each request cost
    the matchmaker more than the rest of its work in a crowd.

    >>> from lanqi.protocol.messages import PlayersList
    >>> shared = SharedReply.of(PlayersList(players=[], total=0, online=0))
    >>> decode(shared.frames(7))
    PlayersList(re=7, players=[], total=0, online=0)
    """

    head: bytes  # the map up to the value of ``re``
    tail: bytes  # the rest of the map after it

    @classmethod
    def of(cls, reply: Message, packed: Mapping[str, bytes] | None = None) -> SharedReply:
        """``reply`` encoded for many requests; ``packed``: fields given already
        encoded (msgpack bytes, e.g. :func:`packed_list`), not encoded again."""
        packed = packed or {}
        if packed:  # encode the message without them (empty), then put them in
            empty = {name: type(getattr(reply, name))() for name in packed}
            reply = dataclasses.replace(reply, **empty)  # type: ignore[type-var]
        data = to_wire(reply)
        data["v"] = PROTOCOL_VERSION
        if "re" not in data:
            raise ValueError(f"{reply.T!r} is not a reply: it has no 're'")
        packer = msgpack.Packer(use_bin_type=True)
        parts: list[list[bytes]] = [[packer.pack_map_header(len(data))], []]
        side = 0  # 0: before ``re``'s value, 1: after it
        for key, value in data.items():
            parts[side].append(packer.pack(key))
            if key == "re":
                side = 1
            elif key in packed:
                parts[side].append(packed[key])
            else:
                parts[side].append(packer.pack(value))
        return cls(b"".join(parts[0]), b"".join(parts[1]))

    def frames(self, re: int | None) -> list[bytes]:
        """The reply's frames, answering request ``re``."""
        return [self.head + msgpack.packb(re) + self.tail]


def packed_struct(value: Struct) -> bytes:
    """One nested value (a :class:`PlayerInfo`...) in msgpack, for :func:`packed_list`."""
    packed: bytes = msgpack.packb(struct_to_wire(value), use_bin_type=True)
    return packed


def packed_list(items: Sequence[bytes]) -> bytes:
    """A list of values each packed already (:func:`packed_struct`), in msgpack."""
    header: bytes = msgpack.Packer(use_bin_type=True).pack_array_header(len(items))
    return header + b"".join(items)


def encode_event(topic: str, message: Message) -> list[bytes]:
    """Frames of a broadcast: ``[topic, payload]``."""
    return [topic.encode("utf-8"), encode_payload(message)]


def decode_payload(payload: bytes) -> Message:
    """Decode and validate one payload; raises :class:`ProtocolError`."""
    return from_wire(_read_map(payload))


def decode_request(
    frames: Sequence[bytes],
    accepted: Collection[type[Message]],
    service: str,
    *,
    max_bytes: int = MAX_MESSAGE_BYTES,
) -> Message:
    """Decode a request (one frame) for a ``service`` that handles the ``accepted`` types.

    Any other tag (a reply, an event, the other service's request) is refused with
    ``unknown_type`` before its fields are read, so the client learns it asked the
    wrong service rather than which field is missing.  A payload over ``max_bytes``
    is refused with ``too_large``.  Every refusal carries the request's ``id``
    whenever it can be read, so the client can match it.
    """
    if len(frames) != 1:
        raise ProtocolError(
            "bad_message",
            f"expected 1 payload frame, got {len(frames)}",
            _salvage_id(frames[-1]) if frames else None,
        )
    return from_wire(_read_map(frames[0], max_bytes), accepted, service)


def _read_map(payload: bytes, max_bytes: int = MAX_MESSAGE_BYTES) -> dict[str, Any]:
    """The payload's map, with the version checked; raises :class:`ProtocolError`
    carrying the request's ``id`` whenever that can be read."""
    if len(payload) > max_bytes:
        raise ProtocolError(
            "too_large",
            f"message over {max_bytes} bytes",
            _salvage_id(payload) if len(payload) <= MAX_MESSAGE_BYTES else None,
        )
    try:
        data = msgpack.unpackb(payload, **_UNPACK_LIMITS)
    except Exception as exc:  # msgpack raises several unrelated types for bad input
        raise ProtocolError("bad_message", _unpack_problem(exc), _salvage_id(payload)) from None
    if type(data) is not dict:
        raise ProtocolError("bad_message", "a message must be a msgpack map")
    version = data.get("v")
    if type(version) is not int or version != PROTOCOL_VERSION:  # True == 1.0 == 1
        if "v" not in data:
            problem = "the protocol version 'v' is missing"
        elif type(version) is int:
            problem = f"protocol version {version} not supported"
        else:
            problem = f"'v' must be an integer, got {type(version).__name__} {version!r}"[:200]
        raise ProtocolError(
            "bad_version",
            f"{problem}; this server speaks {PROTOCOL_VERSION}",
            request_id_of(data),
        )
    return data


#: what the unpacker's refusals mean, by a word of its message
_PROBLEMS = (
    ("max_bin_len", "msgpack bin values are not accepted; send strings as str"),
    ("max_ext_len", "msgpack ext values are not accepted"),
    ("max_map_len", f"a map has more than {_UNPACK_LIMITS['max_map_len']} entries"),
    ("max_array_len", f"an array has more than {_UNPACK_LIMITS['max_array_len']} items"),
    ("map key", "map keys must be strings"),
    ("extra data", "extra bytes after the message map"),
)


def _unpack_problem(exc: Exception) -> str:
    text = str(exc).lower()
    for word, problem in _PROBLEMS:
        if word in text:
            return problem
    return f"not valid msgpack: {type(exc).__name__}"


def _salvage_id(payload: bytes) -> int | None:
    """The top-level ``id`` of a payload the strict unpacker refused, if it can be
    read: the map is walked key by key and every other value is skipped unread, so
    a bin value or an oversized map or array elsewhere does not hide the id.  The
    walk is bounded by the payload (at most ``MAX_MESSAGE_BYTES``)."""
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False, max_buffer_size=len(payload))
    found: int | None = None
    try:
        unpacker.feed(payload)
        for _ in range(unpacker.read_map_header()):
            if unpacker.unpack() == "id":
                value = unpacker.unpack()
                found = request_id_of({"id": value})
            else:
                unpacker.skip()
    except Exception:  # the id read so far (if any) is what can be known
        return found
    return found


def read_request_id(frames: Sequence[bytes]) -> int | None:
    """The ``id`` of a request's frames, read without decoding the rest (None: none
    can be read): what a refusal before decoding answers to.

    >>> from lanqi.protocol.messages import Sync
    >>> read_request_id(encode(Sync(id=7, game_id="g1"))), read_request_id([b"junk"])
    (7, None)
    """
    if len(frames) != 1 or len(frames[0]) > MAX_MESSAGE_BYTES:
        return None
    return _salvage_id(frames[0])


def decode(frames: Sequence[bytes]) -> Message:
    """Decode a request/reply (one frame) or an event (``[topic, payload]``)."""
    if len(frames) not in (1, 2):
        raise ProtocolError("bad_message", f"expected 1 or 2 frames, got {len(frames)}")
    return decode_payload(frames[-1])


def error_for(exc: ProtocolError) -> Message:
    """The error reply for a refused message."""
    return ErrorReply(re=exc.request_id, code=exc.code, msg=exc.msg[:500])
