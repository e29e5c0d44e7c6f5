"""Time per Swiss round of each pairing system: ``lanqi bench pairing``.

For each field size a random event is played out in memory (random results, a few
forfeits, a bye when the count is odd) for ``rounds`` rounds, every system pairing the
same histories: the history is made by the first system listed, and every system is
timed pairing each of its rounds. The figure is the mean wall time of one round's
pairing (rounds 2 and later: round 1 is a fixed split for the Dutch systems), in the
one process, no services involved.

Nothing is judged: the report prints figures side by side.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from lanqi.tournament.dutch import DUTCH_SYSTEMS, NoValidPairingError, dutch_pairings
from lanqi.tournament.model import Pairing, Player, Result
from lanqi.tournament.swiss import swiss_pairings

__all__ = ["PairingBenchReport", "format_report", "run_pairing_bench"]

SYSTEMS = ("dutch", "dutch-2017", "lanqi")


@dataclass
class PairingBenchReport:
    """Seconds per round, per field size and system (``None``: not measured)."""

    sizes: tuple[int, ...]
    systems: tuple[str, ...]
    rounds: int
    seconds: dict[tuple[int, str], float | None] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def _pair(
    system: str, players: Sequence[Player], results: list[Result], rnd: int, total: int
) -> list[Pairing]:
    if system in DUTCH_SYSTEMS:
        return dutch_pairings(players, results, rnd, system=system, total_rounds=total)
    return swiss_pairings(players, results, rnd, total_rounds=total)


def run_pairing_bench(
    sizes: Sequence[int] = (16, 64, 128, 256),
    systems: Sequence[str] = SYSTEMS,
    rounds: int = 5,
    seed: int = 1,
    progress: Callable[[str], None] | None = None,
) -> PairingBenchReport:
    """Pair ``rounds`` rounds of a random event of each size with each system."""
    report = PairingBenchReport(tuple(sizes), tuple(systems), rounds)
    for n in sizes:
        rng = random.Random(seed + n)
        players = [Player(f"p{i:03d}", f"P{i}", 2400.0 - i) for i in range(n)]
        results: list[Result] = []
        spent: dict[str, list[float]] = {s: [] for s in systems}
        for rnd in range(1, rounds + 1):
            made: list[Pairing] | None = None
            for system in systems:
                start = time.perf_counter()
                try:
                    got = _pair(system, players, results, rnd, rounds)
                except NoValidPairingError as exc:
                    report.notes.append(f"{n} players, {system}: {exc}")
                    continue
                if rnd > 1:
                    spent[system].append(time.perf_counter() - start)
                if made is None:
                    made = got
            if made is None:
                break
            for p in made:
                if p.second is None:
                    results.append(Result.bye(p, 1.0))
                elif rng.random() < 0.03:
                    results.append(Result.forfeit(p, absent=rng.choice(p.players())))
                else:
                    results.append(Result.from_pairing(p, rng.choice((1.0, 0.5, 0.0))))
        for system in systems:
            times = spent[system]
            report.seconds[(n, system)] = sum(times) / len(times) if times else None
            if progress is not None:
                figure = report.seconds[(n, system)]
                shown = f"{figure:.3f} s" if figure is not None else "-"
                progress(f"{n} players, {system}: {shown} per round")
    return report


def format_report(report: PairingBenchReport) -> str:
    """The figures as a table: one row per field size, one column per system."""
    head = ["players"] + [f"{s} (s/round)" for s in report.systems]
    rows = [head]
    for n in report.sizes:
        row = [str(n)]
        for s in report.systems:
            v = report.seconds.get((n, s))
            row.append("-" if v is None else f"{v:.3f}")
        rows.append(row)
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = ["  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    lines.append(f"mean wall time of rounds 2-{report.rounds}, the same histories for every system")
    lines.extend(f"note: {note}" for note in report.notes)
    return "\n".join(lines)
