"""Renju forbidden points: the moves Black may not play.

Under the renju rule Black (the first player) may not make an *overline* (six or
more in a row), a *double-four* (two fours at once) or a *double-three* (two open
threes at once).  A move that makes an exact five is never forbidden: the five
wins even if the same stone also makes a forbidden shape.  White has no
restrictions.

The definitions, for the Black stone just placed at ``m``:

* **five**: exactly five Black stones in a row through ``m``.
* **four**: a line through ``m`` where one more Black stone, on an empty point,
  makes an exact five that contains ``m``.  A *straight four* (``.xxxx.``, two
  ways to five with the same four stones) counts as one four; two different
  fives on one line (``x.xxx.x``, ``xxx.x.xxx``, ``xx.xx.xx``) count as two.
* **three** (an *open* or *true* three): a line through ``m`` with no four in it,
  where one more Black stone makes a straight four containing ``m`` *without at
  the same time making a five* (on any line), on a point that is *not itself
  forbidden* (judged by these same rules, recursively).  A three that can only
  become a blocked four, or only a "straight four" whose ends would make
  overlines, or only by a stone that also makes a five, or only by playing on a
  forbidden point, is a *false three* and does not count.  (A stone that makes a
  five is never forbidden to *play*; it just does not make the row a three.)

The functions here work on a bare row-major list of cells (``-1`` empty, ``0``
Black, ``1`` White: the values of :class:`lanqi.games.gomoku.Color`), so that
:class:`lanqi.games.gomoku.Board` can use them on its own storage.  From a board,
use :meth:`lanqi.games.gomoku.Board.forbidden_reason` and
:meth:`lanqi.games.gomoku.Board.forbidden_moves`.

>>> size = 15
>>> cells = [EMPTY] * (size * size)
>>> for x, y in [(5, 7), (6, 7), (7, 5), (7, 6)]:  # f8 g8 and h6 h7
...     cells[y * size + x] = BLACK
>>> forbidden_reason(cells, size, 7, 7)  # h8 makes two open threes
<Forbidden.DOUBLE_THREE: 'double-three'>
>>> forbidden_reason(cells, size, 4, 7) is None  # e8 makes only one
True
"""

from __future__ import annotations

import enum
from collections.abc import MutableSequence

__all__ = ["BLACK", "EMPTY", "WHITE", "Forbidden", "forbidden_reason"]

EMPTY = -1
BLACK = 0
WHITE = 1

#: The four line directions: horizontal, vertical, diagonal, anti-diagonal.
DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (0, 1), (1, 1), (1, -1))


class Forbidden(enum.Enum):
    """Why a point is forbidden for Black under renju."""

    OVERLINE = "overline"
    DOUBLE_FOUR = "double-four"
    DOUBLE_THREE = "double-three"


def forbidden_reason(cells: MutableSequence[int], size: int, x: int, y: int) -> Forbidden | None:
    """Why a Black stone on the empty point (x, y) would be forbidden, or ``None``.

    ``cells`` is row-major (index ``y * size + x``, ``y`` counted from the bottom)
    with ``-1`` for empty, ``0`` Black and ``1`` White.  It is changed while the
    shapes are examined and restored before returning.  Raises ``ValueError`` if
    the point is not empty.
    """
    index = y * size + x
    if cells[index] != EMPTY:
        raise ValueError(f"point ({x}, {y}) is not empty")
    shapes = _Shapes(cells, size)
    if not shapes.may_be_forbidden(x, y):
        return None
    cells[index] = BLACK
    try:
        return shapes.classify(x, y)
    finally:
        cells[index] = EMPTY


class _Shapes:
    """Black's shapes on a cell list; every method looks along one line at a time."""

    __slots__ = ("cells", "size")

    def __init__(self, cells: MutableSequence[int], size: int) -> None:
        self.cells = cells
        self.size = size

    def black_run(self, x: int, y: int, dx: int, dy: int) -> int:
        """How many Black stones follow (x, y) in direction (dx, dy), not counting it."""
        cells, size = self.cells, self.size
        count = 0
        x += dx
        y += dy
        while 0 <= x < size and 0 <= y < size and cells[y * size + x] == BLACK:
            count += 1
            x += dx
            y += dy
        return count

    def may_be_forbidden(self, x: int, y: int) -> bool:
        """A cheap filter: can a Black stone at (x, y) possibly be forbidden?

        An overline or a double-four on one line needs at least four other Black
        stones within five points on that line; two threes or fours on two lines
        need at least two on each.
        """
        cells, size = self.cells, self.size
        busy = 0
        for dx, dy in DIRECTIONS:
            count = 0
            for k in (-5, -4, -3, -2, -1, 1, 2, 3, 4, 5):
                px, py = x + k * dx, y + k * dy
                if 0 <= px < size and 0 <= py < size and cells[py * size + px] == BLACK:
                    count += 1
            if count >= 4:
                return True
            if count >= 2:
                busy += 1
        return busy >= 2

    def five_points(self, x: int, y: int, dx: int, dy: int) -> list[int]:
        """Offsets k of the empty points (x + k*dx, y + k*dy) that would make an
        exact five containing the Black stone at (x, y)."""
        cells, size = self.cells, self.size
        points: list[int] = []
        for k in (-4, -3, -2, -1, 1, 2, 3, 4):
            px, py = x + k * dx, y + k * dy
            if not (0 <= px < size and 0 <= py < size) or cells[py * size + px] != EMPTY:
                continue
            ahead = self.black_run(px, py, dx, dy)
            behind = self.black_run(px, py, -dx, -dy)
            # The run would span offsets -behind..ahead from p; (x, y) sits at -k.
            if 1 + ahead + behind == 5 and -behind <= -k <= ahead:
                points.append(k)
        return points

    def count_fours(self, x: int, y: int, dx: int, dy: int) -> int:
        points = self.five_points(x, y, dx, dy)
        if len(points) == 2 and abs(points[0] - points[1]) == 5:
            return 1  # a straight four: both ends of the same four stones
        return len(points)

    def is_straight_four(self, x: int, y: int, dx: int, dy: int) -> bool:
        points = self.five_points(x, y, dx, dy)
        return len(points) == 2 and abs(points[0] - points[1]) == 5

    def is_three(self, x: int, y: int, dx: int, dy: int) -> bool:
        """Is there a true three through the Black stone at (x, y) along (dx, dy)?

        Only asked of a line without a four.  A straight four containing (x, y)
        spans four points, so the stone that makes it is within three points.
        """
        cells, size = self.cells, self.size
        for k in (-3, -2, -1, 1, 2, 3):
            qx, qy = x + k * dx, y + k * dy
            if not (0 <= qx < size and 0 <= qy < size):
                continue
            q = qy * size + qx
            if cells[q] != EMPTY:
                continue
            cells[q] = BLACK
            try:
                if self.is_straight_four(x, y, dx, dy) and self.makes_true_straight_four(qx, qy):
                    return True
            finally:
                cells[q] = EMPTY
        return False

    def makes_true_straight_four(self, x: int, y: int) -> bool:
        """May the Black stone just placed at (x, y), which made a straight four,
        count as turning a three into one?  Only if it makes no five (RIF: "without
        at the same time making a five") and is not itself a forbidden point."""
        if not self.may_be_forbidden(x, y):
            return True  # a five, too, needs four more stones within five points
        runs = self.runs(x, y)
        return 5 not in runs and self.forbidden_shape(x, y, runs) is None

    def runs(self, x: int, y: int) -> list[int]:
        """The length of the Black run through (x, y) along each direction."""
        return [
            1 + self.black_run(x, y, dx, dy) + self.black_run(x, y, -dx, -dy)
            for dx, dy in DIRECTIONS
        ]

    def classify(self, x: int, y: int) -> Forbidden | None:
        """The forbidden shape made by the Black stone already placed at (x, y)."""
        runs = self.runs(x, y)
        if 5 in runs:
            return None  # an exact five wins, whatever else the stone makes
        return self.forbidden_shape(x, y, runs)

    def forbidden_shape(self, x: int, y: int, runs: list[int]) -> Forbidden | None:
        """The overline, double-four or double-three made by the Black stone at (x, y),
        which makes no five; ``runs`` are its :meth:`runs`."""
        if max(runs) >= 6:
            return Forbidden.OVERLINE
        fours = [self.count_fours(x, y, dx, dy) for dx, dy in DIRECTIONS]
        if sum(fours) >= 2:
            return Forbidden.DOUBLE_FOUR
        threes = 0
        for (dx, dy), four in zip(DIRECTIONS, fours, strict=True):
            if four == 0 and self.is_three(x, y, dx, dy):
                threes += 1
                if threes >= 2:
                    return Forbidden.DOUBLE_THREE
        return None
