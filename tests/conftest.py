"""Fixtures shared by every test folder.

- ``tmpfs``: a tmpfs of the test's own, unmounted after the test.
- ``zmq_context``: a ZeroMQ context of the test's own, destroyed with linger 0.
- ``clock_scale``: how much longer than on an idle machine a clock test's clock is
  made, measured at the start of the test module by :func:`scheduling_delay_ms`:
  1.0 on an idle machine, ``delay / SCALE_DELAY_MS`` where the machine is so busy
  that a process of the test waits that long for its turn.  A bot keeps a share of
  its clock back for delays it cannot control (an event's way in, a move's way out,
  the scheduler); on a loaded machine those grow, and a clock test with a fixed
  clock measures the load, not the bot.  Every bot in those tests thinks up to the
  deadline it is given, so a deadline too late for the clock flags on any clock.
- ``server``: a whole lanqi server in this process (:class:`EmbeddedServer`: the
  matchmaker and a referee on their own threads) on free loopback ports, stopped
  after the test.  Its director key is the test module's ``DIRECTOR_KEY`` (``k`` if
  the module has none), its referee's liveness the module's ``LIVENESS`` (if any), the
  address it listens on the module's ``SERVER_HOST`` (``127.0.0.1`` if none; ``0.0.0.0``
  for every interface).
"""

from __future__ import annotations

import logging
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import zmq

if TYPE_CHECKING:
    from lanqi.server.embedded import EmbeddedServer


log = logging.getLogger(__name__)
#: a scheduling delay this long (ms) or shorter leaves the clocks of clock tests as they are
SCALE_DELAY_MS = 30.0
ECHO = "import sys\nfor line in sys.stdin:\n    sys.stdout.write(line)\n    sys.stdout.flush()"


def scheduling_delay_ms(round_trips: int = 50) -> float:
    """The 9th decile of ``round_trips`` line round trips to a child process, each
    made while another thread of this process computes (holding the GIL, as a
    searching bot does): what the scheduler adds to the way of an event into a bot's
    process and of its move out, right now (0.1 ms on an idle 2-core machine, tens
    of ms at a load of 12)."""
    child = subprocess.Popen(
        [sys.executable, "-c", ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert child.stdin is not None and child.stdout is not None
    done = threading.Event()

    def compute() -> None:
        while not done.is_set():
            sum(range(1000))

    busy = threading.Thread(target=compute, daemon=True)
    busy.start()
    times: list[float] = []
    try:
        for _ in range(round_trips):
            began = time.monotonic()
            child.stdin.write("x\n")
            child.stdin.flush()
            child.stdout.readline()
            times.append((time.monotonic() - began) * 1000)
    finally:
        done.set()
        busy.join()
        child.stdin.close()
        child.wait()
    times.sort()
    return times[len(times) * 9 // 10]


@pytest.fixture(scope="module")
def clock_scale() -> float:
    delay = scheduling_delay_ms()
    scale = max(1.0, delay / SCALE_DELAY_MS)
    log.info("scheduling delay %.1f ms: clocks of clock tests x%.2f", delay, scale)
    return scale


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Callable[[str, str], Path]]:
    """``tmpfs(name, options)``: a tmpfs of the test's own (e.g. ``"size=4m"`` or
    ``"size=1m,ro"``), unmounted after the test; the test skips where it may not mount
    (it needs root)."""
    mounted: list[Path] = []

    def mount(name: str, options: str) -> Path:
        where = tmp_path / name
        where.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here (needs root): {done.stderr.strip()}")
        mounted.append(where)
        return where

    try:
        yield mount
    finally:
        for where in reversed(mounted):
            subprocess.run(["umount", "-l", str(where)], check=True)


@pytest.fixture
def zmq_context() -> Iterator[zmq.Context[Any]]:
    context: zmq.Context[Any] = zmq.Context()
    try:
        yield context
    finally:
        context.destroy(linger=0)


@pytest.fixture
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[EmbeddedServer]:
    from lanqi.server.embedded import EmbeddedServer

    embedded = EmbeddedServer(
        tmp_path / "server",
        host=getattr(request.module, "SERVER_HOST", "127.0.0.1"),
        port=0,
        pub_port=0,
        referee_port=0,
        referee_pub_port=0,
        director_key=getattr(request.module, "DIRECTOR_KEY", "k"),
        liveness=getattr(request.module, "LIVENESS", None),
    )
    embedded.start()
    try:
        yield embedded
    finally:
        embedded.stop()
