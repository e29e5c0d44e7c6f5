"""Fairness under a flood of bad messages: ``lanqi bench referee --flood``.

One misbehaving client must not starve the others: the referee answers every bad
message with an error, in turn with everyone else's requests.  This measures how
much a flood costs a well-behaved client, against the same client without it, in
one run on one referee process (``lanqi referee`` on port 0, a temporary data
directory):

1. **set-up**: a game is created, both seats join, Red plays one move.
2. **baseline**: a *probe* client (its own DEALER) asks for the game's snapshot
   (``sync``) ``probes`` times, one request at a time, a short random pause between
   them; each round trip is timed from just before ``send`` to just after ``recv``.
3. **flood**: the same probes while a *flood* client (another DEALER) keeps
   ``window`` bad requests in flight, sending the next one as each error reply
   arrives: undecodable bytes, moves out of turn, a move with a wrong seat token and a
   request of another service, in turn (answered ``bad_message``, ``not_your_turn``,
   ``bad_token`` and ``unknown_type``).

Both phases run in one loop of this process over a :class:`zmq.Poller` of the two
sockets, so the probe's round trips include nothing the flood client does except
what the referee does for it.  The report gives the probe's latency percentiles in
both phases, their ratio at p99, and how many bad messages per second the referee
answered during the flood; afterwards the game must be exactly as set up (a bad
message never changes state).  Figures, not a verdict: the fairness claim is that
the flood's ratio stays a small factor (a request waits behind at most the bad
messages already queued before it), not that of the raw speed.
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import zmq

from lanqi.bench.process import ServiceProcess
from lanqi.bench.referee import READY_REFEREE, Latency
from lanqi.client.referee import RefereeClient
from lanqi.protocol import (
    CancelSeek,
    ErrorReply,
    GameCreated,
    Message,
    MoveRequest,
    ProtocolError,
    Snapshot,
    Sync,
    TimeControl,
    decode,
    encode,
)

__all__ = ["FloodConfig", "FloodReport", "format_flood_report", "run_flood_bench"]

Progress = Callable[[str], None]

REPLY_TIMEOUT_S = 10.0  # a probe or the flood unanswered this long stops the run
PAUSE_MS = (1.0, 3.0)  # the probe waits this long (uniform) between its requests


@dataclass(frozen=True, slots=True)
class FloodConfig:
    """``probes`` timed requests per phase; ``window`` bad requests in flight."""

    probes: int = 500
    window: int = 500
    seed: int = 1

    def __post_init__(self) -> None:
        if not 1 <= self.probes <= 100_000:
            raise ValueError("--flood-probes must be from 1 to 100000")
        if not 1 <= self.window <= 10_000:
            raise ValueError("--flood-window must be from 1 to 10000")


@dataclass(slots=True)
class FloodPhase:
    """One phase: the probe's round trips and what the flood client got back."""

    name: str
    latency: Latency | None
    seconds: float
    bad_answered: int = 0
    codes: Counter[str] = field(default_factory=Counter)

    @property
    def bad_per_second(self) -> float:
        return self.bad_answered / self.seconds if self.seconds > 0 else 0.0


@dataclass(slots=True)
class FloodReport:
    config: FloodConfig
    baseline: FloodPhase | None
    flood: FloodPhase | None
    problems: list[str] = field(default_factory=list)

    @property
    def p99_ratio(self) -> float | None:
        """The probe's p99 under the flood over its p99 without it."""
        if self.baseline is None or self.flood is None:
            return None
        if self.baseline.latency is None or self.flood.latency is None:
            return None
        return self.flood.latency.p99_ms / max(self.baseline.latency.p99_ms, 1e-6)

    @property
    def ok(self) -> bool:
        return not self.problems and self.flood is not None and self.flood.latency is not None


def _bad_requests(game_id: str, tokens: list[str]) -> list[list[bytes]]:
    """The flood's requests, in turn (each answered with an error, none changes state)."""
    return [
        [b"\xc1"],  # never valid msgpack: bad_message
        encode(MoveRequest(id=1, game_id=game_id, token=tokens[0], ply=1, move="h0g2")),
        encode(MoveRequest(id=2, game_id=game_id, token="x" * len(tokens[1]), ply=1, move="h9g7")),
        encode(CancelSeek(id=3, seek_id="s1")),  # the matchmaker's: unknown_type here
    ]


class _Run:
    """The probe and (in the flood phase) the flood client, in one poll loop."""

    def __init__(self, context: zmq.Context[Any], endpoint: str, game_id: str) -> None:
        self.game_id = game_id
        self.probe = self._dealer(context, endpoint)
        self.flood = self._dealer(context, endpoint)
        self.poller = zmq.Poller()
        self.poller.register(self.probe, zmq.POLLIN)
        self.poller.register(self.flood, zmq.POLLIN)
        self.next_id = 0

    @staticmethod
    def _dealer(context: zmq.Context[Any], endpoint: str) -> zmq.Socket[bytes]:
        sock: zmq.Socket[bytes] = context.socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 0)
        sock.setsockopt(zmq.SNDTIMEO, int(REPLY_TIMEOUT_S * 1000))
        sock.connect(endpoint)
        return sock

    def close(self) -> None:
        self.probe.close(linger=0)
        self.flood.close(linger=0)

    def phase(
        self, name: str, probes: int, flood: list[list[bytes]], window: int, rng: random.Random
    ) -> FloodPhase:
        """``probes`` timed syncs; with ``flood``, ``window`` bad requests stay in flight."""
        samples: list[int] = []
        codes: Counter[str] = Counter()
        in_flight = sent = answered = 0
        probe_id, probe_sent, probe_due = 0, 0, 0
        started = time.perf_counter_ns()
        last_heard = started
        while len(samples) < probes:
            now = time.perf_counter_ns()
            if flood:
                while in_flight < window:
                    self.flood.send_multipart(flood[sent % len(flood)])
                    sent += 1
                    in_flight += 1
            if probe_id == 0 and now >= probe_due:
                self.next_id += 1
                probe_id = self.next_id
                probe_sent = time.perf_counter_ns()
                self.probe.send_multipart(encode(Sync(id=probe_id, game_id=self.game_id)))
            wait_ms = 100 if probe_id else max(0, (probe_due - now) // 1_000_000)
            for sock, _ in self.poller.poll(wait_ms):
                reply = self._reply(sock)
                last_heard = time.perf_counter_ns()
                if sock is self.flood:
                    in_flight -= 1
                    answered += 1
                    if isinstance(reply, ErrorReply):
                        codes[reply.code] += 1
                    else:  # not an error: the flood changed something, or was misread
                        codes[f"not an error: {getattr(reply, 'T', '?')}"] += 1
                elif getattr(reply, "re", None) == probe_id:
                    samples.append(last_heard - probe_sent)
                    probe_id = 0
                    probe_due = last_heard + int(rng.uniform(*PAUSE_MS) * 1_000_000)
            if time.perf_counter_ns() - last_heard > REPLY_TIMEOUT_S * 1e9:
                raise TimeoutError(f"{name}: no reply for {REPLY_TIMEOUT_S:g} s")
        seconds = (time.perf_counter_ns() - started) / 1e9
        while in_flight:  # the rest of the flood, so the next phase starts quiet
            if not self.flood.poll(int(REPLY_TIMEOUT_S * 1000)):
                raise TimeoutError(f"{name}: {in_flight} bad requests never answered")
            self._reply(self.flood)
            in_flight -= 1
        return FloodPhase(name, Latency.of(samples), seconds, answered, codes)

    @staticmethod
    def _reply(sock: zmq.Socket[bytes]) -> Message | None:
        frames = sock.recv_multipart()
        try:
            return decode(frames)
        except ProtocolError:
            return None


def run_flood_bench(
    config: FloodConfig | None = None, progress: Progress | None = None
) -> FloodReport:
    """Start a referee, set up a game, then time the probe without and with the flood."""
    config = config or FloodConfig()
    say = progress or (lambda line: None)
    report = FloodReport(config, None, None)
    rng = random.Random(config.seed)
    with tempfile.TemporaryDirectory(prefix="lanqi-bench-flood-") as tmp:
        root = Path(tmp)
        command = [sys.executable, "-m", "lanqi.cli.main", "referee", "--host", "127.0.0.1"]
        command += ["--port", "0", "--pub-port", "0", "--data-dir", str(root / "data")]
        command += ["--insecure"]  # plain ZeroMQ: the flood's raw sockets speak no CURVE
        try:
            process = ServiceProcess(command, READY_REFEREE, root / "referee.log", name="referee")
        except (OSError, RuntimeError) as exc:
            report.problems.append(f"the referee did not start: {exc}")
            return report
        context: zmq.Context[Any] = zmq.Context()
        run: _Run | None = None
        try:
            endpoint, pub_endpoint = process.endpoints[0], process.endpoints[1]
            with RefereeClient(endpoint, pub_endpoint, context=context) as client:
                game: GameCreated = client.create_game(
                    "xiangqi",
                    players=["probe", "flood"],
                    time_control=TimeControl(kind="fischer", base_ms=3_600_000, first_move_ms=0),
                )
                for seat in (0, 1):
                    client.join(game.game_id, seat, game.tokens[seat])
                client.move(game.game_id, game.tokens[0], 0, "h2e2")
                before = client.sync(game.game_id)
                run = _Run(context, endpoint, game.game_id)
                flood = _bad_requests(game.game_id, list(game.tokens))
                say(f"baseline: {config.probes} probes, nothing else on the referee")
                report.baseline = run.phase("baseline", config.probes, [], 0, rng)
                say(f"flood: {config.probes} probes, {config.window} bad requests in flight")
                report.flood = run.phase("flood", config.probes, flood, config.window, rng)
                after = client.sync(game.game_id)
            if _state(after) != _state(before):
                report.problems.append("the flood changed the game")
            if any(code.startswith("not an error") for code in report.flood.codes):
                report.problems.append(f"a bad request was not refused: {dict(report.flood.codes)}")
        except (TimeoutError, zmq.ZMQError) as exc:
            report.problems.append(str(exc))
        finally:
            if run is not None:
                run.close()
            context.term()
            code = process.stop()
            if code != 0:
                report.problems.append(f"the referee exited with code {code} on SIGTERM")
            report.problems.extend(f"referee log: {line}" for line in process.log_errors())
    return report


def _state(snapshot: Snapshot) -> tuple[object, ...]:
    """What a bad message must never change (seats may come and go meanwhile: the
    players of the set-up game do not heartbeat)."""
    return (tuple(snapshot.moves), snapshot.status, snapshot.fen, snapshot.result)


def _latency_line(phase: FloodPhase) -> str:
    lat = phase.latency
    if lat is None:
        return f"  {phase.name:<9} no probe answered"
    return (
        f"  {phase.name:<9} p50 {lat.p50_ms:.2f}  p90 {lat.p90_ms:.2f}  p99 {lat.p99_ms:.2f}  "
        f"max {lat.max_ms:.2f} ms  ({lat.count} probes)"
    )


def format_flood_report(report: FloodReport) -> str:
    """The report as text: both phases, the p99 ratio, the flood's rate and codes."""
    config = report.config
    lines = [
        "lanqi bench referee --flood: another client's sync round trip, without and with "
        f"one client keeping {config.window} bad requests in flight",
    ]
    lines += [_latency_line(p) for p in (report.baseline, report.flood) if p is not None]
    ratio = report.p99_ratio
    if ratio is not None:
        lines.append(f"  p99 under the flood / baseline p99: {ratio:.1f} x")
    if report.flood is not None:
        codes = ", ".join(f"{code} {n}" for code, n in sorted(report.flood.codes.items()))
        lines.append(
            f"  flood: {report.flood.bad_answered} bad requests answered "
            f"({report.flood.bad_per_second:,.0f}/s): {codes}"
        )
    lines += [f"  problem: {problem}" for problem in report.problems]
    return "\n".join(lines)
