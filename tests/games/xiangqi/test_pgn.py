"""PGN for xiangqi: writing, reading (comments, variations, several games), errors, round trips."""

from __future__ import annotations

import doctest
import random
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lanqi.games.xiangqi import pgn
from lanqi.games.xiangqi.core import STARTING_FEN, Board, Move
from lanqi.games.xiangqi.notation import NOTATIONS
from lanqi.games.xiangqi.pgn import PgnError, PgnGame, read_pgn, read_pgns, write_pgn

DATA = Path(__file__).parent / "data"
OPENING = ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7", "c3c4", "g6g5", "h0h6", "c9e7"]
ENDGAME = "3k5/9/9/9/9/9/9/9/4A4/3AK1R2 b - - 0 1"  # Black to move first
STACKED_BLACK_FIRST = "rnbakabnr/9/1c5c1/4p4/2p1p1p2/2P1P1P2/4P4/1C5C1/9/RNBAKABNR b"
MATE_IN_ONE = "3k5/8R/9/9/9/9/9/9/9/R3K4 w - - 0 1"  # a0a9 mates


def _played(moves: list[str], fen: str | None = None) -> Board:
    board = Board(fen) if fen else Board()
    for text in moves:
        board.push(Move.from_iccs(text))
    return board


def _width(line: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)


def _random_game(rng: random.Random, plies: int, fen: str | None = None) -> Board:
    board = Board(fen) if fen else Board()
    for _ in range(plies):
        moves = list(board.legal_moves())
        if not moves:
            break
        board.push(rng.choice(moves))
    return board


# ----------------------------------------------------------------- writing


def test_write_default_tags_and_moves() -> None:
    text = write_pgn(_played(OPENING[:4]))
    assert text == (
        '[Game "Chinese Chess"]\n'
        '[Event "?"]\n'
        '[Site "?"]\n'
        '[Date "?"]\n'
        '[Round "?"]\n'
        '[Red "?"]\n'
        '[Black "?"]\n'
        '[Result "*"]\n'
        '[Variant "xiangqi"]\n'
        '[Format "WXF"]\n'
        "\n"
        "1. C2=5 H8+7 2. H2+3 R9=8 *\n"
    )


@pytest.mark.parametrize(
    ("notation", "format_tag", "movetext"),
    [
        ("wxf", "WXF", "1. C2=5 H8+7 2. H2+3 R9=8 *"),
        ("iccs", "ICCS", "1. h2e2 h9g7 2. h0g2 i9h9 *"),
        ("chinese", "Chinese", "1. 炮二平五 马８进７ 2. 马二进三 车９平８ *"),
        ("chinese-traditional", "Chinese", "1. 炮二平五 馬８進７ 2. 傌二進三 車９平８ *"),
    ],
)
def test_write_each_notation(notation: str, format_tag: str, movetext: str) -> None:
    text = write_pgn(_played(OPENING[:4]), notation=notation)
    assert f'[Format "{format_tag}"]' in text
    assert text.rstrip("\n").splitlines()[-1] == movetext


def test_write_given_headers_override_defaults_and_extra_tags_follow() -> None:
    headers = {"Red": "Xu Yinchuan", "Event": 'The "Cup"', "Opening": "中炮", "Result": "1-0"}
    text = write_pgn(_played(OPENING[:2]), headers)
    lines = text.splitlines()
    assert lines[1] == '[Event "The \\"Cup\\""]'
    assert lines[5] == '[Red "Xu Yinchuan"]'
    assert lines[7] == '[Result "1-0"]'
    assert lines[10] == '[Opening "中炮"]'
    assert text.endswith("1. C2=5 H8+7 1-0\n")


def test_write_ignores_given_fen_and_format() -> None:
    text = write_pgn(Board(), {"FEN": "nonsense", "SetUp": "1", "Format": "PDN"})
    assert "FEN" not in text
    assert "SetUp" not in text
    assert '[Format "WXF"]' in text


def test_write_non_standard_start_black_first() -> None:
    board = _played(["d9e9", "g0g9", "e9e8"], ENDGAME)
    text = write_pgn(board)
    assert f'[FEN "{ENDGAME}"]' in text
    assert '[SetUp "1"]' in text
    assert text.splitlines()[-1] == "1... K4=5 2. R3+9 K5+1 *"


def test_write_numbers_from_the_fen_move_counter() -> None:
    board = _played(["d9e9", "g0g9"], ENDGAME.replace(" 0 1", " 0 17"))
    assert write_pgn(board).splitlines()[-1] == "17... K4=5 18. R3+9 *"


def test_write_standard_start_has_no_fen() -> None:
    board = _played(OPENING)
    assert board.start_fen == STARTING_FEN
    assert "FEN" not in write_pgn(board)


def test_write_result_from_the_board() -> None:
    board = _played(["a0a9"], MATE_IN_ONE)
    assert board.is_checkmate()
    text = write_pgn(board)
    assert '[Result "1-0"]' in text
    assert text.endswith("1. R9+9 1-0\n")


@pytest.mark.parametrize("notation", NOTATIONS)
def test_write_wraps_at_80_columns(notation: str) -> None:
    board = _random_game(random.Random(7), 120)
    text = write_pgn(board, notation=notation)
    movetext = text.split("\n\n", 1)[1].splitlines()
    assert len(movetext) > 3
    assert all(_width(line) <= 80 for line in movetext)
    assert all(not line.endswith(" ") for line in movetext)


def test_write_unknown_notation() -> None:
    with pytest.raises(ValueError, match="unknown notation"):
        write_pgn(Board(), notation="san")


def test_write_does_not_change_the_board() -> None:
    board = _played(OPENING)
    fen = board.fen()
    write_pgn(board, notation="chinese")
    assert board.fen() == fen
    assert [str(m) for m in board.move_stack] == OPENING


# ----------------------------------------------------------------- reading


def test_read_the_sample_file() -> None:
    games = read_pgns((DATA / "pgn_games.pgn").read_text(encoding="utf-8"))
    assert len(games) == 3
    first, second, third = games
    assert first.headers["Event"] == 'Club "Spring" Open'
    assert first.headers["Red"] == "Red Player"
    assert [str(m) for m in first.board.move_stack] == OPENING
    assert first.result == "1-0"
    assert second.board.start_fen == ENDGAME
    assert [str(m) for m in second.board.move_stack] == ["d9e9", "g0g9", "e9e8", "g9g8", "e8e9"]
    assert second.result == "*"
    assert third.headers == {"Event": "Coordinates", "Result": "0-1"}
    assert [str(m) for m in third.board.move_stack] == OPENING[:5]
    assert third.result == "0-1"


def test_read_pgn_gives_the_first_game() -> None:
    text = (DATA / "pgn_games.pgn").read_text(encoding="utf-8")
    game = read_pgn(text)
    assert isinstance(game, PgnGame)
    assert game.headers["Round"] == "1"


def test_read_skips_comments_variations_nags_and_marks() -> None:
    text = """
    [Red "A"]
    1. h2e2 {a comment (with parentheses) and ; semicolon} $14 h9g7!
    ; 2. this whole line is a comment
    (1... b7e7 (1... h7e7 2. h0g2) 2. b0c2 {nested}) 2.H2+3?? 车９平８ $2 *
    """
    game = read_pgn(text)
    assert [str(m) for m in game.board.move_stack] == ["h2e2", "h9g7", "h0g2", "i9h9"]
    assert game.headers == {"Red": "A"}


def test_read_move_numbers_attached_or_apart() -> None:
    for movetext in (
        "1.C2=5 H8+7 2.H2+3",
        "1. C2=5 1... H8+7 2. H2+3",
        "1.C2=5 1...H8+7 2.H2+3",
        "1. C2=5 ... H8+7 2. H2+3",
    ):
        game = read_pgn(movetext)
        assert [str(m) for m in game.board.move_stack] == ["h2e2", "h9g7", "h0g2"], movetext


def test_read_wxf_middle_pawn_with_a_dot_is_not_a_move_number() -> None:
    # Red pawns c3, c4 and e4, e5, e6: "55.4" moves the middle pawn of file 5.
    fen = "3k5/9/9/4P4/4P4/2P1P4/2P6/9/9/4K4 w - - 0 1"
    game = read_pgn(f'[FEN "{fen}"]\n1. 55.4 *')
    assert [str(m) for m in game.board.move_stack] == ["e5f5"]


def test_read_result_token_then_header() -> None:
    assert read_pgn('[Result "1-0"]\n1. h2e2 *').result == "*"
    assert read_pgn('[Result "1-0"]\n1. h2e2').result == "1-0"
    assert read_pgn("1. h2e2").result == "*"


def test_read_games_without_a_blank_line_or_headers_between() -> None:
    games = read_pgns('[Event "a"]\n1. h2e2 *\n[Event "b"]\n1. h0g2 1-0 1. b0c2 *')
    assert [g.headers.get("Event") for g in games] == ["a", "b", None]
    assert [str(g.board.move_stack[0]) for g in games] == ["h2e2", "h0g2", "b0c2"]


def test_read_byte_order_mark_and_crlf() -> None:
    game = read_pgn('\ufeff[Event "x"]\r\n\r\n1. C2=5 H8+7 *\r\n')
    assert game.headers["Event"] == "x"
    assert len(game.board.move_stack) == 2


def test_read_empty_text() -> None:
    assert read_pgns("") == []
    assert read_pgns("  % nothing\n{only a comment}\n") == []
    with pytest.raises(PgnError, match="no game"):
        read_pgn("")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[Event "x"]\n1. h2e2 h9g7 2. h2e2 *', r"game 1, move 2\. h2e2 \(line 2\): .*no piece"),
        ('[Event "x"]\n1. C2=5 C5=4', r"game 1, move 1\.\.\. C5=4 .*Black has no cannon on file 5"),
        ("1. h2e2 *\n\n1. h2e2 xyzzy *", r"game 2, move 1\.\.\. xyzzy .*not a move"),
        ('[FEN "9/9/9 w"]\n1. h2e2', r"game 1: bad FEN tag"),
        ("1. h2e2 {unterminated", r"line 1: unterminated comment"),
        ('[Event "x"\n1. h2e2', r"unexpected '\['"),
    ],
)
def test_read_errors_name_game_move_and_text(text: str, message: str) -> None:
    with pytest.raises(PgnError, match=message):
        read_pgns(text)


def test_read_rejects_moves_after_the_game_ended() -> None:
    text = f'[FEN "{MATE_IN_ONE}"]\n1. a0a9 d9e9 1-0'
    with pytest.raises(PgnError, match="game is over"):
        read_pgn(text)


def test_pgn_error_is_a_value_error() -> None:
    assert issubclass(PgnError, ValueError)


def test_doctests() -> None:
    result = doctest.testmod(pgn)
    assert result.attempted > 0
    assert result.failed == 0


# ----------------------------------------------------------------- round trips


def _assert_round_trip(board: Board, headers: dict[str, str], notation: str) -> None:
    text = write_pgn(board, headers, notation=notation)
    game = read_pgn(text)
    assert game.board.move_stack == board.move_stack
    assert game.board.start_fen == board.start_fen
    assert game.board.fen() == board.fen()
    for name, value in headers.items():
        assert game.headers[name] == value
    assert game.result == game.headers["Result"] == headers.get("Result", board.result())
    # Writing what was read gives the same text again.
    assert write_pgn(game.board, game.headers, notation=notation) == text


@pytest.mark.parametrize("notation", NOTATIONS)
@pytest.mark.parametrize("seed", range(4))
def test_round_trip_random_games(notation: str, seed: int) -> None:
    rng = random.Random(seed)
    headers = {"Event": "Round trip", "Red": "红方 \\ Red", "Black": 'Bl"ack', "Date": "2025.01.02"}
    _assert_round_trip(_random_game(rng, 150), headers, notation)


@pytest.mark.parametrize("notation", NOTATIONS)
def test_round_trip_from_a_fen_black_first(notation: str) -> None:
    board = _random_game(random.Random(3), 40, "3k5/9/9/2p1p4/2p1p1p2/9/2P3P2/2R1K1R2/9/9 b")
    assert board.start_fen != STARTING_FEN
    _assert_round_trip(board, {"Result": "1/2-1/2"}, notation)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(NOTATIONS),
    st.sampled_from([None, ENDGAME, STACKED_BLACK_FIRST]),
    st.integers(min_value=0, max_value=2**32 - 1),
    st.integers(min_value=0, max_value=150),
    st.dictionaries(
        st.sampled_from(["Event", "Site", "Red", "Black", "Round", "Annotator", "Opening"]),
        st.text(st.characters(exclude_categories=("Cc", "Cs", "Zl", "Zp")), max_size=20),
        max_size=4,
    ),
)
def test_round_trip_property(
    notation: str, fen: str | None, seed: int, plies: int, headers: dict[str, str]
) -> None:
    board = _random_game(random.Random(seed), plies, fen)
    _assert_round_trip(board, headers, notation)


def test_clock_comments_follow_their_moves_and_read_back() -> None:
    from lanqi.games.xiangqi import Board
    from lanqi.games.xiangqi.pgn import clock_comment, read_pgn, write_pgn

    board = Board()
    for move in ("h2e2", "h9g7", "h0g2"):
        board.push_text(move)
    clocks = [clock_comment(ms) for ms in (599_999, 3_601_000)]
    text = write_pgn(board, {"Event": "Clocks"}, notation="iccs", comments=clocks)
    assert "1. h2e2 {[%clk 0:09:59]} h9g7 {[%clk 1:00:01]} 2. h0g2 *" in text
    again = read_pgn(text)
    assert [str(m) for m in again.board.move_stack] == ["h2e2", "h9g7", "h0g2"]
