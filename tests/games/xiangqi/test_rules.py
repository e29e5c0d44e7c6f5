"""Hand-written cases for every xiangqi movement rule, each position written out."""

from __future__ import annotations

import pytest

from lanqi.games.base import (
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    Outcome,
    Termination,
)
from lanqi.games.xiangqi import STARTING_FEN, Board, Color, Move, parse_square


def targets(board: Board, frm: str) -> set[str]:
    """ICCS destinations of the legal moves from square ``frm``."""
    sq = parse_square(frm)
    return {str(m)[2:] for m in board.generate_legal_moves() if m.from_square == sq}


# ---------------------------------------------------------------- FEN and moves


def test_start_position_fen_round_trip() -> None:
    board = Board()
    assert board.fen() == STARTING_FEN
    assert Board.from_fen(board.fen()).fen() == STARTING_FEN
    assert board.turn is Color.RED


def test_fen_accepts_r_for_red_and_optional_fields() -> None:
    red = Board.from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR r")
    assert red.turn is Color.RED
    assert red.fen() == STARTING_FEN
    black = Board.from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 3 7")
    assert black.turn is Color.BLACK
    assert (black.halfmove_clock, black.fullmove_number) == (3, 7)


@pytest.mark.parametrize(
    ("fen", "fragment"),
    [
        ("", "empty"),
        ("rnbakabnr/9/1c5c1 w", "10 ranks"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNX w", "piece letter"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABN w", "8 files"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR x", "side to move"),
        ("rnba1abnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", "exactly one general"),
        ("4k4/9/9/9/9/9/9/9/9/K8 w", "outside its palace"),
        ("4k4/9/9/9/9/9/9/9/P8/4K4 w", "soldier"),
        ("4k4/9/9/9/9/9/9/9/9/4K4 b", "not to move is in check"),
    ],
)
def test_bad_fens_are_refused_with_a_reason(fen: str, fragment: str) -> None:
    with pytest.raises(InvalidPositionError, match=fragment):
        Board.from_fen(fen)


def test_move_value_object() -> None:
    move = Move.from_iccs("h2e2")
    assert str(move) == "h2e2"
    assert eval(repr(move)) == move
    assert Move.from_iccs("H2-E2") == move
    with pytest.raises(InvalidMoveError):
        Move.from_iccs("z9z9")
    with pytest.raises(InvalidMoveError):
        Move.from_iccs("h2e")


def test_push_refuses_illegal_moves_with_reason_and_changes_nothing() -> None:
    board = Board()
    for text, reason in [
        ("a5a4", "no piece"),
        ("a6a5", "turn"),
        ("b0b2", "cannot move like that"),
        ("a3b3", "cannot move like that"),
    ]:
        with pytest.raises(IllegalMoveError, match=reason):
            board.push(Move.from_iccs(text))
        assert board.fen() == STARTING_FEN
        assert board.ply == 0


def test_pop_on_empty_history_raises() -> None:
    with pytest.raises(IndexError):
        Board().pop()


# ---------------------------------------------------------------- pieces


def test_horse_leg_blocks() -> None:
    # Red horse on b0: jumps to a2 and c2 over the leg b1, to d1 over the leg c0.
    free = Board.from_fen("3k5/9/9/9/9/9/9/9/9/1N2K4 w")
    assert targets(free, "b0") == {"a2", "c2", "d1"}
    blocked = Board.from_fen("3k5/9/9/9/9/9/9/9/1p7/1N2K4 w")  # black soldier on b1
    assert targets(blocked, "b0") == {"d1"}
    side_blocked = Board.from_fen("3k5/9/9/9/9/9/9/9/9/1NB1K4 w")  # red elephant on c0
    assert targets(side_blocked, "b0") == {"a2", "c2"}


def test_elephant_eye_and_river() -> None:
    board = Board.from_fen("3k5/9/9/9/9/2B6/9/9/9/4K4 w")  # red elephant on c4, at the river
    assert targets(board, "c4") == {"a2", "e2"}  # never across to a6/e6
    blocked = Board.from_fen("3k5/9/9/9/9/2B6/3p5/9/9/4K4 w")  # black soldier fills eye d3
    assert targets(blocked, "c4") == {"a2"}


def test_advisor_and_general_stay_in_palace() -> None:
    board = Board.from_fen("5k3/9/9/9/9/9/9/9/4A4/3K5 w")
    assert targets(board, "e1") == {"f0", "d2", "f2"}  # d0 holds the general
    assert targets(board, "d0") == {"d1", "e0"}  # c0 is outside the palace


def test_rook_slides_and_captures() -> None:
    board = Board.from_fen("3k5/9/9/9/4p4/9/9/9/9/R3K4 w")
    assert targets(board, "a0") == {f"a{r}" for r in range(1, 10)} | {"b0", "c0", "d0"}


def test_cannon_needs_exactly_one_screen_to_capture() -> None:
    # Red cannon a0, screen a4 (red soldier), black rooks on a7 and a9.
    board = Board.from_fen("r2k5/9/r8/9/9/P8/9/9/9/C3K4 w")
    tos = targets(board, "a0")
    assert "a7" in tos  # jumps the single screen
    assert "a9" not in tos  # two pieces in between
    assert "a4" not in tos and "a5" not in tos  # no capture of its own piece, no quiet jump
    assert {"a1", "a2", "a3", "b0", "c0", "d0"} <= tos
    no_screen = Board.from_fen("3k5/9/r8/9/9/9/9/9/9/C3K4 w")
    assert "a7" not in targets(no_screen, "a0")


def test_soldier_moves_forward_then_sideways_after_the_river() -> None:
    home = Board.from_fen("3k5/9/9/9/9/9/4P4/9/9/4K4 w")
    assert targets(home, "e3") == {"e4"}
    crossed = Board.from_fen("3k5/9/9/9/4P4/9/9/9/9/4K4 w")
    assert targets(crossed, "e5") == {"e6", "d5", "f5"}
    bottom = Board.from_fen("P2k5/9/9/9/9/9/9/9/9/4K4 w")
    assert targets(bottom, "a9") == {"b9"}  # never backwards
    black = Board.from_fen("3k5/9/9/9/9/4p4/9/9/9/4K4 b")
    assert targets(black, "e4") == {"e3", "d4", "f4"}


# ---------------------------------------------------------------- general safety


def test_generals_may_not_face_on_an_open_file() -> None:
    board = Board.from_fen("3k5/9/9/9/9/9/9/9/9/4K4 w")
    assert targets(board, "e0") == {"e1", "f0"}  # d0 would face the black general


def test_pinned_piece_may_not_leave_the_file_between_the_generals() -> None:
    # The red cannon on e4 is all that stands between the two generals: it may only
    # slide along the file.  A horse there may not move at all.
    board = Board.from_fen("4k4/9/9/9/9/4C4/9/9/9/4K4 w")
    assert targets(board, "e4") == {"e1", "e2", "e3", "e5", "e6", "e7", "e8"}
    horse = Board.from_fen("4k4/9/9/9/9/4N4/9/9/9/4K4 w")
    assert targets(horse, "e4") == set()


def test_cannon_pin_through_two_screens() -> None:
    # Black cannon e7; red soldier e3 and horse e2 are two screens before the red general.
    # Taking either off the file leaves one screen: check. The soldier may advance on it.
    board = Board.from_fen("3k5/9/4c4/9/9/9/4P4/4N4/9/4K4 w")
    assert not board.is_check()
    assert targets(board, "e2") == set()
    assert targets(board, "e3") == {"e4"}


def test_moving_onto_the_file_can_make_a_screen() -> None:
    # Black cannon e7 faces the red general e0 on an open file: no check (no screen).
    # The red rook on a1 may not stop on e1, which would become the screen.
    board = Board.from_fen("3k5/9/4c4/9/9/9/9/9/R8/4K4 w")
    assert not board.is_check()
    tos = targets(board, "a1")
    assert "e1" not in tos
    assert {"d1", "f1", "i1"} <= tos


def test_every_reply_to_a_horse_check_leaves_the_general_safe() -> None:
    board = Board.from_fen("3k5/9/9/9/9/9/9/3n5/9/4K4 w")  # black horse d2 checks e0
    assert board.is_check()
    replies = list(board.generate_legal_moves())
    assert replies
    for move in replies:
        board.push(move)
        assert not board.attackers(Color.BLACK, board.king(Color.RED))
        board.pop()


# ---------------------------------------------------------------- game end


def test_checkmate_is_a_loss_for_the_side_to_move() -> None:
    # Two-rook mate: b9 checks along rank 9, a8 covers rank 8.
    board = Board.from_fen("1R2k4/R8/9/9/9/9/9/9/9/3K5 b")
    assert board.is_check()
    assert list(board.generate_legal_moves()) == []
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.winner is Color.RED
    assert outcome.termination is Termination.CHECKMATE
    assert board.result() == "1-0"
    assert board.is_checkmate() and board.is_game_over()


def test_stalemate_is_a_loss_not_a_draw() -> None:
    # Black general d9 is not in check, but the rook on a8 covers d8 and e9 would
    # face the red general on the open e file: no legal move.
    board = Board.from_fen("3k5/R8/9/9/9/9/9/9/9/4K4 b")
    assert not board.is_check()
    assert list(board.generate_legal_moves()) == []
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.termination is Termination.STALEMATE
    assert outcome.winner is Color.RED
    assert board.result() == "1-0"
    assert board.is_stalemate()


def test_perpetual_check_loses_for_the_checker() -> None:
    board = Board.from_fen("4k4/9/9/9/9/9/9/9/9/R2K5 w - - 0 1")
    moves = ["a0a9", "e9e8", "a9a8", "e8e9", "a8a9", "e9e8", "a9a8", "e8e9"]
    for text in moves:
        board.push(Move.from_iccs(text))
        assert board.outcome() is None
    board.push(Move.from_iccs("a8a9"))  # third time this position stands
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.termination is Termination.PERPETUAL_CHECK
    assert outcome.winner is Color.BLACK
    assert list(board.legal_moves()) == []
    with pytest.raises(IllegalMoveError, match="game is over"):
        board.push(Move.from_iccs("e9e8"))


def test_perpetual_check_is_a_plain_draw_when_repetition_rule_is_draw() -> None:
    board = Board.from_fen("4k4/9/9/9/9/9/9/9/9/R2K5 w - - 0 1", repetition="draw")
    for text in ["a0a9", "e9e8", "a9a8", "e8e9", "a8a9", "e9e8", "a9a8", "e8e9", "a8a9"]:
        board.push(Move.from_iccs(text))
    outcome = board.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.termination) == (None, Termination.REPETITION)


def test_rulings_table() -> None:
    from lanqi.games.xiangqi.repetition import CycleReport, rule_on

    def report(checks: tuple[list[bool], list[bool]], chases: tuple[int, int]) -> CycleReport:
        made = CycleReport()
        made.checks[0].extend(checks[0])
        made.checks[1].extend(checks[1])
        for side in (0, 1):
            pair = {(1, 2)} if chases[side] else set()
            made.chases[side].extend([pair, pair])
        return made

    both_check = report(([True, True], [True, True]), (0, 0))
    assert rule_on(both_check, "axf") == Outcome(None, Termination.REPETITION)
    red_checks = report(([True, True], [False, True]), (0, 1))
    assert rule_on(red_checks, "axf") == Outcome(Color.BLACK, Termination.PERPETUAL_CHECK)
    assert rule_on(red_checks, "check") == Outcome(Color.BLACK, Termination.PERPETUAL_CHECK)
    assert rule_on(red_checks, "draw") == Outcome(None, Termination.REPETITION)
    black_chases = report(([False, False], [False, False]), (0, 1))
    assert rule_on(black_chases, "axf") == Outcome(Color.RED, Termination.PERPETUAL_CHASE)
    assert rule_on(black_chases, "check") == Outcome(None, Termination.REPETITION)
    both_chase = report(([False, False], [False, False]), (1, 1))
    assert rule_on(both_chase, "axf") == Outcome(None, Termination.REPETITION)


def test_perpetual_chase_loses_for_the_chaser() -> None:
    # Red rook chases the unprotected black horse between a7 and b5.
    fen = "5k3/9/n6R1/9/9/9/9/9/9/3K5 b - - 0 1"
    cycle = ["a7b5", "h7h5", "b5a7", "h5h7", "a7b5", "h7h5", "b5a7", "h5h7"]
    board = Board.from_fen(fen)
    for text in cycle:
        board.push(Move.from_iccs(text))
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.termination is Termination.PERPETUAL_CHASE
    assert outcome.winner is Color.BLACK
    # Under the "check" rule set a chase is no offence: the repetition is a draw.
    lenient = Board.from_fen(fen, repetition="check")
    for text in cycle:
        lenient.push(Move.from_iccs(text))
    outcome = lenient.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.termination) == (None, Termination.REPETITION)


def test_chasing_a_protected_piece_is_a_draw() -> None:
    # The same cycle, but a black rook on a9 protects the horse on a7: only the
    # moves attacking b5 chase, so red is not chasing perpetually.
    board = Board.from_fen("r4k3/9/n6R1/9/9/9/9/9/9/3K5 b - - 0 1")
    for text in ["a7b5", "h7h5", "b5a7", "h5h7", "a7b5", "h7h5", "b5a7", "h5h7"]:
        board.push(Move.from_iccs(text))
    outcome = board.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.termination) == (None, Termination.REPETITION)


def test_idle_repetition_is_a_draw() -> None:
    board = Board.from_fen("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1")
    for text in ["a0a1", "d9d8", "a1a0", "d8d9", "a0a1", "d9d8", "a1a0"]:
        board.push(Move.from_iccs(text))
        assert board.outcome() is None
    board.push(Move.from_iccs("d8d9"))
    outcome = board.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.termination) == (None, Termination.REPETITION)


def test_repetition_count_is_configurable() -> None:
    board = Board.from_fen("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1", repetition_count=2)
    for text in ["a0a1", "d9d8", "a1a0"]:
        board.push(Move.from_iccs(text))
    assert board.outcome() is None
    board.push(Move.from_iccs("d8d9"))
    outcome = board.outcome()
    assert outcome is not None and outcome.termination is Termination.REPETITION


def test_move_limit_without_capture_is_a_draw() -> None:
    board = Board.from_fen("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 117 70")
    board.push(Move.from_iccs("a0a5"))
    board.push(Move.from_iccs("d9d8"))
    assert board.outcome() is None
    board.push(Move.from_iccs("a5a6"))
    outcome = board.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.termination) == (None, Termination.MOVE_LIMIT)
    off = Board.from_fen("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 500 300", move_limit=0)
    assert off.outcome() is None


def test_capture_resets_the_move_limit() -> None:
    board = Board.from_fen("3k5/9/9/9/9/9/9/9/8r/R3K4 w - - 100 60")
    board.push(Move.from_iccs("a0a1"))
    assert board.halfmove_clock == 101
    board.push(Move.from_iccs("d9d8"))
    board.push(Move.from_iccs("a1i1"))
    assert board.halfmove_clock == 0
    board.pop()
    assert board.halfmove_clock == 102


def test_insufficient_material_is_a_draw() -> None:
    board = Board.from_fen("3akab2/9/4b4/9/9/9/9/4B4/4A4/3AK1B2 w")
    outcome = board.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.termination) == (None, Termination.INSUFFICIENT_MATERIAL)
    with_pawn = Board.from_fen("3akab2/9/4b4/9/9/9/p8/4B4/4A4/3AK1B2 w")
    assert with_pawn.outcome() is None


def test_options_are_validated() -> None:
    with pytest.raises(ValueError, match="repetition must be"):
        Board(repetition="sometimes")
    with pytest.raises(ValueError, match="move_limit"):
        Board(move_limit=-1)
    with pytest.raises(ValueError, match="unknown option"):
        Board.from_options({"colour": "red"})


# The chase exceptions of docs/rules.md, one position each, with a control that is a chase.
@pytest.mark.parametrize(
    ("fen", "chaser", "chased"),
    [
        # exchange offers: the threatened piece is of the same kind and threatens back
        ("4k4/r8/9/9/R8/9/9/9/9/3K5 w - - 0 1", "a5", []),
        ("4k4/9/9/3n5/9/2N6/9/9/9/3K5 w - - 0 1", "c4", []),
        ("4k4/n8/9/9/R8/9/9/9/9/3K5 w - - 0 1", "a5", ["a8"]),  # control: a horse
        # a soldier that has not crossed the river may be chased freely
        ("4k4/9/9/2p6/9/9/9/2R6/9/3K5 w - - 0 1", "c2", []),
        ("4k4/9/9/9/9/2p6/9/2R6/9/3K5 w - - 0 1", "c2", ["c4"]),  # control: crossed
        # a rook threatened by a horse or a cannon is chased even when protected
        ("3rk4/9/3r5/9/2N6/9/9/9/9/5K3 w - - 0 1", "c5", ["d7"]),
        ("3rk4/9/3r5/9/3P5/9/3C5/9/9/5K3 w - - 0 1", "d3", ["d7"]),
        ("3rk4/9/3c5/9/2N6/9/9/9/9/5K3 w - - 0 1", "c5", []),  # control: a protected cannon
        ("3rk4/9/3n5/9/9/9/9/3R5/9/5K3 w - - 0 1", "d2", []),  # control: rook on a protected horse
    ],
)
def test_chase_exceptions(fen: str, chaser: str, chased: list[str]) -> None:
    from lanqi.games.xiangqi.repetition import chased_squares

    board = Board.from_fen(fen)
    assert board._squares[parse_square(chaser)], f"no piece on {chaser}"
    for name in chased:
        assert board._squares[parse_square(name)], f"no piece on {name}"
    assert chased_squares(board, parse_square(chaser)) == {parse_square(name) for name in chased}
