"""A whole tournament at full speed through the real services: ``lanqi bench tournament``.

What runs:

- **The server** is ``lanqi serve`` (matchmaker and referee in one process) on port 0
  and a fresh temporary data directory, started as a subprocess.
- **The bots** are random-move bots in ``lanqi bot --config`` processes (one by
  default; ``bot_processes`` spreads them over more), each bot entering the event
  itself, as a real bot would.  A random bot answers at once, so the games run as
  fast as the services and the bots' own bookkeeping allow.
- **This process** creates a double round robin (or a single one), waits until
  every bot has entered, starts it, and follows it on ``tour/<id>`` (progress on
  stderr) until it is finished.

What is measured, from the start request to the ``finished`` standings:

- games and moves (every result the referee recorded for the event, from its
  ``results_since``), per minute and per second of wall time;
- CPU time (user + system, from ``/proc/<pid>/stat``) of the server process and of
  the bot processes over the same span, and each one's share of their sum: how the
  work splits between the services and the players.

Nothing is judged: the report prints figures; ``problems`` lists what broke (a
process that would not start or died, an ERROR in a log, a tournament that did not
finish in time, a count that does not add up).
"""

from __future__ import annotations

import re
import secrets
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import zmq

from lanqi.bench.process import ServiceProcess, cpu_seconds, file_system

__all__ = [
    "CpuSample",
    "TournamentBenchConfig",
    "TournamentBenchReport",
    "cpu_seconds",
    "format_report",
    "run_tournament_bench",
]

Progress = Callable[[str], None]

READY_S = 30.0
STOP_S = 10.0
JOIN_S = 60.0
CHECK_S = 5.0  # standings are asked for at least this often while following
READY_SERVE = re.compile(rb"lanqi server ready: lobby (\S+) \(events (\S+)\), referee (\S+), data")
READY_BOT = re.compile(rb"\d+ bot\(s\) on \S+: ")
VARIANTS = ("xiangqi", "gomoku")


@dataclass(frozen=True, slots=True)
class TournamentBenchConfig:
    """``players`` random bots play a double (or ``single``) round robin of ``variant``."""

    players: int = 16
    variant: str = "xiangqi"
    single: bool = False
    bot_processes: int = 1
    timeout_s: float = 900.0
    seed: int = 1

    def __post_init__(self) -> None:
        if not 2 <= self.players <= 64:
            raise ValueError("--players must be from 2 to 64")
        if self.variant not in VARIANTS:
            raise ValueError(f"--variant must be one of {', '.join(VARIANTS)}")
        if not 1 <= self.bot_processes <= self.players:
            raise ValueError("--bot-processes must be from 1 to the number of players")
        if not self.timeout_s > 0:
            raise ValueError("--timeout must be above 0")

    @property
    def format(self) -> str:
        return "round_robin" if self.single else "double_round_robin"

    @property
    def expected_games(self) -> int:
        pairs = self.players * (self.players - 1) // 2
        return pairs if self.single else 2 * pairs

    @property
    def expected_rounds(self) -> int:
        per_cycle = self.players - 1 if self.players % 2 == 0 else self.players
        return per_cycle if self.single else 2 * per_cycle


@dataclass(frozen=True, slots=True)
class CpuSample:
    """User + system CPU seconds of the server and of all the bot processes."""

    server_s: float
    bots_s: float


@dataclass(slots=True)
class TournamentBenchReport:
    config: TournamentBenchConfig
    games: int = 0
    moves: int = 0
    seconds: float = 0.0
    rounds: int = 0
    cpu: CpuSample | None = None
    terminations: Counter[str] = field(default_factory=Counter)
    leaders: list[tuple[str, float, int]] = field(default_factory=list)  # name, points, games
    store: str = ""
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def games_per_minute(self) -> float | None:
        return self.games * 60.0 / self.seconds if self.seconds > 0 else None

    @property
    def moves_per_second(self) -> float | None:
        return self.moves / self.seconds if self.seconds > 0 else None

    @property
    def server_share(self) -> float | None:
        """The server's part of the CPU time of server + bots (0..1)."""
        if self.cpu is None or self.cpu.server_s + self.cpu.bots_s <= 0:
            return None
        return self.cpu.server_s / (self.cpu.server_s + self.cpu.bots_s)


# ---------------------------------------------------------------- processes


def _lanqi(name: str, args: list[str], ready: re.Pattern[bytes], log: Path) -> ServiceProcess:
    """A ``lanqi`` command as a subprocess, once it has printed its ready line."""
    command = [sys.executable, "-m", "lanqi.cli.main", *args]
    return ServiceProcess(command, ready, log, name=name, ready_s=READY_S, stop_s=STOP_S)


def _bot_config(path: Path, names: list[str], seeds: list[int], tournament_id: str) -> None:
    entries = [
        f'[[bot]]\nname = "{name}"\nbot = "random"\nseed = {seed}\nmax_games = 2\n'
        f'tournaments = ["{tournament_id}"]\n'
        for name, seed in zip(names, seeds, strict=True)
    ]
    path.write_text("\n".join(entries), encoding="utf-8")


# ---------------------------------------------------------------- the run


def run_tournament_bench(
    config: TournamentBenchConfig | None = None, progress: Progress | None = None
) -> TournamentBenchReport:
    """Run the tournament (see the module doc); ``progress`` gets a line per round."""
    config = config or TournamentBenchConfig()
    say = progress or (lambda line: None)
    report = TournamentBenchReport(config)
    root = Path(tempfile.mkdtemp(prefix="lanqi-bench-tournament-"))
    processes: list[ServiceProcess] = []
    context: zmq.Context[Any] = zmq.Context()
    try:
        _run(config, report, root, processes=processes, context=context, say=say)
    except RuntimeError as exc:  # a process that would not start, a refused request
        report.problems.append(str(exc))
    finally:
        for process in reversed(processes):  # the bots first, then the server
            was_alive = process.alive
            code = process.stop()
            if was_alive and code != 0:
                report.problems.append(f"{process.name} exited with code {code} on SIGTERM")
            report.problems.extend(f"{process.name} log: {e}" for e in process.log_errors()[:5])
        context.destroy(linger=0)
        if report.ok:
            shutil.rmtree(root, ignore_errors=True)
        else:
            report.problems.append(f"logs kept in {root}")
    return report


def _run(
    config: TournamentBenchConfig,
    report: TournamentBenchReport,
    root: Path,
    *,
    processes: list[ServiceProcess],
    context: zmq.Context[Any],
    say: Progress,
) -> None:
    from lanqi.client.matchmaker import MatchmakerClient, MatchmakerRefused, MatchmakerTimeout
    from lanqi.protocol import (
        CreateTournament,
        GetStandings,
        Ok,
        Standings,
        StartTournament,
        TournamentCreated,
        TournamentSpec,
    )

    key = secrets.token_hex(12)  # token_urlsafe may start with "-", which argparse takes for a flag
    data = root / "data"
    report.store = f"{data} ({file_system(root)})"
    server = _lanqi(
        "server",
        [
            "serve",
            "--port",
            "0",
            "--pub-port",
            "0",
            "--referee-port",
            "0",
            "--referee-pub-port",
            "0",
            "--no-web",
            "--data-dir",
            str(data),
            "--director-key",
            key,
            "--insecure",  # plain ZeroMQ, as the figures before CURVE were measured
        ],
        READY_SERVE,
        root / "server.log",
    )
    processes.append(server)
    lobby, events, referee = server.endpoints
    say(f"server ready: lobby {lobby}, referee {referee}")
    client = MatchmakerClient(lobby, events, context=context, timeout_ms=10_000)
    try:
        spec = TournamentSpec(
            name=f"bench {config.players} {config.variant}",
            format=config.format,
            variant=config.variant,
        )
        tid = client.call(CreateTournament(director_key=key, spec=spec), TournamentCreated)
        tournament_id = tid.tournament_id
        client.subscribe(f"tour/{tournament_id}")

        names = [f"bot{i:02d}" for i in range(1, config.players + 1)]
        bots: list[ServiceProcess] = []
        for k in range(config.bot_processes):
            mine = names[k :: config.bot_processes]
            seeds = [config.seed * 1000 + names.index(n) for n in mine]
            path = root / f"bots-{k + 1}.toml"
            _bot_config(path, mine, seeds, tournament_id)
            bot = _lanqi(
                f"bots-{k + 1}",
                ["bot", "--server", lobby, "--config", str(path), "--session-dir", str(root)],
                READY_BOT,
                root / f"bots-{k + 1}.log",
            )
            processes.append(bot)
            bots.append(bot)
        say(f"{config.players} bots in {config.bot_processes} process(es); waiting for entries")

        def standings() -> Standings:
            return client.call(GetStandings(tournament_id=tournament_id), Standings)

        deadline = time.monotonic() + JOIN_S
        while len(standings().tournament.players) < config.players:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the bots did not all enter within {JOIN_S:g} s")
            client.next_event(500)  # woken by each "joined" event

        cpu_before = CpuSample(server.cpu(), sum(b.cpu() for b in bots))
        started = time.perf_counter()
        client.call(StartTournament(tournament_id=tournament_id, director_key=key), Ok)
        say(
            f"started: {config.format.replace('_', ' ')}, {config.expected_rounds} rounds, "
            f"{config.expected_games} games"
        )
        final = _follow(
            config,
            client,
            standings,
            processes=processes,
            started=started,
            say=say,
            report=report,
        )
        report.seconds = time.perf_counter() - started
        report.cpu = CpuSample(
            server.cpu() - cpu_before.server_s,
            sum(b.cpu() for b in bots) - cpu_before.bots_s,
        )
        if final is None:
            return
        report.rounds = final.tournament.round
        decided = [p for p in final.pairings if p.second is not None and p.result]
        report.leaders = [(r.player, r.points, r.games) for r in final.rows[:3]]
        _count_games(report, context, referee, tournament_id)
        if report.games != len(decided) or report.games != config.expected_games:
            report.problems.append(
                f"{report.games} results on the referee, {len(decided)} decided pairings, "
                f"{config.expected_games} games expected"
            )
    except (MatchmakerRefused, MatchmakerTimeout) as exc:
        report.problems.append(f"matchmaker: {exc}")
    finally:
        client.close()


def _follow(
    config: TournamentBenchConfig,
    client: Any,
    standings: Callable[[], Any],
    *,
    processes: list[ServiceProcess],
    started: float,
    say: Progress,
    report: TournamentBenchReport,
) -> Any:
    """Follow the event on ``tour/<id>`` until it is finished; None (and a problem)
    if it does not finish in time or a process dies.  The standings are asked for
    only at the end (and every few seconds, in case the ``finished`` event is lost),
    so following costs the server next to nothing."""
    from lanqi.protocol import TourFinished, TournamentEvent, TourResult, TourRound

    results, last_round = 0, 0
    next_check = time.monotonic() + CHECK_S
    deadline = time.monotonic() + config.timeout_s
    while True:
        finished = False
        event = client.next_event(500)
        while event is not None:
            if isinstance(event, TournamentEvent):
                if isinstance(event, TourResult):
                    results += 1
                elif isinstance(event, TourRound) and event.round > last_round:
                    last_round = event.round
                    say(
                        f"round {last_round}/{config.expected_rounds} paired; {results}/"
                        f"{config.expected_games} games done, {time.perf_counter() - started:.1f} s"
                    )
                elif isinstance(event, TourFinished):
                    finished = True
            event = client.next_event(0)
        now = time.monotonic()
        if finished or now >= next_check:
            next_check = now + CHECK_S
            current = standings()
            if current.tournament.status == "finished":
                say(f"finished: {time.perf_counter() - started:.1f} s")
                return current
        if now > deadline:
            report.problems.append(
                f"not finished after {config.timeout_s:g} s: round {last_round}, {results} results"
            )
            return None
        dead = [p.name for p in processes if not p.alive]
        if dead:
            report.problems.append(f"{', '.join(dead)} died during the tournament")
            return None


def _count_games(
    report: TournamentBenchReport, context: zmq.Context[Any], referee: str, tournament_id: str
) -> None:
    """Games and moves of the event, from the referee's own record of results."""
    from lanqi.protocol import ResultsList, ResultsSince, decode, encode

    dealer = context.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.connect(referee)
    try:
        after, request_id = 0, 0
        while True:
            request_id += 1
            dealer.send_multipart(encode(ResultsSince(id=request_id, after=after, limit=500)))
            if not dealer.poll(10_000):
                report.problems.append("the referee did not answer results_since")
                return
            reply = decode(dealer.recv_multipart())
            if not isinstance(reply, ResultsList):
                report.problems.append(f"results_since: {reply}")
                return
            for result in reply.results:
                if result.tag == tournament_id:
                    report.games += 1
                    report.moves += len(result.moves)
                    report.terminations[result.termination] += 1
            if len(reply.results) < 500:
                return
            after = max(r.result_seq for r in reply.results)
    finally:
        dealer.close(linger=0)


# ---------------------------------------------------------------- output


def _share(part: float, whole: float) -> str:
    return f"{100 * part / whole:.0f}%" if whole > 0 else "-"


def format_report(report: TournamentBenchReport) -> str:
    """The report as plain text."""
    c = report.config
    kind = "single" if c.single else "double"
    lines = [
        f"lanqi bench tournament: {kind} round robin of {c.players} random {c.variant} bots "
        f"({c.expected_games} games, {c.expected_rounds} rounds), "
        f"bots in {c.bot_processes} process(es)",
        f"server: lanqi serve (matchmaker + referee) in its own process, data in "
        f"{report.store or '?'}",
        "",
    ]
    gpm, mps = report.games_per_minute, report.moves_per_second
    table = [
        ("games", "moves", "seconds", "games/min", "moves/s", "moves/game"),
        (
            f"{report.games}",
            f"{report.moves:,}",
            f"{report.seconds:.1f}",
            f"{gpm:.1f}" if gpm is not None else "-",
            f"{mps:,.0f}" if mps is not None else "-",
            f"{report.moves / report.games:.0f}" if report.games else "-",
        ),
    ]
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    for row in table:
        lines.append("  ".join(cell.rjust(widths[i]) for i, cell in enumerate(row)))
    lines.append("")
    cpu = report.cpu
    if cpu is None:
        lines.append("CPU: not measured")
    else:
        whole = cpu.server_s + cpu.bots_s
        wall = report.seconds
        lines.append("CPU (user + system) over the run:")
        for name, value in (("services (server)", cpu.server_s), ("bots", cpu.bots_s)):
            busy = f"{value / wall:.2f} cores" if wall > 0 else "-"
            lines.append(f"  {name:<18} {value:8.1f} s  {_share(value, whole):>4}  {busy}")
        share = report.server_share
        lines.append(
            "share of CPU in the services: "
            + (
                f"{100 * share:.0f}%, in the bots: {100 * (1 - share):.0f}%"
                if share is not None
                else "-"
            )
        )
    if report.terminations:
        ends = ", ".join(f"{k} {v}" for k, v in report.terminations.most_common())
        lines.append(f"terminations: {ends}")
    lines.append(f"rounds: {report.rounds}/{c.expected_rounds}")
    if report.leaders:
        lead = ", ".join(f"{n} {p:g}/{g}" for n, p, g in report.leaders)
        lines.append(f"leaders: {lead}")
    if report.problems:
        lines.extend(f"problem: {p}" for p in report.problems)
    else:
        lines.append("problems: none")
    return "\n".join(lines)
