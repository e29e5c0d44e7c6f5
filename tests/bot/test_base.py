"""The time budget never reaches past the deadline the runner sets."""

from __future__ import annotations

import time

from lanqi.bot.base import GameState, clock_margin_ms, think_time_ms


def test_budget_stops_at_the_deadline() -> None:
    state = GameState.start("gomoku", per_move_ms=5000)
    assert think_time_ms(state) == 4900
    state.deadline = time.monotonic() + 0.2
    assert think_time_ms(state) <= 200


def test_budget_past_the_deadline_is_the_minimum() -> None:
    state = GameState.start("xiangqi", remaining_ms=(60_000, 60_000), increment_ms=1000)
    state.deadline = time.monotonic() - 1
    assert think_time_ms(state) == 10


def test_margin_is_a_quarter_within_bounds() -> None:
    assert clock_margin_ms(500) == 125
    assert clock_margin_ms(100) == 50
    assert clock_margin_ms(60_000) == 1000
