"""What the matchmaker refuses, with which code, and that it keeps serving after.

One ``lanqi serve`` for the module; its log must stay free of ERROR records (a
refusal is not an error of the service), and no reply may be ``internal``.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator
from typing import Any, cast

import msgpack
import pytest
import zmq

from lanqi.client.matchmaker import MatchmakerClient, MatchmakerRefused
from lanqi.protocol import (
    PROTOCOL_VERSION,
    AcceptChallenge,
    Assignment,
    CancelSeek,
    Challenge,
    CreateGame,
    CreateSeek,
    CreateTournament,
    ErrorReply,
    Exported,
    ExportTournament,
    FinishTournament,
    GameAssigned,
    GetStandings,
    Hello,
    JoinTournament,
    ListPlayers,
    ListSeeks,
    Ok,
    PauseTournament,
    Ping,
    PlayersList,
    Request,
    Seek,
    SeeksList,
    Standings,
    StartTournament,
    TimeControl,
    TournamentCreated,
    TournamentSpec,
    WithdrawTournament,
    decode,
    encode,
)
from lanqi.security import KnownServers, trust_server

DIRECTOR_KEY = "matchmaker-tests-director-key"  # as in conftest.py
_ids = itertools.count(1)


def code_of(client: MatchmakerClient, request: Request) -> str:
    reply = client.request(request)
    assert isinstance(reply, ErrorReply), f"{request.T} was not refused: {reply}"
    assert reply.re is not None and reply.msg, reply
    return reply.code


@pytest.fixture
def client(module_server: Any, mm: Callable[..., MatchmakerClient]) -> MatchmakerClient:
    return mm(module_server)


@pytest.fixture
def hello(
    module_server: Any, mm: Callable[..., MatchmakerClient], names: Callable[..., list[str]]
) -> Callable[[], MatchmakerClient]:
    def make() -> MatchmakerClient:
        c = mm(module_server)
        c.hello(names(1, "p")[0])
        return c

    return make


@pytest.fixture
def tournament(client: MatchmakerClient) -> str:
    spec = TournamentSpec(name="refusals", format="round_robin", variant="gomoku")
    return client.call(
        CreateTournament(director_key=DIRECTOR_KEY, spec=spec), TournamentCreated
    ).tournament_id


@pytest.fixture
def raw(module_server: Any, zmq_context: zmq.Context[Any]) -> Iterator[zmq.Socket[bytes]]:
    """A bare DEALER for messages no client would build."""
    sock = zmq_context.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.RCVTIMEO, 5000)
    trust_server(module_server.lobby, known=KnownServers.of()).setup(sock)
    sock.connect(module_server.lobby)
    yield sock
    sock.close(linger=0)


def test_requests_before_hello(client: MatchmakerClient, tournament: str) -> None:
    for request in (
        Ping(),
        CreateSeek(seek=Seek(variant="gomoku")),
        CancelSeek(seek_id="x"),
        Challenge(to="anyone", seek=Seek(variant="gomoku")),
        AcceptChallenge(challenge_id="x"),
        JoinTournament(tournament_id=tournament),
        WithdrawTournament(tournament_id=tournament),
    ):
        assert code_of(client, request) == "no_session", request.T
    # reading needs no session
    assert client.call(ListSeeks(), SeeksList) is not None
    assert client.call(GetStandings(tournament_id=tournament), Standings).tournament.status == (
        "open"
    )


def test_director_key_is_required(
    client: MatchmakerClient, hello: Callable[[], MatchmakerClient], tournament: str
) -> None:
    me, other = hello(), hello()
    assert other.welcome is not None
    them = other.welcome.name
    # entering someone else: only the director
    assert code_of(me, JoinTournament(tournament_id=tournament, player=them)) == "unauthorized"
    assert (
        code_of(me, JoinTournament(tournament_id=tournament, player=them, director_key="guess"))
        == "unauthorized"
    )
    assert code_of(me, WithdrawTournament(tournament_id=tournament, player=them)) == "unauthorized"
    for action in (StartTournament, PauseTournament, FinishTournament):
        for key in ("", "wrong", DIRECTOR_KEY[:-1]):
            request = action(tournament_id=tournament, director_key=key)
            assert code_of(me, request) == "unauthorized", (action.T, key)
    spec = TournamentSpec(name="x", format="swiss", variant="gomoku")
    assert code_of(me, CreateTournament(director_key="wrong", spec=spec)) == "unauthorized"
    # none of it changed anything
    standings = client.call(GetStandings(tournament_id=tournament), Standings)
    assert standings.tournament.status == "open" and standings.tournament.players == []
    # with the key, it works
    client.call(
        JoinTournament(tournament_id=tournament, player=them, director_key=DIRECTOR_KEY), Ok
    )
    assert code_of(
        client, JoinTournament(tournament_id=tournament, player=them, director_key=DIRECTOR_KEY)
    ) == ("already_joined")
    # a name nobody has: only the director makes it a roster entry (docs/protocol.md,
    # "Rosters and claim codes"), and withdrawing one is refused
    nobody = JoinTournament(tournament_id=tournament, player="nobody-here", director_key="guess")
    assert code_of(me, nobody) == "unauthorized"
    assert (
        code_of(
            client,
            WithdrawTournament(
                tournament_id=tournament, player="nobody-here", director_key=DIRECTOR_KEY
            ),
        )
        == "unknown_player"
    )
    assert "nobody-here" not in {p.name for p in client.call(ListPlayers(), PlayersList).players}
    # one entrant is not a tournament
    assert (
        code_of(client, StartTournament(tournament_id=tournament, director_key=DIRECTOR_KEY))
        == "bad_request"
    )


def test_unknown_tournament(hello: Callable[[], MatchmakerClient]) -> None:
    me = hello()
    for request in (
        GetStandings(tournament_id="no-such"),
        JoinTournament(tournament_id="no-such"),
        StartTournament(tournament_id="no-such", director_key=DIRECTOR_KEY),
        ExportTournament(tournament_id="no-such", format="txt"),
    ):
        assert code_of(me, request) == "unknown_tournament", request.T


def test_names_and_sessions(
    module_server: Any, mm: Callable[..., MatchmakerClient], names: Callable[..., list[str]]
) -> None:
    name = names(1, "erin")[0]
    welcome = mm(module_server).hello(name)
    for taken in (name, name.upper()):
        assert code_of(mm(module_server), Hello(name=taken)) == "name_taken"
    assert code_of(mm(module_server), Hello(name=name, session="not-a-session")) == "bad_session"
    for bad in ("", "   ", "tab\there"):
        assert code_of(mm(module_server), Hello(name=bad)) == "bad_request", repr(bad)
    # a player kind is a closed word, checked when the request is decoded
    alien = Hello(name=names(1)[0], kind=cast("Any", "alien"))
    assert code_of(mm(module_server), alien) == "bad_message"
    # the identity survived all that
    again = mm(module_server).hello(name, session=welcome.session)
    assert again.player_id == welcome.player_id


@pytest.mark.parametrize(
    "seek",
    [
        Seek(variant="chess"),
        Seek(variant="gomoku", color="purple"),
        Seek(variant="gomoku", options={"size": 7}),
        Seek(variant="xiangqi", options={"no_such_option": 1}),
        Seek(variant="gomoku", time_control=TimeControl(kind="fischer", base_ms=0)),
        Seek(variant="gomoku", time_control=TimeControl(kind="per_move")),
        Seek(variant="gomoku", time_control=TimeControl(first_move_ms=30)),  # seconds?
    ],
    ids=[
        "variant",
        "color",
        "size",
        "option",
        "no-base",
        "no-per-move",
        "first-move-ms",
    ],
)
def test_bad_seek_options(hello: Callable[[], MatchmakerClient], seek: Seek) -> None:
    me, other = hello(), hello()
    assert other.welcome is not None
    assert code_of(me, CreateSeek(seek=seek)) == "bad_request"
    assert code_of(me, Challenge(to=other.welcome.name, seek=seek)) == "bad_request"
    assert all(s.seek != seek for s in me.call(ListSeeks(), SeeksList).seeks)


def test_an_unknown_clock_kind_is_a_bad_message(hello: Callable[[], MatchmakerClient]) -> None:
    me, other = hello(), hello()
    assert other.welcome is not None
    seek = Seek(variant="gomoku", time_control=TimeControl(kind=cast("Any", "blitz")))
    assert code_of(me, CreateSeek(seek=seek)) == "bad_message"
    assert code_of(me, Challenge(to=other.welcome.name, seek=seek)) == "bad_message"
    assert all(s.seek != seek for s in me.call(ListSeeks(), SeeksList).seeks)


def test_bad_tournament_requests(client: MatchmakerClient, tournament: str) -> None:
    for spec in (
        TournamentSpec(name="x", format="ladder", variant="gomoku"),
        TournamentSpec(name="x", format="swiss", variant="chess"),
        TournamentSpec(name="x", format="swiss", variant="gomoku", options={"size": 3}),
    ):
        assert code_of(client, CreateTournament(director_key=DIRECTOR_KEY, spec=spec)) == (
            "bad_request"
        )
    assert code_of(client, ExportTournament(tournament_id=tournament, format="docx")) == (
        "bad_request"
    )


def _raw_reply(sock: zmq.Socket[bytes], frames: list[bytes]) -> ErrorReply:
    sock.send_multipart(frames)
    reply = decode(sock.recv_multipart())
    assert isinstance(reply, ErrorReply), reply
    return reply


def _packed(**fields: Any) -> bytes:
    return bytes(msgpack.packb(fields))


@pytest.mark.parametrize(
    ("frames", "code", "echoes_id"),
    [
        ([b"\xc1not msgpack"], "bad_message", False),
        ([b""], "bad_message", False),
        ([_packed(v=1, t="ping", id=1), b"extra"], "bad_message", False),
        ([bytes(msgpack.packb([1, 2, 3]))], "bad_message", False),
        ([_packed(t="ping", id=7)], "bad_version", True),
        ([_packed(v=PROTOCOL_VERSION + 1, t="ping", id=7)], "bad_version", True),
        ([_packed(v=PROTOCOL_VERSION, t="fly", id=7)], "unknown_type", True),
        ([_packed(v=PROTOCOL_VERSION, id=7)], "unknown_type", True),
        ([_packed(v=PROTOCOL_VERSION, t="hello", id=7, name=5)], "bad_message", True),
        ([_packed(v=PROTOCOL_VERSION, t="hello", id=7, name="n" * 41)], "bad_message", True),
        ([_packed(v=PROTOCOL_VERSION, t="hello", id=7)], "bad_message", True),
        ([_packed(v=PROTOCOL_VERSION, t="seek", id=7, seek="gomoku")], "bad_message", True),
        (
            [
                _packed(
                    v=PROTOCOL_VERSION,
                    t="challenge",
                    id=7,
                    to="x",
                    seek={"variant": "gomoku"},
                    expires_s=0,
                )
            ],
            "bad_message",
            True,
        ),
        (encode(CreateGame(id=7, variant="gomoku", players=["a", "b"])), "unknown_type", True),
        # another service's request, a reply or an event: refused by type, not by fields
        ([_packed(v=PROTOCOL_VERSION, t="sync", id=7)], "unknown_type", True),
        ([_packed(v=PROTOCOL_VERSION, t="move", id=7, ply="x")], "unknown_type", True),
        ([_packed(v=PROTOCOL_VERSION, t="welcome", id=7)], "unknown_type", True),
        ([_packed(v=PROTOCOL_VERSION, t="lobby", id=7)], "unknown_type", True),
        # a version that only Python would call 1
        ([_packed(v=True, t="ping", id=7)], "bad_version", True),
        ([_packed(v=1.0, t="ping", id=7)], "bad_version", True),
        # unreadable values elsewhere in the map: the id is still read and echoed
        ([_packed(v=PROTOCOL_VERSION, t="hello", id=7, name=b"ann")], "bad_message", True),
        (
            [_packed(v=PROTOCOL_VERSION, t="ping", id=7, junk={str(i): 0 for i in range(300)})],
            "bad_message",
            True,
        ),
        ([_packed(v=PROTOCOL_VERSION, t="ping", id=7, junk=[0] * 5000)], "bad_message", True),
        ([b"", _packed(v=PROTOCOL_VERSION, t="ping", id=7)], "bad_message", True),
    ],
    ids=[
        "not-msgpack",
        "empty",
        "two-frames",
        "not-a-map",
        "no-version",
        "future-version",
        "unknown-type",
        "no-type",
        "name-not-a-string",
        "name-too-long",
        "name-missing",
        "seek-not-a-map",
        "expires-zero",
        "referee-request",
        "referee-request-without-fields",
        "referee-request-with-bad-fields",
        "reply-tag",
        "event-tag",
        "version-true",
        "version-float",
        "bin-value",
        "big-map",
        "long-array",
        "delimiter-frame",
    ],
)
def test_malformed_messages(
    raw: zmq.Socket[bytes],
    frames: list[bytes],
    code: str,
    echoes_id: bool,
    client: MatchmakerClient,
) -> None:
    reply = _raw_reply(raw, frames)
    assert reply.code == code, reply
    assert reply.re == (7 if echoes_id else None)
    # and the service goes on: the same connection and a new one are served
    raw.send_multipart(encode(ListSeeks(id=8)))
    assert isinstance(decode(raw.recv_multipart()), SeeksList)
    assert client.call(ListSeeks(), SeeksList) is not None


def test_oversized_message_costs_only_its_connection(
    module_server: Any, zmq_context: zmq.Context[Any], hello: Callable[[], MatchmakerClient]
) -> None:
    big = zmq_context.socket(zmq.DEALER)
    big.setsockopt(zmq.LINGER, 0)
    try:
        trust_server(module_server.lobby, known=KnownServers.of()).setup(big)
        big.connect(module_server.lobby)
        big.send_multipart([b"\x00" * (2 * 1024 * 1024)])  # over ZMQ_MAXMSGSIZE
    finally:
        big.close(linger=0)
    me = hello()  # the server still says welcome
    assert me.call(Ping(), Ok) is not None


def test_no_internal_errors_after_all_that(
    hello: Callable[[], MatchmakerClient], module_server: Any
) -> None:
    me = hello()
    assert me.call(Ping(), Ok) is not None
    log = module_server.log_text()
    assert "internal error" not in log and "Traceback" not in log
    with pytest.raises(MatchmakerRefused):
        me.call(CancelSeek(seek_id="none"), Ok)


def test_standings_of_an_open_event_not_yet_valid(
    client: MatchmakerClient, hello: Callable[[], MatchmakerClient]
) -> None:
    """A 5-round Swiss with two entrants cannot start, but its standings and
    exports are served (empty; the report with the event's facts) meanwhile, not refused."""
    spec = TournamentSpec(name="early", format="swiss", variant="gomoku", rounds=5)
    tid = client.call(
        CreateTournament(director_key=DIRECTOR_KEY, spec=spec), TournamentCreated
    ).tournament_id
    for entrant in (hello(), hello()):
        entrant.call(JoinTournament(tournament_id=tid), Ok)
    standings = client.call(GetStandings(tournament_id=tid), Standings)
    assert len(standings.tournament.players) == 2 and standings.rows == []
    for fmt in ("txt", "csv", "pgn"):
        assert client.call(ExportTournament(tournament_id=tid, format=fmt), Exported).text == ""
    # the report shows the event's facts and no standings yet (docs/protocol.md, tour_export)
    page = client.call(ExportTournament(tournament_id=tid, format="html"), Exported).text
    assert "<h1>early</h1>" in page and "<dd>not played yet</dd>" in page
    assert "<h2>Standings</h2>" in page and '<td class="name">' not in page
    assert (
        code_of(client, StartTournament(tournament_id=tid, director_key=DIRECTOR_KEY))
        == "bad_request"
    )


def test_withdrawing_is_refused_once_the_tournament_is_over(
    client: MatchmakerClient, hello: Callable[[], MatchmakerClient]
) -> None:
    """docs/protocol.md, ``tour_withdraw``: accepted while the event is open, running
    or paused; ``closed`` once it is finished.  Its games are assigned with the
    options spelled out, like lobby games."""
    spec = TournamentSpec(name="withdrawals", format="round_robin", variant="gomoku", rated=False)
    tid = client.call(
        CreateTournament(director_key=DIRECTOR_KEY, spec=spec), TournamentCreated
    ).tournament_id
    players = [hello() for _ in range(5)]
    for player in players:
        player.call(JoinTournament(tournament_id=tid), Ok)
    players[0].call(WithdrawTournament(tournament_id=tid), Ok)  # open
    client.call(StartTournament(tournament_id=tid, director_key=DIRECTOR_KEY), Ok)
    assigned = first_assignment(players[1:])  # four entrants: everyone plays round 1
    assert assigned.tournament_id == tid
    assert assigned.options == {"size": 15, "rule": "freestyle"}
    players[1].call(WithdrawTournament(tournament_id=tid), Ok)  # running
    client.call(PauseTournament(tournament_id=tid, director_key=DIRECTOR_KEY), Ok)
    players[2].call(WithdrawTournament(tournament_id=tid), Ok)  # paused
    client.call(FinishTournament(tournament_id=tid, director_key=DIRECTOR_KEY), Ok)
    assert code_of(players[3], WithdrawTournament(tournament_id=tid)) == "closed"
    name = players[4].welcome.name if players[4].welcome else ""
    by_director = WithdrawTournament(tournament_id=tid, player=name, director_key=DIRECTOR_KEY)
    assert code_of(client, by_director) == "closed"


def first_assignment(players: list[MatchmakerClient], timeout_s: float = 10.0) -> Assignment:
    """The first ``game_assigned`` any of ``players`` receives."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for player in players:
            push = player.next_push(50)
            if isinstance(push, GameAssigned):
                return push.game
    raise AssertionError(f"no game_assigned push within {timeout_s} s")
