"""The online session shows every chat line once, also those a resync brings late."""

from __future__ import annotations

import pytest

pytest.importorskip("pygame")

from lanqi.gamestate import GameState
from lanqi.gui.net import ViewState
from lanqi.gui.sessions import OnlineSession
from lanqi.protocol import Assignment, ChatLine, ChatRoom, GameStatus


class StubAgent:
    """Stands in for the network thread: the test hands the session its views."""

    game_id = "g1"

    def is_alive(self) -> bool:
        return True

    def start(self) -> None:  # pragma: no cover - already "running"
        raise AssertionError("not started twice")

    def poll(self) -> list[object]:
        return []

    def stop(self) -> None:
        pass


def line(seq: int, text: str, room: ChatRoom = "spectators") -> ChatLine:
    seat = 0 if room == "players" else None
    return ChatLine(seq=seq, room=room, name="zoe", text=text, seat=seat)


def view(
    seq: int, *chat: ChatLine, casual: bool = True, status: GameStatus = "active"
) -> ViewState:
    state = GameState.new(
        "g1", "gomoku", {}, None, ("ann", "bob"), fen="15/15 b", casual=casual
    )._replace(seq=seq, status=status, connected=(True, True), chat=chat)
    return ViewState(state, at=0.0)


def test_lines_a_resync_inserts_are_shown_once() -> None:
    session = OnlineSession(StubAgent(), variant="gomoku")  # type: ignore[arg-type]
    session._apply(view(5, line(1, "first"), line(5, "third")))
    # A resync found line 3, which the subscription had missed: the view now has
    # it between the others.
    session._apply(view(6, line(1, "first"), line(3, "second"), line(5, "third")))
    session._apply(view(7, line(1, "first"), line(3, "second"), line(5, "third")))
    assert sorted(
        c.text for c in session.model.chat if isinstance(c, ChatLine) and c.name == "zoe"
    ) == [
        "first",
        "second",
        "third",
    ]


def test_a_player_in_a_rated_game_sees_the_spectators_room_after_the_game() -> None:
    assignment = Assignment(
        game_id="g1",
        referee="tcp://127.0.0.1:1",
        referee_pub="tcp://127.0.0.1:2",
        seat=0,
        token="t",
        variant="gomoku",
        players=["zoe", "bob"],
    )
    session = OnlineSession(StubAgent(), variant="gomoku", assignment=assignment)  # type: ignore[arg-type]
    lines = (line(1, "good luck", room="players"), line(2, "play h9!"))
    session._apply(view(2, *lines, casual=False))
    assert [c.text for c in session.model.chat if isinstance(c, ChatLine) and c.name == "zoe"] == [
        "good luck"
    ]
    session._apply(view(3, *lines, casual=False, status="finished"))
    assert [c.text for c in session.model.chat if isinstance(c, ChatLine) and c.name == "zoe"] == [
        "good luck",
        "play h9!",
    ]
    # In a casual game, or as a spectator, both rooms show at once.
    for casual, seated in ((True, assignment), (False, None)):
        other = OnlineSession(StubAgent(), variant="gomoku", assignment=seated)  # type: ignore[arg-type]
        other._apply(view(2, *lines, casual=casual))
        assert [
            c.text for c in other.model.chat if isinstance(c, ChatLine) and c.name == "zoe"
        ] == ["good luck", "play h9!"]


def test_the_message_box_holds_the_protocols_chat_lines_and_the_programs_own() -> None:
    """One ChatLine: the model keeps the referee's lines as they came (seq, room and
    seat with them), and the program's own lines are of another type."""
    from lanqi.gui.model import SystemLine

    session = OnlineSession(StubAgent(), variant="gomoku")  # type: ignore[arg-type]
    said = line(4, "hello")
    session._apply(view(4, said))
    session.model.say("saved")
    assert session.model.chat[-2:] == [said, SystemLine("saved")]
