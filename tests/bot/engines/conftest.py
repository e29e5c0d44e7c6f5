"""Fixtures for the engine adapter tests: fake engines, Fairy-Stockfish, leak checks.

- ``fake``: the argv of a fake engine script under ``fakes/`` (run with this Python).
- ``fake_env``: the environment for fakes (``PYTHONPATH`` to the source tree and
  ``FAKE_LOG`` to a file that records every line the fake received); read it back
  with ``fake_log()``.
- ``fsf``: the path of Fairy-Stockfish.  Missing binary: the test FAILS with the
  install hint, unless ``LANQI_ALLOW_NO_ENGINE=1`` makes it skip.
- ``procs``: ``procs.reaped(pid)``, ``procs.wait_gone(pid)``, ``procs.repo``.
- every test here ends with no child process of the test run left, zombie or not.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
FAKES = Path(__file__).resolve().parent / "fakes"
FSF_CANDIDATES = ("fairy-stockfish", "/usr/games/fairy-stockfish")
INSTALL_HINT = (
    "Fairy-Stockfish is needed for the engine adapter tests but was not found "
    "(looked for $LANQI_FAIRY_STOCKFISH, 'fairy-stockfish' on PATH and "
    "/usr/games/fairy-stockfish). Install it with: sudo apt-get install fairy-stockfish "
    "-- or set LANQI_ALLOW_NO_ENGINE=1 to skip these tests."
)


def find_fairy_stockfish() -> str | None:
    """The Fairy-Stockfish binary, or None."""
    explicit = os.environ.get("LANQI_FAIRY_STOCKFISH")
    candidates = (explicit,) if explicit else FSF_CANDIDATES
    for candidate in candidates:
        assert candidate is not None
        found = shutil.which(candidate)
        if found:
            return found
    return None


@pytest.fixture(scope="session")
def fsf() -> str:
    path = find_fairy_stockfish()
    if path is None:
        if os.environ.get("LANQI_ALLOW_NO_ENGINE") == "1":
            pytest.skip("Fairy-Stockfish not installed and LANQI_ALLOW_NO_ENGINE=1")
        pytest.fail(INSTALL_HINT, pytrace=False)
    return path


@pytest.fixture
def fake() -> Callable[..., list[str]]:
    """``fake("uci_fake.py", "crash", "2")`` -> the argv to start that fake."""

    def argv(script: str, *args: str) -> list[str]:
        return [sys.executable, str(FAKES / script), *args]

    return argv


@pytest.fixture
def fake_log(tmp_path: Path) -> Callable[[], list[str]]:
    """The lines the fake engine received so far."""
    path = tmp_path / "fake.log"

    def read() -> list[str]:
        return path.read_text(encoding="utf-8").splitlines() if path.exists() else []

    read.path = path  # type: ignore[attr-defined]
    return read


@pytest.fixture
def fake_env(fake_log: Callable[[], list[str]]) -> dict[str, str]:
    source = os.pathsep.join(str(REPO / part) for part in ("shared", "services", "frontends"))
    return {"PYTHONPATH": source, "FAKE_LOG": str(fake_log.path)}  # type: ignore[attr-defined]


def children_of(pid: int) -> list[tuple[int, str]]:
    """The (pid, state) of every process whose parent is ``pid`` (Linux /proc)."""
    found: list[tuple[int, str]] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == pid:
            found.append((int(entry.name), fields[0]))
    return found


def reaped(pid: int) -> bool:
    """True if ``pid`` is no unreaped child of ours (neither running nor a zombie)."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def wait_gone(pid: int, timeout: float = 5.0) -> bool:
    """Whether ``pid`` is gone within ``timeout`` (an orphan is reaped by init)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not Path(f"/proc/{pid}").exists():
            return True
        try:
            text = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return True
        if text[text.rindex(")") + 2 :].split()[0] in ("Z", "X"):
            return True
        time.sleep(0.02)
    return False


class ProcessChecks:
    """Process checks for tests (conftest helpers are not importable in importlib mode)."""

    repo = REPO
    reaped = staticmethod(reaped)
    wait_gone = staticmethod(wait_gone)


@pytest.fixture
def procs() -> type[ProcessChecks]:
    return ProcessChecks


@pytest.fixture(autouse=True)
def no_leftover_processes() -> Iterator[None]:
    """Each test must leave no child process behind, running or zombie."""
    if not Path("/proc/self/stat").exists():  # pragma: no cover - not Linux
        yield
        return
    before = {pid for pid, _ in children_of(os.getpid())}
    yield
    left = [(pid, state) for pid, state in children_of(os.getpid()) if pid not in before]
    assert not left, f"processes left behind (pid, state): {left}"
