"""Networking for the GUI, over the one client connection (:mod:`lanqi.client.connection`).

The GUI thread never touches a socket and never waits: the connection's asyncio
loop, in a thread of its own, owns them all.

- :class:`GameAgent`: one game on a referee, as a player (seat + token) or a
  spectator: a :class:`~lanqi.table.remote.RemoteTable` on the process's connection
  (snapshot, then events in ``seq`` order, a fresh snapshot on a gap; the seat's
  heartbeats and the reconnects are the loop's).  Commands
  (:mod:`lanqi.gui.commands`) go to the table at once; :meth:`GameAgent.poll`, once
  per frame, says what the table heard as immutable :class:`ViewState` s and notices.
- :class:`LobbyAgent`: the matchmaker, on a connection of its own (the matchmaker
  knows a player by its connection) driven by one thread: hello (with the session
  saved for the server's key, whatever address reached it), the lobby lists,
  seeks, challenges, tournaments and standings, and the private pushes
  (``game_assigned``, ``challenge_received``); the live games of every referee
  the matchmaker names.
- :class:`LobbyLink`: the GUI-side end of a lobby agent: the latest lists and
  what is waiting to be handled.

A lost connection is a state, not a message: the agent says :class:`Disconnected`
when it loses its server and again after every failed try (the same ``since``, the
next ``next_try_at``), and :class:`Reconnected` once it is back, until then nothing
else.  The connection's socket monitors notice a closed TCP connection at once and
its ZMTP heartbeats a silent one; it reconnects by its one policy.
"""

from __future__ import annotations

import concurrent.futures
import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import zmq

from lanqi.client.connection import (
    RECONNECT,
    BlockingConnection,
    NoAnswer,
    checked,
    process_connection,
)
from lanqi.client.connection import Refused as ServerRefused
from lanqi.gamestate import GameState
from lanqi.gui import commands
from lanqi.gui.settings import saved_session
from lanqi.i18n import tr
from lanqi.protocol import (
    AcceptChallenge,
    AcceptDraw,
    AcceptTakeback,
    Assignment,
    CancelSeek,
    Challenge,
    ChallengeClosed,
    ChallengeCreated,
    ChallengeReceived,
    ChatRequest,
    CreateSeek,
    DeclineChallenge,
    DeclineDraw,
    DeclineTakeback,
    ErrorReply,
    GameAssigned,
    GamesList,
    GameSummary,
    GetStandings,
    Hello,
    JoinTournament,
    ListGames,
    ListPlayers,
    ListSeeks,
    ListTournaments,
    LobbyEvent,
    LobbySeekRemoved,
    Message,
    MoveRequest,
    OfferDraw,
    Ok,
    PlayerInfo,
    PlayersList,
    ReportResult,
    Request,
    RequestTakeback,
    Resign,
    ResultNoted,
    Seek,
    SeekCreated,
    SeekInfo,
    SeeksList,
    Snapshot,
    Standings,
    Sync,
    TournamentEvent,
    TournamentInfo,
    TournamentsList,
    TourRound,
    Welcome,
    WithdrawTournament,
)
from lanqi.protocol.endpoints import TOPIC_LOBBY, tour_topic
from lanqi.protocol.messages import _SeatAction
from lanqi.security import KnownServers, NoServerKey, SecurityError, server_identity
from lanqi.table.port import Answered, LinkChanged
from lanqi.table.remote import UNREACHABLE, RemoteTable

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

#: a game agent's tries to open its table again: the one reconnect policy's
FIRST_RETRY_S = RECONNECT.first
MAX_RETRY_S = RECONNECT.most
#: how long the lobby waits for a referee's game list
REFEREE_LIST_S = 1.5
LOBBY_REFRESH_S = 5.0
LOBBY_DIRTY_S = 0.2


def _refusal_text(refused: ServerRefused, name: str) -> str:
    """A refused hello in a player's words."""
    if refused.code == "name_taken":  # held by a session this GUI lost
        return tr("connect.name_taken", name=name)
    if refused.code == "bad_claim":  # words for players, not the director's
        return tr("connect.bad_claim", name=name)
    return refused.msg or refused.code


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
    #: players in all (a lobby of more than a page: ``players`` is its first page)
    players_total: int = 0
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


class GameAgent:
    """Plays (``seat`` + ``token``) or watches one game on a referee: a
    :class:`~lanqi.table.remote.RemoteTable` on the process's connection.

    No thread of its own: the connection's loop does the networking (heartbeats,
    snapshots, reconnects); :meth:`send` hands a command to the table at once and
    :meth:`poll`, once per frame, turns what the table heard into the GUI's words.
    ``start``/``stop``/``is_alive``/``join`` keep the shape of the agent thread it was.
    """

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
        connection: BlockingConnection | None = None,
    ) -> None:
        self.referee = referee
        self.referee_pub = referee_pub
        #: the referee's key as the matchmaker named it (None: asked at its key port)
        self.key = key
        self.game_id = game_id
        self.seat = seat if token else None
        self.token = token
        self.name = name
        self.timeout_ms = timeout_ms
        #: unused: the connection's loop owns every socket (kept for callers)
        self.context = context
        self.connection = connection
        self.table: RemoteTable | None = None
        self._opening: concurrent.futures.Future[RemoteTable] | None = None
        self._retry = FIRST_RETRY_S
        self._retry_at: float | None = None
        self._started = False
        self._stopped = False
        #: commands given before the table was open, sent once it is
        self._waiting: list[commands.GameCommand] = []
        #: request id -> the command it was sent for
        self._sent: dict[int, commands.GameCommand] = {}
        #: the last sign of life of our seat the referee took (monotonic)
        self._alive = 0.0
        self._snapshot: Snapshot | None = None
        self._abandon_at: tuple[float | None, ...] = ()
        self._abandon_after_ms = 0
        self._lost: Disconnected | None = None
        self._events: list[object] = []
        #: the ply of the last state handed to the screen, and whether it was over
        self._shown: tuple[int, bool] = (-1, False)

    # ------------------------------------------------------------ lifetime

    def start(self) -> None:
        """Open the table (on the connection's loop; :meth:`poll` tells how it went)."""
        if self._started:
            return
        self._started = True
        self._open()

    def _open(self) -> None:
        conn = self.connection or process_connection()
        self.connection = conn
        self._opening = conn.submit(
            conn.connection.open_table(
                game_id=self.game_id,
                referee=self.referee,
                events=self.referee_pub,
                key=self.key,
                seat=self.seat,
                token=self.token,
            )
        )

    def is_alive(self) -> bool:
        return self._started and not self._stopped

    def stop(self, wait: float = 0.0) -> None:
        """Stop following the game (the seat stays ours at the referee)."""
        self._stopped = True
        if self._opening is not None:
            self._opening.cancel()
        if self.table is not None:
            self.table.close()

    def join(self, timeout: float | None = None) -> None:
        """Nothing to wait for (there is no thread)."""

    # ------------------------------------------------------------ commands

    def send(self, command: commands.GameCommand) -> None:
        """Send ``command`` to the referee now (or once the table is open)."""
        if command.seated and self.token is None:
            self._events.append(Refused(command, "spectator", tr("spectators_cannot")))
            return
        if self.table is None:
            self._waiting.append(command)
            return
        request = GAME_REQUESTS[type(command)](self, command)
        self._sent[self.table.send(request)] = command

    # ------------------------------------------------------------ news

    def poll(self) -> list[object]:
        """Everything that happened since the last call, in the GUI's words (never waits)."""
        if not self._stopped:
            if self.table is None:
                self._check_opening()
            if self.table is not None:
                self._read(self.table)
        events, self._events = self._events, []
        return events

    def _check_opening(self) -> None:
        now = time.monotonic()
        if self._opening is None:
            if self._retry_at is not None and now >= self._retry_at:
                self._retry_at = None
                self._open()
            return
        if not self._opening.done():
            return
        opening, self._opening = self._opening, None
        if opening.cancelled():
            return
        error = opening.exception()
        if error is None:
            self.table = table = opening.result()
            self._alive = now
            self._took(table.snapshot)
            if self._lost is not None:
                log.info("game %s: the referee is back", self.game_id)
                self._events.append(Reconnected("referee", self._lost.since, self._state(table)))
                self._lost = None
            else:
                self._events.append(self._state(table))
            for command in self._waiting:
                self.send(command)
            self._waiting = []
        elif isinstance(error, Refused):
            self._stopped = True
            self._events.append(Failed(tr("referee_refused", why=error.msg or error.code)))
        elif isinstance(error, NoAnswer | NoServerKey):
            if self._lost is None:
                log.info("game %s: no referee (%s)", self.game_id, error)
            since = self._lost.since if self._lost is not None else now
            self._retry_at = now + self._retry
            self._lost = Disconnected("referee", since, self._retry_at, self._my_abandon_at())
            self._events.append(self._lost)
            self._retry = min(MAX_RETRY_S, self._retry * 2)
        elif isinstance(error, SecurityError):  # a referee this client must not trust
            self._stopped = True
            self._events.append(Failed(str(error)))
        else:
            raise error

    def _read(self, table: RemoteTable) -> None:
        if not table.has_news:
            return
        before = table.state
        changed = False
        for item in table.poll():
            if isinstance(item, LinkChanged):
                self._link(table, item)
                continue
            if table.link_up:
                self._alive = time.monotonic()
            changed = True
            if not isinstance(item, Answered):
                continue
            if isinstance(item.reply, Snapshot):
                self._took(item.reply)
            command = self._sent.pop(item.request.id, None)
            refusal = item.refusal
            if command is not None and refusal is not None:
                self._events.append(Refused(command, refusal.code, refusal.msg))
                table.send(Sync(game_id=self.game_id))
        after = table.state
        if any(
            was and not is_ for was, is_ in zip(before.connected, after.connected, strict=False)
        ):
            table.send(Sync(game_id=self.game_id))  # someone went away: how long they have
        if changed:
            self._events.append(self._state(table))

    def _link(self, table: RemoteTable, item: LinkChanged) -> None:
        if not item.up:
            if self._lost is None:
                log.info("game %s: lost the referee", self.game_id)
            since = self._lost.since if self._lost is not None else item.since
            next_try = item.retry_at if item.retry_at is not None else time.monotonic()
            self._lost = Disconnected("referee", since, next_try, self._my_abandon_at())
            self._events.append(self._lost)
        elif self._lost is not None:
            log.info("game %s: the referee is back", self.game_id)
            self._events.append(Reconnected("referee", self._lost.since, self._state(table)))
            self._lost = None

    def _took(self, snapshot: Snapshot | None) -> None:
        """A fresh snapshot: its abandonment countdowns start now.  Only a seat the
        snapshot shows away has one: a seat that was there when it was taken has
        since gone quiet at a moment it does not know, so its countdown waits for
        the next snapshot (asked for when the seat is seen going away)."""
        if snapshot is None or snapshot is self._snapshot:
            return
        now = time.monotonic()
        self._snapshot = snapshot
        away = [not there for there in snapshot.connected]
        self._abandon_at = tuple(
            now + ms / 1000.0 if i < len(away) and away[i] else None
            for i, ms in enumerate(snapshot.abandon_in_ms)
        )
        self._abandon_after_ms = snapshot.abandon_after_ms

    def _my_abandon_at(self) -> float | None:
        """When the referee would end the game as abandoned, counted from our seat's
        last sign of life it took (None: not seated, or the referee did not say)."""
        if self.seat is None or not self._abandon_after_ms or not self._alive:
            return None
        return self._alive + self._abandon_after_ms / 1000.0

    def _state(self, table: RemoteTable) -> ViewState:
        state = table.state
        shown = (state.ply, state.finished)
        if shown != self._shown:  # what the screen is handed (tests/net reads it)
            self._shown = shown
            if state.finished:
                log.debug(
                    "game %s: over at ply %d (%s)", self.game_id, state.ply, state.termination
                )
            else:
                log.debug(
                    "game %s: at ply %d, seat %s to move", self.game_id, *shown[:1], state.to_move
                )
        away = tuple(
            at if state.status != "finished" and not state.connected[i] else None
            for i, at in enumerate(self._abandon_at[: len(state.connected)])
        )
        return ViewState(state, time.monotonic(), away, self._abandon_after_ms)

    # ------------------------------------------------------------ requests

    def _token(self) -> str:
        assert self.token is not None  # seated commands only reach here with a token
        return self.token

    def _move(self, command: commands.PlayMove) -> Request:
        return MoveRequest(
            game_id=self.game_id, token=self._token(), ply=command.ply, move=command.move
        )

    def _say(self, command: commands.Say) -> Request:
        return ChatRequest(
            game_id=self.game_id, text=command.text, token=self.token, name=self.name
        )

    def _seat_request(self, command: commands.GameCommand) -> Request:
        return SEAT_REQUESTS[type(command)](game_id=self.game_id, token=self._token())


#: the seat's requests without arguments: command type -> the protocol's request
SEAT_REQUESTS: dict[type[commands.GameCommand], type[_SeatAction]] = {
    commands.Resign: Resign,
    commands.OfferDraw: OfferDraw,
    commands.AcceptDraw: AcceptDraw,
    commands.DeclineDraw: DeclineDraw,
    commands.AskTakeback: RequestTakeback,
    commands.AcceptTakeback: AcceptTakeback,
    commands.DeclineTakeback: DeclineTakeback,
}

#: command type -> the request the game agent sends for it
GAME_REQUESTS: dict[type[commands.GameCommand], Callable[[GameAgent, Any], Request]] = {
    commands.PlayMove: GameAgent._move,
    commands.Say: GameAgent._say,
    **dict.fromkeys(SEAT_REQUESTS, GameAgent._seat_request),
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
        self._conn: BlockingConnection | None = None
        #: the matchmaker does not answer (since when, the next try), or None
        self._lost: Disconnected | None = None
        self._state = LobbyState()
        self._watched: set[str] = set()
        self._dirty = True
        self._last_refresh = 0.0
        self._my_seeks: list[str] = []
        #: the link came back and the lists were not taken since (logged when they are)
        self._back = False

    # ------------------------------------------------------------ thread

    def run(self) -> None:
        conn = BlockingConnection(
            self.endpoint,
            events=self.events_endpoint,
            key=self.key,
            known=self.known,
            name="lanqi-lobby",
        )
        self._conn = conn
        try:
            if self._enter(conn):
                self._serve(conn)
        except SecurityError as exc:  # a server this client must not trust
            self.events.put(Failed(str(exc)))
        finally:
            conn.close()

    def _enter(self, conn: BlockingConnection) -> bool:
        """Say hello (the session saved for the server, else a claim code); False:
        the agent has stopped and said why."""
        wait = self.timeout_ms / 1000
        try:
            link = conn.run(conn.connection.matchmaker_link(), wait + 1)
            if self.server_id is None:  # the first connection: the session saved for it
                self.server_id = server_identity(link, self.endpoint)
                if self.session is None:
                    self.session = saved_session(
                        self.saved, self.server_id, self.name, address=self.endpoint
                    )
            while True:
                hello = Hello(name=self.name, claim=self.claim)
                if not self.claim:
                    hello = Hello(name=self.name, session=self.session)
                try:
                    welcome = conn.call(hello, Welcome, wait)
                    conn.connection.welcomed(hello, welcome)
                    break
                except ServerRefused as exc:
                    if exc.code == "bad_session" and self.session is not None:
                        self.session = None
                        continue
                    self.events.put(Failed(_refusal_text(exc, self.name)))
                    return False
            self._welcomed(conn, welcome)
            return True
        # before SecurityError: a silent key port (NoServerKey) is a server away
        except (NoAnswer, NoServerKey):
            self.events.put(Failed(tr("connect.no_answer", server=self.endpoint)))
            return False

    def _welcomed(self, conn: BlockingConnection, welcome: Welcome) -> None:
        """A welcome (the first, or one after the link came back): the lists, the
        referees, the topics."""
        self.session, self.claim = welcome.session, None
        self.name = welcome.name
        try:
            named = [(r.endpoint, r.events, r.key) for r in conn.server_info().referees]
        except ServerRefused as exc:  # a server older than server_info
            log.info("the server names no referee (%s)", exc)
            named = []
        #: each named referee's key, as the matchmaker vouches for it
        self._referee_keys = {(endpoint, events): key for endpoint, events, key in named}
        override = [(self.referee, self.referee_pub)] if self.referee and self.referee_pub else []
        self.referees = tuple(dict.fromkeys([*override, *((e, v) for e, v, _ in named)]))
        self.events.put(Welcomed(welcome, self.server_id or self.endpoint))
        conn.subscribe(TOPIC_LOBBY)
        for tournament_id in self._watched:
            conn.subscribe(tour_topic(tournament_id))
        self._dirty = True

    @property
    def referee_endpoints(self) -> tuple[str, str] | None:
        """The first referee games are listed and watched on, once known."""
        return self.referees[0] if self.referees else None

    def _serve(self, conn: BlockingConnection) -> None:
        while not self.stop_event.is_set():
            for item in conn.inbox(0.03):
                self._on_inbox(conn, item)
            for command in _drain(self.commands):
                self._do(conn, command)
            now = time.monotonic()
            if self._lost is None and (
                (self._dirty and now - self._last_refresh >= LOBBY_DIRTY_S)
                or now - self._last_refresh >= LOBBY_REFRESH_S
            ):
                try:
                    self._refresh(conn)
                except NoAnswer as exc:
                    log.debug("lobby lists: %s", exc)

    def _on_inbox(self, conn: BlockingConnection, item: object) -> None:
        if isinstance(item, LinkChanged):
            if not item.up:
                if self._lost is None:
                    log.info("lobby: lost the matchmaker; the connection retries")
                since = self._lost.since if self._lost is not None else item.since
                next_try = item.retry_at if item.retry_at is not None else time.monotonic()
                self._lost = Disconnected("matchmaker", since, next_try)
                self.events.put(self._lost)
            return
        if isinstance(item, Welcome):  # said again by the connection: the link is back
            if self._lost is not None:
                log.info("lobby: the matchmaker is back")
                self.events.put(Reconnected("matchmaker", self._lost.since))
                self._lost = None
                self._back = True
            self._welcomed(conn, item)
        elif isinstance(item, ErrorReply):  # the hello said again was refused
            if item.code == "bad_session":
                self.session = None
                conn.post(Hello(name=self.name), welcome=True)
            else:
                self.events.put(
                    Failed(_refusal_text(ServerRefused(item.code, item.msg), self.name))
                )
                self.stop_event.set()
        elif isinstance(item, LobbyEvent | TournamentEvent):
            self._on_event(item)
        elif isinstance(item, Message) and not isinstance(item, Answered):
            self._on_push(item)

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

    def _refresh(self, client: BlockingConnection) -> None:
        self._dirty = False
        self._last_refresh = time.monotonic()
        # the first page (online players first); ``total`` says if there are more
        page = client.call(ListPlayers(), PlayersList)
        players = page.players
        seeks = client.call(ListSeeks(), SeeksList).seeks
        tournaments = client.call(ListTournaments(), TournamentsList).tournaments
        standings = []
        for tournament_id in sorted(self._watched):
            try:
                standings.append(client.call(GetStandings(tournament_id=tournament_id), Standings))
            except ServerRefused as exc:
                log.debug("standings of %s: %s", tournament_id, exc)
        games: list[GameSummary] = []
        where: list[tuple[str, tuple[str, str]]] = []
        referee_ok = True
        for endpoints in self.referees:
            try:
                reply = client.referee_request(
                    endpoints[0],
                    ListGames(status="active"),
                    key=self._referee_keys.get(endpoints),
                    timeout=REFEREE_LIST_S,
                )
                listed = checked(reply, GamesList).games
            except (NoAnswer, NoServerKey, ServerRefused) as exc:
                log.debug("no game list from the referee %s: %s", endpoints[0], exc)
                referee_ok = False
                continue
            games.extend(listed)
            where.extend((game.game_id, endpoints) for game in listed)
        live = {s.seek_id for s in seeks}
        self._my_seeks = [s for s in self._my_seeks if s in live]
        self._state = LobbyState(
            players=tuple(players),
            players_total=page.total if page.total is not None else len(players),
            seeks=tuple(seeks),
            tournaments=tuple(tournaments),
            standings=tuple(standings),
            games=tuple(games),
            my_seeks=tuple(self._my_seeks),
            referee_ok=referee_ok,
            where=tuple(where),
        )
        self.events.put(self._state)
        online = sum(1 for p in players if p.online)
        if self._back:  # the first lists after the link came back
            self._back = False
            log.info("lobby: %d players listed again, %d online", len(players), online)
        log.debug(
            "lobby lists: %d players (%d online), %d seeks, %d live games",
            len(players), online, len(seeks), len(games),
        )  # fmt: skip

    def _do(self, client: BlockingConnection, command: commands.LobbyCommand) -> None:
        try:
            LOBBY_HANDLERS[type(command)](self, client, command)
        except ServerRefused as exc:
            self.events.put(Refused(command, exc.code, exc.msg))
        except NoAnswer as exc:  # the link is down: the connection is retrying
            self.events.put(Refused(command, UNREACHABLE, str(exc)))
        self._dirty = True

    def _post_seek(self, client: BlockingConnection, command: commands.PostSeek) -> None:
        reply = client.call(CreateSeek(seek=command.seek), SeekCreated)
        if not reply.paired:
            self._my_seeks.append(reply.seek_id)

    def _drop_seek(self, client: BlockingConnection, command: commands.DropSeek) -> None:
        client.call(CancelSeek(seek_id=command.seek_id), Ok)
        if command.seek_id in self._my_seeks:
            self._my_seeks.remove(command.seek_id)

    def _challenge(self, client: BlockingConnection, command: commands.SendChallenge) -> None:
        reply = client.call(Challenge(to=command.to, seek=command.seek), ChallengeCreated)
        self.events.put(ChallengeSent(reply.challenge_id, command.to))

    def _accept(self, client: BlockingConnection, command: commands.TakeChallenge) -> None:
        client.call(AcceptChallenge(challenge_id=command.challenge_id), Ok)

    def _decline(self, client: BlockingConnection, command: commands.RefuseChallenge) -> None:
        client.call(DeclineChallenge(challenge_id=command.challenge_id), Ok)

    def _join(self, client: BlockingConnection, command: commands.EnterTournament) -> None:
        self._watch(client, command.tournament_id)
        client.call(JoinTournament(tournament_id=command.tournament_id), Ok)
        self.events.put(Note(tr("lobby.in_tournament")))

    def _report(self, client: BlockingConnection, command: commands.ReportBoardResult) -> None:
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

    def _withdraw(self, client: BlockingConnection, command: commands.LeaveTournament) -> None:
        client.call(WithdrawTournament(tournament_id=command.tournament_id), Ok)

    def _follow(self, client: BlockingConnection, command: commands.FollowTournament) -> None:
        self._watch(client, command.tournament_id)

    def _refresh_now(self, client: BlockingConnection, command: commands.Refresh) -> None:
        """Nothing to send: every command marks the lists for a refresh."""

    def _watch(self, client: BlockingConnection, tournament_id: str) -> None:
        if tournament_id not in self._watched:
            self._watched.add(tournament_id)
            client.subscribe(tour_topic(tournament_id))


#: command type -> what the lobby agent does with it
LOBBY_HANDLERS: dict[
    type[commands.LobbyCommand], Callable[[LobbyAgent, BlockingConnection, Any], None]
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
