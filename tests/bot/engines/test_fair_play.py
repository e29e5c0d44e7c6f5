"""Fair play on shared cores: the waiting engine is stopped (SIGSTOP, seen as state
``T`` in /proc), a memory cap kills a hungry engine with its own reason, engines are
pinned to cores."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from lanqi.bot.base import SeatView
from lanqi.bot.engines import EngineOutOfMemory, EngineProcess, GomocupEngine, UciEngine
from lanqi.bot.failures import failure_reason

Fake = Callable[..., list[str]]


def _state(pid: int) -> str:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat[stat.rindex(")") + 2 :].split()[0]


def _wait_state(pid: int, wanted: str, timeout: float = 10.0) -> str:
    """The process's state once it is ``wanted`` (or the last seen after ``timeout``)."""
    deadline = time.monotonic() + timeout
    seen = _state(pid)
    while seen != wanted and time.monotonic() < deadline:
        time.sleep(0.01)
        seen = _state(pid)
    return seen


def test_the_waiting_engine_is_stopped_and_runs_again_when_spoken_to(
    fake: Fake, fake_env: dict[str, str]
) -> None:
    bot = UciEngine(fake("uci_fake.py", "ok"), env=fake_env, pause_waiting=True)
    try:
        pid = bot.process.pid
        assert pid is not None
        state = SeatView.start("xiangqi")
        bot.on_game_start(state)  # Red or Black, it waits now
        assert _wait_state(pid, "T") == "T"
        assert bot.choose_move(state) == "a0a1"  # resumed to search, stopped again after
        assert _wait_state(pid, "T") == "T"
        reply = SeatView.start("xiangqi", moves=["a0a1", "a6a5"])
        assert bot.choose_move(reply) == "a1a0"
        assert bot.process.pauses == 3
    finally:
        bot.close()
    assert bot.process.returncode == 0  # it got quit and obeyed: resumed before it


def test_a_pondering_engine_is_never_stopped(fake: Fake, fake_env: dict[str, str]) -> None:
    bot = UciEngine(fake("uci_fake.py", "ok"), env=fake_env, pause_waiting=True, ponder=True)
    try:
        state = SeatView.start("xiangqi")
        bot.on_game_start(state)
        bot.choose_move(state)
        assert bot.process.pauses == 0 and not bot.pause_waiting
    finally:
        bot.close()


def test_a_gomocup_brain_is_stopped_while_it_waits(fake: Fake, fake_env: dict[str, str]) -> None:
    bot = GomocupEngine(fake("gomocup_fake.py", "ok"), env=fake_env, pause_waiting=True)
    try:
        pid = bot.process.pid
        assert pid is not None
        state = SeatView.start("gomoku")
        bot.on_game_start(state)
        bot.choose_move(state)
        assert _wait_state(pid, "T") == "T"
    finally:
        bot.close()
    assert bot.process.returncode == 0


def test_a_hungry_engine_dies_over_its_memory_cap_with_that_reason(
    fake: Fake, fake_env: dict[str, str]
) -> None:
    bot = UciEngine(fake("faulty.py", "uci", "hungry"), env=fake_env, memory_mb=256)
    try:
        pid = bot.process.pid
        limits = Path(f"/proc/{pid}/limits").read_text()
        line = next(row for row in limits.splitlines() if row.startswith("Max address space"))
        assert line.split()[3:5] == [str(256 * 1024 * 1024)] * 2
        with pytest.raises(EngineOutOfMemory, match="over its memory cap of 256 MB") as caught:
            bot.choose_move(SeatView.start("xiangqi"))
        assert failure_reason(caught.value) == "out of memory"
    finally:
        bot.close()


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="Linux only")
def test_an_engine_pinned_to_a_core_stays_there_across_restarts(
    fake: Fake, fake_env: dict[str, str]
) -> None:
    core = max(os.sched_getaffinity(0))
    process = EngineProcess(fake("uci_fake.py", "ok"), env=fake_env, cpus=[core])
    try:
        process.start()
        assert process.pid is not None and os.sched_getaffinity(process.pid) == {core}
        process.restart()
        assert process.pid is not None and os.sched_getaffinity(process.pid) == {core}
    finally:
        process.close()
