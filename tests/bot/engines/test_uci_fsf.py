"""UciEngine (and UcciEngine) against the real Fairy-Stockfish.

Needs ``fairy-stockfish`` (``apt-get install fairy-stockfish``): without it these
tests fail with that hint, or skip when ``LANQI_ALLOW_NO_ENGINE=1``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

import pytest

from lanqi.bot.base import SeatView
from lanqi.bot.engines import UcciEngine, UciEngine, create_engine
from lanqi.bot.engines.process import EngineConfigError, EngineProcess, IllegalEngineMove
from lanqi.bot.engines.uci import fairy_to_iccs, iccs_to_fairy
from lanqi.games import xiangqi

# Positions whose legal moves cover ranks 0 and 9 from both sides: the start, a
# few openings, kings out on their back ranks, rooks on the edges.
POSITIONS = [
    xiangqi.STARTING_FEN,
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1",
    "r1bakabr1/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1CN3NC1/9/R1BAKABR1 w - - 4 3",
    "3k5/4a4/9/9/9/9/9/9/4A4/R3K3R w - - 0 1",
    "r2k4r/9/9/9/9/9/9/9/9/4K4 b - - 0 1",
    "3k5/R8/9/9/9/9/9/9/r8/4K4 w - - 0 1",
    "3ak4/4a4/4b4/9/9/9/9/4B4/4A4/3AK4 w - - 0 1",
    "C2k5/9/9/9/9/9/9/9/9/c3K4 b - - 0 1",
]


def _state(board: xiangqi.Board, **clock: object) -> SeatView:
    return SeatView(
        game_id="g1",
        variant="xiangqi",
        options={},
        seat=board.seat_to_move,
        board=board.copy(),
        moves=[str(m) for m in board.move_stack],
        start_fen=None,
        **clock,  # type: ignore[arg-type]
    )


@pytest.fixture
def engine(fsf: str) -> Iterator[UciEngine]:
    bot = UciEngine(fsf, options={"Threads": 1, "Hash": 16}, depth=1)
    yield bot
    bot.close()


def test_handshake(engine: UciEngine) -> None:
    assert engine.engine_name.startswith("Fairy-Stockfish")
    assert engine.engine_author
    assert engine.coords == "fairy"  # auto-detected from the UCI_Variant option
    assert {"Threads", "Hash", "Skill Level", "UCI_Variant"} <= set(engine.engine_options)
    assert "xiangqi" in engine.engine_options["UCI_Variant"].vars
    assert engine.process.running


def test_options_are_checked(fsf: str) -> None:
    with pytest.raises(EngineConfigError, match="no option 'Threadz'"):
        UciEngine(fsf, options={"Threadz": 1})
    with pytest.raises(EngineConfigError, match="from -20 to 20"):
        UciEngine(fsf, options={"Skill Level": 99})
    bot = UciEngine(fsf, options={"skill level": 3, "Ponder": False, "Clear Hash": None})
    bot.close()


def test_variant_is_set_unless_disabled(fsf: str) -> None:
    # Without UCI_Variant=xiangqi, FSF plays chess and its first move is no xiangqi move.
    bot = UciEngine(fsf, variant_option=None, coords="fairy", depth=1)
    try:
        state = SeatView.start("xiangqi")
        bot.on_game_start(state)
        with pytest.raises(IllegalEngineMove, match="engine move"):
            bot.choose_move(state)
    finally:
        bot.close()


@pytest.mark.parametrize("fen", POSITIONS)
def test_coordinates_match_fairy_stockfish_on_every_legal_move(fsf: str, fen: str) -> None:
    """Every lanqi legal move, converted, is exactly FSF's legal move list (perft 1)."""
    board = xiangqi.Board(fen)
    ours = {str(m) for m in board.generate_legal_moves()}  # even if material is insufficient
    for move in ours:
        assert fairy_to_iccs(iccs_to_fairy(move)) == move
    with EngineProcess([fsf]) as process:
        process.send("uci")
        process.expect(lambda line: line == "uciok", 10)
        process.send("setoption name UCI_Variant value xiangqi")
        process.send(f"position fen {fen}")
        process.send("go perft 1")
        theirs: set[str] = set()
        perft_line = re.compile(r"([a-i](?:10|[1-9])[a-i](?:10|[1-9])): 1")
        process.expect(
            lambda line: line.startswith("Nodes searched"),
            10,
            on_line=lambda line: theirs.update(perft_line.findall(line)),
        )
    assert {fairy_to_iccs(m) for m in theirs} == ours
    assert any(m[1] in "09" or m[3] in "09" for m in ours)


def test_full_game_against_a_random_mover(engine: UciEngine) -> None:
    rng = random.Random(7)
    board = xiangqi.Board()
    engine.on_game_start(_state(board))
    engine_seat = 1
    while board.outcome() is None and board.ply < 300:
        if board.seat_to_move == engine_seat:
            text = engine.choose_move(_state(board))
            move = xiangqi.Move.from_iccs(text)
            assert board.is_legal(move), f"engine played illegal {text} in {board.fen()}"
        else:
            move = rng.choice(list(board.legal_moves()))
        board.push(move)
    outcome = board.outcome()
    assert outcome is not None, "a depth-1 engine should finish off a random mover"
    assert outcome.winner_seat == engine_seat


def test_full_game_engine_against_itself(fsf: str) -> None:
    red = UciEngine(fsf, options={"Threads": 1}, depth=2)
    black = UciEngine(fsf, options={"Threads": 1, "Skill Level": 0}, depth=1)
    try:
        board = xiangqi.Board()
        for bot in (red, black):
            bot.on_game_start(_state(board))
        while board.outcome() is None and board.ply < 400:
            bot = red if board.seat_to_move == 0 else black
            move = xiangqi.Move.from_iccs(bot.choose_move(_state(board)))
            assert board.is_legal(move)
            board.push(move)
        assert board.outcome() is not None or board.ply == 400
    finally:
        red.close()
        black.close()


def test_game_from_a_set_up_position(engine: UciEngine) -> None:
    board = xiangqi.Board("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1")  # rook mates in a few
    engine.on_game_start(_state(board))
    for _ in range(20):
        if board.outcome() is not None:
            break
        board.push(xiangqi.Move.from_iccs(engine.choose_move(_state(board))))
        if board.outcome() is not None:
            break
        board.push(next(iter(board.legal_moves())))
    assert engine.last_info.depth == 1


def test_go_for_fischer_clocks(fsf: str) -> None:
    bot = UciEngine(fsf, overhead_ms=100)
    try:
        board = xiangqi.Board()
        board.push(xiangqi.Move.from_iccs("h2e2"))
        state = _state(board, remaining_ms=(6_000, 4_500), increment_ms=200)
        assert state.seat == 1  # Black moves: its own clock (btime) loses the overhead
        move = bot.choose_move(state)
        assert bot.last_go == "go wtime 6000 btime 4400 winc 200 binc 200"
        assert board.is_legal(xiangqi.Move.from_iccs(move))
        assert bot.wait_limit_ms(state) == 4_500 + bot.timeout_margin_ms
    finally:
        bot.close()


def test_go_for_per_move_and_untimed_games(fsf: str) -> None:
    bot = UciEngine(fsf, overhead_ms=100, default_movetime_ms=200, timeout_margin_ms=1500)
    try:
        state = SeatView.start("xiangqi", per_move_ms=400)
        bot.choose_move(state)
        assert bot.last_go == "go movetime 300"
        assert bot.wait_limit_ms(state) == 300 + 1500
        bot.choose_move(SeatView.start("xiangqi"))
        assert bot.last_go == "go movetime 200"
    finally:
        bot.close()


def test_fixed_limits_replace_the_clock(fsf: str) -> None:
    bot = UciEngine(fsf, depth=2, nodes=5000)
    try:
        state = SeatView.start("xiangqi", remaining_ms=(1000, 1000), increment_ms=0)
        bot.choose_move(state)
        assert bot.last_go == "go depth 2 nodes 5000"
        assert bot.wait_limit_ms(state) == 1000 + bot.timeout_margin_ms  # capped by the clock
    finally:
        bot.close()


def test_create_engine_from_a_spec(fsf: str) -> None:
    bot = create_engine(f"uci:{fsf}", options={"Threads": "1"}, depth=1)
    try:
        assert isinstance(bot, UciEngine)
        assert bot.choose_move(SeatView.start("xiangqi")) in SeatView.start("xiangqi").legal_moves()
    finally:
        bot.close()


def test_draw_offers_are_declined(engine: UciEngine) -> None:
    assert engine.on_draw_offer(SeatView.start("xiangqi")) is False


# -- Fairy-Stockfish also speaks UCCI: a real engine for UcciEngine ---------------------


def test_ucci_game_with_fairy_stockfish(fsf: str) -> None:
    bot = UcciEngine(fsf, options={"Threads": 1, "Skill Level": 5}, depth=1)
    try:
        assert bot.engine_name.startswith("Fairy-Stockfish")
        assert bot.time_unit == "ms"
        board = xiangqi.Board()
        bot.on_game_start(_state(board))
        rng = random.Random(3)
        while board.outcome() is None and board.ply < 200:
            if board.seat_to_move == 0:
                move = xiangqi.Move.from_iccs(bot.choose_move(_state(board)))
                assert board.is_legal(move)
            else:
                move = rng.choice(list(board.legal_moves()))
            board.push(move)
        assert board.outcome() is not None
    finally:
        bot.close()


def test_ucci_banmoves_are_obeyed_by_fairy_stockfish(fsf: str) -> None:
    bot = UcciEngine(fsf, depth=4)
    try:
        state = SeatView.start("xiangqi", moves=["h2e2"])
        first = bot.choose_move(state)
        bot.set_banned_moves([first])
        second = bot.choose_move(state)
        assert second != first
        assert bot.choose_move(state) == first  # the ban held for one search only
    finally:
        bot.close()
