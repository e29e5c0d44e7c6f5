"""``lanqi bench match`` produces its figures; no wall-clock assertions."""

from __future__ import annotations

import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lanqi.bench.match import (
    ENGINE,
    MatchBenchConfig,
    format_rows,
    format_summary,
    hand_overs,
    relay_command,
    run_match_bench,
)

needs_engine = pytest.mark.skipif(
    shutil.which(ENGINE) is None, reason="Fairy-Stockfish is not installed"
)


def test_hand_overs_pair_one_engines_bestmove_with_the_others_go() -> None:
    ms = 1_000_000
    lines = [
        f"{0 * ms} A newgame",
        f"{0 * ms} B newgame",
        f"{1 * ms} A go",
        f"{5 * ms} A bestmove",
        f"{8 * ms} B go",  # hand-over 3 ms
        f"{10 * ms} B bestmove",
        f"{11 * ms} A go",  # hand-over 1 ms
        f"{12 * ms} A bestmove",
        f"{20 * ms} A newgame",  # the game ended: the gap is between games
        f"{21 * ms} B newgame",
        f"{40 * ms} A go",
        f"{42 * ms} A bestmove",
        "garbage line",
    ]
    times = hand_overs(list(reversed(lines)))  # order of the files does not matter
    assert times.overhead_ms == pytest.approx([3.0, 1.0])
    assert times.search_ms == pytest.approx([4.0, 2.0, 1.0, 2.0])
    assert times.between_games_ms == pytest.approx([28.0])
    assert times.play_s == pytest.approx(0.041)


@needs_engine
def test_the_relay_passes_lines_both_ways_and_stamps_them(tmp_path: Path) -> None:
    log = tmp_path / "relay.log"
    relay = subprocess.Popen(
        relay_command(ENGINE, log, "A"), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert relay.stdin is not None and relay.stdout is not None
    seen: list[str] = []
    try:
        for line in ("uci", "setoption name UCI_Variant value xiangqi", "ucinewgame"):
            relay.stdin.write(line + "\n")
        relay.stdin.write("position startpos\ngo nodes 100\n")
        relay.stdin.flush()
        for line in relay.stdout:  # the engine's lines come back through the relay
            seen.append(line.split(" ", 1)[0].strip())
            if line.startswith("bestmove"):
                break
        relay.stdin.write("quit\n")
        relay.stdin.flush()
        assert relay.wait(timeout=30) == 0
    finally:
        relay.kill()
        relay.wait()
    assert "uciok" in seen and seen[-1] == "bestmove"
    kinds = [line.split()[1:] for line in log.read_text().splitlines()]
    tag = f"A/{relay.pid}"  # the relay's pid: each engine process is its own
    assert kinds == [[tag, "newgame"], [tag, "position"], [tag, "go"], [tag, "bestmove"]]


def test_the_relay_stamps_a_gomocup_brains_lines(tmp_path: Path) -> None:
    log = tmp_path / "relay.log"
    brain = [sys.executable, "-m", "lanqi.bench.gomoku_brain", "--nodes", "20"]
    relay = subprocess.Popen(
        relay_command(brain, log, "B"), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert relay.stdin is not None and relay.stdout is not None
    try:
        relay.stdin.write("START 15\nINFO timeout_turn 1000\nBEGIN\n")
        relay.stdin.flush()
        answers = [relay.stdout.readline().strip(), relay.stdout.readline().strip()]
        relay.stdin.write("BOARD\n7,7,1\n7,6,2\nDONE\n")
        relay.stdin.flush()
        answers.append(relay.stdout.readline().strip())
        relay.stdin.write("END\n")
        relay.stdin.flush()
        assert relay.wait(timeout=60) == 0
    finally:
        relay.kill()
        relay.wait()
    assert answers[0] == "OK" and answers[1] == "7,7"  # the centre opens
    assert answers[2].count(",") == 1 and answers[2] not in ("7,7", "7,6")
    kinds = [line.split()[2] for line in log.read_text().splitlines()]
    assert kinds == ["newgame", "go", "bestmove", "position", "go", "bestmove"]


@needs_engine
def test_two_games_give_both_runners_figures() -> None:
    lines: list[str] = []
    report = run_match_bench(MatchBenchConfig(games=2, nodes=200), lines.append)
    for figure in (report.direct, report.lanqi):
        assert figure.games == 2 and len(figure.results) == 2
        assert figure.plies > 10
        relay = figure.relay
        # every engine move but each game's first has a hand-over
        assert len(relay.overhead_ms) == figure.plies - 2
        assert len(relay.between_games_ms) == 1
        assert all(x >= 0 for x in relay.overhead_ms + relay.search_ms)
        assert 0 < relay.play_s <= figure.wall_s
        assert figure.games_per_min > 0
    assert report.lanqi.lat_ms and report.direct.rules_s > 0
    assert math.isfinite(report.ratio) and report.ratio > 0
    headers, rows = format_rows(report)
    assert [row[0] for row in rows] == ["direct", "lanqi match"]
    assert all(len(row) == len(headers) for row in rows)
    summary = "\n".join(format_summary(report))
    assert "lanqi/direct games per minute" in summary and "load average" in summary
    assert any(line.startswith("direct: game 2/2") for line in lines)
    assert any(line.startswith("lanqi: Finished game 2") for line in lines)


@needs_engine
def test_two_games_at_once_give_counts_and_no_hand_overs() -> None:
    """At concurrency 2 the games interleave in lanqi's relay log: no hand-overs are
    read from it (for either runner), games, plies and searches are."""
    report = run_match_bench(MatchBenchConfig(games=2, nodes=200, concurrency=2), print)
    for figure in (report.direct, report.lanqi):
        assert figure.games == 2 and figure.plies > 10
        assert figure.relay.overhead_ms == [] and figure.relay.between_games_ms == []
        assert len(figure.relay.search_ms) == figure.plies
    assert report.lanqi.time_losses == 0 and report.direct.time_losses == 0


@pytest.mark.slow
def test_gomoku_games_through_both_runners() -> None:
    config = MatchBenchConfig.for_variant("gomoku", games=2, nodes=20)
    report = run_match_bench(config, print)
    for figure in (report.direct, report.lanqi):
        assert figure.games == 2 and figure.plies > 4
        # every move but the first follows a hand-over or a new game (lanqi's adapter
        # may restart a brain's board within a game: that gap counts as a new game's)
        relay = figure.relay
        assert len(relay.overhead_ms) + len(relay.between_games_ms) == figure.plies - 1
        assert relay.between_games_ms
        assert all(result in ("1-0", "0-1", "1/2-1/2") for result in figure.results)


def test_the_cli_refuses_an_odd_number_of_games() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "lanqi.cli.main", "bench", "match", "--games", "3"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.strip().startswith("lanqi bench match: --games must be an even")
