"""The built-in gomoku AI (lanqi.bot.gomoku_ai) and the simple bots (lanqi.bot.simple).

Every test is deterministic: fixed seeds, and node limits instead of clocks, so
a move does not depend on the machine's speed.  Positions are written out as
stone lists (``black="h8 i8"``), the side to move last.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lanqi.bot.base import Bot, SeatView
from lanqi.bot.gomoku_ai import GomokuAI, ThreatSearch
from lanqi.bot.gomoku_patterns import (
    BLACK,
    OPEN_FOUR_CLASS,
    WHITE,
    PatternBoard,
)
from lanqi.bot.simple import GreedyGomokuBot, RandomBot
from lanqi.games.gomoku import Board, Move

BIG_TIME = 10**7  # milliseconds: never reached, the node limit decides


def fen(black: str, white: str, turn: str, size: int = 15) -> str:
    """A position string with the listed stones (``"h8 i8"``) and ``turn`` ("b"/"w") to move."""
    grid = [["."] * size for _ in range(size)]
    for stones, letter in ((black, "x"), (white, "o")):
        for text in stones.split():
            move = Move.from_text(text, size)
            assert grid[move.y][move.x] == ".", f"{text} given twice"
            grid[move.y][move.x] = letter
    rows = []
    for y in range(size - 1, -1, -1):
        row, empty = "", 0
        for point in grid[y]:
            if point == ".":
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            row += point
        rows.append(row + (str(empty) if empty else ""))
    return f"{'/'.join(rows)} {turn}"


def position(
    black: str, white: str, turn: str, rule: str = "freestyle", size: int = 15
) -> SeatView:
    state = SeatView.start(
        "gomoku", options={"rule": rule, "size": size}, start_fen=fen(black, white, turn, size)
    )
    state.seat = state.board.seat_to_move
    return state


def ai(level: int = 5, seed: int = 0, nodes: int = 3000) -> GomokuAI:
    return GomokuAI(level=level, seed=seed, time_ms=BIG_TIME, node_limit=nodes)


def board_of(state: SeatView) -> Board:
    assert isinstance(state.board, Board)
    return state.board


def line(start: str, dx: int, dy: int, count: int) -> list[str]:
    """``count`` points from ``start`` along (dx, dy)."""
    first = Move.from_text(start)
    return [str(Move(first.x + i * dx, first.y + i * dy)) for i in range(count)]


DIRECTIONS = [(1, 0), (0, 1), (1, 1), (1, -1)]


# -- immediate wins and blocks ---------------------------------------------------------------------


@pytest.mark.parametrize("level", [1, 5])
@pytest.mark.parametrize("gap", range(5))
@pytest.mark.parametrize(("dx", "dy"), DIRECTIONS)
def test_completes_its_four_in_every_direction(level: int, gap: int, dx: int, dy: int) -> None:
    """xxxx. / .xxxx / xx.xx / x.xxx / xxx.x: the AI fills the one point that wins,
    even though the opponent has a four of its own to block."""
    points = line("e11" if dy < 0 else "e5", dx, dy, 7)
    # The five points 1..5 with one left out; 0 and 6 are White's, so only
    # the missing point makes five.
    black = " ".join(p for i, p in enumerate(points[1:6]) if i != gap)
    white = f"{points[0]} {points[6]} a1 a2 a3 a4"
    state = position(black, white, "b")
    assert ai(level).choose_move(state) == points[1 + gap]


@pytest.mark.parametrize("gap", range(5))
@pytest.mark.parametrize(("dx", "dy"), DIRECTIONS)
def test_blocks_the_opponents_four(gap: int, dx: int, dy: int) -> None:
    points = line("e11" if dy < 0 else "e5", dx, dy, 7)
    black = " ".join(p for i, p in enumerate(points[1:6]) if i != gap)
    state = position(f"{black} o15", f"{points[0]} {points[6]} a1 a3", "w")
    bot = ai()
    assert bot.choose_move(state) == points[1 + gap]
    assert bot.last_info.reason == "block five"


def test_level_one_still_wins_and_blocks() -> None:
    state = position("h8 i8 j8 k8", "a1 a2 a3 a4", "w")  # both have fours; White wins first
    assert ai(1).choose_move(state) == "a5"
    state = position("h8 i8 j8", "b1 b2 b3 b4", "b")
    assert ai(1).choose_move(state) == "b5"


# -- threes and threats ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("black", "good"),
    [
        ("h8 i8 j8", {"g8", "k8"}),  # .xxx.: only the ends stop an open four
        ("h8 i8 k8", {"g8", "j8", "l8"}),  # .xx.x.: the gap or an end
        ("h6 h7 h8", {"h5", "h9"}),
        ("f6 g7 i9", {"e5", "h8", "j10"}),
    ],
)
@pytest.mark.parametrize("level", [2, 3, 5])
def test_blocks_an_open_three(black: str, good: set[str], level: int) -> None:
    state = position(black, "a15 o1", "w")
    move = ai(level).choose_move(state)
    assert move in good
    board = board_of(state)
    board.push_text(move)
    pb = PatternBoard.from_board(board)
    assert not pb.threats[BLACK][OPEN_FOUR_CLASS]
    assert ThreatSearch(pb, node_limit=20_000).vcf(BLACK, 10) is None


@pytest.mark.parametrize("level", [3, 5])
def test_counters_an_open_three_with_a_winning_attack(level: int) -> None:
    """White has an open three, but Black wins first: i5 is a four and an open three."""
    state = position("f5 g5 h5 i6 i7", "e5 h10 i10 j10 o1", "b")
    bot = ai(level)
    assert bot.choose_move(state) == "i5"
    assert play_out(state, bot, GreedyGomokuBot(seed=0), max_moves=10) == "1-0"


def test_makes_a_four_three() -> None:
    """f5 g5 h5 (blocked on the left by e5) and i6 i7: i5 is a four and an open three."""
    state = position("f5 g5 h5 i6 i7", "e5 a1 a15 o1 o15", "b")
    bot = ai()
    assert bot.choose_move(state) == "i5"
    assert bot.last_info.reason == "vcf"
    assert play_out(state, bot, GreedyGomokuBot(seed=0), max_moves=10) == "1-0"


VCF_POSITION = fen(
    black="i10 l10 i8 f7 i7 j7 e4",
    white="i11 e10 f10 h9 i9 j8 h5",
    turn="b",
)


def test_finds_a_vcf_in_a_written_out_position() -> None:
    """No open four or four-three yet, but five fours in a row win:
    h7 (g7) l7 (k7) g6 (f5) j9 (k10) k8 (a double four), then five."""
    state = SeatView.start("gomoku", start_fen=VCF_POSITION)
    pb = PatternBoard.from_board(board_of(state))
    assert not pb.threats[BLACK][OPEN_FOUR_CLASS]
    assert ThreatSearch(pb).vcf(BLACK, 2) is None  # not a short one
    bot = ai(level=3)
    defender = GreedyGomokuBot(seed=0)
    board = board_of(state)
    first = True
    while not board.is_game_over():
        if board.turn.value == BLACK:
            move = bot.choose_move(state)
            if first:
                assert bot.last_info.reason == "vcf"
                first = False
            board.push_text(move)
            if not board.is_game_over():  # every attacking move is a four
                assert PatternBoard.from_board(board).fives(BLACK)
        else:
            board.push_text(defender.choose_move(state))
    assert board.result() == "1-0"
    assert board.ply <= 12


# -- rules: standard and renju ---------------------------------------------------------------------

# Black h8-k8 with m8: l8 would make six.  g8 is White's, so no five is possible.
# White's c3-c6 is a four (c2 is Black's): c7 wins for White.
OVERLINE_BLACK = "h8 i8 j8 k8 m8 c2 a15"
OVERLINE_WHITE = "g8 c3 c4 c5 c6 o1"


def test_freestyle_overline_wins() -> None:
    state = position(OVERLINE_BLACK, OVERLINE_WHITE, "b", rule="freestyle")
    assert ai().choose_move(state) == "l8"


def test_standard_overline_does_not_win() -> None:
    state = position(OVERLINE_BLACK, OVERLINE_WHITE, "b", rule="standard")
    pb = PatternBoard.from_board(board_of(state))
    assert not pb.fives(BLACK)
    bot = ai()
    assert bot.choose_move(state) == "c7"  # it must block, l8 would not win
    assert bot.last_info.reason == "block five"


def test_standard_ignores_the_opponents_overline_point() -> None:
    """Under standard Black's l8 (six in a row) is no threat: White need not block it."""
    state = position("h8 i8 j8 k8 m8 a15", "g8 a1 b1 o15", "w", rule="standard")
    bot = ai()
    bot.choose_move(state)
    assert bot.last_info.reason != "block five"
    state = position("h8 i8 j8 k8 m8 a15", "g8 a1 b1 o15", "w", rule="freestyle")
    assert ai().choose_move(state) == "l8"


def test_renju_white_wins_with_an_overline() -> None:
    state = position("g8 a1 b1 o15 c3", "h8 i8 j8 k8 m8", "w", rule="renju")
    move = ai().choose_move(state)
    assert move == "l8"
    board = board_of(state)
    board.push_text(move)
    assert board.result() == "0-1"


@pytest.mark.parametrize(
    ("black", "white", "forbidden"),
    [
        ("f8 g8 h6 h7", "a1 o1 a15 o15", "h8"),  # double three
        ("d8 e8 f8 g5 g6 g7", "c8 g4 a1 o1 a15 o15", "g8"),  # double four
        ("d8 e8 f8 h8 i8", "a1 o1 a15 o15 b2", "g8"),  # overline
    ],
)
@pytest.mark.parametrize("level", [1, 2, 5])
def test_renju_black_never_plays_a_forbidden_point(
    black: str, white: str, forbidden: str, level: int
) -> None:
    state = position(black, white, "b", rule="renju")
    board = board_of(state)
    assert board.forbidden_reason(Move.from_text(forbidden)) is not None
    for seed in range(3):
        move = ai(level, seed).choose_move(state)
        assert move != forbidden
        assert board.is_legal(board.parse_move(move))


def test_renju_white_forces_black_onto_a_forbidden_point() -> None:
    """h8 is a double three for Black; White's l4 makes a four that only h8 stops."""
    # g9 and m3 close the diagonal h8-l4 at both ends: White's h8 would be a
    # four Black can block at l4, but l4 is a four only a forbidden h8 stops.
    state = position("f8 g8 h6 h7 g9 m3", "i7 j6 k5 a15 o15 o1", "w", rule="renju")
    board = board_of(state)
    bot = ai()
    move = bot.choose_move(state)
    assert move == "l4"
    assert bot.last_info.reason == "vcf"
    board.push_text(move)
    assert board.forbidden_reason(Move.from_text("h8")) is not None
    assert play_out(state, GreedyGomokuBot(seed=0), bot, max_moves=4) == "0-1"


@pytest.mark.parametrize(
    ("white", "forbidden"),
    [
        ("a1 o1 a15 o15", False),  # h8 i8 j8 is a false three: g8 makes a five, k8 an overline
        ("g4 g5 a1 o1 a15 o15", True),  # the same with g4 g5 White: g8 is fine, a double-three
    ],
)
def test_renju_false_three_by_a_five_is_judged_by_the_rules(white: str, forbidden: bool) -> None:
    """Issue 10's example: the shape tables see two open threes through h8 either way; the
    pattern board must still leave the verdict to the rules, which count a three only if
    its straight four can be made without making a five."""
    black = "g6 g7 h9 h10 i8 j8 k6 k7 k9 k10 k11" + ("" if forbidden else " g4 g5")
    state = position(black, white, "b", rule="renju")
    board = board_of(state)
    pb = PatternBoard.from_board(board)
    h8 = pb.index(7, 7)
    assert pb.is_forbidden(h8, BLACK) is forbidden
    assert (board.forbidden_reason(Move.from_text("h8")) is not None) is forbidden


@pytest.mark.parametrize("size", [15, 19, 20])
def test_plays_on_every_board_size(size: int) -> None:
    corner = "s19" if size == 19 else ("t20" if size == 20 else "o15")
    state = position("a1 a2 a3 a4", f"{corner} c1", "b", size=size)
    assert ai().choose_move(state) == "a5"
    state = SeatView.start("gomoku", options={"size": size})
    centre = str(Move(size // 2, size // 2))
    assert ai().choose_move(state) == centre


# -- always legal ----------------------------------------------------------------------------------


@st.composite
def random_positions(
    draw: st.DrawFn, rules: tuple[str, ...] = ("freestyle", "standard", "renju")
) -> tuple[str, int, int, list[str]]:
    rule = draw(st.sampled_from(rules))
    size = draw(st.sampled_from([15, 19, 20]))
    seed = draw(st.integers(0, 2**32 - 1))
    length = draw(st.integers(0, 50))
    rng = random.Random(seed)
    board = Board(size, rule)
    moves: list[str] = []
    centre = size // 2
    for _ in range(length):
        x = min(size - 1, max(0, round(rng.gauss(centre, 3))))
        y = min(size - 1, max(0, round(rng.gauss(centre, 3))))
        move = Move(x, y)
        if not board.is_legal(move):
            continue
        board.push(move)
        if board.is_game_over():
            board.pop()
            break
        moves.append(str(move))
    return rule, size, seed, moves


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(random_positions(), st.integers(1, 5))
def test_always_returns_a_legal_move(case: tuple[str, int, int, list[str]], level: int) -> None:
    rule, size, seed, moves = case
    state = SeatView.start("gomoku", options={"rule": rule, "size": size}, moves=moves)
    move = GomokuAI(level=level, seed=seed, time_ms=BIG_TIME, node_limit=300).choose_move(state)
    assert move in state.legal_moves()


@settings(max_examples=25, deadline=None, derandomize=True)
@given(random_positions(rules=("renju",)))
def test_quick_forbidden_check_agrees_with_the_rules(
    case: tuple[str, int, int, list[str]],
) -> None:
    """PatternBoard.is_forbidden filters by shape first; it must still match the rule book."""
    _, size, _, moves = case
    board = Board(size, "renju")
    for text in moves:
        board.push_text(text)
    if board.turn.value != BLACK:
        board.push(next(m for m in board.legal_moves()))
        if board.is_game_over():
            return
    pb = PatternBoard.from_board(board)
    forbidden = {str(m) for m in board.forbidden_moves()}
    for p in pb.points:
        if pb.cell[p] == -1:
            assert pb.is_forbidden(p, BLACK) == (pb.point_name(p) in forbidden)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(
    st.sampled_from(["freestyle", "standard", "renju"]),
    st.lists(st.tuples(st.integers(0, 14), st.integers(0, 14), st.booleans()), max_size=60),
)
def test_incremental_patterns_match_a_fresh_board(
    rule: str, steps: list[tuple[int, int, bool]]
) -> None:
    """Playing and taking back stones keeps every shape, threat set and total exact."""
    pb = PatternBoard(15, rule)
    color = BLACK
    for x, y, undo in steps:
        p = pb.index(x, y)
        if undo and pb.moves:
            pb.undo()
            continue
        if pb.cell[p] == -1:
            pb.play(p, color)
            color = 1 - color
    fresh = PatternBoard(15, rule)
    for p in pb.points:
        if pb.cell[p] in (BLACK, WHITE):
            fresh.play(p, pb.cell[p])
    assert fresh.total == pb.total
    assert fresh.threats == pb.threats
    assert fresh.value == pb.value
    for p in pb.points:
        if pb.cell[p] == -1:  # shapes are kept up to date on empty points
            for c in (BLACK, WHITE):
                assert fresh.shapes[c][p * 4 : p * 4 + 4] == pb.shapes[c][p * 4 : p * 4 + 4]


# -- the bot contract and the simple bots ----------------------------------------------------------


def test_bot_contract() -> None:
    bot = GomokuAI()
    assert bot.name == "gomoku-ai"
    assert bot.variants == ("gomoku",)
    assert isinstance(bot, Bot)
    with pytest.raises(ValueError, match="level"):
        GomokuAI(level=6)
    with pytest.raises(TypeError):
        ai().choose_move(SeatView.start("xiangqi"))
    over = position("h8 i8 j8 k8 l8", "a1 a2 a3 a4", "w")
    with pytest.raises(ValueError, match="over"):
        ai().choose_move(over)


def test_same_seed_same_game() -> None:
    def game(seed: int) -> list[str]:
        state = SeatView.start("gomoku")
        board = board_of(state)
        bots = [ai(5, seed, nodes=300), ai(4, seed + 1, nodes=300)]
        for _ in range(12):
            move = bots[board.seat_to_move].choose_move(state)
            board.push_text(move)
            state.moves.append(move)
        return state.moves

    assert game(3) == game(3)


def test_random_bot_plays_both_variants() -> None:
    for variant in ("xiangqi", "gomoku"):
        state = SeatView.start(variant)
        moves = [RandomBot(seed=9).choose_move(state) for _ in range(2)]
        assert moves[0] == moves[1]
        assert moves[0] in state.legal_moves()


def test_greedy_wins_blocks_and_attacks() -> None:
    greedy = GreedyGomokuBot(seed=0)
    assert greedy.choose_move(position("h8 i8 j8 k8", "h9 i9 j9 k9 a1", "b")) in {"g8", "l8"}
    assert greedy.choose_move(position("h8 i8 j8 k8 a1", "h9 i9 j9 a3", "w")) in {"g8", "l8"}
    assert greedy.choose_move(position("h8 i8 j8", "a1 o15", "w")) in {"g8", "k8"}
    assert greedy.choose_move(SeatView.start("gomoku")) == "h8"
    standard = position("h8 i8 j8 k8 m8 a15", "g8 a1 b1 a3 a4", "b", rule="standard")
    assert greedy.choose_move(standard) != "l8"  # six would not win


# -- the benchmark: the AI against the greedy player -----------------------------------------------


@dataclass
class MatchResult:
    wins: int = 0
    losses: int = 0
    draws: int = 0
    nodes: int = 0
    seconds: float = 0.0

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds else 0.0


def play_out(state: SeatView, first: Bot, second: Bot, max_moves: int = 500) -> str:
    """Play on from ``state`` (``first`` to move) and return the result."""
    board = board_of(state)
    bots = {board.seat_to_move: first, 1 - board.seat_to_move: second}
    for _ in range(max_moves):
        if board.is_game_over():
            break
        state.seat = board.seat_to_move
        move = bots[state.seat].choose_move(state)
        board.push_text(move)
        state.moves.append(move)
    return board.result()


def match(games: int, opponent: str, *, nodes: int, rule: str = "freestyle") -> MatchResult:
    """``games`` games, the AI Black in the even ones; seeds are the game numbers."""
    result = MatchResult()
    for number in range(games):
        bot = GomokuAI(level=5, seed=number, time_ms=BIG_TIME, node_limit=nodes)
        other: Bot = (
            GreedyGomokuBot(seed=1000 + number)
            if opponent == "greedy"
            else RandomBot(seed=1000 + number)
        )
        ai_seat = number % 2
        state = SeatView.start("gomoku", options={"rule": rule})
        board = board_of(state)
        while not board.is_game_over():
            seat = board.seat_to_move
            state.seat = seat
            move = (bot if seat == ai_seat else other).choose_move(state)
            if seat == ai_seat:
                result.nodes += bot.last_info.nodes
                result.seconds += bot.last_info.seconds
            board.push_text(move)
            state.moves.append(move)
        winner = board.outcome()
        assert winner is not None
        if winner.winner_seat is None:
            result.draws += 1
        elif winner.winner_seat == ai_seat:
            result.wins += 1
        else:
            result.losses += 1
    return result


def test_never_loses_to_the_greedy_player() -> None:
    """The issue's evidence, with a modest count: 20 games, colours alternating."""
    result = match(20, "greedy", nodes=2000)
    assert result.losses == 0, result
