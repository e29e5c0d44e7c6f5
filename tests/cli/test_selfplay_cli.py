"""``lanqi selfplay`` as a real process: the games it prints are the games it writes,
and the files under ``--out DIR`` read back (PGN, the gomoku record format)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from lanqi.games.gomoku.record import read_records
from lanqi.games.xiangqi.pgn import read_pgns

REPO = Path(__file__).resolve().parents[2]
SOURCE_PATH = os.pathsep.join(str(REPO / part) for part in ("shared", "services", "frontends"))
SUMMARY = re.compile(r"^(xiangqi|gomoku) game (\d+): (\S+) \((.+)\) after (\d+) plies, \d+ ms$")


def selfplay(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=SOURCE_PATH)
    return subprocess.run(
        [sys.executable, "-m", "lanqi.cli.main", "selfplay", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )


def test_selfplay_writes_games_that_read_back(tmp_path: Path) -> None:
    out = tmp_path / "games"
    done = selfplay("--games", "3", "--seed", "7", "--max-plies", "400", "--out", str(out))
    assert done.returncode == 0, done.stderr
    summaries = [m.groups() for m in map(SUMMARY.match, done.stdout.splitlines()) if m]
    assert [(v, int(n)) for v, n, *_ in summaries] == [
        ("xiangqi", 1),
        ("xiangqi", 2),
        ("xiangqi", 3),
        ("gomoku", 1),
        ("gomoku", 2),
        ("gomoku", 3),
    ]
    printed = {(v, int(n)): (result, int(plies)) for v, n, result, _, plies in summaries}
    for variant, path in (("xiangqi", "selfplay-xiangqi.pgn"), ("gomoku", "selfplay-gomoku.txt")):
        assert f"wrote 3 {variant} game(s) to {out / path}" in done.stdout

    games = read_pgns((out / "selfplay-xiangqi.pgn").read_text(encoding="utf-8"))
    assert len(games) == 3
    for number, game in enumerate(games, 1):
        assert game.headers["Event"] == "lanqi selfplay" and game.headers["Round"] == str(number)
        result, plies = printed[("xiangqi", number)]
        assert (game.result, game.board.ply) == (result, plies)
        if result != "*":  # a game that ended by a rule ends so when read back
            outcome = game.board.outcome()
            assert outcome is not None and outcome.result() == result

    records = read_records((out / "selfplay-gomoku.txt").read_text(encoding="utf-8"))
    assert len(records) == 3
    for number, (headers, board) in enumerate(records, 1):
        assert headers["Round"] == str(number)
        result, plies = printed[("gomoku", number)]
        assert board.ply == plies
        ended = board.outcome()
        assert (ended.result() if ended else "*") == result


def test_selfplay_is_repeatable_with_a_seed(tmp_path: Path) -> None:
    def run(folder: str) -> tuple[str, str]:
        out = tmp_path / folder
        done = selfplay("--variant", "gomoku", "--games", "2", "--seed", "11", "--out", str(out))
        assert done.returncode == 0, done.stderr
        return (out / "selfplay-gomoku.txt").read_text(encoding="utf-8"), done.stdout

    first, second = run("a"), run("b")
    assert first[0] == second[0]


def test_selfplay_refuses_bad_counts() -> None:
    done = selfplay("--games", "0")
    assert done.returncode == 2
    assert done.stderr.strip().startswith("lanqi selfplay:") and len(done.stderr.splitlines()) == 1
