"""Referee throughput and latency under many concurrent games: ``lanqi bench referee``.

The referee runs as a real separate process (``lanqi referee`` on port 0 and a
temporary data directory), so it has a core of its own; this process is the load
generator.  The run has two measurements with the same client code and the same
concurrency, then (by default) the same two again at a paced load:

1. **referee**: ``games`` tables.  Each creates a game (``create_game``), joins both
   seats with their tokens, then plays a random legal game computed beforehand with
   the rules core (:func:`make_scripts`), one ``move`` request at a time with the
   right ply.  With ``think_ms`` 0 (the default) every table always has its next
   request outstanding, so ``games`` requests are in flight at once.  When a game
   ends by the rules (its last move is accepted), the table creates and joins a new
   game and goes on.  One spectator SUB, subscribed to every ``game/`` topic, times
   each move to its ``moved`` event.
2. **raw**: the same tables against the raw server (:mod:`lanqi.bench.raw_server`), a
   ROUTER in its own process that decodes nothing and answers every message at once
   with one fixed, encoded ``move_ok``.  Its games need no create; the two joins of
   each table are still sent before the clock starts, so every connection is up
   when it does.  This is the ceiling of the socket pattern with this client: what
   the referee would reach if validating, storing and publishing a move cost nothing.
3. **paced**: when the run saturates (``think_ms`` 0) and ``paced_think_ms`` is above
   0, both again with ``think_ms = paced_think_ms`` (see below): the referee (a fresh
   process, with a fresh data directory) then the raw server.

With ``curve`` (``lanqi bench referee --curve``) each phase measures the referee with
CURVE on (its default; the load's sockets are CURVE clients of its key, read from its
data directory), then the same referee program with ``--insecure``, then the raw
server with CURVE (``--curve``: a key pair of its own, its key in its ready line) and
plain, so the cost of encryption is printed beside the plain runs and the ceilings
of the same run.

Sockets: one DEALER per seat (two per table, as two real players would have),
every socket in one :class:`zmq.Poller` together with the spectator's SUB.  A
move's round trip runs from just before ``send`` to just after the ``recv`` of its
reply (``time.perf_counter_ns``); its delivery latency from the same send to the
``recv`` of its ``moved`` event (the referee publishes before it replies, so this
can be shorter than the round trip).  Only ``move`` requests are timed and counted;
the ``create_game`` and ``join`` of the games that replace finished ones are load
on the referee during the measurement but not in the figures.

Each measurement lasts ``seconds`` (no new move is sent after that; the replies in
flight are awaited) or ends sooner when every table has sent ``moves_per_game``
moves.  Moves per second is accepted moves over the time from the first send to the
last reply.  The spectator's decoding runs in the load generator during the referee
measurements only (a few µs per event).

With every move in flight the server is saturated, and the mean round trip is
``games / moves per second`` whatever the server does (Little's law).
``think_ms`` paces the load instead: a table sends its next move about that long
(0.5 to 1.5 times, at random) after the last one was accepted, the tables out of
step with each other, which shows the latency at a given offered load.  So one
default run judges both targets: the moves/s ratio on the saturated pair, the p99
round trip on the paced referee (next to the raw server's p99 at the same pace, the
floor of this machine and client).  A run given ``think_ms`` is one paced pair: its
ratio is not judged, its p99 is.

The parts: :mod:`lanqi.bench.referee_load` (the configuration, the scripted games and
the load generator), :mod:`lanqi.bench.raw_server` (the ceiling),
:mod:`lanqi.bench.referee_report` (targets' verdicts and the text report), and this
module, which starts each server (:class:`lanqi.bench.process.ServiceProcess`),
runs the load against it and collects the report.
"""

from __future__ import annotations

import re
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import zmq

from lanqi.bench import raw_server
from lanqi.bench.process import ServiceProcess, file_system
from lanqi.bench.referee_load import (
    TARGET_GAMES,
    TARGET_P99_MS,
    TARGET_RATIO,
    Latency,
    Load,
    LoadResult,
    Progress,
    RefereeBenchConfig,
    Script,
    make_scripts,
)
from lanqi.bench.referee_report import RefereeBenchReport, format_report
from lanqi.security import Link, parse_public_key, public_key_file

__all__ = [
    "TARGET_GAMES",
    "TARGET_P99_MS",
    "TARGET_RATIO",
    "Latency",
    "LoadResult",
    "RefereeBenchConfig",
    "RefereeBenchReport",
    "Script",
    "format_report",
    "make_scripts",
    "run_referee_bench",
]

SERVER_READY_S = 20.0  # wait this long for a server's ready line
STOP_S = 5.0  # SIGTERM, then SIGKILL after this long
READY_REFEREE = re.compile(rb"referee ready: requests (\S+), events (\S+), data (.+)")


# ---------------------------------------------------------------- one measurement


def _measure(
    server: str,
    *,
    label: str,
    command: list[str],
    ready: re.Pattern[bytes],
    log_path: Path,
    config: RefereeBenchConfig,
    scripts: Sequence[Script],
    progress: Progress | None,
    curve: bool = False,
) -> LoadResult:
    """Start the server, run the load against it, stop it.  ``curve``: the server
    speaks CURVE, and the load's sockets trust its public key: a referee's, read from
    its data directory (``--data-dir``, written before it is ready), the raw
    server's, from its ready line."""
    try:
        process = ServiceProcess(command, ready, log_path, ready_s=SERVER_READY_S, stop_s=STOP_S)
    except (OSError, RuntimeError) as exc:
        problem = f"the {server} server did not start: {exc}"
        return LoadResult(server, 0, 0.0, None, None, 0, 0, 0, 0, {}, 0, None, (problem,))
    endpoint, *rest = process.endpoints
    pub_endpoint = rest[0] if server == "referee" else None
    link = None
    if curve and server == "referee":
        folder = Path(command[command.index("--data-dir") + 1])
        link = Link.to(parse_public_key(str(public_key_file(folder))))
    elif curve:
        link = Link.to(rest[0])
    context: zmq.Context[Any] = zmq.Context()
    load = Load(
        server,
        label=label,
        endpoint=endpoint,
        pub_endpoint=pub_endpoint,
        config=config,
        scripts=scripts,
        context=context,
        alive=lambda: process.alive,
        progress=progress,
        link=link,
        server_cpu=process.cpu,
    )
    problems: list[str] = []
    try:
        load.open()
        load.run()
    except zmq.ZMQError as exc:  # e.g. a send that timed out: the figures so far still count
        problems.append(f"socket error against the {server} server: {exc}")
    finally:
        load.close()
        context.term()
        peak = process.peak_rss_mib()
        was_alive = process.alive
        code = process.stop()
        if was_alive and code != 0:
            problems.append(f"the {server} server exited with code {code} on SIGTERM")
        problems.extend(f"{server} log: {line}" for line in process.log_errors())
    return load.result(peak, problems)


def _referee_command(data: Path, durable: bool, *, curve: bool = False) -> list[str]:
    command = [
        sys.executable,
        "-m",
        "lanqi.cli.main",
        "referee",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--pub-port",
        "0",
        "--data-dir",
        str(data),
    ]
    if not curve:
        command.append("--insecure")  # plain ZeroMQ, as the raw server beside it
    return [*command, "--durable"] if durable else command


@dataclass(frozen=True, slots=True)
class _Phase:
    """One phase's measurements: the plain pair, and the CURVE pair with ``curve``."""

    referee: LoadResult
    raw: LoadResult
    curve: tuple[LoadResult, LoadResult] | None


def _measure_phase(
    config: RefereeBenchConfig,
    scripts: Sequence[Script],
    root: Path,
    progress: Progress | None,
    *,
    paced: bool,
) -> _Phase:
    """One phase: the CURVE referee if ``config.curve``, the plain referee, then the
    raw server (with CURVE first if ``config.curve``), with the same load; each
    referee a fresh process on a fresh data directory under ``root``."""
    say = progress or (lambda line: None)
    suffix = "-paced" if paced else ""

    def measure(
        label: str, command: list[str], ready: re.Pattern[bytes], *, curve: bool = False
    ) -> LoadResult:
        phase = f" (paced {config.think_ms:g} ms)" if paced else ""
        say(f"{label}{phase}: {config.games} games, {config.seconds:g} s")
        return _measure(
            label.split(maxsplit=1)[0],  # "referee" or "raw"
            label=f"{label} paced" if paced else label,
            command=command,
            ready=ready,
            log_path=root / f"{label.replace(' ', '-')}{suffix}.log",
            config=config,
            scripts=scripts,
            progress=progress,
            curve=curve,
        )

    raw_command = [sys.executable, "-m", "lanqi.bench.raw_server"]
    curve = None
    if config.curve:
        command = _referee_command(root / f"data-curve{suffix}", config.durable, curve=True)
        referee_curve = measure("referee curve", command, READY_REFEREE, curve=True)
    referee_data = root / f"data{suffix}"
    referee = measure("referee", _referee_command(referee_data, config.durable), READY_REFEREE)
    if config.curve:
        raw_curve = measure(
            "raw curve", [*raw_command, "--curve"], raw_server.READY_CURVE, curve=True
        )
        curve = (referee_curve, raw_curve)
    raw = measure("raw", raw_command, raw_server.READY)
    return _Phase(referee, raw, curve)


def run_referee_bench(
    config: RefereeBenchConfig | None = None, progress: Progress | None = None
) -> RefereeBenchReport:
    """Measure the referee, then the raw ceiling (each with CURVE too if
    ``config.curve``), with the same load; then, if the run saturates and
    ``paced_think_ms`` is above 0, all again at that pace.  See the module doc.

    ``progress`` receives a line about once a second (the CLI prints them on stderr).
    """
    config = config or RefereeBenchConfig()
    say = progress or (lambda line: None)
    pool = min(max(config.games, 8), 32)
    started = time.perf_counter()
    scripts = make_scripts(config.variant, pool, config.seed)
    plies = sum(len(s.moves) for s in scripts)
    say(
        f"{pool} random {config.variant} games computed ({plies / pool:.0f} plies on average, "
        f"{time.perf_counter() - started:.1f} s)"
    )
    with tempfile.TemporaryDirectory(prefix="lanqi-bench-") as tmp:
        root = Path(tmp)
        first = _measure_phase(config, scripts, root, progress, paced=False)
        store = f"{root / 'data'} ({file_system(root)})"
        second: _Phase | None = None
        if config.think_ms == 0 and config.paced_think_ms > 0:
            paced_config = replace(config, think_ms=config.paced_think_ms)
            second = _measure_phase(paced_config, scripts, root, progress, paced=True)
    return RefereeBenchReport(
        config,
        first.referee,
        first.raw,
        store,
        paced=(second.referee, second.raw) if second is not None else None,
        curve=first.curve,
        paced_curve=second.curve if second is not None else None,
    )
