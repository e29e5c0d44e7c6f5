"""Subprocesses the benchmarks start: a ``lanqi`` service that prints one ready line.

Both benchmarks that start servers (``referee`` and ``tournament``) use it: start,
wait for the ready line, read peak memory and CPU time from ``/proc``, scan the log
for errors, stop with SIGTERM (then SIGKILL).
"""

from __future__ import annotations

import os
import re
import selectors
import signal
import subprocess
import time
from pathlib import Path

import lanqi

__all__ = [
    "LOG_ERROR",
    "ServiceProcess",
    "cpu_seconds",
    "file_system",
    "source_path",
]

LOG_ERROR = re.compile(r" (ERROR|CRITICAL) |^Traceback")


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


class ServiceProcess:
    """A subprocess that prints one ready line on stdout; its stderr goes to ``log``.

    ``endpoints`` are the groups of ``ready`` in that line.
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
    ) -> None:
        self.name = name
        self.log = log
        self.stop_s = stop_s
        env = dict(os.environ, PYTHONPATH=source_path(), PYTHONUNBUFFERED="1")
        env.pop("LANQI_DIRECTOR_KEY", None)
        with log.open("wb") as log_file:
            self.proc = subprocess.Popen(
                command, stdout=subprocess.PIPE, stderr=log_file, env=env, cwd=log.parent
            )
        try:
            line = self._ready_line(ready_s)
            match = ready.search(line)
            if match is None:
                raise RuntimeError(f"{name}: unexpected first line {line!r}")
        except BaseException:
            self.stop()
            raise
        self.endpoints = [g.decode() for g in match.groups()]

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
                    raise RuntimeError(
                        f"{self.name}: no ready line within {timeout_s:g} s; {self.log_tail()}"
                    )
                if not selector.select(time_left):
                    continue
                chunk = os.read(stdout.fileno(), 4096)
                if not chunk:
                    code = self.proc.wait(self.stop_s)
                    raise RuntimeError(
                        f"{self.name} exited with code {code} before it was ready; "
                        f"{self.log_tail()}"
                    )
                buffer += chunk
        return buffer.split(b"\n", 1)[0]

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

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
        try:
            code = self.proc.wait(self.stop_s)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait(self.stop_s)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        return code

    def log_errors(self) -> list[str]:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return [line for line in text.splitlines() if LOG_ERROR.search(line)]

    def log_tail(self, lines: int = 5) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        tail = text.strip().splitlines()[-lines:]
        return "log: " + (" | ".join(tail) if tail else "(empty)")
