"""The strength benchmark runs and reports; no timing or score assertions."""

from __future__ import annotations

import pytest

from lanqi.bench.strength import MatchReport, elo_interval, format_report, play_match
from lanqi.bot.simple import GreedyGomokuBot, RandomBot


def test_elo_interval_is_symmetric_around_an_even_score() -> None:
    elo, low, high = elo_interval(3, 4, 3)
    assert elo == pytest.approx(0.0, abs=1e-9)
    assert low == pytest.approx(-high) and high > 0


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
