"""Renju: forbidden points for Black, and how they meet the rest of the rules.

Each position is drawn out: rows are labelled with their number (rows not shown are
empty), ``x`` Black, ``o`` White, and ``*`` the empty point under test.
"""

from __future__ import annotations

import doctest
import itertools
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lanqi.games.base import IllegalMoveError, InvalidPositionError, Outcome, Termination
from lanqi.games.gomoku import SIZES, Board, Color, Forbidden, Move, renju


def setup(diagram: str, turn: str = "b", rule: str = "renju") -> tuple[Board, Move]:
    """The board drawn in ``diagram`` and its ``*`` point."""
    grid = [["."] * 15 for _ in range(15)]
    star = None
    for line in diagram.strip("\n").splitlines():
        label, _, points = line.strip().partition(" ")
        if not label.isdigit():
            continue  # the column letters
        cells = points.split()
        assert len(cells) == 15, line
        y = int(label) - 1
        for x, point in enumerate(cells):
            if point == "*":
                star = Move(x, y)
            grid[y][x] = "." if point == "*" else point
    assert star is not None
    fen = "/".join(
        re.sub(r"\.+", lambda m: str(len(m.group())), "".join(grid[y])) for y in range(14, -1, -1)
    )
    return Board.from_fen(f"{fen} {turn}", rule=rule), star


def changed(diagram: str, **points: str) -> str:
    """``diagram`` with some points redrawn: ``changed(D, g4="o", k11=".")``."""
    lines = diagram.split("\n")
    for name, mark in points.items():
        point = Move.from_text(name)
        number = f"{point.y + 1:2d} "
        (row,) = [i for i, line in enumerate(lines) if line.startswith(number)]
        cells = lines[row][3:].split()
        cells[point.x] = mark
        lines[row] = number + " ".join(cells)
    return "\n".join(lines)


# h8 makes two open threes: f8 g8 h8 and h6 h7 h8.
DOUBLE_THREE = """
 9 . . . . . . . . . . . . . . .
 8 . . . . . x x * . . . . . . .
 7 . . . . . . . x . . . . . . .
 6 . . . . . . . x . . . . . . .
 5 . . . . . . . . . . . . . . .
   a b c d e f g h i j k l m n o
"""

# h8 makes f8 g8 h8 and the split three e5 . g7 h8 (f6 makes it straight).
SPLIT_DOUBLE_THREE = """
 9 . . . . . . . . . . . . . . .
 8 . . . . . x x * . . . . . . .
 7 . . . . . . x . . . . . . . .
 6 . . . . . . . . . . . . . . .
 5 . . . . x . . . . . . . . . .
 4 . . . . . . . . . . . . . . .
   a b c d e f g h i j k l m n o
"""

# h8 makes two fours: e8-h8 and h5-h8.
DOUBLE_FOUR = """
 9 . . . . . . . . . . . . . . .
 8 . . . . x x x * . . . . . . .
 7 . . . . . . . x . . . . . . .
 6 . . . . . . . x . . . . . . .
 5 . . . . . . . x . . . . . . .
 4 . . . . . . . . . . . . . . .
   a b c d e f g h i j k l m n o
"""

# g8 makes two fours on one line: e8 gives d8-h8, i8 gives f8-j8.
DOUBLE_FOUR_ONE_LINE = """
 9 . . . . . . . . . . . . . . .
 8 . . . x . x * x . x . . . . .
 7 . . . . . . . . . . . . . . .
   a b c d e f g h i j k l m n o
"""

# g8 makes two fours on one line: f8 gives c8-g8, h8 gives g8-k8.
DOUBLE_FOUR_XXX_X_XXX = """
 9 . . . . . . . . . . . . . . .
 8 . . x x x . * . x x x . . . .
 7 . . . . . . . . . . . . . . .
   a b c d e f g h i j k l m n o
"""

# f8 makes two fours on one line: d8 gives b8-f8, g8 gives e8-i8.
DOUBLE_FOUR_XX_XX_XX = """
 9 . . . . . . . . . . . . . . .
 8 . x x . x * . x x . . . . . .
 7 . . . . . . . . . . . . . . .
   a b c d e f g h i j k l m n o
"""

# g8 makes six in a row, d8-i8.
OVERLINE = """
 9 . . . . . . . . . . . . . . .
 8 . . . x x x * x x . . . . . .
 7 . . . . . . . . . . . . . . .
   a b c d e f g h i j k l m n o
"""

# h8 makes a four (e8-h8) and a three (h6-h8): allowed, and usually winning.
FOUR_THREE = """
 9 . . . . . . . . . . . . . . .
 8 . . . . x x x * . . . . . . .
 7 . . . . . . . x . . . . . . .
 6 . . . . . . . x . . . . . . .
 5 . . . . . . . . . . . . . . .
   a b c d e f g h i j k l m n o
"""

# h8 makes exactly five along row 8 and seven along column h: the five wins.
FIVE_AND_OVERLINE = """
11 . . . . . . . . . . . . . . .
10 . . . . . . . x . . . . . . .
 9 . . . . . . . x . . . . . . .
 8 . . . x x x x * . . . . . . .
 7 . . . . . . . x . . . . . . .
 6 . . . . . . . x . . . . . . .
 5 . . . . . . . x . . . . . . .
 4 . . . . . . . x . . . . . . .
 3 . . . . . . . . . . . . . . .
   a b c d e f g h i j k l m n o
"""

# h8 makes five along row 8 and fours along column h and the diagonal.
FIVE_AND_DOUBLE_FOUR = """
12 . . . . . . . . . . . . . . .
11 . . . . . . . . . . x . . . .
10 . . . . . . . . . x . . . . .
 9 . . . . . . . . x . . . . . .
 8 . . . x x x x * . . . . . . .
 7 . . . . . . . x . . . . . . .
 6 . . . . . . . x . . . . . . .
 5 . . . . . . . x . . . . . . .
 4 . . . . . . . . . . . . . . .
   a b c d e f g h i j k l m n o
"""

# f8 makes the open three f6 f7 f8 and d8 e8 f8, which is a false three: c8 would
# make c8-f8 whose ends are b8 (overline with a8) and g8, and g8 would make d8-g8
# whose ends are c8 and h8 (overline with i8); neither is a straight four.
FALSE_THREE_OVERLINE = """
 9 . . . . . . . . . . . . . . .
 8 x . . x x * . . x . . . . . .
 7 . . . . . x . . . . . . . . .
 6 . . . . . x . . . . . . . . .
 5 . . . . . . . . . . . . . . .
   a b c d e f g h i j k l m n o
"""

# The same without i8: g8 makes a straight four, so f8 is a double-three.
TRUE_THREE_OVERLINE_CONTROL = """
 9 . . . . . . . . . . . . . . .
 8 x . . x x * . . . . . . . . .
 7 . . . . . x . . . . . . . . .
 6 . . . . . x . . . . . . . . .
 5 . . . . . . . . . . . . . . .
   a b c d e f g h i j k l m n o
"""

# d8 e8 f8 between White stones at b8 and h8 can only become a blocked four.
FALSE_THREE_BLOCKED = """
 9 . . . . . . . . . . . . . . .
 8 . o . x x * . o . . . . . . .
 7 . . . . . x . . . . . . . . .
 6 . . . . . x . . . . . . . . .
 5 . . . . . . . . . . . . . . .
   a b c d e f g h i j k l m n o
"""

# The same without b8: c8 makes the straight four c8-f8.
TRUE_THREE_BLOCKED_CONTROL = """
 9 . . . . . . . . . . . . . . .
 8 . . . x x * . o . . . . . . .
 7 . . . . . x . . . . . . . . .
 6 . . . . . x . . . . . . . . .
 5 . . . . . . . . . . . . . . .
   a b c d e f g h i j k l m n o
"""

# f8 makes the open three f8 f9 f10, and d8 e8 f8.  With b8 White, only g8 turns
# d8 e8 f8 into a straight four, and g8 is itself forbidden: a four (d8-g8) with
# two threes (g5 g6 . g8 and g8 h9 i10).  So d8 e8 f8 is a false three and f8 is
# allowed.
FALSE_THREE_FORBIDDEN_POINT = """
11 . . . . . . . . . . . . . . .
10 . . . . . x . . x . . . . . .
 9 . . . . . x . x . . . . . . .
 8 . o . x x * . . . . . . . . .
 7 . . . . . . . . . . . . . . .
 6 . . . . . . x . . . . . . . .
 5 . . . . . . x . . . . . . . .
 4 . . . . . . . . . . . . . . .
   a b c d e f g h i j k l m n o
"""

# The same without i10: g8 is only a four-three, a legal point, so d8 e8 f8 is a
# true three and f8 is a double-three.
TRUE_THREE_FORBIDDEN_POINT_CONTROL = """
11 . . . . . . . . . . . . . . .
10 . . . . . x . . . . . . . . .
 9 . . . . . x . x . . . . . . .
 8 . o . x x * . . . . . . . . .
 7 . . . . . . . . . . . . . . .
 6 . . . . . . x . . . . . . . .
 5 . . . . . . x . . . . . . . .
 4 . . . . . . . . . . . . . . .
   a b c d e f g h i j k l m n o
"""

# RIF: a three becomes a straight four "without at the same time making a five".  h8 i8 j8
# (g8 is no use: f8 is White) becomes a straight four only at k8, which also makes the five
# k8-k12: a false three.  With h6 h7 h8 that is one three, so h8 is allowed.
FALSE_THREE_BY_FIVE = """
13 . . . . . . . . . . . . . . .
12 . . . . . . . . . . x . . . .
11 . . . . . . . . . . x . . . .
10 . . . . . . . . . . x . . . .
 9 . . . . . . . . . . x . . . .
 8 . . . . . o . * x x . . . . .
 7 . . . . . . . x . . . . . . .
 6 . . . . . . . x . . . . . . .
 5 . . . . . . . . . . . . . . .
   a b c d e f g h i j k l m n o
"""

# The same with k9 k10 only: k8 is a four-three (a legal point) that makes no five, so
# h8 i8 j8 is a true three and h8 a double-three.
TRUE_THREE_BY_FIVE_CONTROL = changed(FALSE_THREE_BY_FIVE, k11=".", k12=".")

# The example of issue 10.  h8 i8 j8 becomes a straight four only at g8, which makes the
# five g4-g8, or at k8, which makes the overline k6-k11: a false three.  h8 h9 h10 is a
# three, so h8 makes one three and is allowed.
ISSUE_10_EXAMPLE = """
12 . . . . . . . . . . . . . . .
11 . . . . . . . . . . x . . . .
10 . . . . . . . x . . x . . . .
 9 . . . . . . . x . . x . . . .
 8 . . . . . . . * x x . . . . .
 7 . . . . . . x . . . x . . . .
 6 . . . . . . x . . . x . . . .
 5 . . . . . . x . . . . . . . .
 4 . . . . . . x . . . . . . . .
 3 . . . . . . . . . . . . . . .
   a b c d e f g h i j k l m n o
"""

# The same with White on g4 g5: g8 is a four-three (g6 g7 g8 and the straight four) and
# makes no five, so h8 i8 j8 is a true three and h8 a double-three.
ISSUE_10_CONTROL = changed(ISSUE_10_EXAMPLE, g4="o", g5="o")

# Without column k, k8 makes the straight four h8-k8 though g8 still makes a five: one good
# way is enough, so h8 i8 j8 is a true three and h8 a double-three.
ISSUE_10_OTHER_END = changed(ISSUE_10_EXAMPLE, k6=".", k7=".", k9=".", k10=".", k11=".")

# The straight-four point is an overline point: k8 would make h8-k8 but also k5-k10 (six),
# so h8 i8 j8 is a false three and h8 (with h6 h7 h8) is allowed.
FALSE_THREE_POINT_OVERLINE = """
11 . . . . . . . . . . . . . . .
10 . . . . . . . . . . x . . . .
 9 . . . . . . . . . . x . . . .
 8 . . . . . o . * x x . . . . .
 7 . . . . . . . x . . x . . . .
 6 . . . . . . . x . . x . . . .
 5 . . . . . . . . . . x . . . .
 4 . . . . . . . . . . . . . . .
   a b c d e f g h i j k l m n o
"""

# The same without k7: k8 makes only the straight four (k5 k6 . k8 k9 k10 is no four), so
# h8 is a double-three.
TRUE_THREE_POINT_OVERLINE_CONTROL = changed(FALSE_THREE_POINT_OVERLINE, k7=".")

# The straight-four point is a double-four point: k8 would make h8-k8 and the four k8-k11
# (k12 open), so h8 i8 j8 is a false three and h8 is allowed.
FALSE_THREE_POINT_DOUBLE_FOUR = """
12 . . . . . . . . . . . . . . .
11 . . . . . . . . . . x . . . .
10 . . . . . . . . . . x . . . .
 9 . . . . . . . . . . x . . . .
 8 . . . . . o . * x x . . . . .
 7 . . . . . . . x . . o . . . .
 6 . . . . . . . x . . . . . . .
 5 . . . . . . . . . . . . . . .
   a b c d e f g h i j k l m n o
"""

# The same without k11: k8 makes only the straight four (k8 k9 k10 against White k7 is not
# even a three), so h8 is a double-three.
TRUE_THREE_POINT_DOUBLE_FOUR_CONTROL = changed(FALSE_THREE_POINT_DOUBLE_FOUR, k11=".")

# h8 makes the four e8-h8 and the threes h6 h7 h8 and f6 g7 h8 (a four-three-three, below)
# but with j10 White and e1-e4 Black, f6 g7 h8 becomes a straight four only at e5 (i9
# would leave f6-i9 against White j10), and e5 makes the five e1-e5, so it is a false three
# and h8 is a plain four-three: allowed.
FOUR_THREE_FALSE_THREE = """
11 . . . . . . . . . . . . . . .
10 . . . . . . . . . o . . . . .
 9 . . . . . . . . . . . . . . .
 8 . . . . x x x * . . . . . . .
 7 . . . . . . x x . . . . . . .
 6 . . . . . x . x . . . . . . .
 5 . . . . . . . . . . . . . . .
 4 . . . . x . . . . . . . . . .
 3 . . . . x . . . . . . . . . .
 2 . . . . x . . . . . . . . . .
 1 . . . . x . . . . . . . . . .
   a b c d e f g h i j k l m n o
"""

# With e3 e4 only, e5 makes the straight four and the three e3 e4 e5 but no five (a legal
# four-three), so f6 g7 h8 is a true three and h8 a four-three-three.
FOUR_THREE_FALSE_THREE_CONTROL = changed(FOUR_THREE_FALSE_THREE, e1=".", e2=".")

# Without e1-e4 and j10, h8 makes the four e8-h8 and two threes, h6 h7 h8 and f6 g7 h8:
# a four-three-three, which is forbidden as a double-three.
FOUR_THREE_THREE = changed(FOUR_THREE_FALSE_THREE, e1=".", e2=".", e3=".", e4=".", j10=".")

# On the edge: a5 b5 c5 could only become the four a5-d5, with no point beyond a5, so it is
# a false three; a5 a6 a7 is a three.  a5 is allowed.
EDGE_FALSE_THREE = """
 8 . . . . . . . . . . . . . . .
 7 x . . . . . . . . . . . . . .
 6 x . . . . . . . . . . . . . .
 5 * x x . . . . . . . . . . . .
 4 . . . . . . . . . . . . . . .
   a b c d e f g h i j k l m n o
"""

# The same one column in: b5 c5 d5 becomes the straight four b5-e5 (a5-d5 would have no
# point beyond a5), so b5 is a double-three.
EDGE_FALSE_THREE_CONTROL = """
 8 . . . . . . . . . . . . . . .
 7 . x . . . . . . . . . . . . .
 6 . x . . . . . . . . . . . . .
 5 . * x x . . . . . . . . . . .
 4 . . . . . . . . . . . . . . .
   a b c d e f g h i j k l m n o
"""

# The far edge (column o, the last on 15x15): m11 n11 o11 is a false three, o9 o10 o11 a
# three.  o11 is allowed.
FAR_EDGE_FALSE_THREE = """
12 . . . . . . . . . . . . . . .
11 . . . . . . . . . . . . x x *
10 . . . . . . . . . . . . . . x
 9 . . . . . . . . . . . . . . x
 8 . . . . . . . . . . . . . . .
   a b c d e f g h i j k l m n o
"""

# The same one column in: n11 is a double-three.
FAR_EDGE_FALSE_THREE_CONTROL = """
12 . . . . . . . . . . . . . . .
11 . . . . . . . . . . . x x * .
10 . . . . . . . . . . . . . x .
 9 . . . . . . . . . . . . . x .
 8 . . . . . . . . . . . . . . .
   a b c d e f g h i j k l m n o
"""

# The five clause inside the recursive check.  k5 makes k5 l6 m7 and i7 j6 k5, whose only
# straight-four point is h8 (l4 would leave the four i7-l4 against White m3).  h8, the point
# of the issue's example, now also makes the straight four h8-k5: a four and one three (h8
# i8 j8 is false by the five at g8 and the overline at k8), a legal four-three.  So i7 j6 k5
# is a true three and k5 is a double-three.  (Counting the false three, h8 would be a
# four-three-three and k5 allowed.)
RECURSIVE_TRUE_THREE = """
12 . . . . . . . . . . . . . . .
11 . . . . . . . . . . x . . . .
10 . . . . . . . x . . x . . . .
 9 . . . . . . . x . . x . . . .
 8 . . . . . . . . x x . . . . .
 7 . . . . . . x . x . x . x . .
 6 . . . . . . x . . x x x . . .
 5 . . . . . . x . . . * . . . .
 4 . . . . . . x . . . . . . . .
 3 . . . . . . . . . . . . o . .
 2 . . . . . . . . . . . . . . .
   a b c d e f g h i j k l m n o
"""

# Black to move; the one empty point, b15, would make the overline a15-f15.
ONLY_FORBIDDEN_LEFT = """
15 x * x x x x o o x x o o x x o
14 o o x x o o x x o o x x o o x
13 x x o o x x o o x x o o x x o
12 o o x x o o x x o o x x o o x
11 x x o o x x o o x x o o x x o
10 o o x x o o x x o o x x o o x
 9 x x o o x x o o x x o o x x o
 8 o o x x o o x x o o x x o o x
 7 x x o o x x o o x x o o x x o
 6 o o x x o o x x o o x x o o x
 5 x x o o x x o o x x o o x x o
 4 o o x x o o x x o o x x o o x
 3 x x o o x x o o x x o o x x o
 2 o o x x o o x x o o x x o o x
 1 x x o o x x o o x x o o x x o
   a b c d e f g h i j k l m n o
"""

FORBIDDEN = [
    (DOUBLE_THREE, Forbidden.DOUBLE_THREE),
    (SPLIT_DOUBLE_THREE, Forbidden.DOUBLE_THREE),
    (DOUBLE_FOUR, Forbidden.DOUBLE_FOUR),
    (DOUBLE_FOUR_ONE_LINE, Forbidden.DOUBLE_FOUR),
    (DOUBLE_FOUR_XXX_X_XXX, Forbidden.DOUBLE_FOUR),
    (DOUBLE_FOUR_XX_XX_XX, Forbidden.DOUBLE_FOUR),
    (OVERLINE, Forbidden.OVERLINE),
    (TRUE_THREE_OVERLINE_CONTROL, Forbidden.DOUBLE_THREE),
    (TRUE_THREE_BLOCKED_CONTROL, Forbidden.DOUBLE_THREE),
    (TRUE_THREE_FORBIDDEN_POINT_CONTROL, Forbidden.DOUBLE_THREE),
    (TRUE_THREE_BY_FIVE_CONTROL, Forbidden.DOUBLE_THREE),
    (ISSUE_10_CONTROL, Forbidden.DOUBLE_THREE),
    (ISSUE_10_OTHER_END, Forbidden.DOUBLE_THREE),
    (TRUE_THREE_POINT_OVERLINE_CONTROL, Forbidden.DOUBLE_THREE),
    (TRUE_THREE_POINT_DOUBLE_FOUR_CONTROL, Forbidden.DOUBLE_THREE),
    (FOUR_THREE_THREE, Forbidden.DOUBLE_THREE),
    (FOUR_THREE_FALSE_THREE_CONTROL, Forbidden.DOUBLE_THREE),
    (EDGE_FALSE_THREE_CONTROL, Forbidden.DOUBLE_THREE),
    (FAR_EDGE_FALSE_THREE_CONTROL, Forbidden.DOUBLE_THREE),
    (RECURSIVE_TRUE_THREE, Forbidden.DOUBLE_THREE),
]
ALLOWED = [
    FOUR_THREE,
    FALSE_THREE_OVERLINE,
    FALSE_THREE_BLOCKED,
    FALSE_THREE_FORBIDDEN_POINT,
    FALSE_THREE_BY_FIVE,
    ISSUE_10_EXAMPLE,
    FALSE_THREE_POINT_OVERLINE,
    FALSE_THREE_POINT_DOUBLE_FOUR,
    FOUR_THREE_FALSE_THREE,
    EDGE_FALSE_THREE,
    FAR_EDGE_FALSE_THREE,
]


@pytest.mark.parametrize(("diagram", "reason"), FORBIDDEN)
def test_forbidden_for_black(diagram: str, reason: Forbidden) -> None:
    board, point = setup(diagram)
    assert board.forbidden_reason(point) is reason
    assert not board.is_legal(point)
    assert point not in board.legal_moves()
    assert point in board.forbidden_moves()
    with pytest.raises(IllegalMoveError, match=f"{point} is forbidden for Black.*{reason.value}"):
        board.parse_move(str(point))
    with pytest.raises(IllegalMoveError, match=reason.value):
        board.push(point)
    assert board.ply == 0
    assert board.stone_at(point.x, point.y) is None


@pytest.mark.parametrize(("diagram", "reason"), FORBIDDEN)
def test_white_may_play_there(diagram: str, reason: Forbidden) -> None:
    board, point = setup(diagram, turn="w")
    assert board.forbidden_reason(point) is None
    assert board.forbidden_moves() == []
    board.push(board.parse_move(str(point)))
    assert board.stone_at(point.x, point.y) is Color.WHITE


@pytest.mark.parametrize(("diagram", "reason"), FORBIDDEN)
@pytest.mark.parametrize("rule", ["freestyle", "standard"])
def test_other_rules_have_no_forbidden_points(diagram: str, reason: Forbidden, rule: str) -> None:
    board, point = setup(diagram, rule=rule)
    assert board.forbidden_reason(point) is None
    assert board.is_legal(point)


@pytest.mark.parametrize("diagram", ALLOWED)
def test_allowed_for_black(diagram: str) -> None:
    board, point = setup(diagram)
    assert board.forbidden_reason(point) is None
    assert point in board.legal_moves()
    assert point not in board.forbidden_moves()
    board.push(board.parse_move(str(point)))
    assert board.stone_at(point.x, point.y) is Color.BLACK
    assert board.outcome() is None


def test_four_three_then_wins() -> None:
    board, point = setup(FOUR_THREE)
    board.push(point)  # h8: four e8-h8, open both ends
    board.push_text("d8")
    board.push_text("i8")
    assert board.outcome() == Outcome(Color.BLACK, Termination.FIVE_IN_A_ROW)


@pytest.mark.parametrize("diagram", [FIVE_AND_OVERLINE, FIVE_AND_DOUBLE_FOUR])
def test_five_overrides_a_forbidden_shape(diagram: str) -> None:
    board, point = setup(diagram)
    assert board.forbidden_reason(point) is None
    board.push(board.parse_move(str(point)))
    assert board.outcome() == Outcome(Color.BLACK, Termination.FIVE_IN_A_ROW)
    line = board.winning_line()
    assert line is not None
    assert [str(m) for m in line] == ["d8", "e8", "f8", "g8", "h8"]


def test_without_the_five_the_same_shape_is_forbidden() -> None:
    board, point = setup(FIVE_AND_OVERLINE.replace(" 8 . . . x", " 8 . . . ."))
    assert board.forbidden_reason(point) is Forbidden.OVERLINE
    board, point = setup(FIVE_AND_DOUBLE_FOUR.replace(" 8 . . . x", " 8 . . . ."))
    assert board.forbidden_reason(point) is Forbidden.DOUBLE_FOUR


def test_white_overline_wins() -> None:
    board, point = setup(OVERLINE.replace("x", "o"), turn="w")
    board.push(point)
    assert board.result() == "0-1"
    line = board.winning_line()
    assert line is not None
    assert len(line) == 6


def test_white_five_wins() -> None:
    board, point = setup(FIVE_AND_OVERLINE.replace("x", "o"), turn="w")
    board.push(point)
    assert board.result() == "0-1"


def test_black_overline_cannot_be_set_up() -> None:
    board, point = setup(OVERLINE, rule="standard")
    board.push(point)
    with pytest.raises(InvalidPositionError, match="overline"):
        Board.from_fen(board.fen(), rule="renju")
    assert Board.from_fen(board.fen().replace("x", "o"), rule="renju").result() == "0-1"


def test_black_five_with_an_overline_can_be_set_up() -> None:
    """The stone that makes a five may make an overline on another line too: the
    five wins, so the position after it is a reachable renju position."""
    board, point = setup(FIVE_AND_OVERLINE)
    board.push(point)
    assert board.result() == "1-0"
    loaded = Board.from_fen(board.fen(), rule="renju")
    assert loaded.outcome() == board.outcome()
    assert loaded.result() == "1-0"


def test_only_forbidden_points_left_is_a_draw() -> None:
    board, point = setup(ONLY_FORBIDDEN_LEFT)
    assert board.forbidden_moves() == [point]
    assert board.legal_moves() == []
    assert board.outcome() == Outcome(None, Termination.BOARD_FULL)
    assert board.result() == "1/2-1/2"
    with pytest.raises(IllegalMoveError, match="game is over"):
        board.push(point)
    # White may still fill the point; then the board is full.
    board, point = setup(ONLY_FORBIDDEN_LEFT, turn="w")
    assert board.outcome() is None
    board.push(point)
    assert board.outcome() == Outcome(None, Termination.BOARD_FULL)


def test_forbidden_moves_follow_push_and_pop() -> None:
    board, point = setup(DOUBLE_THREE, turn="w")
    assert board.forbidden_moves() == []
    board.push_text("a1")
    assert point in board.forbidden_moves()
    board.pop()
    assert board.forbidden_moves() == []


def test_forbidden_reason_needs_an_empty_point() -> None:
    cells = [renju.EMPTY] * 225
    cells[0] = renju.BLACK
    with pytest.raises(ValueError, match="not empty"):
        renju.forbidden_reason(cells, 15, 0, 0)
    board, _ = setup(DOUBLE_THREE)
    assert board.forbidden_reason(Move(5, 7)) is None  # f8 holds a stone


def test_renju_doctests() -> None:
    failures, tests = doctest.testmod(renju)
    assert tests > 0
    assert failures == 0


# -- a second, slower reading: the RIF definitions, word for word ---------------------------
#
# Written from the RIF rule text, not from renju.py: whole lines and whole board, sets of
# stones instead of offsets.  "Four: a row with four stones to which you can add one more
# stone to attain five in a row."  "Straight four: an unbroken row of four stones to which
# you, in two different ways, can add one more stone to attain five."  "Three: a row with
# three stones to which you, without at the same time a five in a row is made, can add one
# more stone to attain a straight four" (and, RIF 9.3, that stone must not be a forbidden
# point).  For Black a five is exactly five: six or more is an overline, not a five.

Point = tuple[int, int]


def book_run(cells: list[int], size: int, p: Point, d: Point) -> list[Point]:
    """The unbroken row of Black stones along ``d`` through the Black stone at ``p``."""
    (x, y), (dx, dy) = p, d
    while 0 <= x - dx < size and 0 <= y - dy < size and cells[(y - dy) * size + x - dx] == 0:
        x, y = x - dx, y - dy
    run = []
    while 0 <= x < size and 0 <= y < size and cells[y * size + x] == 0:
        run.append((x, y))
        x, y = x + dx, y + dy
    return run


def book_line(size: int, p: Point, d: Point) -> list[Point]:
    """Every point of the board on the line through ``p`` along ``d``."""
    points = [(p[0] + k * d[0], p[1] + k * d[1]) for k in range(-size, size)]
    return [(x, y) for x, y in points if 0 <= x < size and 0 <= y < size]


def book_fours(cells: list[int], size: int, p: Point, d: Point) -> dict[frozenset[Point], int]:
    """The fours along ``d`` that hold the Black stone at ``p``: each four is its set of
    four stones, mapped to the number of ways one more stone makes it exactly five."""
    fours: dict[frozenset[Point], int] = {}
    for q in book_line(size, p, d):
        i = q[1] * size + q[0]
        if cells[i] != -1:
            continue
        cells[i] = 0
        run = book_run(cells, size, q, d)
        cells[i] = -1
        if len(run) == 5 and p in run:
            stones = frozenset(run) - {q}
            fours[stones] = fours.get(stones, 0) + 1
    return fours


def book_makes_five(cells: list[int], size: int, p: Point) -> bool:
    return any(len(book_run(cells, size, p, d)) == 5 for d in renju.DIRECTIONS)


def book_three(cells: list[int], size: int, p: Point, d: Point) -> bool:
    """Is there a three along ``d`` through the Black stone at ``p``?"""
    for q in book_line(size, p, d):
        i = q[1] * size + q[0]
        if cells[i] != -1:
            continue
        cells[i] = 0
        try:
            straight = any(ways == 2 for ways in book_fours(cells, size, p, d).values())
            if (
                straight
                and not book_makes_five(cells, size, q)
                and book_reason(cells, size, q) is None
            ):
                return True
        finally:
            cells[i] = -1
    return False


def book_reason(cells: list[int], size: int, p: Point) -> Forbidden | None:
    """Why the Black stone already on ``p`` is forbidden, or ``None``."""
    runs = [len(book_run(cells, size, p, d)) for d in renju.DIRECTIONS]
    if 5 in runs:
        return None
    if max(runs) >= 6:
        return Forbidden.OVERLINE
    fours = [len(book_fours(cells, size, p, d)) for d in renju.DIRECTIONS]
    if sum(fours) >= 2:
        return Forbidden.DOUBLE_FOUR
    threes = sum(
        1
        for d, four in zip(renju.DIRECTIONS, fours, strict=True)
        if not four and book_three(cells, size, p, d)
    )
    return Forbidden.DOUBLE_THREE if threes >= 2 else None


def reference_reason(cells: list[int], size: int, x: int, y: int) -> Forbidden | None:
    """The book's answer for the empty point (x, y), left empty afterwards."""
    cells[y * size + x] = 0
    try:
        return book_reason(cells, size, (x, y))
    finally:
        cells[y * size + x] = -1


def assert_agrees_with_the_book(
    cells: list[int], size: int, area: tuple[range, range] | None = None
) -> None:
    """renju.forbidden_reason and the book agree on every empty point of ``cells``
    (or of ``area``, columns by rows)."""
    columns, rows = area or (range(size), range(size))
    for x, y in itertools.product(columns, rows):
        if cells[y * size + x] != renju.EMPTY:
            continue
        fast = renju.forbidden_reason(cells, size, x, y)
        slow = reference_reason(cells, size, x, y)
        assert fast is slow, (str(Move(x, y)), fast, slow, _fen(cells, size))


def _fen(cells: list[int], size: int) -> str:
    rows = []
    for y in range(size - 1, -1, -1):
        row = "".join(".xo"[v + 1] for v in cells[y * size : (y + 1) * size])
        rows.append(re.sub(r"\.+", lambda m: str(len(m.group())), row))
    return "/".join(rows) + " b"


@st.composite
def patches(
    draw: st.DrawFn, width: int, stones: list[int]
) -> tuple[list[int], int, tuple[range, range]]:
    """An empty board of any size with a random ``width`` x ``width`` patch of stones
    anywhere on it, edges and corners included, and the patch with a border of two
    points: a forbidden point makes an overline, a four or a three, and each has a Black
    stone within two points of it on its line."""
    size = draw(st.sampled_from(SIZES))
    left = draw(st.integers(0, size - width))
    bottom = draw(st.integers(0, size - width))
    window = draw(st.lists(st.sampled_from(stones), min_size=width**2, max_size=width**2))
    cells = [renju.EMPTY] * (size * size)
    for i, value in enumerate(window):
        cells[(bottom + i // width) * size + left + i % width] = value
    columns = range(max(0, left - 2), min(size, left + width + 2))
    rows = range(max(0, bottom - 2), min(size, bottom + width + 2))
    return cells, size, (columns, rows)


@settings(max_examples=200, deadline=None)
@given(patches(7, [-1, -1, -1, 0, 0, 1]))
def test_agrees_with_the_book(case: tuple[list[int], int, tuple[range, range]]) -> None:
    """Random crowded 7x7 patches."""
    assert_agrees_with_the_book(*case)


@settings(max_examples=100, deadline=None)
@given(patches(9, [-1, -1, 0, 0, 0, 1]))
def test_agrees_with_the_book_when_black_crowds_the_board(
    case: tuple[list[int], int, tuple[range, range]],
) -> None:
    """Black-heavy 9x9 patches: many fours and fives, so many threes whose straight-four
    point makes a five or is itself forbidden."""
    assert_agrees_with_the_book(*case)


def board_cells(board: Board) -> list[int]:
    size = board.size
    stones = (board.stone_at(i % size, i // size) for i in range(size * size))
    return [renju.EMPTY if stone is None else int(stone) for stone in stones]


@pytest.mark.parametrize(
    "diagram",
    [diagram for diagram, _ in FORBIDDEN] + ALLOWED + [FIVE_AND_OVERLINE, FIVE_AND_DOUBLE_FOUR],
)
def test_hand_positions_agree_with_the_book(diagram: str) -> None:
    board, _ = setup(diagram, rule="standard")
    assert_agrees_with_the_book(board_cells(board), board.size)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_random_renju_games_keep_black_off_forbidden_points(data: st.DataObject) -> None:
    board = Board(15, "renju")
    window = [Move(x, y) for x in range(4, 11) for y in range(4, 11)]
    for _ in range(data.draw(st.integers(0, 40))):
        if board.is_game_over():
            break
        legal = set(board.legal_moves())
        forbidden = set(board.forbidden_moves())
        assert not legal & forbidden
        empty = {m for m in window if board.stone_at(m.x, m.y) is None}
        assert empty <= legal | forbidden
        choices = sorted(empty & legal) or sorted(legal)
        move = data.draw(st.sampled_from(choices))
        fen = board.fen()
        board.push(move)
        assert board.pop() == move
        assert board.fen() == fen
        board.push(move)
