"""UciEngine against scripted fake engines: options, coordinates and every way to fail."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from lanqi.bot.base import SeatView
from lanqi.bot.engines import (
    EngineCrashed,
    EngineTimeout,
    IllegalEngineMove,
    UciEngine,
)
from lanqi.bot.engines.uci import losing_repetition_moves
from lanqi.games import xiangqi

Fake = Callable[..., list[str]]
Log = Callable[[], list[str]]

# Red checks with the rook from a9 and a8 in turn while Black's general steps
# e9-e8-e9: one more a8a9 repeats the position a third time and loses (perpetual check).
PERPETUAL_FEN = "R3k4/9/9/9/9/9/9/9/9/5K3 b - - 0 1"
PERPETUAL_MOVES = ["e9e8", "a9a8", "e8e9", "a8a9", "e9e8", "a9a8", "e8e9"]
# Generals on d9 and e0 and a red soldier: Black's first move in ICCS order is d9d8.
RANK_NINE_FEN = "3k5/9/9/8P/9/9/9/9/9/4K4"


@pytest.fixture
def make(fake: Fake, fake_env: dict[str, str]) -> Iterator[Callable[..., UciEngine]]:
    bots: list[UciEngine] = []

    def build(mode: str = "ok", *args: str, **kwargs: Any) -> UciEngine:
        bot = UciEngine(fake("uci_fake.py", mode, *args), env=fake_env, **kwargs)
        bots.append(bot)
        return bot

    yield build
    for bot in bots:
        bot.close()


def _first_legal(state: SeatView) -> str:
    return state.legal_moves()[0]


def test_handshake_options_and_a_move(make: Callable[..., UciEngine], fake_log: Log) -> None:
    bot = make(
        options={"Hash": 64, "skill level": 3, "Ponder": True, "Style": "RISKY", "Clear Hash": None}
    )
    assert bot.engine_name == "FakeUci ok"
    assert bot.engine_author == "lanqi tests"
    assert bot.coords == "iccs"  # no UCI_Variant option: ranks 0-9
    state = SeatView.start("xiangqi", moves=["h2e2", "h9g7"])
    bot.on_game_start(state)
    assert bot.choose_move(state) == _first_legal(state)
    sent = fake_log()
    assert sent[:7] == [
        "uci",
        "setoption name Hash value 64",
        "setoption name Skill Level value 3",
        "setoption name Ponder value true",
        "setoption name Style value risky",
        "setoption name Clear Hash",
        "isready",
    ]
    assert not any("UCI_Variant" in line for line in sent)
    assert sent[7:9] == ["ucinewgame", "isready"]
    assert sent[9] == f"position fen {xiangqi.STARTING_FEN} moves h2e2 h9g7"
    assert sent[10] == "go movetime 1000"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"Threads": 2}, "has no option 'Threads'"),
        ({"Hash": 0}, "from 1 to 1024"),
        ({"Hash": "lots"}, "whole number"),
        ({"Ponder": "maybe"}, "true or false"),
        ({"Style": "wild"}, "one of solid, normal, risky"),
    ],
)
def test_bad_options(
    make: Callable[..., UciEngine], options: dict[str, object], message: str
) -> None:
    from lanqi.bot.engines import EngineConfigError

    with pytest.raises(EngineConfigError, match=message):
        make(options=options)


def test_fairy_coordinates_are_detected_and_converted(
    make: Callable[..., UciEngine], fake_log: Log
) -> None:
    bot = make("fairy")
    assert bot.coords == "fairy"
    assert "setoption name UCI_Variant value xiangqi" in fake_log()
    # Red's e0e1 goes out as e1e2; Black's first move in ICCS order, d9d8, comes back as d10d9.
    state = SeatView.start("xiangqi", start_fen=RANK_NINE_FEN + " w - - 0 1", moves=["e0e1"])
    assert bot.choose_move(state) == _first_legal(state) == "d9d8"
    assert fake_log()[-2] == f"position fen {RANK_NINE_FEN} w - - 0 1 moves e1e2"
    assert bot.last_info.pv == ("d9d8",)


def test_coords_can_be_forced(make: Callable[..., UciEngine], fake_log: Log) -> None:
    bot = make("ok", coords="fairy", variant_option=None)
    assert bot.coords == "fairy"
    assert not any("UCI_Variant" in line for line in fake_log())
    with pytest.raises(ValueError):
        make("ok", coords="chess")


def test_illegal_move_never_reaches_the_board(make: Callable[..., UciEngine]) -> None:
    bot = make("illegal")
    state = SeatView.start("xiangqi")
    before = state.board.fen()
    with pytest.raises(IllegalEngineMove, match="illegal engine move 'a0a5'") as info:
        bot.choose_move(state)
    assert info.value.move == "a0a5"
    assert info.value.position == before
    assert info.value.reply == "bestmove a0a5"
    assert state.board.fen() == before
    assert bot.process.running and bot.restarts == 0  # a bad move is no reason to restart


def test_unreadable_move(make: Callable[..., UciEngine]) -> None:
    bot = make("unreadable")
    with pytest.raises(IllegalEngineMove, match="unreadable engine move 'zz99'"):
        bot.choose_move(SeatView.start("xiangqi"))


def test_rank_ten_from_an_engine_taken_for_iccs(make: Callable[..., UciEngine]) -> None:
    bot = make("fairy", coords="iccs")  # wrong setting: the engine writes ranks 1-10
    state = SeatView.start("xiangqi", start_fen=RANK_NINE_FEN + " b - - 0 1")
    with pytest.raises(IllegalEngineMove, match="try coords='fairy'"):
        bot.choose_move(state)


def test_crash_mid_game_then_a_fresh_engine(make: Callable[..., UciEngine], procs: Any) -> None:
    bot = make("crash", "3")
    state = SeatView.start("xiangqi")
    bot.on_game_start(state)
    moves: list[str] = []
    for _ in range(2):
        moves.append(bot.choose_move(SeatView.start("xiangqi", moves=moves)))
        moves.append(SeatView.start("xiangqi", moves=moves).legal_moves()[-1])
    old_pid = bot.process.pid
    with pytest.raises(EngineCrashed) as info:
        bot.choose_move(SeatView.start("xiangqi", moves=moves))
    assert info.value.exit_code == 3
    assert "segmentation fault (pretend)" in str(info.value)
    assert procs.reaped(old_pid)
    bot.on_game_start(SeatView.start("xiangqi"))  # the next game gets a fresh engine
    assert bot.restarts == 1 and bot.process.pid != old_pid
    assert bot.choose_move(SeatView.start("xiangqi")) == _first_legal(SeatView.start("xiangqi"))


def _wait_dead(bot: UciEngine | Any) -> None:
    deadline = time.monotonic() + 10
    while bot.process.running:
        assert time.monotonic() < deadline, "the killed engine is still running"
        time.sleep(0.005)


def test_killed_on_the_opponents_time_the_game_is_lost_not_played_on(
    make: Callable[..., UciEngine], procs: Any
) -> None:
    bot = make()
    bot.on_game_start(SeatView.start("xiangqi"))
    moves = [bot.choose_move(SeatView.start("xiangqi"))]
    moves.append(SeatView.start("xiangqi", moves=moves).legal_moves()[0])
    old_pid = bot.process.pid
    assert old_pid is not None
    os.kill(old_pid, signal.SIGKILL)  # between its moves: it owes nothing, nobody asked it
    _wait_dead(bot)
    with pytest.raises(EngineCrashed, match="exited while it waited for its turn") as info:
        bot.choose_move(SeatView.start("xiangqi", moves=moves))
    assert info.value.exit_code == -signal.SIGKILL and procs.reaped(old_pid)
    assert bot.restarts == 0  # not restarted to play the rest of that game
    bot.on_game_start(SeatView.start("xiangqi"))  # the next game gets a fresh engine
    assert bot.restarts == 1 and bot.process.pid != old_pid
    assert bot.choose_move(SeatView.start("xiangqi")) == _first_legal(SeatView.start("xiangqi"))


def test_hang_is_detected_within_the_bound(make: Callable[..., UciEngine], procs: Any) -> None:
    bot = make("hang", timeout_margin_ms=300, overhead_ms=100)
    state = SeatView.start("xiangqi", per_move_ms=300)
    assert bot.wait_limit_ms(state) == 200 + 300
    old_pid = bot.process.pid
    with pytest.raises(EngineTimeout, match=r"no bestmove within 0\.50 s") as info:
        bot.choose_move(state)
    assert info.value.waited_s >= 0.5  # it did not give up early (the adapter's own count)
    assert not bot.process.running and procs.reaped(old_pid)
    bot.on_game_start(SeatView.start("xiangqi"))
    assert bot.restarts == 1 and bot.process.running and bot.process.pid != old_pid


def test_a_move_after_a_hang_restarts_too(make: Callable[..., UciEngine]) -> None:
    bot = make("hang", timeout_margin_ms=100, movetime=100)
    with pytest.raises(EngineTimeout):
        bot.choose_move(SeatView.start("xiangqi"))
    with pytest.raises(EngineTimeout):  # a fresh engine, which hangs again
        bot.choose_move(SeatView.start("xiangqi"))
    assert bot.restarts == 1


def test_no_uciok_times_out_and_leaves_nothing(fake: Fake, fake_env: dict[str, str]) -> None:
    with pytest.raises(EngineTimeout, match=r"uciok.*0\.30 s|0\.30 s.*uciok") as info:
        UciEngine(fake("uci_fake.py", "mute"), env=fake_env, handshake_timeout_s=0.3)
    assert info.value.waited_s >= 0.3


def test_junk_is_ignored(make: Callable[..., UciEngine]) -> None:
    bot = make("junk")
    state = SeatView.start("xiangqi")
    assert bot.choose_move(state) == _first_legal(state)
    assert bot.last_info.depth == 1 and bot.last_info.score_cp == 5


def test_time_control_mapping(make: Callable[..., UciEngine]) -> None:
    bot = make(overhead_ms=50, default_movetime_ms=700)
    red = SeatView.start("xiangqi", seat=0, remaining_ms=(30_000, 20_000), increment_ms=500)
    bot.choose_move(red)
    assert bot.last_go == "go wtime 29950 btime 20000 winc 500 binc 500"
    bot.choose_move(SeatView.start("xiangqi", per_move_ms=2000))
    assert bot.last_go == "go movetime 1950"
    bot.choose_move(SeatView.start("xiangqi"))
    assert bot.last_go == "go movetime 700"
    fixed = make(depth=3, movetime=250)
    fixed.choose_move(red)
    assert fixed.last_go == "go depth 3 movetime 250"


def test_time_odds_send_each_sides_own_increment(make: Callable[..., UciEngine]) -> None:
    bot = make(overhead_ms=50)
    black = SeatView.start("xiangqi", seat=1, moves=["h2e2"], remaining_ms=(10_000, 5_000))
    black.increment_ms, black.opponent_increment_ms = 50, 100
    bot.choose_move(black)
    assert bot.last_go == "go wtime 10000 btime 4950 winc 100 binc 50"


def test_losing_repetition_moves_are_left_out(make: Callable[..., UciEngine]) -> None:
    board = xiangqi.Board(PERPETUAL_FEN)
    for text in PERPETUAL_MOVES:
        board.push(xiangqi.Move.from_iccs(text))
    assert losing_repetition_moves(board) == ["a8a9"]
    bot = make()
    state = SeatView.start("xiangqi", start_fen=PERPETUAL_FEN, moves=PERPETUAL_MOVES)
    bot.choose_move(state)
    assert " searchmoves " in bot.last_go
    allowed = bot.last_go.split(" searchmoves ")[1].split()
    assert "a8a9" not in allowed
    assert sorted(allowed) == sorted(m for m in state.legal_moves() if m != "a8a9")
    bot.avoid_losing_repetition = False
    bot.choose_move(state)
    assert "searchmoves" not in bot.last_go


def test_banned_moves_for_one_search(make: Callable[..., UciEngine]) -> None:
    bot = make()
    state = SeatView.start("xiangqi")
    bot.set_banned_moves(["h2e2", "b2e2"])
    bot.choose_move(state)
    allowed = bot.last_go.split(" searchmoves ")[1].split()
    assert len(allowed) == 42 and "h2e2" not in allowed
    bot.choose_move(state)
    assert "searchmoves" not in bot.last_go


def test_wrong_variant_is_refused(make: Callable[..., UciEngine]) -> None:
    bot = make()
    with pytest.raises(ValueError, match="cannot play gomoku"):
        bot.choose_move(SeatView.start("gomoku"))


def test_close_sends_quit_and_reaps(
    make: Callable[..., UciEngine], fake_log: Log, procs: Any
) -> None:
    bot = make()
    pid = bot.process.pid
    bot.close()
    assert fake_log()[-1] == "quit"
    assert bot.process.returncode == 0 and procs.reaped(pid)


def test_spawned_helpers_die_with_the_engine(make: Callable[..., UciEngine], procs: Any) -> None:
    bot = make("spawn")
    helper = int(bot.engine_name.split("helper=")[1])
    bot.close()
    assert procs.wait_gone(helper)


def test_doctests() -> None:
    import doctest

    from lanqi.bot import engines
    from lanqi.bot.engines import ucci, uci

    for module in (engines, uci, ucci):
        result = doctest.testmod(module)
        assert result.failed == 0, module.__name__


def _on_clock(moves: list[str], per_move_ms: int = 300) -> SeatView:
    """A state as the runner builds it: a per-move clock and a deadline from now."""
    state = SeatView.start("xiangqi", moves=moves, per_move_ms=per_move_ms)
    state.remaining_ms = (per_move_ms, per_move_ms)
    state.deadline = time.monotonic() + (per_move_ms - 75) / 1000
    return state


def test_stop_before_the_deadline_brings_the_move(
    make: Callable[..., UciEngine], fake_log: Log
) -> None:
    """An engine that thinks until told: the adapter says ``stop`` before the deadline,
    and the engine's answer to it is the move.

    Nothing here depends on how fast the machine is.  Without ``stop`` the engine
    never answers (the adapter would raise EngineTimeout).  Whether its answer beats
    the deadline or comes late (a busy machine: the adapter then plays the same
    move from the engine's pv and takes the late ``bestmove`` before the next
    search), the move is the engine's; the long margin means a late answer is
    waited for, never a reason to restart.  The engine reads its input in order, so
    once it has answered the second search it has logged the ``stop`` sent before.
    """
    bot = make("slow", timeout_margin_ms=10_000)
    state = _on_clock(["h2e2"])
    assert bot.choose_move(state) == _first_legal(state)
    state = _on_clock(["h2e2", "h9g7", "h0g2"])
    assert bot.choose_move(state) == _first_legal(state)  # no stale bestmove in the way
    sent = fake_log()
    second = sent.index(f"position fen {xiangqi.STARTING_FEN} moves h2e2 h9g7 h0g2")
    assert "stop" in sent[:second], sent  # the first search was stopped
    assert bot.restarts == 0


def test_engine_deaf_to_stop_plays_its_best_move_so_far(
    make: Callable[..., UciEngine], fake_log: Log
) -> None:
    """No answer to ``stop`` by the deadline: the first move of the last pv is played,
    and the engine, which never delivers its late bestmove, is restarted next time."""
    bot = make("stubborn", timeout_margin_ms=200)
    state = _on_clock(["h2e2"], per_move_ms=1500)  # time for its pv line on a busy machine
    assert bot.choose_move(state) == _first_legal(state)
    assert fake_log().count("stop") == 1
    state = _on_clock(["h2e2", "h9g7", "h0g2"], per_move_ms=3000)  # room for the restart
    assert bot.choose_move(state) == _first_legal(state)
    assert bot.restarts == 1
