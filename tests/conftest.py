"""Fixtures shared by every test folder.

- ``tmpfs``: a tmpfs of the test's own, unmounted after the test.
- ``zmq_context``: a ZeroMQ context of the test's own, destroyed with linger 0.
- ``server``: a whole lanqi server in this process (:class:`EmbeddedServer`: the
  matchmaker and a referee on their own threads) on free loopback ports, stopped
  after the test.  Its director key is the test module's ``DIRECTOR_KEY`` (``k`` if
  the module has none), its referee's liveness the module's ``LIVENESS`` (if any), the
  address it listens on the module's ``SERVER_HOST`` (``127.0.0.1`` if none; ``0.0.0.0``
  for every interface).
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import zmq

if TYPE_CHECKING:
    from lanqi.server.embedded import EmbeddedServer


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
