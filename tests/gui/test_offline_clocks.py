"""The clocks of a game on this computer (issue 19, item 8): as in lobby games no
clock runs before each side's first move, and none runs while the leave question is
open.  The clocks are read at a later time than now: a clock that stands still shows
the same time at any moment, so nothing waits on the wall clock."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

pygame = pytest.importorskip("pygame")

if TYPE_CHECKING:
    from tests.gui.conftest import Driver

FIVE_MINUTES = 300_000


def standing_still(scene: object) -> bool:
    """Neither clock runs: an hour from now both show what they show now."""
    session = scene.session  # type: ignore[attr-defined]
    model = session.model
    now = time.monotonic()
    later = [model.clock.left_ms(seat, now + 3600) for seat in (0, 1)]
    return model.clock.running is None and later == [model.clock.left_ms(s, now) for s in (0, 1)]


@pytest.mark.parametrize("variant", ["xiangqi", "gomoku"])
def test_no_clock_runs_before_each_sides_first_move(
    offline: Callable[..., Driver], variant: str
) -> None:
    driver = offline(variant, time_control="5+0")
    scene = driver.scene
    clock = scene.model.clock
    assert clock.timed and clock.left_ms(0) == clock.left_ms(1) == FIVE_MINUTES
    assert standing_still(scene), "no clock before the first move"
    scene.session.play("h2e2" if variant == "xiangqi" else "h8")
    driver.frames()
    assert standing_still(scene), "the second side's clock waits for its first move"
    assert scene.model.clock.left_ms(0) == FIVE_MINUTES  # nothing charged
    scene.session.play("h9g7" if variant == "xiangqi" else "h9")
    driver.frames()
    assert scene.model.clock.running == 0, "from the third move on the clocks run"


def test_the_clock_stops_while_the_leave_question_is_open(
    offline: Callable[..., Driver],
) -> None:
    driver = offline("xiangqi", time_control="5+0")
    scene = driver.scene
    for move in ("h2e2", "h9g7"):
        scene.session.play(move)
    driver.frames()
    assert scene.model.clock.running == 0
    driver.key(pygame.K_ESCAPE)  # leave: the question opens
    assert scene.dialog is not None
    assert standing_still(scene), "the question stops the clock"
    left = scene.model.clock.left_ms(0)
    driver.key(pygame.K_n)  # keep playing: the clock runs on from where it stood
    assert scene.dialog is None
    assert scene.model.clock.running == 0
    # from where it stood (the microseconds between reading and restarting it aside)
    assert left - 1000 < scene.model.clock.left_ms(0, scene.model.clock.at) <= left
