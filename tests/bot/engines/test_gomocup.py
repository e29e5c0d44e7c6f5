"""GomocupEngine against a scripted pbrain: ABOUT, START, BEGIN, TURN, BOARD and failures."""

from __future__ import annotations

import logging
import os
import random
import signal
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from lanqi.bot.base import SeatView
from lanqi.bot.engines import (
    EngineCrashed,
    EngineProtocolError,
    EngineTimeout,
    GomocupEngine,
    IllegalEngineMove,
    create_engine,
)
from lanqi.bot.engines import gomocup as gomocup_module
from lanqi.games import gomoku

Fake = Callable[..., list[str]]
Log = Callable[[], list[str]]


@pytest.fixture
def make(fake: Fake, fake_env: dict[str, str]) -> Iterator[Callable[..., GomocupEngine]]:
    bots: list[GomocupEngine] = []

    def build(mode: str = "ok", **kwargs: Any) -> GomocupEngine:
        bot = GomocupEngine(fake("gomocup_fake.py", mode), env=fake_env, **kwargs)
        bots.append(bot)
        return bot

    yield build
    for bot in bots:
        bot.close()


def _state(moves: list[str], *, game_id: str = "g1", **kwargs: Any) -> SeatView:
    options = kwargs.pop("options", {"rule": "standard"})
    state = SeatView.start("gomoku", options=options, moves=moves, game_id=game_id, **kwargs)
    state.seat = state.board.seat_to_move
    return state


def _after(log: list[str], marker: str) -> list[str]:
    """The lines after the last ``marker``."""
    index = len(log) - 1 - log[::-1].index(marker)
    return log[index + 1 :]


def _synced(bot: GomocupEngine, fake_log: Log) -> list[str]:
    """The fake's log once it has read everything sent so far (INFO has no answer)."""
    bot.process.send("ABOUT")
    bot.process.expect(lambda line: line.startswith(("name=", "UNKNOWN")), 5)
    log = fake_log()
    assert log[-1] == "ABOUT"
    return log[:-1]


def test_doctests() -> None:
    import doctest

    result = doctest.testmod(gomocup_module)
    assert result.failed == 0 and result.attempted > 0


def test_about_names_the_engine(make: Callable[..., GomocupEngine], fake_log: Log) -> None:
    bot = make()
    assert bot.engine_name == "pbrain-fake"
    assert bot.about == {
        "name": "pbrain-fake",
        "version": "1.0",
        "author": "lanqi tests",
        "country": "--",
    }
    assert fake_log() == ["ABOUT"]


def test_an_old_brain_without_about(make: Callable[..., GomocupEngine]) -> None:
    bot = make("old")
    assert bot.about == {}
    assert bot.engine_name.startswith("python")


def test_game_as_black_begin_then_turn(make: Callable[..., GomocupEngine], fake_log: Log) -> None:
    bot = make()
    state = _state([])
    bot.on_game_start(state)
    assert _synced(bot, fake_log)[1:] == [
        "START 15",
        "INFO timeout_turn 1000",
        "INFO timeout_match 0",
        "INFO max_memory 0",
        "INFO rule 1",
    ]
    assert bot.choose_move(state) == "h8"
    assert fake_log()[-3:] == ["INFO time_left 2147483647", "INFO timeout_turn 1000", "BEGIN"]
    # The opponent plays h9, one row up: Gomocup y counts from the top, so 7,6.
    move = bot.choose_move(_state(["h8", "h9"]))
    assert fake_log()[-1] == "TURN 7,6"
    assert gomoku.Move.from_text(move) not in (gomoku.Move(7, 7), gomoku.Move(7, 8))


def test_game_as_white_gets_turn_first(make: Callable[..., GomocupEngine], fake_log: Log) -> None:
    bot = make()
    state = _state(["a1"])
    bot.on_game_start(state)
    assert bot.choose_move(state) == "h8"
    assert fake_log()[-1] == "TURN 0,14"  # a1: left column, bottom row = y 14 from the top


def test_board_resyncs_a_game_in_progress(
    make: Callable[..., GomocupEngine], fake_log: Log
) -> None:
    bot = make()
    state = _state(["h8", "h9", "j10", "a1"])  # Black (the engine) to move
    reply = bot.choose_move(state)  # no on_game_start: the bot starts the game itself
    sent = fake_log()
    assert "START 15" in sent and "RESTART" not in sent
    assert _after(sent, "BOARD") == ["7,7,1", "7,6,2", "9,5,1", "0,14,2", "DONE"]
    assert reply == "g8"  # nearest the centre, top row first, then left: 6,7 -> g8
    # Now the opponent answers and the bot continues with TURN.
    bot.choose_move(_state(["h8", "h9", "j10", "a1", reply, "b1"]))
    assert fake_log()[-1] == "TURN 1,14"


def test_out_of_step_state_is_resynced(make: Callable[..., GomocupEngine], fake_log: Log) -> None:
    bot = make()
    bot.choose_move(_state([]))  # the engine played h8
    bot.choose_move(_state(["h8", "a1", "a2", "a3"]))  # two moves later: BOARD again
    sent = fake_log()
    assert sent.count("RESTART") == 1
    assert _after(sent, "BOARD") == ["7,7,1", "0,14,2", "0,13,1", "0,12,2", "DONE"]


def test_set_up_positions_go_into_board(make: Callable[..., GomocupEngine], fake_log: Log) -> None:
    bot = make()
    fen = "15/15/15/15/15/15/15/7x7/6o8/15/15/15/15/15/15 b"  # h8 black, g7 white
    state = _state([], options={"rule": "freestyle", "fen": fen})
    bot.choose_move(state)
    assert "INFO rule 0" in fake_log()
    assert _after(fake_log(), "BOARD") == ["7,7,1", "6,8,2", "DONE"]


def test_next_game_uses_restart(make: Callable[..., GomocupEngine], fake_log: Log) -> None:
    bot = make()
    bot.on_game_start(_state([]))
    bot.choose_move(_state([]))
    pid = bot.process.pid
    bot.on_game_start(_state([], game_id="g2"))
    assert fake_log().count("START 15") == 1
    assert "RESTART" in fake_log() and bot.process.pid == pid
    assert bot.choose_move(_state([], game_id="g2")) == "h8"
    assert fake_log()[-1] == "BEGIN"


def test_new_size_relaunches(make: Callable[..., GomocupEngine], fake_log: Log) -> None:
    bot = make()
    bot.on_game_start(_state([]))
    pid = bot.process.pid
    bot.on_game_start(_state([], game_id="g2", options={"size": 19, "rule": "renju"}))
    assert bot.process.pid != pid
    assert _synced(bot, fake_log)[-5:] == [
        "START 19",
        "INFO timeout_turn 1000",
        "INFO timeout_match 0",
        "INFO max_memory 0",
        "INFO rule 4",
    ]
    assert bot.choose_move(_state([], game_id="g2", options={"size": 19, "rule": "renju"})) == "j10"


def test_old_brain_without_restart_is_relaunched(
    make: Callable[..., GomocupEngine], fake_log: Log
) -> None:
    bot = make("old")
    bot.on_game_start(_state([]))
    pid = bot.process.pid
    bot.on_game_start(_state([], game_id="g2"))
    assert bot.process.pid != pid and bot.restarts == 1
    assert _synced(bot, fake_log)[-7:-4] == ["END", "ABOUT", "START 15"]


def test_time_info(make: Callable[..., GomocupEngine], fake_log: Log) -> None:
    bot = make(max_memory=64 << 20, options={"folder": "/tmp"})
    clock: dict[str, Any] = {"remaining_ms": (60_000, 50_000), "increment_ms": 1_000}
    bot.on_game_start(_state([], **clock))
    sent = _synced(bot, fake_log)
    assert "INFO timeout_match 60000" in sent
    assert f"INFO max_memory {64 << 20}" in sent
    assert sent[-1] == "INFO folder /tmp"
    bot.choose_move(_state([], **clock))
    assert fake_log()[-3:-1] == ["INFO time_left 59900", "INFO timeout_turn 2800"]
    per_move = make(movetime=150)
    per_move.choose_move(_state([], per_move_ms=5000))
    assert fake_log()[-3:-1] == ["INFO time_left 2147483647", "INFO timeout_turn 150"]


def test_suggest_is_confirmed_with_play(make: Callable[..., GomocupEngine], fake_log: Log) -> None:
    bot = make("suggest")
    assert bot.choose_move(_state([])) == "h8"
    assert fake_log()[-1] == "PLAY 7,7"


def test_messages_and_junk_are_logged(
    make: Callable[..., GomocupEngine], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="lanqi.bot.engines.gomocup")
    bot = make()
    bot.choose_move(_state([]))
    assert list(bot.messages) == ["I will be the winner"]
    records = {(r.levelno, r.getMessage()) for r in caplog.records}
    assert (logging.INFO, "pbrain-fake says: I will be the winner") in records
    assert (logging.DEBUG, "pbrain-fake debug: eval +0.3") in records
    junk = make("junk")
    assert junk.choose_move(_state([])) == "h8"
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("Thinking... 42%" in text for text in warnings)


def test_error_answer(make: Callable[..., GomocupEngine], fake_log: Log) -> None:
    bot = make("error")
    with pytest.raises(EngineProtocolError, match="ERROR cannot think today"):
        bot.choose_move(_state([]))
    assert bot.process.running
    with pytest.raises(EngineProtocolError):
        bot.choose_move(_state([]))
    assert "RESTART" in fake_log()  # unsure what the engine holds: a clean board first


def test_refused_start(make: Callable[..., GomocupEngine]) -> None:
    bot = make("only20")
    with pytest.raises(EngineProtocolError, match="refused START 15: ERROR unsupported size"):
        bot.on_game_start(_state([]))
    bot.on_game_start(_state([], options={"size": 20}))
    assert bot.choose_move(_state([], options={"size": 20})) == "k10"


@pytest.mark.parametrize(("mode", "message"), [("occupied", "illegal"), ("offboard", "unreadable")])
def test_bad_moves_never_reach_the_board(
    make: Callable[..., GomocupEngine], mode: str, message: str
) -> None:
    bot = make(mode)
    state = _state(["h8"])
    before = state.board.fen()
    with pytest.raises(IllegalEngineMove, match=message) as info:
        bot.choose_move(state)
    assert info.value.position == before == state.board.fen()


def test_crash_then_a_fresh_engine(make: Callable[..., GomocupEngine], procs: Any) -> None:
    bot = make("crash")
    assert bot.choose_move(_state([])) == "h8"
    pid = bot.process.pid
    with pytest.raises(EngineCrashed, match="out of cheese") as info:
        bot.choose_move(_state(["h8", "a1"]))
    assert info.value.exit_code == 5
    assert procs.reaped(pid)
    bot.on_game_start(_state([], game_id="g2"))
    assert bot.restarts == 1 and bot.process.pid != pid
    assert bot.choose_move(_state([], game_id="g2")) == "h8"


def test_killed_between_its_moves_the_game_is_lost_not_played_on(
    make: Callable[..., GomocupEngine], procs: Any
) -> None:
    bot = make()
    assert bot.choose_move(_state([])) == "h8"
    pid = bot.process.pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while bot.process.running:
        assert time.monotonic() < deadline, "the killed engine is still running"
        time.sleep(0.005)
    with pytest.raises(EngineCrashed, match="exited while it waited for its turn") as info:
        bot.choose_move(_state(["h8", "a1"]))
    assert info.value.exit_code == -signal.SIGKILL and procs.reaped(pid)
    assert bot.restarts == 0
    bot.on_game_start(_state([], game_id="g2"))  # the next game gets a fresh engine
    assert bot.restarts == 1 and bot.process.pid != pid
    assert bot.choose_move(_state([], game_id="g2")) == "h8"


def test_hang_is_detected_within_the_bound(make: Callable[..., GomocupEngine], procs: Any) -> None:
    bot = make("hang", timeout_margin_ms=300)
    state = _state([], per_move_ms=300)
    assert bot.choose_move(state) == "h8"
    assert bot.wait_limit_ms(state) == 200 + 300
    pid = bot.process.pid
    with pytest.raises(EngineTimeout, match=r"no move within 0\.50 s") as info:
        bot.choose_move(_state(["h8", "a1"], per_move_ms=300))
    assert info.value.waited_s >= 0.5  # it did not give up early (the adapter's own count)
    assert procs.reaped(pid)
    bot.on_game_start(_state([], game_id="g2"))
    assert bot.restarts == 1 and bot.process.running


def test_full_game_against_a_random_mover(make: Callable[..., GomocupEngine]) -> None:
    bot = make()
    rng = random.Random(11)
    board = gomoku.Board(15, "standard")
    moves: list[str] = []
    bot.on_game_start(_state([]))
    while board.outcome() is None:
        if board.seat_to_move == 0:
            text = bot.choose_move(_state(moves))
            move = gomoku.Move.from_text(text)
            assert board.is_legal(move)
        else:
            move = rng.choice(board.legal_moves())
        board.push(move)
        moves.append(str(move))
    assert board.outcome() is not None


def test_crlf_line_endings(make: Callable[..., GomocupEngine]) -> None:
    bot = make(line_ending="\r\n")
    assert bot.choose_move(_state([])) == "h8"


def test_end_on_close(make: Callable[..., GomocupEngine], fake_log: Log, procs: Any) -> None:
    bot = make()
    pid = bot.process.pid
    bot.close()
    assert fake_log()[-1] == "END"
    assert bot.process.returncode == 0 and procs.reaped(pid)


def test_wrong_variant_and_spec(fake: Fake, fake_env: dict[str, str]) -> None:
    bot = create_engine("gomocup:" + " ".join(fake("gomocup_fake.py")), env=fake_env)
    try:
        assert isinstance(bot, GomocupEngine)
        with pytest.raises(ValueError, match="cannot play xiangqi"):
            bot.choose_move(SeatView.start("xiangqi"))
    finally:
        bot.close()
