"""A person who tries things, as a process of its own: the request floods of
``test_abuse_e2e``.  Run ``python abuse_attacker.py MODE SOURCE ENDPOINT SERVER_KEY
[NAME...]``:

- ``names``: one connection says ``hello`` under a new name again and again;
- ``codes``: ``hello`` with a random claim code for each NAME in turn;
- ``posts``: ``hello`` once under NAME, then ``seek`` after ``seek``;
- ``syncs``: ``sync`` of the game NAME (ENDPOINT: the referee's) again and again.

Requests go out at RATE a second (``syncs``: SYNC_RATE), whether or not they are
answered (a flood does not wait for its answers), and the answers are read as they
come.  It connects from the loopback address SOURCE (127.0.0.2, ...: another
machine, as the server sees it) and runs on the machine's last core only (another
machine brings its own processor); prints ``ready`` after its first answer, goes on
until its stdin is closed, then prints one JSON line: how many answers of each kind
(``welcome``, ``seek_created``, ``snapshot`` or the error code) it got, how many
requests it sent and how many went unanswered, how many it could not send (shut out:
no connection and its queue full), how many of its connections the server refused in
the handshake, and how long it ran.  Stopped
(SIGSTOP) and resumed (SIGCONT), it goes on at its rate, without a burst to catch up.
On SIGUSR1 it stops sending, reads the answers still under way until none has come
for QUIET_MS (what it sent before is answered or dropped: the server is quiet; at
most PAUSE_MOST_S), and prints ``paused``; SIGCONT sends again.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import sys
import threading
import time
from collections import Counter
from typing import Any

import zmq
from zmq.utils.monitor import recv_monitor_message

from lanqi.matchmaker.claims import ALPHABET, CODE_LENGTH
from lanqi.protocol import (
    CreateSeek,
    ErrorReply,
    Hello,
    Request,
    Seek,
    Sync,
    decode,
    encode,
)
from lanqi.security import KeyPair
from lanqi.security.curve import curve_client

TIMEOUT_MS = 10_000
#: requests a second of each matchmaker flood, and of the sync flood
RATE = 1_500
SYNC_RATE = 10_000
#: behind its pace by more than this (it was stopped), it starts its pace again
SLACK_S = 0.05
#: how long the answers still under way are waited for at the end
DRAIN_MS = 2_000
#: paused, how long without an answer before the server is taken as quiet, and the
#: longest it reads before it says ``paused`` anyway (a server that answers every
#: request of a flood may have a backlog of tens of thousands)
QUIET_MS = 300
PAUSE_MOST_S = 10.0


def ask(dealer: zmq.Socket[bytes], request: Request) -> str:
    dealer.send_multipart(encode(request))
    if not dealer.poll(TIMEOUT_MS):
        raise SystemExit(f"no answer to {request.T} within {TIMEOUT_MS} ms")
    return kind(dealer.recv_multipart())


def kind(frames: list[bytes]) -> str:
    reply = decode(frames)
    return reply.code if isinstance(reply, ErrorReply) else reply.T


def refused_handshakes(monitor: zmq.Socket[bytes]) -> int:
    """How many of its connections the server refused in the handshake (shut out)."""
    refused = 0
    while monitor.poll(0):
        event = recv_monitor_message(monitor)
        refused += event["event"] == zmq.EVENT_HANDSHAKE_FAILED_AUTH
    return refused


def main(argv: list[str]) -> int:
    mode, source, endpoint, server_key, *names = argv
    cores = os.sched_getaffinity(0)
    if len(cores) > 1:
        os.sched_setaffinity(0, {max(cores)})
    context: zmq.Context[Any] = zmq.Context()
    dealer = context.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    curve_client(dealer, server_key.encode("ascii"), KeyPair.ephemeral())
    monitor = dealer.get_monitor_socket(zmq.EVENT_HANDSHAKE_FAILED_AUTH)
    host_port = endpoint.removeprefix("tcp://")
    dealer.connect(f"tcp://{source}:0;{host_port}")
    done = threading.Event()

    def until_closed() -> None:
        sys.stdin.read()
        done.set()

    threading.Thread(target=until_closed, daemon=True).start()
    pausing = threading.Event()
    signal.signal(signal.SIGUSR1, lambda *_: pausing.set())
    signal.signal(signal.SIGCONT, lambda *_: pausing.clear())
    counts: Counter[str] = Counter()
    seek = Seek(variant="gomoku", options={"size": 19})  # pairs with nobody else's
    if mode == "posts":
        counts[ask(dealer, Hello(name=names[0]))] += 1
    rate = SYNC_RATE if mode == "syncs" else RATE
    start = time.monotonic()
    paced = start  # when the pace started (again)
    n = sent = answered = unsent = 0
    while not done.is_set():
        if pausing.is_set():
            most = time.monotonic() + PAUSE_MOST_S
            while time.monotonic() < most and dealer.poll(QUIET_MS):
                counts[kind(dealer.recv_multipart())] += 1
                answered += 1
            print("paused", flush=True)
            while pausing.is_set() and not done.is_set():
                done.wait(0.01)  # until SIGCONT (the test stops it meanwhile)
            continue
        now = time.monotonic()
        due = paced + sent / rate
        if due < now - SLACK_S:  # it was stopped: no burst to catch up
            paced = now - sent / rate
            due = now
        if due > now:
            if dealer.poll(max(1, int((due - now) * 1000))):
                counts[kind(dealer.recv_multipart())] += 1
                answered += 1
                if answered == 1:
                    print("ready", flush=True)
            continue
        n += 1
        if mode == "names":
            request: Request = Hello(name=f"squat-{secrets.token_hex(4)}")
        elif mode == "codes":
            code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
            request = Hello(name=names[n % len(names)], claim=code)
        elif mode == "syncs":
            request = Sync(game_id=names[0])
        else:
            request = CreateSeek(seek=seek)
        try:
            dealer.send_multipart(encode(request), zmq.NOBLOCK)
        except zmq.Again:  # shut out: no connection, and its queue is full
            unsent += 1
            continue
        sent += 1
    elapsed = time.monotonic() - start
    most = time.monotonic() + PAUSE_MOST_S  # a backlog is not read for ever
    while time.monotonic() < most and dealer.poll(DRAIN_MS):
        counts[kind(dealer.recv_multipart())] += 1
        answered += 1
    result = {
        "counts": counts,
        "requests": sent,
        "unanswered": sent - answered,
        "unsent": unsent,
        "refused_handshakes": refused_handshakes(monitor),
        "seconds": elapsed,
    }
    monitor.close(linger=0)
    print(json.dumps(result), flush=True)
    dealer.close()
    context.term()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
