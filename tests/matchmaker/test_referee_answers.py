"""How the matchmaker takes a referee's ``internal`` answers: it asks again.

The matchmaker runs in this process on real sockets; the referee is a scripted peer
(a ROUTER for requests and an XPUB for the ``results`` topic) that answers what the
test tells it to, so a store failure is an answer away.  The periodic reconcile is
pushed out of reach, so whatever the matchmaker asks again it asks on its own.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import pytest
import zmq

from lanqi.client.matchmaker import MatchmakerClient
from lanqi.games.base import ResultText
from lanqi.matchmaker import service as service_module
from lanqi.matchmaker.referees import SAME_REFEREE_ATTEMPTS, parse_referee
from lanqi.matchmaker.service import MAX_CREATE_FAILURES, MatchmakerConfig, MatchmakerService
from lanqi.protocol import (
    CreateGame,
    CreateSeek,
    ErrorReply,
    GameAssigned,
    GameCreated,
    GameResult,
    Message,
    Request,
    ResultsList,
    ResultsSince,
    Seek,
    SeekCreated,
    TimeControl,
    decode_payload,
    encode,
    encode_event,
)
from lanqi.protocol.endpoints import TOPIC_RESULTS
from lanqi.security import KeyPair, curve_server

from .conftest import read_store

R = TypeVar("R", bound=Request)
STORE_FAILS = "the referee could not store this; send it again"


class ScriptedReferee:
    """The referee's two sockets, driven by the test (CURVE servers with a key pair of
    their own, given to the matchmaker with ``key=``)."""

    def __init__(self, context: zmq.Context[Any]) -> None:
        self.keys = KeyPair.ephemeral()
        self.router = context.socket(zmq.ROUTER)
        self.router.setsockopt(zmq.LINGER, 0)
        curve_server(self.router, self.keys)
        port = self.router.bind_to_random_port("tcp://127.0.0.1")
        self.endpoint = f"tcp://127.0.0.1:{port}"
        self.xpub = context.socket(zmq.XPUB)
        self.xpub.setsockopt(zmq.LINGER, 0)
        curve_server(self.xpub, self.keys)
        pub_port = self.xpub.bind_to_random_port("tcp://127.0.0.1")
        self.pub_endpoint = f"tcp://127.0.0.1:{pub_port}"
        self.identity = b""

    def expect(self, kind: type[R], timeout_ms: int = 10_000) -> R:
        """The next request, which must be a ``kind``."""
        assert self.router.poll(timeout_ms), f"no {kind.T} from the matchmaker"
        identity, payload = self.router.recv_multipart()
        self.identity = identity
        request = decode_payload(payload)
        assert isinstance(request, kind), f"expected {kind.T}, got {request!r}"
        return request

    def answer(self, reply: Message) -> None:
        self.router.send_multipart([self.identity, *encode(reply)])

    def refuse(self, request: Request) -> None:
        self.answer(ErrorReply(re=request.id, code="internal", msg=STORE_FAILS))

    def create_games(
        self, tokens: list[str], until: Callable[[], bool], timeout_s: float = 10.0
    ) -> list[CreateGame]:
        """Answer every ``create_game`` as a referee that stored the game does (the
        same ``game_created`` each time) until ``until()`` holds; the requests."""
        seen: list[CreateGame] = []
        deadline = time.monotonic() + timeout_s
        while not until():
            assert time.monotonic() < deadline, "timed out answering create_game"
            if self.router.poll(20):
                request = self.expect(CreateGame)
                seen.append(request)
                self.answer(
                    GameCreated(re=request.id, game_id=request.game_id or "", tokens=tokens)
                )
        return seen

    def wait_subscribed(self, topic: str, timeout_ms: int = 10_000) -> None:
        """Until the matchmaker's SUB has subscribed to ``topic`` (XPUB tells)."""
        while self.xpub.poll(timeout_ms):
            if self.xpub.recv() == b"\x01" + topic.encode():
                return
        raise AssertionError(f"nobody subscribed to {topic!r}")

    def publish(self, message: Message) -> None:
        self.xpub.send_multipart(encode_event(TOPIC_RESULTS, message))

    def close(self) -> None:
        self.router.close(linger=0)
        self.xpub.close(linger=0)


@pytest.fixture
def fake_referee(zmq_context: zmq.Context[Any]) -> Iterator[ScriptedReferee]:
    referee = ScriptedReferee(zmq_context)
    try:
        yield referee
    finally:
        referee.close()


@contextmanager
def running_matchmaker(
    referees: list[ScriptedReferee], data_dir: Path, context: zmq.Context[Any]
) -> Iterator[MatchmakerService]:
    """A matchmaker in a thread in front of the scripted referees."""
    config = MatchmakerConfig(
        port=0,
        pub_port=0,
        data_dir=data_dir,
        referees=[
            parse_referee(f"{r.endpoint},{r.pub_endpoint},key={r.keys.public.decode()}")
            for r in referees
        ],
        director_key="key",
    )
    service = MatchmakerService(config, context)
    service.bind()
    thread = threading.Thread(target=service.serve_forever, name="matchmaker", daemon=True)
    thread.start()
    try:
        yield service
    finally:
        service.stop()
        thread.join(timeout=10)
        assert not thread.is_alive(), "the matchmaker did not stop"
        service.close()


@pytest.fixture(autouse=True)
def _no_periodic_reconcile(monkeypatch: pytest.MonkeyPatch) -> None:
    """The periodic reconcile an hour away; unanswered creates sent again after 0.5 s."""
    monkeypatch.setattr(service_module, "RECONCILE_EVERY_MS", 3_600_000.0)
    monkeypatch.setattr(service_module, "CREATE_TIMEOUT_MS", 500.0)


@pytest.fixture
def matchmaker(
    fake_referee: ScriptedReferee, tmp_path: Path, zmq_context: zmq.Context[Any]
) -> Iterator[MatchmakerService]:
    """A matchmaker in a thread in front of the scripted referee."""
    with running_matchmaker([fake_referee], tmp_path, zmq_context) as service:
        yield service


def _result(game_id: str, result_seq: int, result: ResultText = "1-0") -> GameResult:
    return GameResult(
        game_id=game_id,
        result_seq=result_seq,
        variant="gomoku",
        players=["a", "b"],
        result=result,
        termination="resignation",
        moves=["h8", "h9", "h10"],
    )


def _cursor(data_dir: Path) -> int:
    rows = read_store(data_dir, "SELECT last_result_seq FROM referee_cursors")
    return int(rows[0][0]) if rows else 0


def _wait(predicate: Callable[[], bool], what: str, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)  # polling a condition against a deadline


def _pair(client: Callable[[], MatchmakerClient]) -> tuple[MatchmakerClient, MatchmakerClient]:
    """Two players whose seeks pair (the matchmaker then asks for the game)."""
    one, two = client(), client()
    one.hello("ann")
    two.hello("bob")
    seek = Seek(variant="gomoku", time_control=TimeControl(kind="per_move", per_move_ms=9_000))
    assert not one.call(CreateSeek(seek=seek), SeekCreated).paired
    assert two.call(CreateSeek(seek=seek), SeekCreated).paired
    return one, two


@pytest.fixture
def connect(
    zmq_context: zmq.Context[Any],
) -> Iterator[Callable[[MatchmakerService], MatchmakerClient]]:
    """``connect(service)``: a client of the in-process matchmaker, closed after the test."""
    clients: list[MatchmakerClient] = []

    def make(service: MatchmakerService) -> MatchmakerClient:
        made = MatchmakerClient(
            service.endpoint, service.pub_endpoint, context=zmq_context, timeout_ms=5000
        )
        clients.append(made)
        return made

    try:
        yield make
    finally:
        for made in clients:
            made.close()


@pytest.fixture
def client(
    matchmaker: MatchmakerService, connect: Callable[[MatchmakerService], MatchmakerClient]
) -> Callable[[], MatchmakerClient]:
    return lambda: connect(matchmaker)


def test_a_refused_results_since_is_asked_again_for_the_same_results(
    matchmaker: MatchmakerService, fake_referee: ScriptedReferee, tmp_path: Path
) -> None:
    start = fake_referee.expect(ResultsSince)  # the reconcile at start
    assert start.after == 0
    fake_referee.answer(ResultsList(re=start.id))
    fake_referee.wait_subscribed(TOPIC_RESULTS)
    # result 2 comes live, 1 was dropped: the gap is asked for (after 0) ...
    fake_referee.publish(_result("elsewhere-2", 2))
    gap = fake_referee.expect(ResultsSince)
    assert gap.after == 0
    fake_referee.refuse(gap)  # ... while the referee's store fails
    again = fake_referee.expect(ResultsSince)  # asked again, not an hour later
    # the same results: the live result 2 is recorded, but the cursor waits at 0 for 1
    assert again.after == 0 and again.id != gap.id
    fake_referee.refuse(again)  # still failing: asked again (a longer back-off)
    third = fake_referee.expect(ResultsSince)
    assert third.after == 0
    fake_referee.answer(ResultsList(re=third.id, results=[_result("elsewhere-1", 1)]))
    # the gap filled: on over 1 and the 2 heard ahead of it
    _wait(lambda: _cursor(tmp_path) == 2, "the cursor to move over results 1 and 2")


def test_a_lobby_game_refused_internal_is_created_on_a_retry(
    matchmaker: MatchmakerService,
    fake_referee: ScriptedReferee,
    client: Callable[[], MatchmakerClient],
    tmp_path: Path,
) -> None:
    fake_referee.answer(ResultsList(re=fake_referee.expect(ResultsSince).id))
    ann, bob = _pair(client)
    first = fake_referee.expect(CreateGame)
    assert first.game_id
    fake_referee.refuse(first)
    second = fake_referee.expect(CreateGame)
    fake_referee.refuse(second)
    third = fake_referee.expect(CreateGame)
    # the very same create each time: a referee that did store it answers with that game
    assert first.game_id == second.game_id == third.game_id
    assert [r.players for r in (first, second, third)] == [first.players] * 3
    tokens = ["t0", "t1"]
    fake_referee.answer(GameCreated(re=third.id, game_id=third.game_id or "", tokens=tokens))
    stored = "SELECT game_id, status FROM games"
    fake_referee.create_games(tokens, until=lambda: bool(read_store(tmp_path, stored)))
    for player in (ann, bob):
        push = player.next_push(5000)
        assert isinstance(push, GameAssigned), push
        assert push.game.game_id == first.game_id
        assert push.game.token == tokens[push.game.seat]
    games = read_store(tmp_path, stored)
    assert [tuple(g) for g in games] == [(first.game_id, "playing")]


def test_a_lobby_game_refused_internal_too_often_fails(
    matchmaker: MatchmakerService,
    fake_referee: ScriptedReferee,
    client: Callable[[], MatchmakerClient],
    tmp_path: Path,
) -> None:
    fake_referee.answer(ResultsList(re=fake_referee.expect(ResultsSince).id))
    ann, bob = _pair(client)
    creates = []
    for _ in range(MAX_CREATE_FAILURES):
        creates.append(fake_referee.expect(CreateGame))
        fake_referee.refuse(creates[-1])
    assert len({c.game_id for c in creates}) == 1
    for player in (ann, bob):
        push = player.next_push(10_000)
        assert isinstance(push, ErrorReply) and push.code == "game_failed", push
        assert STORE_FAILS in push.msg
    assert not fake_referee.router.poll(0), "asked again after telling the players it failed"
    assert read_store(tmp_path, "SELECT game_id FROM games") == []


def test_a_game_that_ended_before_its_create_was_answered_gets_its_result(
    matchmaker: MatchmakerService,
    fake_referee: ScriptedReferee,
    client: Callable[[], MatchmakerClient],
    tmp_path: Path,
) -> None:
    """The reply to a create is lost; the game ends on the referee (nobody joined)
    before the retry is answered: its result, heard first, is recorded once it is."""
    fake_referee.answer(ResultsList(re=fake_referee.expect(ResultsSince).id))
    fake_referee.wait_subscribed(TOPIC_RESULTS)
    _pair(client)
    lost = fake_referee.expect(CreateGame)  # created, but the reply never comes
    fake_referee.publish(
        GameResult(
            game_id=lost.game_id or "",
            result_seq=1,
            variant="gomoku",
            players=list(lost.players),
            result="*",
            termination="abandoned",
        )
    )
    _wait(lambda: _cursor(tmp_path) == 1, "the matchmaker to hear the result")
    sql = "SELECT status, result, termination FROM games WHERE game_id = ?"
    retries = fake_referee.create_games(
        ["a", "b"], until=lambda: bool(read_store(tmp_path, sql, (lost.game_id,)))
    )
    assert retries and {r.game_id for r in retries} == {lost.game_id}
    # stored first, then its result recorded (two commits the reader may see apart)
    _wait(
        lambda: read_store(tmp_path, sql, (lost.game_id,))[0][0] == "finished",
        "the result to be recorded",
    )
    assert tuple(read_store(tmp_path, sql, (lost.game_id,))[0]) == ("finished", "*", "abandoned")


def test_a_silent_referee_is_given_up_for_another_after_three_tries(
    zmq_context: zmq.Context[Any],
    connect: Callable[[MatchmakerService], MatchmakerClient],
    tmp_path: Path,
) -> None:
    silent, other = ScriptedReferee(zmq_context), ScriptedReferee(zmq_context)
    try:
        with running_matchmaker([silent, other], tmp_path, zmq_context) as service:
            for referee in (silent, other):
                referee.answer(ResultsList(re=referee.expect(ResultsSince).id))
            ann, bob = _pair(lambda: connect(service))
            # both referees are idle: the first create goes to either; it never answers
            poller = zmq.Poller()
            poller.register(silent.router, zmq.POLLIN)
            poller.register(other.router, zmq.POLLIN)
            ready = dict(poller.poll(10_000))
            first, second = (silent, other) if silent.router in ready else (other, silent)
            tries = [first.expect(CreateGame) for _ in range(SAME_REFEREE_ATTEMPTS)]
            stored = "SELECT referee FROM games"
            moved = second.create_games(
                ["x", "y"], until=lambda: bool(read_store(tmp_path, stored))
            )
            assert moved and {t.game_id for t in tries} == {m.game_id for m in moved}
            assert [tuple(r) for r in read_store(tmp_path, stored)] == [(second.endpoint,)]
            for player in (ann, bob):
                push = player.next_push(5000)
                assert isinstance(push, GameAssigned), push
                assert push.game.referee == second.endpoint
    finally:
        silent.close()
        other.close()
