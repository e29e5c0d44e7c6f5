"""``lanqi bench match``: ``lanqi match`` beside a direct-pipe runner, in one run.

Both runners play Fairy-Stockfish against itself (``UCI_Variant xiangqi``,
``Threads 1``, ``Hash 16``) from the same openings (the built-in xiangqi book,
in order, each opening twice with the colours reversed), at the same limit (fixed
``nodes``, or a Fischer clock with ``tc``), one game at a time:

- **direct**: this module drives the two engines itself over pipes, nothing
  between them: ``position fen F moves ...`` and ``go``, read ``bestmove``, hand the
  move to the other.  lanqi's rules core (:class:`lanqi.games.xiangqi.Board`) only
  says when a game has ended (the same rules the referee applies: axf repetition,
  120 plies without a capture); its time is counted and reported apart.
- **lanqi**: ``lanqi match`` as a subprocess (its own private referee), the same
  engines, limits and openings, ``-pgnout`` to a temporary file.

Every engine runs behind :mod:`lanqi.bench.match_relay`, a stdlib-only relay that
stamps each ``bestmove`` leaving an engine and each ``go`` reaching one on
CLOCK_MONOTONIC.  A move's **overhead** is the time from one engine's ``bestmove``
to the other engine's ``go``: everything the runner does for the move.  The relay
is used rather than the PGN's ``%lat`` comments because ``%lat`` is lanqi's own
view (from one adapter's ``play`` returning to the other's ``play`` starting) and
leaves out the adapters' reading of ``bestmove`` and building of ``position``/``go``;
the relay sees the same two points under both runners.  ``%lat`` is read too and
shown beside it: the referee's share of the overhead.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "MatchBenchConfig",
    "MatchBenchReport",
    "RelayTimes",
    "RunnerFigure",
    "format_rows",
    "hand_overs",
    "parse_tc",
    "play_direct",
    "play_lanqi",
    "run_match_bench",
]

ENGINE = "/usr/games/fairy-stockfish"
#: the gomoku engine: lanqi's built-in AI as a Gomocup brain (no pbrain ships here)
BRAIN = f"{sys.executable} -m lanqi.bench.gomoku_brain"
#: gomoku's positions per move (its search is slower per node than Fairy-Stockfish's)
GOMOKU_NODES = 300


@dataclass(frozen=True, slots=True)
class BenchEngine:
    """What a variant is benchmarked with: its engine protocol (the direct runner
    speaks it), its default engine, positions per move and book; ``installed``: the
    default engine is a file that must exist (not a module lanqi ships)."""

    protocol: str
    engine: str
    nodes: int
    openings: str
    installed: bool


#: the engine each variant's benchmark plays (a variant not here has no benchmark)
BENCH_ENGINES = {
    "xiangqi": BenchEngine("uci", ENGINE, 1000, "builtin:xiangqi", installed=True),
    "gomoku": BenchEngine("gomocup", BRAIN, GOMOKU_NODES, "builtin:gomoku", installed=False),
}
RELAY = Path(__file__).with_name("match_relay.py")
OPTIONS = {"Threads": "1", "Hash": "16"}
LAT = re.compile(r"\[%lat ([0-9.]+)ms\]")
#: a direct game longer than this many plies is stopped (the rules end games far sooner)
MAX_PLIES = 1000

Progress = Callable[[str], None]


def parse_tc(text: str) -> tuple[float, float]:
    """``10+0.1`` as (base seconds, increment seconds); ValueError if not so."""
    base, _, inc = text.partition("+")
    seconds, increment = float(base), float(inc or 0)
    if seconds <= 0 or increment < 0:
        raise ValueError(f"--tc takes BASE+INC in seconds, like 10+0.1, not {text!r}")
    return seconds, increment


@dataclass(frozen=True, slots=True)
class MatchBenchConfig:
    games: int = 10
    nodes: int = 1000
    #: a Fischer clock ``BASE+INC`` in seconds instead of fixed nodes
    tc: str | None = None
    engine: str = ENGINE
    openings: str = "builtin:xiangqi"
    #: games played at once (each runner: this many engine pairs)
    concurrency: int = 1
    #: ``xiangqi`` (Fairy-Stockfish, UCI) or ``gomoku`` (the built-in AI as a Gomocup brain)
    variant: str = "xiangqi"

    def __post_init__(self) -> None:
        if self.variant not in BENCH_ENGINES:
            raise ValueError(f"--variant is one of {', '.join(BENCH_ENGINES)}")
        if not 1 <= self.concurrency <= 64:
            raise ValueError("--concurrency must be from 1 to 64")
        if not 2 <= self.games <= 1000 or self.games % 2:
            raise ValueError(
                "--games must be an even number from 2 to 1000 (openings go both ways)"
            )
        if self.nodes < 1:
            raise ValueError("--nodes must be at least 1")
        if self.tc is not None:
            parse_tc(self.tc)
        if self.bench_engine.installed and not Path(shlex.split(self.engine)[0]).exists():
            raise ValueError(f"engine {self.engine} not found: install fairy-stockfish or --engine")

    @property
    def limit(self) -> str:
        return f"tc={self.tc}" if self.tc else f"nodes={self.nodes}"

    @classmethod
    def for_variant(cls, variant: str, **fields: Any) -> MatchBenchConfig:
        """The defaults of ``variant`` (gomoku: the brain, its nodes, its book) under
        ``fields`` that are not None."""
        given = {k: v for k, v in fields.items() if v is not None}
        bench = BENCH_ENGINES.get(variant)
        if bench is not None:
            given.setdefault("engine", bench.engine)
            given.setdefault("nodes", bench.nodes)
            given.setdefault("openings", bench.openings)
        return cls(variant=variant, **given)

    @property
    def bench_engine(self) -> BenchEngine:
        return BENCH_ENGINES[self.variant]

    @property
    def protocol(self) -> str:
        return self.bench_engine.protocol

    def engine_command(self) -> list[str]:
        """The engine's words (the brain takes its nodes on its command line)."""
        words = shlex.split(self.engine)
        if self.engine == BRAIN:
            words += ["--nodes", str(self.nodes)]
        return words


@dataclass(slots=True)
class RelayTimes:
    """What the relay logs of one run say (ms unless named)."""

    #: one engine's ``bestmove`` to the other's ``go``, within a game
    overhead_ms: list[float] = field(default_factory=list)
    #: an engine's ``go`` to its ``bestmove``
    search_ms: list[float] = field(default_factory=list)
    #: a game's last ``bestmove`` to the next game's first ``go``
    between_games_ms: list[float] = field(default_factory=list)
    #: seconds from the first ``go`` to the last ``bestmove``
    play_s: float = 0.0


@dataclass(slots=True)
class RunnerFigure:
    """One runner's run: games, plies, time and the hand-over samples (ms)."""

    runner: str
    games: int = 0
    plies: int = 0
    wall_s: float = 0.0
    relay: RelayTimes = field(default_factory=RelayTimes)
    results: list[str] = field(default_factory=list)
    #: lanqi: the PGN's ``%lat`` values; direct: empty
    lat_ms: list[float] = field(default_factory=list)
    #: direct: seconds in lanqi's rules core (end detection)
    rules_s: float = 0.0
    time_losses: int = 0

    @property
    def games_per_min(self) -> float:
        return self.games / self.wall_s * 60 if self.wall_s > 0 else 0.0

    @property
    def play_games_per_min(self) -> float:
        return self.games / self.relay.play_s * 60 if self.relay.play_s > 0 else 0.0


@dataclass(slots=True)
class MatchBenchReport:
    config: MatchBenchConfig
    direct: RunnerFigure
    lanqi: RunnerFigure
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float]

    @property
    def ratio(self) -> float:
        """lanqi's games/min over the direct runner's (wall clock)."""
        d = self.direct.games_per_min
        return self.lanqi.games_per_min / d if d > 0 else 0.0

    @property
    def play_ratio(self) -> float:
        d = self.direct.play_games_per_min
        return self.lanqi.play_games_per_min / d if d > 0 else 0.0


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))]


def relay_command(engine: str | list[str], log: Path, tag: str) -> list[str]:
    words = shlex.split(engine) if isinstance(engine, str) else engine
    return [sys.executable, str(RELAY), str(log), tag, *words]


def hand_overs(lines: Sequence[str]) -> RelayTimes:
    """Read relay log lines (any order).  A ``ucinewgame`` between a ``bestmove``
    and the next ``go`` makes the gap a new game's, not a move's hand-over."""
    events: list[tuple[int, str, str]] = []
    for line in lines:
        parts = line.split()
        if len(parts) == 3 and parts[0].isdigit():
            events.append((int(parts[0]), parts[1], parts[2]))
    events.sort()
    times = RelayTimes()
    pending: tuple[int, str] | None = None  # the last bestmove: (ns, tag)
    new_game = False
    going: dict[str, int] = {}
    first_go = last_best = None
    for ns, tag, kind in events:
        if kind == "newgame":
            new_game = True
        elif kind == "go":
            first_go = ns if first_go is None else first_go
            going[tag] = ns
            if pending is not None and new_game:
                times.between_games_ms.append((ns - pending[0]) / 1e6)
            elif pending is not None and pending[1] != tag:
                times.overhead_ms.append((ns - pending[0]) / 1e6)
            pending, new_game = None, False
        elif kind == "bestmove":
            last_best = ns
            if tag in going:
                times.search_ms.append((ns - going.pop(tag)) / 1e6)
            pending = (ns, tag)
    if first_go is not None and last_best is not None:
        times.play_s = max(0.0, (last_best - first_go) / 1e9)
    return times


# ================================================================ the direct runner


class _Engine:
    """One engine behind the relay, spoken to over pipes (UCI or Gomocup)."""

    def __init__(self, command: list[str], config: MatchBenchConfig) -> None:
        self.config = config
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        #: Gomocup: the moves this brain has on its board (None: it has none yet)
        self.known: int | None = None

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def until(self, match: Callable[[str], bool]) -> str:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if match(line):
                return line.strip()
        raise RuntimeError("the engine closed its output before its answer")

    def start(self) -> None:
        if self.config.protocol == "gomocup":
            return
        self.send("uci")
        self.until(lambda line: line.startswith("uciok"))
        self.send("setoption name UCI_Variant value xiangqi")
        for name, value in OPTIONS.items():
            self.send(f"setoption name {name} value {value}")
        self.send("isready")
        self.until(lambda line: line.startswith("readyok"))

    def new_game(self, first: bool) -> None:
        if self.config.protocol == "gomocup":
            self.send("RESTART" if not first else "START 15")
            self.until(lambda line: line.strip() == "OK")
            self.known = None
            return
        self.send("ucinewgame")
        self.send("isready")
        self.until(lambda line: line.startswith("readyok"))

    def ask(self, position: str, moves: list[str], left_ms: tuple[int, int] | None) -> str:
        """The engine's move (UCI: ``bestmove`` words; Gomocup: ``x,y``)."""
        config = self.config
        if config.protocol == "gomocup":
            if left_ms is not None:
                self.send(f"INFO time_left {left_ms[len(moves) % 2]}")
            if not moves:
                self.send("BEGIN")
            elif self.known is not None and self.known == len(moves) - 1:
                self.send(f"TURN {moves[-1]}")
            else:
                self.send("BOARD")
                own = len(moves) % 2  # the stones of the side to move are 1, the others 2
                for index, move in enumerate(moves):
                    self.send(f"{move},{1 if index % 2 == own else 2}")
                self.send("DONE")
            answer = self.until(_gomocup_answer)
            self.known = len(moves) + 1
            return answer
        self.send(position + (f" moves {' '.join(moves)}" if moves else ""))
        if left_ms is None:
            self.send(f"go nodes {config.nodes}")
        else:
            inc = round(parse_tc(config.tc or "1")[1] * 1000)
            wtime, btime = (max(1, v) for v in left_ms)
            self.send(f"go wtime {wtime} btime {btime} winc {inc} binc {inc}")
        return self.until(lambda line: line.startswith("bestmove"))

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.send("END" if self.config.protocol == "gomocup" else "quit")
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _gomocup_answer(line: str) -> bool:
    x, comma, y = line.strip().partition(",")
    return bool(comma) and x.isdigit() and y.isdigit()


def _fairy(iccs: str) -> str:
    return f"{iccs[0]}{int(iccs[1]) + 1}{iccs[2]}{int(iccs[3]) + 1}"


def _iccs(fairy: str) -> str:
    m = re.fullmatch(r"([a-i])(10|[1-9])([a-i])(10|[1-9])", fairy)
    if m is None:
        raise ValueError(f"not a move: {fairy!r}")
    return f"{m[1]}{int(m[2]) - 1}{m[3]}{int(m[4]) - 1}"


def _openings(config: MatchBenchConfig) -> list[tuple[str | None, tuple[str, ...]]]:
    from lanqi.match.config import OpeningsConfig
    from lanqi.match.openings import load_openings

    found = load_openings(OpeningsConfig(file=Path(config.openings)), config.variant)
    return [(o.fen, o.moves) for o in found]


def play_direct(config: MatchBenchConfig, folder: Path, progress: Progress) -> RunnerFigure:
    """The games over bare pipes, ``concurrency`` at a time (a pair of engines and a
    relay log each); engine A is Red (Black in gomoku) in even games."""
    figure = RunnerFigure("direct")
    lock = threading.Lock()
    errors: list[BaseException] = []
    began = time.perf_counter()

    def worker(index: int) -> None:
        try:
            shared = (figure, lock, progress)
            _direct_games(config, folder / f"direct-{index}.log", index, shared)
        except BaseException as exc:  # reported after the other workers end
            errors.append(exc)

    threads = [
        threading.Thread(target=worker, args=(i,), daemon=True) for i in range(config.concurrency)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    figure.wall_s = time.perf_counter() - began
    if errors:
        raise RuntimeError(f"the direct runner failed: {errors[0]}") from errors[0]
    logs = sorted(folder.glob("direct-*.log"))
    per_pair = [hand_overs(log.read_text(encoding="ascii").splitlines()) for log in logs]
    figure.relay = _merged(per_pair)
    _one_at_a_time(config, figure)
    return figure


def _merged(parts: Sequence[RelayTimes]) -> RelayTimes:
    merged = RelayTimes()
    for part in parts:
        merged.overhead_ms += part.overhead_ms
        merged.search_ms += part.search_ms
        merged.between_games_ms += part.between_games_ms
        merged.play_s = max(merged.play_s, part.play_s)
    return merged


def _direct_games(
    config: MatchBenchConfig,
    log: Path,
    index: int,
    shared: tuple[RunnerFigure, threading.Lock, Progress],
) -> None:
    """Play games ``index``, ``index + concurrency``, ... with one pair of engines;
    ``shared``: the figure they add to, its lock, the progress line."""
    figure, lock, progress = shared
    from lanqi.games.registry import create_game
    from lanqi.games.xiangqi import Move as XiangqiMove

    openings = _openings(config)
    clock = parse_tc(config.tc) if config.tc else None
    engines = [_Engine(relay_command(config.engine_command(), log, tag), config) for tag in "AB"]
    gomoku = config.protocol == "gomocup"
    try:
        for engine in engines:
            engine.start()
        for game in range(index, config.games, config.concurrency):
            fen, book = openings[(game // 2) % len(openings)]
            board: Any = create_game(config.variant, **({"fen": fen} if fen else {}))
            start = board.fen()
            for text in book:
                board.push(board.parse_move(text))
            # gomoku: the moves as the brains read them (x,y)
            played = [m.gomocup(board.size) for m in board.move_stack] if gomoku else []
            for engine in engines:
                engine.new_game(first=game == index)
            left = [clock[0] * 1000, clock[0] * 1000] if clock else [0.0, 0.0]
            result, plies, rules_s, losses = "*", 0, 0.0, 0
            for _ in range(MAX_PLIES):
                turn = len(board.move_stack) % 2  # 0: the side that moved first
                engine = engines[(turn + game) % 2]
                moves = played if gomoku else [_fairy(str(m)) for m in board.move_stack]
                asked = time.perf_counter()
                reply = engine.ask(
                    f"position fen {start}",
                    moves,
                    (round(left[0]), round(left[1])) if clock else None,
                ).split()
                if clock is not None:
                    left[turn] -= (time.perf_counter() - asked) * 1000
                    if left[turn] < 0:
                        losses += 1
                        result = "0-1" if turn == 0 else "1-0"
                        break
                    left[turn] += clock[1] * 1000
                if not reply or (not gomoku and (len(reply) < 2 or reply[1] in ("(none)", "0000"))):
                    result = "0-1" if turn == 0 else "1-0"
                    break
                ruled = time.perf_counter()
                if gomoku:
                    move = _from_gomocup(board, reply[0])
                    played.append(move.gomocup(board.size))
                else:
                    move = XiangqiMove.from_iccs(_iccs(reply[1]))
                board.push(move)
                plies += 1
                over = board.outcome() is not None
                rules_s += time.perf_counter() - ruled
                if over:
                    result = board.result()
                    break
            with lock:
                figure.games += 1
                figure.plies += plies
                figure.rules_s += rules_s
                figure.time_losses += losses
                figure.results.append(result)
            progress(
                f"direct: game {game + 1}/{config.games} {result} ({len(board.move_stack)} plies)"
            )
    finally:
        for engine in engines:
            engine.close()


def _from_gomocup(board: Any, text: str) -> Any:
    from lanqi.games.gomoku import Move

    return Move.from_gomocup(text, board.size)


def _read_log(figure: RunnerFigure, log: Path) -> None:
    lines = log.read_text(encoding="ascii").splitlines() if log.exists() else []
    figure.relay = hand_overs(lines)


# ================================================================ lanqi match


def lanqi_argv(config: MatchBenchConfig, log: Path, pgn: Path) -> list[str]:
    """The ``lanqi match`` words of the same match."""
    argv: list[str] = []
    for tag in ("A", "B"):
        command = relay_command(config.engine_command(), log, tag)
        words = [f"name={tag}", "cmd=" + shlex.join(command), f"proto={config.protocol}"]
        if config.protocol == "uci":
            words += [f"option.{k}={v}" for k, v in OPTIONS.items()]
            if not config.tc:
                words.append(f"nodes={config.nodes}")
        elif not config.tc:
            words.append("st=60")  # the brain's nodes bound it; this only bounds a hang
        argv += ["-engine", *words]
    if config.tc:
        argv += ["-tc", config.tc]
    argv += ["-variant", config.variant]
    argv += ["-games", str(config.games), "-rounds", "1", "-repeat", "2"]
    argv += ["-concurrency", str(config.concurrency)]
    argv += ["-openings", f"file={config.openings}", "order=sequential"]
    argv += ["-pgnout", str(pgn)]
    return argv


def play_lanqi(config: MatchBenchConfig, folder: Path, progress: Progress) -> RunnerFigure:
    """``lanqi match`` as a subprocess; its per-game lines go to ``progress``."""
    log, pgn = folder / "lanqi.log", folder / "lanqi.pgn"
    figure = RunnerFigure("lanqi match")
    command = [sys.executable, "-m", "lanqi.cli.main", "match", *lanqi_argv(config, log, pgn)]
    began = time.perf_counter()
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=folder,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stdout is not None
    tail: list[str] = []
    for raw in process.stdout:
        line = raw.strip()
        tail = [*tail[-20:], line]
        if line:
            progress(f"lanqi: {line}")
    code = process.wait()
    figure.wall_s = time.perf_counter() - began
    if code != 0:
        raise RuntimeError(f"lanqi match exited with {code}: " + " | ".join(tail[-3:]))
    text = pgn.read_text(encoding="utf-8") if pgn.exists() else ""
    figure.results = re.findall(r'^\[Result "([^"]+)"\]', text, re.M)
    figure.games = len(figure.results)
    figure.lat_ms = [float(v) for v in LAT.findall(text)]
    figure.time_losses = len(re.findall(r'^\[Termination "time forfeit"\]', text, re.M))
    _read_log(figure, log)
    figure.plies = len(figure.relay.search_ms)
    _one_at_a_time(config, figure)
    return figure


def _one_at_a_time(config: MatchBenchConfig, figure: RunnerFigure) -> None:
    """Games played at once interleave in lanqi's one relay log (each engine's lines
    are its own, but whose opponent is whose is not in them): the hand-over and
    new-game gaps are measured at concurrency 1 only, for both runners alike."""
    if config.concurrency > 1:
        figure.relay.overhead_ms.clear()
        figure.relay.between_games_ms.clear()


# ================================================================ the whole


def run_match_bench(config: MatchBenchConfig, progress: Progress) -> MatchBenchReport:
    """The direct runner, then ``lanqi match``, on the same machine in one run."""
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="lanqi-bench-match-") as tmp:
        folder = Path(tmp)
        progress(f"direct runner: {config.games} {config.variant} games at {config.limit}")
        direct = play_direct(config, folder, progress)
        progress(f"lanqi match: {config.games} games at {config.limit}")
        lanqi = play_lanqi(config, folder, progress)
    return MatchBenchReport(config, direct, lanqi, load_before, os.getloadavg())


def _ms(values: Sequence[float], share: float) -> str:
    return "-" if not values else f"{percentile(values, share):.2f}"


def format_rows(report: MatchBenchReport) -> tuple[list[str], list[list[str]]]:
    """The table: one row per runner."""
    headers = [
        "runner",
        "games",
        "plies",
        "wall s",
        "games/min",
        "in play gpm",
        "overhead p50 ms",
        "p99 ms",
        "search p50 ms",
        "new game p50 ms",
        "time losses",
    ]
    rows = []
    for f in (report.direct, report.lanqi):
        rows.append(
            [
                f.runner,
                str(f.games),
                str(f.plies),
                f"{f.wall_s:.1f}",
                f"{f.games_per_min:.1f}",
                f"{f.play_games_per_min:.1f}",
                _ms(f.relay.overhead_ms, 0.5),
                _ms(f.relay.overhead_ms, 0.99),
                _ms(f.relay.search_ms, 0.5),
                _ms(f.relay.between_games_ms, 0.5),
                str(f.time_losses),
            ]
        )
    return headers, rows


def format_summary(report: MatchBenchReport) -> list[str]:
    """The lines under the table: ratios, the referee's share, the rules core, load."""
    d, q = report.direct, report.lanqi
    lines = [
        f"lanqi/direct games per minute: {report.ratio:.2f} (wall clock, engine start "
        f"included), {report.play_ratio:.2f} (first go to last bestmove)",
    ]
    if d.plies and q.plies:
        lines.append(
            f"plies per second: direct {d.plies / d.wall_s:.1f}, lanqi {q.plies / q.wall_s:.1f}"
            " (games differ in length: lanqi's adapter keeps engines from losing repetitions)"
        )
    if q.lat_ms:
        lines.append(
            f"lanqi's own share (PGN %lat, bestmove read to the next go written): "
            f"p50 {percentile(q.lat_ms, 0.5):.2f} ms, p99 {percentile(q.lat_ms, 0.99):.2f} ms "
            f"of the overhead above ({len(q.lat_ms)} moves); the rest is pipes and its "
            "reader threads"
        )
    if d.plies:
        lines.append(
            f"direct runner's rules core (end detection): {d.rules_s * 1000:.0f} ms in all, "
            f"{d.rules_s / d.plies * 1e6:.0f} us per ply"
        )
    b, a = report.load_before, report.load_after
    lines.append(
        f"load average: {b[0]:.2f} {b[1]:.2f} {b[2]:.2f} before, {a[0]:.2f} {a[1]:.2f} "
        f"{a[2]:.2f} after; {os.cpu_count()} cores"
    )
    return lines
