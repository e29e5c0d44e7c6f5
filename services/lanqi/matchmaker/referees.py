"""The matchmaker's links to its referees: a DEALER for requests, a SUB for results.

Games are spread over the referees by load (fewest games in progress).  The
matchmaker chooses each game's id (:attr:`GameOrder.game_id`), so ``create_game``
is idempotent: a create that gets no answer in time is sent again, with the same
id, to the same referee, which answers a repeat with the game it created the first
time.  Only a referee that stays silent for :data:`SAME_REFEREE_ATTEMPTS` tries is
given up for another one (if it did create the game after all, that game is never
assigned and its result is not counted: it is not on the referee the game was
recorded on).

A ``results_since`` a referee answers with an error (its store failing for a
while) is asked again, for the same results, after a short back-off: a result
never waits for the periodic reconcile because of it.  One that gets no answer
at all within :data:`RESULTS_ANSWER_MS` (the reply was lost) is asked again too.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field
from typing import Any

import zmq

from lanqi.protocol import MAX_MESSAGE_BYTES, Message, Request, ResultsSince, TimeControl, encode
from lanqi.protocol.endpoints import (
    ENDPOINT_FORMS,
    REFEREE_PORT,
    TOPIC_RESULTS,
    host_of,
    normalise_endpoint,
    tcp,
    with_host,
)
from lanqi.security import (
    KeyPair,
    KnownServers,
    Link,
    NoServerKey,
    address_of,
    parse_public_key,
    trust_server,
)

__all__ = [
    "SAME_REFEREE_ATTEMPTS",
    "GameOrder",
    "RefereeLink",
    "new_game_id",
    "parse_referee",
]

log = logging.getLogger(__name__)

#: unanswered ``create_game`` requests sent to one referee before another is tried
SAME_REFEREE_ATTEMPTS = 3
#: a refused ``results_since`` is asked again after this long, doubling up to the max
RESULTS_RETRY_MS = 100.0
RESULTS_RETRY_MAX_MS = 1_000.0
#: a ``results_since`` unanswered this long is taken as lost and asked again
RESULTS_ANSWER_MS = 3_000.0
#: ``results_since`` requests remembered while unanswered (a referee that is down
#: never answers; the oldest are forgotten, the periodic reconcile covers them)
MAX_OPEN_ASKS = 64


def new_game_id() -> str:
    """A fresh game id, chosen by the matchmaker for the referee to use."""
    return uuid.uuid4().hex[:16]


@dataclass(slots=True)
class GameOrder:
    """A game the matchmaker wants created, and where its result belongs.

    ``game_id`` is chosen once: every retry of the order's ``create_game`` carries
    it, so a referee that did create the game answers a retry with that game.
    """

    game_id: str
    variant: str
    options: dict[str, Any]
    time_control: TimeControl
    player_ids: list[str]  # by seat
    names: list[str]
    rated: bool
    tournament_id: str | None = None
    round: int = 0
    board: int = 0
    game_no: int = 0
    #: the referee the create was sent to last ("" before the first send)
    referee: str = ""
    #: creates sent to that referee without an answer
    unanswered: int = 0
    #: ``internal`` answers so far (the referee's store failing): retried up to a bound
    failures: int = 0

    @property
    def casual(self) -> bool:
        """Takebacks and abort allowed: unrated lobby games only (docs/protocol.md,
        "Being assigned a game"); rated and tournament games are played strictly."""
        return not self.rated and self.tournament_id is None


@dataclass(slots=True)
class _Pending:
    order: GameOrder
    sent_at: float


@dataclass(slots=True)
class RefereeLink:
    """One referee: where to reach it, and where players should reach it."""

    name: str
    endpoint: str
    pub_endpoint: str
    public_endpoint: str
    public_pub_endpoint: str
    admin_key: str | None = None
    #: the referee's CURVE public key (Z85): given (``key=`` in ``--referee``), or
    #: learnt on :meth:`connect` (its pin, else its key port); None: plain
    key: str | None = None
    #: known to run without CURVE (the referee beside an ``--insecure`` matchmaker in
    #: ``lanqi serve``): no key is asked for
    insecure: bool = False
    dealer: zmq.Socket[bytes] | None = None
    sub: zmq.Socket[bytes] | None = None
    pending: dict[int, _Pending] = field(default_factory=dict)
    games_in_progress: int = 0
    #: open ``results_since`` requests: request id -> (the ``after`` asked for, sent at)
    asks: dict[int, tuple[int, float]] = field(default_factory=dict)
    #: a refused ``results_since`` to ask again: (when, after)
    ask_again: tuple[float, int] | None = None
    ask_backoff_ms: float = 0.0
    _next_id: int = 0

    def connect(
        self,
        context: zmq.Context[Any],
        client: KeyPair | None = None,
        known: KnownServers | None = None,
    ) -> None:
        """Open the sockets, as CURVE client ``client`` (the matchmaker's own pair, so
        referees can allow it by its key).  The referee's key: the one given, else its
        key port's answer, checked against (or pinned in) ``known``; a referee whose
        key port does not answer is reached with its pinned key.  Raises
        :class:`~lanqi.security.SecurityError` (one line) when it cannot be trusted."""
        link = self._trust(context, client, known)
        self.key = link.key_text
        dealer = context.socket(zmq.DEALER)
        dealer.setsockopt(zmq.LINGER, 0)
        dealer.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)
        link.setup(dealer)
        dealer.connect(self.endpoint)
        sub = context.socket(zmq.SUB)
        sub.setsockopt(zmq.LINGER, 0)
        sub.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)
        link.setup(sub)
        sub.setsockopt(zmq.SUBSCRIBE, TOPIC_RESULTS.encode())
        sub.connect(self.pub_endpoint)
        self.dealer, self.sub = dealer, sub

    def _trust(
        self, context: zmq.Context[Any], client: KeyPair | None, known: KnownServers | None
    ) -> Link:
        if self.insecure:
            return Link.plain()
        if self.key is not None or known is None:
            return trust_server(
                self.endpoint, known=known, key=self.key, client=client, context=context
            )
        try:
            return trust_server(
                self.endpoint, known=known, client=client, context=context, timeout_ms=2000
            )
        except NoServerKey:
            pin = known.lookup(address_of(self.endpoint))
            if pin is None:
                raise
            log.warning(
                "referee %s: its key port does not answer; using the key pinned on %s",
                self.name,
                pin.since,
            )
            return Link.to(pin.key, client)

    def close(self) -> None:
        for socket in (self.dealer, self.sub):
            if socket is not None:
                socket.close(linger=0)

    def next_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def send(self, request: Message, flags: int = 0) -> None:
        assert self.dealer is not None
        self.dealer.send_multipart(encode(request), flags)

    def expect(self, request: Request, order: GameOrder, now: float) -> None:
        self.pending[request.id] = _Pending(order, now)
        self.send(request)

    def take(self, request_id: int | None) -> GameOrder | None:
        if request_id is None:
            return None
        pending = self.pending.pop(request_id, None)
        return None if pending is None else pending.order

    def overdue(self, now: float, timeout_ms: float) -> list[GameOrder]:
        late = [rid for rid, p in self.pending.items() if now - p.sent_at > timeout_ms]
        return [self.pending.pop(rid).order for rid in late]

    # ------------------------------------------------------------ results_since

    def ask_results(self, after: int, limit: int, now: float) -> None:
        """Send ``results_since``; raises ``zmq.Again`` if the referee's queue is full."""
        request = ResultsSince(id=self.next_id(), after=after, limit=limit)
        self.send(request, zmq.NOBLOCK)
        self.asks[request.id] = (after, now)
        while len(self.asks) > MAX_OPEN_ASKS:
            del self.asks[next(iter(self.asks))]

    def asking(self, after: int) -> bool:
        """True if a ``results_since`` from ``after`` (or earlier) is unanswered."""
        return any(asked <= after for asked, _ in self.asks.values())

    def answered(self, request_id: int | None) -> int | None:
        """A ``results_since`` was answered with results: the back-off starts over.
        Returns the ``after`` it asked for (None if it is not an open ask)."""
        ask = self.asks.pop(request_id, None) if request_id is not None else None
        if ask is None:
            return None
        self.ask_backoff_ms = 0.0
        return ask[0]

    def lost_asks(self, now: float) -> bool:
        """Forget the ``results_since`` requests unanswered for RESULTS_ANSWER_MS;
        True if there were any (they are to be asked again)."""
        late = [rid for rid, (_, sent) in self.asks.items() if now - sent > RESULTS_ANSWER_MS]
        for rid in late:
            del self.asks[rid]
        return bool(late)

    def refused(self, request_id: int | None, now: float) -> bool:
        """A ``results_since`` was answered with an error: schedule it again (with a
        back-off) and return True; False if ``request_id`` is no ``results_since``."""
        ask = self.asks.pop(request_id, None) if request_id is not None else None
        if ask is None:
            return False
        after = ask[0]
        self.ask_backoff_ms = min(
            RESULTS_RETRY_MAX_MS, max(RESULTS_RETRY_MS, 2 * self.ask_backoff_ms)
        )
        if self.ask_again is not None:
            after = min(after, self.ask_again[1])
        self.ask_again = (now + self.ask_backoff_ms, after)
        return True

    def due_ask(self, now: float) -> int | None:
        """The ``after`` of a refused ``results_since`` that is due again, if any."""
        if self.ask_again is None or now < self.ask_again[0]:
            return None
        after = self.ask_again[1]
        self.ask_again = None
        return after


def parse_referee(spec: str, advertise: str | None = None) -> RefereeLink:
    """``HOST:PORT`` (events on the next port) or ``HOST:PORT,HOST:PUBPORT``, each
    endpoint written as :func:`~lanqi.protocol.endpoints.normalise_endpoint` accepts
    (``tcp://`` optional, port 5052 when none is given), and optionally
    ``,key=KEY`` last: the referee's public key (Z85, or a key file), when it is not
    to be learnt from its key port.

    ``advertise`` replaces the host players are told (for a referee bound to
    0.0.0.0 or 127.0.0.1 while players come over the LAN).

    >>> parse_referee("127.0.0.1:6601").pub_endpoint
    'tcp://127.0.0.1:6602'
    """
    parts = [p.strip() for p in spec.split(",") if p.strip()]
    key = None
    if parts and parts[-1].startswith("key="):
        try:
            key = parse_public_key(parts.pop()[len("key=") :]).decode("ascii")
        except ValueError as exc:
            raise ValueError(f"bad referee {spec!r}: {exc}") from None
    if not parts or len(parts) > 2:
        raise ValueError(
            f"bad referee {spec!r}: want {ENDPOINT_FORMS}, or two of them separated by a comma"
            " (requests,events)"
        )
    try:
        endpoint = normalise_endpoint(parts[0], REFEREE_PORT)
        host, port = host_of(endpoint), int(endpoint.rpartition(":")[2])
        pub = normalise_endpoint(parts[1], port + 1) if len(parts) == 2 else tcp(host, port + 1)
    except ValueError as exc:
        raise ValueError(f"bad referee {spec!r}: {exc}") from None
    public, public_pub = endpoint, pub
    if advertise:
        public = with_host(endpoint, advertise)
        public_pub = with_host(pub, advertise)
    return RefereeLink(endpoint, endpoint, pub, public, public_pub, key=key)
