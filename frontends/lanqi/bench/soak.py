"""A long evening at full speed: ``lanqi bench soak``.

What runs (every part a real process on loopback, CURVE on as a real event has it):

- **The services**: ``lanqi referee`` (one, or ``referees``) and ``lanqi matchmaker``
  in front of them, each a subprocess with a fresh data directory (SQLite, WAL).
- **The casual players**: random-move bots (``lanqi bot --config`` processes, a few
  bots each) that keep a seek open while idle and play one game at a time, xiangqi
  in half the processes and gomoku in the other half; with the tournament's games
  they keep ``games`` games going at once, at full speed (a random bot answers at
  once).
- **The tournaments**: this process, as the director (``MatchmakerClient`` with the
  director key), creates a single round robin of ``tournament_players`` new bots,
  starts a ``lanqi bot`` process whose bots enter it, starts it once all entered,
  follows it on ``tour/<id>`` until it is finished and stops those bots; then the
  next one (xiangqi and gomoku in turn).
- **The house bots**: two random xiangqi bots in a ``lanqi bot`` process that stays
  all evening (a club's house bot), sampled and judged as the services are (a bot
  that keeps every game it played grows).
- **Players coming and going**: every ``churn_s`` one casual process in turn is
  either stopped (SIGTERM: its players leave; their running games end by the
  abandonment rule) and replaced by one with new names (new players saying hello),
  or killed (SIGKILL, as a laptop that loses power) and started again with the same
  names and session files: those players say hello with their sessions and take
  their seats in the games they were playing back.

What is sampled every ``sample_s`` (a minute), per service process (and the house
bots' process, which has no store):

- ``rss``: VmRSS from ``/proc/<pid>/status``; ``fds``: entries of ``/proc/<pid>/fd``;
  ``threads``;
- ``store``: the SQLite file plus its write-ahead log, and the log alone (``wal``);
- ``lag``: the checkpoint lag, frames of the write-ahead log not yet copied into the
  database file (``mxFrame - nBackfill``, read from the store's ``-shm`` wal-index,
  which SQLite keeps in shared memory: no connection is opened, nothing is locked,
  no checkpoint is run by the sampler).  The referee checkpoints from a thread of its
  own within a second of a commit (``EventStore.start_checkpoints``); the matchmaker
  leaves it to SQLite's automatic checkpoint (1,000 pages);
- ``errors``: ERROR records and tracebacks its log gained;

and for the whole run: the 1-minute load average (the machine is shared), games
finished (the referees' ``results_since``), games being played (``list_games``),
tournaments finished, players who said hello and seats reclaimed.

The verdict (:func:`verdict`): for each service and series, the least-squares slope
over the samples from the end of the warm-up (``warmup_minutes``, ten by default) to
the end, and the growth that line gives over that span; a series *grows* when that
growth exceeds its tolerance (:data:`TOLERANCES`: a share of its value at the end of
the warm-up or an absolute floor, whichever is larger) by more than the samples' own
scatter could tilt the line (:data:`NOISE_ERRORS` standard errors of the growth).
The store is judged per game finished (bytes of store per game), since it keeps
every game by design.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import os
import re
import secrets
import shutil
import signal
import struct
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO

from lanqi.bench.process import LOG_ERROR, ServiceProcess, ServiceStartError

__all__ = [
    "NOISE_ERRORS",
    "REFEREE_FINISHED_CACHE",
    "TOLERANCES",
    "Judgement",
    "ServiceSample",
    "SoakConfig",
    "SoakReport",
    "SoakSample",
    "format_sample",
    "format_verdict",
    "judged_samples",
    "least_squares",
    "read_samples",
    "run_soak",
    "slope_error",
    "verdict",
    "wal_lag",
    "warmup_games",
]

Progress = Callable[[str], None]

READY_S = 60.0  # a loaded machine: Python's start plus the bots' self-check
STOP_S = 15.0
READY_REFEREE = re.compile(rb"referee ready: requests (?P<requests>\S+), events (?P<events>\S+),")
READY_MATCHMAKER = re.compile(
    rb"matchmaker ready: requests (?P<lobby>\S+), events (?P<events>\S+),"
)
READY_BOT = re.compile(rb"\d+ bot\(s\) on \S+: ")
#: the referee's liveness in the soak: a player who left loses within seconds, so
#: the opponent plays on (the defaults, 5 s and 60 s, would park the opponent a minute)
DISCONNECT_AFTER_S = 3
ABANDON_AFTER_S = 10
#: a tournament whose bots have not all entered by then is given up (and counted)
JOIN_S = 120.0
#: standings are asked for this often while a tournament runs (its events wake sooner)
CHECK_S = 5.0
#: the finished games a referee keeps in memory for ``sync`` requests
#: (``lanqi.referee.service.FINISHED_CACHE``): its RSS grows until that many have
#: finished (about 140 KiB each after a random xiangqi game), then stays; the warm-up
#: lasts at least until every referee's cache is full (1.25 x, games are spread)
REFEREE_FINISHED_CACHE = 512


@dataclass(frozen=True, slots=True)
class Tolerance:
    """How much a series may grow over the measured span: ``share`` of its value at
    the end of the warm-up, or ``floor`` (in its unit), whichever is larger."""

    share: float
    floor: float
    unit: str


#: Why these: a service's RSS moves by a few MiB as Python's allocator takes and
#: gives back arenas (measured: +-2 MiB minute to minute on a steady load), so 10 %
#: or 5 MiB is above the noise, and a leak of that size per two hours doubles a
#: 50 MiB service within a day of play.  A descriptor is a socket or a file: with a
#: constant number of players connected the count is constant up to the players
#: between two connections when a sample is taken (a churned process of 8 bots holds
#: 16 sockets on a referee; a bot's game is 8 descriptors: its sockets and ZeroMQ's
#: mailboxes), so 16 more or 10 % is a leak of sockets.  Threads: a bot's game has
#: two (its player and its search), the house bots play two games: 4 or 10 %.  The
#: store keeps every game: judged per game finished, 10 % or 256 bytes more per game.
#: The checkpoint lag is a saw-tooth: up to a second of commits on the referee, up to
#: SQLite's 1,000-page automatic checkpoint on the matchmaker, so 1,000 frames more
#: than at the end of the warm-up (or twice that value) is a checkpoint that stopped
#: keeping up.  The write-ahead log's file is a saw-tooth too (the referee's between
#: the 4 MiB it is cut back to and the 32 MiB at which its writer restarts it); it
#: grows for good only when no checkpoint can restart it: 4 MiB.
TOLERANCES: dict[str, Tolerance] = {
    "rss_mib": Tolerance(0.10, 5.0, "MiB"),
    "fds": Tolerance(0.10, 16.0, ""),
    "threads": Tolerance(0.10, 4.0, ""),
    "store_per_game": Tolerance(0.10, 256.0, "B/game"),
    "wal_mib": Tolerance(0.10, 4.0, "MiB"),
    "lag_frames": Tolerance(1.0, 1000.0, "frames"),
}


#: A series grows when its line rises more than its tolerance plus this many standard
#: errors of that rise (:func:`slope_error`): the line through a saw-tooth sampled
#: every 30 s tilts by chance (measured in the 10-minute soak at a load of 15-18: the
#: referee's lag scattered 116-2,988 frames, a standard error of 520-1,020 frames over
#: the 7 judged minutes; its WAL file 4-38 MiB, 6-9 MiB), while a leak or a stalled
#: checkpoint climbs steadily, with little scatter about its line.  Three standard
#: errors: a flat series is called growing less than once in a thousand judgements.
NOISE_ERRORS = 3.0


#: the series of a process's store (none for the house bots)
STORE_SERIES = ("store_per_game", "wal_mib", "lag_frames")


@dataclass(frozen=True, slots=True)
class SoakConfig:
    """A soak of ``minutes`` with ``games`` games at once; judged after ``warmup_minutes``."""

    minutes: float = 120.0
    games: int = 16
    warmup_minutes: float = 10.0
    sample_s: float = 60.0
    referees: int = 1
    tournament_players: int = 6
    casual_processes: int = 4
    churn_s: float = 60.0
    seed: int = 1
    #: where the samples go, one JSON object a line (None: only the table)
    samples_path: Path | None = None
    #: keep the data directories and logs (else removed when nothing went wrong)
    keep: bool = False

    def __post_init__(self) -> None:
        if not 1 <= self.minutes <= 24 * 60:
            raise ValueError("--minutes must be from 1 to 1440")
        if not 0 <= self.warmup_minutes < self.minutes:
            raise ValueError("--warmup must be at least 0 and below --minutes")
        if not 5 <= self.sample_s <= 600:
            raise ValueError("--sample-s must be from 5 to 600")
        if not 1 <= self.referees <= 8:
            raise ValueError("--referees must be from 1 to 8")
        if self.tournament_players and not 4 <= self.tournament_players <= 16:
            raise ValueError("--tournament-players must be 0 (none) or from 4 to 16")
        if self.tournament_players % 2:
            raise ValueError("--tournament-players must be even")
        if not self.tournament_players // 2 + 2 <= self.games <= 128:
            raise ValueError("--games must be from two more than a tournament's boards to 128")
        if not 1 <= self.casual_processes <= self.casual_games - 1:
            raise ValueError("--bot-processes must be from 1 to the casual games")
        if not self.churn_s >= 10:
            raise ValueError("--churn-s must be at least 10")

    @property
    def casual_games(self) -> int:
        """Games the casual bots keep going (the rest are the tournament's boards)."""
        return self.games - self.tournament_players // 2


# ---------------------------------------------------------------- samples


@dataclass(frozen=True, slots=True)
class ServiceSample:
    name: str
    pid: int
    rss_mib: float
    fds: int
    threads: int
    store_mib: float
    wal_mib: float
    lag_frames: int
    errors: int  # ERROR records in its log so far


@dataclass(frozen=True, slots=True)
class SoakSample:
    minute: float
    load1: float
    games: int  # finished so far
    moves: int  # in those games
    live: int  # being played now
    tournaments: int  # finished so far
    hellos: int  # bot players started so far (new names)
    reclaims: int  # bot processes killed and started again with their sessions
    bots_rss_mib: float  # every bot process together
    bot_errors: int
    services: list[ServiceSample] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, line: str) -> SoakSample:
        data = json.loads(line)
        data["services"] = [ServiceSample(**s) for s in data.get("services", [])]
        return cls(**data)


def read_samples(path: Path) -> list[SoakSample]:
    """The samples a run wrote (``samples_path``), to judge again."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [SoakSample.from_json(line) for line in lines if line.startswith("{")]


def _status(pid: int) -> dict[str, str]:
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return {}
    return dict(line.split(":", 1) for line in text.splitlines() if ":" in line)


def _kib(value: str | None) -> float:
    return int(value.split()[0]) / 1024 if value else 0.0


def _fds(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


#: the wal-index header (``-shm``): iVersion, unused, iChange, isInit, bigEndCksum,
#: szPage, mxFrame; the checkpoint info's nBackfill follows the header's two copies
WAL_INDEX_VERSION = 3007000
_WAL_HEADER = struct.Struct("=IIIBBHI")
_BACKFILL_OFFSET = 96


def wal_lag(database: Path) -> int | None:
    """Frames of ``database``'s write-ahead log not yet checkpointed into it, read
    from its wal-index (the ``-shm`` file SQLite maps in every connection); None
    when there is none (no connection open, or not a WAL database).

    >>> wal_lag(Path("/nonexistent.sqlite3")) is None
    True
    """
    try:
        with open(f"{database}-shm", "rb") as shm:
            head = shm.read(_BACKFILL_OFFSET + 4)
    except OSError:
        return None
    if len(head) < _BACKFILL_OFFSET + 4:
        return None
    version, _, _, initialised, _, _, max_frame = _WAL_HEADER.unpack_from(head)
    if version != WAL_INDEX_VERSION or not initialised:
        return None
    (backfilled,) = struct.unpack_from("=I", head, _BACKFILL_OFFSET)
    lag: int = max_frame - backfilled
    return max(0, lag)


class _LogCounter:
    """ERROR records (and tracebacks) in the logs of one role, read as they grow."""

    def __init__(self) -> None:
        self.read: dict[Path, int] = {}
        self.errors = 0
        self.first: list[str] = []  # the first few, for the report

    def scan(self, logs: Sequence[Path]) -> int:
        for path in logs:
            start = self.read.get(path, 0)
            try:
                with path.open("rb") as f:
                    f.seek(start)
                    chunk = f.read()
            except OSError:
                continue
            end = chunk.rfind(b"\n") + 1  # whole lines only
            self.read[path] = start + end
            for line in chunk[:end].decode(errors="replace").splitlines():
                if LOG_ERROR.search(line):
                    self.errors += 1
                    if len(self.first) < 5:
                        self.first.append(f"{path.name}: {line.strip()}")
        return self.errors


# ---------------------------------------------------------------- the verdict


def least_squares(xs: Sequence[float], ys: Sequence[float]) -> float:
    """The slope of the least-squares line through the points (0 for fewer than two).

    >>> least_squares([0, 1, 2, 3], [1, 3, 5, 7])
    2.0
    """
    return _fit(xs, ys)[0]


def slope_error(xs: Sequence[float], ys: Sequence[float]) -> float:
    """The standard error of :func:`least_squares`'s slope, from the points' scatter
    about their line (0 for fewer than three points).

    >>> slope_error([0, 1, 2, 3], [1, 3, 5, 7])
    0.0
    >>> round(slope_error([0, 1, 2, 3], [0, 2, 0, 2]), 3)
    0.566
    """
    return _fit(xs, ys)[1]


def _fit(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float]:
    n = len(xs)
    if n < 2:
        return 0.0, 0.0
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return 0.0, 0.0
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
    if n < 3:
        return slope, 0.0
    residuals = sum((y - my - slope * (x - mx)) ** 2 for x, y in zip(xs, ys, strict=True))
    return slope, math.sqrt(residuals / (n - 2) / sxx)


@dataclass(frozen=True, slots=True)
class Judgement:
    """One series of one service over the run."""

    service: str
    series: str
    start: float  # the first sample
    at_warmup: float  # the sample at the end of the warm-up
    end: float  # the last sample
    slope_per_hour: float  # least squares over the samples from the warm-up on
    growth: float  # what that line gives over the measured span
    allowed: float  # the tolerance over that span
    samples: int
    #: NOISE_ERRORS standard errors of ``growth``: how far the samples' own scatter
    #: could move the line (a saw-tooth's teeth, descriptors between two connections)
    noise: float = 0.0

    @property
    def ratio(self) -> float | None:
        return self.end / self.at_warmup if self.at_warmup else None

    @property
    def grows(self) -> bool:
        return self.growth > self.allowed + self.noise


def _series(sample: SoakSample, service: ServiceSample, name: str) -> float:
    if name == "store_per_game":
        return service.store_mib * 1024 * 1024 / sample.games if sample.games else 0.0
    value: float = getattr(service, name)
    return value


def warmup_games(referees: int) -> int:
    """Games finished before the referees' caches of finished games are full."""
    return round(1.25 * REFEREE_FINISHED_CACHE * referees)


def judged_samples(
    samples: Sequence[SoakSample], warmup_minutes: float, warmup_games: int = 0
) -> list[SoakSample]:
    """The samples after the warm-up: ``warmup_minutes`` passed, ``warmup_games`` finished."""
    return [s for s in samples if s.minute >= warmup_minutes - 1e-6 and s.games >= warmup_games]


def verdict(
    samples: Sequence[SoakSample], warmup_minutes: float, warmup_games: int = 0
) -> list[Judgement]:
    """Each service's series judged over the samples from the end of the warm-up on:
    ``warmup_minutes`` passed and ``warmup_games`` finished (the first sample that
    has both starts the span; at least two samples are needed)."""
    measured = judged_samples(samples, warmup_minutes, warmup_games)
    if len(measured) < 2:
        return []
    names = [s.name for s in measured[0].services]
    judgements = []
    for service in names:
        for series, tolerance in TOLERANCES.items():
            points = [
                (s.minute, _series(s, svc, series))
                for s in measured
                for svc in s.services
                if svc.name == service
            ]
            stores = [svc.store_mib for s in measured for svc in s.services if svc.name == service]
            if series in STORE_SERIES and not any(stores):  # a process without a store
                continue
            if series == "store_per_game":  # per game needs games
                points = [(m, v) for m, v in points if v > 0]
            if len(points) < 2:
                continue
            first = next(
                (
                    _series(s, svc, series)
                    for s in samples
                    for svc in s.services
                    if svc.name == service
                ),
                0.0,
            )
            xs, ys = [p[0] for p in points], [p[1] for p in points]
            slope, error = _fit(xs, ys)  # per minute
            at_warmup = ys[0]
            judgements.append(
                Judgement(
                    service=service,
                    series=series,
                    start=first,
                    at_warmup=at_warmup,
                    end=ys[-1],
                    slope_per_hour=slope * 60,
                    growth=slope * (xs[-1] - xs[0]),
                    allowed=max(tolerance.share * abs(at_warmup), tolerance.floor),
                    samples=len(points),
                    noise=NOISE_ERRORS * error * (xs[-1] - xs[0]),
                )
            )
    return judgements


# ---------------------------------------------------------------- output


def format_sample(sample: SoakSample, *, header: bool = False) -> list[str]:
    """The table's lines for one sample: one per service (the run's columns on the first)."""
    lines = []
    if header:
        lines.append(
            f"{'min':>5} {'load':>5} {'games':>6} {'live':>4} {'tours':>5} {'hello':>5} "
            f"{'recl':>4}  {'service':<11} {'rss MiB':>7} {'fds':>4} {'thr':>3} "
            f"{'store MiB':>9} {'wal MiB':>7} {'lag':>5} {'err':>3}"
        )
    for i, svc in enumerate(sample.services):
        lead = (
            f"{sample.minute:5.1f} {sample.load1:5.2f} {sample.games:6d} {sample.live:4d} "
            f"{sample.tournaments:5d} {sample.hellos:5d} {sample.reclaims:4d}"
            if i == 0
            else " " * 40
        )
        lines.append(
            f"{lead}  {svc.name:<11} {svc.rss_mib:7.1f} {svc.fds:4d} {svc.threads:3d} "
            f"{svc.store_mib:9.2f} {svc.wal_mib:7.2f} {svc.lag_frames:5d} {svc.errors:3d}"
        )
    lines.append(
        f"{'':40}  {'bots':<11} {sample.bots_rss_mib:7.1f} {'':4} {'':3} {'':9} {'':7} {'':5} "
        f"{sample.bot_errors:3d}"
    )
    return lines


def _number(value: float, *, sign: bool = False) -> str:
    plus = "+" if sign and value >= 0 else ""
    if abs(value) >= 100 or value == int(value):
        return f"{plus}{value:,.0f}"
    return f"{plus}{value:.2f}" if abs(value) < 10 else f"{plus}{value:.1f}"


def format_verdict(judgements: Sequence[Judgement]) -> list[str]:
    """The verdict table: start, end of warm-up, end, ratio, slope, growth, allowed
    (the tolerance) and noise (NOISE_ERRORS standard errors of the growth)."""
    lines = [
        f"{'service':<11} {'series':<15} {'start':>11} {'warm-up':>11} {'end':>11} {'ratio':>6} "
        f"{'slope/h':>11} {'growth':>11} {'allowed':>8} {'noise':>8}  verdict"
    ]
    for j in judgements:
        ratio = f"{j.ratio:.2f}" if j.ratio is not None else "-"
        unit = TOLERANCES[j.series].unit
        lines.append(
            f"{j.service:<11} {j.series:<15} {_number(j.start):>11} {_number(j.at_warmup):>11} "
            f"{_number(j.end):>11} {ratio:>6} {_number(j.slope_per_hour, sign=True):>11} "
            f"{_number(j.growth, sign=True):>11} "
            f"{_number(j.allowed):>8} {_number(j.noise):>8}  "
            f"{'GROWS' if j.grows else 'flat'} {unit}".rstrip()
        )
    return lines


@dataclass(slots=True)
class SoakReport:
    config: SoakConfig
    samples: list[SoakSample] = field(default_factory=list)
    judgements: list[Judgement] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    root: Path | None = None

    @property
    def growing(self) -> list[Judgement]:
        return [j for j in self.judgements if j.grows]

    @property
    def ok(self) -> bool:
        return not self.problems and not self.growing

    def summary(self) -> list[str]:
        c = self.config
        lines = [
            f"lanqi bench soak: {c.minutes:g} min, {c.games} games at once "
            f"({c.casual_games} casual with the house bots', {c.tournament_players // 2} "
            "tournament boards), "
            f"{c.referees} referee(s); warm-up: {c.warmup_minutes:g} min and "
            f"{warmup_games(c.referees):,} games (the referees' caches of finished games full)",
        ]
        judged = judged_samples(self.samples, c.warmup_minutes, warmup_games(c.referees))
        if self.judgements and judged:
            lines.append(
                f"judged from minute {judged[0].minute:g} to {judged[-1].minute:g} "
                f"({len(judged)} samples)"
            )
        if self.samples:
            last = self.samples[-1]
            loads = [s.load1 for s in self.samples]
            lines.append(
                f"games finished {last.games:,} ({last.moves:,} moves), tournaments finished "
                f"{last.tournaments}, players who said hello {last.hellos}, bot processes "
                f"killed and back with their sessions {last.reclaims}; load average "
                f"{min(loads):.2f}-{max(loads):.2f} (mean {sum(loads) / len(loads):.2f})"
            )
        if self.judgements:
            lines.extend(format_verdict(self.judgements))
        grows = self.growing
        lines.append(
            "verdict: "
            + (
                "GROWS: " + ", ".join(f"{j.service} {j.series}" for j in grows)
                if grows
                else "flat (every series within its tolerance)"
                if self.judgements
                else "not judged (too few samples after the warm-up)"
            )
        )
        lines.extend(f"problem: {p}" for p in self.problems)
        return lines


# ---------------------------------------------------------------- the processes


class _Role:
    """A process sampled as a service, and where its store lives (None: it has none)."""

    def __init__(self, name: str, process: ServiceProcess, store: Path | None) -> None:
        self.name = name
        self.process = process
        self.store = store
        self.errors = _LogCounter()

    def sample(self) -> ServiceSample:
        pid = self.process.pid
        status = _status(pid)
        db = self.store
        wal = _size(Path(f"{db}-wal")) if db else 0
        return ServiceSample(
            name=self.name,
            pid=pid,
            rss_mib=round(_kib(status.get("VmRSS")), 2),
            fds=_fds(pid),
            threads=int(status.get("Threads", "0").strip() or 0),
            store_mib=round(((_size(db) if db else 0) + wal) / 2**20, 3),
            wal_mib=round(wal / 2**20, 3),
            lag_frames=(wal_lag(db) if db else None) or 0,
            errors=self.errors.scan([self.process.log]),
        )


@dataclass(slots=True)
class _BotGroup:
    """One ``lanqi bot --config`` process: its names, what they do, its runs."""

    key: str
    names: list[str]
    variant: str
    tournament: str | None = None
    process: ServiceProcess | None = None
    runs: int = 0
    logs: list[Path] = field(default_factory=list)


class _Soak:
    """The run's state and its one loop (see :func:`run_soak`)."""

    def __init__(self, config: SoakConfig, root: Path, say: Progress, emit: Progress) -> None:
        self.config = config
        self.root = root
        self.say = say
        self.emit = emit
        self.key = secrets.token_hex(12)
        self.env = {"LANQI_DATA_DIR": str(root / "client-data")}
        self.roles: list[_Role] = []
        self.referee_endpoints: list[tuple[str, str]] = []
        self.casual: list[_BotGroup] = []
        #: two bots in a process of their own that stays all evening (sampled, judged)
        self.house: _BotGroup | None = None
        self.tour_group: _BotGroup | None = None
        self.bot_errors = _LogCounter()
        self.names = itertools.count(1)
        self.hellos = 0
        self.reclaims = 0
        self.games = 0
        self.moves = 0
        self.result_seq: dict[str, int] = {}
        self.tournaments = 0
        self.problems: list[str] = []
        self.samples: list[SoakSample] = []
        self.client: Any = None
        self.referee_clients: list[Any] = []
        # the tournament in progress
        self.tour_id: str | None = None
        self.tour_state = "idle"
        self.tour_since = 0.0
        self.tour_check = 0.0
        self.tour_count = 0

    # -- processes --------------------------------------------------------------

    def _spawn(
        self, name: str, args: list[str], ready: re.Pattern[bytes], log: Path
    ) -> ServiceProcess:
        """Start a ``lanqi`` command; a service whose key port (its port + 4) another
        process holds is started again on other ports (port 0 picks them)."""
        command = [sys.executable, "-m", "lanqi.cli.main", *args]
        for attempt in range(3):
            try:
                return ServiceProcess(
                    command, ready, log, name=name, ready_s=READY_S, stop_s=STOP_S, env=self.env
                )
            except ServiceStartError as exc:
                if "Address already in use" not in exc.log or attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def start_services(self) -> None:
        for i in range(1, self.config.referees + 1):
            data = self.root / f"referee-{i}"
            data.mkdir(parents=True)
            process = self._spawn(
                f"referee-{i}",
                [
                    "referee",
                    "--port",
                    "0",
                    "--pub-port",
                    "0",
                    "--data-dir",
                    str(data),
                    "--disconnect-after",
                    str(DISCONNECT_AFTER_S),
                    "--abandon-after",
                    str(ABANDON_AFTER_S),
                ],
                READY_REFEREE,
                self.root / f"referee-{i}.log",
            )
            self.roles.append(_Role(f"referee-{i}", process, data / "referee.sqlite3"))
            self.referee_endpoints.append((process.named["requests"], process.named["events"]))
        data = self.root / "matchmaker"
        data.mkdir(parents=True)
        referees = [
            f"--referee={requests},{events},key={self.root / f'referee-{i}' / 'server_curve.key'}"
            for i, (requests, events) in enumerate(self.referee_endpoints, start=1)
        ]
        process = self._spawn(
            "matchmaker",
            [
                "matchmaker",
                "--port",
                "0",
                "--pub-port",
                "0",
                "--data-dir",
                str(data),
                "--director-key",
                self.key,
                *referees,
            ],
            READY_MATCHMAKER,
            self.root / "matchmaker.log",
        )
        self.roles.insert(0, _Role("matchmaker", process, data / "matchmaker.sqlite3"))
        self.lobby, self.events = process.named["lobby"], process.named["events"]
        self.say(
            f"services ready: matchmaker {self.lobby}, referee(s) "
            + ", ".join(r for r, _ in self.referee_endpoints)
        )

    def connect(self) -> None:
        from lanqi.client.matchmaker import MatchmakerClient
        from lanqi.client.referee import RefereeClient
        from lanqi.security import KnownServers

        known = KnownServers.of(self.root / "client-data")
        self.client = MatchmakerClient(self.lobby, self.events, timeout_ms=20_000, known=known)
        for requests, events in self.referee_endpoints:
            self.referee_clients.append(
                RefereeClient(requests, events, timeout_ms=20_000, known=known)
            )

    def _bot_config(self, group: _BotGroup) -> Path:
        entries = []
        for name in group.names:
            seed = self.config.seed * 100_000 + int(name.rsplit("-", 1)[1])
            entry = f'[[bot]]\nname = "{name}"\nbot = "random"\nseed = {seed}\nmax_games = 1\n'
            if group.tournament:
                entry += f'tournaments = ["{group.tournament}"]\n'
            else:
                entry += f'seek = "{group.variant}"\n'
            entries.append(entry)
        path = self.root / f"{group.key}.toml"
        path.write_text("\n".join(entries), encoding="utf-8")
        return path

    def start_group(self, group: _BotGroup) -> None:
        config = self._bot_config(group)
        group.runs += 1
        log = self.root / f"{group.key}-{group.runs}.log"
        group.logs.append(log)
        group.process = self._spawn(
            group.key,
            [
                "bot",
                "--server",
                self.lobby,
                "--config",
                str(config),
                "--session-dir",
                str(self.root / "sessions"),
            ],
            READY_BOT,
            log,
        )

    def _new_names(self, count: int, prefix: str) -> list[str]:
        self.hellos += count
        return [f"{prefix}-{next(self.names)}" for _ in range(count)]

    def start_casual(self) -> None:
        c = self.config
        self.house = _BotGroup("house-bots", self._new_names(2, "h"), "xiangqi")
        self.start_group(self.house)
        assert self.house.process is not None
        self.roles.append(_Role("house-bots", self.house.process, None))
        games = c.casual_games - 1  # the house bots play one
        pairs = [games // c.casual_processes] * c.casual_processes
        for i in range(games % c.casual_processes):
            pairs[i] += 1
        for i, count in enumerate(pairs):
            variant = "xiangqi" if i % 2 == 0 else "gomoku"
            group = _BotGroup(f"casual-{i + 1}", self._new_names(2 * count, "c"), variant)
            self.start_group(group)
            self.casual.append(group)
        self.say(
            f"{sum(len(g.names) for g in self.casual)} casual bots in {len(self.casual)} "
            "processes, seeking; 2 house bots that stay all evening in one more"
        )

    def churn(self, turn: int) -> None:
        """Players come and go: see the module doc."""
        group = self.casual[turn % len(self.casual)]
        assert group.process is not None
        if turn % 2 == 0:
            group.process.stop()
            group.names = self._new_names(len(group.names), "c")
            self.start_group(group)
            self.say(f"{group.key}: {len(group.names)} players left, as many new ones said hello")
        else:
            group.process.kill()
            self.start_group(group)
            self.reclaims += 1
            self.say(f"{group.key}: killed and back with its sessions (seats reclaimed)")

    # -- tournaments ------------------------------------------------------------

    def tournament_step(self, now: float) -> None:
        from lanqi.protocol import (
            CreateTournament,
            GetStandings,
            Ok,
            Standings,
            StartTournament,
            TournamentCreated,
            TournamentSpec,
        )

        c = self.config
        if not c.tournament_players:
            return
        if self.tour_state == "idle":
            self.tour_count += 1
            variant = "xiangqi" if self.tour_count % 2 else "gomoku"
            spec = TournamentSpec(
                name=f"soak {self.tour_count} {variant}", format="round_robin", variant=variant
            )
            created = self.client.call(
                CreateTournament(director_key=self.key, spec=spec), TournamentCreated
            )
            self.tour_id = created.tournament_id
            self.client.subscribe(f"tour/{self.tour_id}")
            names = self._new_names(c.tournament_players, "t")
            self.tour_group = _BotGroup("tournament", names, variant, tournament=self.tour_id)
            self.start_group(self.tour_group)
            self.tour_state, self.tour_since, self.tour_check = "joining", now, now
            return
        if now < self.tour_check or self.tour_id is None:
            return
        self.tour_check = now + CHECK_S
        standings = self.client.call(GetStandings(tournament_id=self.tour_id), Standings)
        if self.tour_state == "joining":
            if len(standings.tournament.players) >= c.tournament_players:
                self.client.call(
                    StartTournament(tournament_id=self.tour_id, director_key=self.key), Ok
                )
                self.tour_state = "running"
                players = len(standings.tournament.players)
                self.say(f"tournament {self.tour_count} started: {players} players")
            elif now - self.tour_since > JOIN_S:
                self.problems.append(
                    f"tournament {self.tour_count}: not all bots entered in {JOIN_S:g} s"
                )
                self._end_tournament(finished=False)
        elif standings.tournament.status == "finished":
            self._end_tournament(finished=True)

    def _end_tournament(self, *, finished: bool) -> None:
        if self.tour_group is not None and self.tour_group.process is not None:
            self.tour_group.process.stop()  # its players go home
            self.bot_errors.scan(self.tour_group.logs)
        if finished:
            self.tournaments += 1
            self.say(
                f"tournament {self.tour_count} finished after "
                f"{time.monotonic() - self.tour_since:.0f} s"
            )
        self.tour_state, self.tour_id = "idle", None

    def drain_events(self, timeout_ms: int) -> None:
        """Wait on the tournament's events (a finished event wakes the next check)."""
        from lanqi.protocol import TourFinished

        event = self.client.next_event(timeout_ms)
        while event is not None:
            if isinstance(event, TourFinished):
                self.tour_check = 0.0
            event = self.client.next_event(0)

    # -- samples ----------------------------------------------------------------

    def count_results(self) -> int:
        """Games finished on every referee since the last call; also the live ones."""
        live = 0
        for (requests, _), client in zip(self.referee_endpoints, self.referee_clients, strict=True):
            after = self.result_seq.get(requests, 0)
            while True:
                batch = client.results_since(after=after, limit=1000)
                for result in batch.results:
                    self.games += 1
                    self.moves += len(result.moves)
                    after = max(after, result.result_seq)
                if len(batch.results) < 1000:
                    break
            self.result_seq[requests] = after
            live += len(client.list_games("active", 1000).games)
        return live

    def sample(self, minute: float) -> SoakSample:
        live = self.count_results()
        groups = [*self.casual, *([self.tour_group] if self.tour_group else [])]
        bots_rss = sum(
            _kib(_status(g.process.pid).get("VmRSS"))
            for g in groups
            if g.process is not None and g.process.alive
        )
        sample = SoakSample(
            minute=round(minute, 2),
            load1=round(os.getloadavg()[0], 2),
            games=self.games,
            moves=self.moves,
            live=live,
            tournaments=self.tournaments,
            hellos=self.hellos,
            reclaims=self.reclaims,
            bots_rss_mib=round(bots_rss, 1),
            bot_errors=self.bot_errors.scan([log for g in groups for log in g.logs]),
            services=[role.sample() for role in self.roles],
        )
        self.samples.append(sample)
        return sample

    def check_alive(self) -> None:
        dead = [r.name for r in self.roles if not r.process.alive]
        if dead:
            raise RuntimeError(f"{', '.join(dead)} exited; see its log in {self.root}")
        for group in self.casual:
            if group.process is not None and not group.process.alive:
                self.problems.append(f"{group.key} exited by itself; started again")
                self.start_group(group)

    # -- the loop ---------------------------------------------------------------

    def run(self, samples_out: TextIO | None) -> None:
        c = self.config
        self.start_services()
        self.connect()
        self.start_casual()
        began = time.monotonic()
        end = began + c.minutes * 60
        next_sample = began + c.sample_s
        next_churn = began + c.churn_s
        churns = 0
        first = self.sample(0.0)
        self._emit(first, samples_out, header=True)
        while True:
            now = time.monotonic()
            if now >= next_sample:
                sample = self.sample((now - began) / 60)
                self._emit(sample, samples_out, header=False)
                next_sample += c.sample_s
                if now >= end - 1:
                    break
                self.check_alive()
            if now >= next_churn:
                self.churn(churns)
                churns += 1
                next_churn += c.churn_s
            self.tournament_step(now)
            wait = min(next_sample, next_churn, self.tour_check or now + 1) - time.monotonic()
            self.drain_events(max(0, min(1000, int(wait * 1000))))

    def _emit(self, sample: SoakSample, out: TextIO | None, *, header: bool) -> None:
        for line in format_sample(sample, header=header):
            self.emit(line)
        if out is not None:
            out.write(sample.to_json() + "\n")
            out.flush()

    def stop(self) -> None:
        for client in self.referee_clients:
            client.close()
        if self.client is not None:
            self.client.close()
        groups = [*self.casual, *([self.tour_group] if self.tour_group else [])]
        for group in groups:
            if group.process is not None:
                group.process.stop()
        self.bot_errors.scan([log for g in groups for log in g.logs])
        # the house bots first, then the matchmaker, then the referees
        for role in sorted(self.roles, key=lambda r: r.store is not None):
            was_alive = role.process.alive
            code = role.process.stop()
            if was_alive and code != 0:
                self.problems.append(f"{role.name} exited with code {code} on SIGTERM")
            role.errors.scan([role.process.log])
            self.problems.extend(f"{role.name} log: {e}" for e in role.errors.first)
        self.problems.extend(f"bot log: {e}" for e in self.bot_errors.first)


def run_soak(
    config: SoakConfig | None = None,
    progress: Progress | None = None,
    emit: Progress | None = None,
) -> SoakReport:
    """Run the soak (see the module doc): ``progress`` gets what happens (processes,
    tournaments, churn), ``emit`` the table's lines, a sample a minute."""
    config = config or SoakConfig()
    say = progress or (lambda line: None)
    root = Path(tempfile.mkdtemp(prefix="lanqi-bench-soak-"))
    report = SoakReport(config, root=root)
    soak = _Soak(config, root, say, emit or (lambda line: None))
    say(f"data and logs in {root}")
    with contextlib.ExitStack() as stack:
        out = (
            stack.enter_context(config.samples_path.open("w", encoding="utf-8"))
            if config.samples_path
            else None
        )
        previous = signal.getsignal(signal.SIGTERM)
        if previous is not None:
            signal.signal(signal.SIGTERM, _interrupt)
            stack.callback(signal.signal, signal.SIGTERM, previous)
        try:
            soak.run(out)
        except (RuntimeError, OSError) as exc:  # a process that would not start or died
            report.problems.append(str(exc))
        except KeyboardInterrupt:
            report.problems.append("interrupted: judged on the samples taken")
        finally:
            soak.stop()
    report.samples = soak.samples
    report.problems.extend(soak.problems)
    report.judgements = verdict(
        report.samples, config.warmup_minutes, warmup_games(config.referees)
    )
    if report.ok and not config.keep:
        shutil.rmtree(root, ignore_errors=True)
        report.root = None
    else:
        report.problems.append(f"data and logs kept in {root}")
    return report


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
