"""Property tests: random games checked against a slow, independent reference."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lanqi.games.xiangqi import KING, Board, Color, Move, square_file

# A game is a list of choices; choice i picks move (i mod n) among the n legal moves.
games = st.lists(st.integers(min_value=0, max_value=10_000), max_size=160)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def play(choices: list[int], board: Board | None = None) -> Board:
    board = board or Board()
    for choice in choices:
        moves = sorted(board.generate_legal_moves(), key=str)
        if not moves:
            break
        board.push(moves[choice % len(moves)])
        if board.outcome() is not None:
            break
    return board


def generals_face(board: Board) -> bool:
    red, black = board.king(Color.RED), board.king(Color.BLACK)
    if square_file(red) != square_file(black):
        return False
    return all(board.piece_at(sq) is None for sq in range(red + 9, black, 9))


def reference_legal_moves(board: Board) -> set[str]:
    """Legal moves the slow way: every pseudo-legal move, then ask who attacks the general."""
    mover = board.turn
    result = set()
    for move in board.generate_pseudo_legal_moves():
        target = board.piece_at(move.to_square)
        assert target is None or target.color is not mover
        board._make((move.from_square << 7) | move.to_square)
        safe = not board.attackers(mover.other, board.king(mover)) and not generals_face(board)
        board._unmake((move.from_square << 7) | move.to_square, target.code if target else 0)
        if safe:
            result.add(str(move))
    return result


@SETTINGS
@given(games)
def test_legal_moves_match_the_reference(choices: list[int]) -> None:
    board = play(choices)
    legal = {str(m) for m in board.generate_legal_moves()}
    assert legal == reference_legal_moves(board)
    for text in legal:
        board._push_unchecked(Move.from_iccs(text))  # the game may be over by a draw rule
        mover = board.turn.other
        assert not board.attackers(mover.other, board.king(mover))
        assert not generals_face(board)
        board.pop()


@SETTINGS
@given(games)
def test_push_pop_restores_everything(choices: list[int]) -> None:
    start = Board()
    board = play(choices)
    fens = []
    replay = Board()
    for move in board.move_stack:
        fens.append(replay.fen())
        replay.push(move)
    while board.move_stack:
        board.pop()
        assert board.fen() == fens.pop()
        assert board.zobrist_hash() == Board.from_fen(board.fen()).zobrist_hash()
    assert board.fen() == start.fen()
    assert board._pieces == start._pieces
    assert board._kings == start._kings


@SETTINGS
@given(games)
def test_fen_round_trip_and_copy(choices: list[int]) -> None:
    board = play(choices)
    again = Board.from_fen(board.fen())
    assert again.fen() == board.fen()
    assert again.zobrist_hash() == board.zobrist_hash()
    copy = board.copy()
    assert copy.fen() == board.fen() and copy.move_stack == board.move_stack
    assert copy.outcome() == board.outcome()


def mirror_colors(fen: str) -> str:
    """Swap colours and turn the board round: a position with the same perft."""
    placement, side, *rest = fen.split()
    rows = [row.swapcase() for row in reversed(placement.split("/"))]
    return " ".join(["/".join(rows), "b" if side == "w" else "w", *rest])


@SETTINGS
@given(games)
def test_colour_mirror_has_the_same_move_count(choices: list[int]) -> None:
    board = play(choices)
    mirrored = Board.from_fen(mirror_colors(board.fen()))
    assert mirrored.perft(2) == board.perft(2)
    assert mirrored.is_check() == board.is_check()


def test_kings_tracked_through_a_long_game() -> None:
    board = play(list(range(0, 3000, 17)))
    for color in Color:
        piece = board.piece_at(board.king(color))
        assert piece is not None and piece.piece_type == KING and piece.color is color
