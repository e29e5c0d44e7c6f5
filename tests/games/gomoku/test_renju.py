"""Renju: forbidden points for Black, and how they meet the rest of the rules.

Each position is drawn out: rows are labelled with their number (rows not shown are
empty), ``x`` Black, ``o`` White, and ``*`` the empty point under test.
"""

from __future__ import annotations

import doctest
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lanqi.games.base import IllegalMoveError, InvalidPositionError, Outcome, Termination
from lanqi.games.gomoku import Board, Color, Forbidden, Move, renju


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
]
ALLOWED = [
    FOUR_THREE,
    FALSE_THREE_OVERLINE,
    FALSE_THREE_BLOCKED,
    FALSE_THREE_FORBIDDEN_POINT,
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


# -- a second, slower reading of the definitions, to check the fast one against ----------


def _line(cells: list[int], size: int, point: Move, dx: int, dy: int) -> tuple[str, int, Move]:
    """The whole line through (x, y) as text ('x', 'o', '.'), the index of (x, y) in
    it, and the point where the line starts."""
    x, y, steps = point.x, point.y, 0
    while 0 <= x - dx < size and 0 <= y - dy < size:
        x, y, steps = x - dx, y - dy, steps + 1
    start = Move(x, y)
    text = []
    while 0 <= x < size and 0 <= y < size:
        text.append(".xo"[cells[y * size + x] + 1])
        x, y = x + dx, y + dy
    return "".join(text), steps, start


def _run(text: str, i: int) -> int:
    """The length of the run of 'x' through index i."""
    if text[i] != "x":
        return 0
    left = i
    while left > 0 and text[left - 1] == "x":
        left -= 1
    right = i
    while right < len(text) - 1 and text[right + 1] == "x":
        right += 1
    return right - left + 1


def _fives(text: str, i: int) -> list[int]:
    """Empty indices that make exactly five through index i."""
    return [
        j for j, ch in enumerate(text) if ch == "." and _run(text[:j] + "x" + text[j + 1 :], i) == 5
    ]


def reference_reason(cells: list[int], size: int, x: int, y: int) -> Forbidden | None:
    """Forbidden shapes by the book, with Black already on (x, y), whole lines at a time."""
    lines = [(*_line(cells, size, Move(x, y), dx, dy), dx, dy) for dx, dy in renju.DIRECTIONS]
    runs = [_run(text, i) for text, i, *_ in lines]
    if 5 in runs:
        return None
    if max(runs) >= 6:
        return Forbidden.OVERLINE
    fours = []
    for text, i, *_ in lines:
        points = _fives(text, i)
        fours.append(1 if len(points) == 2 and points[1] - points[0] == 5 else len(points))
    if sum(fours) >= 2:
        return Forbidden.DOUBLE_FOUR
    threes = 0
    for (text, i, start, dx, dy), four in zip(lines, fours, strict=True):
        if four:
            continue
        for j, ch in enumerate(text):
            if ch != ".":
                continue
            points = _fives(text[:j] + "x" + text[j + 1 :], i)
            if not (len(points) == 2 and points[1] - points[0] == 5):
                continue
            qx, qy = start.x + j * dx, start.y + j * dy
            cells[qy * size + qx] = renju.BLACK
            try:
                ok = reference_reason(cells, size, qx, qy) is None
            finally:
                cells[qy * size + qx] = renju.EMPTY
            if ok:
                threes += 1
                break
    return Forbidden.DOUBLE_THREE if threes >= 2 else None


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from([-1, -1, -1, 0, 0, 1]), min_size=49, max_size=49),
    st.integers(0, 8),
    st.integers(0, 8),
)
def test_agrees_with_the_reference(window: list[int], left: int, bottom: int) -> None:
    """Random crowded 7x7 patches placed anywhere, edges included."""
    size = 15
    cells = [renju.EMPTY] * (size * size)
    for i, value in enumerate(window):
        cells[(bottom + i // 7) * size + left + i % 7] = value
    for i, value in enumerate(window):
        if value != renju.EMPTY:
            continue
        x, y = left + i % 7, bottom + i // 7
        fast = renju.forbidden_reason(cells, size, x, y)
        cells[y * size + x] = renju.BLACK
        try:
            slow = reference_reason(cells, size, x, y)
        finally:
            cells[y * size + x] = renju.EMPTY
        assert fast is slow, (x, y, Board.from_fen(_fen(cells, size), rule="standard"))


def _fen(cells: list[int], size: int) -> str:
    rows = []
    for y in range(size - 1, -1, -1):
        row = "".join(".xo"[v + 1] for v in cells[y * size : (y + 1) * size])
        rows.append(re.sub(r"\.+", lambda m: str(len(m.group())), row))
    return "/".join(rows) + " b"


@pytest.mark.parametrize(
    "diagram",
    [diagram for diagram, _ in FORBIDDEN] + ALLOWED + [FIVE_AND_OVERLINE, FIVE_AND_DOUBLE_FOUR],
)
def test_hand_positions_agree_with_the_reference(diagram: str) -> None:
    board, _ = setup(diagram, rule="standard")
    size = board.size
    cells = [renju.EMPTY if s is None else int(s) for s in
             (board.stone_at(i % size, i // size) for i in range(size * size))]  # fmt: skip
    for i, value in enumerate(list(cells)):
        if value != renju.EMPTY:
            continue
        x, y = i % size, i // size
        fast = renju.forbidden_reason(cells, size, x, y)
        cells[i] = renju.BLACK
        slow = reference_reason(cells, size, x, y)
        cells[i] = renju.EMPTY
        assert fast is slow, str(Move(x, y))


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
