"""First-move windows through a real ``lanqi referee`` process (issue 13, item 8).

A side's clock does not run before its first move; it must make that move within the
time control's ``first_move_ms``, else the game ends without a result
(``no_first_move``).  Time passing is proven by events, never by sleeping: the
referee runs with a short ``--disconnect-after``, so a seat that sends nothing is
shown disconnected (a ``presence`` event) after that much of the referee's own time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lanqi.client.referee import GameView
from lanqi.protocol import Snapshot, TimeControl

Factory = Callable[..., Any]

#: a seat that sends nothing for 0.3 s is shown disconnected: proof that time passed
QUIET = ("--disconnect-after", "0.3")


def fischer(first_move_ms: int) -> TimeControl:
    return TimeControl(
        kind="fischer", base_ms=60_000, increment_ms=1_000, first_move_ms=first_move_ms
    )


def wait_away(view: GameView, seat: int) -> None:
    """Until the referee has shown ``seat`` disconnected (its silence ran 0.3 s)."""
    assert view.wait_for(lambda v: not v.connected[seat], 5000), f"seat {seat} never went quiet"


def after_move(table: Any) -> Snapshot:
    """The game as the referee has it right after the table's last move."""
    snapshot: Snapshot = table.sync()
    assert snapshot.ply == table.ply
    return snapshot


def quiet_table(referee_factory: Factory, new_table: Factory, first_move_ms: int) -> Any:
    """A xiangqi game on a referee that shows silent seats quickly, Red joined last:
    Red's silence (which the referee shows) runs from the moment the game started."""
    process = referee_factory(*QUIET)
    table = new_table("xiangqi", process=process, time_control=fischer(first_move_ms), join=False)
    for seat in (1, 0):
        table.client.join(table.game_id, seat=seat, token=table.tokens[seat])
    assert table.view.wait_for(lambda v: v.status == "active", 5000), "the game never started"
    return table


def test_no_clock_runs_before_each_sides_first_move(
    referee_factory: Factory, new_table: Factory
) -> None:
    table = quiet_table(referee_factory, new_table, 20_000)
    start = table.sync()
    assert start.status == "active" and start.to_move == 0
    assert (start.clock.running, start.clock.remaining_ms) == (None, [60_000, 60_000])
    assert start.clock.first_move_left_ms is not None and start.clock.first_move_left_ms <= 20_000
    wait_away(table.view, 0)  # Red waited (0.3 s at least) before its first move ...
    table.play("h2e2")
    red = after_move(table).clock
    # ... and was charged nothing: its full time, plus the increment of every move;
    # Black's window runs, no clock does
    assert (red.remaining_ms, red.running) == ([61_000, 60_000], None)
    assert red.first_move_left_ms is not None and 0 < red.first_move_left_ms <= 20_000
    wait_away(table.view, 0)  # Red is silent again: Black has thought 0.3 s at least
    table.play("h9g7")
    black = after_move(table).clock
    assert (black.remaining_ms[1], black.running, black.first_move_left_ms) == (61_000, 0, None)
    # From Black's first move on, Red's clock runs as usual.
    wait_away(table.view, 1)
    assert table.sync().clock.remaining_ms[0] < 61_000
    table.client.resign(table.game_id, table.tokens[0])
    # each first move arrived with the full time left (the records' %clk)
    assert table.published_result().clocks == [60_000, 60_000]


def test_red_never_moves_the_game_is_aborted_at_its_window(
    referee_factory: Factory, new_table: Factory
) -> None:
    process = referee_factory(*QUIET)
    table = new_table("xiangqi", process=process, time_control=fischer(1_000), casual=False)
    wait_away(table.view, 0)  # a silent seat's window runs on, as its clock would
    end = table.assert_ended("*", "no_first_move", None)  # also on `results`, no winner
    assert end.moves == [] and end.clock.remaining_ms == [60_000, 60_000]


def test_blacks_window_opens_with_reds_first_move(new_table: Factory) -> None:
    table = new_table("gomoku", time_control=TimeControl(first_move_ms=1_500))  # untimed too
    table.play("h8")
    opened = after_move(table).clock
    assert opened.running is None and opened.first_move_left_ms is not None
    end = table.assert_ended("*", "no_first_move", None)
    assert end.moves == ["h8"]


def test_the_window_survives_a_restart_of_the_referee(
    referee_factory: Factory, new_table: Factory
) -> None:
    process = referee_factory()
    kept = new_table("xiangqi", process=process, time_control=fischer(30_000))
    kept.play("h2e2")  # Black's window runs
    lapsing = new_table("xiangqi", process=process, time_control=fischer(3_000))
    lapsing.play("h2e2")
    process.restart(kill=True)
    for table in (kept, lapsing):
        after = table.sync()  # the old clients reconnect
        assert (after.status, after.moves, after.to_move) == ("active", ["h2e2"], 1)
        assert after.clock.running is None and after.clock.first_move_left_ms is not None
    # Black's first move after the restart is still free ...
    kept.play("h9g7")
    black = after_move(kept).clock
    assert (black.remaining_ms[1], black.running, black.first_move_left_ms) == (61_000, 0, None)
    # ... and a window nobody uses still ends its game, on the restarted referee's timer.
    lapsing.assert_ended("*", "no_first_move", None)


def test_with_first_move_ms_0_the_clock_starts_at_the_join(
    referee_factory: Factory, new_table: Factory
) -> None:
    """Tournaments and ``lanqi match`` (engine testing, cutechess timing)."""
    table = quiet_table(referee_factory, new_table, 0)
    start = table.sync()
    assert (start.clock.running, start.clock.first_move_left_ms) == (0, None)
    wait_away(table.view, 0)
    table.play("h2e2")
    red = after_move(table).clock
    assert red.remaining_ms[0] <= 61_000 - 300  # charged for the wait, then the increment
    assert (red.running, red.first_move_left_ms) == (1, None)
