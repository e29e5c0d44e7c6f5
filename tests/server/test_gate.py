"""The connection gate: a real ZAP handler judging real CURVE and plain connections
from other loopback addresses (127.0.0.2, ...: other machines, as a server sees them)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
import zmq
from zmq.utils.monitor import recv_monitor_message

from lanqi.security import HandshakeRefused, KeyPair
from lanqi.security.curve import (
    SHUT_OUT_STATUS,
    HandshakeWatch,
    Link,
    curve_client,
    curve_server,
)
from lanqi.server.gate import ZAP_DOMAIN, Gate
from lanqi.server.limits import ConnectionCap, Limits, RequestBuckets, Verdict

SERVER_KEYS = KeyPair.ephemeral()
CLIENT_KEYS = KeyPair.ephemeral()
#: how long an answer or a handshake's outcome is waited for
WAIT_MS = 5_000


@pytest.fixture
def gate(zmq_context: zmq.Context[Any]) -> Iterator[Gate]:
    gate = Gate.open(zmq_context)
    yield gate
    gate.close()


def echo_server(context: zmq.Context[Any], *, secure: bool) -> tuple[zmq.Socket[bytes], str]:
    """A ROUTER bound as a service binds it (CURVE or plain, the gate's domain)."""
    router = context.socket(zmq.ROUTER)
    router.setsockopt(zmq.LINGER, 0)
    curve_server(router, SERVER_KEYS if secure else None)
    router.setsockopt_string(zmq.ZAP_DOMAIN, ZAP_DOMAIN)
    router.bind("tcp://127.0.0.1:0")
    return router, router.getsockopt_string(zmq.LAST_ENDPOINT)


def client(
    context: zmq.Context[Any], endpoint: str, source: str, *, secure: bool
) -> tuple[zmq.Socket[bytes], zmq.Socket[bytes]]:
    """A DEALER from ``source`` and its monitor (handshake outcomes)."""
    dealer = context.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    if secure:
        curve_client(dealer, SERVER_KEYS.public, CLIENT_KEYS)
    monitor = dealer.get_monitor_socket(
        zmq.EVENT_HANDSHAKE_SUCCEEDED | zmq.EVENT_HANDSHAKE_FAILED_AUTH
    )
    dealer.connect(f"tcp://{source}:0;{endpoint.removeprefix('tcp://')}")
    return dealer, monitor


def handshake(monitor: zmq.Socket[bytes]) -> tuple[int, int]:
    """The next handshake outcome: (event, value)."""
    assert monitor.poll(WAIT_MS), "no handshake outcome"
    event = recv_monitor_message(monitor)
    return int(event["event"]), int(event["value"])


def echoed(router: zmq.Socket[bytes], dealer: zmq.Socket[bytes]) -> zmq.Frame:
    dealer.send(b"hi")
    assert router.poll(WAIT_MS), "the request never arrived"
    _identity, frame = router.recv_multipart(copy=False)
    return frame


@pytest.mark.parametrize("secure", [True, False], ids=["curve", "plain"])
def test_a_shut_out_address_is_refused_in_the_handshake_until_it_ends_or_is_lifted(
    gate: Gate, zmq_context: zmq.Context[Any], secure: bool
) -> None:
    router, endpoint = echo_server(zmq_context, secure=secure)
    now = time.monotonic()
    shut = gate.shut_out("127.0.0.2", first_s=60.0, most_s=3600.0, dropped=500, now=now)
    assert (shut.times, shut.retry_s(now)) == (1, 60)
    assert [a for a, _ in gate.shut_outs(now)] == ["127.0.0.2"]

    refused, refused_monitor = client(zmq_context, endpoint, "127.0.0.2", secure=secure)
    assert handshake(refused_monitor) == (zmq.EVENT_HANDSHAKE_FAILED_AUTH, SHUT_OUT_STATUS)
    other, other_monitor = client(zmq_context, endpoint, "127.0.0.3", secure=secure)
    assert handshake(other_monitor)[0] == zmq.EVENT_HANDSHAKE_SUCCEEDED
    frame = echoed(router, other)
    assert frame.get("Peer-Address") == "127.0.0.3"
    if secure:  # the gate names a CURVE connection by its client key
        assert frame.get("User-Id") == CLIENT_KEYS.public.decode("ascii")
    assert gate.refused >= 1

    assert gate.lift("127.0.0.2") and not gate.lift("127.0.0.2")
    back, back_monitor = client(zmq_context, endpoint, "127.0.0.2", secure=secure)
    assert handshake(back_monitor)[0] == zmq.EVENT_HANDSHAKE_SUCCEEDED
    assert echoed(router, back).bytes == b"hi"
    # the next shut-out of the same address lasts twice as long
    again = gate.shut_out("127.0.0.2", first_s=60.0, most_s=90.0, dropped=0, now=now)
    assert (again.times, again.retry_s(now)) == (2, 90)
    for socket in (refused, refused_monitor, back, back_monitor, other, other_monitor, router):
        socket.close(linger=0)


def test_services_of_one_context_share_its_gate(zmq_context: zmq.Context[Any]) -> None:
    first, second = Gate.open(zmq_context), Gate.open(zmq_context)
    assert first is second
    first.close()
    now = time.monotonic()
    second.shut_out("10.0.0.9", first_s=1.0, most_s=1.0, dropped=0, now=now)
    assert second.is_shut("10.0.0.9", now) and not second.is_shut("10.0.0.9", now + 1.0)
    second.close()
    third = Gate.open(zmq_context)  # a new gate once the last one closed
    assert third is not first and not third.is_shut("10.0.0.9", now)
    third.close()


def test_a_flood_gets_one_shut_out_and_no_burst_after_it() -> None:
    buckets = RequestBuckets(rate=10.0, burst=5, shut_out=True)
    verdicts = [buckets.take("10.0.0.9", 0.001 * i) for i in range(30)]
    assert verdicts[:5] == [Verdict.SERVE] * 5
    # over the limit: refused once, dropped, and on the 11th drop within a second shut out
    assert verdicts[5] is Verdict.REFUSE
    assert verdicts[6:16] == [Verdict.DROP] * 10 and verdicts[16] is Verdict.SHUT_OUT
    buckets.emptied("10.0.0.9", until=60.0)
    assert buckets.take("10.0.0.9", 59.0) is not Verdict.SERVE
    assert buckets.take("10.0.0.9", 60.15) is Verdict.SERVE  # refilled from the end only
    assert buckets.take("10.0.0.9", 60.15) is not Verdict.SERVE
    quiet = RequestBuckets(rate=10.0, burst=5)  # shut_out off: dropped, never shut out
    assert Verdict.SHUT_OUT not in [quiet.take("10.0.0.9", 0.001 * i) for i in range(100)]


def test_a_flooding_address_is_shut_out_by_a_service_and_its_connection_closed(
    gate: Gate, zmq_context: zmq.Context[Any]
) -> None:
    router, endpoint = echo_server(zmq_context, secure=True)
    cap = ConnectionCap(router, 64)
    dealer, monitor = client(zmq_context, endpoint, "127.0.0.4", secure=True)
    assert handshake(monitor)[0] == zmq.EVENT_HANDSHAKE_SUCCEEDED
    while not cap.open["127.0.0.4"]:
        assert cap.monitor.poll(WAIT_MS)
        cap.handle()
    buckets = RequestBuckets(rate=10.0, burst=5, shut_out=True)
    buckets.dropped["127.0.0.4"] = 11
    gate.shut_out_flood("127.0.0.4", buckets, [cap], Limits(shut_out_first_s=30.0))
    assert gate.is_shut("127.0.0.4", time.monotonic())
    # its connection is closed, and its reconnection refused
    assert handshake(monitor) == (zmq.EVENT_HANDSHAKE_FAILED_AUTH, SHUT_OUT_STATUS)
    assert buckets.take("127.0.0.4", time.monotonic()) is not Verdict.SERVE
    cap.close()
    for socket in (dealer, monitor, router):
        socket.close(linger=0)


def test_a_lanqi_client_shut_out_is_told_so_in_one_line(
    gate: Gate, zmq_context: zmq.Context[Any]
) -> None:
    router, endpoint = echo_server(zmq_context, secure=True)
    gate.shut_out("127.0.0.5", first_s=60.0, most_s=60.0, dropped=0, now=time.monotonic())
    dealer = zmq_context.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    link = Link.to(SERVER_KEYS.public)
    link.setup(dealer)
    watch = HandshakeWatch(dealer, endpoint, link)
    dealer.connect(f"tcp://127.0.0.5:0;{endpoint.removeprefix('tcp://')}")
    with pytest.raises(HandshakeRefused, match=r"refused this machine: .*lanqi lobby unlock"):
        watch.poll(WAIT_MS)
    watch.close()
    for socket in (dealer, router):
        socket.close(linger=0)
