"""The gateway's one link to the services: everything ``lanqi web`` says to the
matchmaker and the referees goes through :class:`Hub`.

One asyncio loop (the web server's) drives every ZeroMQ socket through
``zmq.asyncio``: one anonymous DEALER to the matchmaker (lobby lists, tournament
requests), one SUB on its events (``lobby``, ``tour/<id>``), one DEALER and one
SUB per referee (games multiplexed by topic, folded with :func:`lanqi.gamestate.apply`,
resynced by snapshot on a gap: the Clone pattern), and one DEALER per browser
player (a matchmaker connection *is* a player: its session, its pushes).

Seat tokens and matchmaker sessions stay here.  A browser is known by the hash of
a secret it made itself; :class:`Player` acts for a seat only when asked by the
browser whose secret owns it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import itertools
import json
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import zmq
import zmq.asyncio

from lanqi.gamestate import CannotFollow, GameState, apply, from_snapshot
from lanqi.protocol import (
    MAX_MESSAGE_BYTES,
    Assignment,
    ChallengeClosed,
    ChallengeReceived,
    ErrorReply,
    GameAssigned,
    GameEvent,
    GetServerInfo,
    Heartbeat,
    Hello,
    Join,
    ListGames,
    ListPlayers,
    ListSeeks,
    LobbyEvent,
    Message,
    Ping,
    PlayersList,
    ProtocolError,
    Request,
    SeeksList,
    ServerInfo,
    Snapshot,
    Sync,
    TournamentEvent,
    Welcome,
    decode,
    encode,
)
from lanqi.protocol.endpoints import TOPIC_LOBBY, game_topic, reachable, tour_topic
from lanqi.security import Link
from lanqi.web.view import board_view

__all__ = ["GameFeed", "Hub", "Player", "Refused"]

log = logging.getLogger(__name__)

#: seconds between a player's signs of life (matchmaker ping, referee heartbeats)
BEAT_S = 2.0
#: how long a player stays online after its last browser tab closed
LINGER_S = 20.0
#: seconds to wait for any reply
REPLY_S = 5.0


class Refused(Exception):  # noqa: N818 - reads as what happened
    """A service (or the gateway) said no: ``code`` as on the wire, ``msg`` one line."""

    def __init__(self, code: str, msg: str) -> None:
        super().__init__(f"{code}: {msg}")
        self.code = code
        self.msg = msg


def secret_key(secret: str) -> str:
    """What the gateway keeps of a browser's secret: its SHA-256 (hex)."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


class _Dealer:
    """One DEALER: requests matched to replies by id, pushes (``re`` nil) to a callback."""

    def __init__(
        self,
        context: zmq.asyncio.Context,
        endpoint: str,
        link: Link,
        on_push: Callable[[Message], None] | None = None,
    ) -> None:
        self.endpoint = endpoint
        self.socket = context.socket(zmq.DEALER)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.socket.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)
        link.setup(self.socket)
        self.socket.connect(endpoint)
        self._on_push = on_push
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Message]] = {}
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def request(self, message: Request, timeout: float = REPLY_S) -> Message:
        request_id = next(self._ids)
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            await self.socket.send_multipart(encode(dataclasses.replace(message, id=request_id)))
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            raise Refused("timeout", f"no answer from {self.endpoint}; is the server up?") from None
        finally:
            self._pending.pop(request_id, None)

    async def _read(self) -> None:
        while True:
            frames = await self.socket.recv_multipart()
            try:
                message = decode(frames)
            except ProtocolError as exc:
                log.warning("ignoring an undecodable reply from %s: %s", self.endpoint, exc)
                continue
            re = getattr(message, "re", None)
            if re is None:
                if self._on_push is not None:
                    self._on_push(message)
            elif (future := self._pending.get(re)) is not None and not future.done():
                future.set_result(message)

    def close(self) -> None:
        self._reader.cancel()
        self.socket.close(linger=0)


class _Sub:
    """One SUB whose messages go to a callback."""

    def __init__(
        self,
        context: zmq.asyncio.Context,
        endpoint: str,
        link: Link,
        on_message: Callable[[Message], None],
    ) -> None:
        self.socket = context.socket(zmq.SUB)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.socket.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)
        link.setup(self.socket)
        self.socket.connect(endpoint)
        self._on_message = on_message
        self._reader = asyncio.get_running_loop().create_task(self._read())

    def subscribe(self, topic: str) -> None:
        self.socket.setsockopt(zmq.SUBSCRIBE, topic.encode("utf-8"))

    def unsubscribe(self, topic: str) -> None:
        self.socket.setsockopt(zmq.UNSUBSCRIBE, topic.encode("utf-8"))

    async def _read(self) -> None:
        while True:
            frames = await self.socket.recv_multipart()
            try:
                message = decode(frames)
            except ProtocolError as exc:
                log.warning("ignoring an undecodable broadcast: %s", exc)
                continue
            self._on_message(message)

    def close(self) -> None:
        self._reader.cancel()
        self.socket.close(linger=0)


class _Referee:
    """One referee: a DEALER for requests, a SUB for the games the gateway follows."""

    def __init__(self, hub: Hub, endpoint: str, events: str, link: Link) -> None:
        self.endpoint = endpoint
        self.dealer = _Dealer(hub.context, endpoint, link)
        self.sub = _Sub(hub.context, events, link, hub._on_game_event)

    def close(self) -> None:
        self.dealer.close()
        self.sub.close()


GameListener = Callable[["GameFeed"], None]


class GameFeed:
    """One game the gateway follows: its folded state and who wants to hear of it."""

    def __init__(self, game_id: str, referee: _Referee) -> None:
        self.game_id = game_id
        self.referee = referee
        self.state: GameState | None = None
        #: monotonic time the state's clock reading arrived at the gateway
        self.clock_at = 0.0
        self.listeners: set[GameListener] = set()
        self._buffer: list[GameEvent] = []
        self._syncing: asyncio.Task[None] | None = None
        self._view: dict[str, Any] | None = None

    def view(self) -> dict[str, Any]:
        """The board as the page draws it (computed once per change)."""
        assert self.state is not None
        if self._view is None:
            self._view = board_view(self.state)
        return self._view

    def clock_age_ms(self) -> int:
        """Milliseconds since the clock in :attr:`state` was read."""
        return round((time.monotonic() - self.clock_at) * 1000)

    def on_event(self, event: GameEvent) -> None:
        if self.state is None or self._syncing is not None:
            self._buffer.append(event)
            return
        if event.seq <= self.state.seq:
            return  # already folded (a snapshot carried it)
        try:
            self.state = apply(self.state, event)
        except CannotFollow as exc:
            log.info("game %s: %s; asking for a snapshot", self.game_id, exc)
            self.resync()
            return
        if hasattr(event, "clock"):
            self.clock_at = time.monotonic()
        self._changed()

    def resync(self) -> None:
        if self._syncing is None:
            self._syncing = asyncio.get_running_loop().create_task(self._sync())

    async def _sync(self) -> None:
        try:
            for attempt in itertools.count():
                try:
                    reply = await self.referee.dealer.request(Sync(game_id=self.game_id))
                except Refused:
                    await asyncio.sleep(min(5.0, 0.5 * (attempt + 1)))
                    continue
                if isinstance(reply, Snapshot):
                    self._take(reply)
                return
        finally:
            self._syncing = None
        self._drain()

    def _take(self, snapshot: Snapshot) -> None:
        self.state = from_snapshot(snapshot)
        self.clock_at = time.monotonic()

    def _drain(self) -> None:
        buffered, self._buffer = self._buffer, []
        for event in buffered:
            self.on_event(event)
        self._changed()

    def _changed(self) -> None:
        self._view = None
        for listener in list(self.listeners):
            try:
                listener(self)
            except Exception:  # a broken listener must not stop the others
                log.exception("a listener of game %s failed", self.game_id)


PushListener = Callable[[dict[str, Any]], None]


class Player:
    """One person in the lobby, for the browsers that hold its secret."""

    def __init__(self, hub: Hub, key: str, name: str, session: str | None) -> None:
        self.hub = hub
        self.key = key
        self.name = name
        self.session = session
        self.dealer = _Dealer(hub.context, hub.matchmaker, hub.link, self._on_push)
        self.seats: dict[str, Assignment] = {}
        self.challenges: dict[str, ChallengeReceived] = {}
        self.listeners: set[PushListener] = set()
        self.last_seen = time.monotonic()
        self._beat: asyncio.Task[None] | None = None

    async def hello(self, claim: str | None = None) -> None:
        reply = await self.dealer.request(
            Hello(
                name=self.name, kind="human", session=None if claim else self.session, claim=claim
            )
        )
        if isinstance(reply, ErrorReply):
            raise Refused(reply.code, reply.msg)
        assert isinstance(reply, Welcome)
        self.name, self.session = reply.name, reply.session
        self.hub._remember(self)
        for game in reply.games:
            await self._seated(game)

    async def call(self, request: Request) -> Message:
        """A request as this player; a lost session (matchmaker restart) is renewed once."""
        reply = await self.dealer.request(request)
        if isinstance(reply, ErrorReply) and reply.code == "no_session":
            await self.hello()
            reply = await self.dealer.request(request)
        return reply

    async def seat_request(self, game_id: str, make: Callable[[str], Request]) -> Message:
        """A seat request for ``game_id`` with this player's token (made by ``make``)."""
        assignment = self.seats.get(game_id)
        if assignment is None:
            raise Refused("not_seated", "you have no seat in this game")
        referee = await self.hub._referee_for(assignment)
        return await referee.dealer.request(make(assignment.token))

    def _on_push(self, message: Message) -> None:
        if isinstance(message, GameAssigned):
            asyncio.get_running_loop().create_task(self._assigned(message.game))
        elif isinstance(message, ChallengeReceived):
            self.challenges[message.challenge_id] = message
            self.tell(
                {
                    "t": "challenge",
                    "challenge_id": message.challenge_id,
                    "from": message.challenger,
                    "seek": _seek_json(message.seek),
                }
            )
        elif isinstance(message, ChallengeClosed):
            self.challenges.pop(message.challenge_id, None)
            self.tell(
                {
                    "t": "challenge_closed",
                    "challenge_id": message.challenge_id,
                    "how": message.how,
                    "reason": message.reason,
                }
            )

    async def _assigned(self, game: Assignment) -> None:
        await self._seated(game)
        self.tell({"t": "assigned", "game_id": game.game_id})

    async def _seated(self, game: Assignment) -> None:
        self.seats[game.game_id] = game
        try:
            referee = await self.hub._referee_for(game)
            await referee.dealer.request(
                Join(game_id=game.game_id, seat=game.seat, token=game.token)
            )
        except Refused as exc:
            log.warning("could not join game %s for %s: %s", game.game_id, self.name, exc)

    def tell(self, message: dict[str, Any]) -> None:
        for listener in list(self.listeners):
            listener(message)

    def attach(self, listener: PushListener) -> None:
        self.listeners.add(listener)
        if self._beat is None or self._beat.done():
            self._beat = asyncio.get_running_loop().create_task(self._beating())

    def detach(self, listener: PushListener) -> None:
        self.listeners.discard(listener)
        self.last_seen = time.monotonic()

    async def _beating(self) -> None:
        """Signs of life while a browser is here (and a little after): a reload or a
        lost Wi-Fi link does not cost the seat; a closed tab does, as in the GUI."""
        while self.listeners or time.monotonic() - self.last_seen < LINGER_S:
            with contextlib.suppress(Refused):
                await self.call(Ping())
                for game_id, assignment in list(self.seats.items()):
                    feed = self.hub.feeds.get(game_id)
                    if feed is not None and feed.state is not None and feed.state.result:
                        continue
                    referee = await self.hub._referee_for(assignment)
                    await referee.dealer.request(Heartbeat(game_id=game_id, token=assignment.token))
            await asyncio.sleep(BEAT_S)

    def close(self) -> None:
        if self._beat is not None:
            self._beat.cancel()
        self.dealer.close()


def _seek_json(seek: Any) -> dict[str, Any]:
    return {
        "variant": seek.variant,
        "options": dict(seek.options),
        "time_control": dataclasses.asdict(seek.time_control),
        "rated": seek.rated,
        "color": seek.color,
    }


class Hub:
    """Every link of the gateway to the services (see the module's docstring)."""

    def __init__(
        self,
        matchmaker: str,
        link: Link,
        *,
        folder: Path | None = None,
        urls: tuple[str, ...] = (),
    ) -> None:
        self.matchmaker = matchmaker
        self.link = link
        self.urls = urls
        self.context = zmq.asyncio.Context()
        self.players: dict[str, Player] = {}
        self.feeds: dict[str, GameFeed] = {}
        self.referees: dict[str, _Referee] = {}
        self.lobby_listeners: set[Callable[[dict[str, Any]], None]] = set()
        self._tour_listeners: dict[str, set[Callable[[TournamentEvent], None]]] = {}
        self._sessions_file = folder / "web-sessions.json" if folder else None
        self._sessions: dict[str, dict[str, str]] = self._load_sessions()
        self._lobby: dict[str, Any] | None = None
        self._lobby_task: asyncio.Task[None] | None = None
        self._lobby_dirty = False
        self._mm: _Dealer | None = None
        self._mm_sub: _Sub | None = None
        self._info: ServerInfo | None = None

    # ------------------------------------------------------------ lifetime

    async def start(self) -> None:
        self._mm = _Dealer(self.context, self.matchmaker, self.link)
        self._mm_sub = None
        with contextlib.suppress(Refused):
            await self._server_info()

    async def _server_info(self) -> ServerInfo:
        if self._info is None:
            assert self._mm is not None
            reply = await self._mm.request(GetServerInfo())
            if not isinstance(reply, ServerInfo):
                raise Refused("bad_reply", f"expected server, got {reply.T}")
            self._info = reply
            self._mm_sub = _Sub(
                self.context, reachable(reply.events, self.matchmaker), self.link, self._on_mm_event
            )
            self._mm_sub.subscribe(TOPIC_LOBBY)
            for topic in self._tour_listeners:
                self._mm_sub.subscribe(tour_topic(topic))
        return self._info

    async def close(self) -> None:
        for player in self.players.values():
            player.close()
        for referee in self.referees.values():
            referee.close()
        if self._mm is not None:
            self._mm.close()
        if self._mm_sub is not None:
            self._mm_sub.close()
        if self._lobby_task is not None:
            self._lobby_task.cancel()
        self.context.term()

    # ------------------------------------------------------------ asking

    async def ask(self, request: Request) -> Message:
        """One matchmaker request without a session; an error reply is returned."""
        assert self._mm is not None
        return await self._mm.request(request)

    # ------------------------------------------------------------ players

    async def enter(self, secret: str, name: str = "", claim: str = "") -> Player:
        """The player of the browser holding ``secret``: known already, or a new one
        named ``name`` (or a roster entry taken over with ``claim``)."""
        key = secret_key(secret)
        player = self.players.get(key)
        if player is not None and not claim:
            return player
        saved = self._sessions.get(key)
        if player is None and saved and not claim:
            player = Player(self, key, saved["name"], saved["session"])
        elif name.strip():
            if player is not None:
                player.close()
            player = Player(self, key, name.strip(), None)
        else:
            raise Refused("need_name", "type a name to enter the lobby")
        try:
            await player.hello(claim=claim or None)
        except Refused:
            player.close()
            self.players.pop(key, None)
            raise
        self.players[key] = player
        self._lobby_changed()
        return player

    def _load_sessions(self) -> dict[str, dict[str, str]]:
        if self._sessions_file is None or not self._sessions_file.exists():
            return {}
        try:
            data = json.loads(self._sessions_file.read_text("utf-8"))
        except (OSError, ValueError) as exc:
            log.warning("ignoring %s: %s", self._sessions_file, exc)
            return {}
        return data if isinstance(data, dict) else {}

    def _remember(self, player: Player) -> None:
        if player.session is None:
            return
        self._sessions[player.key] = {"name": player.name, "session": player.session}
        if self._sessions_file is not None:
            tmp = self._sessions_file.with_suffix(".tmp")
            tmp.write_text(json.dumps(self._sessions), "utf-8")
            tmp.chmod(0o600)
            tmp.replace(self._sessions_file)

    # ------------------------------------------------------------ lobby

    def _on_mm_event(self, message: Message) -> None:
        if isinstance(message, LobbyEvent):
            self._lobby_changed()
        elif isinstance(message, TournamentEvent):
            for listener in list(self._tour_listeners.get(message.tournament_id, ())):
                listener(message)

    def _lobby_changed(self) -> None:
        self._lobby_dirty = True
        if self._lobby_task is None or self._lobby_task.done():
            self._lobby_task = asyncio.get_running_loop().create_task(self._refresh_lobby())

    async def _refresh_lobby(self) -> None:
        while self._lobby_dirty:
            self._lobby_dirty = False
            try:
                self._lobby = await self._read_lobby()
            except Refused as exc:
                log.info("lobby not read: %s", exc)
                return
            for listener in list(self.lobby_listeners):
                listener(self._lobby)

    async def lobby(self) -> dict[str, Any]:
        """Players, open seeks and games in progress, as the lobby page shows them."""
        if self._lobby is None:
            self._lobby = await self._read_lobby()
        return self._lobby

    async def _read_lobby(self) -> dict[str, Any]:
        info = await self._server_info()
        players = await self.ask(ListPlayers())
        seeks = await self.ask(ListSeeks())
        games: list[dict[str, Any]] = []
        for endpoints in info.referees:
            referee = self._referee(endpoints.endpoint, endpoints.events, endpoints.key)
            reply = await referee.dealer.request(ListGames(status="active", limit=200))
            games += [dataclasses.asdict(g) for g in getattr(reply, "games", [])]
            reply = await referee.dealer.request(ListGames(status="finished", limit=20))
            games += [dataclasses.asdict(g) for g in getattr(reply, "games", [])]
        return {
            "players": [
                {"name": p.name, "kind": p.kind, "online": p.online, "ratings": p.ratings}
                for p in (players.players if isinstance(players, PlayersList) else [])
                if p.online
            ],
            "seeks": [
                {"seek_id": s.seek_id, "player": s.player, "rating": s.rating} | _seek_json(s.seek)
                for s in (seeks.seeks if isinstance(seeks, SeeksList) else [])
            ],
            "games": games,
        }

    async def ratings(self, name: str) -> dict[str, float]:
        reply = await self.ask(ListPlayers())
        if isinstance(reply, PlayersList):
            for player in reply.players:
                if player.name == name:
                    return dict(player.ratings)
        return {}

    # ------------------------------------------------------------ tournaments

    def on_tour(self, tournament_id: str, listener: Callable[[TournamentEvent], None]) -> None:
        self._tour_listeners.setdefault(tournament_id, set()).add(listener)
        if self._mm_sub is not None:
            self._mm_sub.subscribe(tour_topic(tournament_id))

    def off_tour(self, tournament_id: str, listener: Callable[[TournamentEvent], None]) -> None:
        listeners = self._tour_listeners.get(tournament_id, set())
        listeners.discard(listener)
        if not listeners:
            self._tour_listeners.pop(tournament_id, None)
            if self._mm_sub is not None:
                self._mm_sub.unsubscribe(tour_topic(tournament_id))

    # ------------------------------------------------------------ games

    def _referee(self, endpoint: str, events: str, key: str | None) -> _Referee:
        endpoint = reachable(endpoint, self.matchmaker)
        referee = self.referees.get(endpoint)
        if referee is None:
            link = Link.to(key) if key and self.link.secure else self.link
            referee = _Referee(self, endpoint, reachable(events, self.matchmaker), link)
            self.referees[endpoint] = referee
        return referee

    async def _referee_for(self, game: Assignment) -> _Referee:
        return self._referee(game.referee, game.referee_pub, game.referee_key)

    def _on_game_event(self, message: Message) -> None:
        if isinstance(message, GameEvent) and (feed := self.feeds.get(message.game_id)):
            feed.on_event(message)

    async def follow(self, game_id: str, listener: GameListener | None = None) -> GameFeed:
        """The live feed of ``game_id`` (snapshot first, then events); raises
        :class:`Refused` (``unknown_game``) for a game no referee knows."""
        feed = self.feeds.get(game_id)
        if feed is None:
            feed = await self._new_feed(game_id)
        if listener is not None:
            feed.listeners.add(listener)
        return feed

    async def _new_feed(self, game_id: str) -> GameFeed:
        info = await self._server_info()
        for endpoints in info.referees:
            referee = self._referee(endpoints.endpoint, endpoints.events, endpoints.key)
            referee.sub.subscribe(game_topic(game_id))
            feed = self.feeds.get(game_id) or GameFeed(game_id, referee)
            self.feeds[game_id] = feed
            reply = await referee.dealer.request(Sync(game_id=game_id))
            if isinstance(reply, Snapshot):
                if feed.state is None:
                    feed._take(reply)
                    feed._drain()
                return feed
            referee.sub.unsubscribe(game_topic(game_id))
            self.feeds.pop(game_id, None)
        raise Refused("unknown_game", f"no game {game_id} on this server")

    def unfollow(self, game_id: str, listener: GameListener) -> None:
        feed = self.feeds.get(game_id)
        if feed is not None:
            feed.listeners.discard(listener)

    @staticmethod
    def board_view(state: GameState) -> dict[str, Any]:
        return board_view(state)
