"""``lanqi bot`` does its set-up before it enters the lobby, off every game's clock."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import ClassVar

from lanqi.bot.base import Bot, SeatView
from lanqi.cli.bot import _self_check

REPO = Path(__file__).resolve().parents[2]
SOURCE_PATH = os.pathsep.join(str(REPO / part) for part in ("shared", "services", "frontends"))


class Recorder(Bot):
    seen: ClassVar[list[SeatView]] = []

    def choose_move(self, state: SeatView) -> str:
        self.seen.append(state)
        return state.legal_moves()[0]


def test_self_check_plays_real_positions_of_every_rule_on_a_clock() -> None:
    Recorder.seen = []
    _self_check(Recorder, ("xiangqi", "gomoku"))
    rules = {s.board.rule for s in Recorder.seen if s.variant == "gomoku"}  # type: ignore[attr-defined]
    assert rules == {"freestyle", "standard", "renju"}
    assert {s.variant for s in Recorder.seen} == {"xiangqi", "gomoku"}
    for state in Recorder.seen:
        assert state.board.ply >= 4, "an opening position needs no search"
        assert state.per_move_ms and state.deadline is not None


def test_the_gomoku_tables_exist_once_a_bot_does() -> None:
    """A fresh process: making the AI (the runner does it before it joins the game,
    the self-check before the lobby) builds every pattern table."""
    code = (
        "from lanqi.bot import gomoku_patterns as g\n"
        "from lanqi.bot.gomoku_ai import GomokuAI\n"
        "tables = (g.shape_table, g.overline_table, g._class_tables)\n"
        "before = [t.cache_info().currsize for t in tables]\n"
        "GomokuAI(level=5)\n"
        "print(before, [t.cache_info().currsize for t in tables])\n"
    )
    env = dict(os.environ, PYTHONPATH=SOURCE_PATH)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert out.stdout.strip() == "[0, 0, 0] [2, 1, 1]"
