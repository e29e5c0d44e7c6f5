"""ICCS, WXF and Chinese notation: hand-checked cases, lenient reading, errors, round trips."""

from __future__ import annotations

import doctest
import random
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lanqi.games.base import AmbiguousMoveError, IllegalMoveError, InvalidMoveError
from lanqi.games.xiangqi import notation
from lanqi.games.xiangqi.core import Board, Move
from lanqi.games.xiangqi.notation import (
    NOTATIONS,
    chinese,
    iccs,
    move_to,
    parse_any,
    parse_chinese,
    parse_iccs,
    parse_move,
    parse_wxf,
    wxf,
)

DATA = Path(__file__).parent / "data"

# Positions with tandem pieces and stacked pawns (each checked by hand in
# data/notation_cases.tsv); the random games below start from these too.
TANDEM = "3k5/9/9/2N6/8C/R8/9/2N5C/R8/4K4 w"  # two rooks, horses, cannons on a file
BLACK_ROOKS = "4k4/2r6/9/9/2r6/9/9/9/9/3K5 b"
THREE_PAWNS = "3k5/9/9/4P4/4P4/4P4/9/9/9/4K4 w"
FOUR_PAWNS = "3k5/4P4/4P4/4P4/4P4/9/9/9/9/4K4 w"
FIVE_PAWNS = "3k5/9/4P4/4P4/4P4/4P4/4P4/9/9/4K4 w"
TWO_FILES = "3k5/9/9/4P4/4P4/2P3P2/2P6/9/9/4K4 w"  # pawns 2 + 2 + 1
THREE_TWO = "3k5/9/9/4P4/4P4/2P1P4/2P6/9/9/4K4 w"
BLACK_PAWNS = "4k4/9/9/2p6/2p3p2/4p4/4p4/9/9/3K5 b"
CROSSED_PAIR = "3k5/9/9/4P4/4P4/9/9/9/9/4K4 w"  # two crossed pawns on file 5
MIDDLE_GAME = "r1bakab2/9/1cn3n1c/p1p1p3p/6p2/2P6/P3P1P1P/1C2C1N2/4A4/RNB1KAB1R b"
RANDOM_STARTS = [
    None,
    TANDEM,
    BLACK_ROOKS,
    THREE_PAWNS,
    FOUR_PAWNS,
    FIVE_PAWNS,
    TWO_FILES,
    THREE_TWO,
    BLACK_PAWNS,
    MIDDLE_GAME,
    # Full armies with stacked pawns and doubled pieces on both sides.
    "2bakab2/4r4/1cn1r1n1c/2p1p1p2/2p1p4/2P1P1P2/2P1P4/1CN1R1N1C/4R4/2BAKAB2 w",
    "rnbakabnr/9/1c5c1/4p4/2p1p1p2/2P1P1P2/4P4/1C5C1/9/RNBAKABNR w",
]


def _board(spec: str) -> Board:
    """``start``, ``start h2e2 ...`` (moves from the start) or a FEN."""
    if spec.startswith("start"):
        board = Board()
        for text in spec.split()[1:]:
            board.push(Move.from_iccs(text))
        return board
    return Board(spec)


def _cases() -> list[tuple[str, str, str, str, str]]:
    rows = []
    for line in (DATA / "notation_cases.tsv").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            fen, move, wxf_text, simplified, traditional = line.split("\t")
            rows.append((fen, move, wxf_text, simplified, traditional))
    return rows


CASES = _cases()


@pytest.mark.parametrize(("position", "move", "wxf_text", "simplified", "traditional"), CASES)
def test_hand_checked_cases(
    position: str, move: str, wxf_text: str, simplified: str, traditional: str
) -> None:
    board = _board(position)
    m = Move.from_iccs(move)
    assert wxf(board, m) == wxf_text
    assert chinese(board, m) == simplified
    assert chinese(board, m, traditional=True) == traditional
    assert iccs(board, m) == move
    assert board.move_text(m) == wxf_text
    for text in (move, wxf_text, simplified, traditional):
        assert parse_any(board, text) == m
        assert board.parse_move(text) == m
    assert parse_wxf(board, wxf_text) == m
    assert parse_chinese(board, simplified) == m
    assert parse_chinese(board, traditional) == m
    assert parse_iccs(board, move) == m


def test_cases_cover_every_convention() -> None:
    wxf_heads = {row[2][:2] for row in CASES}
    assert {"R+", "R-", "H+", "H-", "C+", "C-", "P+", "P-", "++", "--", "55", "5+"} <= wxf_heads
    assert any(row[3].startswith("中") for row in CASES)
    assert any(row[3].startswith("四兵") for row in CASES)


def test_well_known_opening() -> None:
    """中炮对屏风马 (Central Cannon against Screen Horses), checked move by move."""
    line = [
        ("炮二平五", "C2=5", "h2e2"),
        ("马８进７", "H8+7", "h9g7"),
        ("马二进三", "H2+3", "h0g2"),
        ("车９平８", "R9=8", "i9h9"),
        ("车一平二", "R1=2", "i0h0"),
        ("马２进３", "H2+3", "b9c7"),
        ("兵七进一", "P7+1", "c3c4"),
        ("卒７进１", "P7+1", "g6g5"),
        ("车二进六", "R2+6", "h0h6"),
        ("象３进５", "E3+5", "c9e7"),
    ]
    board = Board()
    for chinese_text, wxf_text, iccs_text in line:
        move = Move.from_iccs(iccs_text)
        assert board.is_legal(move)
        assert chinese(board, move) == chinese_text
        assert wxf(board, move) == wxf_text
        assert parse_any(board, chinese_text) == parse_any(board, wxf_text) == move
        board.push(move)
    expected = "r2akabr1/9/1cn1b1nc1/p1p1p2Rp/6p2/2P6/P3P1P1P/1C2C1N2/9/RNBAKAB2"
    assert board.board_fen() == expected


# ----------------------------------------------------------------- lenient reading


@pytest.mark.parametrize(
    ("position", "text", "move"),
    [
        # WXF: case, letters, traverse marks, full width, prefixed tandem markers.
        ("start", "c2=5", "h2e2"),
        ("start", "C2.5", "h2e2"),
        ("start", "C25", "h2e2"),
        ("start", " C2 = 5 ", "h2e2"),
        ("start", "Ｃ２＝５", "h2e2"),
        ("start", "N2+3", "h0g2"),
        ("start", "h2+3", "h0g2"),
        ("start", "B3+5", "g0e2"),
        ("start", "e7+5", "c0e2"),
        ("start", "h2-e2", "h2e2"),
        ("start", "H2E2", "h2e2"),
        ("start h2e2", "h8+7", "h9g7"),
        (TANDEM, "+R+5", "a4a9"),
        (TANDEM, "-R=8", "a1b1"),
        (TANDEM, "R+.5", "a4e4"),  # the wxf.org form: 車前平五
        (TANDEM, "C--1", "i2i1"),
        (TANDEM, "+N+6", "c6d8"),
        (TANDEM, "r++5", "a4a9"),
        # A missing marker is fine when only one piece can make the move.
        (TANDEM, "R9+3", "a4a7"),  # the rear rook is blocked by the front one
        (CROSSED_PAIR, "P+=4", "e6f6"),
        (CROSSED_PAIR, "P-=4", "e5f5"),
        (CROSSED_PAIR, "P5+1", "e6e7"),  # the rear pawn is blocked
        (TWO_FILES, "P+=4", "e6f6"),  # of the front pawns only file 5's can traverse
        (TWO_FILES, "P7+1", "c4c5"),  # the rear pawn is blocked
        # Chinese: both character sets, both colours' names, any digits, marker order.
        ("start", "炮2平5", "h2e2"),
        ("start", "炮２平５", "h2e2"),
        ("start", "包二平五", "h2e2"),
        ("start", "砲二平五", "h2e2"),
        ("start", "傌二進三", "h0g2"),
        ("start", "馬二进三", "h0g2"),
        ("start", "俥一進一", "i0i1"),
        ("start", "車1进1", "i0i1"),
        ("start", "帥五進一", "e0e1"),
        ("start", "将五进一", "e0e1"),
        ("start", "士四进五", "f0e1"),
        ("start", "象三进五", "g0e2"),
        ("start", "卒七进一", "c3c4"),
        ("start", "兵 七 进 一", "c3c4"),
        ("start h2e2", "马8进7", "h9g7"),
        ("start h2e2", "馬八進七", "h9g7"),
        ("start h2e2", "包８平５", "h7e7"),
        ("start h2e2", "將5進1", "e9e8"),
        (TANDEM, "車前進5", "a4a9"),
        (TANDEM, "前車進五", "a4a9"),
        (TANDEM, "後俥平八", "a1b1"),
        (TANDEM, "马前退八", "c6b4"),
        (BLACK_ROOKS, "前车进5", "c5c0"),
        (BLACK_ROOKS, "後車平四", "c8d8"),
        (THREE_PAWNS, "中兵平六", "e5d5"),
        (THREE_PAWNS, "二兵平四", "e5f5"),  # counted from the front, as for four pawns
        (FIVE_PAWNS, "三兵平六", "e5d5"),
        (FIVE_PAWNS, "一兵进一", "e7e8"),
        (TWO_FILES, "前兵七进一", "c4c5"),  # the name kept, then the file
        (TWO_FILES, "前七进一", "c4c5"),
        (TWO_FILES, "兵三进一", "g4g5"),
        (TWO_FILES, "后五平六", "e5d5"),
        (BLACK_PAWNS, "前5平4", "e3d3"),
        (BLACK_PAWNS, "后卒５平６", "e4f4"),
    ],
)
def test_lenient_reading(position: str, text: str, move: str) -> None:
    assert parse_any(_board(position), text) == Move.from_iccs(move)


def test_canonical_middle_pawn_against_loose_reading() -> None:
    # With three pawns on file 5, "P5" is the middle one (WXF); with two it names
    # either, so the move is ambiguous when both could make it.
    assert parse_wxf(Board(THREE_PAWNS), "P5=4") == Move.from_iccs("e5f5")
    with pytest.raises(AmbiguousMoveError):
        parse_wxf(Board(CROSSED_PAIR), "P5=4")
    # With four pawns "P+" is the second from the front, not the front one.
    assert parse_wxf(Board(FOUR_PAWNS), "P+=6") == Move.from_iccs("e7d7")
    assert parse_wxf(Board(FOUR_PAWNS), "++=6") == Move.from_iccs("e8d8")


# ----------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "text", ["", "xyz", "C2=0", "C2=", "Z2=5", "炮二平", "炮二平十", "h2e", "j2e2", "前后兵进一"]
)
def test_not_a_move(text: str) -> None:
    with pytest.raises(InvalidMoveError, match=r"ICCS.*WXF.*Chinese"):
        parse_any(Board(), text)


def test_notation_specific_readers_reject_other_notations() -> None:
    board = Board()
    with pytest.raises(InvalidMoveError, match="WXF"):
        parse_wxf(board, "炮二平五")
    with pytest.raises(InvalidMoveError, match="Chinese"):
        parse_chinese(board, "C2=5")
    with pytest.raises(InvalidMoveError, match="ICCS"):
        parse_iccs(board, "C2=5")


@pytest.mark.parametrize(
    ("position", "text", "message"),
    [
        ("start", "h2h8", "a cannon cannot move like that"),
        ("start", "d3d4", "no piece on d3"),
        ("start", "h7e7", "it is Red's turn"),
        ("start", "C2=9", "the cannon on h2 cannot move that way"),
        ("start", "P1-1", "the soldier on i3 cannot move that way"),
        ("start", "C5=4", "Red has no cannon on file 5"),
        ("start", "+C=5", "Red has no front cannon"),
        ("start", "炮五平四", "Red has no cannon on file 5"),
        ("start", "H2+5", "the horse on h0 cannot move that way"),
        (TANDEM, "R9+9", "no rook on file 9 can move that way"),
        (TWO_FILES, "中五平四", "Red has no middle soldier on file 5"),
        (FIVE_PAWNS, "五兵平四", "the soldier on e3 cannot move that way"),
        # Pinned: the horse on e1 stands between the generals.
        ("4k4/9/9/9/9/9/9/9/4N4/4K4 w", "H5+7", "leave the general in check or facing"),
    ],
)
def test_illegal_moves_say_why(position: str, text: str, message: str) -> None:
    with pytest.raises(IllegalMoveError, match=message):
        parse_any(_board(position), text)


@pytest.mark.parametrize(
    ("position", "text"),
    [
        (TANDEM, "R9+1"),  # either rook on file 9
        (TANDEM, "H7+6"),  # c6d8 or c2d4
        (TANDEM, "N7+6"),
        (TANDEM, "C1=2"),
        (TANDEM, "马七进六"),
        (CROSSED_PAIR, "兵五平四"),
        (TWO_FILES, "前兵进一"),  # the front pawn of file 3, 5 or 7
    ],
)
def test_ambiguous_moves(position: str, text: str) -> None:
    with pytest.raises(AmbiguousMoveError, match="write"):
        parse_any(_board(position), text)


def test_ambiguous_message_suggests_canonical_texts() -> None:
    with pytest.raises(AmbiguousMoveError) as info:
        parse_any(Board(TANDEM), "R9+1")
    assert "R++1 (a4a5)" in str(info.value)
    assert "R-+1 (a1a2)" in str(info.value)


def test_game_over_rejects_every_notation() -> None:
    board = Board("4k4/9/9/9/9/9/9/9/9/3K5 w")  # bare generals: insufficient material
    assert board.is_game_over()
    for text in ("d0d1", "K6+1", "帅六进一"):
        with pytest.raises(IllegalMoveError, match="game is over"):
            parse_any(board, text)
    # Writing still works for moves legal by the movement rules.
    assert wxf(board, Move.from_iccs("d0d1")) == "K6+1"


def test_writers_refuse_illegal_moves() -> None:
    board = Board()
    with pytest.raises(IllegalMoveError, match="no piece on d3"):
        wxf(board, Move.from_iccs("d3d4"))
    with pytest.raises(IllegalMoveError):
        chinese(board, Move.from_iccs("h2h8"))


# ----------------------------------------------------------------- dispatch


def test_move_to_and_parse_move_by_name() -> None:
    board = Board()
    move = Move.from_iccs("h0g2")
    expected = {
        "iccs": "h0g2",
        "wxf": "H2+3",
        "chinese": "马二进三",
        "chinese-traditional": "傌二進三",
    }
    assert set(expected) == set(NOTATIONS)
    for name, text in expected.items():
        assert move_to(board, move, name) == text
        assert parse_move(board, text, name) == move
        assert parse_move(board, text) == move
    with pytest.raises(InvalidMoveError):
        parse_move(board, "H2+3", "chinese")
    with pytest.raises(ValueError, match="unknown notation"):
        move_to(board, move, "san")
    with pytest.raises(ValueError, match="unknown notation"):
        parse_move(board, "h0g2", "san")


def test_doctests() -> None:
    result = doctest.testmod(notation)
    assert result.attempted > 0
    assert result.failed == 0


# ----------------------------------------------------------------- round trips


def _check_every_move(board: Board) -> None:
    moves = list(board.legal_moves())
    writers: tuple[tuple[str, Callable[[Move], str], Callable[[Board, str], Move]], ...] = (
        ("wxf", lambda m: wxf(board, m), parse_wxf),
        ("chinese", lambda m: chinese(board, m), parse_chinese),
        ("traditional", lambda m: chinese(board, m, traditional=True), parse_chinese),
    )
    for name, write, read in writers:
        texts = {}
        for move in moves:
            text = write(move)
            assert read(board, text) == move, (board.fen(), name, move, text)
            assert parse_any(board, text) == move, (board.fen(), name, move, text)
            texts[text] = move
        assert len(texts) == len(moves), (board.fen(), name)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(min_value=0, max_value=10_000), max_size=150))
def test_round_trip_in_random_games(choices: list[int]) -> None:
    board = Board()
    _check_every_move(board)
    for choice in choices:
        moves = list(board.legal_moves())
        if not moves:
            break
        board.push(moves[choice % len(moves)])
        _check_every_move(board)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(RANDOM_STARTS),
    st.lists(st.integers(min_value=0, max_value=10_000), max_size=60),
)
def test_round_trip_from_crowded_positions(start: str | None, choices: list[int]) -> None:
    board = Board(start) if start else Board()
    _check_every_move(board)
    for choice in choices:
        moves = list(board.legal_moves())
        if not moves:
            break
        board.push(moves[choice % len(moves)])
        _check_every_move(board)


@pytest.mark.parametrize("start", RANDOM_STARTS)
def test_round_trip_two_plies_deep(start: str | None) -> None:
    """Every move of every position two plies from each crowded start."""
    board = Board(start) if start else Board()
    _check_every_move(board)
    for move in list(board.legal_moves())[:12]:
        board.push(move)
        _check_every_move(board)
        board.pop()


@pytest.mark.parametrize("seed", range(3))
def test_round_trip_long_seeded_games(seed: int) -> None:
    """Every move of every position of three full-length random games."""
    rng = random.Random(seed)
    board = Board()
    for _ in range(150):
        _check_every_move(board)
        moves = list(board.legal_moves())
        if not moves:
            break
        board.push(rng.choice(moves))
    assert board.ply > 20
