"""The built-in xiangqi AI: tactics, rules awareness, levels.  No timing assertions:
searches are bounded by depth or nodes, so every result is the same on any machine."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lanqi.bot.base import SeatView
from lanqi.bot.xiangqi_ai import LEVELS, MATE, XiangqiAI
from lanqi.bot.xiangqi_eval import build_tables, evaluate
from lanqi.games.base import Outcome, Termination
from lanqi.games.xiangqi import Board, Color, Move
from lanqi.games.xiangqi.core import SearchBoard

# Found by brute force with the rules core; each test re-checks its claim.
MATE_IN_1 = [
    ("3a5/1N4P2/4ka3/R8/2b5p/7r1/9/9/9/3K5 w - - 0 1", "a6e6"),
    ("1P2k4/4a4/3a4R/9/6b2/6r2/6N2/9/4K4/2p6 w - - 0 1", "i7i9"),
]
MATE_IN_2 = [
    ("2ba5/9/b2ak4/7N1/P1C6/9/7n1/r8/5K3/2R6 w - - 0 1", "c0e0"),
    ("1Nb6/4a4/3abk2r/8P/9/3n5/7C1/9/1R7/3K5 w - - 0 1", "b1f1"),
    ("2ba5/3r5/b2k1a3/6n2/4P4/9/9/C4K3/9/N4R3 w - - 0 1", "f0d0"),
    # The first move is quiet (no check): pruning must not hide it.
    ("3a5/3k2Cn1/b4a2b/9/2P6/1N7/2R5r/9/4K4/9 w - - 0 1", "c3i3"),
    ("3a1a3/1C1P5/b4k2b/6r2/4R4/5N3/9/1n7/9/3K5 w - - 0 1", "f4g6"),
]


def mirror_fen(fen: str) -> str:
    """The same position with the colours swapped (board turned upside down)."""
    placement, side, *rest = fen.split()
    rows = [row.swapcase() for row in reversed(placement.split("/"))]
    return " ".join(["/".join(rows), "b" if side == "w" else "w", *rest])


def mirror_move(move: str) -> str:
    return f"{move[0]}{9 - int(move[1])}{move[2]}{9 - int(move[3])}"


def state_of(board: Board) -> SeatView:
    return SeatView(
        game_id="test",
        variant="xiangqi",
        options=board.options,
        seat=board.seat_to_move,
        board=board,
        moves=[str(m) for m in board.move_stack],
    )


def ask(ai: XiangqiAI, board: Board) -> str:
    fen = board.fen()
    move = ai.choose_move(state_of(board))
    assert board.fen() == fen, "the AI must not change the board it is given"
    assert move in {str(m) for m in board.legal_moves()}
    return move


def mating_moves(board: Board) -> list[str]:
    found = []
    for move in list(board.legal_moves()):
        board.push(move)
        if board.is_checkmate():
            found.append(str(move))
        board.pop()
    return found


def forces_mate_in_2(board: Board, first: str) -> bool:
    """After ``first``, every reply allows a mate (checked by brute force)."""
    board.push(Move.from_iccs(first))
    try:
        replies = list(board.legal_moves())
        for reply in replies:
            board.push(reply)
            ok = bool(mating_moves(board))
            board.pop()
            if not ok:
                return False
        return bool(replies)
    finally:
        board.pop()


# ------------------------------------------------------------------ mates


@pytest.mark.parametrize("black", [False, True], ids=["red", "black"])
@pytest.mark.parametrize(("fen", "mate"), MATE_IN_1)
def test_finds_mate_in_1(fen: str, mate: str, black: bool) -> None:
    if black:
        fen, mate = mirror_fen(fen), mirror_move(mate)
    board = Board(fen)
    assert mating_moves(board) == [mate]
    ai = XiangqiAI(level=8, depth=3)
    assert ask(ai, board) == mate
    assert ai.last is not None and ai.last.mate_in == 1


@pytest.mark.parametrize("black", [False, True], ids=["red", "black"])
@pytest.mark.parametrize(("fen", "first"), MATE_IN_2)
def test_finds_mate_in_2(fen: str, first: str, black: bool) -> None:
    if black:
        fen, first = mirror_fen(fen), mirror_move(first)
    board = Board(fen)
    assert not mating_moves(board)
    assert forces_mate_in_2(board, first)
    assert [m for m in board.legal_moves() if forces_mate_in_2(board, str(m))] == [
        Move.from_iccs(first)
    ]
    ai = XiangqiAI(level=8, depth=4)
    move = ask(ai, board)
    assert forces_mate_in_2(board, move)
    assert ai.last is not None and ai.last.mate_in == 2
    # ... and then mates, whatever the reply.
    board.push_text(move)
    for reply in list(board.legal_moves()):
        board.push(reply)
        board.push_text(ask(ai, board))
        assert board.is_checkmate()
        board.pop()
        board.pop()


def test_lost_side_still_moves_and_knows_it() -> None:
    fen, first = MATE_IN_2[0]
    board = Board(fen)
    board.push_text(first)  # every Black reply now allows a mate in 1
    ai = XiangqiAI(level=8, depth=3)
    ask(ai, board)
    assert ai.last is not None and ai.last.mate_in == -1


# ------------------------------------------------------------------ material


def test_captures_a_hanging_rook() -> None:
    # Black's rook stands on e4, where the e3 soldier takes it; the b9 horse is
    # loose too (the b2 cannon can take it), but the rook is worth more.
    board = Board("1nbakabnr/9/1c5c1/p1p1p1p1p/9/4r4/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1")
    for depth in (1, 2, 3):
        assert ask(XiangqiAI(level=8, depth=depth), board) == "e3e4"


def test_does_not_hang_its_rook() -> None:
    # Rc2xc5 wins a soldier but the b7 horse takes the rook back; c4 is attacked
    # by the soldier itself.
    board = Board("3aka3/9/1n7/2p3p2/9/9/4P4/2R6/9/3AKA3 w - - 0 1")
    for depth in (1, 2, 3):
        move = ask(XiangqiAI(level=8, depth=depth), board)
        board.push_text(move)
        rook = next(sq for sq, p in board.piece_map().items() if p.symbol() == "R")
        assert not any(m.to_square == rook for m in board.legal_moves()), (depth, move)
        board.pop()


# ------------------------------------------------------------------ rules


def test_stalemating_the_opponent_wins() -> None:
    # Rh4-e4 (or Kf0-e0) leaves Black without a move, not in check: Black loses.
    # Rd2xd8+ wins the pinned horse but not the game.
    board = Board("3k5/3n5/9/9/7P1/7R1/9/3R5/9/5K3 w - - 0 1")
    assert not mating_moves(board)
    ai = XiangqiAI(level=8, depth=3)
    move = ask(ai, board)
    board.push_text(move)
    assert board.outcome() == Outcome(Color.RED, Termination.STALEMATE)
    assert ai.last is not None and ai.last.score == MATE - 1


def test_avoids_stalemating_itself() -> None:
    # Mirror of the above with Black to move: Black stalemates Red.
    board = Board(mirror_fen("3k5/3n5/9/9/7P1/7R1/9/3R5/9/5K3 w - - 0 1"))
    move = ask(XiangqiAI(level=8, depth=3), board)
    board.push_text(move)
    assert board.outcome() == Outcome(Color.BLACK, Termination.STALEMATE)


def test_does_not_walk_into_a_perpetual_check_loss() -> None:
    # Red's rook has chased the black general between d9 and e9 with checks; one
    # more d1e1+ repeats the position a third time and loses by perpetual check.
    board = Board("4k4/9/9/9/9/9/9/7N1/R8/5K3 w - - 0 1")
    for text in ["a1e1", "e9d9", "e1d1", "d9e9", "d1e1", "e9d9", "e1d1", "d9e9"]:
        board.push_text(text)
    board.push_text("d1e1")
    assert board.outcome() == Outcome(Color.BLACK, Termination.PERPETUAL_CHECK)
    board.pop()
    for depth in (1, 2, 4):
        assert ask(XiangqiAI(level=8, depth=depth), board) != "d1e1"


def test_takes_a_repetition_draw_when_lost() -> None:
    # Red (a rook against two) shuffles; a2a1 repeats the start position a third
    # time, a draw by the rules since nobody checked or chased.  Anything else loses.
    board = Board("3ak4/9/9/9/6rr1/9/9/9/R8/3K5 b - - 0 1")
    for text in ["d9e8", "a1a2", "e8d9", "a2a1", "d9e8", "a1a2", "e8d9"]:
        board.push_text(text)
    board.push_text("a2a1")
    assert board.outcome() == Outcome(None, Termination.REPETITION)
    board.pop()
    for depth in (1, 3):
        ai = XiangqiAI(level=8, depth=depth)
        assert ask(ai, board) == "a2a1"
        assert ai.last is not None and ai.last.score == 0


def test_takes_a_move_limit_draw_when_lost() -> None:
    # One ply before the 120-ply limit: any quiet move draws, taking the a5
    # soldier restarts the count in a lost position.
    board = Board("3ak4/9/9/9/p5rr1/9/9/9/R8/3K5 w - - 119 80")
    ai = XiangqiAI(level=8, depth=3)
    move = ask(ai, board)
    assert ai.last is not None and ai.last.score == 0
    board.push_text(move)
    assert board.outcome() == Outcome(None, Termination.MOVE_LIMIT)


# ------------------------------------------------------------------ robustness

random_games = st.tuples(st.integers(0, 2**32 - 1), st.integers(0, 120))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_games)
def test_always_returns_a_legal_move(game: tuple[int, int]) -> None:
    seed, plies = game
    rng = random.Random(seed)
    board = Board()
    for _ in range(plies):
        moves = sorted(board.legal_moves(), key=str)
        if not moves:
            break
        board.push(rng.choice(moves))
    if board.outcome() is not None:
        return
    ask(XiangqiAI(level=8, nodes=400), board)
    ask(XiangqiAI(level=rng.randint(1, 4), seed=seed, depth=1), board)


def test_search_board_keeps_hash_and_position() -> None:
    rng = random.Random(7)
    board = Board()
    for _ in range(60):
        moves = sorted(board.legal_moves(), key=str)
        if not moves:
            break
        board.push(rng.choice(moves))
        search = SearchBoard.from_board(board)
        for by in (0, 1):
            for sq in range(90):
                assert search.is_attacked_code(sq, by) == search._is_attacked(sq, by)
    search = SearchBoard.from_board(board)
    fen, key = search.fen(), search.zobrist_hash()
    for code in search.pseudo_codes():
        captured = search.make_code(code)
        assert search.zobrist_hash() == Board(search.fen()).zobrist_hash()
        search.unmake_code(code, captured)
    assert (search.fen(), search.zobrist_hash()) == (fen, key)
    assert sorted(search.capture_codes()) == sorted(
        c for c in search.pseudo_codes() if search.squares[c & 127]
    )
    assert sorted(search.legal_codes()) == sorted(
        SearchBoard.code_of(m) for m in board.generate_legal_moves()
    )


def test_incremental_evaluation_matches_a_fresh_one() -> None:
    board = Board("2ba5/9/b2ak4/7N1/P1C6/9/7n1/r8/5K3/2R6 w - - 0 1")
    tables = build_tables(board.board_fen())
    search = SearchBoard.from_board(board)
    start = evaluate(tables, search.squares, 0)
    for code in search.legal_codes():
        f, t = code >> 7, code & 127
        p, cap = search.squares[f], search.squares[t]
        gain = tables[p][t] - tables[p][f] + tables[cap][t]
        captured = search.make_code(code)
        assert evaluate(tables, search.squares, 0) == start + gain
        search.unmake_code(code, captured)
    assert evaluate(build_tables(Board().board_fen()), Board().board_fen(), 1) == 0


def test_tiny_time_budget_still_gives_a_legal_move() -> None:
    board = Board()
    board.push_text("h2e2")
    state = SeatView.start("xiangqi", moves=["h2e2"], per_move_ms=110)  # 10 ms to think
    move = XiangqiAI(level=8).choose_move(state)
    assert move in state.legal_moves()
    assert XiangqiAI(level=8, move_time_ms=1).choose_move(state) in state.legal_moves()


def test_rejects_other_games_and_bad_levels() -> None:
    with pytest.raises(TypeError):
        XiangqiAI().choose_move(SeatView.start("gomoku"))
    with pytest.raises(ValueError, match="level"):
        XiangqiAI(level=9)


def test_same_seed_same_moves() -> None:
    board = Board()
    for level in (1, 3):
        first = [XiangqiAI(level=level, seed=5, depth=2) for _ in range(2)]
        assert ask(first[0], board) == ask(first[1], board)
    a = XiangqiAI(level=8, nodes=3000).analyse(board)
    b = XiangqiAI(level=8, nodes=3000).analyse(board)
    assert (a.move, a.score, a.nodes) == (b.move, b.score, b.nodes)


# ------------------------------------------------------------------ levels


def play_game(red: XiangqiAI, black: XiangqiAI, *, move_limit: int = 60) -> Board:
    board = Board(move_limit=move_limit)
    players = (red, black)
    for bot in players:
        bot.on_game_start(state_of(board))
    while board.outcome() is None:
        board.push_text(ask(players[board.seat_to_move], board))
    return board


@pytest.mark.parametrize(("low", "high"), [(1, 8), (2, 7), (3, 6), (4, 5)])
def test_every_level_plays_a_legal_game_to_the_end(low: int, high: int) -> None:
    assert set(LEVELS) == set(range(1, 9))
    red = XiangqiAI(level=low, seed=low, depth=1, nodes=300)
    black = XiangqiAI(level=high, seed=high, depth=2, nodes=300)
    board = play_game(red, black)
    assert board.outcome() is not None
    replay = Board(move_limit=60)
    for move in board.move_stack:
        replay.push(move)  # every move legal in a fresh replay too
    assert replay.outcome() == board.outcome()


def test_best_level_beats_random_level() -> None:
    score = 0.0
    for game in range(4):
        strong = XiangqiAI(level=8, depth=2)
        weak = XiangqiAI(level=1, seed=game)
        red, black = (strong, weak) if game % 2 == 0 else (weak, strong)
        outcome = play_game(red, black).outcome()
        assert outcome is not None
        strong_seat = game % 2
        if outcome.winner is None:
            score += 0.5
        elif outcome.winner_seat == strong_seat:
            score += 1
    assert score == 4


def test_doctests() -> None:
    import doctest

    from lanqi.bot import xiangqi_ai, xiangqi_eval
    from lanqi.games.xiangqi import core

    for module in (xiangqi_ai, xiangqi_eval):
        result = doctest.testmod(module)
        assert result.failed == 0, module.__name__
    # Only the search-support section of the rules core is ours to check here.
    runner = doctest.DocTestRunner()
    for test in doctest.DocTestFinder().find(SearchBoard, "SearchBoard", globs=vars(core)):
        runner.run(test)
    assert runner.tries > 0 and runner.failures == 0
