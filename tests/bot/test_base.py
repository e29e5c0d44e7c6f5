"""The time budget never reaches past the deadline the runner sets."""

from __future__ import annotations

import time
from functools import partial

import pytest

from lanqi.bot.base import SeatView, clock_margin_ms, think_time_ms
from lanqi.bot.runner import GamePlayer
from lanqi.bot.simple import RandomBot
from lanqi.protocol import Assignment, TimeControl


def test_budget_stops_at_the_deadline() -> None:
    state = SeatView.start("gomoku", per_move_ms=5000)
    assert think_time_ms(state) == 4900
    state.deadline = time.monotonic() + 0.2
    assert think_time_ms(state) <= 200


def test_budget_past_the_deadline_is_the_minimum() -> None:
    state = SeatView.start("xiangqi", remaining_ms=(60_000, 60_000), increment_ms=1000)
    state.deadline = time.monotonic() - 1
    assert think_time_ms(state) == 10


def test_margin_is_a_quarter_within_bounds() -> None:
    assert clock_margin_ms(500) == 125
    assert clock_margin_ms(100) == 50
    assert clock_margin_ms(60_000) == 1000


def test_per_move_margin_is_a_half_within_bounds() -> None:
    assert clock_margin_ms(500, per_move=True) == 250
    assert clock_margin_ms(60, per_move=True) == 50
    assert clock_margin_ms(10_000, per_move=True) == 1000


def _player(time_control: TimeControl | None = None) -> GamePlayer:
    assignment = Assignment(
        game_id="g",
        referee="tcp://127.0.0.1:1",
        referee_pub="tcp://127.0.0.1:2",
        seat=0,
        token="t",
        variant="gomoku",
        time_control=time_control or TimeControl(kind="fischer", base_ms=500),
        players=["a", "b"],
    )
    return GamePlayer(RandomBot(), assignment)


def test_runner_deadline_keeps_the_margin_and_learns_its_delays() -> None:
    player = _player()
    seen = player._turn_seen
    sense = player.clock_sense
    fischer = partial(player._deadline, per_move=False)
    assert fischer(500) == seen + 0.375  # a quarter of the clock (Fischer)
    sense.round_trips_ms.extend([20.0, 90.0, 40.0])
    assert fischer(500) == seen + 0.320  # twice the slowest round trip
    sense.overruns_ms.extend([0.0, 30.0])
    assert fischer(500) == seen + 0.290  # plus the worst overrun of the bot
    sense.round_trips_ms.append(400.0)
    assert fischer(500) == seen + 0.250  # but never more than half the clock


def test_runner_keeps_half_of_a_per_move_clock() -> None:
    player = _player(TimeControl(kind="per_move", per_move_ms=500))
    seen = player._turn_seen
    assert player._deadline(500, per_move=True) == seen + 0.250  # no bank pays for a stall


def test_the_old_name_of_the_seat_view_still_imports_with_a_warning() -> None:
    """docs/bots.md promised ``GameState`` to bot authors: for one release it is a
    deprecated alias of :class:`SeatView`."""
    import lanqi.bot.base as sdk

    with pytest.warns(DeprecationWarning, match="now SeatView"):
        old = sdk.GameState
    assert old is sdk.SeatView
    with pytest.raises(AttributeError):
        _ = sdk.NoSuchName  # type: ignore[attr-defined]
