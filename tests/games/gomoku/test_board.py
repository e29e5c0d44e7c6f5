"""Gomoku board: coordinates, wins, draws, make/unmake, position strings, errors."""

from __future__ import annotations

import doctest
import itertools
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lanqi.games import base
from lanqi.games.base import (
    AmbiguousMoveError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    Outcome,
    Termination,
)
from lanqi.games.gomoku import Board, Color, Move
from lanqi.games.gomoku import board as board_module


def fen_of(rows: Sequence[str], turn: str = "b") -> str:
    """A position string from a diagram: rows top first, '.' empty, 'x' Black, 'o' White."""
    out = []
    for row in rows:
        assert len(row) == len(rows), row
        text, empty = "", 0
        for ch in row:
            if ch == ".":
                empty += 1
                continue
            text += (str(empty) if empty else "") + ch
            empty = 0
        out.append(text + (str(empty) if empty else ""))
    return "/".join(out) + " " + turn


def play(board: Board, *texts: str) -> None:
    for text in texts:
        board.push(board.parse_move(text))


def draw_pattern(size: int) -> list[list[str]]:
    """A full board with no five anywhere: runs of at most two in every direction.

    Point (x, y) is Black when (x + 2y) mod 4 < 2: horizontally xxoo repeats,
    vertically colours alternate, and both diagonals cycle through all four
    residues, so no line has more than two alike in a row.
    """
    return [
        ["x" if (x + 2 * y) % 4 < 2 else "o" for x in range(size)] for y in range(size - 1, -1, -1)
    ]


def state(board: Board) -> tuple[object, ...]:
    return (
        board.fen(),
        board.ply,
        board.turn,
        board.outcome(),
        board.winning_line(),
        board.move_stack,
        board.result(),
    )


# -- colours and moves -----------------------------------------------------------


def test_color_seats_and_other() -> None:
    assert int(Color.BLACK) == 0
    assert int(Color.WHITE) == 1
    assert Color.BLACK.other is Color.WHITE
    assert Color.WHITE.other is Color.BLACK
    assert ~Color.BLACK is Color.WHITE
    assert ~Color.WHITE is Color.BLACK


@pytest.mark.parametrize(
    ("text", "size", "x", "y"),
    [
        ("h8", 15, 7, 7),
        ("a1", 15, 0, 0),
        ("o15", 15, 14, 14),
        ("i9", 15, 8, 8),  # gomoku keeps the letter i
        ("j10", 19, 9, 9),
        ("s19", 19, 18, 18),
        ("t20", 20, 19, 19),
        ("t1", 20, 19, 0),
    ],
)
def test_move_text(text: str, size: int, x: int, y: int) -> None:
    move = Move.from_text(text, size=size)
    assert move == Move(x, y)
    assert str(move) == text


def test_move_repr_pastes_back() -> None:
    move = Move.from_text("k12")
    assert repr(move) == "Move(x=10, y=11)"
    assert eval(repr(move), {"Move": Move}) == move


def test_move_is_a_frozen_value() -> None:
    move = Move(3, 4)
    with pytest.raises(AttributeError):
        move.x = 5  # type: ignore[misc]
    assert {Move(3, 4), Move(3, 4)} == {move}
    assert not hasattr(move, "__dict__")


@pytest.mark.parametrize(("x", "y"), [(-1, 0), (0, 20), (20, 3)])
def test_move_rejects_out_of_range(x: int, y: int) -> None:
    with pytest.raises(ValueError, match=r"0\.\.19"):
        Move(x, y)


def test_move_rejects_non_int() -> None:
    with pytest.raises(TypeError):
        Move(1.0, 2)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Move(True, 2)


@pytest.mark.parametrize(
    ("gomocup", "size", "text"),
    [
        ("7,7", 15, "h8"),
        ("0,0", 15, "a15"),
        ("14,14", 15, "o1"),
        ("0,14", 15, "a1"),
        ("14,0", 15, "o15"),
        ("0,0", 19, "a19"),
        ("9,9", 19, "j10"),
        ("19,0", 20, "t20"),
        ("0,19", 20, "a1"),
    ],
)
def test_gomocup_coordinates(gomocup: str, size: int, text: str) -> None:
    move = Move.from_gomocup(gomocup, size)
    assert str(move) == text
    assert move.gomocup(size) == gomocup
    board = Board(size)
    assert board.parse_move(gomocup) == move
    assert board.parse_move(text) == move


def test_gomocup_off_board() -> None:
    with pytest.raises(ValueError, match="off"):
        Move(15, 0).gomocup(15)
    with pytest.raises(InvalidMoveError, match="off"):
        Move.from_gomocup("15,3", 15)


# -- construction -----------------------------------------------------------------


def test_new_board() -> None:
    board = Board()
    assert board.variant == "gomoku"
    assert board.options == {"size": 15, "rule": "freestyle"}
    assert board.ply == 0
    assert board.turn is Color.BLACK
    assert board.seat_to_move == 0
    assert board.move_stack == []
    assert board.outcome() is None
    assert not board.is_game_over()
    assert board.result() == "*"
    assert board.winning_line() is None
    assert board.fen() == "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 b"
    assert len(board.legal_moves()) == 225


@pytest.mark.parametrize("size", [0, 9, 13, 16, 21, "15", True])
def test_bad_size(size: object) -> None:
    with pytest.raises(ValueError, match="board size"):
        Board(size)  # type: ignore[arg-type]


def test_bad_rule() -> None:
    with pytest.raises(ValueError, match="unknown rule 'caro'"):
        Board(15, "caro")


def test_implements_the_game_protocol() -> None:
    board = Board()
    assert isinstance(board, base.Game)
    game: base.Game[Any] = board  # and statically, for mypy
    assert game.variant == "gomoku"


def test_from_options() -> None:
    board = Board.from_options({"size": 19, "rule": "standard"})
    assert board.options == {"size": 19, "rule": "standard"}
    assert Board.from_options({}).options == {"size": 15, "rule": "freestyle"}
    fen = fen_of(["." * 15] * 7 + ["." * 7 + "x" + "." * 7] + ["." * 15] * 7, "w")
    started = Board.from_options({"fen": fen, "rule": "renju"})
    assert started.fen() == fen
    assert started.rule == "renju"
    assert started.turn is Color.WHITE
    assert started.snapshot()["start"] == fen
    assert Board.from_options({"fen": fen, "size": 15}).size == 15


def test_from_options_errors() -> None:
    with pytest.raises(ValueError, match=r"unknown gomoku option.*colour"):
        Board.from_options({"size": 15, "colour": "black"})
    with pytest.raises(ValueError, match="disagrees"):
        Board.from_options({"size": 19, "fen": "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 b"})
    with pytest.raises(InvalidPositionError):
        Board.from_options({"fen": "nonsense"})
    with pytest.raises(ValueError, match="board size"):
        Board.from_options({"size": 17})


def test_registry_restores_a_game() -> None:
    registry = pytest.importorskip("lanqi.games.registry")
    game = registry.create_game("gomoku", size=19, rule="standard")
    play(game, "j10", "k11", "j11")
    again = registry.restore_game(game.snapshot())
    assert again.fen() == game.fen()
    assert again.options == game.options


def test_snapshot() -> None:
    board = Board(20, "standard")
    play(board, "t20", "a1", "10,10")
    assert board.snapshot() == {
        "variant": "gomoku",
        "options": {"size": 20, "rule": "standard"},
        "start": None,
        "moves": ["t20", "a1", "k10"],
    }


def test_snapshot_replays() -> None:
    start = Board.from_fen("15/15/15/15/15/15/15/7x7/15/15/15/15/15/15/15 w")
    play(start, "i9", "g7")
    snap = start.snapshot()
    again = Board.from_options({**snap["options"], "fen": snap["start"]})
    for text in snap["moves"]:
        again.push(again.parse_move(text))
    assert again.fen() == start.fen()
    assert again.move_stack == start.move_stack


def test_copy_is_independent() -> None:
    board = Board()
    play(board, "h8", "h9")
    twin = board.copy()
    play(twin, "i8")
    assert board.ply == 2
    assert twin.ply == 3
    assert board.stone_at(8, 7) is None
    assert twin.stone_at(8, 7) is Color.BLACK
    assert twin.pop() == Move(8, 7)
    assert state(twin) == state(board)


def test_repr_pastes_back() -> None:
    board = Board(19, "renju")
    play(board, "j10")
    again = eval(repr(board), {"Board": Board})
    assert again.fen() == board.fen()
    assert again.rule == "renju"


def test_str_diagram() -> None:
    board = Board()
    play(board, "a1", "o15")
    lines = str(board).splitlines()
    assert lines[0] == "15 " + " ".join("." * 14) + " o"
    assert lines[14] == " 1 x " + " ".join("." * 14)
    assert lines[15] == "   a b c d e f g h i j k l m n o"


# -- parsing moves -------------------------------------------------------------------


@pytest.mark.parametrize("text", ["h8", "H8", " h8 ", "h8\n", "7,7", " 7 , 7 ", "7,7 "])
def test_parse_accepts(text: str) -> None:
    assert Board().parse_move(text) == Move(7, 7)


@pytest.mark.parametrize(
    "text", ["", " ", "h", "8", "hh8", "h8h", "h0", "h-1", "h08", "8h", "7;7", "7,", ",7", "a,b"]
)
def test_parse_rejects_non_moves(text: str) -> None:
    with pytest.raises(InvalidMoveError):
        Board().parse_move(text)


@pytest.mark.parametrize(
    ("text", "size"),
    [("p16", 15), ("p1", 15), ("a16", 15), ("o16", 15), ("t19", 19), ("a20", 19), ("u1", 20),
     ("a21", 20), ("15,0", 15), ("0,15", 15), ("20,0", 20)],
)  # fmt: skip
def test_parse_rejects_off_board(text: str, size: int) -> None:
    with pytest.raises(InvalidMoveError, match="off the"):
        Board(size).parse_move(text)


def test_parse_and_push_reject_occupied() -> None:
    board = Board()
    play(board, "h8")
    with pytest.raises(IllegalMoveError, match="h8 is occupied by a black stone"):
        board.parse_move("h8")
    with pytest.raises(IllegalMoveError, match="occupied"):
        board.parse_move("7,7")
    with pytest.raises(IllegalMoveError, match="occupied"):
        board.push(Move(7, 7))
    assert not board.is_legal(Move(7, 7))
    assert board.ply == 1


def test_parse_and_push_reject_after_game_over() -> None:
    board = Board()
    play(board, "a1", "a2", "b1", "b2", "c1", "c2", "d1", "d2", "e1")
    assert board.result() == "1-0"
    with pytest.raises(IllegalMoveError, match="game is over"):
        board.parse_move("h8")
    with pytest.raises(IllegalMoveError, match="game is over"):
        board.push(Move(7, 7))
    assert board.legal_moves() == []
    assert not board.is_legal(Move(7, 7))


def test_push_rejects_off_board_move() -> None:
    board = Board(15)
    with pytest.raises(IllegalMoveError, match="off the board"):
        board.push(Move(19, 19))
    assert not board.is_legal(Move(15, 0))


def test_push_rejects_non_move() -> None:
    with pytest.raises(TypeError):
        Board().push("h8")  # type: ignore[arg-type]


def test_errors_are_distinct_and_never_ambiguous() -> None:
    board = Board()
    play(board, "h8")
    for text in ["zz9", "h8", "p16", "i9"]:
        try:
            board.parse_move(text)
        except AmbiguousMoveError:  # pragma: no cover - must not happen
            pytest.fail("gomoku never raises AmbiguousMoveError")
        except (InvalidMoveError, IllegalMoveError):
            pass
    assert issubclass(InvalidMoveError, ValueError)


def test_pop_on_empty_board() -> None:
    with pytest.raises(IndexError):
        Board().pop()


def test_stone_at() -> None:
    board = Board()
    play(board, "a1", "o15")
    assert board.stone_at(0, 0) is Color.BLACK
    assert board.stone_at(14, 14) is Color.WHITE
    assert board.stone_at(7, 7) is None
    with pytest.raises(IndexError):
        board.stone_at(15, 0)


def test_legal_moves_shrink() -> None:
    board = Board()
    play(board, "h8", "h9")
    moves = board.legal_moves()
    assert len(moves) == 223
    assert Move(7, 7) not in moves
    assert moves[0] == Move(0, 0)
    assert all(board.is_legal(m) for m in moves)


# -- winning ---------------------------------------------------------------------------

# Five-point lines in each direction, many touching an edge or a corner of 15x15.
LINES_15 = {
    "horizontal bottom-left": ["a1", "b1", "c1", "d1", "e1"],
    "horizontal top-right": ["k15", "l15", "m15", "n15", "o15"],
    "horizontal middle": ["f8", "g8", "h8", "i8", "j8"],
    "vertical left": ["a1", "a2", "a3", "a4", "a5"],
    "vertical top-right": ["o11", "o12", "o13", "o14", "o15"],
    "diagonal from a1": ["a1", "b2", "c3", "d4", "e5"],
    "diagonal to o15": ["k11", "l12", "m13", "n14", "o15"],
    "diagonal off-centre": ["a11", "b12", "c13", "d14", "e15"],
    "anti-diagonal from a15": ["a15", "b14", "c13", "d12", "e11"],
    "anti-diagonal to o1": ["k5", "l4", "m3", "n2", "o1"],
    "anti-diagonal to the bottom edge": ["f5", "g4", "h3", "i2", "j1"],
}


def spare_points(size: int, avoid: set[str], count: int) -> list[str]:
    """Points off ``avoid`` for the other side; with at most four of them no five is possible."""
    spare = []
    for y in range(1, size, 3):
        for x in range(1, size, 3):
            text = str(Move(x, y))
            if text not in avoid:
                spare.append(text)
    return spare[:count]


def play_line(board: Board, line: list[str], winner: Color, last: int) -> None:
    """Play the five of ``line`` for ``winner``, the ``last``-th stone last."""
    order = line[:last] + line[last + 1 :] + [line[last]]
    others = spare_points(board.size, set(line), 5)
    if winner is Color.WHITE:
        play(board, others.pop())
    for text in order:
        play(board, text)
        if text != order[-1]:
            assert board.outcome() is None
            play(board, others.pop())


@pytest.mark.parametrize("name", sorted(LINES_15))
@pytest.mark.parametrize("last", range(5))
@pytest.mark.parametrize("winner", list(Color))
@pytest.mark.parametrize("rule", ["freestyle", "standard", "renju"])
def test_five_wins_in_every_direction(name: str, last: int, winner: Color, rule: str) -> None:
    line = LINES_15[name]
    board = Board(15, rule)
    play_line(board, line, winner, last)
    assert board.outcome() == Outcome(winner, Termination.FIVE_IN_A_ROW)
    assert board.is_game_over()
    assert board.result() == ("1-0" if winner is Color.BLACK else "0-1")
    winning = board.winning_line()
    assert winning is not None
    assert sorted(str(m) for m in winning) == sorted(line)
    # End to end: every step is one point in the same direction.
    steps = {(b.x - a.x, b.y - a.y) for a, b in itertools.pairwise(winning)}
    assert len(steps) == 1
    assert board.legal_moves() == []


@pytest.mark.parametrize(
    ("size", "line"),
    [
        (19, ["o19", "p19", "q19", "r19", "s19"]),
        (19, ["s1", "r2", "q3", "p4", "o5"]),
        (19, ["a15", "a16", "a17", "a18", "a19"]),
        (20, ["p20", "q20", "r20", "s20", "t20"]),
        (20, ["t16", "t17", "t18", "t19", "t20"]),
        (20, ["p16", "q17", "r18", "s19", "t20"]),
        (20, ["a20", "b19", "c18", "d17", "e16"]),
    ],
)
def test_big_boards(size: int, line: list[str]) -> None:
    board = Board(size)
    assert len(board.legal_moves()) == size * size
    play_line(board, line, Color.BLACK, 2)
    assert board.result() == "1-0"
    assert board.winning_line() is not None
    assert Board.from_fen(board.fen()).result() == "1-0"


def test_four_is_not_five() -> None:
    board = Board()
    play(board, "a1", "a2", "b1", "b2", "c1", "c2", "d1")
    assert board.outcome() is None
    assert board.winning_line() is None


def test_broken_line_is_not_five() -> None:
    board = Board()
    play(board, "a1", "o1", "b1", "o2", "c1", "o3", "e1", "o5", "f1")  # a-c, e-f: gap at d1
    assert board.outcome() is None


def test_blocked_ends_still_win() -> None:
    # Gomoku (unlike some caro rules) counts a five with both ends blocked.
    board = Board.from_fen(fen_of(["." * 15] * 7 + ["..oxxxx.o......"] + ["." * 15] * 7))
    play(board, "h8")
    assert board.result() == "1-0"


SIX_SETUP = ["." * 15] * 7 + ["xxxx.x........."] + ["." * 15] * 7  # e8 makes six for Black


@pytest.mark.parametrize(("rule", "result"), [("freestyle", "1-0"), ("standard", "*")])
def test_six_in_a_row(rule: str, result: str) -> None:
    board = Board.from_fen(fen_of(SIX_SETUP), rule=rule)
    play(board, "e8")
    assert board.result() == result
    if result == "1-0":
        winning = board.winning_line()
        assert winning is not None
        assert [str(m) for m in winning] == ["a8", "b8", "c8", "d8", "e8", "f8"]
    else:
        assert board.winning_line() is None
        assert not board.is_game_over()


def test_standard_exactly_five_wins() -> None:
    board = Board.from_fen(
        fen_of(["." * 15] * 7 + ["xxxx..........."] + ["." * 15] * 7), "standard"
    )
    play(board, "e8")
    assert board.result() == "1-0"


def test_standard_six_for_white_does_not_win() -> None:
    board = Board.from_fen(fen_of(SIX_SETUP).replace("x", "o"), rule="standard")
    play(board, "a1", "e8")
    assert board.result() == "*"


def test_standard_six_and_five_at_once_wins() -> None:
    # e8 makes six along row 8 and exactly five along column e.
    rows = ["." * 15] * 15
    rows = [*rows]
    rows[7] = "xxxx.x........."  # row 8
    for row in (9, 10, 11, 12):  # e9..e12 are rows 9-12, i.e. indices 6..3
        rows[15 - row] = "....x.........."
    board = Board.from_fen(fen_of(rows), rule="standard")
    play(board, "e8")
    assert board.result() == "1-0"
    winning = board.winning_line()
    assert winning is not None
    assert [str(m) for m in winning] == ["e8", "e9", "e10", "e11", "e12"]


def test_white_wins() -> None:
    board = Board()
    play(board, "a1", "h8", "a3", "h9", "a5", "h10", "a7", "h11", "a9", "h12")
    assert board.outcome() == Outcome(Color.WHITE, Termination.FIVE_IN_A_ROW)
    assert board.result() == "0-1"
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.winner_seat == 1


# -- the full board -----------------------------------------------------------------------


@pytest.mark.parametrize("size", [15, 19, 20])
def test_full_board_is_a_draw(size: int) -> None:
    rows = draw_pattern(size)
    last = rows[0][0]  # the top-left point is played last
    rows[0][0] = "."
    turn = "b" if last == "x" else "w"
    board = Board.from_fen(fen_of(["".join(r) for r in rows], turn))
    assert board.outcome() is None
    assert board.legal_moves() == [Move(0, size - 1)]
    board.push(Move(0, size - 1))
    assert board.outcome() == Outcome(None, Termination.BOARD_FULL)
    assert board.result() == "1/2-1/2"
    assert board.winning_line() is None
    assert board.legal_moves() == []
    assert Board.from_fen(board.fen()).outcome() == Outcome(None, Termination.BOARD_FULL)
    board.pop()
    assert board.outcome() is None


def test_last_point_five_wins_not_draws() -> None:
    rows = draw_pattern(15)
    # Row 15 (top) reads xxooxxoo...; make it xxxx.xoo... so that e15 completes a five.
    rows[0][:5] = ["x", "x", "x", "x", "."]
    rows[0][5] = "o"
    board = Board.from_fen(fen_of(["".join(r) for r in rows], "b"))
    assert board.outcome() is None
    play(board, "e15")
    assert board.outcome() == Outcome(Color.BLACK, Termination.FIVE_IN_A_ROW)


# -- position strings ------------------------------------------------------------------


def test_fen_example() -> None:
    board = Board()
    play(board, "h8", "i9", "a1", "o15", "b2")
    # Rows from the top: row 15 holds o15, row 9 i9, row 8 h8, row 2 b2, row 1 a1.
    assert board.fen() == "14o/15/15/15/15/15/8o6/7x7/15/15/15/15/15/1x13/x14 w"
    again = Board.from_fen(board.fen())
    assert again.fen() == board.fen()
    assert again.turn is Color.WHITE
    assert again.ply == 0
    assert again.start_fen == board.fen()


def test_fen_two_digit_runs() -> None:
    board = Board(20)
    play(board, "a1", "t20")
    assert board.fen().split("/")[0] == "19o"
    assert board.fen().split("/")[-1] == "x19 b"
    assert board.fen().split("/")[5] == "20"


def test_fen_of_empty_start_is_the_usual_start() -> None:
    board = Board.from_fen("19/19/19/19/19/19/19/19/19/19/19/19/19/19/19/19/19/19/19 b")
    assert board.size == 19
    assert board.start_fen is None
    assert board.snapshot()["start"] is None


def test_fen_with_a_five_is_over() -> None:
    board = Board.from_fen(fen_of(["xxxxx.........."] + ["." * 15] * 13 + ["oooo..........."], "w"))
    assert board.outcome() == Outcome(Color.BLACK, Termination.FIVE_IN_A_ROW)
    assert [str(m) for m in board.winning_line() or ()] == ["a15", "b15", "c15", "d15", "e15"]
    assert board.legal_moves() == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "must be '<rows> <side to move>'"),
        ("15/15/15/15/15/15/15/15/15/15/15/15/15/15/15", "must be '<rows> <side to move>'"),
        ("15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 b extra", "must be"),
        ("15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 x", "side to move"),
        ("15/15/15/15/15/15/15/15/15/15/15/15/15/15 b", "14 rows"),
        ("16/16/16/16/16/16/16/16/16/16/16/16/16/16/16/16 b", "16 rows"),
        ("15/15/15/15/15/15/15/15/15/15/15/15/15/15/16 b", "row 15 from the top has more"),
        ("15/15/15/14/15/15/15/15/15/15/15/15/15/15/15 b", "row 4 from the top has fewer"),
        ("15/15/15/15/15/15/15/7X7/15/15/15/15/15/15/15 b", "row 8 from the top: unexpected 'X'"),
        ("15/15/15/15/15/15/15/7b7/15/15/15/15/15/15/15 b", "unexpected 'b'"),
        ("15/15/15/15/15/15/15/0x14/15/15/15/15/15/15/15 b", "bad empty run '0'"),
        ("15/15/15/15/15/15/15/07x7/15/15/15/15/15/15/15 b", "bad empty run '07'"),
        ("15/15/15/15/15/15/15/7x8/15/15/15/15/15/15/15 b", "has more"),
        ("15//15/15/15/15/15/15/15/15/15/15/15/15/15 b", "row 2 from the top has fewer"),
        ("xxxxx10/15/15/15/15/15/15/15/15/15/15/15/15/15/ooooo10 b", "both sides have five"),
    ],
)
def test_bad_fen(text: str, message: str) -> None:
    with pytest.raises(InvalidPositionError, match=message.replace("(", r"\(")):
        Board.from_fen(text)


def test_bad_fen_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="side to move"):
        Board.from_fen("15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 ?")


def random_rows(size: int, cells: list[int]) -> list[str]:
    chars = ".xo"
    return ["".join(chars[cells[r * size + c]] for c in range(size)) for r in range(size)]


@settings(max_examples=150, deadline=None)
@given(
    size=st.sampled_from([15, 19, 20]),
    data=st.data(),
    turn=st.sampled_from("bw"),
)
def test_fen_round_trip(size: int, data: st.DataObject, turn: str) -> None:
    cells = data.draw(
        st.lists(st.sampled_from([0, 0, 0, 1, 2]), min_size=size * size, max_size=size * size)
    )
    text = fen_of(random_rows(size, cells), turn)
    try:
        board = Board.from_fen(text, rule="standard")
    except InvalidPositionError as exc:
        assert "both sides have five" in str(exc)
        return
    assert board.fen() == text
    assert board.size == size
    assert Board.from_fen(board.fen(), rule="standard").fen() == text
    for y in range(size):
        for x in range(size):
            want = [None, Color.BLACK, Color.WHITE][cells[(size - 1 - y) * size + x]]
            assert board.stone_at(x, y) is want


# -- make and unmake -----------------------------------------------------------------


@st.composite
def random_game(draw: st.DrawFn) -> tuple[Board, list[tuple[object, ...]]]:
    """A random game kept in a small window so that fives (and wins) are common.

    Returns the board and the state before each move.
    """
    size = draw(st.sampled_from([15, 15, 19, 20]))
    rule = draw(st.sampled_from(["freestyle", "standard", "renju"]))
    board = Board(size, rule)
    corner = draw(st.sampled_from([0, size // 2 - 3, size - 7]))
    window = {Move(x, y) for x in range(corner, corner + 7) for y in range(corner, corner + 7)}
    history = []
    for _ in range(draw(st.integers(0, 60))):
        moves = board.legal_moves()
        if not moves:
            break
        near = [m for m in moves if m in window] or moves
        move = draw(st.sampled_from(near))
        history.append(state(board))
        board.push(move)
    return board, history


@settings(max_examples=120, deadline=None)
@given(random_game())
def test_push_pop_restores_everything(game: tuple[Board, list[tuple[object, ...]]]) -> None:
    board, history = game
    ended = board.outcome()
    if ended is not None and ended.termination is Termination.FIVE_IN_A_ROW:
        # The incremental result agrees with a scan of the whole board.
        assert Board.from_fen(board.fen(), rule=board.rule).outcome() == ended
        assert board.legal_moves() == []
    moves = board.move_stack
    while history:
        before = history.pop()
        move = board.pop()
        assert move == moves.pop()
        assert state(board) == before
        assert board.outcome() is None  # the game only ends with the last move
    assert board.ply == 0
    assert board.fen() == Board(board.size).fen()


@settings(max_examples=60, deadline=None)
@given(random_game())
def test_outcome_matches_a_full_scan(game: tuple[Board, list[tuple[object, ...]]]) -> None:
    board, _ = game
    scanned = Board.from_fen(board.fen(), rule=board.rule)
    assert scanned.outcome() == board.outcome()
    line = board.winning_line()
    if line is None:
        assert scanned.winning_line() is None
    else:
        # The incremental line runs through the last stone; a scan may find another
        # five made by the same stone, so only check that this one is real.
        assert board.move_stack[-1] in line
        assert {board.stone_at(m.x, m.y) for m in line} == {board.turn.other}


def test_doctests() -> None:
    for module in (board_module,):
        failures, tests = doctest.testmod(module)
        assert tests > 0
        assert failures == 0


def test_docs_examples() -> None:
    """The ``pycon`` blocks of docs/gomoku.md run as doctests."""
    path = Path(__file__).resolve().parents[3] / "docs" / "gomoku.md"
    if not path.exists():  # pragma: no cover - docs are not shipped with an installed package
        pytest.skip("docs/gomoku.md not found")
    blocks = re.findall(r"```pycon\n(.*?)```", path.read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 4
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    page: dict[str, object] = {}  # the blocks run as one session, like the page reads
    for number, block in enumerate(blocks, start=1):
        test = parser.get_doctest(block, page, f"gomoku.md block {number}", str(path), 0)
        runner.run(test, clear_globs=False)
        page.update(test.globs)  # a DocTest works on a copy of the names it is given
    assert runner.summarize(verbose=False).failed == 0
