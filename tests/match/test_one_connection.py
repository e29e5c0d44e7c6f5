"""lanqi match on a referee given with ``-referee`` plays over the process's one client
connection: each game's ``create_game``, the table that watches it (and adjudicates
from it) and both seats' tables go through the same
:class:`~lanqi.client.connection.BlockingConnection`, and the game's tables share one
feed.  (The private referee is reached in process: ``test_in_process.py``.)"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from lanqi.bench.process import LanqiService
from lanqi.client.connection import BlockingConnection
from lanqi.match import runner
from lanqi.match.runner import MatchSummary
from lanqi.protocol import Adjudicate, CreateGame, Reply, Request
from lanqi.table.remote import RemoteTable

Runner = Callable[[list[str]], tuple[MatchSummary, list[str]]]
KEY = "one-connection-admin-key"
READY = re.compile(rb"referee ready: requests (?P<requests>\S+), events (?P<events>[^\s,]+)")


@pytest.fixture
def referee(tmp_path: Path) -> Iterator[list[str]]:
    """A ``lanqi referee`` subprocess: the ``-referee`` arguments that name it."""
    (tmp_path / "logs").mkdir()
    service = LanqiService(
        "referee",
        ["--host", "127.0.0.1", "--data-dir", str(tmp_path / "data"), "--admin-key", KEY],
        tmp_path / "logs",
        name="referee",
        ready=READY,
        ports={"--port": "requests", "--pub-port": "events"},
    )
    service.start()
    try:
        requests, events = service.endpoints["requests"], service.endpoints["events"]
        yield ["-referee", requests, "-referee-pub", events, "-admin-key", KEY]
    finally:
        service.stop()


@pytest.fixture
def conn() -> Iterator[BlockingConnection]:
    with BlockingConnection(name="match-test") as made:
        yield made


def test_a_match_creates_watches_plays_and_adjudicates_over_one_connection(
    monkeypatch: pytest.MonkeyPatch,
    conn: BlockingConnection,
    run_match: Runner,
    referee: list[str],
) -> None:
    tables: list[RemoteTable] = []
    asked: list[Request] = []
    sent: list[Request] = []
    open_table, referee_request = conn.open_table, conn.referee_request

    def opened(*args: Any, **where: Any) -> RemoteTable:
        table = open_table(*args, **where)
        tables.append(table)
        if table.seat is None:  # the match's own table: what it sends, seen here too
            send = table.send

            def sending(request: Request) -> int:
                sent.append(request)
                return send(request)

            monkeypatch.setattr(table, "send", sending)
        return table

    def requested(endpoint: str, message: Request, **kwargs: Any) -> Reply:
        asked.append(message)
        return referee_request(endpoint, message, **kwargs)

    monkeypatch.setattr(conn, "open_table", opened)
    monkeypatch.setattr(conn, "referee_request", requested)
    monkeypatch.setattr(runner, "process_connection", lambda: conn)
    summary, _ = run_match(
        [
            "-engine", "name=A", "proto=builtin", "depth=1",
            "-engine", "name=B", "proto=builtin", "depth=1",
            "-games", "2", "-maxmoves", "4", *referee,
        ]
    )  # fmt: skip
    assert len(summary.games) == 2
    assert [type(m) for m in asked] == [CreateGame, CreateGame]
    created = {m.game_id for m in asked if isinstance(m, CreateGame)}
    assert created == {game.game_id for game in summary.games}
    # per game: the match's watching table and the two seats, on this one connection
    for game in summary.games:
        mine = [t for t in tables if t.game_id == game.game_id]
        assert sorted(t.seat if t.seat is not None else -1 for t in mine) == [-1, 0, 1]
    # the adjudications went through the match's own table, on the admin key
    ended = {g.game_id for g in summary.games if g.termination == "adjudication: max moves"}
    assert ended, [g.termination for g in summary.games]
    adjudicated = [r for r in sent if isinstance(r, Adjudicate)]
    assert {r.game_id for r in adjudicated} == ended, sent
    assert all(r.admin_key for r in adjudicated), adjudicated
    # a table's close lets its feed go on the connection's loop, soon after: what the
    # loop runs after the closes (a barrier, not a wait) comes after them
    conn.run(asyncio.sleep(0))
    assert not conn.connection.feeds  # every game's feed let go once it ended
