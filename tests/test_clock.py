"""The pure clock: time is passed in, so every case is exact."""

from __future__ import annotations

from typing import Any

import pytest

from lanqi.clock import ClockError, GameClock, LagQuota, LagRules


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


# ---------------------------------------------------------------- lag compensation


@pytest.mark.parametrize(
    ("kind", "times", "figures"),
    [
        ("fischer", {"base_ms": 60_000}, (600, 1_800, 1_800, 4_200)),
        ("fischer", {"base_ms": 180_000, "increment_ms": 2_000}, (1_000, 3_000, 3_000, 7_000)),
        ("fischer", {"base_ms": 15_000}, (300, 900, 900, 2_100)),
        ("per_move", {"per_move_ms": 5_000}, (1_000, 3_000, 3_000, 7_000)),
        ("per_move", {"per_move_ms": 1_000}, (400, 1_200, 1_200, 2_800)),
    ],
)
def test_lag_rules_follow_the_game_time(
    kind: str, times: dict[str, int], figures: tuple[int, int, int, int]
) -> None:
    """gain: 1 % of base + 40 x increment (or 40 x per move), within 300 ms - 1 s;
    cap and start 3 gains, most 7 gains."""
    rules = LagRules.for_time_control(kind, **times)
    assert rules is not None
    assert (rules.gain_ms, rules.cap_ms, rules.start_ms, rules.max_ms) == figures


def test_an_untimed_game_has_no_lag_rules() -> None:
    assert LagRules.for_time_control("none") is None


def test_a_huge_claimed_lag_gets_the_cap_then_the_quota_then_a_gain_a_move() -> None:
    quota = LagQuota(LagRules(gain_ms=600, cap_ms=1_800, start_ms=1_800, max_ms=4_200))
    got = [quota.credit(3_600_000) for _ in range(6)]
    # the first claim gets the cap (the whole start), each later one what one move gained
    assert got == [1_800, 600, 600, 600, 600, 600]
    assert quota.left_ms == 600
    # over n moves a liar never gets more than the start plus n - 1 gains
    assert sum(got) == 1_800 + 5 * 600


def test_the_quota_refills_by_a_gain_a_move_up_to_its_most() -> None:
    quota = LagQuota(LagRules(gain_ms=600, cap_ms=1_800, start_ms=1_800, max_ms=4_200))
    assert quota.credit(0) == 0 and quota.left_ms == 2_400
    for _ in range(10):
        quota.credit(0)
    assert quota.left_ms == 4_200  # never more than the most
    # a saved-up quota still gives at most the cap to one move
    assert quota.credit(10_000) == 1_800 and quota.left_ms == 4_200 - 1_800 + 600


def test_an_honest_lag_below_the_gain_is_always_given_back_in_full() -> None:
    quota = LagQuota(LagRules(gain_ms=600, cap_ms=1_800, start_ms=1_800, max_ms=4_200))
    assert [quota.credit(lag) for lag in [300.4, 450, 599, 250] * 10] == [300, 450, 599, 250] * 10


def test_a_negative_lag_gets_nothing_and_the_quota_still_gains() -> None:
    quota = LagQuota(LagRules(gain_ms=600, cap_ms=1_800, start_ms=1_800, max_ms=4_200))
    assert quota.credit(-500) == 0 and quota.left_ms == 2_400


def test_a_credit_gives_back_no_more_than_the_clock_ran_this_turn() -> None:
    clock = GameClock("fischer", base_ms=10_000, increment_ms=1_000)
    clock.start(0, now=0.0)
    assert clock.running_for(400.0) == 400.0
    assert clock.press(0, now=400.0, credit_ms=300) == 10_000 - 100 + 1_000
    assert clock.press(1, now=500.0, credit_ms=5_000) == 10_000 + 1_000  # 100 ran, 100 back
    assert clock.running_for(500.0) == 0.0
