"""A person who tries things, as a process of its own: the attacker of
``test_abuse_e2e``.  Run ``python abuse_attacker.py MODE SOURCE ENDPOINT SERVER_KEY
[NAME...]``:

- ``names``: one connection says ``hello`` under a new name again and again;
- ``codes``: ``hello`` with a random claim code for each NAME in turn;
- ``posts``: ``hello`` once under NAME, then ``seek`` after ``seek``.

It connects from the loopback address SOURCE (127.0.0.2, ...: another machine, as
the server sees it), prints ``ready`` after its first answer, goes on until its
stdin is closed, then prints one JSON line: how many answers of each kind
(``welcome``, ``seek_created`` or the error code) it got, and how long it ran.
"""

from __future__ import annotations

import json
import secrets
import sys
import threading
import time
from collections import Counter
from typing import Any

import zmq

from lanqi.matchmaker.claims import ALPHABET, CODE_LENGTH
from lanqi.protocol import CreateSeek, ErrorReply, Hello, Request, Seek, decode, encode
from lanqi.security import KeyPair
from lanqi.security.curve import curve_client

TIMEOUT_MS = 10_000


def ask(dealer: zmq.Socket[bytes], request: Request) -> str:
    dealer.send_multipart(encode(request))
    if not dealer.poll(TIMEOUT_MS):
        raise SystemExit(f"no answer to {request.T} within {TIMEOUT_MS} ms")
    reply = decode(dealer.recv_multipart())
    return reply.code if isinstance(reply, ErrorReply) else reply.T


def main(argv: list[str]) -> int:
    mode, source, endpoint, server_key, *names = argv
    context: zmq.Context[Any] = zmq.Context()
    dealer = context.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    curve_client(dealer, server_key.encode("ascii"), KeyPair.ephemeral())
    host_port = endpoint.removeprefix("tcp://")
    dealer.connect(f"tcp://{source}:0;{host_port}")
    done = threading.Event()

    def until_closed() -> None:
        sys.stdin.read()
        done.set()

    threading.Thread(target=until_closed, daemon=True).start()
    counts: Counter[str] = Counter()
    seek = Seek(variant="gomoku", options={"size": 19})  # pairs with nobody else's
    if mode == "posts":
        counts[ask(dealer, Hello(name=names[0]))] += 1
    start = time.monotonic()
    n = 0
    while not done.is_set():
        n += 1
        if mode == "names":
            request: Request = Hello(name=f"squat-{secrets.token_hex(4)}")
        elif mode == "codes":
            code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
            request = Hello(name=names[n % len(names)], claim=code)
        else:
            request = CreateSeek(seek=seek)
        counts[ask(dealer, request)] += 1
        if n == 1:
            print("ready", flush=True)
    elapsed = time.monotonic() - start
    print(json.dumps({"counts": counts, "requests": n, "seconds": elapsed}), flush=True)
    dealer.close()
    context.term()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
