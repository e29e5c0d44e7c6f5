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
import random
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import zmq

from lanqi.client.matchmaker import MatchmakerClient, MatchmakerRefused
from lanqi.client.referee import GameView, RefereeClient
from lanqi.games.registry import create_game
from lanqi.protocol import ClaimCode, CreateSeek, Ok, ReclaimName, Seek, SeekCreated, TimeControl
from lanqi.protocol import Unlock as UnlockRequest
from lanqi.server.limits import Limits

from .conftest import DIRECTOR_KEY, Lanqi, LanqiProcess
from .test_abuse_e2e import expect_assigned, lockouts

ATTACKER = Path(__file__).with_name("flood_attacker.py")
#: moves measured in blocks of BLOCK, BLOCKS blocks quiet and as many under attack:
#: 500 each, enough that one outlier is not the p99
BLOCK = 50
BLOCKS = 10
ROUNDS = 3
#: a random game is resigned after this many plies (a new one is paired)
PLIES = 150
#: the issue's bar: p99 under attack within twice the quiet run's
P99_RATIO = 2.0
#: the quiet p99 is taken as at least this: a round trip across a real LAN (wired
#: 0.2-1 ms, Wi-Fi 2-5 ms).  On loopback the quiet p99 can be 0.5 ms, and 0.7 ms more
#: under attack - a scheduler's time slice on 2 shared cores - would double it
LAN_FLOOR_MS = 1.0
LIMITS = Limits()


def p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@dataclass
class Attacker:
    mode: str
    process: subprocess.Popen[str]

    def target(self, game_id: str) -> None:
        """The game to attack (chat, slow) from now on."""
        assert self.process.stdin is not None
        self.process.stdin.write(game_id + "\n")
        self.process.stdin.flush()

    def started(self) -> None:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()  # blocks until the attack is under way
        assert line == "ready\n", f"{self.mode} attacker did not start: {line!r}"

    def finish(self) -> dict[str, Any]:
        """Close its stdin (it stops) and read what it saw."""
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


@dataclass
class Table:
    """Ann and Bob, playing random xiangqi games one after another."""

    ann: MatchmakerClient
    bob: MatchmakerClient
    context: zmq.Context[Any]
    seed: int = 0
    games: list[str] = field(default_factory=list)
    #: the referee's request and event endpoints (after the first game)
    referee: tuple[str, str] = ("", "")

    def play(self, moves: int, new_game: Callable[[str], None] = lambda _: None) -> list[float]:
        """Play until ``moves`` moves are made (games paired as needed; ``new_game`` told
        each one's id before its first move); the round trip of each, in ms."""
        rtts: list[float] = []
        while len(rtts) < moves:
            rtts.extend(self._game(moves - len(rtts), new_game))
        return rtts

    def _game(self, most: int, new_game: Callable[[str], None]) -> list[float]:
        seek = Seek(
            variant="xiangqi", time_control=TimeControl(kind="per_move", per_move_ms=60_000)
        )
        self.ann.call(CreateSeek(seek=seek), SeekCreated)
        self.bob.call(CreateSeek(seek=seek), SeekCreated)
        seats = sorted([expect_assigned(self.ann), expect_assigned(self.bob)], key=lambda g: g.seat)
        game_id = seats[0].game_id
        self.games.append(game_id)
        self.referee = (seats[0].referee, seats[0].referee_pub)
        self.seed += 1
        rng = random.Random(self.seed)
        board = create_game("xiangqi")
        clients = [
            RefereeClient(g.referee, g.referee_pub, context=self.context, timeout_ms=10_000)
            for g in seats
        ]
        rtts: list[float] = []
        try:
            clients[0].wait_connected()
            view = GameView(clients[0], game_id)
            for seat, client in enumerate(clients):
                client.join(game_id, seat, seats[seat].token)
            assert view.wait_for(lambda v: v.status == "active"), "the game never started"
            new_game(game_id)
            while board.outcome() is None and board.ply < PLIES and len(rtts) < most:
                seat = board.seat_to_move
                move = rng.choice(board.legal_moves())
                start = perf_ms()
                clients[seat].move(game_id, seats[seat].token, board.ply, str(move))
                rtts.append(perf_ms() - start)
                board.push(move)
            if board.outcome() is None:
                seat = board.seat_to_move
                clients[seat].resign(game_id, seats[seat].token)
            assert view.wait_for(lambda v: v.finished, timeout_ms=10_000), "the game did not end"
            assert len(view.moves) == board.ply, "a move was lost or doubled"
        finally:
            for client in clients:
                client.close()
        return rtts


def perf_ms() -> float:
    return time.perf_counter() * 1000.0


@dataclass
class Measured:
    quiet: list[float]
    attacked: list[float]

    @property
    def ratio(self) -> float:
        return p(self.attacked, 0.99) / max(p(self.quiet, 0.99), LAN_FLOOR_MS)

    def line(self, what: str) -> str:
        return (
            f"{what}: move round trip over {len(self.quiet)} / {len(self.attacked)} moves:"
            f" quiet p50 {statistics.median(self.quiet):.2f} ms p99 {p(self.quiet, 0.99):.2f} ms;"
            f" under attack p50 {statistics.median(self.attacked):.2f} ms"
            f" p99 {p(self.attacked, 0.99):.2f} ms (p99 ratio {self.ratio:.2f})"
        )


def compare(table: Table, attack: Attacker, what: str) -> Measured:
    """The game's moves in pairs of blocks of BLOCK moves, one block with the attacker
    stopped (SIGSTOP: it sends nothing), one with it running, in turn (ABBA), so that
    a change in the machine's load hits both alike; the p99 of each compared.  While
    the ratio is over P99_RATIO more moves are taken (up to ROUNDS times BLOCKS pairs):
    on a machine shared with other jobs one stall can be the p99 of 500 moves."""
    result = Measured(quiet=[], attacked=[])
    started = False

    def aim(game_id: str) -> None:
        nonlocal started
        attack.target(game_id)
        if not started:
            attack.started()
            started = True

    table.play(1, aim)  # the attack under way on a game
    for _ in range(ROUNDS):
        for block in range(2 * BLOCKS):
            quiet = block % 4 in (0, 3)
            attack.process.send_signal(signal.SIGSTOP if quiet else signal.SIGCONT)
            (result.quiet if quiet else result.attacked).extend(table.play(BLOCK, aim))
        attack.process.send_signal(signal.SIGCONT)
        print(result.line(what))
        if result.ratio <= P99_RATIO:
            break
    assert result.ratio <= P99_RATIO, result.line(what)
    return result


@pytest.fixture
def server(lanqi: Lanqi) -> LanqiProcess:
    return lanqi.serve()


@pytest.fixture
def table(server: LanqiProcess, zmq_context: zmq.Context[Any]) -> Iterator[Table]:
    ann = MatchmakerClient(server.lobby, server.events, context=zmq_context)
    bob = MatchmakerClient(server.lobby, server.events, context=zmq_context)
    ann.hello("ann")
    bob.hello("bob")
    yield Table(ann, bob, zmq_context)
    ann.close()
    bob.close()


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
    before = lockouts(director)["kim"]
    assert before.locks == 1 and before.retry_s > 500
    for client in (director, guesser):
        client.close()

    server.stop()
    server.start()

    director = MatchmakerClient(server.lobby, server.events, context=zmq_context)
    owner = MatchmakerClient(server.lobby, server.events, context=zmq_context)
    try:
        after = lockouts(director)["kim"]
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
        assert "kim" not in lockouts(director)
        assert owner.hello("kim", claim=code).name == "kim"
    finally:
        director.close()
        owner.close()
