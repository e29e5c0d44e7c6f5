"""A game on a referee service running in this process, without its sockets.

``lanqi match`` runs a private :class:`~lanqi.referee.service.RefereeService` in its
own process unless it is given one.  Its seats and its watching table could reach it
over loopback TCP with CURVE like any client, through the process's connection loop
and the referee's loop: four thread hops and two CURVE links for every move.  An
:class:`InProcessTable` hands each request to the service in the sending thread
(:meth:`RefereeService.handle_local`: the same codec, rules, store and group commit
as a request on its ROUTER) and is given the game's events as the service publishes
them (:meth:`RefereeService.listen`; they go out on its PUB too, so anyone may still
watch the game over the wire).  The referee still owns the board: every move is
checked by its session, stored, then published.

The table has a :class:`~lanqi.table.remote.RemoteTable`'s shape for a thread
without a loop (``block``, ``wake``, ``quiet``, ``link_up``), so the bot runner's
game player plays on it unchanged.  As over the wire, a seat's ``move`` carries how
long its player thought (``think_ms``, from the moment the news of the turn came),
and the seat heartbeats while the table is open.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import threading
import time
from collections import deque
from collections.abc import Iterator
from typing import Protocol

from lanqi.client.connection import Refused
from lanqi.gamestate import CannotFollow, GameState, apply, from_snapshot
from lanqi.protocol import (
    ErrorReply,
    GameEvent,
    Heartbeat,
    Join,
    MoveRequest,
    Reply,
    Request,
    Snapshot,
    Sync,
)
from lanqi.table.port import Answered, TableNews

__all__ = ["InProcessReferee", "InProcessTable"]

#: a seat's heartbeat, in seconds (any of its requests counts as one)
BEAT_S = 1.0


class InProcessReferee(Protocol):
    """What an :class:`InProcessTable` needs of its referee (a RefereeService)."""

    def handle_local(self, request: Request, sender: str) -> Reply: ...

    def listen(self, game_id: str, listener: _Listener) -> None: ...

    def unlisten(self, game_id: str, listener: _Listener) -> None: ...


class _Listener(Protocol):
    def __call__(self, event: GameEvent, /) -> None: ...


_senders = itertools.count(1)


class InProcessTable:
    """One game on an in-process referee, from a seat (``seat`` and ``token``) or
    watched: a :class:`~lanqi.table.port.Table` for a thread.  :meth:`open` takes the
    seat (or watches) and the first snapshot.  Thread-safe: the referee's events come
    in from whichever thread made them, any thread sends and polls."""

    def __init__(
        self, referee: InProcessReferee, game_id: str, seat: int | None, token: str | None
    ) -> None:
        self.referee = referee
        self._game_id = game_id
        self._seat = seat if token else None
        self._token = token
        self._sender = f"in-process-{next(_senders)}"
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._wake = threading.Event()
        #: wake-ups held back (:meth:`holding_wakes`): how many holders, and one is owed
        self._hold_lock = threading.Lock()
        self._held = 0
        self._owed = False
        #: news not polled yet, each with the game as it makes it (None: no change)
        self._news: deque[tuple[TableNews, GameState | None]] = deque()
        self._state: GameState | None = None
        self._closed = False
        self._last_sent = time.monotonic()
        #: the ply of this seat's latest turn and when (monotonic s) the news of it came
        self._turn: tuple[int, float] | None = None
        #: the game as the news put so far makes it (None before the first snapshot)
        self._seen: GameState | None = None
        #: an event could not be folded (a join: the snapshot knows): sync at the next poll
        self._stale = False
        #: fill in a move's ``think_ms`` (as a remote table does)
        self.report_think = True
        #: unused (no event is lost in process); kept for the runner's shape
        self.quiet: float | None = None

    def open(self) -> InProcessTable:
        """Follow the game and take the seat (``join``) or watch (``sync``); raises
        :class:`~lanqi.client.connection.Refused` if the referee refuses."""
        self.referee.listen(self._game_id, self._on_event)
        if self._seat is not None:
            first: Request = Join(game_id=self._game_id, seat=self._seat, token=self._token)
        else:
            first = Sync(game_id=self._game_id)
        reply = self._take_snapshot(first)
        if reply is not None:
            self.close()
            raise Refused(reply.code, reply.msg)
        with self._lock:
            self._state = self._seen
            self._news.clear()  # the state has it all
        return self

    def _take_snapshot(self, request: Request) -> ErrorReply | None:
        """Start the game again from the snapshot ``request`` (a join or sync) gets;
        the events published meanwhile are folded on it.  The refusal, if refused."""
        request = dataclasses.replace(request, id=next(self._ids))
        reply = self.referee.handle_local(request, self._sender)
        if not isinstance(reply, Snapshot):
            if isinstance(reply, ErrorReply):
                return reply
            return ErrorReply(re=request.id, code="internal", msg=f"{reply.T} to {request.T}")
        with self._lock:
            seen = from_snapshot(reply)
            pending, self._news = self._news, deque()
            for item, after in pending:
                if after is None and isinstance(item, GameEvent):  # came while stale
                    seen = _folded(seen, item)
                    after = seen  # noqa: PLW2901
                self._news.append((item, after))
            self._news.append((Answered(request, reply), seen))
            self._seen = seen
            self._stale = False
            self._note_turn(seen)
        self._signal()
        return None

    # ------------------------------------------------------------ the port

    @property
    def game_id(self) -> str:
        return self._game_id

    @property
    def seat(self) -> int | None:
        return self._seat

    @property
    def token(self) -> str | None:
        return self._token

    @property
    def state(self) -> GameState:
        assert self._state is not None, "an InProcessTable is read after open()"
        return self._state

    @property
    def link_up(self) -> bool:
        return not self._closed

    @property
    def turn_began(self) -> float | None:
        turn = self._turn
        return None if turn is None else turn[1]

    def send(self, request: Request) -> int:
        """Have the referee answer ``request`` now; its events and then its answer
        are news.  Returns its id."""
        request_id = next(self._ids)
        request = dataclasses.replace(request, id=request_id)
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
        if getattr(request, "token", None):
            self._last_sent = time.monotonic()
        reply = self.referee.handle_local(request, self._sender)
        answered = Answered(request, reply)
        with self._lock:
            if isinstance(reply, Snapshot) and isinstance(request, Sync | Join):
                self._seen = from_snapshot(reply)  # the game starts again from it
                self._note_turn(self._seen)
            self._news.append((answered, self._seen))
        self._signal()
        return request_id

    def poll(self, now: float = 0.0) -> list[TableNews]:
        """Everything since the last poll, oldest first; a seat's heartbeat when due."""
        self._wake.clear()  # first: news put after this wakes block() again
        with self._hold_lock:
            self._owed = False
        token = self._token
        if token is not None and not self._closed:
            moment = time.monotonic()
            if moment - self._last_sent >= BEAT_S and not self.state.finished:
                self._last_sent = moment
                beat = Heartbeat(id=0, game_id=self._game_id, token=token)
                self.referee.handle_local(beat, self._sender)
        if self._stale and not self._closed:
            refusal = self._take_snapshot(Sync(game_id=self._game_id))
            if refusal is not None:  # an in-process referee always knows its game
                raise Refused(refusal.code, refusal.msg)
        if not self._news:
            return []
        with self._lock:
            items = list(self._news)
            self._news.clear()
            for _, state in items:
                if state is not None:
                    self._state = state
        return [news for news, _ in items]

    @property
    def has_news(self) -> bool:
        return bool(self._news)

    def block(self, timeout: float | None = None) -> bool:
        """Wait until :meth:`poll` has news; False after ``timeout`` seconds without."""
        return self._wake.wait(timeout)

    def wake(self) -> None:
        """Make :meth:`block` return now (from any thread; once no one holds the
        wake-ups back, :meth:`holding_wakes`)."""
        self._signal()

    def _signal(self) -> None:
        with self._hold_lock:
            if self._held:
                self._owed = True
                return
        self._wake.set()

    @contextlib.contextmanager
    def holding_wakes(self) -> Iterator[None]:
        """Hold back the wake-ups of the table's thread while a thread that will read
        the news itself runs (the seat's move sent from its engine's thread, the
        other seat's turn started from there): a wake-up that finds nothing to do
        still costs a thread switch at the moment the next engine should start.
        At the end, whatever is left unread (or a :meth:`wake` asked for) wakes it."""
        with self._hold_lock:
            self._held += 1
        try:
            yield
        finally:
            with self._hold_lock:
                self._held -= 1
                wake = not self._held and (self._owed or bool(self._news) or self._stale)
                if not self._held:
                    self._owed = False
            if wake:
                self._wake.set()

    async def wait(self, timeout: float | None = None) -> None:
        if self._news:
            return
        await asyncio.get_running_loop().run_in_executor(None, self._wake.wait, timeout)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.referee.unlisten(self._game_id, self._on_event)

    # ------------------------------------------------------------ from the referee

    def _on_event(self, event: GameEvent) -> None:
        with self._lock:
            seen = self._seen
            if seen is not None and not self._stale:  # else folded on the next snapshot
                try:
                    seen = self._seen = _folded(seen, event)
                except CannotFollow:  # a snapshot follows (its thread takes it)
                    self._stale = True
                    self._signal()
                    return
                self._note_turn(seen)
            else:
                seen = None
            self._news.append((event, seen))
        self._signal()

    def _note_turn(self, state: GameState) -> None:
        """News of ``state`` came now: note when this seat's turn began."""
        mine = self._seat is not None and state.to_move == self._seat
        if mine and state.status == "active" and (self._turn is None or self._turn[0] != state.ply):
            self._turn = (state.ply, time.monotonic())


def _folded(state: GameState, event: GameEvent) -> GameState:
    """``state`` with ``event`` applied, unless the state already has it (an event
    published before the snapshot the table started from)."""
    if event.seq <= state.seq:
        return state
    return apply(state, event)
