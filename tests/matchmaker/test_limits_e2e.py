"""Floods against a real ``lanqi serve`` while a real game is played: chat from one
address over many connections, a connection flood, a client that never reads; and
lock-outs that outlive a restart of the matchmaker.

Each attacker is a process of its own (``flood_attacker.py``) connecting from another
loopback address (127.0.0.2, ...), which the server sees as another machine.  Two
players (the test, from 127.0.0.1) play random xiangqi games before and during each
attack: the move round trip's p99 under attack stays within P99_RATIO of the quiet
run's, both measured in the same test (a ratio of two measurements, never a
wall-clock bound).  See docs/protocol.md, "People who try things".
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import zmq

from lanqi.client.matchmaker import MatchmakerClient, MatchmakerRefused
from lanqi.protocol import ClaimCode, Ok, ReclaimName
from lanqi.protocol import Unlock as UnlockRequest
from lanqi.server.limits import Limits

from .conftest import DIRECTOR_KEY, Lanqi, LanqiProcess
from .round_trips import Table, compare
from .test_abuse_e2e import lockouts

ATTACKER = Path(__file__).with_name("flood_attacker.py")
LIMITS = Limits()


@dataclass
class Attacker:
    mode: str
    process: subprocess.Popen[str]

    def pause(self) -> None:
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        self.process.send_signal(signal.SIGCONT)

    def target(self, game_id: str) -> None:
        """The game to attack (chat, slow, syncs) from now on."""
        assert self.process.stdin is not None
        self.process.stdin.write(game_id + "\n")
        self.process.stdin.flush()

    def started(self) -> None:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()  # blocks until the attack is under way
        assert line == "ready\n", f"{self.mode} attacker did not start: {line!r}"

    def finish(self) -> dict[str, Any]:
        """Close its stdin (it stops) and read what it saw."""
        self.resume()
        out, err = self.process.communicate(timeout=60)
        assert self.process.returncode == 0, f"{self.mode} attacker failed: {err}"
        result: dict[str, Any] = json.loads(out.splitlines()[-1])
        return result


def attacker(mode: str, *args: str) -> Attacker:
    process = subprocess.Popen(
        [sys.executable, str(ATTACKER), mode, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    return Attacker(mode, process)


@pytest.fixture
def server(lanqi: Lanqi, request: pytest.FixtureRequest) -> LanqiProcess:
    """``lanqi serve``, with the flags a test gives as its parameter."""
    flags: tuple[str, ...] = getattr(request, "param", ())
    return lanqi.serve(*flags)


#: a test of another limit turns off the request limit, which would stop its
#: attacker first (tests/matchmaker/test_abuse_e2e.py tests that one)
NO_REQUEST_LIMIT = pytest.mark.parametrize(
    "server", [("--limit", "requests_per_address=0")], indirect=True, ids=["no-request-limit"]
)


@pytest.fixture
def table(server: LanqiProcess, zmq_context: zmq.Context[Any]) -> Iterator[Table]:
    ann = MatchmakerClient(server.lobby, server.events, context=zmq_context)
    bob = MatchmakerClient(server.lobby, server.events, context=zmq_context)
    ann.hello("ann")
    bob.hello("bob")
    yield Table(ann, bob, zmq_context)
    ann.close()
    bob.close()


@NO_REQUEST_LIMIT
def test_chat_flood_from_one_address_is_limited(server: LanqiProcess, table: Table) -> None:
    key = server.keys.public.decode("ascii")
    table.play(1)  # the referee's endpoints
    flood = attacker("chat", "127.0.0.2", table.referee[0], key)
    try:
        compare(table, flood, "chat flood")
    finally:
        result = flood.finish()
    counts = result["counts"]
    windows = 1 + result["seconds"] // LIMITS.chat_window_s
    # every connection stayed under the per-sender limit: only the address's stops it
    assert set(counts) == {"ok", "rate_limited"}, counts
    assert LIMITS.chat_per_address <= counts["ok"] <= LIMITS.chat_per_address * windows, counts
    print(f"chat flood: {result['requests'] / result['seconds']:.0f} chats/s, {counts}")


def test_connection_flood_is_capped_per_address(
    server: LanqiProcess, table: Table, zmq_context: zmq.Context[Any]
) -> None:
    table.play(1)  # the referee's endpoints
    ports = [server.lobby, server.events, *table.referee]
    targets = [endpoint.removeprefix("tcp://") for endpoint in ports]
    count = 4 * len(targets) * LIMITS.connections_per_address
    flood = attacker("connections", "127.0.0.3", str(count), *targets)
    try:
        compare(table, flood, "connection flood")
        # someone else on the LAN still gets in and is answered
        newcomer = MatchmakerClient(server.lobby, server.events, context=zmq_context)
        try:
            assert newcomer.hello("newcomer").name == "newcomer"
        finally:
            newcomer.close()
    finally:
        result = flood.finish()
    # (ZeroMQ itself closes a connection that never finishes its handshake in 30 s)
    for target in targets:
        assert result["held"].get(target, 0) <= LIMITS.connections_per_address, result
        assert result["closed"][target] >= count // len(targets) - LIMITS.connections_per_address
    print(f"connection flood: {result}")


@NO_REQUEST_LIMIT
def test_a_client_that_never_reads_does_not_stall_the_server(
    server: LanqiProcess, table: Table
) -> None:
    key = server.keys.public.decode("ascii")
    table.play(1)  # the referee's endpoints
    slow = attacker("slow", "127.0.0.4", table.referee[0], key, table.referee[1])
    try:
        compare(table, slow, "slow client")
    finally:
        result = slow.finish()
    # the server dropped what the client did not read (its queue for it is bounded)
    assert result["answers"] < result["sent"], result
    print(f"slow client: {result}")


def test_a_lockout_outlives_a_restart(lanqi: Lanqi, zmq_context: zmq.Context[Any]) -> None:
    server = lanqi.serve("--limit", "claim_tries_per_name=3", "--limit", "lock_first_s=600")
    director = MatchmakerClient(server.lobby, server.events, context=zmq_context)
    made = MatchmakerClient(server.lobby, server.events, context=zmq_context)
    made.hello("kim")
    made.close()
    code = director.call(ReclaimName(player="kim", director_key=DIRECTOR_KEY), ClaimCode).code
    guesser = MatchmakerClient(server.lobby, server.events, context=zmq_context)
    for _ in range(3):
        with pytest.raises(MatchmakerRefused, match="bad_claim"):
            guesser.hello("kim", claim="WRONG2")
    before = lockouts(director)[("name", "kim")]
    assert before.locks == 1 and before.retry_s > 500
    for client in (director, guesser):
        client.close()

    server.stop()
    server.start()

    director = MatchmakerClient(server.lobby, server.events, context=zmq_context)
    owner = MatchmakerClient(server.lobby, server.events, context=zmq_context)
    try:
        after = lockouts(director)[("name", "kim")]
        assert after.locks == 1 and 0 < after.retry_s <= before.retry_s
        with pytest.raises(MatchmakerRefused, match="locked_out"):
            owner.hello("kim", claim=code)
        director.call(UnlockRequest(target="kim", director_key=DIRECTOR_KEY), Ok)
    finally:
        director.close()
        owner.close()

    server.stop()
    server.start()  # the unlock is stored too

    director = MatchmakerClient(server.lobby, server.events, context=zmq_context)
    owner = MatchmakerClient(server.lobby, server.events, context=zmq_context)
    try:
        assert ("name", "kim") not in lockouts(director)
        assert owner.hello("kim", claim=code).name == "kim"
    finally:
        director.close()
        owner.close()
