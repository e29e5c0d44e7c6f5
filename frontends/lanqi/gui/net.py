"""Networking for the GUI: one agent thread per connection, queues to the GUI.

The GUI thread never touches a socket.  Each agent owns its ZeroMQ sockets
(they belong to one thread) and talks to the GUI through two thread-safe
queues: commands in (:mod:`lanqi.gui.commands`, one class a command, handled
through a table by type), immutable snapshots and notices out.  The GUI drains the
out-queue without waiting, once per frame, so a slow or dead server never
blocks a frame.

- :class:`GameAgent`: one game on a referee, as a player (seat + token) or a
  spectator: :class:`~lanqi.client.referee.RefereeClient` and
  :class:`~lanqi.client.referee.GameView` (snapshot, then events in ``seq``
  order, re-sync on a gap), a heartbeat every second while seated, capped
  reconnect back-off.
- :class:`LobbyAgent`: the matchmaker: hello (with the session saved for the
  server's key, whatever address reached it), the lobby
  lists, seeks, challenges, tournaments and standings, and the private pushes
  (``game_assigned``, ``challenge_received``); the live games of every referee
  the matchmaker names.
- :class:`LobbyLink`: the GUI-side end of a lobby agent: the latest lists and
  what is waiting to be handled.

A lost connection is a state, not a message: the agent says :class:`Disconnected`
when it loses its server and again after every failed try (the same ``since``, the
next ``next_try_at``), and :class:`Reconnected` once it is back, until then nothing
else.  A closed TCP connection (the server's process died) is noticed at once by a
socket monitor, a silent one by a request that times out.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import zmq

from lanqi.client.matchmaker import (
    MatchmakerClient,
    MatchmakerRefused,
    MatchmakerTimeout,
    referee_link,
)
from lanqi.client.referee import GameView, RefereeClient, RefereeTimeout, RequestRefused
from lanqi.gamestate import GameState
from lanqi.gui import commands
from lanqi.gui.settings import saved_session
from lanqi.i18n import tr
from lanqi.protocol import (
    AcceptChallenge,
    Assignment,
    CancelSeek,
    Challenge,
    ChallengeClosed,
    ChallengeCreated,
    ChallengeReceived,
    CreateSeek,
    DeclineChallenge,
    GameAssigned,
    GameSummary,
    GetStandings,
    JoinTournament,
    ListPlayers,
    ListSeeks,
    ListTournaments,
    LobbyEvent,
    LobbySeekRemoved,
    Message,
    Ok,
    Ping,
    PlayerInfo,
    PlayersList,
    ReportResult,
    ResultNoted,
    Seek,
    SeekCreated,
    SeekInfo,
    SeeksList,
    Standings,
    TournamentEvent,
    TournamentInfo,
    TournamentsList,
    TourRound,
    Welcome,
    WithdrawTournament,
)
from lanqi.protocol.endpoints import TOPIC_LOBBY, tour_topic
from lanqi.security import (
    HandshakeWatch,
    KnownServers,
    NoServerKey,
    SecurityError,
    server_identity,
)

__all__ = [
    "Assigned",
    "ChallengeGone",
    "ChallengeIn",
    "ChallengeSent",
    "Disconnected",
    "Failed",
    "GameAgent",
    "LobbyAgent",
    "LobbyLink",
    "LobbyState",
    "Note",
    "Reconnected",
    "Refused",
    "ViewState",
    "Welcomed",
    "derive_endpoint",
]

log = logging.getLogger(__name__)

HEARTBEAT_S = 1.0
POLL_MS = 20
QUIET_RESYNC_S = 2.0
MAX_BACKOFF_S = 8.0
#: a game's reconnect tries: the first after a second, then every 2 s, at most every 4 s
FIRST_RETRY_S = 1.0
MAX_RETRY_S = 4.0
PING_S = 3.0
LOBBY_REFRESH_S = 5.0
LOBBY_DIRTY_S = 0.2


def derive_endpoint(endpoint: str, port_offset: int = 0, port: int | None = None) -> str:
    """``tcp://host:5050`` with another port: ``derive_endpoint(e, 1) == 'tcp://host:5051'``.

    >>> derive_endpoint("tcp://10.0.0.2:5050", 1)
    'tcp://10.0.0.2:5051'
    >>> derive_endpoint("tcp://10.0.0.2:5050", port=5052)
    'tcp://10.0.0.2:5052'
    """
    head, _, tail = endpoint.rpartition(":")
    if not head or not tail.isdigit():
        return endpoint
    return f"{head}:{port if port is not None else int(tail) + port_offset}"


# ================================================================ messages out


@dataclass(frozen=True, slots=True)
class ViewState:
    """One game as the agent's :class:`GameView` has it: its state (folded by
    :func:`lanqi.gamestate.apply`), read at ``at`` (monotonic, for the clocks).

    ``abandon_at``: per seat that is away, the monotonic time at which the referee
    ends the game as abandoned unless it comes back (None for a seat that is there,
    or where the referee does not say); ``abandon_after_ms`` the referee's limit."""

    state: GameState
    at: float
    abandon_at: tuple[float | None, ...] = ()
    abandon_after_ms: int = 0


@dataclass(frozen=True, slots=True)
class Disconnected:
    """The agent lost its server (``which``: ``referee`` or ``matchmaker``).

    ``since``: the last time it heard from it (monotonic); ``next_try_at``: when the
    next try to reconnect starts (in the past while a try runs).  Said again, with
    the same ``since``, after every try that fails.  ``abandon_at``: for a seat, when
    the referee would end the game as abandoned if only this link were down (None:
    not known, or not seated)."""

    which: str
    since: float
    next_try_at: float
    abandon_at: float | None = None


@dataclass(frozen=True, slots=True)
class Reconnected:
    """The server lost at ``since`` answers again; ``view``: the game as the referee
    has it now (a fresh snapshot: its clocks are the referee's), for a game agent."""

    which: str
    since: float
    view: ViewState | None = None


class LinkDown(Exception):  # noqa: N818 - reads as what happened
    """The TCP connection to the server closed (its process died, say)."""


class LinkWatch:
    """Watches a client's connection: :meth:`check` raises :class:`LinkDown` once it
    closed, so a dead server is noticed without waiting for a timeout (and
    :class:`~lanqi.security.HandshakeRefused` if the server turned the handshake down).
    It reads the client's own socket monitor (one socket has one monitor)."""

    def __init__(self, watch: HandshakeWatch) -> None:
        self.watch = watch
        self._seen = watch.disconnects

    def check(self) -> None:
        self.watch.check()
        if self.watch.disconnects != self._seen:
            self._seen = self.watch.disconnects
            raise LinkDown(f"the connection to {self.watch.endpoint!r} closed")

    def close(self) -> None:
        """Nothing to release: the monitor is the client's."""


@dataclass(frozen=True, slots=True)
class Refused:
    """The server said no to ``command``: ``code`` is stable, ``msg`` for people."""

    command: commands.Command
    code: str
    msg: str


@dataclass(frozen=True, slots=True)
class Note:
    text: str
    error: bool = False
    #: news that is neither done nor wrong (a challenge declined): plain, not green
    plain: bool = False


@dataclass(frozen=True, slots=True)
class Failed:
    """The agent gave up (join refused, name taken, no server): it has stopped."""

    text: str


@dataclass(frozen=True, slots=True)
class Welcomed:
    welcome: Welcome
    #: the server's identity (:func:`~lanqi.security.server_identity`): what the
    #: session is saved under
    server: str = ""


@dataclass(frozen=True, slots=True)
class Assigned:
    game: Assignment


@dataclass(frozen=True, slots=True)
class ChallengeIn:
    challenge: ChallengeReceived


@dataclass(frozen=True, slots=True)
class ChallengeGone:
    closed: ChallengeClosed


@dataclass(frozen=True, slots=True)
class ChallengeSent:
    """The matchmaker took our challenge to ``to`` (its answer comes as a push)."""

    challenge_id: str
    to: str


@dataclass(frozen=True, slots=True)
class LobbyState:
    players: tuple[PlayerInfo, ...] = ()
    seeks: tuple[SeekInfo, ...] = ()
    tournaments: tuple[TournamentInfo, ...] = ()
    standings: tuple[Standings, ...] = ()
    games: tuple[GameSummary, ...] = ()
    my_seeks: tuple[str, ...] = ()
    #: every referee answered the last game list
    referee_ok: bool = True
    #: game id -> (requests, events) of the referee the game is on
    where: tuple[tuple[str, tuple[str, str]], ...] = ()

    def referee_of(self, game_id: str) -> tuple[str, str] | None:
        """The referee a listed game is on."""
        return dict(self.where).get(game_id)


C = TypeVar("C", bound=commands.Command)


def _drain(q: queue.SimpleQueue[C]) -> list[C]:
    items: list[C] = []
    while True:
        try:
            items.append(q.get_nowait())
        except queue.Empty:
            return items


class _Agent(threading.Thread, Generic[C]):
    """A thread with a command queue in, an event queue out and a stop flag."""

    def __init__(self, name: str, context: zmq.Context[Any] | None) -> None:
        super().__init__(name=name, daemon=True)
        self.context = context or zmq.Context.instance()
        self.commands: queue.SimpleQueue[C] = queue.SimpleQueue()
        self.events: queue.SimpleQueue[object] = queue.SimpleQueue()
        self.stop_event = threading.Event()

    def send(self, command: C) -> None:
        self.commands.put(command)

    def stop(self, wait: float = 0.0) -> None:
        self.stop_event.set()
        if wait and self.is_alive():
            self.join(wait)

    def poll(self) -> list[object]:
        """Everything the agent said since the last call (never waits)."""
        items: list[object] = []
        while True:
            try:
                items.append(self.events.get_nowait())
            except queue.Empty:
                return items


# ================================================================ game agent


class GameAgent(_Agent[commands.GameCommand]):
    """Plays (``seat`` + ``token``) or watches one game on a referee."""

    def __init__(
        self,
        referee: str,
        referee_pub: str,
        game_id: str,
        *,
        seat: int | None = None,
        token: str | None = None,
        name: str = "",
        key: str | None = None,
        context: zmq.Context[Any] | None = None,
        timeout_ms: int = 3000,
    ) -> None:
        super().__init__(f"lanqi-game-{game_id}", context)
        self.referee = referee
        self.referee_pub = referee_pub
        #: the referee's key as the matchmaker named it (None: asked at its key port)
        self.key = key
        self.game_id = game_id
        self.seat = seat if token else None
        self.token = token
        self.name = name
        self.timeout_ms = timeout_ms
        #: the last time the referee answered or published (monotonic)
        self._heard = 0.0
        #: the last sign of life of our seat the referee took (a join, a heartbeat)
        self._alive = 0.0
        self._snapshot: object = None
        self._abandon_at: tuple[float, ...] = ()
        self._abandon_after_ms = 0

    def run(self) -> None:
        retry = FIRST_RETRY_S
        lost: Disconnected | None = None
        while not self.stop_event.is_set():
            try:
                with RefereeClient(
                    self.referee,
                    self.referee_pub,
                    context=self.context,
                    timeout_ms=self.timeout_ms,
                    link=referee_link(self.key),
                ) as client:
                    link = LinkWatch(client.handshake)
                    try:
                        if self.seat is not None and self.token is not None:
                            client.join(self.game_id, self.seat, self.token)
                            self._alive = time.monotonic()
                        view = GameView(client, self.game_id)
                        self._heard = time.monotonic()
                        if lost is not None:
                            log.info("game %s: the referee is back", self.game_id)
                            self.events.put(Reconnected("referee", lost.since, self._state(view)))
                            lost = None
                        else:
                            self._emit(view)
                        retry = FIRST_RETRY_S
                        self._serve(client, view, link)
                        return
                    finally:
                        link.close()
            except RequestRefused as exc:
                self.events.put(Failed(tr("referee_refused", why=exc.msg or exc.code)))
                return
            except (RefereeTimeout, LinkDown, NoServerKey, zmq.ZMQError) as exc:
                if self.stop_event.is_set():
                    return
                now = time.monotonic()
                if lost is None:
                    log.info("game %s: lost the referee (%s)", self.game_id, exc)
                since = lost.since if lost is not None else (self._heard or now)
                lost = Disconnected("referee", since, now + retry, self._my_abandon_at())
                self.events.put(lost)
                self.stop_event.wait(retry)
                retry = min(MAX_RETRY_S, retry * 2)

            except SecurityError as exc:  # a referee this client must not trust
                self.events.put(Failed(str(exc)))
                return

    def _my_abandon_at(self) -> float | None:
        """When the referee would end the game as abandoned, counted from our seat's
        last sign of life it took (None: not seated, or the referee did not say)."""
        if self.seat is None or not self._abandon_after_ms or not self._alive:
            return None
        return self._alive + self._abandon_after_ms / 1000.0

    def _state(self, view: GameView) -> ViewState:
        now = time.monotonic()
        snapshot = view.snapshot
        if snapshot is not self._snapshot:  # a fresh snapshot: its countdowns start now
            self._snapshot = snapshot
            self._abandon_at = tuple(now + ms / 1000.0 for ms in snapshot.abandon_in_ms)
            self._abandon_after_ms = snapshot.abandon_after_ms
        state = view.state
        away = tuple(
            at if state.status != "finished" and not state.connected[i] else None
            for i, at in enumerate(self._abandon_at[: len(state.connected)])
        )
        return ViewState(state, now, away, self._abandon_after_ms)

    def _emit(self, view: GameView) -> None:
        self.events.put(self._state(view))

    def _serve(self, client: RefereeClient, view: GameView, link: LinkWatch) -> None:
        last_beat = 0.0
        last_event = time.monotonic()
        while not self.stop_event.is_set():
            link.check()
            before = (view.seq, len(view.chat), view.resyncs)
            present = view.state.connected
            for command in _drain(self.commands):
                self._do(client, view, command)
            now = time.monotonic()
            seated = self.seat is not None and self.token is not None
            if seated and not view.finished and now - last_beat >= HEARTBEAT_S:
                last_beat = now
                assert self.token is not None
                try:
                    client.heartbeat(self.game_id, self.token)
                    self._heard = self._alive = time.monotonic()
                except RequestRefused as exc:
                    log.debug("heartbeat refused: %s", exc)
            if view.poll(POLL_MS if not view.finished else 5 * POLL_MS):
                last_event = self._heard = now
                while view.poll(0):
                    pass
            elif now - last_event > QUIET_RESYNC_S:
                last_event = now  # a lost last event must not leave us behind
                view.resync()
                self._heard = time.monotonic()
            if any(
                was and not is_ for was, is_ in zip(present, view.state.connected, strict=False)
            ):
                view.resync()  # someone went away: the snapshot says how long they have
            if (view.seq, len(view.chat), view.resyncs) != before:
                self._emit(view)

    def _do(self, client: RefereeClient, view: GameView, command: commands.GameCommand) -> None:
        if command.seated and self.token is None:
            self.events.put(Refused(command, "spectator", tr("spectators_cannot")))
            return
        try:
            GAME_HANDLERS[type(command)](self, client, command)
        except RequestRefused as exc:
            self.events.put(Refused(command, exc.code, exc.msg))
            view.resync()

    def _token(self) -> str:
        assert self.token is not None  # seated commands only reach here with a token
        return self.token

    def _move(self, client: RefereeClient, command: commands.PlayMove) -> None:
        client.move(self.game_id, self._token(), command.ply, command.move)

    def _say(self, client: RefereeClient, command: commands.Say) -> None:
        client.chat(self.game_id, command.text, token=self.token, name=self.name)

    def _seat_call(self, client: RefereeClient, command: commands.GameCommand) -> None:
        SEAT_CALLS[type(command)](client, self.game_id, self._token())


#: the seat's requests without arguments: command type -> the referee client's call
SEAT_CALLS: dict[type[commands.GameCommand], Callable[[RefereeClient, str, str], Ok]] = {
    commands.Resign: RefereeClient.resign,
    commands.OfferDraw: RefereeClient.offer_draw,
    commands.AcceptDraw: RefereeClient.accept_draw,
    commands.DeclineDraw: RefereeClient.decline_draw,
    commands.AskTakeback: RefereeClient.request_takeback,
    commands.AcceptTakeback: RefereeClient.accept_takeback,
    commands.DeclineTakeback: RefereeClient.decline_takeback,
}

#: command type -> what the game agent does with it
GAME_HANDLERS: dict[type[commands.GameCommand], Callable[[GameAgent, RefereeClient, Any], None]] = {
    commands.PlayMove: GameAgent._move,
    commands.Say: GameAgent._say,
    **dict.fromkeys(SEAT_CALLS, GameAgent._seat_call),
}


# ================================================================ lobby agent


class LobbyAgent(_Agent[commands.LobbyCommand]):
    """The player's connection to the matchmaker (and its referees, for the game list).

    The referees are the ones the matchmaker names (``server_info``), after the one
    given as an override (``referee``, ``referee_pub``), if any: games are listed
    from every referee that answers, each with the referee it is on."""

    def __init__(
        self,
        endpoint: str,
        events_endpoint: str | None,
        name: str,
        *,
        session: str | None = None,
        saved: dict[str, str] | None = None,
        claim: str | None = None,
        referee: str | None = None,
        referee_pub: str | None = None,
        key: str | None = None,
        known: KnownServers | None = None,
        context: zmq.Context[Any] | None = None,
        timeout_ms: int = 3000,
    ) -> None:
        super().__init__("lanqi-lobby", context)
        #: the pins the server's key is checked against (None: the data directory's)
        self.known = known
        #: the server's key from elsewhere (an mDNS announcement), checked against the
        #: pins; None: asked at the server's key port
        self.key = key
        #: the keys of the referees the matchmaker names, by (endpoint, events)
        self._referee_keys: dict[tuple[str, str], str | None] = {}
        self.endpoint = endpoint
        self.events_endpoint = events_endpoint
        self.name = name
        self.session = session
        #: the saved sessions ("server|name", :attr:`Settings.sessions`), looked up
        #: once the server's key is known, when no ``session`` is given
        self.saved = dict(saved or {})
        #: the server's identity, once connected (its key's fingerprint, or for a
        #: server without a key the endpoint)
        self.server_id: str | None = None
        #: a claim code (a roster entry): used by the first hello instead of the session
        self.claim = claim
        self.referee = referee
        self.referee_pub = referee_pub
        #: every referee games are listed from (the override first), once welcomed
        self.referees: tuple[tuple[str, str], ...] = ()
        self.timeout_ms = timeout_ms
        self._link: LinkWatch | None = None
        self._client: MatchmakerClient | None = None
        #: (requests, events) -> a client, for each referee games are listed from
        self._referee_clients: dict[tuple[str, str], RefereeClient] = {}
        #: referees whose key port did not answer when the lobby connected
        self._silent_referees: set[tuple[str, str]] = set()
        self._state = LobbyState()
        self._watched: set[str] = set()
        self._dirty = True
        self._last_refresh = 0.0
        self._last_ping = 0.0
        self._my_seeks: list[str] = []

    # ------------------------------------------------------------ thread

    def run(self) -> None:
        backoff = 0.5
        welcomed = False
        lost: Disconnected | None = None
        try:
            while not self.stop_event.is_set():
                try:
                    self._connect()
                    welcomed = True
                    backoff = 0.5
                    if lost is not None:
                        self.events.put(Reconnected("matchmaker", lost.since))
                        lost = None
                    self._serve()
                    return
                except MatchmakerRefused as exc:
                    if exc.code == "bad_session" and self.session is not None:
                        self.session = None
                        continue
                    if exc.code == "name_taken":  # held by a session this GUI lost
                        self.events.put(Failed(tr("connect.name_taken", name=self.name)))
                    elif exc.code == "bad_claim":  # words for players, not the director's
                        self.events.put(Failed(tr("connect.bad_claim", name=self.name)))
                    else:
                        self.events.put(Failed(exc.msg or exc.code))
                    return
                # before SecurityError: a silent key port (NoServerKey) is a server away
                except (MatchmakerTimeout, LinkDown, NoServerKey, zmq.ZMQError) as exc:
                    if not welcomed:
                        self.events.put(Failed(tr("connect.no_answer", server=self.endpoint)))
                        return
                    now = time.monotonic()
                    if lost is None:
                        log.info("lobby: lost the matchmaker (%s); retrying", exc)
                    since = lost.since if lost is not None else now
                    lost = Disconnected("matchmaker", since, now + backoff)
                    self.events.put(lost)
                    self.stop_event.wait(backoff)
                    backoff = min(MAX_BACKOFF_S, backoff * 2)
                except SecurityError as exc:  # a server this client must not trust
                    self.events.put(Failed(str(exc)))
                    return
        finally:
            self._close()

    def _close(self) -> None:
        if self._link is not None:
            self._link.close()
            self._link = None
        if self._client is not None:
            self._client.close()
            self._client = None
        for client in self._referee_clients.values():
            client.close()
        self._referee_clients = {}

    def _connect(self) -> None:
        self._close()
        client = MatchmakerClient(
            self.endpoint,
            self.events_endpoint,
            context=self.context,
            timeout_ms=self.timeout_ms,
            key=self.key,
            known=self.known,
        )
        self._client = client
        self._link = LinkWatch(client.handshake)
        if self.server_id is None:  # the first connection: the session saved for the server
            self.server_id = server_identity(client.link, self.endpoint)
            if self.session is None:
                self.session = saved_session(
                    self.saved, self.server_id, self.name, address=self.endpoint
                )
        if self.claim:
            welcome = client.hello(self.name, claim=self.claim)
        else:
            welcome = client.hello(self.name, session=self.session)
        self.session, self.claim = welcome.session, None
        self.name = welcome.name
        try:
            named = [(r.endpoint, r.events, r.key) for r in client.server_info().referees]
        except MatchmakerRefused as exc:  # a server older than server_info
            log.info("the server names no referee (%s)", exc)
            named = []
        #: each named referee's key, as the matchmaker vouches for it
        self._referee_keys = {(endpoint, events): key for endpoint, events, key in named}
        override = [(self.referee, self.referee_pub)] if self.referee and self.referee_pub else []
        self.referees = tuple(dict.fromkeys([*override, *((e, v) for e, v, _ in named)]))
        self.events.put(Welcomed(welcome, self.server_id or self.endpoint))
        client.subscribe(TOPIC_LOBBY)
        for tournament_id in self._watched:
            client.subscribe(tour_topic(tournament_id))
        self._referee_clients = {}
        self._silent_referees = set()
        for where in self.referees:
            try:
                self._referee_clients[where] = RefereeClient(
                    *where,
                    context=self.context,
                    timeout_ms=1500,
                    link=referee_link(self._referee_keys.get(where)),
                )
            except NoServerKey as exc:  # its key port is silent: shown as not answering
                log.debug("no key from the referee %s: %s", where[0], exc)
                self._silent_referees.add(where)
        self._dirty = True

    @property
    def referee_endpoints(self) -> tuple[str, str] | None:
        """The first referee games are listed and watched on, once known."""
        return self.referees[0] if self.referees else None

    def _serve(self) -> None:
        client = self._client
        assert client is not None
        while not self.stop_event.is_set():
            if self._link is not None:
                self._link.check()
            push = client.next_push(30)
            while push is not None:
                self._on_push(push)
                push = client.next_push(0)
            event = client.next_event(0)
            while event is not None:
                self._on_event(event)
                event = client.next_event(0)
            for command in _drain(self.commands):
                self._do(client, command)
            now = time.monotonic()
            if now - self._last_ping >= PING_S:
                self._last_ping = now
                client.call(Ping(), Ok)
            if (self._dirty and now - self._last_refresh >= LOBBY_DIRTY_S) or (
                now - self._last_refresh >= LOBBY_REFRESH_S
            ):
                self._refresh(client)

    # ------------------------------------------------------------ incoming

    def _on_push(self, message: Message) -> None:
        if isinstance(message, GameAssigned):
            self.events.put(Assigned(message.game))
            self._dirty = True
        elif isinstance(message, ChallengeReceived):
            self.events.put(ChallengeIn(message))
        elif isinstance(message, ChallengeClosed):
            self.events.put(ChallengeGone(message))
        else:
            log.debug("lobby: ignoring push %r", message)

    def _on_event(self, message: Message) -> None:
        if isinstance(message, LobbyEvent):
            self._dirty = True
            if isinstance(message, LobbySeekRemoved) and message.seek_id in self._my_seeks:
                self._my_seeks.remove(message.seek_id)
        elif isinstance(message, TournamentEvent):
            self._dirty = True
            if isinstance(message, TourRound) and message.tournament_id in self._watched:
                self.events.put(Note(tr("lobby.round_paired", round=message.round)))

    # ------------------------------------------------------------ requests

    def _refresh(self, client: MatchmakerClient) -> None:
        self._dirty = False
        self._last_refresh = time.monotonic()
        players = client.call(ListPlayers(), PlayersList).players
        seeks = client.call(ListSeeks(), SeeksList).seeks
        tournaments = client.call(ListTournaments(), TournamentsList).tournaments
        standings = []
        for tournament_id in sorted(self._watched):
            try:
                standings.append(client.call(GetStandings(tournament_id=tournament_id), Standings))
            except MatchmakerRefused as exc:
                log.debug("standings of %s: %s", tournament_id, exc)
        games: list[GameSummary] = []
        where: list[tuple[str, tuple[str, str]]] = []
        referee_ok = not self._silent_referees
        for endpoints, referee in self._referee_clients.items():
            try:
                listed = referee.list_games("active").games
            except (RefereeTimeout, RequestRefused) as exc:
                log.debug("no game list from the referee %s: %s", endpoints[0], exc)
                referee_ok = False
                continue
            games.extend(listed)
            where.extend((game.game_id, endpoints) for game in listed)
        live = {s.seek_id for s in seeks}
        self._my_seeks = [s for s in self._my_seeks if s in live]
        self._state = LobbyState(
            players=tuple(players),
            seeks=tuple(seeks),
            tournaments=tuple(tournaments),
            standings=tuple(standings),
            games=tuple(games),
            my_seeks=tuple(self._my_seeks),
            referee_ok=referee_ok,
            where=tuple(where),
        )
        self.events.put(self._state)

    def _do(self, client: MatchmakerClient, command: commands.LobbyCommand) -> None:
        try:
            LOBBY_HANDLERS[type(command)](self, client, command)
        except MatchmakerRefused as exc:
            self.events.put(Refused(command, exc.code, exc.msg))
        self._dirty = True

    def _post_seek(self, client: MatchmakerClient, command: commands.PostSeek) -> None:
        reply = client.call(CreateSeek(seek=command.seek), SeekCreated)
        if not reply.paired:
            self._my_seeks.append(reply.seek_id)

    def _drop_seek(self, client: MatchmakerClient, command: commands.DropSeek) -> None:
        client.call(CancelSeek(seek_id=command.seek_id), Ok)
        if command.seek_id in self._my_seeks:
            self._my_seeks.remove(command.seek_id)

    def _challenge(self, client: MatchmakerClient, command: commands.SendChallenge) -> None:
        reply = client.call(Challenge(to=command.to, seek=command.seek), ChallengeCreated)
        self.events.put(ChallengeSent(reply.challenge_id, command.to))

    def _accept(self, client: MatchmakerClient, command: commands.TakeChallenge) -> None:
        client.call(AcceptChallenge(challenge_id=command.challenge_id), Ok)

    def _decline(self, client: MatchmakerClient, command: commands.RefuseChallenge) -> None:
        client.call(DeclineChallenge(challenge_id=command.challenge_id), Ok)

    def _join(self, client: MatchmakerClient, command: commands.EnterTournament) -> None:
        self._watch(client, command.tournament_id)
        client.call(JoinTournament(tournament_id=command.tournament_id), Ok)
        self.events.put(Note(tr("lobby.in_tournament")))

    def _report(self, client: MatchmakerClient, command: commands.ReportBoardResult) -> None:
        noted = client.call(
            ReportResult(
                tournament_id=command.tournament_id,
                round=command.round,
                table=command.table,
                result=command.result,
            ),
            ResultNoted,
        )
        self._watch(client, command.tournament_id)
        self.events.put(Note(tr(f"lobby.result_{noted.status}")))

    def _withdraw(self, client: MatchmakerClient, command: commands.LeaveTournament) -> None:
        client.call(WithdrawTournament(tournament_id=command.tournament_id), Ok)

    def _follow(self, client: MatchmakerClient, command: commands.FollowTournament) -> None:
        self._watch(client, command.tournament_id)

    def _refresh_now(self, client: MatchmakerClient, command: commands.Refresh) -> None:
        """Nothing to send: every command marks the lists for a refresh."""

    def _watch(self, client: MatchmakerClient, tournament_id: str) -> None:
        if tournament_id not in self._watched:
            self._watched.add(tournament_id)
            client.subscribe(tour_topic(tournament_id))


#: command type -> what the lobby agent does with it
LOBBY_HANDLERS: dict[
    type[commands.LobbyCommand], Callable[[LobbyAgent, MatchmakerClient, Any], None]
] = {
    commands.PostSeek: LobbyAgent._post_seek,
    commands.DropSeek: LobbyAgent._drop_seek,
    commands.SendChallenge: LobbyAgent._challenge,
    commands.TakeChallenge: LobbyAgent._accept,
    commands.RefuseChallenge: LobbyAgent._decline,
    commands.EnterTournament: LobbyAgent._join,
    commands.LeaveTournament: LobbyAgent._withdraw,
    commands.FollowTournament: LobbyAgent._follow,
    commands.ReportBoardResult: LobbyAgent._report,
    commands.Refresh: LobbyAgent._refresh_now,
}


# ================================================================ GUI side


@dataclass
class LobbyLink:
    """The GUI's end of a :class:`LobbyAgent`: call :meth:`pump` once per frame."""

    agent: LobbyAgent
    server: str
    state: LobbyState = field(default_factory=LobbyState)
    welcome: Welcome | None = None
    failed: str | None = None
    assignments: deque[Assignment] = field(default_factory=deque)
    challenges: dict[str, ChallengeReceived] = field(default_factory=dict)
    #: our challenges waiting for an answer: challenge id -> whom
    sent: dict[str, str] = field(default_factory=dict)
    notes: deque[Note | Refused] = field(default_factory=deque)
    #: the matchmaker does not answer (since when, the next try), or None
    lost: Disconnected | None = None
    #: game ids already handed to a game screen
    started_games: set[str] = field(default_factory=set)
    #: called with (server identity, name, session) on every welcome
    on_session: Callable[[str, str, str], None] | None = None

    @property
    def name(self) -> str:
        return self.welcome.name if self.welcome else self.agent.name

    @property
    def connected(self) -> bool:
        return self.welcome is not None and self.failed is None

    def pump(self) -> None:
        for item in self.agent.poll():
            if isinstance(item, LobbyState):
                self.state = item
            elif isinstance(item, Welcomed):
                self.welcome = item.welcome
                if self.on_session is not None:
                    self.on_session(item.server, item.welcome.name, item.welcome.session)
                for game in item.welcome.games:
                    self._assigned(game)
            elif isinstance(item, Assigned):
                self._assigned(item.game)
            elif isinstance(item, ChallengeIn):
                self.challenges[item.challenge.challenge_id] = item.challenge
            elif isinstance(item, ChallengeSent):
                self.sent[item.challenge_id] = item.to
                self.notes.append(Note(tr("lobby.challenge_sent", name=item.to)))
            elif isinstance(item, ChallengeGone):
                self._challenge_gone(item.closed)
            elif isinstance(item, Disconnected):
                self.lost = item
            elif isinstance(item, Reconnected):
                self.lost = None
                self.notes.append(Note(tr("server_back")))
            elif isinstance(item, Failed):
                self.failed = item.text
            elif isinstance(item, Note | Refused):
                self.notes.append(item)

    def _challenge_gone(self, closed: ChallengeClosed) -> None:
        """A challenge ended without a game: say who and how, in plain words (a
        decline is news, not a success)."""
        received = self.challenges.pop(closed.challenge_id, None)
        to = self.sent.pop(closed.challenge_id, None)
        if received is not None:  # to us: its challenger withdrew it, or it expired
            name = received.challenger
            key = (
                "lobby.challenge_expired"
                if closed.how == "expired"
                else "lobby.challenge_withdrawn"
            )
        elif to is not None:  # ours: declined, or expired unanswered
            name = to
            key = {
                "declined": "lobby.challenge_declined",
                "expired": "lobby.challenge_expired",
            }.get(closed.how, "lobby.challenge_cancelled")
        else:
            return  # one we answered here: nothing new to say
        self.notes.append(Note(tr(key, name=name), plain=True))

    def _assigned(self, game: Assignment) -> None:
        if game.game_id in self.started_games:
            return
        if all(a.game_id != game.game_id for a in self.assignments):
            self.assignments.append(game)

    def next_assignment(self) -> Assignment | None:
        while self.assignments:
            game = self.assignments.popleft()
            if game.game_id not in self.started_games:
                self.started_games.add(game.game_id)
                return game
        return None

    def send(self, command: commands.LobbyCommand) -> None:
        self.agent.send(command)

    def accept(self, challenge_id: str) -> None:
        self.challenges.pop(challenge_id, None)
        self.send(commands.TakeChallenge(challenge_id))

    def decline(self, challenge_id: str) -> None:
        self.challenges.pop(challenge_id, None)
        self.send(commands.RefuseChallenge(challenge_id))

    def seek(self, seek: Seek) -> None:
        self.send(commands.PostSeek(seek))

    def close(self) -> None:
        self.agent.stop(wait=1.0)
