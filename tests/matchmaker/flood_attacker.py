"""Floods, as a process of their own: the attackers of ``test_limits_e2e``.

Run ``python flood_attacker.py MODE SOURCE ...``; it connects from the loopback
address SOURCE (127.0.0.2, ...: another machine, as the server sees it), prints
``ready`` once the attack is under way, goes on until its stdin is closed, then
prints one JSON line of what it saw.

The game to attack (chat, slow) is a line on stdin, and each next line a next game.

- ``chat SOURCE REFEREE KEY``: spectator chat into the game, each message on
  a connection that has sent at most CHAT_PER_CONNECTION (a fresh connection is a
  fresh sender, which a per-seat or per-sender limit never stops); counts the answers
  (``ok``, ``rate_limited``, ...).
- ``connections SOURCE COUNT HOST:PORT...``: COUNT plain TCP connections spread over
  the ports, held open, each one the server closes opened again; at the end, after
  no more closes for QUIET_S, how many each port still holds.
- ``slow SOURCE REFEREE KEY PUB``: a client that never reads: it asks for the
  game's snapshot (``sync``) SLOW_READY times at once, then SLOW_RATE times a second,
  subscribes to every game event, and reads none of it until the end; then it counts
  the answers that reached it.
"""

from __future__ import annotations

import json
import os
import selectors
import socket
import sys
import threading
import time
from collections import Counter
from typing import Any

import zmq

from lanqi.protocol import ChatRequest, ErrorReply, Sync, decode, encode
from lanqi.security import KeyPair
from lanqi.security.curve import curve_client

TIMEOUT_MS = 10_000
CHAT_PER_CONNECTION = 4
#: the server holds a connection over the cap up to 2 * HOLD_S before it shuts it
QUIET_S = 12.0
#: snapshots the slow client asks for at once before it is ready (more than the
#: server's send queue for it, 1,000, and the sockets' buffers hold), then per second:
#: a client whose queue is full all along, not a flood of requests
SLOW_READY = 6_000
SLOW_RATE = 100


class Orders:
    """The game to attack (the latest stdin line) and whether stdin is closed."""

    def __init__(self, lines: bool) -> None:
        self.done = threading.Event()
        self.game = ""
        while lines and not self.game:  # the first game to attack
            line = sys.stdin.readline()
            if not line:
                raise SystemExit("stdin closed before a game was named")
            self.game = line.strip()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in sys.stdin:
            self.game = line.strip()
        self.done.set()


def dealer(context: zmq.Context[Any], source: str, endpoint: str, key: str) -> zmq.Socket[bytes]:
    sock: zmq.Socket[bytes] = context.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    curve_client(sock, key.encode("ascii"), KeyPair.ephemeral())
    sock.connect(f"tcp://{source}:0;{endpoint.removeprefix('tcp://')}")
    return sock


def chat(source: str, referee: str, key: str) -> dict[str, Any]:
    context: zmq.Context[Any] = zmq.Context()
    orders = Orders(lines=True)
    done = orders.done
    counts: Counter[str] = Counter()
    n = 0
    start = time.monotonic()
    sock = dealer(context, source, referee, key)
    while not done.is_set():
        if n and n % CHAT_PER_CONNECTION == 0:
            sock.close()
            sock = dealer(context, source, referee, key)
        n += 1
        said = ChatRequest(game_id=orders.game, name="spam", text=f"spam {n}")
        sock.send_multipart(encode(said))
        if not sock.poll(TIMEOUT_MS):
            raise SystemExit(f"no answer to chat {n} within {TIMEOUT_MS} ms")
        reply = decode(sock.recv_multipart())
        counts[reply.code if isinstance(reply, ErrorReply) else reply.T] += 1
        if n == 1:
            print("ready", flush=True)
    sock.close()
    context.term()
    return {"counts": counts, "requests": n, "seconds": time.monotonic() - start}


def connections(source: str, count: int, targets: list[str]) -> dict[str, Any]:
    done = Orders(lines=False).done
    selector = selectors.DefaultSelector()
    closed: Counter[str] = Counter()
    opened = 0

    def connect(target: str) -> None:
        nonlocal opened
        host, _, port = target.rpartition(":")
        conn = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        conn.bind((source, 0))
        conn.connect((host, int(port)))
        conn.setblocking(False)
        selector.register(conn, selectors.EVENT_READ, target)
        opened += 1

    def serve_closes(timeout: float, again: bool) -> int:
        """Read what is waiting; a connection the server ended is counted (and opened
        again while ``again``).  How many ended."""
        ended = 0
        for key, _ in selector.select(timeout):
            conn: socket.socket = key.fileobj  # type: ignore[assignment]
            try:
                data = conn.recv(4096)  # the server's greeting, or its end
            except (ConnectionResetError, BlockingIOError):
                data = b""
            if data:
                continue
            selector.unregister(conn)
            conn.close()
            closed[key.data] += 1
            ended += 1
            if again:
                connect(key.data)
        return ended

    for i in range(count):
        connect(targets[i % len(targets)])
    print("ready", flush=True)
    start = time.monotonic()
    while not done.is_set():
        serve_closes(0.1, again=True)
    elapsed = time.monotonic() - start
    while serve_closes(QUIET_S, again=False):
        pass  # the closes already under way
    held = Counter(str(key.data) for key in selector.get_map().values())
    for key in list(selector.get_map().values()):
        key.fileobj.close()  # type: ignore[union-attr]
    return {"opened": opened, "closed": closed, "held": held, "seconds": elapsed}


def slow(source: str, referee: str, key: str, pub: str) -> dict[str, Any]:
    context: zmq.Context[Any] = zmq.Context()
    orders = Orders(lines=True)
    done = orders.done
    sock = context.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.RCVHWM, 1)
    sock.setsockopt(zmq.RCVBUF, 4096)
    curve_client(sock, key.encode("ascii"), KeyPair.ephemeral())
    sock.connect(f"tcp://{source}:0;{referee.removeprefix('tcp://')}")
    sub = context.socket(zmq.SUB)
    sub.setsockopt(zmq.LINGER, 0)
    sub.setsockopt(zmq.RCVHWM, 1)
    sub.setsockopt(zmq.RCVBUF, 4096)
    sub.setsockopt(zmq.SUBSCRIBE, b"")
    curve_client(sub, key.encode("ascii"), KeyPair.ephemeral())
    sub.connect(f"tcp://{source}:0;{pub.removeprefix('tcp://')}")
    sent = 0
    start = time.monotonic()
    while not done.is_set():
        due = start + (sent - SLOW_READY) / SLOW_RATE
        if sent >= SLOW_READY and due > time.monotonic():
            done.wait(due - time.monotonic())  # the attack's own pace
            continue
        try:
            sock.send_multipart(encode(Sync(game_id=orders.game)), zmq.NOBLOCK)
        except zmq.Again:  # our own send queue is full: the server reads slower than this
            done.wait(0.01)
            continue
        sent += 1
        if sent == SLOW_READY:
            start = time.monotonic()
            print("ready", flush=True)
    elapsed = time.monotonic() - start
    answers = 0
    while sock.poll(2_000):
        sock.recv_multipart()
        answers += 1
    events = 0
    while sub.poll(0):
        sub.recv_multipart()
        events += 1
    sock.close()
    sub.close()
    context.term()
    return {"sent": sent, "answers": answers, "events": events, "seconds": elapsed}


def main(argv: list[str]) -> int:
    mode, source, *rest = argv
    # another machine on the LAN brings its own processor: on this one the attacker
    # gets the last core only, so that what is measured is what it costs the server
    cores = os.sched_getaffinity(0)
    if len(cores) > 1:
        os.sched_setaffinity(0, {max(cores)})
    if mode == "chat":
        result = chat(source, *rest)
    elif mode == "connections":
        result = connections(source, int(rest[0]), rest[1:])
    else:
        result = slow(source, *rest)
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
