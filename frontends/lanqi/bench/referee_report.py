"""The report of ``lanqi bench referee``: the run's measurements, the targets'
verdicts (:class:`RefereeBenchReport`) and the plain-text table (:func:`format_report`).
"""

from __future__ import annotations

from dataclasses import dataclass

from lanqi.bench.referee_load import (
    TARGET_GAMES,
    TARGET_P99_MS,
    TARGET_RATIO,
    LoadResult,
    RefereeBenchConfig,
)

__all__ = ["RefereeBenchReport", "format_report"]


@dataclass(frozen=True, slots=True)
class RefereeBenchReport:
    """The run's referee and raw results, and the paced phase's (referee, raw) if any.

    ``paced`` is None when the run had no paced phase (``paced_think_ms`` 0, or the
    run was itself paced); ``store`` says where the referee's database was, and on
    what file system.  ``curve`` and ``paced_curve``: the (referee, raw) pair with
    CURVE in each phase (``--curve``; ``referee`` and ``raw`` are then the plain
    runs); the targets are judged on the plain referee, as before CURVE.
    """

    config: RefereeBenchConfig
    referee: LoadResult
    raw: LoadResult
    store: str
    paced: tuple[LoadResult, LoadResult] | None = None
    curve: tuple[LoadResult, LoadResult] | None = None
    paced_curve: tuple[LoadResult, LoadResult] | None = None

    @property
    def results(self) -> tuple[LoadResult, ...]:
        """Every measurement, in the order it ran (the order of the table)."""
        return tuple(result for _, result in self.measured)

    @property
    def measured(self) -> list[tuple[str, LoadResult]]:
        """Every measurement with its row label, in the order it ran."""
        rows: list[tuple[str, LoadResult]] = []
        for suffix, plain, curve in (
            ("", (self.referee, self.raw), self.curve),
            (" paced", self.paced, self.paced_curve),
        ):
            if plain is None:
                continue
            if curve is None:
                rows += [(f"referee{suffix}", plain[0]), (f"raw{suffix}", plain[1])]
                continue
            rows += [
                (f"referee curve{suffix}", curve[0]),
                (f"referee{suffix}", plain[0]),
                (f"raw curve{suffix}", curve[1]),
                (f"raw{suffix}", plain[1]),
            ]
        return rows

    @property
    def latency_pair(self) -> tuple[LoadResult, LoadResult] | None:
        """The (referee, raw) measured at a paced load, on which the p99 target is judged.

        The paced phase's when there is one, the run's own when it was paced; None
        at saturation (every move in flight), where latency is set by the load.
        """
        if self.paced is not None:
            return self.paced
        if self.config.think_ms > 0:
            return self.referee, self.raw
        return None

    @property
    def ratio(self) -> float | None:
        """Referee moves/s over raw moves/s (None if either is missing)."""
        ours, ceiling = self.referee.moves_per_second, self.raw.moves_per_second
        return ours / ceiling if ours and ceiling else None

    @property
    def ratio_met(self) -> bool | None:
        ratio = self.ratio
        return None if ratio is None else ratio >= TARGET_RATIO

    @property
    def p99_met(self) -> bool | None:
        """The p99 target on the paced referee; None if not measured at a paced load."""
        pair = self.latency_pair
        rtt = pair[0].round_trip if pair is not None else None
        return None if rtt is None else rtt.p99_ms < TARGET_P99_MS

    @property
    def ok(self) -> bool:
        """Nothing broke: every server ran, every move was accepted."""
        return not any(result.problems or result.errors for result in self.results)


# ---------------------------------------------------------------- output


def _ms(value: float) -> str:
    return f"{value:.2f}"


def _verdict(met: bool) -> str:
    return "met" if met else "NOT met"


def _delivery_line(result: LoadResult, phase: str) -> str:
    head = f"move -> moved event at the spectator{phase}: "
    d = result.delivery
    if d is None:
        return head + "-"
    return head + (
        f"p50 {_ms(d.p50_ms)} ms, p99 {_ms(d.p99_ms)} ms, max {_ms(d.max_ms)} ms "
        f"({d.count:,} events, {result.events_missing} missing)"
    )


def _games_line(result: LoadResult, phase: str) -> str:
    return (
        f"games{phase}: {result.games_started} started, {result.games_ended} played to the end "
        f"({result.ended_events} ended events seen); {result.other_requests} create/join "
        "requests during the measurement"
    )


def _rate(result: LoadResult) -> str:
    rate = result.moves_per_second
    return f"{rate:,.0f}" if rate is not None else "-"


def format_report(report: RefereeBenchReport) -> str:
    """The report as plain text: a table of every measurement, then the details."""
    config = report.config
    if config.think_ms:
        shape = (
            f"each table sends its next move {config.think_ms:g} ms (on average) after the last "
            "was accepted"
        )
    elif report.paced is not None:
        shape = (
            "every table's next move always in flight, then paced "
            f"({config.paced_think_ms:g} ms think time)"
        )
    else:
        shape = "every table's next move always in flight"
    cap = f", at most {config.moves_per_game} moves per table" if config.moves_per_game else ""
    sync = "FULL (--durable)" if config.durable else "NORMAL"
    fresh = " (a fresh one for the paced phase)" if report.paced is not None else ""
    lines = [
        f"lanqi bench referee: {config.games} {config.variant} games, {shape}, "
        f"{config.seconds:g} s per measurement{cap}",
        f"referee in its own process{fresh}, store synchronous={sync} in {report.store}",
    ]
    if report.curve is not None:
        lines.append(
            "curve: CURVE on every socket (the load's sockets too); referee: the same program"
            " with --insecure (plain ZeroMQ); raw: the do-nothing server, plain"
        )
    lines.append("")
    measured = report.measured
    rows = [["server", "moves", "seconds", "moves/s", "p50 ms", "p90 ms", "p99 ms", "max ms"]]
    for label, result in measured:
        rtt = result.round_trip
        times = (
            [_ms(rtt.p50_ms), _ms(rtt.p90_ms), _ms(rtt.p99_ms), _ms(rtt.max_ms)]
            if rtt is not None
            else ["-"] * 4
        )
        rows.append([label, f"{result.moves:,}", f"{result.seconds:.2f}", _rate(result), *times])
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for n, row in enumerate(rows):
        cells = [
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    lines.append("")
    ref, ratio = report.referee, report.ratio
    lines.append("ratio referee / raw (moves/s): " + (f"{ratio:.2f}" if ratio is not None else "-"))
    lines.extend(_curve_lines(report))
    pair = report.latency_pair
    if pair is not None:
        think = config.think_ms or config.paced_think_ms
        lines.append(
            f"paced: each table waits {think:g} ms on average after a move is accepted "
            f"(0.5-1.5x, tables out of step): {_rate(pair[0])} moves/s offered"
        )
    referees = [(label, r) for label, r in measured if r.server == "referee"]
    for label, result in referees:
        lines.append(_delivery_line(result, _phase(label)))
    for label, result in referees:
        if not label.endswith(" paced"):
            rss = result.peak_rss_mib
            lines.append(f"{label} peak RSS: " + (f"{rss:.1f} MiB" if rss is not None else "-"))
    for label, result in referees:
        lines.append(_games_line(result, _phase(label)))
    for label, result in measured:
        shown = ", ".join(f"{key} x{count}" for key, count in result.errors.items())
        lines.append(f"errors ({label}): {shown or 'none'}")
    for label, result in measured:
        if " curve" in label:
            where = f" ({label})"
        else:
            where = " (paced phase)" if label.endswith(" paced") else ""
        lines.extend(f"problem{where}: {p}" for p in result.problems)
    lines.append("")
    target = f"target referee >= {TARGET_RATIO:g} x raw moves/s: "
    if ratio is None:
        lines.append(target + "not measured")
    elif config.think_ms:
        lines.append(target + f"not judged (a paced load sets the rate; {ratio:.2f} x)")
    else:
        lines.append(target + f"{_verdict(ratio >= TARGET_RATIO)} ({ratio:.2f} x)")
    lines.append(_p99_line(report))
    rate = ref.moves_per_second
    if not config.think_ms and rate:
        floor = config.games / rate * 1000
        judged = (
            "so the saturated p99 is not the one judged: the paced referee's is"
            if report.paced is not None
            else "so the saturated p99 is not judged; --paced-think-ms (or --think-ms) "
            "measures latency at a paced load"
        )
        lines.append(
            f"note: with every move in flight, the mean round trip is games / moves per second "
            f"(Little's law): {config.games} / {rate:,.0f} = {floor:.2f} ms here, {judged}"
        )
    return "\n".join(lines)


def _phase(label: str) -> str:
    """The suffix of a detail line for the measurement ``label`` (``", paced"``...)."""
    parts = []
    if " curve" in label:
        parts.append(" (curve)")
    if label.endswith(" paced"):
        parts.append(", paced")
    return "".join(parts)


def _times(ours: float | None, theirs: float | None) -> str:
    return f"{ours / theirs:.2f} x" if ours and theirs else "-"


def _cost_line(head: str, curve: LoadResult, plain: LoadResult) -> str:
    """CURVE beside plain: moves/s, p50 and p99 round trip and the server's CPU time
    per move, each as a ratio (the CPU time in µs too)."""
    a, b = curve.round_trip, plain.round_trip
    p50 = _times(a.p50_ms, b.p50_ms) if a and b else "-"
    p99 = _times(a.p99_ms, b.p99_ms) if a and b else "-"
    moves = _times(curve.moves_per_second, plain.moves_per_second)
    ours, theirs = curve.cpu_us_per_move, plain.cpu_us_per_move
    cpu = _times(ours, theirs)
    if ours is not None and theirs is not None:
        cpu += f" ({ours:.0f} / {theirs:.0f} µs)"
    return (
        f"{head}: moves/s {moves}, p50 round trip {p50}, p99 round trip {p99}, "
        f"server CPU per move {cpu}"
    )


def _curve_lines(report: RefereeBenchReport) -> list[str]:
    """What CURVE costs: each CURVE run over its plain one, and the referee's ratio to
    the raw ceiling with CURVE."""
    lines: list[str] = []
    for suffix, plain, curve in (
        ("", (report.referee, report.raw), report.curve),
        (" paced", report.paced, report.paced_curve),
    ):
        if plain is None or curve is None:
            continue
        phase = ", paced" if suffix else ""
        for n, server in enumerate(("referee", "raw")):
            head = f"CURVE / plain{phase} ({server} curve{suffix} / {server}{suffix})"
            lines.append(_cost_line(head, curve[n], plain[n]))
        if not suffix:
            ratio = _times(curve[0].moves_per_second, curve[1].moves_per_second)
            lines.append(f"ratio referee curve / raw curve (moves/s): {ratio.removesuffix(' x')}")
    return lines


def _p99_line(report: RefereeBenchReport) -> str:
    """The p99 target's verdict: on the paced referee, the raw server's p99 beside it."""
    target = f"target p99 move round trip < {TARGET_P99_MS:g} ms at {TARGET_GAMES} games: "
    games = report.config.games
    pair = report.latency_pair
    if pair is None:
        rtt = report.referee.round_trip
        seen = f"; saturated p99 {rtt.p99_ms:.2f} ms" if rtt is not None else ""
        return target + f"not judged (no paced load in this run{seen})"
    referee, raw = pair
    rtt = referee.round_trip
    if rtt is None:
        return target + "not measured"
    if games != TARGET_GAMES:
        return target + f"not judged ({games} games in this run; paced p99 {rtt.p99_ms:.2f} ms)"
    raw_rtt = raw.round_trip
    floor = f"{raw_rtt.p99_ms:.2f} ms" if raw_rtt is not None else "-"
    return target + (
        f"{_verdict(rtt.p99_ms < TARGET_P99_MS)} ({rtt.p99_ms:.2f} ms at {_rate(referee)} "
        f"moves/s; raw server at the same pace: {floor})"
    )
