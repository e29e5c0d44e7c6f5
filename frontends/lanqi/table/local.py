"""A table whose referee runs in process: one :class:`~lanqi.session.GameSession`.

A :class:`LocalReferee` holds one game's session (the referee's own, from
``lanqi.session``) and the tables that follow it; a :class:`LocalTable` is one
seat's (or a watcher's) view of it, with the same shape as a remote table.  A
request is answered at once, at the time the referee's ``clock`` reads, exactly as
the referee service answers it: the request goes through the wire's codec (what the
service would refuse as ``bad_message``, this refuses too), then
:func:`lanqi.session.answer`, the service's own dispatch; its events are "published"
to every table, the answer only to the one that sent it.  :meth:`LocalTable.poll`
runs the session's timers at ``now`` (a flag falls there), then hands out the news.

One table per seat over a shared referee, not one table for both seats: a seat's
driver (a person at the screen, the built-in AI, a bench bot) holds a table as it
would hold a remote one, and a screen with two local seats polls one of them (both
see every event).

The seats of a local game are in this process, so they never go silent:
:data:`LOCAL_LIVENESS` keeps the referee's presence timers out of the way.

Times: the port's seconds (``time.monotonic()`` by default); the session counts in
milliseconds.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from lanqi.games.base import Game
from lanqi.gamestate import GameState, apply
from lanqi.protocol import (
    ClockInfo,
    ErrorReply,
    GameEvent,
    ProtocolError,
    Reply,
    Request,
    TimeControl,
    decode_request,
    encode,
    error_for,
)
from lanqi.session import (
    GAME_REQUESTS,
    ClockReading,
    GameEndedError,
    GameSession,
    Liveness,
    RefereeError,
    SessionSetup,
    answer,
)
from lanqi.table.port import Answered, TableNews

__all__ = ["LOCAL_LIVENESS", "LocalReferee", "LocalTable"]

#: seats in this process are never silent: presence and abandonment never fire
#: (finite: the snapshot counts the time to abandonment in whole milliseconds)
LOCAL_LIVENESS = Liveness(disconnect_after_ms=1e12, abandon_after_ms=1e12)


class LocalReferee:
    """One game's referee in this process: its session, its event log and its tables.

    ``clock`` is the time (monotonic seconds) a request is answered at.
    """

    def __init__(self, session: GameSession, *, clock: Callable[[], float] = time.monotonic):
        self.session = session
        self.clock = clock
        #: every event of the game since this referee took it, in order
        self.log: list[GameEvent] = []
        self._tables: list[LocalTable] = []

    @classmethod
    def start(
        cls,
        variant: str,
        *,
        options: Mapping[str, Any] | None = None,
        start_fen: str | None = None,
        players: Sequence[str] = ("", ""),
        time_control: TimeControl | None = None,
        casual: bool = True,
        game_id: str = "local",
        clock: Callable[[], float] = time.monotonic,
        liveness: Liveness = LOCAL_LIVENESS,
        over_ok: bool = False,
        moves: Sequence[str] = (),
        remaining_ms: tuple[float, float] | None = None,
    ) -> LocalReferee:
        """A new game with both seats taken, as ``create_game`` and two ``join``
        requests (seat 0, then seat 1) make it on a referee.

        Raises :class:`~lanqi.session.RefereeError` where the referee refuses to
        create it (an unknown variant, bad options, a position that is already over)
        or refuses one of ``moves``.  ``over_ok``: a position that is already over
        makes a game that ends at once, as the rules say (a screen set up from a final
        position shows its result).  A game kept on this computer is taken up again
        with ``moves`` (played from the start at one instant) and ``remaining_ms``
        (the clocks then, the side to move's running from now), as the referee
        restores a game after a restart (:meth:`GameSession.restore` with a reading).
        """
        now = clock() * 1000.0
        setup = SessionSetup(
            game_id=game_id,
            variant=variant,
            options=dict(options or {}),
            start_fen=start_fen,
            players=list(players),
            tokens=SessionSetup.new_tokens(),
            time_control=time_control or TimeControl(),
            casual=casual,
        )
        session = GameSession(setup, now, liveness)
        over = session.game.outcome()
        if over is not None and not over_ok:
            raise RefereeError(
                "bad_request", f"that position is already over ({over.termination.value})"
            )
        referee = cls(session, clock=clock)
        referee._publish([session.created_event(now)])
        for seat, token in enumerate(setup.tokens):
            referee._publish(session.join(seat, token, now))
        referee._publish(session.end_if_over(now))
        for ply, text in enumerate(moves):
            token = setup.tokens[session.game.seat_to_move]
            referee._publish(session.move(token, ply, text, now)[2])
        state = session.state
        if remaining_ms is not None and state.status == "active":
            window = state.clock.first_move_left_ms
            mark = ClockReading(
                seq=state.seq,
                remaining_ms=remaining_ms,
                running=state.clock.running,
                window_ms=None if window is None else float(window),
                at=now,
            )
            timed = [(event, now) for event in referee.log]
            referee.session = GameSession.restore(setup, timed, now, liveness, mark)
            referee.session.resumed(now)
        return referee

    def clock_at(self, now: float) -> ClockInfo:
        """The clocks read at ``now`` (monotonic seconds), as a ``sync`` would give them."""
        return self.session.clock_info(now * 1000.0)

    @property
    def state(self) -> GameState:
        """The game as the referee holds it now."""
        return self.session.state

    def live_board(self) -> Game[Any]:
        """A copy of the referee's rules object at the live position, history
        included: what a bot in this process is given to think on (no replay)."""
        return self.session.game.copy()

    def table(self, seat: int | None) -> LocalTable:
        """A table for ``seat`` (None: a watcher), following the game from now."""
        table = LocalTable(self, seat)
        self._tables.append(table)
        return table

    def handle(self, request: Request, sender: str) -> Reply:
        """Answer ``request`` now, as the referee service would; its events go to
        every table before the answer goes back."""
        now = self.clock() * 1000.0
        try:
            decoded = decode_request(encode(request), GAME_REQUESTS, "referee")
            assert isinstance(decoded, Request)  # one of GAME_REQUESTS
            game_id = getattr(decoded, "game_id", None)
            if game_id != self.session.game_id:
                raise RefereeError("unknown_game", f"no game {game_id!r} on this referee")
            reply, events = answer(self.session, decoded, sender, now)
        except ProtocolError as exc:
            refusal = error_for(exc)
            assert isinstance(refusal, ErrorReply)
            reply, events = refusal, []
        except GameEndedError as exc:  # refused, but checking it ended the game
            reply, events = exc.reply(request.id), exc.events
        except RefereeError as exc:
            reply, events = exc.reply(request.id), []
        self._publish(events)
        return reply

    def tick(self, now: float) -> None:
        """Run the session's timers at ``now`` (monotonic seconds): a flag falls here."""
        self._publish(self.session.tick(now * 1000.0))

    def next_deadline(self) -> float | None:
        """When (monotonic seconds) :meth:`tick` may next have something to do."""
        deadline = self.session.next_deadline()
        return None if deadline is None else deadline / 1000.0

    def _publish(self, events: list[GameEvent]) -> None:
        if not events:
            return
        self.log.extend(events)
        for table in self._tables:
            table._news.extend(events)

    def _closed(self, table: LocalTable) -> None:
        if table in self._tables:
            self._tables.remove(table)


class LocalTable:
    """One seat of a :class:`LocalReferee`'s game (or a watcher): a
    :class:`~lanqi.table.port.Table`."""

    def __init__(self, referee: LocalReferee, seat: int | None) -> None:
        self.referee = referee
        self._seat = seat
        self._token = referee.session.setup.tokens[seat] if seat is not None else None
        self._state = referee.state
        self._news: deque[TableNews] = deque()
        self._ids = itertools.count(1)
        self._sender = f"local-{id(self):x}"

    @property
    def game_id(self) -> str:
        return self.referee.session.game_id

    @property
    def seat(self) -> int | None:
        return self._seat

    @property
    def token(self) -> str | None:
        return self._token

    @property
    def state(self) -> GameState:
        return self._state

    def send(self, request: Request) -> int:
        request_id = next(self._ids)
        request = dataclasses.replace(request, id=request_id)
        reply = self.referee.handle(request, self._sender)
        self._news.append(Answered(request, reply))
        return request_id

    def poll(self, now: float) -> list[TableNews]:
        self.referee.tick(now)
        news = list(self._news)
        self._news.clear()
        state = self._state
        for item in news:
            if isinstance(item, GameEvent):
                state = apply(state, item)
        self._state = state
        return news

    async def wait(self, timeout: float | None = None) -> None:
        start = self.referee.clock()
        while not self._news:
            now = self.referee.clock()
            deadline = self.referee.next_deadline()
            if deadline is not None and deadline <= now:
                return
            left = [0.05]
            if timeout is not None:
                if now - start >= timeout:
                    return
                left.append(start + timeout - now)
            if deadline is not None:
                left.append(deadline - now)
            await asyncio.sleep(max(0.0, min(left)))

    def close(self) -> None:
        self.referee._closed(self)
