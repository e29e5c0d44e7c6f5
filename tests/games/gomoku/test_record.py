"""Gomoku records: writing, reading, exact round trips, and errors that say where."""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lanqi.games.gomoku import (
    Board,
    Color,
    Move,
    RecordError,
    read_record,
    read_records,
    write_record,
)
from lanqi.games.gomoku import record as record_module

WIN = ["h8", "h9", "i8", "i9", "j8", "j9", "k8", "k9", "l8"]

WIN_RECORD = """\
[Game "Gomoku"]
[Rule "freestyle"]
[Size "15"]
[Black "alice"]
[White "bob"]
[Result "1-0"]
[Event "LAN club"]

1. h8 h9 2. i8 i9 3. j8 j9 4. k8 k9 5. l8 1-0
"""


def played(*texts: str, board: Board | None = None) -> Board:
    board = Board() if board is None else board
    for text in texts:
        board.push(board.parse_move(text))
    return board


def test_write_example() -> None:
    board = played(*WIN)
    assert (
        write_record(board, {"Black": "alice", "White": "bob", "Event": "LAN club"}) == WIN_RECORD
    )


def test_read_example() -> None:
    headers, board = read_record(WIN_RECORD)
    assert headers == {
        "Game": "Gomoku",
        "Rule": "freestyle",
        "Size": "15",
        "Black": "alice",
        "White": "bob",
        "Result": "1-0",
        "Event": "LAN club",
    }
    assert list(headers) == ["Game", "Rule", "Size", "Black", "White", "Result", "Event"]
    assert [str(m) for m in board.move_stack] == WIN
    assert board.result() == "1-0"
    assert write_record(board, headers) == WIN_RECORD


def test_defaults() -> None:
    text = write_record(Board())
    assert text == (
        '[Game "Gomoku"]\n[Rule "freestyle"]\n[Size "15"]\n'
        '[Black "?"]\n[White "?"]\n[Result "*"]\n\n*\n'
    )
    _, board = read_record(text)
    assert board.ply == 0
    assert board.options == {"size": 15, "rule": "freestyle"}


def test_set_up_start_with_white_to_move() -> None:
    start = Board.from_fen("15/15/15/15/15/15/15/7x7/15/15/15/15/15/15/15 w", rule="standard")
    board = played("i9", "g7", "j10", board=start)
    text = write_record(board)
    assert '[Rule "standard"]' in text
    assert '[FEN "15/15/15/15/15/15/15/7x7/15/15/15/15/15/15/15 w"]' in text
    assert text.endswith("\n\n1... i9 2. g7 j10 *\n")
    headers, again = read_record(text)
    assert again.start_fen == start.start_fen
    assert again.fen() == board.fen()
    assert again.rule == "standard"
    assert write_record(again, headers) == text


def test_unfinished_game_keeps_the_declared_result() -> None:
    board = played("h8", "h9")
    text = write_record(board, {"Result": "0-1", "Termination": "resignation"})
    assert '[Result "0-1"]' in text
    assert text.endswith("1. h8 h9 0-1\n")
    headers, again = read_record(text)
    assert headers["Result"] == "0-1"
    assert headers["Termination"] == "resignation"
    assert again.result() == "*"
    assert write_record(again, headers) == text


def test_long_games_wrap_at_80_columns() -> None:
    board = Board(19)
    moves = [m for m in Board(19).legal_moves() if (m.x + m.y) % 2 == 0 and m.x % 3 == 0]
    moves = [m for m in moves if m.y % 4 < 2][:60]
    for move in moves:
        board.push(move)
    text = write_record(board)
    movetext = text.split("\n\n", 1)[1]
    assert max(len(line) for line in movetext.splitlines()) <= 80
    assert len(movetext.splitlines()) == 3
    assert read_record(text)[1].move_stack == board.move_stack


def test_tag_values_are_escaped() -> None:
    names = {"Black": 'The "Wall" \\ 2', "White": "白"}
    text = write_record(Board(), names)
    assert '[Black "The \\"Wall\\" \\\\ 2"]' in text
    headers, _ = read_record(text)
    assert headers["Black"] == names["Black"]
    assert headers["White"] == "白"
    assert write_record(Board(), headers) == text


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        ({"Rule": "standard"}, "tag Rule is 'standard', but the board says 'freestyle'"),
        ({"Size": "19"}, "tag Size"),
        ({"Game": "Xiangqi"}, "gomoku record"),
        ({"Result": "0-1"}, "ended 1-0 on the board"),
        ({"Result": "won"}, "Result must be one of"),
        ({"FEN": "15/15/15/15/15/15/15/7x7/15/15/15/15/15/15/15 w"}, "tag FEN"),
        ({"Bad Name": "x"}, "bad tag name"),
        ({"Event": "two\nlines"}, "one line"),
    ],
)
def test_write_rejects_conflicting_or_bad_tags(headers: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        write_record(played(*WIN), headers)


def test_write_accepts_agreeing_tags() -> None:
    board = played(*WIN)
    empty_start = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 b"
    text = write_record(
        board, {"Rule": "freestyle", "Size": "15", "Result": "1-0", "FEN": empty_start}
    )
    assert f'[FEN "{empty_start}"]' in text
    headers, again = read_record(text)
    assert again.start_fen is None
    assert write_record(again, headers) == text


# -- reading leniently -------------------------------------------------------------------


def test_read_without_tags_and_with_comments() -> None:
    text = "{opening: pro} 1.h8 I9 ; a comment\n2. 8,7 {a block\nover two lines} i10\n3. j8 *"
    headers, board = read_record(text)
    assert headers == {}
    assert [str(m) for m in board.move_stack] == ["h8", "i9", "i8", "i10", "j8"]


def test_read_gomocup_tokens_and_case() -> None:
    _, board = read_record('[Size "19"]\n\n1. 9,9 K11 2. j9 *\n')
    assert board.size == 19
    assert [str(m) for m in board.move_stack] == ["j10", "k11", "j9"]


def test_read_rule_and_size_tags() -> None:
    _, board = read_record('[Rule "renju"]\n[Size "15"]\n\n1. h8 *')
    assert board.rule == "renju"
    _, board = read_record('[Size "20"]\n\n1. t20 *')
    assert board.stone_at(19, 19) is Color.BLACK


# -- reading errors ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1. h8 h8", r"move 1\.\.\. h8: h8 is occupied"),
        ("1. h8 i9 2. zz", r"move 2\. zz: not a move"),
        ("1. h8 i9 2. p16", r"move 2\. p16: 'p16' is off the board"),
        (
            "1. h8 h9 2. i8 i9 3. j8 j9 4. k8 k9 5. l8 l9",
            r"move 5\.\.\. l9: the game is over",
        ),
        (
            '[Rule "renju"]\n\n1. f8 a1 2. g8 a2 3. h6 a3 4. h7 a4 5. h8',
            r"move 5\. h8: .*double-three",
        ),
        ('[Game "Gomoku"\n\n1. h8', "line 1: bad tag"),
        ('[Game "Gomoku"]\n[Game "Gomoku"]\n\n1. h8', "line 2: tag Game given twice"),
        ('[Game "Xiangqi"]\n\n1. h2e2', "not Gomoku"),
        ('[Rule "caro"]\n\n1. h8', "unknown rule 'caro'"),
        ('[Size "16"]\n\n1. h8', "board size"),
        ('[Size "big"]\n\n1. h8', "bad tags"),
        ('[FEN "15/15 b"]\n\n1. h8', "tag FEN: position has 2 rows"),
        (
            '[Size "19"]\n[FEN "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 b"]\n\n*',
            "tag Size is '19', but the FEN is 15x15",
        ),
        ('[Result "1-0"]\n\n1. h8 0-1', "tag Result is 1-0, but the moves end with 0-1"),
        ('[Result "won"]\n\n1. h8', "Result must be one of"),
        ("1. h8 h9 2. i8 i9 3. j8 j9 4. k8 k9 5. l8 0-1", "the record says 0-1, but the moves"),
        ("1. h8 * i9", "'i9' after the result"),
        ("1. h8 {never closed i9", "unterminated comment"),
        ("", "no game"),
    ],
)
def test_read_errors(text: str, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        read_record(text)


def test_read_error_keeps_the_cause() -> None:
    with pytest.raises(RecordError) as info:
        read_record("1. h8 h8")
    assert type(info.value.__cause__).__name__ == "IllegalMoveError"
    assert isinstance(info.value, ValueError)


def test_read_record_wants_one_game() -> None:
    with pytest.raises(RecordError, match="2 games"):
        read_record(WIN_RECORD + "\n" + write_record(Board()))


# -- several games ------------------------------------------------------------------------


def test_read_records() -> None:
    second = write_record(played("a1", "o15", board=Board(15, "standard")), {"Round": "2"})
    third = write_record(Board(20))
    records = read_records("\n\n" + WIN_RECORD + "\n" + second + "\n" + third)
    assert [h.get("Round") for h, _ in records] == [None, "2", None]
    assert [b.size for _, b in records] == [15, 15, 20]
    assert records[0][1].result() == "1-0"
    assert records[1][1].rule == "standard"
    assert "".join(write_record(b, h) + "\n" for h, b in records) == (
        WIN_RECORD + "\n" + second + "\n" + third + "\n"
    )
    assert read_records("") == []


def test_read_records_names_the_bad_game() -> None:
    bad = '[Game "Gomoku"]\n\n1. h8 h8 *\n'
    with pytest.raises(RecordError, match=r"game 2 \(line 11\): move 1\.\.\. h8"):
        read_records(WIN_RECORD + "\n" + bad)


# -- round trips ------------------------------------------------------------------------------


@st.composite
def finished_or_not(draw: st.DrawFn) -> tuple[Board, dict[str, str]]:
    size = draw(st.sampled_from([15, 19, 20]))
    rule = draw(st.sampled_from(["freestyle", "standard", "renju"]))
    if draw(st.booleans()):
        board = Board(size, rule)
    else:
        setup = Board(size, "standard")
        for _ in range(draw(st.integers(1, 4))):
            setup.push(draw(st.sampled_from(setup.legal_moves()[: size * 3])))
        board = Board.from_fen(setup.fen(), rule=rule)
    window = [Move(x, y) for x in range(5, 11) for y in range(5, 11)]
    for _ in range(draw(st.integers(0, 45))):
        legal = board.legal_moves()
        if not legal:
            break
        near = [m for m in window if m in set(legal)] or legal
        board.push(draw(st.sampled_from(near)))
    text = st.text(st.characters(blacklist_categories=["Cs", "Cc"]), max_size=12)
    headers = draw(st.dictionaries(st.sampled_from(["Black", "White", "Event", "Date"]), text))
    if board.result() == "*" and draw(st.booleans()):
        headers["Result"] = draw(st.sampled_from(["1-0", "0-1", "1/2-1/2", "*"]))
    return board, headers


@settings(max_examples=100, deadline=None)
@given(finished_or_not())
def test_round_trip(game: tuple[Board, dict[str, str]]) -> None:
    board, given_headers = game
    text = write_record(board, given_headers)
    headers, again = read_record(text)
    assert again.fen() == board.fen()
    assert again.move_stack == board.move_stack
    assert again.start_fen == board.start_fen
    assert again.options == board.options
    assert again.result() == board.result()
    assert write_record(again, headers) == text
    for name, value in given_headers.items():
        assert headers[name] == value


def test_record_doctests() -> None:
    failures, tests = doctest.testmod(record_module)
    assert tests > 0
    assert failures == 0


def test_the_variant_writes_clock_comments_a_reader_skips() -> None:
    """A tournament's PGN export passes ``%clk`` comments through the registry: the
    gomoku record keeps them, one after each move, and still reads back."""
    from lanqi.games.gomoku.variant import VARIANT

    board = Board()
    for text in WIN:
        board.push(board.parse_move(text))
    clocks = [f"[%clk 0:09:{59 - i:02d}]" for i in range(len(WIN))]
    text = VARIANT.write_record(board, {"Black": "a", "White": "b"}, comments=clocks)
    assert [c for c in clocks if "{" + c + "}" in text] == clocks
    _, again = read_record(text)
    assert [str(m) for m in again.move_stack] == WIN
