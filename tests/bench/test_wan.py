"""The bad-network link of :mod:`lanqi.bench.wan`: real TCP across a namespace."""

from __future__ import annotations

import contextlib
import errno
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest

from lanqi.bench.wan import Wan, unavailable

pytestmark = pytest.mark.skipif(unavailable() is not None, reason=str(unavailable()))

#: a client in the namespace: connects, sends one byte N times, prints each round trip in ms
PINGER = """
import socket, sys, time
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=30)
for _ in range(int(sys.argv[3])):
    began = time.monotonic()
    s.sendall(b"x")
    s.recv(1)
    print(round((time.monotonic() - began) * 1000, 1), flush=True)
"""

#: a client that connects once; exits with the errno of a failure (0: connected)
CONNECT = """
import socket, sys
try:
    socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=30).close()
except OSError as e:
    sys.exit(e.errno or 1)
"""


@pytest.fixture
def echo_wan() -> Iterator[tuple[Wan, int]]:
    with Wan() as wan:
        server = socket.create_server((wan.host_address, 0))
        port = server.getsockname()[1]

        def echo() -> None:
            with server:
                while True:
                    try:
                        peer, _ = server.accept()
                    except OSError:
                        return
                    with peer, contextlib.suppress(OSError):  # a cut link may end it
                        while data := peer.recv(100):
                            peer.sendall(data)

        threading.Thread(target=echo, daemon=True).start()
        yield wan, port
        server.close()


def round_trips(wan: Wan, port: int, n: int) -> subprocess.Popen[str]:
    return wan.popen(
        [sys.executable, "-c", PINGER, wan.host_address, str(port), str(n)],
        stdout=subprocess.PIPE,
        text=True,
    )


def test_a_round_trip_costs_the_delay_both_ways(echo_wan: tuple[Wan, int]) -> None:
    wan, port = echo_wan
    with round_trips(wan, port, 3) as quick:
        fast = [float(x) for x in quick.communicate(timeout=30)[0].split()]
    wan.shape(delay_ms=100, jitter_ms=10)
    with round_trips(wan, port, 5) as slow:
        late = [float(x) for x in slow.communicate(timeout=60)[0].split()]
    assert max(fast) < 100
    assert all(ms >= 180 for ms in late), late


def test_a_cut_link_holds_the_bytes_until_it_comes_back(echo_wan: tuple[Wan, int]) -> None:
    wan, port = echo_wan
    pinger = round_trips(wan, port, 1000)
    assert pinger.stdout is not None
    pinger.stdout.readline()
    wan.down()
    # the link is gone: a new connection from the client finds no route at once
    refused = wan.popen([sys.executable, "-c", CONNECT, wan.host_address, str(port)])
    assert refused.wait(30) == errno.ENETUNREACH
    # the pinger kept its socket; once the link is back its next round trips get through
    wan.up()
    for _ in range(5):
        assert pinger.stdout.readline().strip()
    pinger.kill()
    pinger.wait()
