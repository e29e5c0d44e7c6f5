"""A crash of the referee while a player thinks: the time used before it is charged,
the time the referee was down is not (docs/protocol.md, "Clocks after a restart").

The referee is a real subprocess on a real SQLite file, killed with SIGKILL while the
side to move thinks and started again on the same data directory.  It records the
running clocks every ``CLOCK_MARK_MS``, so at most that much of the time used before
the kill may be given back.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from lanqi.protocol import TimeControl
from lanqi.referee.service import CLOCK_MARK_MS

Factory = Callable[..., Any]

BASE_MS = 60_000
THINK_MS = 1_500  # how long black thinks before the crash, by the referee's clock
DOWN_S = 1.0  # how long the referee stays down (besides its start-up)
#: the loop records the clocks every CLOCK_MARK_MS when it is not busy; a loaded test
#: machine may delay a turn of it by this much more
SCHEDULING_MS = 150


def test_a_crash_charges_the_thinking_time_before_it_but_not_the_downtime(
    referee_factory: Factory, new_table: Factory
) -> None:
    process = referee_factory()
    fischer = TimeControl(kind="fischer", base_ms=BASE_MS, first_move_ms=0)
    table = new_table("xiangqi", process=process, time_control=fischer)
    sent = time.monotonic()
    table.play("h2e2")  # black's clock starts when the referee takes the move
    answered = time.monotonic()
    while table.sync().clock.remaining_ms[1] > BASE_MS - THINK_MS:  # black thinks
        time.sleep(0.02)
    killed = time.monotonic()
    process.kill()
    time.sleep(DOWN_S)  # the server is down for a while: that time must not be charged
    restarting = time.monotonic()
    process.start()
    ready = time.monotonic()
    asked = time.monotonic()
    snapshot = table.sync()
    got = time.monotonic()

    assert snapshot.clock.running == 1
    left = snapshot.clock.remaining_ms[1]
    ms = 1000.0
    # what black used before the kill, at least and at most, and after the restart
    used_least, used_most = (killed - answered) * ms, (killed - sent) * ms
    since_least, since_most = (asked - ready) * ms, (got - restarting) * ms
    # charged for the time used before the crash (less at most the documented bound)
    given_back = left - (BASE_MS - used_least - since_least)
    assert given_back <= CLOCK_MARK_MS + SCHEDULING_MS, (left, used_least, since_least)
    # and for no more: not the downtime (at least DOWN_S)
    assert left >= BASE_MS - used_most - since_most, (left, used_most, since_most)
    # the restarted clock runs on from there
    later = table.sync().clock.remaining_ms[1]
    assert later <= left
