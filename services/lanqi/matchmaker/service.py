"""The matchmaker service: lobby and tournaments in front of one or more referees.

One loop polls the client ROUTER and every referee link (DEALER replies and SUB
results).  Clients say ``hello`` first; the reply carries a session token that
keeps their identity across reconnects.  Pairing a seek, an accepted challenge
or a tournament round turns into a ``create_game`` to the least busy referee,
with a game id chosen here so that a retry cannot make a second game (see
:mod:`lanqi.matchmaker.referees`); when it answers, each player is sent a private
``game_assigned`` with its seat token.  Results come from the referees' ``results``
topic and from ``results_since`` (reconciling: after a restart, on a gap in ``result_seq``, and
every few seconds while games are in progress), and are recorded once per game,
scored by :mod:`lanqi.tournament.scoring`.  A referee that answers ``internal``
(its store failing for a while) is asked again after a back-off.  Tournaments are
the :class:`~lanqi.matchmaker.director.Director`'s, which sees this service only
through a :class:`~lanqi.matchmaker.director.TournamentHost`.
"""

from __future__ import annotations

import dataclasses
import logging
import secrets
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

import zmq

from lanqi.matchmaker.claims import claim_hash
from lanqi.matchmaker.director import Director, TournamentHost
from lanqi.matchmaker.errors import MatchmakerError
from lanqi.matchmaker.guard import Guard, Strikes
from lanqi.matchmaker.lobby import (
    COLORS,
    OpenChallenge,
    OpenSeek,
    check_game,
    compatible,
    seats_for,
)
from lanqi.matchmaker.ratings_book import rate_game
from lanqi.matchmaker.referees import SAME_REFEREE_ATTEMPTS, GameOrder, RefereeLink, new_game_id
from lanqi.matchmaker.store import GameRecord, MatchmakerStore, PlayerRecord
from lanqi.protocol import (
    MAX_MESSAGE_BYTES,
    AcceptChallenge,
    Assignment,
    CancelChallenge,
    CancelSeek,
    Challenge,
    ChallengeClosed,
    ChallengeCreated,
    ChallengeReceived,
    CheckIn,
    CreateGame,
    CreateSeek,
    CreateTournament,
    DeclineChallenge,
    DeleteTournament,
    ErrorReply,
    ExportTournament,
    FinishTournament,
    ForbidPair,
    GameAssigned,
    GameCreated,
    GameResult,
    GetServerInfo,
    GetStandings,
    Hello,
    ImportEntrants,
    JoinTournament,
    ListLockouts,
    ListPlayers,
    ListSeeks,
    ListTournaments,
    LobbyChallenge,
    LobbyPaired,
    LobbyPresence,
    LobbySeekAdded,
    LobbySeekRemoved,
    Lockout,
    LockoutsList,
    Message,
    MutePlayer,
    Ok,
    PairRound,
    PauseTournament,
    Ping,
    PlayerInfo,
    PlayerKind,
    PlayersList,
    ProtocolError,
    ReclaimName,
    ReclaimTournament,
    RefereeEndpoints,
    RemovePlayer,
    ReportResult,
    RequestBye,
    ResultsList,
    ResumeTournament,
    Seek,
    SeekCreated,
    SeekInfo,
    SeeksList,
    ServerInfo,
    SharedReply,
    StartTournament,
    Unlock,
    Welcome,
    WithdrawTournament,
    decode_payload,
    decode_request,
    encode,
    encode_event,
    error_for,
    packed_list,
    packed_struct,
    termination_label,
)
from lanqi.protocol.endpoints import (
    MATCHMAKER_PORT,
    MATCHMAKER_PUB_PORT,
    TOPIC_LOBBY,
    with_host,
)
from lanqi.security import KeyPair, KnownServers, server_keys
from lanqi.security.known import KNOWN_SERVERS_FILE
from lanqi.server.gate import ShutOut
from lanqi.server.limits import LOCAL_ADDRESSES, ConnectionCap, Limits, RequestBuckets, Verdict
from lanqi.server.sockets import SecureSockets, bind_tcp
from lanqi.tournament.model import TournamentError
from lanqi.tournament.scoring import score_game

__all__ = ["MatchmakerConfig", "MatchmakerError", "MatchmakerService"]

log = logging.getLogger(__name__)

IDLE_POLL_MS = 200
MAX_BATCH = 256
CREATE_TIMEOUT_MS = 5_000.0
RECONCILE_PAGE = 200
MAX_WELCOME_GAMES = 64  # as many as a welcome may carry
#: while games are in progress (or a referee has not answered the reconcile at start),
#: ask it this often for results we did not hear on its ``results`` topic: PUB/SUB may
#: drop, and a dropped last result shows no gap in ``result_seq``
RECONCILE_EVERY_MS = 2_000.0
#: a ``create_game`` the referee answers ``internal`` (its store failing for a while)
#: is sent again after this long, doubling, up to MAX_CREATE_FAILURES answers in all;
#: then a lobby game fails (``game_failed``) and a tournament retries it later
CREATE_RETRY_MS = 200.0
MAX_CREATE_FAILURES = 5
#: results of games whose ``create_game`` is still unanswered, kept until it is
MAX_EARLY_RESULTS = 256
#: silent clients are looked for this often, not at every turn of the loop: the look
#: walks every client, and a crowd turns the loop thousands of times a second
#: (``lanqi bench crowd``; docs/bench.md)
PRESENCE_CHECK_MS = 500.0
#: pages of the lobby's players kept encoded (offset, limit) until the list changes
MAX_SHARED_PAGES = 16
#: the lobby's player list is built again after a change, but at most this often:
#: less than the GUI's wait after lobby news before it reads the list again (0.2 s),
#: so the list a GUI reads after news always holds that news
LIST_REBUILD_MS = 150.0
#: a seek withdrawn because its player fell silent (shown offline) is put back when
#: the same connection is heard from again within this long (``_put_back_seeks``)
SEEK_KEPT_MS = 300_000.0


@dataclass(slots=True)
class MatchmakerConfig:
    host: str = "127.0.0.1"
    port: int = MATCHMAKER_PORT
    pub_port: int = MATCHMAKER_PUB_PORT
    data_dir: Path = field(default_factory=lambda: Path("lanqi-data"))
    referees: list[RefereeLink] = field(default_factory=list)
    director_key: str = ""
    referee_admin_key: str | None = None
    presence_timeout_ms: float = 15_000.0
    durable: bool = False
    #: the host clients are told to reach the event endpoint at (None: the bound one;
    #: a wildcard or loopback host there means "the host you reached me at")
    advertise: str | None = None
    #: plain ZeroMQ instead of CURVE on its own sockets (``--insecure``)
    insecure: bool = False
    #: the key pair (None: the data directory's, made on first start); also the
    #: client key its referee links present
    keys: KeyPair | None = None
    #: the key port (None: the request port + 4; 0: a free port)
    key_port: int | None = None
    #: where referee keys are pinned (None: ``known_servers`` in the data directory)
    known: KnownServers | None = None
    #: the event's name, told by the key port
    name: str = ""
    #: client addresses limited per name only, not per address (besides this
    #: machine's): a web gateway on another machine speaks for many people
    trusted_addresses: tuple[str, ...] = ()
    #: the limits on people who try things (``--limit``)
    limits: Limits = field(default_factory=Limits)

    @property
    def db_path(self) -> Path:
        return self.data_dir / "matchmaker.sqlite3"


@dataclass(slots=True)
class _Client:
    player_id: str
    identity: bytes
    last_seen: float
    online: bool = True


@dataclass(frozen=True, slots=True)
class _PlayersList:
    """The lobby's players as of ``version`` (store changes, presence version),
    built at ``built_at`` (ms): online ones first, each by name, with its encoding;
    by name; how many are online; the pages asked for so far (offset, limit), each
    encoded once."""

    version: tuple[int, int]
    built_at: float
    entries: list[tuple[PlayerInfo, bytes]]
    by_name: dict[str, tuple[PlayerInfo, bytes]]
    online: int
    pages: dict[tuple[int, int], tuple[PlayersList, SharedReply]] = field(default_factory=dict)


def _now_ms() -> float:
    return time.monotonic() * 1000.0


def _wall_ms() -> int:
    return int(time.time() * 1000)


class MatchmakerService:
    """The lobby, the tournaments and the referee links, in one loop."""

    def __init__(self, config: MatchmakerConfig, context: zmq.Context[Any] | None = None) -> None:
        if not config.referees:
            raise ValueError("the matchmaker needs at least one referee")
        if not config.director_key:
            raise ValueError("the matchmaker needs a director key")
        self.config = config
        self.context = context or zmq.Context.instance()
        self.store = MatchmakerStore(config.db_path, durable=config.durable)
        self.router: zmq.Socket[bytes] | None = None
        self.pub: zmq.Socket[bytes] | None = None
        self.security: SecureSockets | None = None
        self.endpoint = ""
        self.pub_endpoint = ""
        self.clients: dict[str, _Client] = {}  # player id -> client
        self.by_identity: dict[bytes, str] = {}  # router identity -> player id
        self.seeks: dict[str, OpenSeek] = {}
        #: seeks withdrawn while their player was shown offline, by player id: (when, seek)
        self._withdrawn: dict[str, list[tuple[float, OpenSeek]]] = {}
        self.challenges: dict[str, OpenChallenge] = {}
        self.guard = Guard(
            trusted=LOCAL_ADDRESSES | frozenset(config.trusted_addresses),
            limits=config.limits,
            saved=self._save_strikes,
        )
        self._restore_strikes()
        #: the per-address connection caps of the request and event ports (after bind)
        self.caps: list[ConnectionCap] = []
        #: the requests each address may send (checked before a request is decoded)
        self.requests = RequestBuckets(
            config.limits.requests_per_address,
            config.limits.request_burst,
            self.guard.trusted,
            shut_out=config.limits.shut_out_first_s > 0,
        )
        #: the address of the client whose request is being handled ("" unknown)
        self._peer = ""
        self.director = Director(
            self.store,
            config.director_key,
            TournamentHost(
                publish=self.publish,
                create_game=self.create_game,
                player_of=self.player_of,
                now=_now_ms,
                reconciled=self.reconciled,
                sign_out=self.sign_out,
            ),
        )
        self._stopping = False
        self._reconciled: set[str] = set()
        self._next_reconcile = 0.0
        self._next_presence_check = 0.0
        #: changes to who is online (a client added, gone, shown on- or offline)
        self._presence_version = 0
        #: the lobby's player list as of (store changes, presence version)
        self._players_list: _PlayersList | None = None
        #: the players and their ratings as of the store's changes (by name)
        self._records: tuple[int, list[tuple[PlayerRecord, dict[str, float]]]] | None = None
        #: each player's list entry and its encoding, by (player id, online), kept
        #: while the entry stays the same
        self._entries: dict[tuple[str, bool], tuple[PlayerInfo, bytes]] = {}
        #: orders whose create_game is unanswered (or waits to be sent again), by game id
        self._in_flight: dict[str, GameOrder] = {}
        #: orders to send again after an ``internal`` answer: (when, order)
        self._create_retries: list[tuple[float, GameOrder]] = []
        #: results heard for an in-flight game (its reply was lost, the retry is out)
        self._early_results: dict[str, tuple[str, GameResult]] = {}
        self._handlers: dict[type[Message], Callable[[Any, bytes, float], Message]] = {
            Hello: self._hello,
            Ping: self._ping,
            GetServerInfo: self._server_info,
            ListPlayers: self._list_players,
            CreateSeek: self._seek,
            CancelSeek: self._cancel_seek,
            ListSeeks: self._list_seeks,
            Challenge: self._challenge,
            AcceptChallenge: self._accept_challenge,
            DeclineChallenge: self._decline_challenge,
            CancelChallenge: self._cancel_challenge,
            ListLockouts: self._lockouts,
            Unlock: self._unlock,
            MutePlayer: self._mute,
            RemovePlayer: self._remove,
            CreateTournament: self.director.create,
            JoinTournament: self.director.join,
            ReclaimTournament: self.director.reclaim,
            ReclaimName: self.director.reclaim_name,
            WithdrawTournament: self.director.withdraw,
            StartTournament: self.director.start,
            PauseTournament: self.director.pause,
            ResumeTournament: self.director.resume,
            FinishTournament: self.director.finish,
            DeleteTournament: self.director.delete,
            ListTournaments: self.director.list_all,
            GetStandings: self.director.standings,
            ExportTournament: self.director.export,
            ImportEntrants: self.director.import_entrants,
            ForbidPair: self.director.forbid,
            PairRound: self.director.pair_round,
            CheckIn: self.director.check_in,
            ReportResult: self.director.report_result,
            RequestBye: self.director.request_bye,
        }

    # ------------------------------------------------------------ lifecycle

    def bind(self) -> None:
        config = self.config
        keys = config.keys or server_keys(config.data_dir)
        known = config.known or KnownServers(config.data_dir / KNOWN_SERVERS_FILE)
        for link in config.referees:  # first: a referee whose key cannot be trusted stops us
            link.admin_key = config.referee_admin_key
            link.connect(self.context, keys, known if link.key is None else None)
        self.security = SecureSockets(
            self.context,
            None if config.insecure else keys,
            service="matchmaker",
            key_port=config.key_port,
            name=config.name,
        )
        router = self.context.socket(zmq.ROUTER)
        router.setsockopt(zmq.LINGER, 0)
        router.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)
        router.setsockopt(zmq.ROUTER_HANDOVER, 1)
        pub = self.context.socket(zmq.PUB)
        pub.setsockopt(zmq.LINGER, 0)
        self.security.server(pub)
        self.router, self.pub = router, pub
        self.endpoint = self.security.bind_requests(router, config.host, config.port)
        self.pub_endpoint = bind_tcp(pub, config.host, config.pub_port)
        most = config.limits.connections_per_address
        self.caps = [ConnectionCap(s, most, self.guard.trusted) for s in (router, pub)]
        for game in self.store.games(status="playing"):
            busy = self._link(game.referee)
            if busy is not None:
                busy.games_in_progress += 1
        self.reconcile()
        self.director.resume_all()
        log.info("matchmaker listening on %s, publishing on %s", self.endpoint, self.pub_endpoint)

    def _save_strikes(self, kind: str, target: str, strikes: Strikes | None) -> None:
        """Store the wrong codes of a name or an address (the lock-out in wall-clock
        time), so that a restart does not lift it."""
        row = None
        if strikes is not None:
            until = _wall_ms() + max(0, round(strikes.until - _now_ms()))
            row = (strikes.failures, strikes.locks, until if strikes.until else 0)
        self.store.save_strikes(kind, target, row)

    def _restore_strikes(self) -> None:
        now, wall = _now_ms(), _wall_ms()
        for kind, target, failures, locks, until in self.store.strikes():
            left = max(0, until - wall) if until else 0
            self.guard.restore(kind, target, Strikes(failures, locks, now + left if left else 0.0))

    def reconcile(self) -> None:
        """Ask every referee for the results recorded since our cursor."""
        self._next_reconcile = _now_ms() + RECONCILE_EVERY_MS
        for link in self.config.referees:
            self._ask_results(link, self.store.referee_cursor(link.name))

    def _ask_results(self, link: RefereeLink, after: int) -> None:
        try:  # never block the loop on a referee that is down (its queue may be full)
            link.ask_results(after, RECONCILE_PAGE, _now_ms())
        except zmq.Again:
            log.warning(
                "referee %s is not taking requests; results are asked again later", link.name
            )

    def stop(self) -> None:
        self._stopping = True

    @property
    def public_key(self) -> str | None:
        """The CURVE public key clients connect with (after :meth:`bind`; None: plain)."""
        if self.security is None or self.security.keys is None:
            return None
        return self.security.keys.public.decode("ascii")

    @property
    def key_endpoint(self) -> str:
        """The key port's endpoint (after :meth:`bind`)."""
        return self.security.key_endpoint if self.security is not None else ""

    def close(self) -> None:
        for cap in self.caps:
            cap.close()
        self.caps = []
        for socket in (self.router, self.pub):
            if socket is not None:
                socket.close(linger=0)
        if self.security is not None:
            self.security.close()
        for link in self.config.referees:
            link.close()
        self.store.close()

    def serve_forever(self) -> None:
        if self.router is None:
            self.bind()
        assert self.router is not None
        assert self.security is not None
        keys = self.security.responder
        poller = zmq.Poller()
        poller.register(self.router, zmq.POLLIN)
        poller.register(keys.socket, zmq.POLLIN)
        for link in self.config.referees:
            assert link.dealer is not None and link.sub is not None
            poller.register(link.dealer, zmq.POLLIN)
            poller.register(link.sub, zmq.POLLIN)
        for cap in self.caps:
            poller.register(cap.monitor, zmq.POLLIN)
        while not self._stopping:
            ready = dict(poller.poll(IDLE_POLL_MS))
            for cap in self.caps:
                if cap.monitor in ready:
                    cap.handle()
                else:
                    cap.tick()
            if self.router in ready:
                self._drain_clients()
            if keys.socket in ready:
                keys.handle()
            for link in self.config.referees:
                if link.dealer in ready:
                    self._drain_referee_replies(link)
                if link.sub in ready:
                    self._drain_results(link)
            self.run_timers()

    # ------------------------------------------------------------ client side

    def _drain_clients(self) -> None:
        assert self.router is not None
        for _ in range(MAX_BATCH):
            try:
                parts = self.router.recv_multipart(zmq.NOBLOCK, copy=False)
            except zmq.Again:
                return
            if len(parts) < 2:
                continue
            address = str(parts[-1].get("Peer-Address") or "")
            verdict = self.requests.take(address, time.monotonic())
            if verdict is Verdict.DROP:
                continue
            if verdict is Verdict.SHUT_OUT:
                self._shut_out(address)
                continue
            frames = [part.bytes for part in parts]
            identity = frames[0]
            if verdict is Verdict.REFUSE:
                answer = self.requests.refusal(address, frames[1:])
                self.router.send_multipart([identity, *answer], zmq.NOBLOCK)
                continue
            reply = self.handle(identity, frames[1:], address)
            self.router.send_multipart([identity, *self._encode_reply(reply)])

    def _shut_out(self, address: str) -> None:
        """``address`` floods: shut it out (:mod:`lanqi.server.gate`)."""
        assert self.security is not None
        self.security.gate.shut_out_flood(address, self.requests, self.caps, self.config.limits)

    def handle(self, identity: bytes, frames: list[bytes], address: str = "") -> Message:
        """Decode and dispatch one client request from ``address`` (its IP address;
        "" unknown); never raises for bad input."""
        request_id: int | None = None
        self._peer = address
        try:
            request = decode_request(frames, self._handlers, "matchmaker")
            request_id = getattr(request, "id", None)
            handler = self._handlers[type(request)]
            now = _now_ms()
            self._seen(identity, now)
            return handler(request, identity, now)
        except ProtocolError as exc:
            return error_for(exc)
        except MatchmakerError as exc:
            return ErrorReply(re=request_id, code=exc.code, msg=exc.msg[:500])
        except TournamentError as exc:  # the pairing rules refused (options, players)
            return ErrorReply(re=request_id, code="bad_request", msg=str(exc)[:500])
        except Exception:  # a bug must cost one request, never the service
            log.exception("internal error handling a request")
            return ErrorReply(re=request_id, code="internal", msg="internal error; see the log")

    def push(self, player_id: str, message: Message) -> bool:
        """Send a private message to a player's connection; False if it has none.

        A player shown offline (silent for a while) may still be connected, so the
        message is sent anyway; a connection that is gone drops it, and the player
        finds its games again in the ``welcome`` of its next ``hello``.
        """
        client = self.clients.get(player_id)
        if client is None or self.router is None:
            return False
        try:
            self.router.send_multipart([client.identity, *encode(message)], zmq.NOBLOCK)
        except zmq.ZMQError:
            return False
        return True

    def publish(self, topic: str, message: Message) -> None:
        assert self.pub is not None
        self.pub.send_multipart(encode_event(topic, message))

    def player_of(self, identity: bytes) -> PlayerRecord:
        player_id = self.by_identity.get(identity)
        record = self.store.player(player_id) if player_id else None
        if record is None:
            raise MatchmakerError("no_session", "say hello first")
        return record

    def _seen(self, identity: bytes, now: float) -> None:
        player_id = self.by_identity.get(identity)
        client = self.clients.get(player_id) if player_id else None
        if client is not None:
            client.last_seen = now
            if not client.online:
                client.online = True
                self._presence_version += 1
                self.publish(
                    TOPIC_LOBBY,
                    LobbyPresence(player=self._name(player_id), online=True),
                )
                self._put_back_seeks(client.player_id, now)

    def players_online(self) -> int:
        """How many players are online in the lobby.  Safe to ask from another thread
        (the LAN announcer's): the snapshot of the clients is taken in one step."""
        return sum(1 for client in tuple(self.clients.values()) if client.online)

    def _name(self, player_id: str | None) -> str:
        record = self.store.player(player_id) if player_id else None
        return record.name if record else ""

    # ------------------------------------------------------------ lobby handlers

    def _hello(self, request: Hello, identity: bytes, now: float) -> Message:
        name = request.name.strip()
        if not name or not name.isprintable():
            raise MatchmakerError("bad_request", "a name must be printable and not empty")
        if request.kind not in get_args(PlayerKind):
            raise MatchmakerError("bad_request", "kind must be human or bot")
        engine = (request.engine or "").strip() or None
        if engine is not None and not engine.isprintable():
            raise MatchmakerError("bad_request", "an engine name must be printable")
        record = None
        if request.claim is not None:
            record = self._claim(name, request.claim, now)
        elif request.session is not None:
            record = self.store.player_by_session(request.session)
            if record is None:
                raise MatchmakerError("bad_session", "unknown session; say hello without one")
        else:
            existing = self.store.player_by_name(name)
            if existing is not None and existing.claimable:
                raise MatchmakerError(
                    "claim_needed",
                    f"{existing.name!r} is on a tournament roster; say hello with the claim "
                    "code the director gave you",
                )
            if existing is not None:
                raise MatchmakerError(
                    "name_taken",
                    f"{existing.name!r} is taken; if it is yours, ask the director for a claim"
                    f" code (lanqi reclaim {existing.name}) and say hello with it",
                )
            self.guard.new_name(self._peer, now)
            record = PlayerRecord(
                player_id=uuid.uuid4().hex[:12],
                name=name,
                kind=request.kind,
                session=secrets.token_urlsafe(18),
                engine=engine,
            )
            self.store.add_player(record, _wall_ms())
        if record.player_id in self.guard.removed:
            raise MatchmakerError(
                "removed", f"the director removed {record.name!r} from the lobby; ask them"
            )
        if (record.kind, record.engine) != (request.kind, engine):
            self.store.set_kind(record.player_id, request.kind, engine)
        old = self.clients.get(record.player_id)
        if old is not None and old.identity != identity:
            self.by_identity.pop(old.identity, None)
        if old is None or old.identity != identity:  # a new connection: it knows no seek ids
            self._withdrawn.pop(record.player_id, None)
        previous = self.by_identity.get(identity)
        if previous is not None and previous != record.player_id:
            self.clients.pop(previous, None)  # this connection now speaks for another player
            self._presence_version += 1
        self.clients[record.player_id] = _Client(record.player_id, identity, now)
        self._presence_version += 1
        self.by_identity[identity] = record.player_id
        self.publish(TOPIC_LOBBY, LobbyPresence(player=record.name, online=True))
        games = [
            self._assignment(g, g.player_ids.index(record.player_id))
            for g in self.store.games(status="playing")
            if record.player_id in g.player_ids
        ][-MAX_WELCOME_GAMES:]
        return Welcome(
            re=request.id,
            player_id=record.player_id,
            session=record.session,
            name=record.name,
            games=games,
        )

    def _claim(self, name: str, code: str, now: float) -> PlayerRecord:
        """Take over a roster entry with its claim code (used up here); a name or an
        address with too many wrong codes is locked out for a while (:mod:`guard`)."""
        self.guard.check_claim(name, self._peer, now)
        existing = self.store.player_by_name(name)
        session = secrets.token_urlsafe(18)
        if (
            existing is None
            or not existing.claimable
            or not self.store.claim(
                existing.player_id, claim_hash(existing.player_id, code), session
            )
        ):
            self.guard.claim_failed(existing.name if existing else None, self._peer, now)
            raise MatchmakerError(
                "bad_claim",
                f"wrong or used claim code for {name!r}; ask the director for a new one "
                "(lanqi tournament reclaim ID NAME)",
            )
        self.guard.claimed(name)
        self.sign_out(existing.player_id)
        log.info("player %s claimed with a code", existing.name)
        return dataclasses.replace(existing, session=session, claimable=False)

    def sign_out(self, player_id: str) -> None:
        """Forget a player's connection: its requests get ``no_session`` from now on."""
        client = self.clients.pop(player_id, None)
        self._withdrawn.pop(player_id, None)
        if client is not None:
            self.by_identity.pop(client.identity, None)
            self._presence_version += 1

    def _ping(self, request: Ping, identity: bytes, now: float) -> Message:
        self.player_of(identity)
        return Ok(re=request.id)

    def _server_info(self, request: GetServerInfo, identity: bytes, now: float) -> Message:
        events = self.pub_endpoint
        if self.config.advertise:
            events = with_host(events, self.config.advertise)
        return ServerInfo(
            re=request.id,
            events=events,
            referees=[
                RefereeEndpoints(
                    endpoint=link.public_endpoint, events=link.public_pub_endpoint, key=link.key
                )
                for link in self.config.referees
            ][:64],
        )

    def _list_players(self, request: ListPlayers, identity: bytes, now: float) -> Message:
        # Every GUI in the lobby asks again after each piece of lobby news: a crowd's
        # hellos would have the list built (a query per player) and encoded hundreds
        # of times a second.  The players are read from the store once per change to
        # it, each entry is encoded once per state (online or not), and a page once
        # per change; each request is handed that page (see _encode_reply).
        listed = self._lobby_players(now)
        if request.name is not None:
            found = listed.by_name.get(request.name)
            chosen = [found[0]] if found is not None else []
            online = int(bool(chosen) and chosen[0].online)
            return PlayersList(re=request.id, players=chosen, total=len(chosen), online=online)
        page = listed.pages.get((request.offset, request.limit))
        if page is None:
            entries = listed.entries[request.offset : request.offset + request.limit]
            template = PlayersList(
                players=[info for info, _ in entries],
                total=len(listed.entries),
                online=listed.online,
            )
            shared = SharedReply.of(template, {"players": packed_list([b for _, b in entries])})
            if len(listed.pages) >= MAX_SHARED_PAGES:
                listed.pages.clear()
            page = listed.pages[(request.offset, request.limit)] = (template, shared)
        return dataclasses.replace(page[0], re=request.id)

    def _encode_reply(self, reply: Message) -> list[bytes]:
        """A reply's frames: a page of the lobby's players as encoded once for all."""
        listed = self._players_list
        if isinstance(reply, PlayersList) and listed is not None:
            for template, shared in listed.pages.values():
                if template.players is reply.players:
                    return shared.frames(reply.re)
        return encode(reply)

    def _lobby_players(self, now: float) -> _PlayersList:
        """Every player, online ones first, each by name: built again after a change,
        but not within LIST_REBUILD_MS of the last build (a crowd's hellos change it
        a thousand times in a few seconds; each build reads every player)."""
        listed = self._players_list
        if listed is not None and now - listed.built_at < LIST_REBUILD_MS:
            return listed
        if self._records is None or self._records[0] != self.store.changes:
            ratings = self.store.all_ratings()
            self._records = (
                self.store.changes,
                [(r, ratings.get(r.player_id, {})) for r in self.store.players()],  # by name
            )
        version = (self.store.changes, self._presence_version)
        if self._players_list is not None and self._players_list.version == version:
            return self._players_list
        here: list[tuple[PlayerInfo, bytes]] = []
        away: list[tuple[PlayerInfo, bytes]] = []
        for record, rating in self._records[1]:
            client = self.clients.get(record.player_id)
            online = bool(client and client.online)
            info = PlayerInfo(
                player_id=record.player_id,
                name=record.name,
                kind="bot" if record.kind == "bot" else "human",  # hello allows only these
                online=online,
                ratings={variant: round(value, 1) for variant, value in rating.items()},
            )
            entry = self._entries.get((record.player_id, online))
            if entry is None or entry[0] != info:  # new, or its name, kind or ratings changed
                entry = self._entries[(record.player_id, online)] = (info, packed_struct(info))
            (here if online else away).append(entry)
        entries = here + away
        self._players_list = _PlayersList(
            version, now, entries, {info.name: (info, b) for info, b in entries}, len(here)
        )
        return self._players_list

    def _check_seek(self, seek: Seek) -> Seek:
        """The seek with its options in normal form (so equal games compare equal)."""
        if seek.color not in COLORS:
            raise MatchmakerError("bad_request", f"color must be one of {', '.join(COLORS)}")
        options = check_game(seek.variant, seek.options, seek.time_control)
        return dataclasses.replace(seek, options=options)

    def _poster(self, identity: bytes, now: float) -> PlayerRecord:
        """The player posting a seek or challenge: not muted, not flooding."""
        player = self.player_of(identity)
        if player.player_id in self.guard.muted:
            raise MatchmakerError("muted", "the director muted you in the lobby; ask them")
        self.guard.post(self._peer, now)
        return player

    def _seek(self, request: CreateSeek, identity: bytes, now: float) -> Message:
        player = self._poster(identity, now)
        seek = self._check_seek(request.seek)
        seek_id, paired = self._place_seek(player.player_id, seek, now)
        return SeekCreated(re=request.id, seek_id=seek_id, paired=paired)

    def _place_seek(
        self, player_id: str, seek: Seek, now: float, seek_id: str | None = None
    ) -> tuple[str, bool]:
        """Pair ``seek`` with the oldest open seek of another player that fits (its id,
        True), or open it (under ``seek_id`` if given: a seek put back; its id, False)."""
        for open_seek in list(self.seeks.values()):
            if open_seek.player_id != player_id and compatible(open_seek.seek, seek):
                del self.seeks[open_seek.seek_id]
                self.publish(
                    TOPIC_LOBBY,
                    LobbySeekRemoved(
                        seek_id=open_seek.seek_id,
                        player=self._name(open_seek.player_id),
                    ),
                )
                seat_theirs, _ = seats_for(open_seek.seek, seek, secrets.randbelow(2))
                ids = [open_seek.player_id, player_id]
                if seat_theirs == 1:
                    ids.reverse()
                self._order(seek, ids, now)
                return open_seek.seek_id, True
        seek_id = seek_id or uuid.uuid4().hex[:12]
        self.seeks[seek_id] = OpenSeek(seek_id, player_id, seek, now)
        self.publish(
            TOPIC_LOBBY,
            LobbySeekAdded(seek_id=seek_id, player=self._name(player_id), seek=seek),
        )
        return seek_id, False

    def _put_back_seeks(self, player_id: str, now: float) -> None:
        """The player is heard from again on the connection it was silent on: the
        seeks withdrawn while it was shown offline (for at most SEEK_KEPT_MS) are
        placed again, under their ids, as if just posted (a ``game_assigned`` follows
        one that now pairs)."""
        for withdrawn_at, seek in self._withdrawn.pop(player_id, []):
            if now - withdrawn_at <= SEEK_KEPT_MS:
                _, paired = self._place_seek(player_id, seek.seek, now, seek.seek_id)
                log.info(
                    "%s is back: seek %s %s",
                    self._name(player_id),
                    seek.seek_id,
                    "paired" if paired else "open again",
                )

    def _cancel_seek(self, request: CancelSeek, identity: bytes, now: float) -> Message:
        player = self.player_of(identity)
        open_seek = self.seeks.get(request.seek_id)
        if open_seek is None or open_seek.player_id != player.player_id:
            raise MatchmakerError("unknown_seek", "you have no such seek")
        del self.seeks[request.seek_id]
        self.publish(
            TOPIC_LOBBY,
            LobbySeekRemoved(seek_id=request.seek_id, player=player.name),
        )
        return Ok(re=request.id)

    def _list_seeks(self, request: ListSeeks, identity: bytes, now: float) -> Message:
        seeks = [
            SeekInfo(
                seek_id=s.seek_id,
                player=self._name(s.player_id),
                seek=s.seek,
                rating=round(self.store.rating(s.player_id, s.seek.variant).rating, 1),
            )
            for s in self.seeks.values()
        ]
        return SeeksList(re=request.id, seeks=seeks[:1000])

    def _challenge(self, request: Challenge, identity: bytes, now: float) -> Message:
        player = self._poster(identity, now)
        target = self.store.player_by_name(request.to)
        if target is None:
            raise MatchmakerError("unknown_player", f"no player named {request.to!r}")
        if target.player_id == player.player_id:
            raise MatchmakerError("bad_request", "you cannot challenge yourself")
        client = self.clients.get(target.player_id)
        if client is None or not client.online:
            raise MatchmakerError("offline", f"{target.name} is not online")
        request = dataclasses.replace(request, seek=self._check_seek(request.seek))
        challenge_id = uuid.uuid4().hex[:12]
        self.challenges[challenge_id] = OpenChallenge(
            challenge_id,
            player.player_id,
            target.player_id,
            request.seek,
            now + request.expires_s * 1000.0,
        )
        self.push(
            target.player_id,
            ChallengeReceived(
                challenge_id=challenge_id,
                challenger=player.name,
                challenger_kind="bot" if player.kind == "bot" else "human",
                seek=request.seek,
                expires_s=request.expires_s,
            ),
        )
        self.publish(
            TOPIC_LOBBY,
            LobbyChallenge(player=player.name, to=target.name, seek=request.seek),
        )
        return ChallengeCreated(re=request.id, challenge_id=challenge_id)

    def _challenge_for(self, challenge_id: str, player_id: str, *, target: bool) -> OpenChallenge:
        challenge = self.challenges.get(challenge_id)
        who = None if challenge is None else (challenge.target if target else challenge.challenger)
        if challenge is None or who != player_id:
            raise MatchmakerError("unknown_challenge", "no such challenge for you (expired?)")
        return challenge

    def _accept_challenge(self, request: AcceptChallenge, identity: bytes, now: float) -> Message:
        player = self.player_of(identity)
        challenge = self._challenge_for(request.challenge_id, player.player_id, target=True)
        del self.challenges[challenge.challenge_id]
        ids = [challenge.challenger, challenge.target]
        seat_challenger, _ = seats_for(
            challenge.seek, Seek(variant=challenge.seek.variant), secrets.randbelow(2)
        )
        if seat_challenger == 1:
            ids.reverse()
        self._order(challenge.seek, ids, now)
        return Ok(re=request.id)

    def _close_challenge(self, challenge: OpenChallenge, how: str, reason: str = "") -> None:
        self.challenges.pop(challenge.challenge_id, None)
        closed = ChallengeClosed(challenge_id=challenge.challenge_id, how=how, reason=reason)
        self.push(challenge.challenger, closed)
        self.push(challenge.target, closed)

    def _decline_challenge(self, request: DeclineChallenge, identity: bytes, now: float) -> Message:
        player = self.player_of(identity)
        challenge = self._challenge_for(request.challenge_id, player.player_id, target=True)
        self._close_challenge(challenge, "declined", request.reason)
        return Ok(re=request.id)

    def _cancel_challenge(self, request: CancelChallenge, identity: bytes, now: float) -> Message:
        player = self.player_of(identity)
        challenge = self._challenge_for(request.challenge_id, player.player_id, target=False)
        self._close_challenge(challenge, "cancelled")
        return Ok(re=request.id)

    # ------------------------------------------------------------ the director's guard

    def _authorise(self, key: str) -> None:
        if not secrets.compare_digest(key.encode(), self.config.director_key.encode()):
            raise MatchmakerError("unauthorized", "this needs the tournament director's key")

    def _lockouts(self, request: ListLockouts, identity: bytes, now: float) -> Message:
        self._authorise(request.director_key)
        clock = time.monotonic()
        lockouts = [
            Lockout(
                kind=kind,
                target=target[:64],
                failures=s.failures,
                locks=s.locks,
                retry_s=s.retry_s(now),
            )
            for kind, target, s in self.guard.lockouts(now)
        ] + [
            Lockout(
                kind="flood",
                target=address[:64],
                failures=shut.dropped,
                locks=shut.times,
                retry_s=shut.retry_s(clock),
            )
            for address, shut in self._gate_shut_outs(clock)
        ]
        return LockoutsList(re=request.id, lockouts=lockouts[:1000])

    def _gate_shut_outs(self, now: float) -> list[tuple[str, ShutOut]]:
        return self.security.gate.shut_outs(now) if self.security is not None else []

    def _unlock(self, request: Unlock, identity: bytes, now: float) -> Message:
        self._authorise(request.director_key)
        unlocked = self.guard.unlock(request.target)
        lifted = self.security is not None and self.security.gate.lift(request.target)
        if not (unlocked or lifted):
            raise MatchmakerError(
                "not_locked",
                f"no wrong claim codes or flood held against {request.target!r}",
            )
        log.info("director unlocked %s", request.target)
        return Ok(re=request.id)

    def _director_target(self, name: str) -> PlayerRecord:
        record = self.store.player_by_name(name)
        if record is None:
            raise MatchmakerError("unknown_player", f"no player named {name!r}")
        return record

    def _mute(self, request: MutePlayer, identity: bytes, now: float) -> Message:
        self._authorise(request.director_key)
        record = self._director_target(request.player)
        if request.muted:
            self.guard.muted.add(record.player_id)
            self._drop_lobby_posts(record.player_id)
        else:
            self.guard.muted.discard(record.player_id)
        log.info("director %s %s", "muted" if request.muted else "unmuted", record.name)
        return Ok(re=request.id)

    def _remove(self, request: RemovePlayer, identity: bytes, now: float) -> Message:
        self._authorise(request.director_key)
        record = self._director_target(request.player)
        if request.removed:
            self.guard.removed.add(record.player_id)
            self._drop_lobby_posts(record.player_id)
            client = self.clients.get(record.player_id)
            self.sign_out(record.player_id)
            if client is not None and client.online:
                self.publish(TOPIC_LOBBY, LobbyPresence(player=record.name, online=False))
        else:
            self.guard.removed.discard(record.player_id)
        log.info("director %s %s", "removed" if request.removed else "readmitted", record.name)
        return Ok(re=request.id)

    def _drop_lobby_posts(self, player_id: str) -> None:
        """Withdraw a player's open seeks and challenges (a mute, a removal)."""
        name = self._name(player_id)
        self._withdrawn.pop(player_id, None)
        for seek in [s for s in self.seeks.values() if s.player_id == player_id]:
            del self.seeks[seek.seek_id]
            self.publish(TOPIC_LOBBY, LobbySeekRemoved(seek_id=seek.seek_id, player=name))
        for challenge in [
            c for c in self.challenges.values() if player_id in (c.challenger, c.target)
        ]:
            self._close_challenge(challenge, "cancelled", "the director stepped in")

    # ------------------------------------------------------------ games

    def _order(self, seek: Seek, player_ids: list[str], now: float) -> None:
        order = GameOrder(
            game_id=new_game_id(),
            variant=seek.variant,
            options=dict(seek.options),
            time_control=seek.time_control,
            player_ids=player_ids,
            names=[self._name(p) for p in player_ids],
            rated=seek.rated,
        )
        self.create_game(order, now)

    def create_game(self, order: GameOrder, now: float | None = None) -> None:
        """Ask a referee for the game (the least busy one, or the one asked before:
        see :mod:`lanqi.matchmaker.referees`); players hear when it answers."""
        now = _now_ms() if now is None else now
        link = self._link_for(order)
        if link.name != order.referee:
            order.referee, order.unanswered = link.name, 0
        order.unanswered += 1
        # created, stored and assigned with every option spelled out (idempotent)
        order.options = check_game(order.variant, order.options, order.time_control)
        self._in_flight[order.game_id] = order
        request = CreateGame(
            id=link.next_id(),
            game_id=order.game_id,
            variant=order.variant,
            options=order.options,
            time_control=order.time_control,
            players=list(order.names),
            casual=order.casual,
            admin_key=link.admin_key,
            tag=order.tournament_id or "",
        )
        link.expect(request, order, now)

    def _link_for(self, order: GameOrder) -> RefereeLink:
        links = self.config.referees
        current = self._link(order.referee)
        if current is not None and (len(links) == 1 or order.unanswered < SAME_REFEREE_ATTEMPTS):
            return current
        others = [link for link in links if link is not current] or links
        return min(others, key=lambda link: (link.games_in_progress, len(link.pending)))

    def _drain_referee_replies(self, link: RefereeLink) -> None:
        assert link.dealer is not None
        for _ in range(MAX_BATCH):
            try:
                frames = link.dealer.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                return
            try:
                reply = decode_payload(frames[-1])
            except ProtocolError as exc:
                log.error("bad reply from %s: %s", link.name, exc)
                continue
            if isinstance(reply, GameCreated):
                order = link.take(reply.re)
                if order is not None:
                    self._game_created(link, order, reply)
            elif isinstance(reply, ResultsList):
                after = link.answered(reply.re)
                for result in reply.results:
                    self.apply_result(link, result)
                if after is not None and reply.results:
                    # the answer holds every result in (after, its last]: gaps there
                    # are seqs the referee does not have
                    self.store.cover_results(
                        link.name, after, max(r.result_seq for r in reply.results)
                    )
                if len(reply.results) >= RECONCILE_PAGE:
                    self._ask_results(link, self.store.referee_cursor(link.name))
                else:
                    first = link.name not in self._reconciled
                    self._reconciled.add(link.name)
                    if first and self.reconciled():
                        # the director decided nothing until now: a round the missed
                        # results completed is paired here, not at some later result
                        self.director.resume_all()
                    self.director.tick(_now_ms())
            elif isinstance(reply, ErrorReply):
                self._referee_error(link, reply)

    def _referee_error(self, link: RefereeLink, reply: ErrorReply) -> None:
        now = _now_ms()
        if link.refused(reply.re, now):  # a results_since: asked again after a back-off
            log.warning(
                "referee %s could not answer results_since (%s: %s); asking again",
                link.name,
                reply.code,
                reply.msg,
            )
            return
        order = link.take(reply.re)
        if order is None:
            log.error("referee %s refused a request: %s %s", link.name, reply.code, reply.msg)
            return
        order.unanswered = 0
        if reply.code == "internal":
            order.failures += 1
            if order.failures < MAX_CREATE_FAILURES:  # the same create, after a back-off
                log.warning(
                    "referee %s could not create game %s (%s); trying again",
                    link.name,
                    order.game_id,
                    reply.msg,
                )
                delay = CREATE_RETRY_MS * 2 ** (order.failures - 1)
                self._create_retries.append((now + delay, order))
                return
        self._in_flight.pop(order.game_id, None)
        self._early_results.pop(order.game_id, None)
        log.error("referee %s refused a game: %s %s", link.name, reply.code, reply.msg)
        if order.tournament_id is not None:
            self.director.game_failed(order, f"{reply.code}: {reply.msg}")
        else:  # a lobby game: tell both players it did not happen
            failed = ErrorReply(
                code="game_failed", msg=f"the referee refused the game: {reply.msg}"
            )
            for player_id in order.player_ids:
                self.push(player_id, failed)

    def _game_created(self, link: RefereeLink, order: GameOrder, reply: GameCreated) -> None:
        self._in_flight.pop(order.game_id, None)
        early = self._early_results.pop(order.game_id, None)
        if self.store.game(reply.game_id) is not None:
            return  # a repeated answer for a game we have already
        record = GameRecord(
            game_id=reply.game_id,
            referee=link.name,
            variant=order.variant,
            options=order.options,
            time_control=order.time_control,
            player_ids=list(order.player_ids),
            names=list(order.names),
            tokens=list(reply.tokens),
            rated=order.rated,
            status="playing",
            created_ms=_wall_ms(),
            tournament_id=order.tournament_id,
            round=order.round,
            board=order.board,
            game_no=order.game_no,
        )
        self.store.add_game(record)
        link.games_in_progress += 1
        for seat, player_id in enumerate(order.player_ids):
            self.push(player_id, GameAssigned(game=self._assignment(record, seat)))
        self.publish(
            TOPIC_LOBBY,
            LobbyPaired(game_id=record.game_id, players=list(record.names)),
        )
        if order.tournament_id is not None:
            self.director.game_started(record)
        log.info("game %s on %s: %s", record.game_id, link.name, " vs ".join(record.names))
        if early is not None and early[0] == link.name:
            self.apply_result(link, early[1])  # it ended before we heard it was created

    def _assignment(self, game: GameRecord, seat: int) -> Assignment:
        link = self._link(game.referee)
        return Assignment(
            game_id=game.game_id,
            referee=link.public_endpoint if link else game.referee,
            referee_pub=link.public_pub_endpoint if link else "",
            seat=seat,
            token=game.tokens[seat],
            variant=game.variant,
            options=dict(game.options),
            time_control=game.time_control,
            players=list(game.names),
            rated=game.rated,
            tournament_id=game.tournament_id,
            round=game.round,
            referee_key=link.key if link else None,
        )

    def _link(self, name: str) -> RefereeLink | None:
        return next((link for link in self.config.referees if link.name == name), None)

    def _drain_results(self, link: RefereeLink) -> None:
        assert link.sub is not None
        for _ in range(MAX_BATCH):
            try:
                frames = link.sub.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                return
            try:
                message = decode_payload(frames[-1])
            except ProtocolError as exc:
                log.error("bad result from %s: %s", link.name, exc)
                continue
            if isinstance(message, GameResult):
                cursor = self.store.referee_cursor(link.name)
                if message.result_seq > cursor + 1 and not link.asking(cursor):
                    self._ask_results(link, cursor)  # we missed some: fetch them too
                self.apply_result(link, message)

    def apply_result(self, link: RefereeLink, result: GameResult) -> None:
        """Record a result once: the game, its pairing, the ratings, the cursor."""
        game = self.store.game(result.game_id)
        if game is None or game.referee != link.name:
            # not ours, or not yet: its create_game is in flight (the reply was lost and
            # the retry is out), and the game ended before we heard it was created
            if result.game_id in self._in_flight and len(self._early_results) < MAX_EARLY_RESULTS:
                self._early_results[result.game_id] = (link.name, result)
            self.store.note_result(link.name, result.result_seq)
            return
        if game.status == "finished":
            self.store.note_result(link.name, result.result_seq)
            return
        score = score_game(result.result, result.termination, len(result.moves))
        ratings = None
        if game.rated and score.kind == "played" and score.score_first is not None:
            ratings = rate_game(self.store, game.variant, game.player_ids, score.score_first)
        applied = self.store.record_result(
            result.game_id,
            result=result.result,
            # what the records say: the reason (``crash``) when there is one, as before
            termination=termination_label(result.termination, result.reason),
            moves=list(result.moves),
            ended_ms=_wall_ms(),
            referee=link.name,
            result_seq=result.result_seq,
            score=score,
            ratings=ratings,
            clocks=list(result.clocks),
        )
        if applied:
            link.games_in_progress = max(0, link.games_in_progress - 1)
            log.info("result %s %s (%s)", result.game_id, result.result, result.termination)
            if game.tournament_id is not None:
                self.director.result_recorded(game.tournament_id)

    # ------------------------------------------------------------ timers

    def run_timers(self) -> None:
        now = _now_ms()
        if now >= self._next_presence_check:
            self._next_presence_check = now + PRESENCE_CHECK_MS
            self._check_presence(now)
        for challenge in [c for c in self.challenges.values() if now >= c.expires_at]:
            self._close_challenge(challenge, "expired")
        if now >= self._next_reconcile:
            self._next_reconcile = now + RECONCILE_EVERY_MS
            for link in self.config.referees:
                behind = self.store.results_ahead(link.name) > 0  # a gap to fill
                if link.games_in_progress or link.name not in self._reconciled or behind:
                    self._ask_results(link, self.store.referee_cursor(link.name))
        for link in self.config.referees:
            after = link.due_ask(now)
            if after is not None:
                self._ask_results(link, after)
            if link.lost_asks(now):  # a reply lost on the way: ask again from the cursor
                log.warning("referee %s did not answer results_since; asking again", link.name)
                self._ask_results(link, self.store.referee_cursor(link.name))
            for order in link.overdue(now, CREATE_TIMEOUT_MS):
                log.warning(
                    "referee %s did not answer create_game %s; trying again",
                    link.name,
                    order.game_id,
                )
                self.create_game(order, now)
        due = [order for when, order in self._create_retries if now >= when]
        if due:
            self._create_retries = [(w, o) for w, o in self._create_retries if now < w]
            for order in due:
                self.create_game(order, now)
        self.director.tick(now)

    def _check_presence(self, now: float) -> None:
        """Show players silent for the presence timeout offline; withdraw their seeks
        (kept to be put back if the same connection is heard from again)."""
        for client in self.clients.values():
            if client.online and now - client.last_seen > self.config.presence_timeout_ms:
                client.online = False
                self._presence_version += 1
                name = self._name(client.player_id)
                self.publish(TOPIC_LOBBY, LobbyPresence(player=name, online=False))
                withdrawn = [s for s in self.seeks.values() if s.player_id == client.player_id]
                for seek in withdrawn:
                    del self.seeks[seek.seek_id]
                    self.publish(
                        TOPIC_LOBBY,
                        LobbySeekRemoved(seek_id=seek.seek_id, player=name),
                    )
                    self._withdrawn.setdefault(client.player_id, []).append((now, seek))
                log.info(
                    "%s silent for %.0f s: shown offline, %d seeks withdrawn",
                    name,
                    (now - client.last_seen) / 1000,
                    len(withdrawn),
                )

    def reconciled(self) -> bool:
        return len(self._reconciled) == len(self.config.referees)
