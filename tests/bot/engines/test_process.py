"""EngineProcess: lines, deadlines, crashes, and never a process left behind."""

from __future__ import annotations

import doctest
import gc
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lanqi.bot.engines import process
from lanqi.bot.engines.process import EngineCrashed, EngineProcess, EngineTimeout

Fake = Callable[..., list[str]]
Procs = Any


def test_doctests() -> None:
    result = doctest.testmod(process)
    assert result.failed == 0 and result.attempted > 0


def test_lines_round_trip_and_line_endings(fake: Fake) -> None:
    with EngineProcess(fake("chatter.py"), name="chatter") as engine:
        engine.send("echo hello there")
        assert engine.read_line(5) == "hello there"
        engine.send("crlf")
        assert [engine.read_line(5) for _ in range(4)] == ["one", "two", "three", "four"]
        engine.send("echo after")  # the CR ending "four" must not swallow anything
        assert engine.read_line(5) == "after"


def test_expect_passes_other_lines_on(fake: Fake) -> None:
    seen: list[str] = []
    with EngineProcess(fake("chatter.py")) as engine:
        for word in ("a", "b", "target c"):
            engine.send(f"echo {word}")
        line = engine.expect(lambda text: text.startswith("target"), 5, on_line=seen.append)
    assert line == "target c"
    assert seen == ["a", "b"]


def test_cwd_and_env(fake: Fake, tmp_path: Path) -> None:
    with EngineProcess(fake("chatter.py"), cwd=tmp_path, env={"LANQI_FAKE": "42"}) as engine:
        engine.send("cwd")
        assert Path(engine.read_line(5)).resolve() == tmp_path.resolve()
        engine.send("env LANQI_FAKE")
        assert engine.read_line(5) == "42"
        engine.send("env PATH")  # the rest of the environment is kept
        assert engine.read_line(5) != "<unset>"


def test_timeout_is_raised_on_time(fake: Fake) -> None:
    engine = EngineProcess(fake("chatter.py", "silent"))
    engine.start()
    engine.send("echo nobody hears")
    with pytest.raises(EngineTimeout, match=r"gave no reply within 0\.30 s") as info:
        engine.expect(lambda _line: True, 0.3, what="reply")
    engine.close(grace_s=0.1)
    assert info.value.waited_s >= 0.3  # it did not give up early (the adapter's own count)


def test_crash_reports_exit_code_and_stderr(fake: Fake, procs: Procs) -> None:
    engine = EngineProcess(fake("chatter.py"), name="crasher")
    engine.start()
    pid = engine.pid
    assert pid is not None
    engine.send("stderr something went badly wrong")
    engine.send("exit 3")
    with pytest.raises(EngineCrashed) as info:
        engine.read_line(5)
    assert info.value.exit_code == 3
    assert "exit code 3" in str(info.value)
    assert "something went badly wrong" in info.value.stderr
    assert not engine.running
    assert procs.reaped(pid)
    with pytest.raises(EngineCrashed):  # still dead for every later read
        engine.read_line(1)
    with pytest.raises(EngineCrashed, match=r"stopped reading|not running"):
        engine.send("echo anyone?")
    engine.close()


def test_killed_by_signal_is_described() -> None:
    assert process.describe_exit(-9) == "killed by SIGKILL"
    assert process.describe_exit(0) == "exit code 0"


def test_missing_binary_raises_crashed(tmp_path: Path) -> None:
    engine = EngineProcess([str(tmp_path / "no-such-engine")])
    with pytest.raises(EngineCrashed, match="cannot start"):
        engine.start()
    engine.close()


def test_argv_must_be_a_list() -> None:
    with pytest.raises(ValueError):
        EngineProcess("fairy-stockfish")
    with pytest.raises(ValueError):
        EngineProcess([])


def test_close_quits_politely_and_reaps(fake: Fake, procs: Procs) -> None:
    engine = EngineProcess(fake("chatter.py"))
    engine.start()
    pid = engine.pid
    assert pid is not None
    engine.close()
    assert engine.returncode == 0  # it quit by itself: not killed after the grace period
    assert procs.reaped(pid)
    engine.close()  # twice is fine


def test_close_kills_an_engine_that_ignores_quit(fake: Fake, procs: Procs) -> None:
    engine = EngineProcess(fake("chatter.py", "deaf"))
    engine.start()
    pid = engine.pid
    assert pid is not None
    engine.close(grace_s=0.3)
    assert engine.returncode is not None and engine.returncode < 0  # killed: quit was ignored
    assert procs.reaped(pid)


def test_close_kills_helpers_the_engine_started(fake: Fake, procs: Procs) -> None:
    engine = EngineProcess(fake("chatter.py", "deaf"))
    engine.start()
    engine.send("spawn")
    helper = int(engine.read_line(5))
    assert Path(f"/proc/{helper}").exists()
    engine.close(grace_s=0.1)
    assert procs.wait_gone(helper), f"helper {helper} survived the engine"


def test_garbage_collected_engine_is_killed_and_reaped(fake: Fake, procs: Procs) -> None:
    engine = EngineProcess(fake("chatter.py", "deaf"))
    engine.start()
    pid = engine.pid
    assert pid is not None
    del engine
    gc.collect()
    assert procs.reaped(pid)
    assert procs.wait_gone(pid)


def test_restart_gives_a_fresh_process(fake: Fake, procs: Procs) -> None:
    with EngineProcess(fake("chatter.py")) as engine:
        first = engine.pid
        engine.restart()
        assert engine.pid != first and engine.running
        assert first is not None and procs.reaped(first)
        engine.send("echo still talking")
        assert engine.read_line(5) == "still talking"
        assert engine.starts == 2


def test_start_twice_is_an_error(fake: Fake) -> None:
    with EngineProcess(fake("chatter.py")) as engine, pytest.raises(RuntimeError):
        engine.start()


def test_pending_lines(fake: Fake) -> None:
    with EngineProcess(fake("chatter.py")) as engine:
        engine.send("echo x")
        engine.send("echo marker")
        engine.expect(lambda line: line == "x", 5)
        assert engine.read_line(5) == "marker"
        assert engine.pending_lines() == []


def test_traffic_is_logged_at_debug(fake: Fake, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="lanqi.bot.engines.process")
    with EngineProcess(fake("chatter.py"), name="talker") as engine:
        engine.send("echo logged")
        engine.read_line(5)
    messages = [record.getMessage() for record in caplog.records]
    assert any(">> echo logged" in message for message in messages)
    assert any("<< logged" in message for message in messages)
    assert all(record.levelno == logging.DEBUG for record in caplog.records)


def test_interpreter_exit_leaves_no_engine(fake: Fake, tmp_path: Path, procs: Procs) -> None:
    """A program that forgets close() still takes its engine down when it exits."""
    import subprocess

    script = tmp_path / "forgetful.py"
    script.write_text(
        "import sys\n"
        "from lanqi.bot.engines.process import EngineProcess\n"
        f"engine = EngineProcess({fake('chatter.py', 'deaf')!r})\n"
        "engine.start()\n"
        "print(engine.pid, flush=True)\n"
    )
    source = ":".join(str(procs.repo / part) for part in ("shared", "services", "frontends"))
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=30,
        env={"PYTHONPATH": source, "PATH": "/usr/bin:/bin"},
        check=True,
    )
    pid = int(done.stdout.strip())
    assert procs.wait_gone(pid), f"engine {pid} outlived the program that started it"
