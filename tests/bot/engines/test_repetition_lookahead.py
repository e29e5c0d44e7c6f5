"""The repetition look-ahead before each ``go`` (issue 25): ``Board.repeating_moves``
finds by hash the moves that repeat a position, and ``losing_repetition_moves`` judges
only those; both give what playing every legal move gave, on random games that shuffle
pieces back and forth (so positions do repeat) under every rule set and count."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lanqi.bot.engines.uci import losing_repetition_moves
from lanqi.games.xiangqi import Board, Move

PERPETUAL_FEN = "R3k4/9/9/9/9/9/9/9/9/5K3 b - - 0 1"  # Red's rook checks from a9/a8
PERPETUAL_MOVES = ["e9e8", "a9a8", "e8e9", "a8a9", "e9e8", "a9a8", "e8e9"]
BACK = -1  # a choice that moves back the piece the side to move moved last, if it can

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
choices = st.lists(st.one_of(st.just(BACK), st.integers(0, 10_000)), max_size=90)
rules = st.sampled_from(["axf", "check", "draw"])
counts = st.integers(2, 4)


def replayed_repeating_moves(board: Board) -> list[str]:
    """The slow way: play every legal move and ask :meth:`Board.is_repetition`."""
    work = board.copy()
    found = []
    for move in list(work.generate_legal_moves()):
        work._push_unchecked(move)  # the game may be over by a draw rule already
        if work.is_repetition():
            found.append(str(move))
        work.pop()
    return found


def replayed_losing_moves(board: Board) -> list[str]:
    """``losing_repetition_moves`` as it was: every legal move played and judged."""
    work = board.copy()
    mover = work.turn
    losing = []
    for move in list(work.legal_moves()):
        work.push(move)
        if work.is_repetition():
            outcome = work.outcome()
            if outcome is not None and outcome.winner is not None and outcome.winner != mover:
                losing.append(str(move))
        work.pop()
    return losing


def check_every_ply(board: Board, picks: list[int]) -> int:
    """Play ``picks`` from ``board``, comparing at every ply; the plies with a repeating move."""
    repeating_plies = 0
    for pick in [*picks, 0]:
        repeating = [str(m) for m in board.repeating_moves()]
        assert repeating == replayed_repeating_moves(board), board.fen()
        assert losing_repetition_moves(board) == replayed_losing_moves(board), board.fen()
        repeating_plies += bool(repeating)
        moves = board.legal_moves()
        if not moves:
            break
        move = moves[pick % len(moves)]
        if pick == BACK and len(board.move_stack) >= 2:
            last = board.move_stack[-2]
            back = Move(last.to_square, last.from_square)
            move = back if back in moves else move
        board.push(move)
    return repeating_plies


@SETTINGS
@given(picks=choices, rule=rules, count=counts)
def test_the_look_ahead_matches_playing_every_move(picks: list[int], rule: str, count: int) -> None:
    check_every_ply(Board(repetition=rule, repetition_count=count), picks)


def test_shuffling_games_do_repeat() -> None:
    """The games above reach repetitions (else they would test nothing)."""
    board = Board()
    assert check_every_ply(board, [BACK] * 3 + [5] + [BACK] * 12) >= 2


def test_a_position_with_a_losing_repetition() -> None:
    board = Board(PERPETUAL_FEN)
    for text in PERPETUAL_MOVES:
        board.push(Move.from_iccs(text))
    assert [str(m) for m in board.repeating_moves()] == ["a8a9"]
    assert losing_repetition_moves(board) == ["a8a9"] == replayed_losing_moves(board)
    drawn = Board(PERPETUAL_FEN, repetition="draw")
    for text in PERPETUAL_MOVES:
        drawn.push(Move.from_iccs(text))
    assert [str(m) for m in drawn.repeating_moves()] == ["a8a9"]
    assert losing_repetition_moves(drawn) == [] == replayed_losing_moves(drawn)


def test_no_repetition_no_candidates() -> None:
    board = Board(PERPETUAL_FEN)
    for text in PERPETUAL_MOVES[:3]:  # each position once so far
        board.push(Move.from_iccs(text))
    assert board.repeating_moves() == [] == replayed_repeating_moves(board)
    assert losing_repetition_moves(board) == [] == replayed_losing_moves(board)
    board = Board(PERPETUAL_FEN, repetition_count=2)  # a second time ends it
    for text in PERPETUAL_MOVES[:3]:
        board.push(Move.from_iccs(text))
    assert [str(m) for m in board.repeating_moves()] == ["a8a9"]
    assert losing_repetition_moves(board) == ["a8a9"] == replayed_losing_moves(board)
