"""``lanqi bench referee`` with a tiny load: report structure and accepted moves, no timing.

These runs start real processes (the referee and the raw server), as the benchmark
does, but check only counts and the shape of the report: how fast anything was is
never asserted.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from lanqi.bench.referee import (
    TARGET_P99_MS,
    TARGET_RATIO,
    Latency,
    LoadResult,
    RefereeBenchConfig,
    RefereeBenchReport,
    format_report,
    make_scripts,
    run_referee_bench,
)
from lanqi.cli.main import main
from lanqi.games.registry import create_game

P99_TARGET = f"target p99 move round trip < {TARGET_P99_MS:g} ms at 64 games: "


@pytest.mark.parametrize("variant", ["xiangqi", "gomoku"])
def test_scripts_are_legal_games_played_to_their_end(variant: str) -> None:
    scripts = make_scripts(variant, 3, seed=7)
    assert len(scripts) == 3
    for script in scripts:
        game = create_game(variant)
        assert script.first_seat == game.seat_to_move
        for ply, text in enumerate(script.moves):
            assert game.outcome() is None
            assert script.seat(ply) == game.seat_to_move
            game.push(game.parse_move(text))
        outcome = game.outcome()
        assert outcome is not None and outcome.termination.value == script.termination
    assert make_scripts(variant, 3, seed=7) == scripts  # the seed makes them repeatable


@pytest.mark.parametrize(
    ("variant", "think_ms", "paced_think_ms"),
    [("xiangqi", 0.0, 0.0), ("gomoku", 1.0, 20.0)],  # a paced run has no paced phase
)
def test_tiny_run(variant: str, think_ms: float, paced_think_ms: float) -> None:
    config = RefereeBenchConfig(
        games=2,
        moves_per_game=20,
        seconds=30.0,
        variant=variant,
        think_ms=think_ms,
        paced_think_ms=paced_think_ms,
    )
    progress: list[str] = []
    report = run_referee_bench(config, progress.append)

    assert report.paced is None
    assert not any("paced" in line for line in progress)
    referee, raw = report.referee, report.raw
    assert referee.problems == () and raw.problems == ()
    assert referee.errors == {} and raw.errors == {}
    assert report.ok
    for result in (referee, raw):
        assert result.moves == 40  # 2 tables x 20 moves, every one accepted
        assert result.round_trip is not None and result.round_trip.count == 40
        assert result.seconds > 0 and result.moves_per_second is not None
        assert result.games_started == 2 and result.games_ended == 0
        assert result.other_requests == 0
    assert referee.delivery is not None and referee.delivery.count == 40
    assert referee.events_missing == 0
    assert raw.delivery is None
    assert referee.peak_rss_mib is not None and referee.peak_rss_mib > 0
    assert report.ratio is not None and report.ratio > 0
    assert any(line.startswith(f"8 random {variant} games computed") for line in progress)

    text = format_report(report)
    lines = text.splitlines()
    assert lines[0].startswith(f"lanqi bench referee: 2 {variant} games, ")
    assert "at most 20 moves per table" in lines[0]
    assert lines[1].startswith("referee in its own process, store synchronous=NORMAL in ")
    assert lines[3].split() == [
        "server",
        "moves",
        "seconds",
        "moves/s",
        "p50",
        "ms",
        "p90",
        "ms",
        "p99",
        "ms",
        "max",
        "ms",
    ]
    assert set(lines[4]) == {"-", " "}
    assert [row.split()[:2] for row in lines[5:7]] == [["referee", "40"], ["raw", "40"]]
    assert lines[7] == ""
    assert "referee paced" not in text and "raw paced" not in text
    assert "ratio referee / raw (moves/s): " in text
    assert "move -> moved event at the spectator: p50 " in text
    assert "(40 events, 0 missing)" in text
    assert "referee peak RSS: " in text and " MiB" in text
    assert "games: 2 started, 0 played to the end" in text
    assert "errors (referee): none" in text and "errors (raw): none" in text
    assert "problem:" not in text
    if think_ms:
        assert report.latency_pair == (referee, raw)
        assert "paced: each table waits 1 ms on average after a move is accepted" in text
        assert P99_TARGET + "not judged (2 games in this run; paced p99 " in text
        assert "target referee >= 0.5 x raw moves/s: not judged (a paced load" in text
        assert "Little's law" not in text
    else:
        assert report.latency_pair is None and report.p99_met is None
        assert "paced: " not in text
        assert P99_TARGET + "not judged (no paced load in this run; saturated p99 " in text
        assert "Little's law" in text and "--paced-think-ms" in text


def test_tiny_run_with_paced_phase() -> None:
    config = RefereeBenchConfig(
        games=2, moves_per_game=10, seconds=30.0, think_ms=0.0, paced_think_ms=1.0
    )
    progress: list[str] = []
    report = run_referee_bench(config, progress.append)

    assert report.paced is not None
    paced_referee, paced_raw = report.paced
    assert report.latency_pair == report.paced
    assert (paced_referee.server, paced_raw.server) == ("referee", "raw")
    assert report.ok
    for result in report.results:
        assert result.problems == () and result.errors == {}
        assert result.moves == 20  # 2 tables x 10 moves, every one accepted
        assert result.round_trip is not None and result.round_trip.count == 20
        assert result.games_started == 2
    assert paced_referee.delivery is not None and paced_referee.delivery.count == 20
    assert paced_referee.events_missing == 0
    assert paced_raw.delivery is None
    assert "referee (paced 1 ms): 2 games, 30 s" in progress
    assert "raw (paced 1 ms): 2 games, 30 s" in progress

    text = format_report(report)
    lines = text.splitlines()
    assert "every table's next move always in flight, then paced (1 ms think time)" in lines[0]
    assert lines[1].startswith("referee in its own process (a fresh one for the paced phase), ")
    assert [row.split()[:2] for row in lines[5:9]] == [
        ["referee", "20"],
        ["raw", "20"],
        ["referee", "paced"],
        ["raw", "paced"],
    ]
    assert lines[7].split()[2] == lines[8].split()[2] == "20"  # the paced moves
    assert "paced: each table waits 1 ms on average after a move is accepted" in text
    assert "move -> moved event at the spectator, paced: p50 " in text
    assert "(20 events, 0 missing)" in text
    assert "errors (referee paced): none" in text and "errors (raw paced): none" in text
    assert "problem" not in text
    assert P99_TARGET + "not judged (2 games in this run; paced p99 " in text
    assert "the paced referee's is" in text  # the Little's law note


def test_tiny_run_with_curve() -> None:
    """``curve``: the referee and the raw server, each with CURVE and plain, in each phase.

    A CURVE server accepts no plain client and a plain one no CURVE client, so every
    move accepted in a curve row proves the load's sockets spoke CURVE to it."""
    config = RefereeBenchConfig(
        games=2, moves_per_game=10, seconds=30.0, paced_think_ms=1.0, curve=True
    )
    progress: list[str] = []
    report = run_referee_bench(config, progress.append)

    assert report.curve is not None and report.paced_curve is not None
    assert report.ok
    assert len(report.results) == 8
    for result in report.results:
        assert result.problems == () and result.errors == {}
        assert result.moves == 20  # 2 tables x 10 moves, every one accepted
        assert result.round_trip is not None and result.round_trip.count == 20
        assert result.cpu_seconds is not None and result.cpu_seconds >= 0  # from /proc
    for referee, raw in (report.curve, report.paced_curve):
        assert (referee.server, raw.server) == ("referee", "raw")
        assert referee.delivery is not None and referee.delivery.count == 20
        assert referee.events_missing == 0
        assert raw.delivery is None
    for label in ("referee curve", "raw curve"):
        assert f"{label}: 2 games, 30 s" in progress
        assert f"{label} (paced 1 ms): 2 games, 30 s" in progress

    lines = format_report(report).splitlines()
    assert lines[2].startswith("curve: CURVE on every socket")
    rows = lines[6:14]
    assert [row.split()[:2] for row in rows] == [
        ["referee", "curve"],
        ["referee", "20"],
        ["raw", "curve"],
        ["raw", "20"],
        ["referee", "curve"],
        ["referee", "paced"],
        ["raw", "curve"],
        ["raw", "paced"],
    ]
    assert [row.split()[2] for row in (rows[0], rows[2])] == ["20", "20"]
    assert all("paced" in row for row in rows[4:]) and lines[14] == ""
    text = "\n".join(lines)
    for head in (
        "CURVE / plain (referee curve / referee): moves/s ",
        "CURVE / plain (raw curve / raw): moves/s ",
        "CURVE / plain, paced (referee curve paced / referee paced): moves/s ",
        "CURVE / plain, paced (raw curve paced / raw paced): moves/s ",
        "ratio referee curve / raw curve (moves/s): ",
    ):
        assert head in text
    assert ", p50 round trip " in text and ", p99 round trip " in text
    assert text.count(", server CPU per move ") == 4
    assert "move -> moved event at the spectator (curve): p50 " in text
    assert "move -> moved event at the spectator (curve), paced: p50 " in text
    assert "referee curve peak RSS: " in text
    for label in ("referee curve", "raw curve", "referee curve paced", "raw curve paced"):
        assert f"errors ({label}): none" in text
    assert "problem" not in text


def _result(server: str, moves_per_second: float, p99_ms: float) -> LoadResult:
    latency = Latency(1000, p99_ms / 2, p99_ms / 1.5, p99_ms, p99_ms * 2)
    return LoadResult(
        server=server,
        moves=int(moves_per_second),
        seconds=1.0,
        round_trip=latency,
        delivery=latency if server == "referee" else None,
        games_started=64,
        games_ended=3,
        ended_events=3,
        other_requests=9,
        errors={},
        events_missing=0,
        peak_rss_mib=40.0 if server == "referee" else None,
    )


@pytest.mark.parametrize(
    ("referee_rate", "p99_ms", "verdicts"),
    [
        (
            6000.0,
            1.5,
            (
                "met (0.60 x)",
                "met (1.50 ms at 3,000 moves/s; raw server at the same pace: 0.40 ms)",
            ),
        ),
        (
            4000.0,
            2.5,
            (
                "NOT met (0.40 x)",
                "NOT met (2.50 ms at 3,000 moves/s; raw server at the same pace: 0.40 ms)",
            ),
        ),
    ],
)
def test_verdicts(referee_rate: float, p99_ms: float, verdicts: tuple[str, str]) -> None:
    saturated = (_result("referee", referee_rate, 20.0), _result("raw", 10_000.0, 6.0))
    paced = (_result("referee", 3000.0, p99_ms), _result("raw", 3100.0, 0.4))
    report = RefereeBenchReport(RefereeBenchConfig(), *saturated, "/tmp/x (ext4)", paced=paced)
    text = format_report(report)
    assert f"target referee >= {TARGET_RATIO:g} x raw moves/s: {verdicts[0]}" in text
    assert P99_TARGET + verdicts[1] in text  # the paced referee's p99, not the saturated 20 ms
    assert report.p99_met is (p99_ms < TARGET_P99_MS)
    assert report.ok
    assert "paced: each table waits 20 ms on average after a move is accepted" in text
    assert ": 3,000 moves/s offered" in text
    assert "move -> moved event at the spectator, paced: p50 " in text
    assert [line.split()[:2] for line in text.splitlines()[5:9]] == [
        ["referee", f"{int(referee_rate):,}"],
        ["raw", "10,000"],
        ["referee", "paced"],
        ["raw", "paced"],
    ]

    # The same saturated pair without a paced phase: the p99 target is not judged.
    alone = RefereeBenchReport(RefereeBenchConfig(paced_think_ms=0), *saturated, "/tmp/x (ext4)")
    text = format_report(alone)
    assert f"target referee >= {TARGET_RATIO:g} x raw moves/s: {verdicts[0]}" in text
    assert P99_TARGET + "not judged (no paced load in this run; saturated p99 20.00 ms)" in text
    assert alone.p99_met is None
    assert "referee paced" not in text and "paced: " not in text


def test_a_paced_run_judges_its_own_p99() -> None:
    report = RefereeBenchReport(
        RefereeBenchConfig(think_ms=50.0),
        _result("referee", 1200.0, 1.5),
        _result("raw", 1250.0, 0.5),
        "/tmp/x (ext4)",
    )
    assert report.p99_met is True
    text = format_report(report)
    assert (
        P99_TARGET + "met (1.50 ms at 1,200 moves/s; raw server at the same pace: 0.50 ms)" in text
    )
    assert "target referee >= 0.5 x raw moves/s: not judged (a paced load sets the rate" in text


def test_problems_in_the_paced_phase_are_not_ok() -> None:
    saturated = (_result("referee", 6000.0, 20.0), _result("raw", 10_000.0, 6.0))
    refused = replace(_result("referee", 3000.0, 1.0), errors={"move: illegal_move": 1})
    report = RefereeBenchReport(
        RefereeBenchConfig(), *saturated, "?", (refused, _result("raw", 3100.0, 0.4))
    )
    assert not report.ok
    assert "errors (referee paced): move: illegal_move x1" in format_report(report)

    failed = LoadResult("raw", 0, 0.0, None, None, 0, 0, 0, 0, {}, 0, None, ("did not start",))
    report = RefereeBenchReport(
        RefereeBenchConfig(), *saturated, "?", (_result("referee", 3000.0, 1.0), failed)
    )
    assert not report.ok
    text = format_report(report)
    assert "problem (paced phase): did not start" in text
    assert "errors (raw paced): none" in text
    assert P99_TARGET + "met (1.00 ms at 3,000 moves/s; raw server at the same pace: -)" in text


def test_a_server_that_does_not_start_is_a_problem_not_a_crash() -> None:
    failed = LoadResult("raw", 0, 0.0, None, None, 0, 0, 0, 0, {}, 0, None, ("did not start",))
    report = RefereeBenchReport(RefereeBenchConfig(), _result("referee", 1.0, 1.0), failed, "?")
    assert not report.ok and report.ratio is None
    text = format_report(report)
    assert "problem: did not start" in text
    assert "target referee >= 0.5 x raw moves/s: not measured" in text


def test_cli_bench_referee(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["bench", "referee", "--games", "1", "--moves-per-game", "5", "--seconds", "30"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("lanqi bench referee: 1 xiangqi games, ")
    assert "errors (referee): none" in captured.out
    assert "errors (referee paced): none" in captured.out  # the paced phase is on by default
    assert "  referee: 1 games" in captured.err  # progress goes to stderr
    assert "  referee (paced 20 ms): 1 games" in captured.err


def test_cli_bench_referee_curve(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["bench", "referee", "--curve", "--games", "1", "--moves-per-game", "5"]
    assert main([*argv, "--seconds", "30", "--paced-think-ms", "0"]) == 0
    out = capsys.readouterr().out.splitlines()
    table = out[out.index("") + 3 :]
    assert [row.split()[:2] for row in table[:4]] == [
        ["referee", "curve"],
        ["referee", "5"],
        ["raw", "curve"],
        ["raw", "5"],
    ]
    assert table[0].split()[2] == table[2].split()[2] == "5"  # every move accepted
    assert table[4] == ""
    assert any(line.startswith("CURVE / plain (referee curve / referee): ") for line in out)


@pytest.mark.parametrize(
    "argv",
    [
        ["bench", "referee", "--games", "0"],
        ["bench", "referee", "--flood", "--curve"],
        ["bench", "referee", "--moves-per-game", "0"],
        ["bench", "referee", "--seconds", "0"],
        ["bench", "referee", "--think-ms", "-1"],
        ["bench", "referee", "--paced-think-ms", "-1"],
    ],
)
def test_cli_bench_referee_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert capsys.readouterr().err.startswith("lanqi bench referee: ")
