"""Line patterns for the gomoku AI: shape tables and an incrementally scored board.

Every empty point is judged, for each colour and each of the four line
directions, by the *shape* a stone of that colour would make there: a five, an
open four (two ways to five), a four, an open three (one more stone makes an
open four, broken threes like ``x.xx`` included), a three, twos and ones.  The
shape depends only on the five points on either side, so it is a lookup in a
table of 3**10 windows (empty, own, blocked), one table for "five or more wins"
and one for "exactly five wins" (standard, and Black under renju).

:class:`PatternBoard` keeps, for every point and direction, the window's table
index for both colours and updates it with a few additions per stone, so
:meth:`PatternBoard.play` and :meth:`PatternBoard.undo` only touch the forty
points on the new stone's lines.  From the four shapes it derives the point's
*threat class* (five, open four or double four, four-three, four, double three,
three) and a value used for move ordering and evaluation, and keeps the points
that make fives, fours and threes in sets for the threat searches.

>>> from lanqi.games.gomoku import Board
>>> board = Board()
>>> for text in ["h8", "a1", "i8", "a2", "j8", "a3"]:
...     _ = board.push_text(text)
>>> pb = PatternBoard.from_board(board)
>>> sorted(pb.point_name(p) for p in pb.threats[BLACK][OPEN_FOUR_CLASS])
['g8', 'k8']
>>> pb.shape_at(pb.index(6, 7), BLACK, 0) == OPEN_FOUR
True
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator

from lanqi.games.gomoku import Board, Color, Move, renju

__all__ = [
    "BLACK",
    "CLASS_NAMES",
    "DOUBLE_THREE_CLASS",
    "EMPTY",
    "FIVE",
    "FIVE_CLASS",
    "FOUR",
    "FOUR_CLASS",
    "FOUR_THREE_CLASS",
    "NONE_CLASS",
    "OPEN_FOUR",
    "OPEN_FOUR_CLASS",
    "OPEN_THREE",
    "OPEN_TWO",
    "SHAPE_NAMES",
    "THREE",
    "THREE_CLASS",
    "WHITE",
    "PatternBoard",
    "shape_table",
    "warm_up",
]

EMPTY = -1
BLACK = 0
WHITE = 1
WALL = 3

# Shapes along one line, weakest first: what a stone on the point would make.
NONE, ONE, TWO, OPEN_TWO, THREE, OPEN_THREE, FOUR, OPEN_FOUR, FIVE = range(9)
SHAPE_NAMES = (
    "none",
    "one",
    "two",
    "open two",
    "three",
    "open three",
    "four",
    "open four",
    "five",
)

# Threat classes of a point (all four lines together), weakest first.
(
    NONE_CLASS,
    THREE_CLASS,
    DOUBLE_THREE_CLASS,
    FOUR_CLASS,
    FOUR_THREE_CLASS,
    OPEN_FOUR_CLASS,
    FIVE_CLASS,
) = range(7)
CLASS_NAMES = ("none", "three", "double three", "four", "four-three", "open four", "five")

#: Value of each line shape, for ordering and evaluation.
SHAPE_VALUE = (0, 1, 4, 10, 12, 40, 60, 400, 4000)
#: Extra value of a point by threat class (the combinations win or nearly win).
CLASS_BONUS = (0, 0, 150, 0, 400, 600, 0)

_PAD = 5  # the window reaches five points each side
_WINDOW = (-5, -4, -3, -2, -1, 1, 2, 3, 4, 5)
_POS = {k: i for i, k in enumerate(_WINDOW)}
_POW3 = tuple(3**i for i in range(10))
_OWN, _BLOCKED = 1, 2


# -- the shape tables -----------------------------------------------------------


def _decode(key: int) -> tuple[int, ...]:
    """The 11-point window (offsets -5..5, the centre own) of a table key."""
    cells = [0] * 11
    for i, k in enumerate(_WINDOW):
        cells[k + 5] = key // _POW3[i] % 3
    cells[5] = _OWN
    return tuple(cells)


def _canonical(cells: tuple[int, ...]) -> tuple[int, ...]:
    """Forget what cannot matter: points behind a blocked one, and whether the
    outermost points are empty or blocked (only an own stone there counts,
    making an overline)."""
    out = list(cells)
    for step in (-1, 1):
        blocked = False
        for k in range(1, 6):
            i = 5 + step * k
            if blocked:
                out[i] = _BLOCKED
            elif out[i] == _BLOCKED:
                blocked = True
        end = 5 + step * 5
        if out[end] != _OWN:
            out[end] = _BLOCKED
    return tuple(out)


def _run(cells: tuple[int, ...]) -> int:
    """The length of the own run through the centre."""
    length = 1
    for step in (-1, 1):
        i = 5 + step
        while 0 <= i < 11 and cells[i] == _OWN:
            length += 1
            i += step
    return length


def _with(cells: tuple[int, ...], i: int) -> tuple[int, ...]:
    return (*cells[:i], _OWN, *cells[i + 1 :])


class _ShapeSolver:
    """Classifies windows recursively: a four is one stone from five, an open
    three one stone from an open four, and so on down."""

    def __init__(self, overline_wins: bool) -> None:
        self.overline_wins = overline_wins
        self.memo: dict[tuple[int, ...], int] = {}

    def shape(self, cells: tuple[int, ...]) -> int:
        cells = _canonical(cells)
        found = self.memo.get(cells)
        if found is None:
            found = self._solve(cells)
            self.memo[cells] = found
        return found

    def _solve(self, cells: tuple[int, ...]) -> int:
        run = _run(cells)
        if run == 5 or (run > 5 and self.overline_wins):
            return FIVE
        if run > 5:
            return NONE  # an overline that does not win: this line is dead here
        empties = [i for i in range(1, 10) if cells[i] == 0]
        fives = 0
        for i in empties:
            grown = _with(cells, i)
            length = _run(grown)
            if length == 5 or (length > 5 and self.overline_wins):
                fives += 1
        if fives >= 2:
            return OPEN_FOUR  # a straight four, or two fours on one line
        if fives == 1:
            return FOUR
        best = NONE
        for i in empties:
            below = self.shape(_with(cells, i))
            if below == OPEN_FOUR:
                return OPEN_THREE
            if below == FOUR:
                best = max(best, THREE)
            elif below == OPEN_THREE:
                best = max(best, OPEN_TWO)
            elif below == THREE:
                best = max(best, TWO)
            elif below in (TWO, OPEN_TWO):
                best = max(best, ONE)
        return best


@functools.cache
def shape_table(overline_wins: bool) -> bytes:
    """The shape for every window key (3**10 of them), for one winning rule.

    A key has a base-3 digit per point at offsets -5..-1, 1..5 from the centre
    (in that order, lowest digit first): 0 empty, 1 own stone, 2 blocked (an
    opponent stone or the edge).  Built once per rule on first use.

    >>> table = shape_table(False)
    >>> own = lambda *ks: sum(3 ** _POS[k] for k in ks)
    >>> SHAPE_NAMES[table[own(1, 2, 3)]], SHAPE_NAMES[table[own(1, 2, 3, 4, 5)]]
    ('open four', 'none')
    >>> SHAPE_NAMES[shape_table(True)[own(1, 2, 3, 4, 5)]]
    'five'
    """
    solver = _ShapeSolver(overline_wins)
    return bytes(solver.shape(_decode(key)) for key in range(3**10))


@functools.cache
def overline_table() -> bytes:
    """For every window key: 1 if a stone on the centre makes six or more in a row."""
    return bytes(int(_run(_decode(key)) > 5) for key in range(3**10))


@functools.cache
def _class_tables() -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Threat class and value for each combination of four line shapes
    (index ``s0 + 9*s1 + 81*s2 + 729*s3``)."""
    classes: list[int] = []
    values: list[int] = []
    for combo in range(9**4):
        shapes = [combo // 9**d % 9 for d in range(4)]
        fives = shapes.count(FIVE)
        open_fours = shapes.count(OPEN_FOUR)
        fours = shapes.count(FOUR)
        threes = shapes.count(OPEN_THREE)
        if fives:
            cls = FIVE_CLASS
        elif open_fours or fours >= 2:
            cls = OPEN_FOUR_CLASS
        elif fours and threes:
            cls = FOUR_THREE_CLASS
        elif fours:
            cls = FOUR_CLASS
        elif threes >= 2:
            cls = DOUBLE_THREE_CLASS
        elif threes:
            cls = THREE_CLASS
        else:
            cls = NONE_CLASS
        classes.append(cls)
        values.append(sum(SHAPE_VALUE[s] for s in shapes) + CLASS_BONUS[cls])
    return tuple(classes), tuple(values)


def warm_up() -> None:
    """Build every table now (they are cached for the life of the process)."""
    for overline_wins in (False, True):
        shape_table(overline_wins)
    overline_table()
    _class_tables()


# -- the incremental board ----------------------------------------------------------


class PatternBoard:
    """A padded board with incrementally maintained shapes, threats and values.

    Points are indices into a padded array (``index(x, y)``); colours are 0
    (Black) and 1 (White).  ``threats[color][cls]`` is the set of empty points
    where ``color`` would make a threat of class ``cls`` (only classes
    three and up are kept).  ``total[color]`` is the sum of the point values.
    """

    def __init__(self, size: int, rule: str, seed: int = 0) -> None:
        if rule not in ("freestyle", "standard", "renju"):
            raise ValueError(f"unknown rule {rule!r}")
        self.size = size
        self.rule = rule
        self.stride = stride = size + 2 * _PAD
        cells = stride * stride
        self.offsets = (1, stride, stride + 1, stride - 1)
        self.tables = (
            shape_table(rule == "freestyle"),
            shape_table(rule in ("freestyle", "renju")),
        )
        self.classes, self.values = _class_tables()
        self._overline = overline_table()
        self.cell = [WALL] * cells
        self.points: list[int] = []
        for y in range(size):
            for x in range(size):
                p = self.index(x, y)
                self.cell[p] = EMPTY
                self.points.append(p)
        self.flat = [EMPTY] * (size * size)  # row-major cells for the renju checks
        self.keys = ([0] * (cells * 4), [0] * (cells * 4))
        self.shapes = ([NONE] * (cells * 4), [NONE] * (cells * 4))
        self.combo = ([0] * cells, [0] * cells)
        self.cls = ([NONE_CLASS] * cells, [NONE_CLASS] * cells)
        self.value = ([0] * cells, [0] * cells)
        self.total = [0, 0]
        self.threats: tuple[list[set[int]], list[set[int]]] = (
            [set() for _ in range(7)],
            [set() for _ in range(7)],
        )
        self.near = [0] * cells  # stones within two points (a 5x5 square)
        self.stones = 0
        self.moves: list[int] = []
        rng = random.Random(seed)
        self.zobrist = (
            [rng.getrandbits(64) for _ in range(cells)],
            [rng.getrandbits(64) for _ in range(cells)],
        )
        self.hash = 0
        # Per stone placed (+1) or removed (-1): for each point on its lines, the
        # index step, the key offset (point * 4 + direction), the key changes for
        # the stone's colour (an own stone) and the other (a blocker), and 9**d.
        self._updates = {
            sign: tuple(
                (k * off, k * off * 4 + d, sign * pw, sign * 2 * pw, 9**d)
                for d, off in enumerate(self.offsets)
                for k in _WINDOW
                for pw in (3 ** _POS[-k],)
            )
            for sign in (1, -1)
        }
        self._square = tuple(
            dy * stride + dx for dy in range(-2, 3) for dx in range(-2, 3) if dx or dy
        )
        # The edges block every window that reaches past them.
        for p in self.points:
            for d, off in enumerate(self.offsets):
                key = 0
                for k in _WINDOW:
                    if self.cell[p + k * off] == WALL:
                        key += _BLOCKED * _POW3[_POS[k]]
                self.keys[0][p * 4 + d] = key
                self.keys[1][p * 4 + d] = key
            self._refresh(p)

    @classmethod
    def from_board(cls, board: Board, seed: int = 0) -> PatternBoard:
        """The position of a rules board (its history is not needed)."""
        pb = cls(board.size, board.rule, seed)
        for color in (Color.BLACK, Color.WHITE):
            for move in board.stones(color):
                pb.play(pb.index(move.x, move.y), int(color))
        pb.moves.clear()
        return pb

    # -- coordinates -------------------------------------------------------------

    def index(self, x: int, y: int) -> int:
        return (y + _PAD) * self.stride + x + _PAD

    def xy(self, p: int) -> tuple[int, int]:
        row, col = divmod(p, self.stride)
        return col - _PAD, row - _PAD

    def move(self, p: int) -> Move:
        x, y = self.xy(p)
        return Move(x, y)

    def point_name(self, p: int) -> str:
        return str(self.move(p))

    def on_board(self, p: int) -> bool:
        return 0 <= p < len(self.cell) and self.cell[p] != WALL

    # -- queries -------------------------------------------------------------------

    def shape_at(self, p: int, color: int, direction: int) -> int:
        """The shape ``color`` makes along ``direction`` by playing the empty point ``p``."""
        return self.tables[color][self.keys[color][p * 4 + direction]]

    def fives(self, color: int) -> set[int]:
        """Points where ``color`` makes a winning five."""
        return self.threats[color][FIVE_CLASS]

    def fours(self, color: int) -> Iterator[int]:
        """Points where ``color`` makes a four or better (but not a five)."""
        sets = self.threats[color]
        yield from sets[OPEN_FOUR_CLASS]
        yield from sets[FOUR_THREE_CLASS]
        yield from sets[FOUR_CLASS]

    def threes(self, color: int) -> Iterator[int]:
        """Points where ``color`` makes an open three (and no four)."""
        sets = self.threats[color]
        yield from sets[DOUBLE_THREE_CLASS]
        yield from sets[THREE_CLASS]

    def candidates(self) -> list[int]:
        """Empty points within two of a stone (the centre on an empty board)."""
        if self.stones == 0:
            centre = self.size // 2
            return [self.index(centre, centre)]
        cell, near = self.cell, self.near
        return [p for p in self.points if near[p] and cell[p] == EMPTY]

    def is_forbidden(self, p: int, color: int) -> bool:
        """Renju: would ``color`` (Black) be forbidden to play the empty point ``p``?

        The shapes answer most points at once: a five is never forbidden, an
        overline always is, and a double three or double four needs two lines
        with a three or better, or two fours on one line.  Only those points go
        to the rule book's :func:`lanqi.games.gomoku.renju.forbidden_reason`.
        """
        if self.rule != "renju" or color != BLACK:
            return False
        i = p * 4
        shapes = self.shapes[BLACK][i : i + 4]
        if FIVE in shapes:
            return False
        keys = self.keys[BLACK]
        over = self._overline
        if over[keys[i]] or over[keys[i + 1]] or over[keys[i + 2]] or over[keys[i + 3]]:
            return True
        strong = sum(1 for shape in shapes if shape >= OPEN_THREE)
        if strong < 2 and OPEN_FOUR not in shapes:
            return False
        x, y = self.xy(p)
        return renju.forbidden_reason(self.flat, self.size, x, y) is not None

    # -- making and unmaking moves ----------------------------------------------------

    def play(self, p: int, color: int) -> None:
        """Put a ``color`` stone on the empty point ``p``."""
        self.cell[p] = color
        x, y = self.xy(p)
        self.flat[y * self.size + x] = color
        self.hash ^= self.zobrist[color][p]
        self.stones += 1
        self.moves.append(p)
        for q in self._square:
            self.near[p + q] += 1
        self._forget(p)
        self._spread(p, color, 1)

    def undo(self) -> int:
        """Take back the last stone played; returns its point."""
        p = self.moves.pop()
        color = self.cell[p]
        self.cell[p] = EMPTY
        x, y = self.xy(p)
        self.flat[y * self.size + x] = EMPTY
        self.hash ^= self.zobrist[color][p]
        self.stones -= 1
        for q in self._square:
            self.near[p + q] -= 1
        self._spread(p, color, -1)
        self._refresh(p)
        return p

    def _spread(self, p: int, color: int, sign: int) -> None:
        """Update the windows of the points on the four lines through ``p``.

        Kept flat and local-variable heavy: this is the AI's inner loop.
        """
        other = 1 - color
        own_keys, other_keys = self.keys[color], self.keys[other]
        own_table, other_table = self.tables[color], self.tables[other]
        own_shapes, other_shapes = self.shapes[color], self.shapes[other]
        own_combo, other_combo = self.combo[color], self.combo[other]
        own_cls, other_cls = self.cls[color], self.cls[other]
        own_value, other_value = self.value[color], self.value[other]
        own_sets, other_sets = self.threats[color], self.threats[other]
        classes, values, cell = self.classes, self.values, self.cell
        own_total = other_total = 0
        base = p * 4
        for delta, offset, own_add, other_add, weight in self._updates[sign]:
            i = base + offset
            own_keys[i] += own_add
            other_keys[i] += other_add
            q = p + delta
            if cell[q] != EMPTY:
                continue
            new = own_table[own_keys[i]]
            old = own_shapes[i]
            if new != old:
                own_shapes[i] = new
                combo = own_combo[q] + (new - old) * weight
                own_combo[q] = combo
                cls = classes[combo]
                was = own_cls[q]
                if cls != was:
                    if was:
                        own_sets[was].discard(q)
                    if cls:
                        own_sets[cls].add(q)
                    own_cls[q] = cls
                value = values[combo]
                own_total += value - own_value[q]
                own_value[q] = value
            new = other_table[other_keys[i]]
            old = other_shapes[i]
            if new != old:
                other_shapes[i] = new
                combo = other_combo[q] + (new - old) * weight
                other_combo[q] = combo
                cls = classes[combo]
                was = other_cls[q]
                if cls != was:
                    if was:
                        other_sets[was].discard(q)
                    if cls:
                        other_sets[cls].add(q)
                    other_cls[q] = cls
                value = values[combo]
                other_total += value - other_value[q]
                other_value[q] = value
        self.total[color] += own_total
        self.total[other] += other_total

    def _forget(self, p: int) -> None:
        """Drop the newly occupied point ``p`` from the threats and totals."""
        for color in (0, 1):
            old_cls = self.cls[color][p]
            if old_cls:
                self.threats[color][old_cls].discard(p)
            self.total[color] -= self.value[color][p]
            self.cls[color][p] = NONE_CLASS
            self.value[color][p] = 0

    def _refresh(self, p: int) -> None:
        """Recompute every shape of the (now empty) point ``p`` from its keys."""
        for color in (0, 1):
            keys, table, shapes = self.keys[color], self.tables[color], self.shapes[color]
            combo = 0
            for d in range(4):
                shape = table[keys[p * 4 + d]]
                shapes[p * 4 + d] = shape
                combo += shape * 9**d
            self.combo[color][p] = combo
        self._rescore(p)

    def _rescore(self, p: int) -> None:
        for color in (0, 1):
            combo = self.combo[color][p]
            new_cls = self.classes[combo]
            old_cls = self.cls[color][p]
            if new_cls != old_cls:
                sets = self.threats[color]
                if old_cls:
                    sets[old_cls].discard(p)
                if new_cls:
                    sets[new_cls].add(p)
                self.cls[color][p] = new_cls
            new_value = self.values[combo]
            self.total[color] += new_value - self.value[color][p]
            self.value[color][p] = new_value
