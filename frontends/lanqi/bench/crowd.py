"""A crowd at one matchmaker: ``lanqi bench crowd``.

What runs, all on this machine:

- **The services**: two ``lanqi referee`` processes and one ``lanqi matchmaker`` in
  front of them, started as subprocesses on free ports with fresh data directories
  (CURVE on, as a real event runs them; ``insecure`` for the plain protocol).
- **The players**: ``players`` real client connections spread over a few processes
  (:mod:`lanqi.bench.crowd_players`, 250 a process by default), each one
  :class:`~lanqi.client.connection.Connection` as a GUI or a bot runner has, all
  connected and subscribed to the lobby before anyone speaks.  Then, at once, every
  player says hello; half the players post seeks and play short games of random
  moves (``plies`` plies, a think time, then the side to move resigns), one after
  another; ``swiss`` other players enter a Swiss this process creates as the
  director (through :class:`~lanqi.client.matchmaker.MatchmakerClient`) and play its
  rounds at the same time; the rest sit in the lobby.

What is measured:

- p50/p99 of hello (request to welcome), seek to ``game_assigned``, a move's round
  trip (request to its ``move_ok``) and presence (a player's hello to every other
  player seeing its ``presence`` on the lobby topic; ~100 players are timed);
  how many presence broadcasts arrived of those expected;
- the matchmaker's and the referees' CPU time and resident memory, from
  ``/proc``, before the crowd, once it is connected and said hello, and over the
  games; per connected player (and per move for the referees); their open file
  descriptors against their limit; the player processes' own CPU and memory;
- the lobby's lists (``list_players``, ``list_seeks``): entries against players,
  bytes, time.

:func:`run_doubling` runs N, 2N, 4N ... until a run breaks and says what broke
first (``CrowdReport.broke``).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import selectors
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from lanqi.bench.crowd_players import PlayerSpec, WorkerSpec
from lanqi.bench.process import ServiceProcess, cpu_seconds, source_path
from lanqi.client.connection import RECONNECT, NoAnswer, Refused
from lanqi.games.registry import VARIANTS
from lanqi.protocol import (
    MAX_LISTED_PLAYERS,
    MAX_MESSAGE_BYTES,
    CreateTournament,
    GetStandings,
    ListPlayers,
    ListSeeks,
    Ok,
    PlayersList,
    SeeksList,
    Standings,
    StartTournament,
    TimeControl,
    TournamentCreated,
    TournamentSpec,
    encode,
)

__all__ = [
    "CrowdConfig",
    "CrowdReport",
    "ServiceFigures",
    "format_doubling",
    "format_report",
    "run_crowd",
    "run_doubling",
]

Progress = Callable[[str], None]

DIRECTOR_KEY = "crowd-bench-director-key"
READY_REFEREE = re.compile(rb"referee ready: requests (?P<requests>\S+), events (?P<events>\S+),")
READY_MATCHMAKER = re.compile(
    rb"matchmaker ready: requests (?P<lobby>\S+), events (?P<events>\S+),"
)
#: players one process runs by default
PLAYERS_PER_PROCESS = 250
#: timed presence subjects (about)
PRESENCE_SUBJECTS = 100
#: a hello slower than this has outlasted a client's wait for its reply
HELLO_LIMIT_MS = RECONNECT.reply * 1000
#: file descriptors in use above this share of the limit count as breaking
FD_SHARE = 0.8
STEP_S = 600.0  # a phase that takes longer than this is given up


@dataclass(frozen=True, slots=True)
class CrowdConfig:
    players: int = 1000
    processes: int | None = None  # None: one per PLAYERS_PER_PROCESS players
    swiss: int = 256
    swiss_rounds: int = 3
    pairing: str = "dutch-2017"
    games: int = 2  # games each seeker plays
    plies: int = 20
    think_ms: float = 1000.0
    variant: str = "xiangqi"
    referees: int = 2
    #: players whose client follows the lobby as the GUI does (None: the idle ones)
    watchers: int | None = None
    insecure: bool = False
    timeout_s: float = 900.0
    #: a player's wait (an assignment, its game's next event) given up as stuck after this
    stuck_s: float = 120.0
    seed: int = 1
    #: keep the data directories and logs (their folder is said at the end)
    keep: bool = False

    def __post_init__(self) -> None:
        if not 4 <= self.players <= 100_000:
            raise ValueError("--players must be from 4 to 100000")
        if not 0 <= self.swiss <= self.players - self.players // 2:
            raise ValueError("--swiss: at most the players who do not seek (half of them)")
        if self.swiss and (self.swiss < 4 or not 1 <= self.swiss_rounds <= 20):
            raise ValueError("--swiss: 0 or at least 4 players, 1 to 20 rounds")
        if self.processes is not None and not 1 <= self.processes <= min(64, self.players):
            raise ValueError("--processes must be from 1 to 64 (and at most the players)")
        if not 1 <= self.games <= 100 or not 2 <= self.plies <= 400:
            raise ValueError("--games 1-100, --plies 2-400")
        if not 0 <= self.think_ms <= 60_000:
            raise ValueError("--think-ms must be from 0 to 60000")
        if self.variant not in VARIANTS:
            raise ValueError(f"--variant must be one of {', '.join(VARIANTS)}")
        if self.watchers is not None and not 0 <= self.watchers <= self.players:
            raise ValueError("--watchers must be from 0 to the players")
        if not 1 <= self.referees <= 16:
            raise ValueError("--referees must be from 1 to 16")
        if not 1 <= self.stuck_s <= 3600:
            raise ValueError("--stuck-s must be from 1 to 3600")

    @property
    def seekers(self) -> int:
        return self.players // 2

    @property
    def watcher_count(self) -> int:
        if self.watchers is not None:
            return self.watchers
        return self.players - self.seekers - self.swiss

    @property
    def process_count(self) -> int:
        if self.processes is not None:
            return self.processes
        return max(1, math.ceil(self.players / PLAYERS_PER_PROCESS))


@dataclass(slots=True)
class ProcSample:
    cpu_s: float = 0.0
    rss_mib: float = 0.0
    hwm_mib: float = 0.0
    fds: int = 0
    fd_limit: int = 0


@dataclass(slots=True)
class ServiceFigures:
    """One service process at each phase: ``base`` (started, nobody connected),
    ``connected`` (every player's sockets up), ``hello`` (everyone said hello),
    ``end`` (the games over)."""

    name: str
    samples: dict[str, ProcSample] = field(default_factory=dict)

    def cpu(self, start: str, end: str) -> float:
        return self.samples[end].cpu_s - self.samples[start].cpu_s

    @property
    def peak_fds(self) -> int:
        return max(s.fds for s in self.samples.values())


@dataclass(slots=True)
class CrowdReport:
    config: CrowdConfig
    players: int = 0
    connected: int = 0
    connect_s: float = 0.0
    hellos: int = 0
    hello_s: float = 0.0
    hello_ms: list[float] = field(default_factory=list)
    hello_failed: list[str] = field(default_factory=list)
    presence_ms: list[float] = field(default_factory=list)
    presence_expected: int = 0
    lists_ms: list[float] = field(default_factory=list)
    lists_failed: int = 0
    seek_ms: list[float] = field(default_factory=list)
    move_ms: list[float] = field(default_factory=list)
    move_refused: dict[str, int] = field(default_factory=dict)
    games_played: int = 0
    seek_games: int = 0
    swiss_games: int = 0
    games_unfinished: int = 0
    seekers_done: int = 0
    seekers_stuck: int = 0
    #: players that gave up a wait, each with what it waited for
    stuck: list[str] = field(default_factory=list)
    links_lost: int = 0
    welcomed_again: int = 0
    games_from_welcome: int = 0
    swiss_joined: int = 0
    swiss_status: str = ""
    swiss_rounds_done: int = 0
    swiss_results: int = 0
    play_s: float = 0.0
    lists: dict[str, tuple[int, int, float]] = field(default_factory=dict)  # count, bytes, ms
    players_total: int | None = None  # list_players' total
    players_paged: int = 0  # names read through every page
    services: list[ServiceFigures] = field(default_factory=list)
    clients_cpu_s: float = 0.0
    clients_rss_mib: float = 0.0
    load: tuple[float, float] = (0.0, 0.0)  # 1-minute load average at start and end
    problems: list[str] = field(default_factory=list)
    broke: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and not self.broke

    @property
    def matchmaker(self) -> ServiceFigures:
        return self.services[-1]

    @property
    def referees(self) -> list[ServiceFigures]:
        return self.services[:-1]


def percentile(values: list[float], share: float) -> float:
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]


def _sample(process: ServiceProcess) -> ProcSample:
    pid = process.pid
    sample = ProcSample(cpu_s=cpu_seconds(pid) or 0.0)
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                sample.rss_mib = int(line.split()[1]) / 1024
            elif line.startswith("VmHWM:"):
                sample.hwm_mib = int(line.split()[1]) / 1024
        sample.fds = len(os.listdir(f"/proc/{pid}/fd"))
        for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
            if line.startswith("Max open files"):
                sample.fd_limit = int(line.split()[3])
    except (OSError, ValueError, IndexError):
        pass
    return sample


class _Workers:
    """The player processes: start, command, read their JSON lines."""

    def __init__(self, specs: list[WorkerSpec], logs: Path) -> None:
        env = dict(os.environ, PYTHONPATH=source_path(), PYTHONUNBUFFERED="1")
        env.pop("LANQI_DIRECTOR_KEY", None)
        self.procs: list[subprocess.Popen[bytes]] = []
        self.logs: list[Path] = []
        self.buffers: list[bytes] = []
        for i, spec in enumerate(specs):
            log = logs / f"players-{i}.log"
            self.logs.append(log)
            with log.open("wb") as err:
                self.procs.append(
                    subprocess.Popen(
                        [sys.executable, "-m", "lanqi.bench.crowd_players", _spec_json(spec)],
                        stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE,
                        stderr=err,
                        env=env,
                        cwd=logs,
                    )
                )
            self.buffers.append(b"")
        self.selector = selectors.DefaultSelector()
        for i, proc in enumerate(self.procs):
            assert proc.stdout is not None
            os.set_blocking(proc.stdout.fileno(), False)
            self.selector.register(proc.stdout, selectors.EVENT_READ, i)

    def tell(self, line: str) -> None:
        for proc in self.procs:
            stdin: IO[bytes] | None = proc.stdin
            if stdin is not None and proc.poll() is None:
                stdin.write(line.encode() + b"\n")
                stdin.flush()

    def read(self, timeout_s: float) -> list[tuple[int, dict[str, Any]]]:
        """The lines any process printed within ``timeout_s`` (waits for the first)."""
        lines: list[tuple[int, dict[str, Any]]] = []
        for key, _ in self.selector.select(timeout_s):
            i = int(key.data)
            stdout = self.procs[i].stdout
            assert stdout is not None
            chunk = stdout.read() or b""
            if not chunk and self.procs[i].poll() is not None:
                self.selector.unregister(stdout)
                lines.append((i, {"exited": self.procs[i].returncode}))
                continue
            self.buffers[i] += chunk
            *whole, self.buffers[i] = self.buffers[i].split(b"\n")
            for raw in whole:
                if raw.strip():
                    lines.append((i, json.loads(raw)))
        return lines

    def gather(self, key: str, timeout_s: float) -> list[dict[str, Any]]:
        """One line holding ``key`` from every process (or fewer: one exited, time ran out)."""
        got: dict[int, dict[str, Any]] = {}
        deadline = time.monotonic() + timeout_s
        alive = set(range(len(self.procs)))
        while not alive <= got.keys() and time.monotonic() < deadline:
            for i, line in self.read(min(1.0, deadline - time.monotonic())):
                if "exited" in line:
                    alive.discard(i)
                elif key in line:
                    got[i] = line
        return list(got.values())

    def errors(self) -> list[str]:
        """The first error of each process's log (a logged error, a traceback, a
        libzmq assertion that aborted it)."""
        out = []
        for log in self.logs:
            for line in log.read_text(errors="replace").splitlines():
                if " ERROR " in line or line.startswith(("Traceback", "Assertion failed")):
                    out.append(f"{log.name}: {line[:300]}")
                    break
        return out

    def last_lines(self) -> list[str]:
        """Each process's log's last line (or "empty")."""
        out = []
        for log in self.logs:
            lines = log.read_text(errors="replace").strip().splitlines()
            out.append(f"{log.name}: {lines[-1][:200] if lines else 'empty'}")
        return out

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait(10)
            for stream in (proc.stdin, proc.stdout):
                if stream is not None:
                    stream.close()
        self.selector.close()


def _spec_json(spec: WorkerSpec) -> str:
    raw = {name: getattr(spec, name) for name in WorkerSpec.__slots__}
    raw["players"] = [dataclasses.asdict(p) for p in spec.players]
    return json.dumps(raw)


def _lanqi(args: list[str], ready: re.Pattern[bytes], log: Path, name: str) -> ServiceProcess:
    command = [sys.executable, "-m", "lanqi.cli.main", *args]
    return ServiceProcess(command, ready, log, name=name, ready_s=60.0, stop_s=20.0)


def _time_control() -> TimeControl:
    # ten minutes each: a short random game never runs out of time, even on a busy machine
    return TimeControl(kind="fischer", base_ms=600_000, increment_ms=0)


def _roles(config: CrowdConfig) -> list[PlayerSpec]:
    every = max(1, config.players // PRESENCE_SUBJECTS)
    specs = []
    for i in range(config.players):
        if i < config.seekers:
            role = "seek"
        elif i < config.seekers + config.swiss:
            role = "swiss"
        else:
            role = "idle"
        watcher = i >= config.players - config.watcher_count  # the idle ones first
        specs.append(
            PlayerSpec(name=f"crowd-{i:05d}", role=role, subject=i % every == 0, watcher=watcher)
        )
    return specs


def run_crowd(config: CrowdConfig, progress: Progress) -> CrowdReport:
    report = CrowdReport(config=config, players=config.players)
    root = Path(tempfile.mkdtemp(prefix="lanqi-crowd-"))
    services: list[ServiceProcess] = []
    workers: _Workers | None = None
    report.load = (os.getloadavg()[0], 0.0)
    try:
        plain = ["--insecure"] if config.insecure else []
        for i in range(config.referees):
            data = root / f"referee-{i}"
            data.mkdir()
            services.append(
                _lanqi(
                    [
                        "referee",
                        "--port",
                        "0",
                        "--pub-port",
                        "0",
                        "--key-port",
                        "0",
                        "--data-dir",
                        str(data),
                        *plain,
                    ],
                    READY_REFEREE,
                    root / f"referee-{i}.log",
                    f"referee-{i}",
                )
            )
        from lanqi.security import server_keys

        refs = []
        for i, ref in enumerate(services):
            spec = f"{ref.named['requests']},{ref.named['events']}"
            if not config.insecure:
                spec += ",key=" + server_keys(root / f"referee-{i}").public.decode("ascii")
            refs += ["--referee", spec]
        mm_data = root / "matchmaker"
        mm_data.mkdir()
        matchmaker = _lanqi(
            [
                "matchmaker",
                "--port",
                "0",
                "--pub-port",
                "0",
                "--key-port",
                "0",
                "--data-dir",
                str(mm_data),
                "--director-key",
                DIRECTOR_KEY,
                *refs,
                *plain,
            ],
            READY_MATCHMAKER,
            root / "matchmaker.log",
            "matchmaker",
        )
        services.append(matchmaker)
        key = None if config.insecure else server_keys(mm_data).public.decode("ascii")
        lobby, events = matchmaker.named["lobby"], matchmaker.named["events"]
        report.services = [ServiceFigures(s.name) for s in services]
        _sample_all(report, services, "base")
        progress(
            f"{config.referees} referee(s) and a matchmaker up; starting "
            f"{config.players} players in {config.process_count} processes"
        )
        workers = _Workers(_specs(config, lobby, events, key), root)
        _run_phases(
            config,
            report,
            workers=workers,
            services=services,
            lobby=lobby,
            key=key,
            progress=progress,
        )
    finally:
        if workers is not None:
            workers.stop()
            report.problems.extend(workers.errors())
        for service in reversed(services):
            alive = service.alive
            code = service.stop()
            if not alive:
                report.problems.append(f"{service.name} died (exit code {code})")
            report.problems.extend(f"{service.name}: {e}" for e in service.log_errors()[:3])
        report.load = (report.load[0], os.getloadavg()[0])
        if config.keep:
            progress(f"logs and data kept in {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    _judge(report)
    return report


def _specs(config: CrowdConfig, lobby: str, events: str, key: str | None) -> list[WorkerSpec]:
    roles = _roles(config)
    count = config.process_count
    tc = _time_control()
    return [
        WorkerSpec(
            matchmaker=lobby,
            events=events,
            key=key,
            players=roles[i::count],
            variant=config.variant,
            time_control={"kind": tc.kind, "base_ms": tc.base_ms, "increment_ms": tc.increment_ms},
            games=config.games,
            plies=config.plies,
            think_ms=config.think_ms,
            seed=config.seed * 1000 + i,
            subject_every=max(1, config.players // PRESENCE_SUBJECTS),
            stuck_s=config.stuck_s,
        )
        for i in range(count)
    ]


def _sample_all(report: CrowdReport, services: list[ServiceProcess], phase: str) -> None:
    for figures, service in zip(report.services, services, strict=True):
        figures.samples[phase] = _sample(service)


def _run_phases(
    config: CrowdConfig,
    report: CrowdReport,
    *,
    workers: _Workers,
    services: list[ServiceProcess],
    lobby: str,
    key: str | None,
    progress: Progress,
) -> None:
    ready = workers.gather("ready", STEP_S)
    report.connected = sum(int(r["ready"]) for r in ready)
    report.connect_s = max((float(r["connect_s"]) for r in ready), default=0.0)
    for r in ready:
        for failure in r.get("failed", []):
            report.problems.append(f"a player could not connect: {failure}")
            break
    _sample_all(report, services, "connected")
    progress(
        f"{report.connected} of {config.players} players connected in {report.connect_s:.1f} s"
    )
    if report.connected < config.players:
        report.broke.append(
            f"connections: {report.connected} of {config.players} players' sockets came up"
        )
        return
    started = time.monotonic()
    workers.tell("hello")
    said = workers.gather("hellos", STEP_S)
    report.hello_s = time.monotonic() - started
    report.hellos = sum(int(r["hellos"]) for r in said)
    _sample_all(report, services, "hello")
    progress(f"{report.hellos} hellos in {report.hello_s:.1f} s")

    from lanqi.client.matchmaker import MatchmakerClient
    from lanqi.security import Link

    director = MatchmakerClient(
        lobby, link=Link.to(key) if key else Link.plain(), timeout_ms=60_000
    )
    play_started: float | None = None
    try:
        _lists(report, director)
        tournament_id = None
        if config.swiss:
            spec = TournamentSpec(
                name="crowd swiss",
                format="swiss",
                variant=config.variant,
                time_control=_time_control(),
                rounds=config.swiss_rounds,
                rated=False,
                pairing=config.pairing,
            )
            created = director.call(
                CreateTournament(director_key=DIRECTOR_KEY, spec=spec), TournamentCreated
            )
            tournament_id = created.tournament_id
            workers.tell(f"join {tournament_id}")
            joined = workers.gather("joined", STEP_S)
            report.swiss_joined = sum(int(r["joined"]) for r in joined)
            progress(f"{report.swiss_joined} players entered the Swiss")
        play_started = time.monotonic()
        workers.tell("play")
        if tournament_id is not None:
            director.subscribe(f"tour/{tournament_id}")
            director.call(
                StartTournament(tournament_id=tournament_id, director_key=DIRECTOR_KEY), Ok
            )
        _follow(
            config,
            report,
            workers=workers,
            director=director,
            tournament_id=tournament_id,
            started=play_started,
            progress=progress,
        )
        report.play_s = time.monotonic() - play_started
        _sample_all(report, services, "end")
    except (NoAnswer, Refused) as exc:  # the matchmaker too busy for its director
        report.broke.append(f"director: {exc}")
        if play_started is not None:  # the costs over the games until then
            report.play_s = time.monotonic() - play_started
        _sample_all(report, services, "end")
    finally:
        director.close()
    workers.tell("stop")
    parts = [line["report"] for line in workers.gather("report", STEP_S)]
    if len(parts) < len(workers.procs):
        codes = [proc.poll() for proc in workers.procs]
        report.problems.append(
            f"player processes: {len(parts)} of {len(workers.procs)} reported (exit codes"
            f" {codes}; their logs: {', '.join(workers.last_lines())})"
        )
    for part in parts:
        _add(report, part)
    _presence(report, parts)


def _lists(report: CrowdReport, director: Any) -> None:
    for name, request, kind in (
        ("list_players", ListPlayers(), PlayersList),
        ("list_seeks", ListSeeks(), SeeksList),
    ):
        started = time.monotonic()
        reply = director.call(request, kind)
        ms = (time.monotonic() - started) * 1000
        items = reply.players if isinstance(reply, PlayersList) else reply.seeks
        report.lists[name] = (len(items), len(encode(reply)[0]), ms)
        if isinstance(reply, PlayersList):  # the rest of the lobby, a page at a time
            report.players_total = reply.total
            names = {p.name for p in reply.players}
            while reply.players and reply.total is not None and len(names) < reply.total:
                more = ListPlayers(offset=len(names), limit=MAX_LISTED_PLAYERS)
                reply = director.call(more, PlayersList)
                names |= {p.name for p in reply.players}
            report.players_paged = len(names)


def _follow(
    config: CrowdConfig,
    report: CrowdReport,
    *,
    workers: _Workers,
    director: Any,
    tournament_id: str | None,
    started: float,
    progress: Progress,
) -> None:
    """Until the Swiss is finished and every seeker has played its games or given
    up a wait (``stuck_s``); a Swiss without a new result for twice that is given up."""
    done_by: dict[int, tuple[int, int]] = {}
    deadline = started + config.timeout_s
    last_standings = 0.0
    swiss_done = tournament_id is None
    swiss_moved = (time.monotonic(), -1)  # when the Swiss's results last changed, and to what
    last_said = 0.0
    while time.monotonic() < deadline:
        for i, line in workers.read(1.0):
            if "seekers_done" in line:
                done_by[i] = (int(line["seekers_done"]), int(line.get("seekers_stuck", 0)))
        report.seekers_done = sum(done for done, _ in done_by.values())
        report.seekers_stuck = sum(stuck for _, stuck in done_by.values())
        now = time.monotonic()
        if tournament_id is not None and not swiss_done and now - last_standings > 2.0:
            last_standings = now
            standings = director.call(GetStandings(tournament_id=tournament_id), Standings)
            _swiss(report, standings)
            swiss_done = report.swiss_status == "finished"
            if report.swiss_results != swiss_moved[1]:
                swiss_moved = (now, report.swiss_results)
            elif now - swiss_moved[0] > 2 * config.stuck_s:
                report.broke.append(
                    f"Swiss: no new result for {now - swiss_moved[0]:.0f} s (round "
                    f"{report.swiss_rounds_done + 1}, {report.swiss_results} results)"
                )
                swiss_done = True
        seeks_done = report.seekers_done + report.seekers_stuck >= config.seekers
        if seeks_done and swiss_done:
            return
        if now - last_said > 10.0:
            last_said = now
            progress(
                f"{now - started:.0f} s: {report.seekers_done}/{config.seekers} seekers done"
                f" ({report.seekers_stuck} stuck), Swiss {report.swiss_status or '-'} round"
                f" {report.swiss_rounds_done}"
            )
    report.broke.append(
        f"time: not over after {config.timeout_s:.0f} s ({report.seekers_done}/{config.seekers}"
        f" seekers done, Swiss {report.swiss_status} after {report.swiss_rounds_done} rounds)"
    )


def _swiss(report: CrowdReport, standings: Standings) -> None:
    report.swiss_status = standings.tournament.status
    decided = [p for p in standings.pairings if p.result is not None]
    report.swiss_results = len(decided)
    rounds = {p.round for p in standings.pairings}
    report.swiss_rounds_done = sum(
        1 for r in rounds if all(p.result is not None for p in standings.pairings if p.round == r)
    )


def _add(report: CrowdReport, part: dict[str, Any]) -> None:
    report.hello_ms += part["hello_ms"]
    report.hello_failed += part["hello_failed"]
    report.seek_ms += part["seek_ms"]
    report.move_ms += part["move_ms"]
    for code, n in part["move_refused"].items():
        report.move_refused[code] = report.move_refused.get(code, 0) + n
    report.games_played += part["games_played"]
    report.seek_games += part["seek_games"]
    report.swiss_games += part["swiss_games"]
    report.games_unfinished += part["games_unfinished"]
    report.clients_cpu_s += part["cpu_s"]
    report.clients_rss_mib += part["peak_rss_mib"]
    report.problems += part["errors"][:3] + part["join_failed"][:3]
    report.lists_ms += part["lists_ms"]
    report.lists_failed += part["lists_failed"]
    report.stuck += part["stuck"]
    report.links_lost += part["links_lost"]
    report.welcomed_again += part["welcomed_again"]
    report.games_from_welcome += part["games_from_welcome"]


def _presence(report: CrowdReport, parts: list[dict[str, Any]]) -> None:
    """Each timed subject's hello to each other player's sight of its presence."""
    sent: dict[str, float] = {}
    for part in parts:
        sent.update(part["hello_sent"])
    watchers = report.config.watcher_count
    first_watcher = report.players - watchers
    report.presence_expected = sum(
        watchers - (1 if int(name.rsplit("-", 1)[1]) >= first_watcher else 0) for name in sent
    )
    for part in parts:
        for subject, whens in part["presence_seen"].items():
            at = sent.get(subject)
            if at is not None:
                report.presence_ms += [when - at for when in whens]


def _judge(report: CrowdReport) -> None:
    """What broke in this run (beside ``problems``: errors, dead processes)."""
    n = report.players
    if report.connected == n:
        if report.hellos < n:
            first = report.hello_failed[0] if report.hello_failed else "no answer"
            report.broke.append(f"hello: {n - report.hellos} of {n} not welcomed ({first})")
        p99 = percentile(report.hello_ms, 0.99)
        if p99 > HELLO_LIMIT_MS:
            report.broke.append(
                f"hello: p99 {p99:.0f} ms, over the {HELLO_LIMIT_MS / 1000:.0f} s a client"
                " waits for an answer"
            )
        if report.presence_expected and len(report.presence_ms) < report.presence_expected:
            report.broke.append(
                f"presence broadcasts: {len(report.presence_ms)} of {report.presence_expected}"
                " timed ones arrived"
            )
    lists_p99 = percentile(report.lists_ms, 0.99)
    if report.lists_failed or lists_p99 > HELLO_LIMIT_MS:
        report.broke.append(
            f"lobby lists: list_players p99 {lists_p99:.0f} ms, {report.lists_failed} reads"
            " failed (a GUI waits 5 s)"
        )
    if report.lists and (report.players_total != n or report.players_paged < n):
        report.broke.append(
            f"lobby list: list_players says {report.players_total} players in all and"
            f" {report.players_paged} were read by pages, of {n}"
        )
    for name, (_, size, _) in report.lists.items():
        if size > MAX_MESSAGE_BYTES / 2:
            report.broke.append(
                f"message size: {name} is {size} bytes, over half the {MAX_MESSAGE_BYTES} limit"
            )
    for service in report.services:
        for sample in service.samples.values():
            if sample.fd_limit and sample.fds > FD_SHARE * sample.fd_limit:
                report.broke.append(
                    f"file descriptors: {service.name} holds {sample.fds} of its {sample.fd_limit}"
                )
                break
    if report.games_unfinished:
        report.broke.append(f"games: {report.games_unfinished} unfinished at the end")
    if report.stuck:
        report.broke.append(
            f"stuck: {len(report.stuck)} players gave up a wait ({report.stuck[0]})"
        )


def run_doubling(config: CrowdConfig, max_players: int, progress: Progress) -> list[CrowdReport]:
    """Runs at ``config.players``, twice as many, ... up to ``max_players``, until a
    run breaks (the last report says what broke)."""
    reports = []
    players = config.players
    while players <= max_players:
        swiss = min(config.swiss, players - players // 2)
        run = CrowdConfig(
            **{
                **{name: getattr(config, name) for name in CrowdConfig.__slots__},
                "players": players,
                "swiss": swiss,
            }
        )
        progress(f"--- {players} players")
        report = run_crowd(run, progress)
        reports.append(report)
        progress(format_summary(report))
        if report.broke or report.problems:
            break
        players *= 2
    return reports


def _ms(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{percentile(values, 0.5):.1f} / {percentile(values, 0.99):.1f}"


def format_summary(report: CrowdReport) -> str:
    what = "; ".join(report.broke + report.problems) or "nothing broke"
    return f"{report.players} players: {what}"


def format_report(report: CrowdReport) -> str:
    c = report.config
    n = report.players
    lines = [
        f"lanqi bench crowd: {n} players in {c.process_count} processes, 1 matchmaker, "
        f"{c.referees} referees, {'plain' if c.insecure else 'CURVE'}; {c.seekers} seek "
        f"({c.games} games of {c.plies} plies, {c.think_ms:.0f} ms think), "
        f"{c.swiss}-player Swiss ({c.swiss_rounds} rounds, {c.pairing}), "
        f"{n - c.seekers - c.swiss} idle in the lobby; {c.watcher_count} follow the lobby"
        " as the GUI does",
        f"load average (1 min) {report.load[0]:.1f} at the start, {report.load[1]:.1f} at the end",
        "",
        f"connected        {report.connected}/{n} in {report.connect_s:.1f} s",
        f"hello            {report.hellos}/{n} in {report.hello_s:.1f} s;"
        f" p50/p99 {_ms(report.hello_ms)} ms",
        f"presence         p50/p99 {_ms(report.presence_ms)} ms;"
        f" {len(report.presence_ms)}/{report.presence_expected} timed broadcasts arrived",
        f"lobby lists      p50/p99 {_ms(report.lists_ms)} ms (list_players, {len(report.lists_ms)}"
        f" reads by {c.watcher_count} watchers, {report.lists_failed} failed)",
        f"seek -> assigned p50/p99 {_ms(report.seek_ms)} ms ({len(report.seek_ms)} seeks)",
        f"move round trip  p50/p99 {_ms(report.move_ms)} ms ({len(report.move_ms)} moves;"
        f" refused {dict(report.move_refused) or 0})",
        f"games            {report.games_played} seats played ({report.seek_games} from seeks,"
        f" {report.swiss_games} Swiss seats), {report.games_unfinished} unfinished;"
        f" {report.seekers_done}/{c.seekers} seekers done, {report.seekers_stuck} stuck,"
        f" in {report.play_s:.0f} s",
        f"lobby links      {report.links_lost} lost, {report.welcomed_again} hellos said again,"
        f" {report.games_from_welcome} games learnt from those welcomes (their game_assigned"
        " lost)",
        f"Swiss            {report.swiss_joined}/{c.swiss} entered, {report.swiss_status or '-'},"
        f" {report.swiss_rounds_done} rounds, {report.swiss_results} results",
    ]
    for name, (count, size, ms) in report.lists.items():
        lines.append(f"{name:<16} {count} entries, {size} bytes, {ms:.0f} ms")
    if report.lists:
        lines.append(
            f"{'':<16} total {report.players_total}, {report.players_paged} names read by pages"
        )
    lines += ["", "process       CPU s (hello / games)  RSS MiB (base -> hello -> end)  fds/limit"]
    for service in report.services:
        s = service.samples
        if not {"base", "hello", "end"} <= s.keys():
            continue
        lines.append(
            f"{service.name:<13} {service.cpu('connected', 'hello'):7.2f} / "
            f"{service.cpu('hello', 'end'):7.2f}      "
            f"{s['base'].rss_mib:6.1f} -> {s['hello'].rss_mib:6.1f} -> {s['end'].rss_mib:6.1f}"
            f"          {service.peak_fds}/{s['base'].fd_limit}"
        )
    lines.append(
        f"players       {report.clients_cpu_s:7.2f} in all"
        f"      peak RSS {report.clients_rss_mib:.0f}"
        f" MiB in all ({report.clients_rss_mib * 1024 / max(1, n):.0f} KiB a player)"
    )
    lines += ["", *format_costs(report)]
    lines.append("")
    lines.append("broke: " + ("; ".join(report.broke) if report.broke else "nothing"))
    if report.hello_failed:
        why = sorted({f.split(": ", 1)[-1][:80] for f in report.hello_failed})
        lines.append(f"hellos failed: {len(report.hello_failed)} ({'; '.join(why[:3])})")
    if report.stuck:
        lines.append(f"stuck ({len(report.stuck)}, waits over {c.stuck_s:.0f} s):")
        lines += [f"  {what}" for what in report.stuck[:20]]
    if report.problems:
        lines.append("problems: " + "; ".join(report.problems[:8]))
    return "\n".join(lines)


def format_costs(report: CrowdReport) -> list[str]:
    """Per connected player (the matchmaker) and per move (the referees)."""
    n = report.players
    mm = report.matchmaker.samples
    if not {"base", "connected", "hello", "end"} <= mm.keys() or not n:
        return []
    lines = [
        "per player:",
        f"  matchmaker RSS   {(mm['hello'].rss_mib - mm['base'].rss_mib) * 1024 / n:.1f} KiB"
        " a connected player (base -> after hello)",
        f"  matchmaker CPU   {report.matchmaker.cpu('connected', 'hello') * 1000 / n:.2f} ms"
        " a hello (the storm's CPU / players)",
    ]
    if report.play_s > 0:
        share = report.matchmaker.cpu("hello", "end") / report.play_s
        lines.append(
            f"  matchmaker CPU   {share * 100:.1f} % of a core while playing, "
            f"{share * 1e6 / n:.1f} us/s a connected player"
        )
        refs = sum(r.cpu("hello", "end") for r in report.referees)
        moves = max(1, len(report.move_ms))
        lines.append(
            f"  referees CPU     {refs / report.play_s * 100:.1f} % of a core in all, "
            f"{refs * 1e6 / moves:.0f} us a move ({moves} moves in {report.play_s:.0f} s)"
        )
        ref_rss = sum(r.samples["end"].rss_mib - r.samples["base"].rss_mib for r in report.referees)
        lines.append(f"  referees RSS     {ref_rss:.1f} MiB grown in all over the games")
    if report.play_s > 0:  # none when the games were not followed to their end
        lines.append(
            f"  players          {report.clients_cpu_s / report.play_s * 100 / n:.2f} % of"
            " a core a player (their own processes, over the games)"
        )
    return lines


def format_doubling(reports: list[CrowdReport]) -> str:
    lines = ["", "players  hello p99  presence p99  move p99  mm fds  broke"]
    for r in reports:
        lines.append(
            f"{r.players:>7}  {percentile(r.hello_ms, 0.99):9.0f}  "
            f"{percentile(r.presence_ms, 0.99):12.0f}  {percentile(r.move_ms, 0.99):8.1f}  "
            f"{r.matchmaker.peak_fds if r.services else 0:>6}  "
            f"{'; '.join(r.broke + r.problems) or '-'}"
        )
    last = reports[-1] if reports else None
    if last is not None and (last.broke or last.problems):
        lines.append(f"first to break, at {last.players}: {(last.broke + last.problems)[0]}")
    return "\n".join(lines)
