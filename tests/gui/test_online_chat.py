"""The online session shows every chat line once, also those a resync brings late."""

from __future__ import annotations

import pytest

pytest.importorskip("pygame")

from lanqi.gui.net import ViewState
from lanqi.gui.sessions import OnlineSession
from lanqi.protocol import ChatPosted, TimeControl


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


def line(seq: int, text: str) -> ChatPosted:
    return ChatPosted(game_id="g1", seq=seq, room="spectators", name="zoe", text=text)


def view(seq: int, *chat: ChatPosted) -> ViewState:
    return ViewState(
        game_id="g1",
        seq=seq,
        variant="gomoku",
        options={},
        start_fen=None,
        moves=(),
        status="active",
        result=None,
        termination=None,
        winner=None,
        players=("ann", "bob"),
        connected=(True, True),
        remaining_ms=(),
        running=0,
        at=0.0,
        casual=True,
        time_control=TimeControl(),
        draw_offer=None,
        takeback_offer=None,
        chat=chat,
    )


def test_lines_a_resync_inserts_are_shown_once() -> None:
    session = OnlineSession(StubAgent(), variant="gomoku")  # type: ignore[arg-type]
    session._apply(view(5, line(1, "first"), line(5, "third")))
    # A resync found line 3, which the subscription had missed: the view now has
    # it between the others.
    session._apply(view(6, line(1, "first"), line(3, "second"), line(5, "third")))
    session._apply(view(7, line(1, "first"), line(3, "second"), line(5, "third")))
    assert sorted(c.text for c in session.model.chat if c.name == "zoe") == [
        "first",
        "second",
        "third",
    ]
