"""Browsers say how long their player thought: the page measures it from the state
that gave it the turn, the gateway passes it on, the referee gives the rest back
(``moved.lag_ms``, docs/protocol.md#lag-compensation)."""

from __future__ import annotations

import sqlite3

import pytest
from tests.web.conftest import (
    Browser,
    WebServer,
    click_square,
    enter,
    in_game,
    offered,
    seat_of,
    seek,
    take_seek_of,
    wait,
    wait_ply,
)

from lanqi.protocol import MoveMade, decode_payload
from lanqi.web.app import _think_ms


def moves_stored(server: WebServer, game_id: str) -> list[MoveMade]:
    """The game's ``moved`` events as the referee stored them."""
    with sqlite3.connect(server.data / "referee.sqlite3") as db:
        rows = db.execute(
            "SELECT payload FROM events WHERE game_id = ? AND kind = 'moved' ORDER BY seq",
            (game_id,),
        ).fetchall()
    moves = [decode_payload(bytes(payload)) for (payload,) in rows]
    assert all(isinstance(m, MoveMade) for m in moves)
    return moves  # type: ignore[return-value]


def test_browser_moves_carry_their_thinking_and_get_their_lag_back(
    web_server: WebServer, browser: Browser
) -> None:
    first, second = browser(), browser()
    enter(first, web_server, "lan")
    enter(second, web_server, "lin")
    seek(first, "gomoku", clock="180+2", color="first")
    take_seek_of(second, "lan")
    game_id = in_game(first)
    assert in_game(second) == game_id
    assert (seat_of(first), seat_of(second)) == ("0", "1")
    players = [first, second]
    for n, square in enumerate(["h8", "h9", "i8", "i9"]):
        mover = players[n % 2]
        wait(mover, offered(square), f"{square} offered as a legal target")
        click_square(mover, square)
        for page in players:
            wait_ply(page, n + 1)
    moved = moves_stored(web_server, game_id)
    assert [m.ply for m in moved] == [0, 1, 2, 3]
    # every move said how long it was thought: the first two (in their first-move
    # windows, charged nothing) have no lag to give back, the others what they had
    assert [m.lag_ms for m in moved[:2]] == [0, 0]
    assert all(m.lag_ms is not None and m.lag_ms >= 0 for m in moved[2:])


@pytest.mark.parametrize(
    ("given", "passed_on"),
    [
        (None, None),
        ("120", None),
        (True, None),
        (float("nan"), None),
        (120, 120),
        (120.6, 121),
        (-5, 0),
        (float("-inf"), 0),
        (1e30, 24 * 3600 * 1000),
    ],
)
def test_the_gateway_passes_on_a_number_of_ms_and_nothing_else(
    given: object, passed_on: int | None
) -> None:
    assert _think_ms(given) == passed_on
