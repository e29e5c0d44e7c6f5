"""The raw ceiling of ``lanqi bench referee``: a ROUTER that decodes nothing.

``python -m lanqi.bench.raw_server`` prints ``raw server ready: <endpoint>`` and
answers every message at once with one fixed, pre-encoded ``move_ok`` until SIGTERM:
what the referee would reach if validating, storing and publishing a move cost
nothing (see :mod:`lanqi.bench.referee`).  With ``--curve`` its ROUTER is a CURVE
server with a key pair made for the run, and the ready line ends ``key <public>``
(:data:`READY_CURVE`): the ceiling of the same pattern, encrypted.
"""

from __future__ import annotations

import argparse
import re
import signal
import sys
from collections.abc import Sequence
from types import FrameType
from typing import Any

import zmq

from lanqi.protocol import MoveAccepted, encode
from lanqi.security import KeyPair, curve_server

__all__ = ["FIXED_REPLY", "READY", "READY_CURVE", "main", "raw_server"]

#: the server's one stdout line, once it is bound
READY = re.compile(rb"raw server ready: (\S+)")
#: ... and with --curve: the endpoint and the server's public key
READY_CURVE = re.compile(rb"raw server ready: (\S+) key (\S{40})$")
POLL_MS = 100

FIXED_REPLY = encode(MoveAccepted(re=0, game_id="0" * 16, ply=0, move="h2e2", seq=1))[0]
RAW_BATCH = 256  # messages drained per turn, like the referee's MAX_BATCH


def raw_server(host: str = "127.0.0.1", port: int = 0, *, curve: bool = False) -> int:
    """A ROUTER that answers every message with :data:`FIXED_REPLY`, decoding nothing.

    Prints ``raw server ready: <endpoint>`` (and `` key <public>`` with ``curve``) and
    serves until SIGTERM or SIGINT.
    """
    stopping = False

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    context: zmq.Context[Any] = zmq.Context()
    router: zmq.Socket[bytes] = context.socket(zmq.ROUTER)
    router.setsockopt(zmq.LINGER, 0)
    router.setsockopt(zmq.RCVHWM, 10_000)
    keys = KeyPair.ephemeral() if curve else None
    curve_server(router, keys)
    if port == 0:
        endpoint = f"tcp://{host}:{router.bind_to_random_port(f'tcp://{host}')}"
    else:
        endpoint = f"tcp://{host}:{port}"
        router.bind(endpoint)
    said = f" key {keys.public.decode('ascii')}" if keys is not None else ""
    print(f"raw server ready: {endpoint}{said}", flush=True)
    reply = FIXED_REPLY
    try:
        while not stopping:
            if not router.poll(POLL_MS):
                continue
            for _ in range(RAW_BATCH):
                try:
                    frames = router.recv_multipart(zmq.NOBLOCK)
                except zmq.Again:
                    break
                router.send_multipart([frames[0], reply])
    finally:
        router.close(linger=0)
        context.term()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m lanqi.bench.raw_server``: run the raw ceiling server."""
    parser = argparse.ArgumentParser(prog="python -m lanqi.bench.raw_server")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--curve", action="store_true", help="CURVE, with a key pair for the run")
    args = parser.parse_args(argv)
    return raw_server(args.host, args.port, curve=args.curve)


if __name__ == "__main__":
    sys.exit(main())
