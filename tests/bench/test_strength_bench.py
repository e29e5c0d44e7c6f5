"""The strength benchmark runs and reports; no timing or score assertions."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

from lanqi.bench.strength import (
    MatchReport,
    elo_interval,
    format_report,
    play_game,
    play_match,
    run_strength,
)
from lanqi.bot.base import SeatView as BotState
from lanqi.bot.simple import GreedyGomokuBot, RandomBot

GOMOCUP_FAKE = Path(__file__).parents[1] / "bot" / "engines" / "fakes" / "gomocup_fake.py"


def test_elo_interval_is_symmetric_around_an_even_score() -> None:
    elo, low, high = elo_interval(3, 4, 3)
    assert elo == pytest.approx(0.0, abs=1e-9)
    assert low == pytest.approx(-high) and high > 0


def test_a_sweep_keeps_an_open_interval_not_a_zero_width_one() -> None:
    elo, low, high = elo_interval(10, 0, 0)
    assert elo == high == math.inf and 100 < low < 400
    report = MatchReport("sweep", games=10, wins=10)
    row = format_report([report]).splitlines()[1]
    assert "+inf [+200, +inf]" in row and "+2400" not in row


def test_the_gomoku_ai_against_an_outside_gomocup_brain() -> None:
    reports = run_strength(
        depths=(),
        move_ms=30,
        gomoku_games=2,
        gomoku_engine=f"gomocup:{sys.executable} {GOMOCUP_FAKE} ok",
        quiet=True,
    )
    outside = [r for r in reports if "gomocup_fake.py" in r.name]
    assert len(outside) == 1 and outside[0].games == 2
    assert sum(outside[0].endings.values()) == 2


def test_a_tiny_match_is_counted_and_reported() -> None:
    report = play_match(
        "greedy vs random",
        "gomoku",
        lambda: GreedyGomokuBot(seed=1),
        lambda: RandomBot(seed=2),
        games=2,
    )
    assert report.games == 2
    assert report.wins + report.draws + report.losses == 2
    assert sum(report.endings.values()) == 2
    assert report.ai_moves > 0
    table = format_report([report, MatchReport("empty")])
    assert "greedy vs random" in table and "W-D-L" in table


class _Illegal(RandomBot):
    """Plays one move the rules refuse."""

    def choose_move(self, state: BotState) -> str:
        return "a0a1" if state.variant == "xiangqi" else "z99"


def test_a_game_is_refereed_by_the_session_a_refused_move_loses() -> None:
    result, ending, _, moves = play_game("xiangqi", [RandomBot(seed=3), _Illegal(seed=1)])
    assert result == "1-0" and moves == 1
    assert ending.startswith("illegal_move") or ending.startswith("bad_move")
