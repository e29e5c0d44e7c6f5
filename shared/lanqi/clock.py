"""Game clocks as pure logic: the caller passes the time in, nothing reads a clock.

Times are in milliseconds (floats, from any monotonic source).

- ``fischer``: each side starts with ``base_ms`` and gains ``increment_ms`` after
  each of its moves.
- ``per_move``: each move must be made within ``per_move_ms``; nothing carries over.

- ``none``: untimed; nobody ever flags.

Time odds: ``seat_base_ms``, ``seat_increment_ms`` (``fischer``) and
``seat_per_move_ms`` (``per_move``) give each seat its own value instead, as two
numbers (seat 0, seat 1); empty means both seats use the common one.

First moves (``first_move_ms`` > 0, any kind): a side's clock does not run before
its first move.  When its first turn comes (:meth:`GameClock.begin_turn` with
``first_move``), its *first-move window* opens instead; the first move costs it
nothing (the increment is added as after every move), and a side that lets the
window run out (:meth:`GameClock.missed_first_move`) has its game aborted by the
referee.  With ``first_move_ms`` 0 the clock of the side to move runs from the start.

>>> clock = GameClock("fischer", base_ms=60_000, increment_ms=2_000)
>>> clock.start(seat=0, now=0.0)
>>> clock.press(seat=0, now=5_000.0)
57000.0
>>> clock.remaining(1, now=6_000.0)
59000.0
>>> clock.flag_deadline()
65000.0
>>> late = GameClock("fischer", base_ms=60_000, first_move_ms=20_000)
>>> late.begin_turn(0, now=0.0, first_move=True)
>>> late.running, late.waiting, late.window_left(now=5_000.0)
(None, 0, 15000.0)
>>> late.press(seat=0, now=5_000.0, first_move_next=True)  # not charged
60000.0
>>> late.waiting, late.window_deadline()
(1, 25000.0)
>>> late.missed_first_move(now=25_000.0)
1
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "CLOCK_KINDS",
    "MIN_FIRST_MOVE_MS",
    "ClockError",
    "ClockState",
    "GameClock",
    "awaits_first_move",
]

CLOCK_KINDS = ("none", "fischer", "per_move")
#: the shortest first-move window (a smaller one is a mistake, such as seconds for ms)
MIN_FIRST_MOVE_MS = 1_000


def awaits_first_move(ply: int) -> bool:
    """Whether the side to move at ``ply`` has yet to make its first move: each
    side's first move is one of the first two plies of the game."""
    return ply < 2


class ClockError(ValueError):
    """A time control that makes no sense."""


@dataclass(frozen=True, slots=True)
class ClockState:
    """What to persist or publish: time left per seat and whose clock runs (and
    the first-move window's time left while one runs)."""

    remaining_ms: tuple[float, float]
    running: int | None
    first_move_left_ms: float | None = None


class GameClock:
    """Two clocks, at most one running."""

    def __init__(
        self,
        kind: str = "none",
        *,
        base_ms: int = 0,
        increment_ms: int = 0,
        per_move_ms: int = 0,
        seat_base_ms: Sequence[int] = (),
        seat_increment_ms: Sequence[int] = (),
        seat_per_move_ms: Sequence[int] = (),
        first_move_ms: int = 0,
    ) -> None:
        if kind not in CLOCK_KINDS:
            raise ClockError(f"time control kind must be one of {', '.join(CLOCK_KINDS)}")
        if kind == "fischer" and base_ms <= 0:
            raise ClockError("a fischer time control needs base_ms > 0")
        if kind == "per_move" and per_move_ms <= 0:
            raise ClockError("a per_move time control needs per_move_ms > 0")
        if min(base_ms, increment_ms, per_move_ms) < 0:
            raise ClockError("times cannot be negative")
        if first_move_ms < 0 or 0 < first_move_ms < MIN_FIRST_MOVE_MS:
            raise ClockError(
                f"first_move_ms must be 0 (off) or at least {MIN_FIRST_MOVE_MS} (milliseconds)"
            )
        _check_odds("seat_base_ms", seat_base_ms, kind, "fischer", least=1)
        _check_odds("seat_increment_ms", seat_increment_ms, kind, "fischer", least=0)
        _check_odds("seat_per_move_ms", seat_per_move_ms, kind, "per_move", least=1)
        self.kind = kind
        self.base_ms = base_ms
        self.increment_ms = increment_ms
        self.per_move_ms = per_move_ms
        #: each seat's increment (fischer) and time per move (per_move)
        self.increments_ms = _per_seat(seat_increment_ms, increment_ms)
        self.per_moves_ms = _per_seat(seat_per_move_ms, per_move_ms)
        if kind == "per_move":
            self._remaining = [float(t) for t in self.per_moves_ms]
        else:
            self._remaining = [float(t) for t in _per_seat(seat_base_ms, base_ms)]
        self._running: int | None = None
        self._since = 0.0
        self.first_move_ms = first_move_ms
        #: the seat whose first-move window runs, the window's time left at
        #: ``_window_since``, and that time
        self._waiting: int | None = None
        self._window_left = 0.0
        self._window_since = 0.0

    @property
    def timed(self) -> bool:
        return self.kind != "none"

    @property
    def running(self) -> int | None:
        """The seat whose clock runs, or None."""
        return self._running

    @property
    def waiting(self) -> int | None:
        """The seat whose first-move window runs (its clock does not), or None."""
        return self._waiting

    def start(self, seat: int, now: float) -> None:
        """Start ``seat``'s clock (the other one stops, charged up to ``now``)."""
        self.stop(now)
        self._running = seat
        self._since = now

    def begin_turn(self, seat: int, now: float, *, first_move: bool) -> None:
        """``seat`` is to move from ``now``: its clock starts, or, for its
        ``first_move`` in a game with a first-move window, the window opens."""
        if first_move and self.first_move_ms:
            self.stop(now)
            self._waiting = seat
            self._window_left = float(self.first_move_ms)
            self._window_since = now
        else:
            self.start(seat, now)

    def stop(self, now: float) -> None:
        """Stop the running clock, charging the time it ran (and close a window)."""
        self._waiting = None
        if self._running is not None:
            self._remaining[self._running] -= max(0.0, now - self._since)
            self._running = None

    def window_left(self, now: float) -> float | None:
        """Time left in the running first-move window at ``now`` (may be negative), or None."""
        if self._waiting is None:
            return None
        return self._window_left - max(0.0, now - self._window_since)

    def window_deadline(self) -> float | None:
        """When the running first-move window closes, or None."""
        if self._waiting is None:
            return None
        return self._window_since + self._window_left

    def missed_first_move(self, now: float) -> int | None:
        """The seat whose first-move window ran out by ``now``, if any."""
        left = self.window_left(now)
        return self._waiting if left is not None and left <= 0 else None

    def remaining(self, seat: int, now: float) -> float:
        """Time left for ``seat`` at ``now`` (may be negative once flagged)."""
        left = self._remaining[seat]
        if self._running == seat:
            left -= max(0.0, now - self._since)
        return left

    def flagged(self, now: float) -> int | None:
        """The seat whose time ran out, if any."""
        if not self.timed or self._running is None:
            return None
        return self._running if self.remaining(self._running, now) <= 0 else None

    def flag_deadline(self) -> float | None:
        """When the running side will flag, or None."""
        if not self.timed or self._running is None:
            return None
        return self._since + self._remaining[self._running]

    def press(self, seat: int, now: float, *, first_move_next: bool = False) -> float:
        """``seat`` has moved at ``now``: charge it (nothing in its first-move
        window), add its increment, and begin the other's turn (its first move if
        ``first_move_next``, see :meth:`begin_turn`).

        Returns the mover's time left.  The caller checks :meth:`flagged` and
        :meth:`missed_first_move` first: a move after either is not accepted.
        """
        self.stop(now)
        if self.kind == "fischer":
            self._remaining[seat] += self.increments_ms[seat]
        elif self.kind == "per_move":
            self._remaining[seat] = float(self.per_moves_ms[seat])
        self.begin_turn(1 - seat, now, first_move=first_move_next)
        return self._remaining[seat]

    def state(self, now: float) -> ClockState:
        return ClockState(
            (self.remaining(0, now), self.remaining(1, now)),
            self._running,
            self.window_left(now),
        )

    def restore(
        self,
        remaining_ms: tuple[float, float],
        running: int | None,
        now: float,
        *,
        waiting: int | None = None,
        window_left_ms: float = 0.0,
    ) -> None:
        """Set the clocks as recorded (e.g. after a restart): ``running`` resumes at
        ``now``, or ``waiting``'s first-move window with ``window_left_ms`` left."""
        self._remaining = [float(remaining_ms[0]), float(remaining_ms[1])]
        self._running = running
        self._since = now
        self._waiting = waiting if running is None else None
        self._window_left = float(window_left_ms)
        self._window_since = now


def _per_seat(values: Sequence[int], common: int) -> tuple[int, int]:
    return (values[0], values[1]) if values else (common, common)


def _check_odds(name: str, values: Sequence[int], kind: str, wanted: str, *, least: int) -> None:
    if not values:
        return
    if kind != wanted or len(values) != 2 or min(values) < least:
        bound = "> 0" if least else ">= 0"
        raise ClockError(f"time odds ({name}) need a {wanted} clock and two times {bound}")
