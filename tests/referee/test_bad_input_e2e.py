"""Bad input against a real ``lanqi referee``: it answers with a stable code, never
crashes, never changes a game for a refused request, and keeps serving everyone else.

Raw frames go through a bare DEALER (:class:`RawPeer`), so nothing here depends on
the codec being polite.  Everything random uses a fixed seed and a bounded count.
"""

from __future__ import annotations

import dataclasses
import random
import socket
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import msgpack
import pytest
import zmq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lanqi.client.referee import GameView, RefereeClient
from lanqi.protocol import (
    MAX_MESSAGE_BYTES,
    PROTOCOL_VERSION,
    ChatRequest,
    ClockInfo,
    CreateGame,
    ErrorReply,
    Heartbeat,
    Join,
    ListGames,
    Message,
    MoveAccepted,
    MoveRequest,
    OfferDraw,
    RequestTakeback,
    Resign,
    ResultsSince,
    Snapshot,
    Sync,
    TimeControl,
    decode,
    decode_payload,
    message_types,
)
from lanqi.protocol.schema import to_wire
from lanqi.security import KnownServers, trust_server

if TYPE_CHECKING:
    from tests.referee.conftest import Table

#: Flags of this module's shared referee: no seat goes silent during a test, so a
#: game's seq changes only through requests.
REFEREE_FLAGS = ("--disconnect-after", "600", "--abandon-after", "600")

#: Every code the referee may put in an error reply (docs/protocol.md), but
#: ``internal``, which would mean a bug.
CODES = {
    "too_large",
    "bad_message",
    "bad_version",
    "unknown_type",
    "unauthorized",
    "bad_request",
    "unknown_game",
    "bad_token",
    "stale_move",
    "game_over",
    "not_started",
    "not_your_turn",
    "timeout",
    "ambiguous_move",
    "illegal_move",
    "bad_move",
    "not_allowed",
    "no_offer",
    "rate_limited",
}
#: Requests that change a game when they are accepted.
GAME_CHANGING = {
    "move",
    "resign",
    "abort",
    "offer_draw",
    "accept_draw",
    "decline_draw",
    "takeback",
    "accept_takeback",
    "decline_takeback",
    "chat",
    "join",
    "heartbeat",
}


class RawPeer:
    """A bare DEALER: sends any frames, returns the decoded reply (or None)."""

    def __init__(self, context: zmq.Context[Any], endpoint: str) -> None:
        self.socket: zmq.Socket[bytes] = context.socket(zmq.DEALER)
        self.socket.setsockopt(zmq.LINGER, 0)
        trust_server(endpoint, known=KnownServers.of(), context=context).setup(self.socket)
        self.socket.connect(endpoint)

    def send(self, *frames: bytes) -> None:
        self.socket.send_multipart(list(frames))

    def recv(self, timeout_ms: int = 3000) -> Message | None:
        if not self.socket.poll(timeout_ms, zmq.POLLIN):
            return None
        return decode(self.socket.recv_multipart())

    def exchange(self, *frames: bytes, timeout_ms: int = 3000) -> Message:
        self.send(*frames)
        reply = self.recv(timeout_ms)
        assert reply is not None, f"no reply to {frames!r:.200}"
        return reply

    def refused(self, payload: bytes) -> ErrorReply:
        reply = self.exchange(payload)
        assert isinstance(reply, ErrorReply), reply
        assert reply.code in CODES, reply
        return reply

    def close(self) -> None:
        self.socket.close(linger=0)


def pack(data: Any) -> bytes:
    packed: bytes = msgpack.packb(data, use_bin_type=True)
    return packed


def wire(message: Message, **changes: Any) -> dict[str, Any]:
    """The wire map of ``message`` with the envelope, and ``changes`` applied."""
    data = to_wire(message)
    data["v"] = PROTOCOL_VERSION
    data.update(changes)
    return data


def stable(snapshot: Snapshot) -> Snapshot:
    """A snapshot without what moves by itself (the clock reading, the countdowns to
    abandonment, the reply id)."""
    return dataclasses.replace(snapshot, re=None, clock=ClockInfo(), abandon_in_ms=[])


@pytest.fixture
def raw(zmq_context: zmq.Context[Any]) -> Iterator[Callable[[object], RawPeer]]:
    peers: list[RawPeer] = []

    def make(process: Any) -> RawPeer:
        peer = RawPeer(zmq_context, process.endpoint)
        peers.append(peer)
        return peer

    yield make
    for peer in peers:
        peer.close()


@pytest.fixture(scope="module")
def module_peer(_module_referee: Any) -> Iterator[RawPeer]:
    """One raw peer for the whole module (hypothesis runs many examples per test)."""
    context: zmq.Context[Any] = zmq.Context()
    peer = RawPeer(context, _module_referee.endpoint)
    yield peer
    peer.close()
    context.destroy(linger=0)


# ---------------------------------------------------------------- one kind at a time


@pytest.mark.parametrize(
    "payload",
    [
        b"",
        b"\xc1",
        b"\x92\x01",
        b"\xff" * 10,
        b"\x85\xa1t",
        b"\xdf\xff\xff\xff\xff",
        b"not msgpack",
    ],
)
def test_malformed_msgpack(referee: Any, raw: Callable[[object], RawPeer], payload: bytes) -> None:
    reply = raw(referee).refused(payload)
    assert (reply.code, reply.re) == ("bad_message", None)


@pytest.mark.parametrize("value", [[1, 2], 7, "move", None, True, 1.5, [{"t": "sync"}]])
def test_a_payload_that_is_not_a_map(
    referee: Any, raw: Callable[[object], RawPeer], value: Any
) -> None:
    reply = raw(referee).refused(pack(value))
    assert (reply.code, reply.re) == ("bad_message", None)


def test_bin_and_ext_values_are_refused(referee: Any, raw: Callable[[object], RawPeer]) -> None:
    peer = raw(referee)
    sync = wire(Sync(id=3, game_id="x"))
    for payload in (
        pack({**sync, "game_id": b"x"}),
        pack({**sync, "junk": msgpack.ExtType(5, b"abc")}),
        pack({1: 2, **sync}),  # a key that is not a str
    ):
        reply = peer.refused(payload)
        assert (reply.code, reply.re) == ("bad_message", 3), reply


MANY = 5000  # over both msgpack limits: 256 map entries, 4 200 array items


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"game_id": b"x"}, "bin"),
        ({"junk": msgpack.ExtType(5, b"abc")}, "ext"),
        ({"junk": {str(i): i for i in range(300)}}, "more than 256 entries"),
        ({str(i): i for i in range(300)}, "more than 256 entries"),  # the request map itself
        ({"junk": list(range(MANY))}, "more than 4200 items"),
        ({"junk": [[0] * MANY]}, "more than 4200 items"),
    ],
    ids=["bin", "ext", "big-map", "big-request", "long-array", "nested-array"],
)
def test_the_id_of_an_unreadable_request_is_echoed(
    referee: Any, raw: Callable[[object], RawPeer], change: dict[str, Any], says: str
) -> None:
    """docs/protocol.md: a client matches replies by ``re``; a request refused
    because some value cannot be read still gets its ``id`` back, wherever the id
    sits in the map."""
    peer = raw(referee)
    for id_first in (True, False):
        rest = {k: v for k, v in wire(Sync(game_id="x")).items() if k != "id"}
        data = {"id": 21, **rest, **change} if id_first else {**rest, **change, "id": 21}
        reply = peer.refused(pack(data))
        assert (reply.code, reply.re) == ("bad_message", 21), reply
        assert says in reply.msg, reply
    # trailing bytes after the map, and a request in two frames
    reply = peer.refused(pack(wire(Sync(id=22, game_id="x"))) + b"\x01")
    assert (reply.code, reply.re) == ("bad_message", 22), reply
    two_frames = peer.exchange(b"", pack(wire(Sync(id=23, game_id="x"))))
    assert isinstance(two_frames, ErrorReply)
    assert (two_frames.code, two_frames.re) == ("bad_message", 23)


@pytest.mark.parametrize(
    "payload",
    [
        pack({"id": "21", "v": 1, "t": "sync", "game_id": b"x"}),  # an id that is not an int
        pack({"id": -1, "v": 1, "t": "sync", "game_id": b"x"}),
        pack({"id": True, "v": 1, "t": "sync", "game_id": b"x"}),
        pack({"game_id": b"x", "v": 1, "t": "sync"}),  # no id at all
        pack({"v": 1, "t": "sync", "game_id": "x", "id": 21})[:-1],  # the id's value cut off
    ],
)
def test_no_id_is_invented(referee: Any, raw: Callable[[object], RawPeer], payload: bytes) -> None:
    reply = raw(referee).refused(payload)
    assert (reply.code, reply.re) == ("bad_message", None), reply


JUNK_VALUES: list[Any] = [
    None,
    True,
    -1,
    2**63,
    2**64 - 1,
    -(2**63),
    1.5,
    float("nan"),
    "",
    "x" * 300,
    [],
    ["h2e2"],
    {},
    {"a": 1},
    [[[[[]]]]],
]


@pytest.fixture
def playing(new_table: Callable[..., Table]) -> Any:
    table = new_table("xiangqi")
    table.play("h2e2")
    return table


@pytest.mark.parametrize("field", ["id", "game_id", "token", "ply", "move"])
def test_wrong_types_in_each_field_of_a_move(
    referee: Any, raw: Callable[[object], RawPeer], playing: Any, field: str
) -> None:
    peer = raw(referee)
    before = playing.sync()
    good = wire(
        MoveRequest(id=11, game_id=playing.game_id, token=playing.tokens[1], ply=1, move="h9g7")
    )
    right_type = type(good[field])
    for junk in JUNK_VALUES:
        if type(junk) is right_type and not (field == "ply" and junk in (-1, 2**63, 2**64 - 1)):
            continue  # a value of the right type may be valid
        if field == "ply" and type(junk) is int and junk >= 0 and junk < 2**63:
            continue
        try:
            payload = pack({**good, field: junk})
        except (OverflowError, ValueError):
            continue
        reply = peer.refused(payload)
        assert reply.code == "bad_message", (field, junk, reply)
        assert reply.re == (None if field == "id" else 11), (field, junk, reply)
    assert stable(playing.sync()) == stable(before)
    # The untouched request still works: nothing was half-applied.
    accepted = peer.exchange(pack(good))
    assert isinstance(accepted, MoveAccepted) and accepted.seq == before.seq + 1


@pytest.mark.parametrize("field", ["t", "game_id", "token", "ply", "move"])
def test_missing_fields(
    referee: Any, raw: Callable[[object], RawPeer], playing: Any, field: str
) -> None:
    before = playing.sync()
    good = wire(
        MoveRequest(id=12, game_id=playing.game_id, token=playing.tokens[1], ply=1, move="h9g7")
    )
    del good[field]
    reply = raw(referee).refused(pack(good))
    assert reply.code == ("unknown_type" if field == "t" else "bad_message")
    assert reply.re == 12
    assert stable(playing.sync()) == stable(before)


@pytest.mark.parametrize(
    ("fields", "code", "re"),
    [
        ({"t": "shuffle", "id": 13}, "unknown_type", 13),
        ({"t": "", "id": 13}, "unknown_type", 13),
        ({"t": 7, "id": 13}, "unknown_type", 13),
        ({"t": None, "id": 13}, "unknown_type", 13),
        ({"id": 13}, "unknown_type", 13),
        ({"t": "ping", "id": 13}, "unknown_type", 13),  # a matchmaker request
        ({"t": "hello", "id": 13, "name": "x"}, "unknown_type", 13),
        ({"t": "ok", "re": 13}, "unknown_type", None),  # a reply tag: no id to answer
        # a tag the referee does not handle is refused before its fields are read:
        # an event, a reply with an id, the matchmaker's requests without their fields
        ({"t": "moved", "id": 13}, "unknown_type", 13),
        ({"t": "snapshot", "id": 13}, "unknown_type", 13),
        ({"t": "hello", "id": 13}, "unknown_type", 13),
        ({"t": "cancel_seek", "id": 13}, "unknown_type", 13),
        ({"t": "tour_withdraw", "id": 13, "tournament_id": 5}, "unknown_type", 13),
    ],
)
def test_unknown_type(
    referee: Any, raw: Callable[[object], RawPeer], fields: dict[str, Any], code: str, re: Any
) -> None:
    reply = raw(referee).refused(pack({"v": PROTOCOL_VERSION, **fields}))
    assert (reply.code, reply.re) == (code, re)


@pytest.mark.parametrize("version", [0, 2, -1, "1", 2**63, None, [1], True, 1.0, "missing"])
def test_wrong_protocol_version(
    referee: Any, raw: Callable[[object], RawPeer], version: Any
) -> None:
    data = wire(Sync(id=14, game_id="whatever"))
    if version == "missing":
        del data["v"]
    else:
        data["v"] = version
    reply = raw(referee).refused(pack(data))
    assert (reply.code, reply.re) == ("bad_version", 14)


def test_a_non_ascii_token_is_a_bad_token(
    referee: Any, playing: Any, connect: Callable[..., RefereeClient]
) -> None:
    client = connect(referee)
    before = playing.sync()
    for token in ("红方令牌", "é" * 22, "\u0000\uffff"):
        for request in (
            MoveRequest(game_id=playing.game_id, token=token, ply=1, move="h9g7"),
            Join(game_id=playing.game_id, seat=0, token=token),
            Resign(game_id=playing.game_id, token=token),
            ChatRequest(game_id=playing.game_id, text="hi", token=token),
        ):
            reply = client.request(request)
            assert isinstance(reply, ErrorReply) and reply.code == "bad_token", (token, reply)
    assert stable(playing.sync()) == stable(before)


def test_a_non_ascii_admin_key_is_unauthorized(
    referee_factory: Callable[..., Any], connect: Callable[..., RefereeClient]
) -> None:
    client = connect(referee_factory("--admin-key", "s3cret"))
    for key in (None, "wrong", "密钥", "s3cret\u00e9"):
        reply = client.request(CreateGame(variant="gomoku", players=["a", "b"], admin_key=key))
        assert isinstance(reply, ErrorReply) and reply.code == "unauthorized", (key, reply)
    assert client.create_game("gomoku", players=["a", "b"], admin_key="s3cret").game_id


@pytest.mark.parametrize(
    ("players", "says"),
    [
        (["a", "b", "c"], "exactly 2 items"),
        (["a"], "exactly 2 items"),
        ([], "exactly 2 items"),
        (["a", "n" * 41], "longer than 40"),
    ],
)
def test_create_game_needs_exactly_two_names(
    referee: Any, raw: Callable[[object], RawPeer], players: list[str], says: str
) -> None:
    """docs/protocol.md, ``create_game``: ``players`` is exactly two names of at most
    40 characters; anything else is ``bad_message`` (the field's shape), like every
    list or string outside its limit."""
    data = wire(CreateGame(id=31, variant="gomoku"), players=players)
    reply = raw(referee).refused(pack(data))
    assert (reply.code, reply.re) == ("bad_message", 31), reply
    assert says in reply.msg
    created = raw(referee).exchange(pack({**data, "players": ["a", "n" * 40]}))
    assert not isinstance(created, ErrorReply), created


@pytest.mark.parametrize(
    ("variant", "options"),
    [
        ("xiangqi", {"move_limit": True}),
        ("xiangqi", {"move_limit": False}),
        ("xiangqi", {"move_limit": 60.0}),
        ("xiangqi", {"repetition_count": 3.0}),
        ("gomoku", {"size": 15.0}),
        ("gomoku", {"size": True}),
    ],
)
def test_integer_options_are_strict(
    referee: Any, connect: Callable[..., RefereeClient], variant: str, options: dict[str, Any]
) -> None:
    """Types are strict in option maps too: a bool or a float is not an integer
    option (Python's ``True == 1`` and ``60.0 == 60`` must not leak through)."""
    reply = connect(referee).request(
        CreateGame(variant=variant, players=["a", "b"], options=options)
    )
    assert isinstance(reply, ErrorReply) and reply.code == "bad_request", reply


def test_multi_frame_garbage(referee: Any, raw: Callable[[object], RawPeer], playing: Any) -> None:
    peer = raw(referee)
    before = playing.sync()
    good = pack(wire(Resign(id=15, game_id=playing.game_id, token=playing.tokens[0])))
    for frames in ([b"a", b"b", b"c"], [good, good], [b"", good], [good, b""], [b""] * 50):
        reply = peer.exchange(*frames)
        assert isinstance(reply, ErrorReply) and reply.code == "bad_message", frames
    assert stable(playing.sync()) == stable(before)  # the resign inside was not applied


def test_a_huge_frame_drops_only_that_peer(
    referee: Any,
    raw: Callable[[object], RawPeer],
    playing: Any,
    connect: Callable[..., RefereeClient],
) -> None:
    before = playing.sync()
    other = connect(referee)
    peer = raw(referee)
    huge = pack(
        wire(ChatRequest(id=16, game_id=playing.game_id, text="x"), text="y" * MAX_MESSAGE_BYTES)
    )
    assert len(huge) > MAX_MESSAGE_BYTES
    peer.send(huge)
    # ZeroMQ drops the connection before the referee reads anything: no reply.
    assert peer.recv(timeout_ms=500) is None
    assert stable(other.sync(playing.game_id)) == stable(before)
    # The other clients are served as before, and the game plays on.
    playing.play("h9g7")
    assert other.sync(playing.game_id).moves == ["h2e2", "h9g7"]
    # The dropped DEALER reconnects by itself and is served again.
    reply = peer.exchange(pack(wire(Sync(id=17, game_id=playing.game_id))), timeout_ms=5000)
    assert isinstance(reply, Snapshot) and reply.re == 17


def test_a_frame_under_the_cap_with_an_oversized_field(
    referee: Any, raw: Callable[[object], RawPeer], playing: Any
) -> None:
    payload = pack(wire(ChatRequest(id=18, game_id=playing.game_id, text="x"), text="z" * 1000))
    assert raw(referee).refused(payload).code == "bad_message"
    big_list = pack({**wire(Sync(id=19, game_id=playing.game_id)), "junk": list(range(5000))})
    assert raw(referee).refused(big_list).code == "bad_message"  # over the array limit


def test_garbage_on_the_tcp_port_does_not_hurt(
    referee: Any, playing: Any, connect: Callable[..., RefereeClient]
) -> None:
    host, port = referee.endpoint.removeprefix("tcp://").rsplit(":", 1)
    for blob in (b"GET / HTTP/1.0\r\n\r\n", bytes(range(256)) * 4, b"\xff" + b"\x00" * 8 + b"\x7f"):
        with socket.create_connection((host, int(port)), timeout=2) as conn:
            conn.sendall(blob)
    assert connect(referee).sync(playing.game_id).moves == ["h2e2"]


def test_a_flood_from_one_client_does_not_starve_others(
    referee: Any,
    raw: Callable[[object], RawPeer],
    playing: Any,
    connect: Callable[..., RefereeClient],
) -> None:
    flood = raw(referee)
    probe = connect(referee, timeout_ms=2000)
    before = playing.sync()
    requests = [
        pack(wire(Sync(id=1, game_id=playing.game_id))),
        pack(
            wire(
                MoveRequest(
                    id=2, game_id=playing.game_id, token=playing.tokens[0], ply=1, move="h0g2"
                )
            )
        ),
        pack(wire(Heartbeat(id=3, game_id=playing.game_id, token=playing.tokens[1]))),
        pack(wire(ListGames(id=4))),
        b"\xc1",
    ]
    total, answered, probes = 5000, 0, 0
    codes: set[str] = set()
    sent = 0
    while sent < total or answered < total:
        # Keep up to 500 requests in flight, and probe the service between batches.
        while sent < total and sent - answered < 500:
            flood.send(requests[sent % len(requests)])
            sent += 1
        # another client is answered while the flood is in flight (its reply timeout,
        # not a speed bound: the speed of the referee is `lanqi bench referee`'s)
        probe.sync(playing.game_id)
        probes += 1
        while answered < sent:
            reply = flood.recv(timeout_ms=2000)
            assert reply is not None, f"{sent - answered} requests never answered"
            answered += 1
            if isinstance(reply, ErrorReply):
                codes.add(reply.code)
            if sent < total and sent - answered < 250:
                break
    assert answered == total
    assert codes == {"not_your_turn", "bad_message"}
    assert probes >= total // 500
    assert stable(playing.sync()) == stable(before)


# ---------------------------------------------------------------- fuzzing


_junk = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=True)
    | st.text(max_size=40),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(
    max_examples=300,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    tag=st.sampled_from(sorted(message_types())),
    fields=st.dictionaries(
        st.sampled_from(
            [
                "id",
                "game_id",
                "token",
                "ply",
                "move",
                "seat",
                "text",
                "variant",
                "options",
                "time_control",
                "players",
                "after",
                "limit",
                "status",
                "name",
                "casual",
            ]
        ),
        _junk,
        max_size=6,
    ),
)
def test_hypothesis_typed_junk(
    referee: Any, module_peer: RawPeer, tag: str, fields: dict[str, Any]
) -> None:
    reply = module_peer.exchange(pack({"v": PROTOCOL_VERSION, "t": tag, **fields}))
    if isinstance(reply, ErrorReply):
        assert reply.code in CODES, reply


def _valid_requests(table: Any, rng: random.Random) -> list[Message]:
    """Requests a real client could send about ``table``'s game (the seeds to mutate)."""
    gid, tokens = table.game_id, table.tokens
    token = rng.choice(tokens)
    return [
        MoveRequest(
            id=rng.randrange(2**31),
            game_id=gid,
            token=token,
            ply=rng.randrange(4),
            move=rng.choice(["h2e2", "h9g7", "C2=5", "炮二平五", "b0c2"]),
        ),
        Resign(id=1, game_id=gid, token=token),
        OfferDraw(id=2, game_id=gid, token=token),
        RequestTakeback(id=3, game_id=gid, token=token),
        ChatRequest(id=4, game_id=gid, text="hello", name="fuzz"),
        Join(id=5, game_id=gid, seat=tokens.index(token), token=token),
        Sync(id=6, game_id=gid),
        Heartbeat(id=7, game_id=gid, token=token),
        ListGames(id=8, status="all", limit=5),
        ResultsSince(id=9, after=0, limit=5),
        CreateGame(
            id=10,
            variant=rng.choice(["xiangqi", "gomoku"]),
            players=["a", "b"],
            time_control=TimeControl(kind="fischer", base_ms=60_000),
        ),
    ]


def _junk_value(rng: random.Random, depth: int = 0) -> Any:
    choices: list[Callable[[], Any]] = [
        lambda: None,
        lambda: rng.choice([True, False]),
        lambda: rng.choice([0, -1, 1, 2**31, 2**63 - 1, 2**63, 2**64 - 1, -(2**63)]),
        lambda: rng.uniform(-1e300, 1e300),
        lambda: "".join(chr(rng.randrange(0x20, 0x3000)) for _ in range(rng.randrange(0, 80))),
        lambda: "x" * rng.choice([33, 65, 201, 501, 1001, 5000]),
    ]
    if depth < 3:
        choices.append(lambda: [_junk_value(rng, depth + 1) for _ in range(rng.randrange(4))])
        choices.append(
            lambda: {
                str(rng.randrange(99)): _junk_value(rng, depth + 1) for _ in range(rng.randrange(4))
            }
        )
    return rng.choice(choices)()


def _mutate(data: dict[str, Any], rng: random.Random) -> bytes:
    """One mutation of a valid wire map, packed (some mutate the bytes themselves)."""
    kind = rng.randrange(9)
    data = dict(data)
    if kind == 0:  # drop a field
        data.pop(rng.choice(sorted(data)), None)
    elif kind == 1:  # swap a field's type
        data[rng.choice(sorted(data))] = _junk_value(rng)
    elif kind == 2:  # another tag, the same fields
        data["t"] = rng.choice(sorted(message_types()))
    elif kind == 3:  # extreme numbers
        data[rng.choice(["id", "ply", "seat", "limit", "after", "v"])] = rng.choice(
            [-1, -(2**63), 2**63 - 1, 2**64 - 1, 10**6]
        )
    elif kind == 4:  # nested junk in a new or existing key
        data[rng.choice([*sorted(data), "extra", "options", "time_control"])] = [
            _junk_value(rng) for _ in range(3)
        ]
    try:
        payload = pack(data)
    except (OverflowError, ValueError, TypeError):
        payload = pack({"v": PROTOCOL_VERSION, "t": "sync"})
    if kind == 5:  # flip bytes
        flipped = bytearray(payload)
        for _ in range(rng.randrange(1, 4)):
            flipped[rng.randrange(len(flipped))] ^= 1 << rng.randrange(8)
        payload = bytes(flipped)
    elif kind == 6:  # truncate
        payload = payload[: rng.randrange(len(payload))]
    elif kind == 7:  # trailing bytes
        payload += bytes(rng.randrange(256) for _ in range(rng.randrange(1, 8)))
    elif kind == 8:  # a random tag with random fields
        fields = {
            rng.choice(["game_id", "token", "ply", "move", "id", "text"]): _junk_value(rng)
            for _ in range(3)
        }
        try:
            payload = pack(
                {"v": PROTOCOL_VERSION, "t": rng.choice(sorted(message_types())), **fields}
            )
        except (OverflowError, ValueError, TypeError):
            payload = b"\xc1"
    return payload


def test_fuzz_mutated_requests(
    referee_factory: Callable[..., Any],
    raw: Callable[[object], RawPeer],
    new_table: Callable[..., Table],
    connect: Callable[..., RefereeClient],
) -> None:
    # Long liveness: a seat must not go "disconnected" (an event) while we fuzz.
    process = referee_factory("--disconnect-after", "600", "--abandon-after", "600")
    rng = random.Random(0x1A9C1)
    sentinel = new_table("gomoku", process=process)  # its tokens never reach the fuzzer
    sentinel.play("h8", "h9", "i8")
    targets = [new_table("xiangqi", process=process) for _ in range(3)]  # tokens fuzzed
    for target in targets:
        target.play("h2e2", "h9g7")
    sentinel_before = sentinel.sync()
    targets_before = {t.game_id: t.sync() for t in targets}
    peer = raw(process)
    changed: set[str] = set()  # games named by an accepted request that may change one
    codes: dict[str, int] = {}
    for _ in range(1500):
        seed = rng.choice(_valid_requests(rng.choice(targets), rng))
        payload = _mutate(wire(seed), rng)
        reply = peer.exchange(payload)
        if isinstance(reply, ErrorReply):
            assert reply.code in CODES, (payload, reply)
            codes[reply.code] = codes.get(reply.code, 0) + 1
            continue
        accepted = decode_payload(payload)  # it was valid: which game could it change?
        if accepted.T in GAME_CHANGING:
            changed.add(getattr(accepted, "game_id", ""))
    assert {"bad_message", "bad_version", "unknown_type", "bad_token"} <= set(codes), codes

    # Alive, the sentinel untouched, the targets changed only by accepted requests.
    client = connect(process)
    assert stable(client.sync(sentinel.game_id)) == stable(sentinel_before)
    for game_id, before in targets_before.items():
        if game_id not in changed:
            assert stable(client.sync(game_id)) == stable(before)
    assert process.running

    # A normal game still plays to the end, seen by a view, with its result.
    sentinel.play("a1", "j8", "a2", "k8", "a3", "l8")
    sentinel.assert_ended("1-0", "five_in_a_row", 0)
    fresh = new_table("xiangqi", process=process, fen="4k4/R8/9/9/9/9/9/9/9/1R1K5 w")
    fresh.play("b0b9")
    fresh.assert_ended("1-0", "checkmate", 0)
    assert GameView(connect(process), fresh.game_id).result == "1-0"
