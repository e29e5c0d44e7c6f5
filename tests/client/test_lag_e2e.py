"""A seated table says how long each of its moves was thought (``think_ms``) and the
referee gives the rest back (``moved.lag_ms``); ``report_think = False`` sends moves
as they are.  Real referee, loopback."""

from __future__ import annotations

from collections.abc import Callable

from tests.client.helpers import OPENING, move, seats, until
from tests.referee.conftest import RefereeProcess

from lanqi.client.connection import BlockingConnection
from lanqi.protocol import CreateGame, GameCreated, MoveMade, MoveRequest, TimeControl


def test_a_table_fills_in_how_long_each_move_was_thought(
    referee_factory: Callable[..., RefereeProcess],
) -> None:
    referee = referee_factory()
    with BlockingConnection() as conn:
        clock = TimeControl(kind="fischer", base_ms=60_000, first_move_ms=0)
        created = conn.referee_request(
            referee.endpoint, CreateGame(variant="xiangqi", players=["r", "b"], time_control=clock)
        )
        assert isinstance(created, GameCreated)
        red, black = seats(conn, referee.endpoint, referee.pub_endpoint, created)
        until(red, lambda t: t.state.status == "active")
        assert red.turn_began is not None and black.turn_began is None
        answered = move(red, OPENING[0])
        assert isinstance(answered.request, MoveRequest)
        think = answered.request.think_ms
        assert think is not None and think >= 0
        black.report_think = False
        seen = until(black, lambda t: t.state.ply == 1)
        red_lag = [n.lag_ms for n in seen if isinstance(n, MoveMade) and n.ply == 0]
        assert len(red_lag) == 1 and red_lag[0] is not None and red_lag[0] >= 0
        answered = move(black, OPENING[1])
        assert isinstance(answered.request, MoveRequest)
        assert answered.request.think_ms is None
        seen = until(red, lambda t: t.state.ply == 2)
        # red's move was given its lag back (0 or more, above); black's said nothing
        assert [n.lag_ms for n in seen if isinstance(n, MoveMade) and n.ply == 1] == [None]
