"""The matchmaker's links to its referees: a DEALER for requests, a SUB for results.

Games are spread over the referees by load (fewest games in progress).  A
``create_game`` that gets no answer in time is sent again to another referee;
if the first one did create it after all, that game is never assigned and its
seats are abandoned there without a result anyone records.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import zmq

from lanqi.protocol import MAX_MESSAGE_BYTES, Message, Request, encode
from lanqi.protocol.endpoints import TOPIC_RESULTS

__all__ = ["GameOrder", "RefereeLink", "parse_referee"]

log = logging.getLogger(__name__)


@dataclass(slots=True)
class GameOrder:
    """A game the matchmaker wants created, and where its result belongs."""

    variant: str
    options: dict[str, Any]
    time_control: dict[str, Any]
    player_ids: list[str]  # by seat
    names: list[str]
    rated: bool
    tournament_id: str | None = None
    round: int = 0
    board: int = 0
    game_no: int = 0
    attempts: int = 0


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
    dealer: zmq.Socket[bytes] | None = None
    sub: zmq.Socket[bytes] | None = None
    pending: dict[int, _Pending] = field(default_factory=dict)
    games_in_progress: int = 0
    _next_id: int = 0

    def connect(self, context: zmq.Context[Any]) -> None:
        dealer = context.socket(zmq.DEALER)
        dealer.setsockopt(zmq.LINGER, 0)
        dealer.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)
        dealer.connect(self.endpoint)
        sub = context.socket(zmq.SUB)
        sub.setsockopt(zmq.LINGER, 0)
        sub.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)
        sub.setsockopt(zmq.SUBSCRIBE, TOPIC_RESULTS.encode())
        sub.connect(self.pub_endpoint)
        self.dealer, self.sub = dealer, sub

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


def parse_referee(spec: str, advertise: str | None = None) -> RefereeLink:
    """``tcp://host:5052`` (events on the next port) or ``tcp://host:5052,tcp://host:5053``.

    ``advertise`` replaces the host players are told (for a referee bound to
    0.0.0.0 or 127.0.0.1 while players come over the LAN).
    """
    parts = [p.strip() for p in spec.split(",") if p.strip()]
    if not parts or len(parts) > 2 or not all(p.startswith("tcp://") for p in parts):
        raise ValueError(
            f"bad referee {spec!r}: want tcp://HOST:PORT or tcp://HOST:PORT,tcp://HOST:PUBPORT"
        )
    endpoint = parts[0]
    host, _, port = endpoint[len("tcp://") :].rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"bad referee endpoint {endpoint!r}")
    pub = parts[1] if len(parts) == 2 else f"tcp://{host}:{int(port) + 1}"
    public, public_pub = endpoint, pub
    if advertise:
        public = f"tcp://{advertise}:{port}"
        public_pub = f"tcp://{advertise}:{pub.rpartition(':')[2]}"
    return RefereeLink(endpoint, endpoint, pub, public, public_pub)
