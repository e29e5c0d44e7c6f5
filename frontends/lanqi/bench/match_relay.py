"""A timestamping relay between a match runner and a UCI engine (``lanqi bench match``).

``python match_relay.py LOG TAG ENGINE [ARGS...]`` starts ENGINE with pipes and
copies lines both ways unchanged; for the lines that matter to a move's hand-over it
appends ``<CLOCK_MONOTONIC ns> <TAG> <kind>`` to LOG: ``go``, ``position`` and
``newgame`` (``ucinewgame``) as they arrive from the runner, ``bestmove`` as it
leaves the engine.  CLOCK_MONOTONIC is one clock for every process on the machine,
so two relays' lines (one per engine) can be merged: the time from one engine's
``bestmove`` to the other's ``go`` is what the runner between them costs a move.

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

KINDS = ((b"go", b"go"), (b"position", b"position"), (b"ucinewgame", b"newgame"))


def _log(fd: int, tag: bytes, kind: bytes) -> None:
    os.write(fd, b"%d %s %s\n" % (time.monotonic_ns(), tag, kind))


def _engine_to_runner(engine: subprocess.Popen[bytes], fd: int, tag: bytes) -> None:
    assert engine.stdout is not None
    out = sys.stdout.buffer
    with open(engine.stdout.fileno(), "rb", closefd=False) as lines:  # buffered reads
        for line in lines:
            if line.startswith(b"bestmove"):
                _log(fd, tag, b"bestmove")
            out.write(line)
            out.flush()


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print("usage: match_relay.py LOG TAG ENGINE [ARGS...]", file=sys.stderr)
        return 2
    fd = os.open(argv[0], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    tag = argv[1].encode()
    engine = subprocess.Popen(argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    assert engine.stdin is not None
    reader = threading.Thread(target=_engine_to_runner, args=(engine, fd, tag), daemon=True)
    reader.start()
    try:
        for line in sys.stdin.buffer:
            word = line.split(None, 1)[0] if line.strip() else b""
            for prefix, kind in KINDS:
                if word == prefix:
                    _log(fd, tag, kind)
            engine.stdin.write(line)
            if word == b"quit":
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
