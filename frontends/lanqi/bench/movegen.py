"""Move generation speed: perft nodes per second of lanqi's xiangqi core.

Perft from three positions (the start and two middle games, all with counts in
``tests/games/xiangqi/data/perft.txt``), and the same figure for the PyPI
package ``cchess`` when it is importable, with the ratio between the two.

Each figure gets a time budget.  Without a fixed depth, the depth deepens from 1
while the next depth is predicted (from the last branching factor) to fit in
what is left of the budget; the deepest depth reached is then repeated while
the budget lasts, and nodes per second is total leaf nodes over total time of
those runs.  So a slow generator is measured at a shallower depth than a fast
one, each for about the same time.

cchess 1.25.5 has no perft.  :func:`cchess_perft` writes one on its public
API: ``create_moves()`` for pseudo-legal moves, ``pop_fench``/``put_fench`` to
make and unmake, ``next_turn()`` and ``is_checking()`` to reject moves that
leave the own general attacked.  That is about twice as fast as playing moves
with its ``move()``/``is_checked_move()``, which deep-copy the board each time,
so the ratio shown does not flatter lanqi.  Its counts are checked against
lanqi's before a figure is shown.

>>> report = run_movegen(POSITIONS[:1], seconds=0.0, depth=2, rival=None)
>>> [(f.engine, f.depth, f.nodes) for f in report.figures]
[('lanqi', 2, 1920)]
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from lanqi.games.xiangqi import STARTING_FEN, Board

__all__ = [
    "POSITIONS",
    "TARGET_RATIO",
    "BenchPosition",
    "Figure",
    "MovegenReport",
    "Rival",
    "cchess_perft",
    "find_cchess",
    "format_report",
    "run_movegen",
]

#: lanqi should count perft nodes at least this many times faster than cchess.
TARGET_RATIO = 30.0

#: A perft function for one position: depth -> leaf count.
PerftFn = Callable[[int], int]


@dataclass(frozen=True, slots=True)
class BenchPosition:
    name: str
    fen: str


POSITIONS: tuple[BenchPosition, ...] = (
    BenchPosition("start", STARTING_FEN),
    # Central cannon against screen horses, 20 plies in (see perft.txt for the moves).
    BenchPosition(
        "middlegame1",
        "3ak1br1/4a4/c1n1b1nc1/p3p1R1p/1rp3p2/P1P6/4P1P1P/C1N1C1N2/9/1RBAKAB2 w - - 20 11",
    ),
    # Same-direction cannons with both pairs of rooks out, 18 plies in.
    BenchPosition(
        "middlegame2",
        "2bakab2/9/1cn1c1n2/pC2p1p1p/2p4r1/2P2r1R1/P3P1P1P/2N1C1N2/5R3/2BAKAB2 w - - 18 10",
    ),
)


@dataclass(frozen=True, slots=True)
class Rival:
    """Another move generator to time: ``make_perft(fen)`` returns its perft function."""

    name: str
    version: str
    make_perft: Callable[[str], PerftFn]


@dataclass(frozen=True, slots=True)
class Figure:
    """One engine on one position: ``runs`` perfts of ``depth`` took ``seconds``.

    ``problem`` is set (and nothing is timed) when the engine's count is wrong.
    """

    position: BenchPosition
    engine: str
    depth: int
    nodes: int
    runs: int
    seconds: float
    problem: str | None = None

    @property
    def nodes_per_second(self) -> float | None:
        if self.problem is not None or self.seconds <= 0:
            return None
        return self.nodes * self.runs / self.seconds


@dataclass(frozen=True, slots=True)
class MovegenReport:
    seconds: float
    depth: int | None
    figures: tuple[Figure, ...]
    rival: Rival | None
    rival_missing: str | None = None

    def ratios(self) -> dict[str, float | None]:
        """Position name -> lanqi nodes/s over the rival's (None if either is missing)."""
        result: dict[str, float | None] = {}
        if self.rival is None:
            return result
        for position in dict.fromkeys(f.position for f in self.figures):
            ours = self._speed(position, "lanqi")
            theirs = self._speed(position, self.rival.name)
            result[position.name] = ours / theirs if ours and theirs else None
        return result

    def _speed(self, position: BenchPosition, engine: str) -> float | None:
        for figure in self.figures:
            if figure.position == position and figure.engine == engine:
                return figure.nodes_per_second
        return None


# ---------------------------------------------------------------- engines


def lanqi_perft(fen: str) -> PerftFn:
    return Board(fen).perft


def cchess_perft(board: Any, depth: int) -> int:
    """Perft of a ``cchess.ChessBoard`` (make/unmake on the board, no copies)."""
    total = 0
    for frm, to in list(board.create_moves()):
        moved = board.pop_fench(frm)
        captured = board.get_fench(to)
        board.put_fench(moved, to)
        board.next_turn()
        if not board.is_checking():  # does the side now to move attack our general?
            total += 1 if depth == 1 else cchess_perft(board, depth - 1)
        board.next_turn()
        board.put_fench(moved, frm)
        board.put_fench(captured, to)
    return total


def find_cchess() -> Rival | None:
    """The ``cchess`` package as a rival, or None if it is not installed."""
    try:
        import cchess
    except ImportError:
        return None

    def make_perft(fen: str) -> PerftFn:
        board = cchess.ChessBoard(fen)
        return lambda depth: cchess_perft(board, depth)

    try:
        version = metadata.version("cchess")
    except metadata.PackageNotFoundError:
        version = "?"
    return Rival("cchess", version, make_perft)


# ---------------------------------------------------------------- timing


class _WrongCountError(Exception):
    def __init__(self, depth: int, nodes: int, want: int) -> None:
        super().__init__(f"count differs: {nodes:,} vs lanqi {want:,} at depth {depth}; not timed")
        self.depth = depth
        self.nodes = nodes


def _measure(
    position: BenchPosition,
    engine: str,
    perft: PerftFn,
    *,
    seconds: float,
    depth: int | None,
    max_depth: int,
    expected: Callable[[int], int] | None = None,
) -> tuple[Figure, dict[int, int]]:
    """Time ``perft``; returns the figure and the count found at each depth."""
    counts: dict[int, int] = {}

    def timed(d: int) -> float:
        started = time.perf_counter()
        nodes = perft(d)
        elapsed = time.perf_counter() - started
        counts[d] = nodes
        if expected is not None and nodes != (want := expected(d)):
            raise _WrongCountError(d, nodes, want)
        return elapsed

    try:
        if depth is None:  # deepen while the next depth is predicted to fit the budget
            current = 1
            last = spent = timed(1)
            while current < max_depth:
                branching = max(counts[current] / counts.get(current - 1, 1), 1.0)
                if spent + last * branching > seconds:
                    break
                current += 1
                last = timed(current)
                spent += last
        else:
            current = depth
            last = timed(depth)
        total, runs = last, 1
        while total < seconds and total + total / runs <= seconds:  # repeat while it fits
            total += timed(current)
            runs += 1
    except _WrongCountError as wrong:
        return Figure(position, engine, wrong.depth, wrong.nodes, 0, 0.0, str(wrong)), counts
    return Figure(position, engine, current, counts[current], runs, total), counts


def run_movegen(
    positions: Sequence[BenchPosition] = POSITIONS,
    *,
    seconds: float = 2.0,
    depth: int | None = None,
    max_depth: int = 6,
    rival: Rival | None = None,
    rival_missing: str | None = None,
) -> MovegenReport:
    """Time lanqi (and ``rival``) on ``positions`` with a budget of ``seconds`` per figure.

    ``depth`` fixes the perft depth of every figure; by default the budget picks
    it (at most ``max_depth``).  ``rival_missing`` says why there is no rival.
    """
    figures: list[Figure] = []
    for position in positions:
        ours, counts = _measure(
            position,
            "lanqi",
            lanqi_perft(position.fen),
            seconds=seconds,
            depth=depth,
            max_depth=max_depth,
        )
        figures.append(ours)
        if rival is None:
            continue

        def reference(d: int, fen: str = position.fen, known: dict[int, int] = counts) -> int:
            if d not in known:
                known[d] = Board(fen).perft(d)
            return known[d]

        theirs, _ = _measure(
            position,
            rival.name,
            rival.make_perft(position.fen),
            seconds=seconds,
            depth=depth,
            max_depth=max_depth,
            expected=reference,
        )
        figures.append(theirs)
    return MovegenReport(seconds, depth, tuple(figures), rival, rival_missing)


# ---------------------------------------------------------------- output


def _table(rows: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for n, row in enumerate(rows):
        cells = [
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return lines


def format_report(report: MovegenReport) -> str:
    """The report as a plain text table."""
    how = f"depth {report.depth}" if report.depth is not None else "depth chosen to fit"
    lines = [
        f"lanqi bench movegen: perft leaf nodes per second, {report.seconds:g} s per figure "
        f"({how})",
        "",
    ]
    rows = [["position", "engine", "depth", "nodes", "runs", "seconds", "nodes/s"]]
    problems = []
    for f in report.figures:
        speed = f.nodes_per_second
        if f.problem is not None:
            problems.append(f"{f.position.name} {f.engine}: {f.problem}")
        rows.append(
            [
                f.position.name,
                f.engine,
                str(f.depth),
                f"{f.nodes:,}",
                str(f.runs) if f.problem is None else "-",
                f"{f.seconds:.2f}" if f.problem is None else "-",
                f"{speed:,.0f}" if speed is not None else "COUNT WRONG" if f.problem else "-",
            ]
        )
    lines += _table(rows, right={2, 3, 4, 5, 6})
    lines.append("")
    lines += problems
    if report.rival is None:
        lines.append(f"no comparison: {report.rival_missing or 'no rival engine given'}")
    else:
        ratios = report.ratios()
        name = report.rival.name
        shown = ", ".join(
            f"{pos} {r:,.0f}x" if r is not None else f"{pos} -" for pos, r in ratios.items()
        )
        lines.append(f"ratio lanqi / {name} {report.rival.version} (nodes/s): {shown}")
        valid = [r for r in ratios.values() if r is not None]
        if valid:
            mean = math.exp(sum(math.log(r) for r in valid) / len(valid))
            verdict = "met" if min(valid) >= TARGET_RATIO else "NOT met"
            lines.append(
                f"target lanqi >= {TARGET_RATIO:g}x {name}: {verdict} "
                f"(lowest {min(valid):,.0f}x, geometric mean {mean:,.0f}x)"
            )
        else:
            lines.append(f"target lanqi >= {TARGET_RATIO:g}x {name}: not measured")
    lines.append("")
    lines.append("positions:")
    width = max(len(p.name) for p in dict.fromkeys(f.position for f in report.figures))
    for position in dict.fromkeys(f.position for f in report.figures):
        lines.append(f"  {position.name.ljust(width)}  {position.fen}")
    return "\n".join(lines)
