"""The gateway's one link to the services: everything ``lanqi web`` says to the
matchmaker and the referees goes through :class:`Hub`, over
:class:`lanqi.client.connection.Connection` (one asyncio loop, the web server's).

The hub's own connection (no session) reads the lobby, follows ``lobby`` and
``tour/<id>`` and every game a browser watches (one feed a game, the Clone pattern:
snapshot, events, a fresh snapshot on a gap).  Each browser player has a
connection of its own, because a matchmaker connection *is* a player (its session,
its pushes): it says ``hello``, holds the player's seats as
:class:`~lanqi.table.remote.RemoteTable` s (joined, heartbeated, joined again after
a restart) and sends its seat requests.

Seat tokens and matchmaker sessions stay here.  A browser is known by the hash of
a secret it made itself; :class:`Player` acts for a seat only when asked by the
browser whose secret owns it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import json
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lanqi.client.connection import Connection, NoAnswer, Refused
from lanqi.client.connection import GameFeed as ClientFeed
from lanqi.gamestate import GameState
from lanqi.protocol import (
    Assignment,
    ChallengeClosed,
    ChallengeReceived,
    ErrorReply,
    GameAssigned,
    ListGames,
    ListPlayers,
    ListSeeks,
    ListTournaments,
    LobbyEvent,
    Message,
    PlayersList,
    Request,
    SeeksList,
    ServerInfo,
    Snapshot,
    Sync,
    TournamentEvent,
    TournamentsList,
    Welcome,
)
from lanqi.protocol.endpoints import TOPIC_LOBBY, reachable, tour_topic
from lanqi.security import KnownServers, Link
from lanqi.table.remote import RemoteTable
from lanqi.web.view import board_view

__all__ = ["GameFeed", "Hub", "Player", "Refused"]

log = logging.getLogger(__name__)

#: how long a player stays online (its seats heartbeated) after its last tab closed:
#: a reload or a lost Wi-Fi link does not cost the seat; a closed tab does, as in the GUI
LINGER_S = 20.0


def secret_key(secret: str) -> str:
    """What the gateway keeps of a browser's secret: its SHA-256 (hex)."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


async def _asked(send: Any) -> Message:
    """An awaited request; no answer in time is a :class:`Refused` (``timeout``)."""
    try:
        reply: Message = await send
    except NoAnswer as exc:
        raise Refused("timeout", f"{exc}; is the server up?") from None
    return reply


GameListener = Callable[["GameFeed"], None]


class GameFeed:
    """One game the gateway follows for its browsers: the connection's feed, the
    board view drawn from it once per change, and the tabs that want to hear."""

    def __init__(self, feed: ClientFeed) -> None:
        self.feed = feed
        self.game_id = feed.game_id
        #: monotonic time the state's clock reading arrived at the gateway
        self.clock_at = time.monotonic()
        self.listeners: set[GameListener] = set()
        self._view: dict[str, Any] | None = None
        self._text: str | None = None
        self._seen = -1 if feed.state is None else feed.state.seq
        feed.listeners.append(self._on_news)

    @property
    def state(self) -> GameState | None:
        return self.feed.state

    async def request(self, request: Request) -> Message:
        """A request to the game's referee (reads, spectators' chat)."""
        return await _asked(self.feed.referee.request(request))

    def view(self) -> dict[str, Any]:
        """The board as the page draws it (computed once per change)."""
        assert self.state is not None
        if self._view is None:
            self._view = board_view(self.state)
        return self._view

    def state_text(self) -> str:
        """The ``state`` message for every tab, encoded once per change (its clock's
        age as of the change; a tab that joins later gets a fresh one)."""
        if self._text is None:
            self._text = self.encode()
        return self._text

    def encode(self) -> str:
        """The ``state`` message with the clock's age as of now."""
        message = {"t": "state", "age_ms": self.clock_age_ms(), "view": self.view()}
        return json.dumps(message, ensure_ascii=False)

    def clock_age_ms(self) -> int:
        """Milliseconds since the clock in :attr:`state` was read."""
        return round((time.monotonic() - self.clock_at) * 1000)

    def _on_news(self, news: object, state: GameState) -> None:
        if isinstance(news, tuple) and self._seen == state.seq:
            return  # a check-up snapshot that changed nothing (a quiet game)
        self._seen = state.seq
        if isinstance(news, tuple) or hasattr(news, "clock"):
            self.clock_at = time.monotonic()
        self._view = self._text = None
        for listener in list(self.listeners):
            try:
                listener(self)
            except Exception:  # a broken listener must not stop the others
                log.exception("a listener of game %s failed", self.game_id)


PushListener = Callable[[dict[str, Any]], None]


class Player:
    """One person in the lobby, for the browsers that hold its secret: a connection
    of its own (its matchmaker session, pushes and seats)."""

    def __init__(self, hub: Hub, key: str, name: str, session: str | None) -> None:
        self.hub = hub
        self.key = key
        self.name = name
        self.session = session
        self.conn = Connection(hub.matchmaker, link=hub.link, known=hub.known)
        self.seats: dict[str, Assignment] = {}
        self.tables: dict[str, RemoteTable] = {}
        self.challenges: dict[str, ChallengeReceived] = {}
        self.listeners: set[PushListener] = set()
        self.last_seen = time.monotonic()
        self._tasks: list[asyncio.Task[None]] = []
        self.closed = False

    async def hello(self, claim: str | None = None) -> None:
        welcome = await _asked(
            self.conn.hello(self.name, session=None if claim else self.session, claim=claim)
        )
        assert isinstance(welcome, Welcome)
        await self._welcomed(welcome)
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._inbox()), loop.create_task(self._linger())]

    async def _welcomed(self, welcome: Welcome) -> None:
        self.name, self.session = welcome.name, welcome.session
        self.hub._remember(self)
        for game in welcome.games:
            await self._seated(game)

    async def call(self, request: Request) -> Message:
        """A request as this player; a lost session (matchmaker restart) is renewed once."""
        service = await self.conn.matchmaker()
        reply = await _asked(service.request(request))
        if isinstance(reply, ErrorReply) and reply.code == "no_session":
            welcome = await _asked(self.conn.hello(self.name, session=self.session))
            assert isinstance(welcome, Welcome)
            await self._welcomed(welcome)
            reply = await _asked(service.request(request))
        return reply

    async def seat_request(self, game_id: str, make: Callable[[str], Request]) -> Message:
        """A seat request for ``game_id`` with this player's token (made by ``make``)."""
        assignment = self.seats.get(game_id)
        if assignment is None:
            raise Refused("not_seated", "you have no seat in this game")
        referee = reachable(assignment.referee, self.hub.matchmaker)
        return await _asked(self.conn.request(referee, make(assignment.token)))

    async def _inbox(self) -> None:
        while True:
            await self.conn.inbox_wait()
            for item in self.conn.inbox.take():
                if isinstance(item, GameAssigned):
                    await self._seated(item.game)
                    self.tell({"t": "assigned", "game_id": item.game.game_id})
                elif isinstance(item, Welcome):  # said again after the link came back
                    await self._welcomed(item)
                elif isinstance(item, ChallengeReceived):
                    self.challenges[item.challenge_id] = item
                    self.tell(_challenge_json(item))
                elif isinstance(item, ChallengeClosed):
                    self.challenges.pop(item.challenge_id, None)
                    self.tell(
                        {
                            "t": "challenge_closed",
                            "challenge_id": item.challenge_id,
                            "how": item.how,
                            "reason": item.reason,
                        }
                    )

    async def _seated(self, game: Assignment) -> None:
        self.seats[game.game_id] = game
        if game.game_id in self.tables:
            return
        try:
            self.tables[game.game_id] = await self.conn.open_table(game)
        except (Refused, NoAnswer, TimeoutError) as exc:
            log.warning("could not join game %s for %s: %s", game.game_id, self.name, exc)

    def tell(self, message: dict[str, Any]) -> None:
        for listener in list(self.listeners):
            listener(message)

    def attach(self, listener: PushListener) -> None:
        self.listeners.add(listener)

    def detach(self, listener: PushListener) -> None:
        self.listeners.discard(listener)
        self.last_seen = time.monotonic()

    async def _linger(self) -> None:
        """Close the connection (its seats go silent) when no tab has been here for
        :data:`LINGER_S`; the next ``hello`` of the browser opens a new one."""
        while self.listeners or time.monotonic() - self.last_seen < LINGER_S:
            await asyncio.sleep(1.0)
        self.hub.players.pop(self.key, None)
        await self.close()

    async def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        for task in self._tasks:
            if task is not asyncio.current_task():
                task.cancel()
        for table in self.tables.values():
            table.close()
        await asyncio.sleep(0)  # the tables let go of their feeds before the sockets close
        await self.conn.close()


def _challenge_json(challenge: ChallengeReceived) -> dict[str, Any]:
    return {
        "t": "challenge",
        "challenge_id": challenge.challenge_id,
        "from": challenge.challenger,
        "seek": _seek_json(challenge.seek),
    }


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
        self.known = KnownServers.of(folder) if folder else None
        self.conn: Connection | None = None
        self.players: dict[str, Player] = {}
        self.feeds: dict[str, GameFeed] = {}
        self.lobby_listeners: set[Callable[[dict[str, Any]], None]] = set()
        self._tour_listeners: dict[str, set[Callable[[TournamentEvent], None]]] = {}
        self._sessions_file = folder / "web-sessions.json" if folder else None
        self._sessions: dict[str, dict[str, str]] = self._load_sessions()
        self._lobby: dict[str, Any] | None = None
        self._lobby_task: asyncio.Task[None] | None = None
        self._lobby_dirty = False
        self._listening = False

    # ------------------------------------------------------------ lifetime

    async def start(self) -> None:
        self.conn = Connection(self.matchmaker, link=self.link, known=self.known)
        with contextlib.suppress(Refused):
            await self._server_info()

    async def _server_info(self) -> ServerInfo:
        assert self.conn is not None
        info = await _asked(self.conn.server_info())
        assert isinstance(info, ServerInfo)
        if not self._listening:
            self._listening = True
            events = self.conn.publisher(info.events, self.link)
            events.listen(TOPIC_LOBBY, self._on_mm_event)
            for tournament_id in self._tour_listeners:
                events.listen(tour_topic(tournament_id), self._on_mm_event)
        return info

    async def close(self) -> None:
        for player in list(self.players.values()):
            await player.close()
        if self._lobby_task is not None:
            self._lobby_task.cancel()
        if self.conn is not None:
            await self.conn.close()

    # ------------------------------------------------------------ asking

    async def ask(self, request: Request) -> Message:
        """One matchmaker request without a session; an error reply is returned."""
        assert self.conn is not None
        service = await self.conn.matchmaker()
        return await _asked(service.request(request))

    async def _ask_referee(self, endpoint: str, key: str | None, request: Request) -> Message:
        assert self.conn is not None
        service = await self.conn.service(endpoint, key=key if self.link.secure else None)
        return await _asked(service.request(request))

    # ------------------------------------------------------------ players

    async def enter(self, secret: str, name: str = "", claim: str = "") -> Player:
        """The player of the browser holding ``secret``: known already, or a new one
        named ``name`` (or a roster entry taken over with ``claim``)."""
        key = secret_key(secret)
        player = self.players.get(key)
        if player is not None and not claim and not player.closed:
            return player
        saved = self._sessions.get(key)
        if saved and not claim:
            player = Player(self, key, saved["name"], saved["session"])
        elif name.strip():
            if player is not None:
                await player.close()
            player = Player(self, key, name.strip(), None)
        else:
            raise Refused("need_name", "type a name to enter the lobby")
        try:
            await player.hello(claim=claim or None)
        except Refused:
            await player.close()
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
            self._sessions_file.parent.mkdir(parents=True, exist_ok=True)
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
        players = await self.ask(ListPlayers())  # the first page: online players first
        seeks = await self.ask(ListSeeks())
        events = await self.ask(ListTournaments())
        games: list[dict[str, Any]] = []
        for where in info.referees:
            for status, limit in (("active", 200), ("finished", 20)):
                reply = await self._ask_referee(
                    where.endpoint, where.key, ListGames(status=status, limit=limit)
                )
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
            # the events not finished yet (open, running, paused), newest first
            "tournaments": [
                {
                    "tournament_id": t.tournament_id,
                    "name": t.spec.name,
                    "variant": t.spec.variant,
                    "status": t.status,
                    "round": t.round,
                }
                for t in reversed(events.tournaments if isinstance(events, TournamentsList) else [])
                if t.status != "finished"
            ],
        }

    async def ratings(self, name: str) -> dict[str, float]:
        # by name: the lobby may hold more players than one page names
        reply = await self.ask(ListPlayers(name=name))
        if isinstance(reply, PlayersList):
            for player in reply.players:
                if player.name == name:
                    return dict(player.ratings)
        return {}

    # ------------------------------------------------------------ tournaments

    def on_tour(self, tournament_id: str, listener: Callable[[TournamentEvent], None]) -> None:
        first = tournament_id not in self._tour_listeners
        self._tour_listeners.setdefault(tournament_id, set()).add(listener)
        if first and self._listening and self.conn is not None and self.conn._info is not None:
            events = self.conn.publisher(self.conn._info.events, self.link)
            events.listen(tour_topic(tournament_id), self._on_mm_event)

    def off_tour(self, tournament_id: str, listener: Callable[[TournamentEvent], None]) -> None:
        listeners = self._tour_listeners.get(tournament_id, set())
        listeners.discard(listener)
        if not listeners:
            self._tour_listeners.pop(tournament_id, None)
            if self._listening and self.conn is not None and self.conn._info is not None:
                events = self.conn.publisher(self.conn._info.events, self.link)
                events.unlisten(tour_topic(tournament_id), self._on_mm_event)

    # ------------------------------------------------------------ games

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
        assert self.conn is not None
        info = await self._server_info()
        for where in info.referees:
            key = where.key if self.link.secure else None
            reply = await self._ask_referee(where.endpoint, key, Sync(game_id=game_id))
            if not isinstance(reply, Snapshot):
                continue
            found = self.feeds.get(game_id)
            if found is not None:  # made while this one asked
                return found
            client_feed = await self.conn.feed(game_id, where.endpoint, where.events, key=key)
            if client_feed.state is None:
                client_feed.take(Sync(game_id=game_id), reply)
            feed = self.feeds[game_id] = GameFeed(client_feed)
            return feed
        raise Refused("unknown_game", f"no game {game_id} on this server")

    def unfollow(self, game_id: str, listener: GameListener) -> None:
        feed = self.feeds.get(game_id)
        if feed is not None:
            feed.listeners.discard(listener)

    @staticmethod
    def board_view(state: GameState) -> dict[str, Any]:
        return board_view(state)
