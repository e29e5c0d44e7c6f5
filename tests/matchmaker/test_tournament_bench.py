"""``lanqi bench tournament`` run tiny (4 players): the report's structure and counts,
never how fast anything was."""

from __future__ import annotations

import os
import re
from collections import Counter

import pytest

from lanqi.bench.tournament import (
    CpuSample,
    TournamentBenchConfig,
    TournamentBenchReport,
    cpu_seconds,
    format_report,
)
from lanqi.cli.main import main


def test_tiny_run_through_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["bench", "tournament", "--players", "4", "--variant", "gomoku", "--timeout", "120"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert lines[0] == (
        "lanqi bench tournament: double round robin of 4 random gomoku bots "
        "(12 games, 6 rounds), bots in 1 process(es)"
    )
    assert lines[1].startswith("server: lanqi serve (matchmaker + referee) in its own process")
    assert lines[3].split() == ["games", "moves", "seconds", "games/min", "moves/s", "moves/game"]
    games, moves, seconds, per_minute, per_second, per_game = lines[4].split()
    assert games == "12"
    assert int(moves.replace(",", "")) >= 12 * 9  # a gomoku win takes at least 9 plies
    assert float(seconds) > 0 and float(per_minute) > 0
    assert float(per_second.replace(",", "")) > 0 and int(per_game) >= 9
    text = captured.out
    assert "CPU (user + system) over the run:" in text
    assert re.search(r"^  services \(server\) +[\d.]+ s +\d+% +[\d.]+ cores$", text, re.M)
    assert re.search(r"^  bots +[\d.]+ s +\d+% +[\d.]+ cores$", text, re.M)
    share = re.search(r"^share of CPU in the services: (\d+)%, in the bots: (\d+)%$", text, re.M)
    assert share is not None and abs(int(share[1]) + int(share[2]) - 100) <= 1
    ends = re.search(r"^terminations: (.+)$", text, re.M)
    assert ends is not None
    assert sum(int(part.rsplit(" ", 1)[1]) for part in ends[1].split(", ")) == 12
    assert "rounds: 6/6" in lines and "problems: none" in lines
    assert re.search(r"^leaders: \S+ [\d.]+/6, ", text, re.M)
    # progress goes to stderr, one line per round
    assert "  started: double round robin, 6 rounds, 12 games" in captured.err
    assert "  round 6/6 paired; " in captured.err and "  finished: " in captured.err


def test_cpu_seconds_of_a_live_and_a_missing_process() -> None:
    mine = cpu_seconds(os.getpid())
    assert mine is not None and mine > 0
    assert cpu_seconds(2**22 + 12345) is None  # above the default pid_max


def test_report_of_a_run_that_broke() -> None:
    report = TournamentBenchReport(
        TournamentBenchConfig(players=16),
        games=100,
        moves=30_000,
        seconds=60.0,
        rounds=13,
        cpu=CpuSample(server_s=20.0, bots_s=60.0),
        terminations=Counter(checkmate=60, move_limit=40),
        problems=["not finished after 60 s: round 13, 100 results"],
    )
    assert not report.ok
    assert report.games_per_minute == 100.0 and report.moves_per_second == 500.0
    assert report.server_share == 0.25
    text = format_report(report)
    assert "(240 games, 30 rounds)" in text
    assert "share of CPU in the services: 25%, in the bots: 75%" in text
    assert "terminations: checkmate 60, move_limit 40" in text
    assert "rounds: 13/30" in text
    assert "problem: not finished after 60 s" in text and "problems: none" not in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--players", "1"], "--players must be from 2 to 64"),
        (["--players", "4", "--bot-processes", "5"], "--bot-processes must be from 1"),
        (["--timeout", "0"], "--timeout must be above 0"),
    ],
)
def test_bad_options(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "tournament", *argv]) == 2
    assert capsys.readouterr().err.startswith(f"lanqi bench tournament: {message}")


def test_single_round_robin_counts() -> None:
    config = TournamentBenchConfig(players=5, single=True)
    assert (config.format, config.expected_games, config.expected_rounds) == (
        "round_robin",
        10,
        5,
    )
    double = TournamentBenchConfig(players=16)
    assert (double.format, double.expected_games, double.expected_rounds) == (
        "double_round_robin",
        240,
        30,
    )
