"""Engine processes: start one, talk to it line by line, notice hangs and crashes.

Every adapter (UCI, UCCI, Gomocup) runs its engine through :class:`EngineProcess`:

- the engine starts from an argv list, with an optional working directory and
  extra environment variables, in a process group of its own;
- a reader thread turns its standard output into lines on a queue (``\\n``,
  ``\\r\\n`` and a lone ``\\r`` all end a line), another keeps the last lines of
  its standard error for error messages;
- :meth:`EngineProcess.expect` waits for a line that matches, with a deadline:
  :class:`EngineTimeout` when the engine hangs, :class:`EngineCrashed` (exit code
  and the last stderr lines) when it dies;
- :meth:`EngineProcess.close` sends the protocol's quit command, closes the
  engine's input, waits briefly, then kills the whole process group and reaps
  it.  A finalizer does the same (without the polite quit) if the object is
  garbage collected unclosed, so no engine and no zombie outlives its adapter;
- fair play on shared cores: ``memory_mb`` caps the engine's address space
  (``RLIMIT_AS``; an engine that dies over it raises :class:`EngineOutOfMemory`),
  ``cpus`` pins it to those cores, and :meth:`EngineProcess.pause` stops its whole
  process group (``SIGSTOP``) while it waits, until the next line sent to it
  (``SIGCONT``).

All traffic is logged at DEBUG level on this module's logger.

>>> import sys
>>> echo = "import sys\\nfor line in sys.stdin: print('you said', line.strip(), flush=True)"
>>> with EngineProcess([sys.executable, "-c", echo], name="echo") as engine:
...     engine.send("hello")
...     engine.expect(lambda line: line.startswith("you said"), timeout=10)
'you said hello'
"""

from __future__ import annotations

import collections
import contextlib
import logging
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Self

if sys.platform != "win32":
    import resource

__all__ = [
    "EngineConfigError",
    "EngineCrashed",
    "EngineError",
    "EngineOutOfMemory",
    "EngineProcess",
    "EngineProtocolError",
    "EngineTimeout",
    "IllegalEngineMove",
]

log = logging.getLogger(__name__)

#: How long :meth:`EngineProcess.close` waits for a polite exit before killing.
CLOSE_GRACE_S = 1.0
#: How long to wait for an engine whose output ended to report its exit code.
EXIT_WAIT_S = 1.0
_STDERR_KEEP = 20
_LINE_END = re.compile(rb"\r\n|\r|\n")


class EngineError(Exception):
    """Something went wrong with an engine; the runner loses the game for it."""


class EngineTimeout(EngineError):  # noqa: N818 - the names the bot runner and docs use
    """The engine did not answer in time (it hangs, or thinks far too long)."""

    def __init__(self, message: str, *, waited_s: float) -> None:
        super().__init__(message)
        self.waited_s = waited_s


class EngineCrashed(EngineError):  # noqa: N818 - the names the bot runner and docs use
    """The engine process died (or could not be started, or closed its output)."""

    def __init__(
        self, message: str, *, exit_code: int | None = None, stderr: Sequence[str] = ()
    ) -> None:
        details = message
        if exit_code is not None:
            details += f" ({describe_exit(exit_code)})"
        if stderr:
            details += "; last stderr lines:\n  " + "\n  ".join(stderr)
        super().__init__(details)
        self.exit_code = exit_code
        self.stderr = tuple(stderr)


class EngineOutOfMemory(EngineCrashed):
    """The engine died over its memory cap (``memory_mb``)."""


#: what an engine's last words say when an allocation failed (C++, C, Python, Rust, Go)
_MEMORY_WORDS = ("bad_alloc", "memoryerror", "out of memory", "cannot allocate", "alloc")
#: how a program dies when an allocation it did not check fails
_MEMORY_SIGNALS = (signal.SIGABRT, signal.SIGSEGV, signal.SIGBUS, signal.SIGKILL)


class EngineProtocolError(EngineError):
    """The engine said something its protocol does not allow where it said it."""


class EngineConfigError(EngineError):
    """An option the engine does not have, or a value it does not accept."""


class IllegalEngineMove(EngineError):  # noqa: N818 - the names the bot runner and docs use
    """The engine chose a move that is unreadable or illegal; it never reaches the board.

    ``reply`` is the engine's line, ``move`` the move text in it (as the engine
    wrote it) and ``position`` the position it was asked about (FEN).
    """

    def __init__(self, message: str, *, reply: str, move: str, position: str) -> None:
        super().__init__(f"{message} (engine said {reply!r}; position {position})")
        self.reply = reply
        self.move = move
        self.position = position


def describe_exit(code: int) -> str:
    """``exit code 3`` or ``killed by SIGSEGV`` for a ``Popen.returncode``.

    >>> describe_exit(3), describe_exit(-11)
    ('exit code 3', 'killed by SIGSEGV')
    """
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


class _Eof:
    """Marks the end of the engine's output on the line queue."""


_EOF = _Eof()


def _pump(
    stream: IO[bytes], sink: Callable[[str], None], label: str, on_eof: Callable[[], None]
) -> None:
    """Reader thread: hand each line to ``sink`` as soon as it ends, then close ``stream``.

    The thread owns the stream: nobody else closes it, so its file descriptor
    cannot be reused under a pending read.
    """
    fd = stream.fileno()
    pending = b""
    skip_lf = False  # a chunk ended in \r: a \n starting the next one belongs to it
    try:
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            if skip_lf and chunk.startswith(b"\n"):
                chunk = chunk[1:]
            skip_lf = chunk.endswith(b"\r")
            parts = _LINE_END.split(pending + chunk)
            pending = parts.pop()
            for raw in parts:
                sink(raw.decode("utf-8", errors="replace"))
        if pending:
            sink(pending.decode("utf-8", errors="replace"))
    finally:
        with contextlib.suppress(OSError):
            stream.close()
        on_eof()


def _exited(proc: subprocess.Popen[bytes]) -> bool:
    """Has the process ended?  On POSIX this does not reap it (the pid stays ours)."""
    if proc.returncode is not None:
        return True
    if hasattr(os, "waitid"):
        try:
            info = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return proc.poll() is not None
        return info is not None
    return proc.poll() is not None


def _reap(proc: subprocess.Popen[bytes], grace_s: float, label: str) -> tuple[int | None, bool]:
    """Wait up to ``grace_s`` for the process to end, kill its group, reap it.

    Returns the exit code and whether it had to be killed.  The group is killed
    while the leader is not yet reaped, so its id cannot have been reused:
    helpers the engine started die with it.
    """
    if proc.stdin is not None:  # end of input: most engines take it as a second "quit"
        with contextlib.suppress(OSError):
            proc.stdin.close()
    deadline = time.monotonic() + grace_s
    while not _exited(proc) and time.monotonic() < deadline:
        time.sleep(0.01)
    killed = False
    if proc.returncode is None:
        killed = not _exited(proc)
        if os.name == "posix":
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
        elif killed:  # pragma: no cover - no process groups to kill on Windows
            with contextlib.suppress(OSError):
                proc.kill()
    try:
        code = proc.wait(timeout=5.0)
    except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL does not fail
        log.error("%s: pid %d survived SIGKILL", label, proc.pid)
        return None, killed
    if killed:
        log.debug("%s: killed", label)
    return code, killed


def _finalize(proc: subprocess.Popen[bytes], label: str) -> None:
    """Finalizer of a garbage-collected, unclosed :class:`EngineProcess`."""
    if proc.returncode is None:
        log.debug("%s: killing pid %d left running", label, proc.pid)
    _reap(proc, 0.0, label)


class EngineProcess:
    """One engine subprocess and its line-based conversation.

    ``argv`` is the command (a list, no shell); ``cwd`` its working directory;
    ``env`` variables added to (or overriding) this process's environment.
    ``name`` labels the log lines and error messages.  ``line_ending`` ends every
    line sent.  Nothing starts until :meth:`start` (or ``with``).
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: str | Path | None = None,
        env: Mapping[str, str] | None = None,
        name: str | None = None,
        line_ending: str = "\n",
        stderr_keep: int = _STDERR_KEEP,
        memory_mb: int | None = None,
        cpus: Sequence[int] | None = None,
    ) -> None:
        if isinstance(argv, str) or not argv:
            raise ValueError("argv must be a non-empty list of strings (no shell)")
        self.argv = [str(part) for part in argv]
        self.cwd = cwd
        self.env = dict(env) if env is not None else None
        self.name = name or Path(self.argv[0]).name
        self.line_ending = line_ending
        self._stderr_keep = stderr_keep
        self._proc: subprocess.Popen[bytes] | None = None
        self._lines: queue.Queue[str | _Eof] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=stderr_keep)
        self._threads: list[threading.Thread] = []
        self._finalizer: weakref.finalize[[subprocess.Popen[bytes], str], EngineProcess] | None = (
            None
        )
        self.starts = 0
        if memory_mb is not None and memory_mb < 1:
            raise ValueError(f"memory_mb must be at least 1, not {memory_mb}")
        #: the cap on the engine's address space (MB), applied at every start
        self.memory_mb = memory_mb
        #: the cores the engine may run on, applied at every start
        self.cpus = tuple(sorted(set(cpus))) if cpus else None
        #: stopped by :meth:`pause` (SIGSTOP) until the next line sent
        self.paused = False
        #: times :meth:`pause` stopped the engine (for logs and tests)
        self.pauses = 0

    # -- lifetime -------------------------------------------------------------

    def start(self) -> None:
        """Start the engine.  Raises :class:`EngineCrashed` if it cannot be run."""
        if self._proc is not None and not _exited(self._proc):
            raise RuntimeError(f"{self.name} is already running (pid {self._proc.pid})")
        self._discard()
        env = None
        if self.env is not None:
            env = {**os.environ, **self.env}
        try:
            proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=self.cwd,
                env=env,
                bufsize=0,
                start_new_session=os.name == "posix",
            )
        except OSError as exc:
            raise EngineCrashed(f"cannot start {self.name} ({' '.join(self.argv)}): {exc}") from exc
        assert proc.stdout is not None and proc.stderr is not None
        self._proc = proc
        self.paused = False
        self.starts += 1
        self._confine(proc.pid)
        self._lines = queue.Queue()
        self._stderr = collections.deque(maxlen=self._stderr_keep)
        label = f"{self.name}[{proc.pid}]"
        lines, tail = self._lines, self._stderr

        def to_queue(line: str) -> None:
            log.debug("%s << %s", label, line)
            lines.put(line)

        def to_tail(line: str) -> None:
            log.debug("%s stderr: %s", label, line)
            tail.append(line)

        def output_ended() -> None:
            log.debug("%s: end of output", label)
            lines.put(_EOF)

        self._threads = [
            threading.Thread(
                target=_pump,
                args=(proc.stdout, to_queue, label, output_ended),
                name=f"{label} stdout",
                daemon=True,
            ),
            threading.Thread(
                target=_pump,
                args=(proc.stderr, to_tail, label, lambda: None),
                name=f"{label} stderr",
                daemon=True,
            ),
        ]
        for thread in self._threads:
            thread.start()
        self._finalizer = weakref.finalize(self, _finalize, proc, label)
        log.debug("%s: started %s", label, " ".join(self.argv))

    def _confine(self, pid: int) -> None:
        """Apply the memory cap and the cores to a just-started engine (Linux).  The
        engine has had no input yet, so it has not allocated its tables."""
        if self.memory_mb is not None and sys.platform != "win32":
            limit = self.memory_mb * 1024 * 1024
            try:
                resource.prlimit(pid, resource.RLIMIT_AS, (limit, limit))
            except (OSError, ValueError) as exc:
                log.warning("%s: cannot cap its memory: %s", self.name, exc)
        if self.cpus is not None and hasattr(os, "sched_setaffinity"):
            try:
                os.sched_setaffinity(pid, self.cpus)
            except OSError as exc:
                log.warning("%s: cannot pin it to cores %s: %s", self.name, self.cpus, exc)

    def pause(self) -> None:
        """Stop the engine's process group (SIGSTOP) while it has nothing to do; the
        next :meth:`send` (or :meth:`close`) lets it run again.  POSIX only."""
        proc = self._proc
        if proc is None or self.paused or os.name != "posix" or _exited(proc):
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGSTOP)
            self.paused = True
            self.pauses += 1
            log.debug("%s: paused", self._label)

    def resume(self) -> None:
        """Let a paused engine run again (SIGCONT)."""
        proc = self._proc
        if proc is None or not self.paused:
            return
        self.paused = False
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGCONT)
            log.debug("%s: resumed", self._label)

    def close(self, quit_command: str | None = "quit", grace_s: float = CLOSE_GRACE_S) -> None:
        """Ask the engine to quit (``quit_command``, then end of input), wait up to
        ``grace_s`` for it to exit, then kill its process group and reap it.

        Safe to call more than once, and on an engine that already died.
        """
        proc = self._proc
        if proc is None:
            return
        self.resume()  # a stopped engine could not read quit (SIGKILL needs no CONT)
        if quit_command is not None and not _exited(proc):
            with contextlib.suppress(EngineError):
                self.send(quit_command)
        _reap(proc, grace_s, self._label)
        self._discard()

    def kill(self) -> None:
        """Kill the engine now (no quit command) and reap it."""
        self.close(quit_command=None, grace_s=0.0)

    def restart(self, quit_command: str | None = "quit") -> None:
        """Close the engine (if running) and start a fresh one."""
        self.close(quit_command)
        self.start()

    def _discard(self) -> None:
        """Forget a finished process: detach its finalizer, let the reader threads end."""
        if self._finalizer is not None:
            self._finalizer()  # reaps if still needed; a no-op after the first call
            self._finalizer = None
        for thread in self._threads:
            thread.join(timeout=1.0)
        self._threads = []

    def __enter__(self) -> Self:
        if self._proc is None or _exited(self._proc):
            self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- state ----------------------------------------------------------------

    @property
    def pid(self) -> int | None:
        """The engine's process id (``None`` before the first start)."""
        return None if self._proc is None else self._proc.pid

    @property
    def running(self) -> bool:
        """Whether the engine process is alive."""
        return self._proc is not None and not _exited(self._proc)

    @property
    def returncode(self) -> int | None:
        """The exit code once the engine has been reaped, else ``None``."""
        return None if self._proc is None else self._proc.returncode

    def stderr_tail(self) -> list[str]:
        """The last lines the engine wrote to standard error."""
        return list(self._stderr)

    @property
    def _label(self) -> str:
        return self.name if self._proc is None else f"{self.name}[{self._proc.pid}]"

    # -- talking ----------------------------------------------------------------

    def send(self, line: str) -> None:
        """Send one line.  Raises :class:`EngineCrashed` if the engine is gone."""
        self.send_lines([line])

    def send_lines(self, lines: Sequence[str]) -> None:
        """Send these lines in one write (a move's ``position`` and ``go``: one
        system call, so the thread gives up the interpreter lock once, not once a
        line, on its way to the engine).  Raises :class:`EngineCrashed` if the
        engine is gone."""
        proc = self._proc
        if proc is None or proc.stdin is None:
            raise EngineCrashed(f"{self.name} is not running")
        for line in lines:
            if "\n" in line or "\r" in line:
                raise ValueError(f"one line at a time, not {line!r}")
        self.resume()
        if log.isEnabledFor(logging.DEBUG):
            for line in lines:
                log.debug("%s >> %s", self._label, line)
        ending = self.line_ending
        try:
            proc.stdin.write("".join(line + ending for line in lines).encode("utf-8"))
            proc.stdin.flush()
        except (BrokenPipeError, ConnectionResetError, ValueError, OSError) as exc:
            raise self._crashed(f"{self.name} stopped reading its input ({exc})") from exc

    def expect(
        self,
        predicate: Callable[[str], bool],
        timeout: float,
        *,
        on_line: Callable[[str], None] | None = None,
        what: str = "an answer",
    ) -> str:
        """Return the first line for which ``predicate`` is true.

        Lines before it go to ``on_line`` (if given).  Raises
        :class:`EngineTimeout` after ``timeout`` seconds without one and
        :class:`EngineCrashed` if the engine ends its output or dies first.
        ``what`` names the awaited line in those errors.
        """
        start = time.monotonic()
        deadline = start + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise EngineTimeout(
                    f"{self.name} gave no {what} within {timeout:.2f} s",
                    waited_s=time.monotonic() - start,
                )
            try:
                item = self._lines.get(timeout=remaining)
            except queue.Empty:
                continue
            if isinstance(item, _Eof):
                self._lines.put(item)  # stays at the end for every later read
                raise self._crashed(f"{self.name} exited while we waited for {what}")
            if predicate(item):
                return item
            if on_line is not None:
                on_line(item)

    def read_line(self, timeout: float) -> str:
        """The next line, whatever it says (see :meth:`expect` for the errors)."""
        return self.expect(lambda _line: True, timeout, what="line")

    def pending_lines(self) -> list[str]:
        """Take the lines already received without waiting (the end marker stays)."""
        lines: list[str] = []
        while True:
            try:
                item = self._lines.get_nowait()
            except queue.Empty:
                return lines
            if isinstance(item, _Eof):
                self._lines.put(item)
                return lines
            lines.append(item)

    def check_alive(self, what: str) -> None:
        """Raise :class:`EngineCrashed` (how it ended, reaped) if the engine has died
        by itself since it was last spoken to, e.g. killed while it waited for ``what``."""
        if self._proc is not None and _exited(self._proc):
            raise self._crashed(f"{self.name} exited while it waited for {what}")

    def _crashed(self, message: str) -> EngineCrashed:
        """Reap a dead (or deaf) engine and describe how it ended."""
        proc = self._proc
        if proc is None:
            return EngineCrashed(message)
        label = self._label
        code, killed = _reap(proc, EXIT_WAIT_S, label)
        for thread in self._threads:
            thread.join(timeout=0.5)  # the last stderr lines
        if killed:
            message += "; it had closed its output but kept running, so it was killed"
        stderr = self.stderr_tail()
        if self.memory_mb is not None and self._over_memory(code, stderr):
            return EngineOutOfMemory(
                f"{message}; over its memory cap of {self.memory_mb} MB",
                exit_code=code,
                stderr=stderr,
            )
        return EngineCrashed(message, exit_code=code, stderr=stderr)

    @staticmethod
    def _over_memory(code: int | None, stderr: Sequence[str]) -> bool:
        """Did a capped engine die of its cap?  Its last words name a failed
        allocation, or it died the way unchecked allocations end (abort, segfault)."""
        if code is None or code == 0:
            return False
        words = " ".join(stderr[-5:]).lower()
        if any(word in words for word in _MEMORY_WORDS):
            return True
        return code < 0 and -code in _MEMORY_SIGNALS

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"<EngineProcess {self._label} {state}>"
