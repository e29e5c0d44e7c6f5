"""Fixtures shared by every test folder.

- ``_client_data`` (every test): ``$LANQI_DATA_DIR`` (and the per-user data folder)
  point into the test's own tmp, so the server keys its clients pin stay its own.
- ``tmpfs``: a tmpfs of the test's own, unmounted after the test.
- ``zmq_context``: a ZeroMQ context of the test's own, destroyed with linger 0.
- ``clock_scale``: how much longer than on an idle machine a clock test's clock is
  made, measured at the start of the test module by :func:`cpu_share`: 1.0 while a
  computing thread here gets at least half a core, ``0.5 / share`` where the machine
  is busier than that.  A bot keeps a share of its clock back for delays it cannot
  control (an event's way in, a move's way out, the scheduler); on a loaded machine
  those grow, and a clock test with a fixed clock measures the load, not the bot.
  Every bot in those tests thinks up to the deadline it is given, so a deadline too
  late for the clock flags on any clock.
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
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import zmq

if TYPE_CHECKING:
    from lanqi.server.embedded import EmbeddedServer


log = logging.getLogger(__name__)
#: clocks of clock tests are left as they are while a process here gets this much of a core
FAIR_SHARE = 0.5


def cpu_share(window_s: float = 1.0) -> float:
    """The share of a core a computing thread of this process gets right now: CPU time
    over wall time while it computes for ``window_s`` (about 1.0 on an idle machine;
    0.1 to 0.2 at a load of 14 on 2 cores)."""
    began, cpu = time.monotonic(), time.thread_time()
    while time.monotonic() - began < window_s:
        sum(range(1000))
    return (time.thread_time() - cpu) / (time.monotonic() - began)


@pytest.fixture(scope="module")
def clock_scale() -> float:
    share = cpu_share()
    scale = max(1.0, FAIR_SHARE / max(share, 0.01))
    log.info("a computing thread gets %.2f of a core: clocks of clock tests x%.2f", share, scale)
    return scale


@pytest.fixture(autouse=True)
def _client_data(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test has its own data directory for the clients it runs (where they pin
    the keys of the servers they trust: CURVE is on everywhere), in this process and
    in the commands it starts; the user's own is never read or written."""
    folder = tmp_path_factory.mktemp("client-data")
    monkeypatch.setenv("LANQI_DATA_DIR", str(folder))
    monkeypatch.setenv("XDG_DATA_HOME", str(folder / "per-user"))


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
