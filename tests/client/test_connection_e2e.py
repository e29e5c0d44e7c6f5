"""The one client connection against real referees on loopback (subprocesses).

Requests pending by id with many in flight, the Clone pattern's resync (an event
really missed, a late join), a referee killed and restarted on its data directory,
many games over one DEALER and one SUB, and a pinned key that changed."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.client.helpers import OPENING, create, move, seats, until
from tests.referee.conftest import RefereeProcess

from lanqi.client.connection import BlockingConnection, Connection, GameFeed
from lanqi.protocol import (
    CreateGame,
    ErrorReply,
    GameCreated,
    GamesList,
    ListGames,
    MoveMade,
    MoveRequest,
    Snapshot,
    Sync,
)
from lanqi.security import KeyChanged, KnownServers
from lanqi.table.port import Answered, LinkChanged
from lanqi.table.remote import RemoteTable

Start = Callable[..., RefereeProcess]


def test_requests_in_flight_are_answered_by_id(referee_factory: Start) -> None:
    referee = referee_factory()

    async def main() -> None:
        async with Connection() as conn:
            service = await conn.service(referee.endpoint)
            made = [await service.request(CreateGame(variant="xiangqi", players=["a", "b"]))]
            made += [await service.request(CreateGame(variant="gomoku", players=["a", "b"]))]
            made += [await service.request(CreateGame(variant="xiangqi", players=["c", "d"]))]
            games = [reply.game_id for reply in made if isinstance(reply, GameCreated)]
            assert len(games) == 3
            # 30 requests in flight at once, of three kinds, answered out of order
            asks = [Sync(game_id=games[i % 3]) for i in range(20)]
            asks += [Sync(game_id="nope") for _ in range(5)]
            lists = [ListGames(status="all") for _ in range(5)]
            replies = await asyncio.gather(*(service.request(a) for a in [*asks, *lists]))
            assert not service.pending
            ids = [reply.re for reply in replies]
            assert len(set(ids)) == len(ids)
            for ask, reply in zip(asks, replies, strict=False):
                if ask.game_id == "nope":
                    assert isinstance(reply, ErrorReply) and reply.code == "unknown_game"
                else:
                    assert isinstance(reply, Snapshot) and reply.game_id == ask.game_id
            assert all(isinstance(r, GamesList) for r in replies[25:])

    asyncio.run(main())


def test_a_missed_event_and_a_late_join_resync(referee_factory: Start) -> None:
    referee = referee_factory()
    with BlockingConnection() as conn:
        created = create(conn, referee.endpoint)
        red, black = seats(conn, referee.endpoint, referee.pub_endpoint, created)
        until(black, lambda t: t.state.status == "active")
        assert move(red, OPENING[0]).refusal is None
        until(black, lambda t: t.state.ply == 1)
        feed = conn.connection.feeds[(referee.endpoint, referee.pub_endpoint, created.game_id)]
        before = feed.resyncs

        # the feed really misses the event of ply 1 (it is not listening)
        conn.run(_unlisten(feed))
        assert move(black, OPENING[1]).refusal is None
        conn.run(_listen(feed))
        assert red.state.ply == 1  # red's feed missed ply 1
        assert move(red, OPENING[2], ply=2).refusal is None  # its event comes after a gap
        news = until(black, lambda t: t.state.ply == 3)
        assert feed.resyncs > before
        assert any(isinstance(n, Answered) and isinstance(n.request, Sync) for n in news)
        assert black.state.moves == tuple(OPENING[:3])

        # a watcher that comes late starts from a snapshot and follows on
        with BlockingConnection() as late:
            watcher = late.open_table(
                game_id=created.game_id, referee=referee.endpoint, events=referee.pub_endpoint
            )
            assert watcher.seat is None and watcher.state.moves == tuple(OPENING[:3])
            assert move(black, OPENING[3]).refusal is None
            seen = until(watcher, lambda t: t.state.ply == 4)
            assert any(isinstance(n, MoveMade) and n.ply == 3 for n in seen)


async def _unlisten(feed: GameFeed) -> None:
    feed.events.unlisten(feed.topic, feed._on_message)


async def _listen(feed: GameFeed) -> None:
    feed.events.listen(feed.topic, feed._on_message)


def test_a_killed_referee_comes_back_and_the_game_goes_on(referee_factory: Start) -> None:
    referee = referee_factory()
    with BlockingConnection() as conn:
        created = create(conn, referee.endpoint)
        red, black = seats(conn, referee.endpoint, referee.pub_endpoint, created)
        assert move(red, OPENING[0]).refusal is None
        until(black, lambda t: t.state.ply == 1)

        referee.restart(kill=True)  # SIGKILL, then the same ports and data directory
        seen: list[LinkChanged] = []
        deadline = time.monotonic() + 30
        while not (any(not n.up for n in seen) and seen[-1].up):
            assert black.block(deadline - time.monotonic()), f"link news: {seen}"
            seen.extend(n for n in black.poll() if isinstance(n, LinkChanged))
        assert not seen[0].up
        # the seat was joined again and the game re-synced: it goes on
        assert move(black, OPENING[1]).refusal is None
        until(red, lambda t: t.state.ply == 2)
        assert red.state.moves == tuple(OPENING[:2])
        assert red.state.connected == (True, True)


def test_many_games_share_one_dealer_and_one_sub(referee_factory: Start) -> None:
    referee = referee_factory()
    with BlockingConnection() as conn:
        games = [create(conn, referee.endpoint) for _ in range(16)]
        tables = [seats(conn, referee.endpoint, referee.pub_endpoint, g) for g in games]
        for red, _ in tables:
            red.send(_move(red, OPENING[0]))
        for _, black in tables:
            until(black, lambda t: t.state.ply == 1)
        for _, black in tables:
            black.send(_move(black, OPENING[1]))
        for table in (t for pair in tables for t in pair):
            until(table, lambda t: t.state.ply == 2)
        assert list(conn.connection.services) == [referee.endpoint]
        assert list(conn.connection.publishers) == [referee.pub_endpoint]
        assert len(conn.connection.feeds) == 16
        for (red, black), game in zip(tables, games, strict=True):
            assert red.game_id == black.game_id == game.game_id
            assert red.state.moves == black.state.moves == tuple(OPENING[:2])


def _move(table: RemoteTable, text: str) -> MoveRequest:
    assert table.token is not None
    return MoveRequest(game_id=table.game_id, token=table.token, ply=table.state.ply, move=text)


def test_a_pinned_referee_with_another_key_is_refused(
    referee_factory: Start, tmp_path: Path
) -> None:
    referee = referee_factory()
    known = KnownServers.of(tmp_path / "pins")
    with BlockingConnection(known=known) as conn:
        created = create(conn, referee.endpoint)  # pins the referee's key
    referee.stop()
    other = RefereeProcess(tmp_path / "other-data", tmp_path / "other-logs", [])
    other.ports = dict(referee.ports)  # the same address, another key
    (tmp_path / "other-logs").mkdir()
    other.start()
    try:
        with BlockingConnection(known=known) as conn, pytest.raises(KeyChanged):
            conn.open_table(
                game_id=created.game_id, referee=other.endpoint, events=other.pub_endpoint
            )
    finally:
        other.stop()
