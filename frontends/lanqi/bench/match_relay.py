"""A timestamping relay between a match runner and an engine (``lanqi bench match``).

``python match_relay.py LOG TAG ENGINE [ARGS...]`` starts ENGINE with pipes and
copies lines both ways unchanged; for the lines that matter to a move's hand-over
it appends ``<CLOCK_MONOTONIC ns> <TAG>/<relay pid> <kind>`` to LOG: ``go``,
``position`` and ``newgame`` as they arrive from the runner, ``bestmove`` as it
leaves the engine.  UCI: ``go``, ``position``, ``ucinewgame``, ``bestmove``;
Gomocup: ``BEGIN``, ``TURN`` and a ``BOARD``'s ``DONE`` are a ``go``, ``BOARD`` a
``position``, ``START``/``RESTART`` a ``newgame``, an ``x,y`` answer a ``bestmove``.
CLOCK_MONOTONIC is one clock for every process on the machine, so two relays'
lines (one per engine) can be merged: the time from one engine's ``bestmove`` to
the other's ``go`` is what the runner between them costs a move.

Standard library only, and nothing imported from lanqi: it starts in milliseconds
and its two pipe hops are the same under every runner it measures.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time

KINDS = {
    b"go": b"go",
    b"position": b"position",
    b"ucinewgame": b"newgame",
    b"BEGIN": b"go",
    b"TURN": b"go",
    b"DONE": b"go",
    b"BOARD": b"position",
    b"START": b"newgame",
    b"RESTART": b"newgame",
}


def _is_answer(line: bytes) -> bool:
    """UCI's ``bestmove``, or a Gomocup brain's ``x,y``."""
    if line.startswith(b"bestmove"):
        return True
    x, comma, y = line.strip().partition(b",")
    return bool(comma) and x.isdigit() and y.isdigit()


def _log(fd: int, tag: bytes, kind: bytes) -> None:
    os.write(fd, b"%d %s %s\n" % (time.monotonic_ns(), tag, kind))


def _engine_to_runner(engine: subprocess.Popen[bytes], fd: int, tag: bytes) -> None:
    assert engine.stdout is not None
    out = sys.stdout.buffer
    with open(engine.stdout.fileno(), "rb", closefd=False) as lines:  # buffered reads
        for line in lines:
            if _is_answer(line):
                _log(fd, tag, b"bestmove")
            out.write(line)
            out.flush()


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print("usage: match_relay.py LOG TAG ENGINE [ARGS...]", file=sys.stderr)
        return 2
    fd = os.open(argv[0], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    tag = b"%s/%d" % (argv[1].encode(), os.getpid())  # one engine process, whoever runs it
    engine = subprocess.Popen(argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    assert engine.stdin is not None
    reader = threading.Thread(target=_engine_to_runner, args=(engine, fd, tag), daemon=True)
    reader.start()
    try:
        for line in sys.stdin.buffer:
            word = line.split(None, 1)[0] if line.strip() else b""
            kind = KINDS.get(word)
            if kind is not None:
                _log(fd, tag, kind)
            engine.stdin.write(line)
            if word in (b"quit", b"END"):
                break
    except (BrokenPipeError, KeyboardInterrupt):
        pass
    with contextlib.suppress(BrokenPipeError):
        engine.stdin.close()
    code = engine.wait()
    reader.join(timeout=1.0)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
