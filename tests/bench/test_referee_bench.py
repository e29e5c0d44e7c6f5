"""``lanqi bench referee`` with a tiny load: report structure and accepted moves, no timing.

These runs start real processes (the referee and the raw server), as the benchmark
does, but check only counts and the shape of the report: how fast anything was is
never asserted.
"""

from __future__ import annotations

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
    ("variant", "think_ms"),
    [("xiangqi", 0.0), ("gomoku", 1.0)],
)
def test_tiny_run(variant: str, think_ms: float) -> None:
    config = RefereeBenchConfig(
        games=2, moves_per_game=20, seconds=30.0, variant=variant, think_ms=think_ms
    )
    progress: list[str] = []
    report = run_referee_bench(config, progress.append)

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
    assert "ratio referee / raw (moves/s): " in text
    assert "move -> moved event at the spectator: p50 " in text
    assert "(40 events, 0 missing)" in text
    assert "referee peak RSS: " in text and " MiB" in text
    assert "games: 2 started, 0 played to the end" in text
    assert "errors (referee): none" in text and "errors (raw): none" in text
    assert "problem:" not in text
    assert "target p99 move round trip < 2 ms at 64 games: not judged (2 games" in text
    if think_ms:
        assert "target referee >= 0.5 x raw moves/s: not judged (a paced load" in text
        assert "Little's law" not in text
    else:
        assert "Little's law" in text


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
        (6000.0, 1.5, ("met (0.60 x)", "met (1.50 ms)")),
        (4000.0, 2.5, ("NOT met (0.40 x)", "NOT met (2.50 ms)")),
    ],
)
def test_verdicts(referee_rate: float, p99_ms: float, verdicts: tuple[str, str]) -> None:
    report = RefereeBenchReport(
        RefereeBenchConfig(),
        _result("referee", referee_rate, p99_ms),
        _result("raw", 10_000.0, 0.5),
        "/tmp/x (ext4)",
    )
    text = format_report(report)
    assert f"target referee >= {TARGET_RATIO:g} x raw moves/s: {verdicts[0]}" in text
    assert f"target p99 move round trip < {TARGET_P99_MS:g} ms at 64 games: {verdicts[1]}" in text
    assert report.ok


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
    assert "  referee: 1 games" in captured.err  # progress goes to stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["bench", "referee", "--games", "0"],
        ["bench", "referee", "--moves-per-game", "0"],
        ["bench", "referee", "--seconds", "0"],
        ["bench", "referee", "--think-ms", "-1"],
    ],
)
def test_cli_bench_referee_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert capsys.readouterr().err.startswith("lanqi bench referee: ")
