"""The pure clock: time is passed in, so every case is exact."""

from __future__ import annotations

from typing import Any

import pytest

from lanqi.clock import ClockError, GameClock


def test_fischer_increment_and_flag() -> None:
    clock = GameClock("fischer", base_ms=10_000, increment_ms=1_000)
    clock.start(0, now=0.0)
    assert clock.flagged(9_999.0) is None
    assert clock.press(0, now=4_000.0) == 7_000.0
    assert clock.running == 1
    assert clock.remaining(1, now=5_000.0) == 9_000.0
    assert clock.flag_deadline() == 14_000.0
    assert clock.flagged(14_000.0) == 1
    state = clock.state(12_000.0)
    assert state.remaining_ms == (7_000.0, 2_000.0) and state.running == 1


def test_per_move_resets_each_move() -> None:
    clock = GameClock("per_move", per_move_ms=5_000)
    clock.start(0, now=0.0)
    clock.press(0, now=4_900.0)
    assert clock.remaining(0, now=10_000.0) == 5_000.0  # reset for its next move
    assert clock.flagged(9_000.0) is None
    assert clock.flagged(9_900.0) == 1


def test_untimed_never_flags() -> None:
    clock = GameClock()
    clock.start(0, now=0.0)
    assert clock.flagged(1e12) is None and clock.flag_deadline() is None


def test_time_odds_give_each_seat_its_own_start() -> None:
    clock = GameClock("fischer", base_ms=60_000, increment_ms=1_000, seat_base_ms=[60_000, 30_000])
    clock.start(seat=0, now=0.0)
    assert clock.press(seat=0, now=10_000.0) == 51_000.0
    assert clock.remaining(1, now=10_000.0) == 30_000.0
    assert clock.flag_deadline() == 40_000.0


def test_time_odds_give_each_seat_its_own_increment() -> None:
    clock = GameClock(
        "fischer", base_ms=10_000, seat_base_ms=[10_000, 5_000], seat_increment_ms=[100, 50]
    )
    clock.start(seat=0, now=0.0)
    assert clock.press(seat=0, now=1_000.0) == 9_100.0
    assert clock.press(seat=1, now=2_000.0) == 4_050.0
    assert clock.press(seat=0, now=2_500.0) == 8_700.0
    assert clock.flag_deadline() == 2_500.0 + 4_050.0


def test_time_odds_give_each_seat_its_own_time_per_move() -> None:
    clock = GameClock("per_move", per_move_ms=2_000, seat_per_move_ms=[2_000, 500])
    clock.start(seat=0, now=0.0)
    assert clock.remaining(0, now=0.0) == 2_000.0 and clock.remaining(1, now=0.0) == 500.0
    assert clock.press(seat=0, now=1_900.0) == 2_000.0  # reset to its own time
    assert clock.flagged(2_399.0) is None
    assert clock.flagged(2_400.0) == 1
    clock.restore((2_000.0, 500.0), running=1, now=0.0)
    assert clock.press(seat=1, now=100.0) == 500.0


def test_restore_resumes_from_recorded_time() -> None:
    clock = GameClock("fischer", base_ms=60_000)
    clock.restore((30_000.0, 20_000.0), running=1, now=1_000_000.0)
    assert clock.remaining(1, now=1_005_000.0) == 15_000.0
    assert clock.remaining(0, now=1_005_000.0) == 30_000.0


@pytest.mark.parametrize(
    ("kind", "kwargs"),
    [
        ("blitz", {}),
        ("fischer", {"base_ms": 0}),
        ("per_move", {}),
        ("fischer", {"base_ms": 5, "increment_ms": -1}),
        ("fischer", {"base_ms": 5, "seat_base_ms": [5]}),
        ("fischer", {"base_ms": 5, "seat_base_ms": [5, 0]}),
        ("per_move", {"per_move_ms": 5, "seat_base_ms": [5, 6]}),
        ("fischer", {"base_ms": 5, "seat_increment_ms": [5, -1]}),
        ("fischer", {"base_ms": 5, "seat_increment_ms": [5]}),
        ("per_move", {"per_move_ms": 5, "seat_increment_ms": [5, 6]}),
        ("per_move", {"per_move_ms": 5, "seat_per_move_ms": [5, 0]}),
        ("fischer", {"base_ms": 5, "seat_per_move_ms": [5, 6]}),
    ],
)
def test_bad_time_controls_are_refused(kind: str, kwargs: dict[str, Any]) -> None:
    with pytest.raises(ClockError):
        GameClock(kind, **kwargs)
