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

Lag compensation: a move is charged the time its player thought, not the time the
network took.  The referee works out a move's lag (see :mod:`lanqi.session`) and
credits it back through the seat's :class:`LagQuota`, whose :class:`LagRules` come
from the time control: each move may get back at most ``cap_ms`` and at most what
the quota holds; the quota starts at ``start_ms``, gains ``gain_ms`` after every
move of the seat (less what that move was credited) and never holds more than
``max_ms``.  So a client that claims a huge lag gets the cap once and then
``gain_ms`` a move: never more than that over the game.

>>> rules = LagRules.for_time_control("fischer", base_ms=60_000, increment_ms=0)
>>> rules
LagRules(gain_ms=600, cap_ms=1800, start_ms=1800, max_ms=4200)
>>> quota = LagQuota(rules)
>>> quota.credit(300), quota.left_ms   # 300 ms of lag back; 1800 - 300 + 600
(300, 2100)
>>> quota.credit(60_000), quota.left_ms  # a huge claim gets the cap
(1800, 900)
>>> quota.credit(60_000), quota.left_ms  # and then what the quota holds
(900, 600)
>>> lagged = GameClock("fischer", base_ms=60_000)
>>> lagged.start(seat=0, now=0.0)
>>> lagged.press(seat=0, now=500.0, credit_ms=300)  # charged 200 ms
59800.0
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
    "LagQuota",
    "LagRules",
    "awaits_first_move",
]

CLOCK_KINDS = ("none", "fischer", "per_move")
#: lag compensation: the moves a game is taken to last when its quota is sized
LAG_GAME_MOVES = 40
#: ... the quota's gain per move is this share of that game time ...
LAG_GAIN_SHARE = 0.01
#: ... and never less nor more than these (ms)
LAG_GAIN_MIN_MS = 300
LAG_GAIN_MAX_MS = 1_000
#: one move's credit at most, and the quota at the start and at most, in gains
LAG_CAP_GAINS = 3
LAG_START_GAINS = 3
LAG_MAX_GAINS = 7
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

    def running_for(self, now: float) -> float:
        """How long the running clock has run this turn at ``now`` (0 if none runs)."""
        return max(0.0, now - self._since) if self._running is not None else 0.0

    def press(
        self, seat: int, now: float, *, first_move_next: bool = False, credit_ms: float = 0.0
    ) -> float:
        """``seat`` has moved at ``now``: charge it (nothing in its first-move
        window) less ``credit_ms`` (its lag given back, never more than its clock
        ran this turn), add its increment, and begin the other's turn (its first
        move if ``first_move_next``, see :meth:`begin_turn`).

        Returns the mover's time left.  The caller checks :meth:`flagged` and
        :meth:`missed_first_move` first: a move after either is not accepted.
        """
        credit = min(max(0.0, credit_ms), self.running_for(now)) if self._running == seat else 0.0
        self.stop(now)
        self._remaining[seat] += credit
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


@dataclass(frozen=True, slots=True)
class LagRules:
    """A seat's lag compensation figures (ms): see the module.

    ``gain_ms``: what the quota gains after each move (1 % of the game time
    ``base + 40 x increment``, or ``40 x per_move``, within 300 ms - 1 s);
    ``cap_ms``: the most one move gets back; ``start_ms``/``max_ms``: the quota at
    the start and at most (3, 3 and 7 gains)."""

    gain_ms: int
    cap_ms: int
    start_ms: int
    max_ms: int

    @classmethod
    def for_time_control(
        cls, kind: str, *, base_ms: int = 0, increment_ms: int = 0, per_move_ms: int = 0
    ) -> LagRules | None:
        """The figures for one seat's clock (None untimed: nothing is charged)."""
        if kind == "fischer":
            game_ms = base_ms + LAG_GAME_MOVES * increment_ms
        elif kind == "per_move":
            game_ms = LAG_GAME_MOVES * per_move_ms
        else:
            return None
        gain = round(min(LAG_GAIN_MAX_MS, max(LAG_GAIN_MIN_MS, game_ms * LAG_GAIN_SHARE)))
        return cls(gain, LAG_CAP_GAINS * gain, LAG_START_GAINS * gain, LAG_MAX_GAINS * gain)


class LagQuota:
    """One seat's lag quota (ms): what its moves may still get back (see the module)."""

    def __init__(self, rules: LagRules) -> None:
        self.rules = rules
        self.left_ms = rules.start_ms

    def allowance(self) -> int:
        """The most the next move may get back."""
        return max(0, min(self.rules.cap_ms, self.left_ms))

    def credit(self, lag_ms: float) -> int:
        """A move with ``lag_ms`` of lag is made: what it gets back (whole ms)."""
        credit = round(min(max(0.0, lag_ms), self.allowance()))
        self.settle(credit)
        return credit

    def settle(self, credit_ms: int) -> None:
        """A move was made and got ``credit_ms`` back (a move replayed from the log,
        or one with nothing to credit: 0): the quota pays it and gains."""
        self.left_ms = min(self.rules.max_ms, self.left_ms - credit_ms + self.rules.gain_ms)
