"""What the connection tests share: a game created on a referee, played through tables."""

from __future__ import annotations

import time
from collections.abc import Callable

from lanqi.client.connection import BlockingConnection
from lanqi.protocol import CreateGame, GameCreated, MoveRequest
from lanqi.table.port import Answered, TableNews
from lanqi.table.remote import RemoteTable

#: the first plies of a xiangqi game, each legal after the ones before
OPENING = ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7"]


def create(conn: BlockingConnection, referee: str, variant: str = "xiangqi") -> GameCreated:
    reply = conn.referee_request(referee, CreateGame(variant=variant, players=["red", "black"]))
    assert isinstance(reply, GameCreated), reply
    return reply


def seats(
    conn: BlockingConnection, referee: str, events: str, created: GameCreated
) -> tuple[RemoteTable, RemoteTable]:
    tables = [
        conn.open_table(
            game_id=created.game_id,
            referee=referee,
            events=events,
            seat=seat,
            token=created.tokens[seat],
        )
        for seat in (0, 1)
    ]
    return tables[0], tables[1]


def until(
    table: RemoteTable, done: Callable[[RemoteTable], bool], timeout_s: float = 10.0
) -> list[TableNews]:
    """Poll ``table`` (waiting for news, never sleeping) until ``done``; the news seen."""
    seen: list[TableNews] = []
    deadline = time.monotonic() + timeout_s
    seen.extend(table.poll())
    while not done(table):
        left = deadline - time.monotonic()
        assert left > 0, f"not done in {timeout_s} s: {table.state}"
        table.block(left)
        seen.extend(table.poll())
    return seen


def move(table: RemoteTable, text: str, ply: int | None = None) -> Answered:
    """Play ``text`` from ``table``'s seat (as ply ``ply``, by default the next of its
    state) and wait for the referee's answer."""
    ply = table.state.ply if ply is None else ply
    assert table.token is not None
    request_id = table.send(
        MoveRequest(game_id=table.game_id, token=table.token, ply=ply, move=text)
    )
    answers: list[Answered] = []
    deadline = time.monotonic() + 10
    while not answers:
        for news in table.poll():
            if isinstance(news, Answered) and news.request.id == request_id:
                answers.append(news)
        if not answers:
            assert time.monotonic() < deadline, "no answer to the move"
            table.block(deadline - time.monotonic())
    return answers[0]
