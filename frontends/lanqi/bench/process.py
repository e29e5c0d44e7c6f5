"""Subprocesses that print one ready line: the ``lanqi`` services the benchmarks and
the end-to-end tests start.

- :class:`ServiceProcess`: one run of a command: start it, wait for its ready line,
  read its peak memory and CPU time from ``/proc``, scan its log for errors, stop it
  with SIGTERM (then SIGKILL) or kill it.  The benchmarks use it as it is.
- :class:`LanqiService`: a ``lanqi <command>`` that can be stopped, killed and
  started again on the same ports (port 0 the first time), one log per run: the
  test fixtures' processes (``tests/referee`` and ``tests/matchmaker``).
"""

from __future__ import annotations

import os
import re
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Self

import lanqi

__all__ = [
    "LOG_ERROR",
    "LanqiService",
    "ServiceProcess",
    "ServiceStartError",
    "cpu_seconds",
    "file_system",
    "source_path",
]

LOG_ERROR = re.compile(r" (ERROR|CRITICAL) |^Traceback")
#: lines of a log kept after an error record (its traceback)
ERROR_CONTEXT_LINES = 30


def source_path() -> str:
    """PYTHONPATH for a child process that must import the same ``lanqi``."""
    roots = list(dict.fromkeys(str(Path(p).parent) for p in lanqi.__path__))
    current = os.environ.get("PYTHONPATH")
    return os.pathsep.join([*roots, current] if current else roots)


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of a live process (all its threads), or None.

    Fields 14 and 15 of ``/proc/<pid>/stat``, counted after the command name (which
    is in parentheses and may itself hold spaces or parentheses).
    """
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    ticks = int(fields[11]) + int(fields[12])  # utime, stime: fields 14 and 15
    return ticks / os.sysconf("SC_CLK_TCK")


def file_system(path: Path) -> str:
    """The type of the file system holding ``path`` (from /proc/self/mounts), or ``?``."""
    try:
        mounts = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return "?"
    resolved, best, kind = str(path.resolve()), "", "?"
    for line in mounts:
        parts = line.split()
        if len(parts) >= 3:
            point = parts[1]
            inside = resolved == point or resolved.startswith(point.rstrip("/") + "/")
            if inside and len(point) > len(best):
                best, kind = point, parts[2]
    return kind


class ServiceStartError(RuntimeError):
    """A service exited, printed something else, or said nothing before its ready line.

    ``log`` is the whole of its log (a caller may retry on a port race, say).
    """

    def __init__(self, msg: str, log: str) -> None:
        super().__init__(msg)
        self.log = log


class ServiceProcess:
    """A subprocess that prints one ready line on stdout; its stderr goes to ``log``.

    Started by the constructor, which returns once the ready line is read (or raises
    :class:`ServiceStartError`, the process stopped).  ``endpoints`` are the groups
    of ``ready`` in that line, ``named`` its named groups.  ``env`` is laid over this
    process's environment (a None value removes the variable); the child imports the
    same ``lanqi`` as this process, and never sees a ``LANQI_DIRECTOR_KEY``.
    """

    def __init__(
        self,
        command: list[str],
        ready: re.Pattern[bytes],
        log: Path,
        *,
        name: str = "server",
        ready_s: float = 30.0,
        stop_s: float = 10.0,
        env: Mapping[str, str | None] | None = None,
    ) -> None:
        self.name = name
        self.log = log
        self.stop_s = stop_s
        self._checked = 0  # how much of the log new_errors() has read
        child_env = dict(os.environ, PYTHONPATH=source_path(), PYTHONUNBUFFERED="1")
        child_env.pop("LANQI_DIRECTOR_KEY", None)
        for key, value in (env or {}).items():
            if value is None:
                child_env.pop(key, None)
            else:
                child_env[key] = value
        with log.open("wb") as log_file:
            self.proc = subprocess.Popen(
                command, stdout=subprocess.PIPE, stderr=log_file, env=child_env, cwd=log.parent
            )
        try:
            line = self._ready_line(ready_s)
            match = ready.search(line)
            if match is None:
                raise self._start_error(f"{name}: unexpected first line {line!r}")
        except BaseException:
            self.stop()
            raise
        self.endpoints = [g.decode() for g in match.groups()]
        self.named = {key: value.decode() for key, value in match.groupdict().items()}

    def _start_error(self, msg: str) -> ServiceStartError:
        return ServiceStartError(f"{msg}; {self.log_tail()}", self.log_text())

    def _ready_line(self, timeout_s: float) -> bytes:
        stdout = self.proc.stdout
        assert stdout is not None
        deadline = time.monotonic() + timeout_s
        buffer = b""
        with selectors.DefaultSelector() as selector:
            selector.register(stdout, selectors.EVENT_READ)
            while b"\n" not in buffer:
                time_left = deadline - time.monotonic()
                if time_left <= 0:
                    raise self._start_error(f"{self.name}: no ready line within {timeout_s:g} s")
                if not selector.select(time_left):
                    continue
                chunk = os.read(stdout.fileno(), 4096)
                if not chunk:
                    code = self.proc.wait(self.stop_s)
                    raise self._start_error(
                        f"{self.name} exited with code {code} before it was ready"
                    )
                buffer += chunk
        return buffer.split(b"\n", 1)[0]

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    @property
    def pid(self) -> int:
        return self.proc.pid

    def cpu(self) -> float:
        return cpu_seconds(self.proc.pid) or 0.0

    def peak_rss_mib(self) -> float | None:
        """VmHWM (peak resident set) of the live process, in MiB."""
        try:
            status = Path(f"/proc/{self.proc.pid}/status").read_text()
        except OSError:
            return None
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return None

    def stop(self) -> int:
        """SIGTERM, then SIGKILL after a timeout; returns the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self._reap()

    def kill(self) -> int:
        """SIGKILL: a crash."""
        if self.proc.poll() is None:
            self.proc.kill()
        return self._reap()

    def _reap(self) -> int:
        try:
            code = self.proc.wait(self.stop_s)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait(self.stop_s)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        return code

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def log_errors(self) -> list[str]:
        """Every ERROR record (and traceback start) in the log."""
        return [line for line in self.log_text().splitlines() if LOG_ERROR.search(line)]

    def new_errors(self, allowed: Sequence[re.Pattern[str]] = ()) -> list[str]:
        """The first ERROR record logged since the last call that matches none of
        ``allowed``, with the lines after it (its traceback); empty if none."""
        text = self.log_text()
        fresh, self._checked = text[self._checked :], len(text)
        lines = fresh.splitlines()
        for i, line in enumerate(lines):
            if LOG_ERROR.search(line) and not any(p.search(line) for p in allowed):
                return lines[i : i + ERROR_CONTEXT_LINES]
        return []

    def log_tail(self, lines: int = 5) -> str:
        tail = self.log_text().strip().splitlines()[-lines:]
        return "log: " + (" | ".join(tail) if tail else "(empty)")


class LanqiService:
    """``lanqi <command> <port flags> <args>``, restartable on the same ports.

    ``ports`` maps each port flag to the ready line's named group holding the
    endpoint it binds: the first start binds port 0 (a free port), a restart the
    ports it got.  Each run logs to ``<log_dir>/<name>-<n>.log``; ``LANQI_DATA_DIR``
    points into ``log_dir`` so a command never touches the user's data.
    """

    def __init__(
        self,
        command: str,
        args: Sequence[str],
        log_dir: Path,
        *,
        name: str,
        ready: re.Pattern[bytes],
        ports: Mapping[str, str],
        allowed_errors: Sequence[str] = (),
        ready_s: float = 20.0,
        stop_s: float = 5.0,
    ) -> None:
        self.command = command
        self.args = list(args)
        self.log_dir = log_dir
        self.name = name
        self.ready = ready
        self.port_groups = dict(ports)
        self.ports = dict.fromkeys(ports, 0)
        self.allowed_errors = [re.compile(p) for p in allowed_errors]
        self.ready_s = ready_s
        self.stop_s = stop_s
        self.endpoints: dict[str, str] = {}
        self.runs: list[ServiceProcess] = []  # the runs that started
        self.attempts = 0
        self._current: ServiceProcess | None = None

    @property
    def running(self) -> bool:
        return self._current is not None and self._current.alive

    @property
    def pid(self) -> int:
        assert self._current is not None, f"{self.name} is not running"
        return self._current.pid

    @property
    def logs(self) -> list[Path]:
        return [run.log for run in self.runs]

    def start(self) -> Self:
        """Start and wait for the ready line (a restart may lose a race for its port)."""
        assert not self.running, f"{self.name} is already running"
        for attempt in range(5):
            try:
                self._spawn()
                return self
            except ServiceStartError as exc:
                if "Address already in use" not in exc.log or attempt == 4:
                    raise RuntimeError(f"{self.name} did not start: {exc}\n{exc.log}") from None
                time.sleep(0.05 * (attempt + 1))  # back-off before retrying a bind, not a wait
        raise AssertionError("unreachable")

    def _spawn(self) -> None:
        self.attempts += 1
        log = self.log_dir / f"{self.name}-{self.attempts}.log"
        ports = [str(x) for flag, port in self.ports.items() for x in (flag, port)]
        command = [sys.executable, "-m", "lanqi.cli.main", self.command, *ports, *self.args]
        run = ServiceProcess(
            command,
            self.ready,
            log,
            name=self.name,
            ready_s=self.ready_s,
            stop_s=self.stop_s,
            env={"LANQI_DATA_DIR": str(self.log_dir / "default-data")},
        )
        self.runs.append(run)
        self._current = run
        self.endpoints = run.named
        for flag, group in self.port_groups.items():
            self.ports[flag] = int(self.endpoints[group].rsplit(":", 1)[1])

    def stop(self) -> int | None:
        """SIGTERM, then SIGKILL after a timeout; the exit code (None if not running)."""
        run, self._current = self._current, None
        return None if run is None else run.stop()

    def kill(self) -> None:
        """SIGKILL: a crash."""
        run, self._current = self._current, None
        if run is not None:
            run.kill()

    def restart(self, *, kill: bool = False) -> None:
        """Stop (or kill -9) and start again on the same ports and data directory."""
        if kill:
            self.kill()
        else:
            self.stop()
        self.start()

    def log_text(self) -> str:
        return "".join(run.log_text() for run in self.runs)

    def new_errors(self) -> list[str]:
        """ERROR records (with their tracebacks) logged since the last call, except
        those matching one of ``allowed_errors``; each line names the process."""
        return [
            f"{self.name}: {line}"
            for run in self.runs
            for line in run.new_errors(self.allowed_errors)
        ]
