"""A game over the process's one connection to a server: :class:`RemoteTable`.

The table listens to its game's :class:`~lanqi.client.connection.GameFeed` (the
Clone pattern: snapshot, then events in ``seq`` order, a fresh snapshot on a gap)
and to its referee's link.  :meth:`RemoteTable.send` queues a request on the
connection's loop and returns its id at once, from any thread; the answer comes
back as an :class:`~lanqi.table.port.Answered` from :meth:`RemoteTable.poll`,
in order with the game's events and :class:`~lanqi.table.port.LinkChanged`.

A snapshot the connection takes by itself (a gap, a quiet spell, the referee back)
comes as an ``Answered(Sync(...), Snapshot(...))`` too: the state starts again
from it.  :attr:`RemoteTable.state` is the game as of the last news polled, so
what :meth:`poll` returned and the state always agree.

Lag: a seated table notes, on the connection's loop, the moment the news that its
turn has come arrives; a ``move`` it sends for that turn without ``think_ms`` gets
the time from then to its sending filled in, so the referee charges the player's
thinking and gives back the network's share (docs/protocol.md#lag-compensation).
``report_think = False`` sends moves as they are (the time they take is charged).
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
import time
from collections import deque
from typing import TYPE_CHECKING

from lanqi.gamestate import GameState
from lanqi.protocol import (
    ErrorCode,
    ErrorReply,
    GameEvent,
    Join,
    MoveRequest,
    Reply,
    Request,
    Snapshot,
    Sync,
)
from lanqi.table.port import Answered, LinkChanged, TableNews

if TYPE_CHECKING:
    from lanqi.client.connection import Connection, GameFeed

__all__ = ["UNREACHABLE", "RemoteTable"]

#: the code of the local error reply to a request whose link went down before its
#: answer came, or whose server refused the handshake (never sent by a server)
UNREACHABLE: ErrorCode = "unreachable"


class RemoteTable:
    """One game on a referee, from a seat (``seat`` and ``token``) or watched.

    Made by :meth:`lanqi.client.connection.Connection.open_table` (or
    :meth:`~lanqi.client.connection.BlockingConnection.open_table`), which returns
    it once the first snapshot is in.  Thread-safe: the connection's loop puts news
    in, any thread sends and polls."""

    def __init__(self, conn: Connection, feed: GameFeed, seat: int | None, token: str | None):
        self._conn = conn
        self._feed = feed
        self._seat = seat
        self._token = token
        self._news: deque[tuple[TableNews, GameState | None]] = deque()
        self._state: GameState | None = feed.state
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._waiters: list[asyncio.Future[None]] = []
        self._ids = 0
        self._closed = False
        self._started = False
        #: requests sent through this table and not answered yet, by id
        self.unanswered: dict[int, Request] = {}
        #: fill in a move's ``think_ms`` (see the module)
        self.report_think = True
        #: the ply of this seat's latest turn and when (monotonic s) the news of it came
        self._turn: tuple[int, float] | None = None
        if feed.state is not None:
            self._note_turn(feed.state)
        feed.listeners.append(self._on_feed)
        feed.referee.on_link.append(self._on_link)

    def start(self) -> None:
        """The first snapshot is in: the state is known from here on."""
        self._started = True
        with self._lock:
            if self._state is None:
                self._state = self._feed.state

    # ------------------------------------------------------------ the port

    @property
    def game_id(self) -> str:
        return self._feed.game_id

    @property
    def seat(self) -> int | None:
        return self._seat

    @property
    def token(self) -> str | None:
        return self._token

    @property
    def state(self) -> GameState:
        state = self._state
        if state is None:
            state = self._feed.state
        assert state is not None, "a RemoteTable is handed out after its first snapshot"
        return state

    @property
    def snapshot(self) -> Snapshot | None:
        """The latest snapshot the game was taken from (abandonment countdowns...)."""
        return self._feed.snapshot

    @property
    def resyncs(self) -> int:
        """Snapshots the connection took for this game after the first."""
        return max(0, self._feed.resyncs - 1)

    @property
    def link_up(self) -> bool:
        return self._feed.referee.up

    @property
    def quiet(self) -> float | None:
        """Seconds a quiet game is trusted before a snapshot (None: the policy's)."""
        return self._feed.quiet

    @quiet.setter
    def quiet(self, seconds: float | None) -> None:
        self._feed.quiet = seconds

    @property
    def turn_began(self) -> float | None:
        """When (``time.monotonic()`` seconds) the news that this seat's current or
        latest turn had come arrived: a move's ``think_ms`` is counted from it."""
        turn = self._turn
        return None if turn is None else turn[1]

    def wake(self) -> None:
        """Make :meth:`block` return now (from any thread): something else is ready."""
        self._wake.set()

    def send(self, request: Request) -> int:
        """Queue ``request`` for the referee (its ``id`` filled in) and return the id.
        Callable from any thread; never waits."""
        conn = self._conn
        request_id = next(conn._ids)
        request = dataclasses.replace(request, id=request_id)
        self.unanswered[request_id] = request
        conn.loop.call_soon_threadsafe(self._send, request)
        return request_id

    def _note_turn(self, state: GameState) -> None:
        """On the loop: news of ``state`` came now; note when this seat's turn began."""
        mine = self._seat is not None and state.to_move == self._seat
        if mine and state.status == "active" and (self._turn is None or self._turn[0] != state.ply):
            self._turn = (state.ply, time.monotonic())

    def _send(self, request: Request) -> None:
        """On the loop: send it (a move with how long its player thought, see the
        module); its answer becomes news."""
        if self._closed:
            return
        turn = self._turn
        if (
            isinstance(request, MoveRequest)
            and request.think_ms is None
            and self.report_think
            and turn is not None
            and turn[0] == request.ply
        ):
            think = round((time.monotonic() - turn[1]) * 1000)
            request = dataclasses.replace(request, think_ms=think)
            self.unanswered[request.id] = request
        referee = self._feed.referee
        _, future = referee.send(request, keep_id=True)
        if getattr(request, "token", None):
            self._conn.seat_sent(referee, self.game_id)
        future.add_done_callback(lambda f: self._reply(request, f))

    def _reply(self, request: Request, future: asyncio.Future[Reply]) -> None:
        self.unanswered.pop(request.id, None)
        if future.cancelled():
            return
        error = future.exception()
        if error is not None:  # a refused handshake: nothing gets through
            reply: Reply = ErrorReply(re=request.id, code=UNREACHABLE, msg=str(error)[:500])
        else:
            reply = future.result()
        if isinstance(reply, Snapshot) and isinstance(request, Sync | Join):
            self._feed.take(request, reply, asker=self._on_feed)
        if self._feed.state is not None:
            self._note_turn(self._feed.state)
        self._put(Answered(request, reply), self._feed.state)

    def _on_feed(self, news: GameEvent | tuple[Sync, Snapshot], state: GameState) -> None:
        self._note_turn(state)
        if isinstance(news, tuple):
            request, snapshot = news
            self._put(Answered(request, snapshot), state)
        else:
            self._put(news, state)

    def _on_link(self, up: bool, since: float, retry_at: float | None) -> None:
        self._put(LinkChanged(up, since, None if up else retry_at), None)

    def _put(self, news: TableNews, state: GameState | None) -> None:
        with self._lock:
            self._news.append((news, state))
            waiters, self._waiters = self._waiters, []
        self._wake.set()
        for waiter in waiters:
            if not waiter.done():
                waiter.get_loop().call_soon_threadsafe(_resolve, waiter)

    @property
    def has_news(self) -> bool:
        """Would :meth:`poll` return anything now?"""
        return bool(self._news)

    def poll(self, now: float = 0.0) -> list[TableNews]:
        """Everything since the last poll, oldest first (``now`` is not needed: the
        connection's loop keeps its own time)."""
        self._wake.clear()  # first: news put after this wakes block() again
        if not self._news:
            return []
        with self._lock:
            items = list(self._news)
            self._news.clear()
            for _, state in items:
                if state is not None:
                    self._state = state
        return [news for news, _ in items]

    async def wait(self, timeout: float | None = None) -> None:
        """Return when :meth:`poll` has news (or after ``timeout`` seconds)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._lock:
            if self._news:
                return
            self._waiters.append(future)
        try:
            await asyncio.wait_for(future, timeout)
        except TimeoutError:
            with self._lock:
                if future in self._waiters:
                    self._waiters.remove(future)

    def block(self, timeout: float | None = None) -> bool:
        """For a thread without a loop: wait until :meth:`poll` has news; False after
        ``timeout`` seconds without any."""
        return self._wake.wait(timeout)

    def close(self) -> None:
        """Stop following the game (the seat stays the player's at the referee)."""
        if self._closed:
            return
        self._closed = True
        self._conn.loop.call_soon_threadsafe(self._detach)

    def _detach(self) -> None:
        feed = self._feed
        if self._on_feed in feed.listeners:
            feed.listeners.remove(self._on_feed)
        if self._on_link in feed.referee.on_link:
            feed.referee.on_link.remove(self._on_link)
        if self._seat is not None:
            self._conn.release_seat(self.game_id, feed.referee)
        self._conn.release_feed(feed)


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
