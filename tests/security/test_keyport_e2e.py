"""The key port of a real ``lanqi referee`` process: what it answers, in order, on one
connection (docs/protocol.md, "The key port" and the errors table).

A request over ``KEY_REQUEST_BYTES`` (4,096 bytes) is answered ``too_large``; the
requests before and after it on the same connection keep their answers (it used to
make ZeroMQ drop the connection, and those answers with it).  Anything but
``server_key`` gets the error the errors table names.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgpack
import pytest
import zmq

from lanqi.bench.process import LanqiService
from lanqi.protocol import PROTOCOL_VERSION
from lanqi.security import key_endpoint
from lanqi.security.keyport import KEY_FRAME_BYTES, KEY_REQUEST_BYTES


@pytest.fixture
def key_port(
    referee_service: LanqiService, zmq_context: zmq.Context[Any]
) -> Iterator[zmq.Socket[bytes]]:
    """A DEALER connected to the key port of a referee subprocess."""
    socket = zmq_context.socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 0)
    socket.setsockopt(zmq.RCVTIMEO, 5000)
    socket.connect(key_endpoint(referee_service.endpoints["requests"]))
    try:
        yield socket
    finally:
        socket.close(linger=0)


def pack(**fields: Any) -> bytes:
    data: bytes = msgpack.packb({"v": PROTOCOL_VERSION, **fields})
    return data


def answers(socket: zmq.Socket[bytes], count: int) -> list[dict[str, Any]]:
    return [msgpack.unpackb(socket.recv()) for _ in range(count)]


def test_an_oversized_request_is_answered_after_the_ones_before_it(
    key_port: zmq.Socket[bytes],
) -> None:
    long = pack(t="server_key", id=3, pad="x" * KEY_REQUEST_BYTES)
    assert KEY_REQUEST_BYTES < len(long) < KEY_FRAME_BYTES
    for frame in (pack(t="server_key", id=1), pack(t="server_key", id=2), long):
        key_port.send(frame)  # pipelined on one connection
    key_port.send(pack(t="server_key", id=4))
    replies = answers(key_port, 4)
    assert [(r["t"], r["re"]) for r in replies] == [
        ("key", 1),
        ("key", 2),
        ("error", 3),
        ("key", 4),
    ]
    assert replies[2]["code"] == "too_large"
    assert str(KEY_REQUEST_BYTES) in replies[2]["msg"]
    assert replies[0]["key"] == replies[3]["key"] and len(replies[0]["key"]) == 40


def test_the_key_port_answers_other_requests_as_the_errors_table_says(
    key_port: zmq.Socket[bytes],
) -> None:
    asked = [
        ([pack(t="hello", id=5, name="ann")], "unknown_type", 5),
        ([pack(t="sync", id=6, game_id="g")], "unknown_type", 6),
        ([b"\xc1 not msgpack"], "bad_message", None),
        ([msgpack.packb({"t": "server_key", "id": 7, "v": 99})], "bad_version", 7),
        ([pack(t="server_key", id=8), pack(t="server_key", id=9)], "bad_message", 9),
    ]
    for frames, _, _ in asked:
        key_port.send_multipart(frames)
    replies = answers(key_port, len(asked))
    assert [(r["t"], r["code"], r["re"]) for r in replies] == [
        ("error", code, re) for _, code, re in asked
    ]
