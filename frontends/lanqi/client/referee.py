"""A small synchronous client of the referee, and a view that follows one game.

:class:`RefereeClient` owns a DEALER for requests and a SUB for events.  Every
request gets the next id of the client's own counter; :meth:`RefereeClient.request`
waits for the reply with that id (stale replies to earlier, timed-out requests are
skipped) and raises :class:`RefereeTimeout` when none comes in time.
:meth:`RefereeClient.call` also turns an error reply into :class:`RequestRefused`.

:class:`GameView` follows one game the way the ZeroMQ guide's Clone pattern says:
it subscribes, takes a snapshot (``sync``), then applies events in ``seq`` order,
ignores those it already has (``seq <= view.seq``) and asks for a fresh snapshot
when it sees a gap.  PUB/SUB may drop messages; the view is right anyway.

A player's loop, in short::

    with RefereeClient("tcp://127.0.0.1:5052", "tcp://127.0.0.1:5053") as client:
        view = GameView(client, game_id)          # subscribe, then snapshot
        client.join(game_id, seat=0, token=token)
        client.move(game_id, token, view.ply, "h2e2")
        view.wait_for(lambda v: v.ply == 1)       # events, or a fresh snapshot
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
import secrets
import time
from collections import deque
from collections.abc import Callable
from types import TracebackType
from typing import Any, Self, TypeVar

import zmq
from zmq.utils.monitor import recv_monitor_message

from lanqi import gamestate
from lanqi.protocol import (
    MAX_MESSAGE_BYTES,
    AbortGame,
    AcceptDraw,
    AcceptTakeback,
    ChatLine,
    ChatRequest,
    ClockInfo,
    CreateGame,
    DeclineDraw,
    DeclineTakeback,
    ErrorReply,
    GameCreated,
    GameEvent,
    GameResult,
    GamesList,
    Heartbeat,
    Join,
    ListGames,
    Message,
    MoveAccepted,
    MoveRequest,
    OfferDraw,
    Ok,
    ProtocolError,
    Request,
    RequestTakeback,
    Resign,
    ResultsList,
    ResultsSince,
    Snapshot,
    Sync,
    TimeControl,
    decode,
    encode,
)
from lanqi.protocol.endpoints import TOPIC_RESULTS, game_topic
from lanqi.security import HandshakeRefused, HandshakeWatch, KnownServers, Link, trust_server
from lanqi.security.curve import confirm, refusal

__all__ = ["GameView", "RefereeClient", "RefereeTimeout", "RequestRefused"]

log = logging.getLogger(__name__)

R = TypeVar("R", bound=Message)


class RefereeTimeout(TimeoutError):  # noqa: N818 - the name the callers use
    """No reply to a request within the timeout."""


class RequestRefused(Exception):  # noqa: N818 - reads as what happened
    """The referee answered a request with an error reply; ``code`` is stable."""

    def __init__(self, code: str, msg: str) -> None:
        super().__init__(f"{code}: {msg}")
        self.code = code
        self.msg = msg


def _deadline(timeout_ms: float) -> float:
    return time.monotonic() + timeout_ms / 1000.0


def _left_ms(deadline: float) -> int:
    return max(0, round((deadline - time.monotonic()) * 1000.0))


class RefereeClient:
    """One connection to a referee: requests over a DEALER, events over a SUB.

    Not thread-safe (ZeroMQ sockets belong to one thread).  ``context`` defaults to
    the process-wide instance, which :meth:`close` leaves alone.

    ``link`` says how to talk to the referee (its CURVE key, from the matchmaker);
    without it the referee's key port is asked and the key checked against (or
    pinned in) ``known``, the data directory's pins by default
    (:func:`~lanqi.security.trust_server`, which raises a one-line
    :class:`~lanqi.security.SecurityError`).  A handshake the referee refuses raises
    :class:`~lanqi.security.HandshakeRefused` from the request that meets it.
    """

    def __init__(
        self,
        endpoint: str,
        pub_endpoint: str,
        *,
        context: zmq.Context[Any] | None = None,
        timeout_ms: int = 5000,
        link: Link | None = None,
        known: KnownServers | None = None,
    ) -> None:
        self.endpoint = endpoint
        self.pub_endpoint = pub_endpoint
        self.timeout_ms = timeout_ms
        self.context = context or zmq.Context.instance()
        if link is None:
            link = trust_server(endpoint, known=known or KnownServers.of(), context=self.context)
        self.link = link
        self.identity = b"lanqi-" + secrets.token_hex(8).encode("ascii")
        self._ids = itertools.count(1)
        self._events: deque[GameEvent] = deque()
        self._results: deque[GameResult] = deque()
        self.dealer: zmq.Socket[bytes] = self.context.socket(zmq.DEALER)
        self.sub: zmq.Socket[bytes] = self.context.socket(zmq.SUB)
        for socket in (self.dealer, self.sub):
            socket.setsockopt(zmq.LINGER, 0)
            socket.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)
            link.setup(socket)
        self.dealer.setsockopt(zmq.IDENTITY, self.identity)
        # watch the SUB's connection from the start, for wait_connected()
        self._monitor: zmq.Socket[bytes] | None = self.sub.get_monitor_socket(
            zmq.EVENT_HANDSHAKE_SUCCEEDED | HandshakeWatch.FAILED
        )
        self.handshake = HandshakeWatch(self.dealer, endpoint, link)
        self.dealer.connect(endpoint)
        self.sub.connect(pub_endpoint)

    # ------------------------------------------------------------ lifetime

    def close(self) -> None:
        """Close both sockets at once (linger 0): nothing pending is sent."""
        self._stop_monitor()
        self.handshake.close()
        self.dealer.close(linger=0)
        self.sub.close(linger=0)

    def _stop_monitor(self) -> None:
        if self._monitor is not None:
            self.sub.disable_monitor()
            self._monitor.close(linger=0)
            self._monitor = None

    def wait_connected(self, timeout_ms: int | None = None) -> None:
        """Wait until the event connection (SUB) is up; raises RefereeTimeout.

        Subscriptions made after this reach the referee ahead of any request sent
        after them, so events caused by that request are not lost to a slow joiner.
        Call it once, soon after creating the client (it watches the first connect).
        """
        if self._monitor is None:
            return
        deadline = _deadline(self.timeout_ms if timeout_ms is None else timeout_ms)
        while self._monitor.poll(_left_ms(deadline), zmq.POLLIN):
            event = recv_monitor_message(self._monitor)
            if event["event"] == zmq.EVENT_HANDSHAKE_SUCCEEDED:
                self._stop_monitor()
                return
            if int(event["event"]) & HandshakeWatch.FAILED:
                kind, value = int(event["event"]), int(event["value"])
                why = refusal(self.pub_endpoint, self.link, kind, value) or confirm(
                    self.endpoint, self.link, self.context
                )
                if why is not None:
                    self._stop_monitor()
                    raise HandshakeRefused(why)
        raise RefereeTimeout(f"no connection to {self.pub_endpoint}")

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # ------------------------------------------------------------ requests

    def next_id(self) -> int:
        """A fresh request id from this client's own counter (1, 2, 3, ...)."""
        return next(self._ids)

    def send(self, message: Request) -> int:
        """Send ``message`` with a fresh request id and return that id (no waiting)."""
        request_id = self.next_id()
        self.dealer.send_multipart(encode(dataclasses.replace(message, id=request_id)))
        return request_id

    def receive(self, request_id: int, timeout_ms: int | None = None) -> Message:
        """Wait for the reply to ``request_id``, skipping replies to other requests."""
        deadline = _deadline(self.timeout_ms if timeout_ms is None else timeout_ms)
        while True:
            if not self.handshake.poll(_left_ms(deadline)):
                raise RefereeTimeout(f"no reply to request {request_id} from {self.endpoint}")
            frames = self.dealer.recv_multipart()
            try:
                reply = decode(frames)
            except ProtocolError as exc:
                log.warning("ignoring an undecodable reply: %s", exc.msg)
                continue
            if getattr(reply, "re", None) == request_id:
                return reply
            log.debug("skipping a stale reply %r (waiting for %d)", reply, request_id)

    def request(self, message: Request, timeout_ms: int | None = None) -> Message:
        """Send ``message`` (its id replaced by the next one) and return the reply.

        Raises :class:`RefereeTimeout` if no reply comes within ``timeout_ms``
        (default: the client's).  Error replies are returned, not raised.
        """
        return self.receive(self.send(message), timeout_ms)

    def call(self, message: Request, timeout_ms: int | None = None) -> Message:
        """Like :meth:`request`, but an error reply raises :class:`RequestRefused`."""
        reply = self.request(message, timeout_ms)
        if isinstance(reply, ErrorReply):
            raise RequestRefused(reply.code, reply.msg)
        return reply

    def _call(self, message: Request, kind: type[R]) -> R:
        reply = self.call(message)
        if not isinstance(reply, kind):
            raise RequestRefused("unexpected_reply", f"expected {kind.T!r}, got {reply.T!r}")
        return reply

    # ------------------------------------------------------------ thin helpers

    def create_game(
        self,
        variant: str,
        *,
        players: list[str] | None = None,
        options: dict[str, Any] | None = None,
        time_control: TimeControl | None = None,
        casual: bool = True,
        tag: str = "",
        admin_key: str | None = None,
        game_id: str | None = None,
    ) -> GameCreated:
        request = CreateGame(
            game_id=game_id,
            variant=variant,
            players=players if players is not None else ["", ""],
            options=options or {},
            time_control=time_control or TimeControl(),
            casual=casual,
            tag=tag,
            admin_key=admin_key,
        )
        return self._call(request, GameCreated)

    def join(self, game_id: str, seat: int | None = None, token: str | None = None) -> Snapshot:
        return self._call(Join(game_id=game_id, seat=seat, token=token), Snapshot)

    def sync(self, game_id: str) -> Snapshot:
        return self._call(Sync(game_id=game_id), Snapshot)

    def move(self, game_id: str, token: str, ply: int, move: str) -> MoveAccepted:
        request = MoveRequest(game_id=game_id, token=token, ply=ply, move=move)
        return self._call(request, MoveAccepted)

    def resign(self, game_id: str, token: str, reason: str = "") -> Ok:
        return self._call(Resign(game_id=game_id, token=token, reason=reason), Ok)

    def abort(self, game_id: str, token: str) -> Ok:
        return self._call(AbortGame(game_id=game_id, token=token), Ok)

    def offer_draw(self, game_id: str, token: str) -> Ok:
        return self._call(OfferDraw(game_id=game_id, token=token), Ok)

    def accept_draw(self, game_id: str, token: str, reason: str = "") -> Ok:
        return self._call(AcceptDraw(game_id=game_id, token=token, reason=reason), Ok)

    def decline_draw(self, game_id: str, token: str) -> Ok:
        return self._call(DeclineDraw(game_id=game_id, token=token), Ok)

    def request_takeback(self, game_id: str, token: str) -> Ok:
        return self._call(RequestTakeback(game_id=game_id, token=token), Ok)

    def accept_takeback(self, game_id: str, token: str) -> Ok:
        return self._call(AcceptTakeback(game_id=game_id, token=token), Ok)

    def decline_takeback(self, game_id: str, token: str) -> Ok:
        return self._call(DeclineTakeback(game_id=game_id, token=token), Ok)

    def heartbeat(self, game_id: str, token: str) -> Ok:
        return self._call(Heartbeat(game_id=game_id, token=token), Ok)

    def chat(self, game_id: str, text: str, *, token: str | None = None, name: str = "") -> Ok:
        return self._call(ChatRequest(game_id=game_id, text=text, token=token, name=name), Ok)

    def list_games(self, status: str = "active", limit: int = 100) -> GamesList:
        return self._call(ListGames(status=status, limit=limit), GamesList)

    def results_since(self, after: int = 0, limit: int = 100) -> ResultsList:
        return self._call(ResultsSince(after=after, limit=limit), ResultsList)

    # ------------------------------------------------------------ events

    def watch(self, game_id: str) -> None:
        """Subscribe to ``game/<game_id>`` (it takes effect a little later: see GameView)."""
        self.sub.setsockopt(zmq.SUBSCRIBE, game_topic(game_id).encode("utf-8"))

    def watch_results(self) -> None:
        """Subscribe to ``results`` (see :meth:`next_result`)."""
        self.sub.setsockopt(zmq.SUBSCRIBE, TOPIC_RESULTS.encode("utf-8"))

    def _pump(self, timeout_ms: int) -> bool:
        """Receive one broadcast into the queues; False if none came in time."""
        if not self.sub.poll(timeout_ms, zmq.POLLIN):
            return False
        frames = self.sub.recv_multipart()
        try:
            message = decode(frames)
        except ProtocolError as exc:
            log.warning("ignoring an undecodable broadcast: %s", exc.msg)
            return True
        if isinstance(message, GameEvent):
            self._events.append(message)
        elif isinstance(message, GameResult):
            self._results.append(message)
        else:
            log.debug("ignoring broadcast %r", message)
        return True

    def next_event(self, timeout_ms: int = 0) -> GameEvent | None:
        """The next event of any watched game, or None after ``timeout_ms``."""
        deadline = _deadline(timeout_ms)
        while not self._events:
            if not self._pump(_left_ms(deadline)):
                return None
        return self._events.popleft()

    def next_result(self, timeout_ms: int = 0) -> GameResult | None:
        """The next message on ``results`` (after :meth:`watch_results`), or None."""
        deadline = _deadline(timeout_ms)
        while not self._results:
            if not self._pump(_left_ms(deadline)):
                return None
        return self._results.popleft()


class GameView:
    """One game as its events tell it, kept right by snapshots (Clone pattern).

    The view subscribes to the game, then asks for a snapshot: an event published
    before the subscription took effect is either in that snapshot or shows up as a
    gap later, which :meth:`apply` repairs with a fresh snapshot.  Events for other
    games are ignored, so give each view its own client, or feed it yourself.

    ``state`` is a :class:`~lanqi.gamestate.GameState`: the snapshot's state with
    every later event folded in by :func:`lanqi.gamestate.apply`, the reducer the
    referee itself uses.  The attributes below (``moves``, ``status``...) read it.
    """

    def __init__(self, client: RefereeClient, game_id: str) -> None:
        self.client = client
        self.game_id = game_id
        self.resyncs = 0
        #: events of this game that came through the subscription (so it is live)
        self.received = 0
        client.watch(game_id)
        self._reset(client.sync(game_id))

    # ------------------------------------------------------------ state

    def _reset(self, snapshot: Snapshot) -> None:
        #: the latest snapshot this view started from
        self.snapshot = snapshot
        self.state = gamestate.from_snapshot(snapshot)

    @property
    def seq(self) -> int:
        return self.state.seq

    @property
    def variant(self) -> str:
        return self.state.variant

    @property
    def moves(self) -> list[str]:
        return list(self.state.moves)

    @property
    def fen(self) -> str:
        return self.state.fen

    @property
    def ply(self) -> int:
        return len(self.state.moves)

    @property
    def status(self) -> str:
        return self.state.status

    @property
    def result(self) -> str | None:
        return self.state.result

    @property
    def termination(self) -> str | None:
        return self.state.termination

    @property
    def winner(self) -> int | None:
        return self.state.winner

    @property
    def players(self) -> list[str]:
        return list(self.state.players)

    @property
    def connected(self) -> list[bool]:
        return list(self.state.connected)

    @property
    def clock(self) -> ClockInfo:
        return self.state.clock

    @property
    def draw_offer(self) -> int | None:
        return self.state.draw_offer

    @property
    def takeback_offer(self) -> int | None:
        return self.state.takeback_offer

    @property
    def chat(self) -> list[ChatLine]:
        """The latest chat lines (as many as a snapshot carries), in seq order."""
        return list(self.state.chat)

    @property
    def finished(self) -> bool:
        return self.state.status == "finished"

    def resync(self) -> None:
        """Replace the state by a fresh snapshot (unless it is older than the view)."""
        self.resyncs += 1
        self.take(self.client.sync(self.game_id))

    def take(self, snapshot: Snapshot) -> bool:
        """Start again from ``snapshot`` (a ``join`` or ``sync`` reply) unless it is
        older than the view; True if it was taken."""
        if snapshot.game_id != self.game_id or snapshot.seq < self.seq:
            return False
        self._reset(snapshot)
        return True

    # ------------------------------------------------------------ events

    def apply(self, event: GameEvent) -> bool:
        """Apply one event; True if the view changed.

        Events at or before ``seq`` are old news; an event the state cannot follow
        (after ``seq + 1``: some were lost; or one the reducer refuses) makes the
        view re-sync instead.
        """
        if event.game_id != self.game_id:
            return False
        self.received += 1
        if event.seq <= self.seq:
            return False
        try:
            self.state = gamestate.apply(self.state, event)
        except gamestate.CannotFollow as exc:
            log.debug("game %s: %s; taking a snapshot", self.game_id, exc)
            self.resync()
        return True

    def poll(self, timeout_ms: int = 0) -> bool:
        """Wait up to ``timeout_ms`` for one event of this game and apply it."""
        deadline = _deadline(timeout_ms)
        while True:
            event = self.client.next_event(_left_ms(deadline))
            if event is None:
                return False
            if event.game_id == self.game_id:
                self.apply(event)
                return True

    def wait_for(
        self,
        predicate: Callable[[GameView], bool],
        timeout_ms: int = 5000,
        *,
        idle_resync_ms: int = 500,
    ) -> bool:
        """Apply events until ``predicate(self)`` holds; False after ``timeout_ms``.

        When no event comes for ``idle_resync_ms`` the view asks for a snapshot, so
        a lost last event (or a subscription that was not live yet) cannot leave it
        behind for good.
        """
        deadline = _deadline(timeout_ms)
        while not predicate(self):
            left = _left_ms(deadline)
            if left == 0:
                return False
            if not self.poll(min(left, idle_resync_ms)):
                self.resync()
        return True
