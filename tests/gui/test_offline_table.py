"""Games on this computer are refereed by the referee's own session on a local table:
the GUI keeps no game logic (issue 20).  Flags, draws, takebacks, resignation and the
clocks come from the referee's events; the AI is a seat with its own table and thinks
on the live position, never a replay of the game from its start."""

from __future__ import annotations

import ast
import time
from pathlib import Path
from typing import Any

import pytest

from lanqi.bot.base import Bot
from lanqi.bot.base import SeatView as BotState
from lanqi.gui.sessions import AISession, LocalSession
from lanqi.protocol import (
    DrawDeclined,
    DrawOffered,
    GameEnded,
    MoveMade,
    TakebackRequested,
    TakenBack,
)

GUI = Path(__file__).resolve().parents[2] / "frontends" / "lanqi" / "gui"


class FakeTime:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.now = 1_000.0
        monkeypatch.setattr(time, "monotonic", lambda: self.now)


def _kinds(session: LocalSession) -> list[type[Any]]:
    return [type(event) for event in session.referee.log]


def test_an_offline_flag_falls_in_the_referees_session(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeTime(monkeypatch)
    session = LocalSession("xiangqi", time_control="0.1+0")  # 6 s each
    for move in ("h2e2", "h9g7", "b0c2"):
        assert session.play(move)
    clock.now += 5.9
    session.update(clock.now)
    assert session.model.status == "active"
    clock.now += 0.2
    session.update(clock.now)
    ended = session.referee.log[-1]
    assert isinstance(ended, GameEnded)
    assert (ended.termination, ended.winner) == ("timeout", 0)
    assert session.model.state == session.referee.state  # the screen shows the fold
    assert session.model.clock.left_ms(1) == 0


def test_the_clock_stands_still_for_the_referee_while_paused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = FakeTime(monkeypatch)
    session = LocalSession("xiangqi", time_control="0.1+0")
    for move in ("h2e2", "h9g7", "b0c2"):
        session.play(move)
    session.pause(True)
    clock.now += 60
    session.update(clock.now)
    session.pause(False)
    assert session.model.status == "active"
    assert session.remaining_ms() == (6000.0, 6000.0)


def test_hot_seat_draw_takeback_and_resignation_are_the_referees_events() -> None:
    session = LocalSession("xiangqi")
    session.play("h2e2")
    session.act("takeback")
    assert _kinds(session)[-2:] == [TakebackRequested, TakenBack]
    assert session.model.ply == 0
    session.play("h2e2")
    session.act("offer_draw")
    assert _kinds(session)[-2:] == [DrawOffered, GameEnded]
    assert (session.model.result, session.model.termination) == ("1/2-1/2", "agreement")
    session.act("new_game")
    session.act("resign")
    session.act("resign")  # the second press confirms
    ended = session.referee.log[-1]
    assert isinstance(ended, GameEnded) and (ended.termination, ended.winner) == (
        "resignation",
        1,
    )


class _Scripted(Bot):
    """Plays the first legal move and remembers what it was given."""

    def __init__(self) -> None:
        self.seen: list[BotState] = []

    def choose_move(self, state: BotState) -> str:
        self.seen.append(state)
        return str(state.board.legal_moves()[0])


def _until_ai_moved(session: AISession, ply: int) -> None:
    deadline = time.monotonic() + 10
    while session.model.ply < ply:
        assert time.monotonic() < deadline, "the AI did not move"
        session.update(time.monotonic())
        time.sleep(0.005)


def test_the_ai_is_a_seat_on_the_table_and_thinks_on_the_live_position(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_replay(*args: Any, **kwargs: Any) -> BotState:
        raise AssertionError("the AI's position was replayed from the start")

    monkeypatch.setattr(BotState, "start", no_replay)
    bot = _Scripted()
    session = AISession("xiangqi", ai_factory=lambda: bot, human_seat=0)
    try:
        session.play("h2e2")
        _until_ai_moved(session, 2)
        moved = session.referee.log[-1]
        assert isinstance(moved, MoveMade) and moved.seat == 1
        given = bot.seen[-1]
        assert given.board is not session.referee.session.game  # a copy to think on
        assert given.moves == ["h2e2"] and given.board.ply == 1
        session.act("offer_draw")  # the AI declines, through its own table
        assert _kinds(session)[-2:] == [DrawOffered, DrawDeclined]
        session.act("takeback")  # the AI grants it: both moves go back
        taken = session.referee.log[-1]
        assert isinstance(taken, TakenBack) and taken.plies == 2
        assert session.model.ply == 0
    finally:
        session.close()


def test_no_gui_module_keeps_referee_logic() -> None:
    """Clocks, outcomes and endings are the referee's: the GUI neither runs a
    GameClock nor asks the rules whether a game is over to end it."""
    for path in sorted(GUI.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "lanqi.clock":
                pytest.fail(f"{path.name} imports lanqi.clock")
            if isinstance(node, ast.Attribute) and node.attr in ("flagged", "finish_by_rules"):
                pytest.fail(f"{path.name} line {node.lineno}: .{node.attr}")


def test_a_move_played_on_the_board_is_parsed_once_on_the_screen() -> None:
    from lanqi.gui.model import GameModel

    model = GameModel("xiangqi")
    wire, reason = model.check("炮二平五")  # any notation in, the wire's out
    assert (wire, reason) == ("h2e2", None)
    board = model.board

    def parse_again(text: str) -> Any:
        raise AssertionError(f"{text} parsed a second time")

    board.parse_move = parse_again  # type: ignore[method-assign]
    model.show(model.state._replace(moves=("h2e2",)))  # the table brings it back
    assert model.moves == ["h2e2"] and model.board is board and board.ply == 1
