"""A match at fixed nodes plays the same moves run after run (issue 25): each seat
searches once per ply, so nothing but the positions reaches the engines."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from lanqi.games.xiangqi.pgn import read_pgns
from lanqi.match.runner import MatchSummary

Runner = Callable[[list[str]], tuple[MatchSummary, list[str]]]
DATA = Path(__file__).parent / "data"


@pytest.mark.slow
def test_fixed_nodes_give_the_same_moves_run_after_run(
    fsf: str, tmp_path: Path, run_match: Runner
) -> None:
    openings = tmp_path / "openings.fen"
    lines = DATA.joinpath("openings10.fen").read_text(encoding="utf-8").splitlines()
    openings.write_text("\n".join(lines[:4]) + "\n", encoding="utf-8")  # a comment, 3 FENs
    engine = [f"cmd={fsf}", "proto=uci", "nodes=1000", "option.Threads=1", "option.Hash=16"]
    moves: list[list[list[str]]] = []
    for run in range(2):
        pgn = tmp_path / f"run{run}.pgn"
        summary, _ = run_match(
            [
                "-engine", "name=A", *engine, "-engine", "name=B", *engine,
                "-games", "2", "-rounds", "3", "-maxmoves", "50",
                "-openings", f"file={openings}", "-pgnout", str(pgn),
            ]
        )  # fmt: skip
        games = read_pgns(pgn.read_text(encoding="utf-8"))
        assert len(games) == 6 == len(summary.games)
        moves.append([[str(m) for m in game.board.move_stack] for game in games])
    assert all(len(game) > 20 for game in moves[0])
    assert moves[0] == moves[1]
