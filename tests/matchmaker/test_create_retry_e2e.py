"""A ``create_game`` the matchmaker retries leaves exactly one game on the referee.

Real processes: ``lanqi referee`` and ``lanqi matchmaker``, with a relay between the
matchmaker's requests and the referee that loses the referee's first ``game_created``
(as if the referee died right after committing the game); the referee is then
killed and started again before the matchmaker's retry.  The retry carries the same
``game_id``, the restarted referee answers it with the game it had stored (the same
tokens), and the players get that one game.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import zmq

from lanqi.client.matchmaker import MatchmakerClient
from lanqi.client.referee import RefereeClient
from lanqi.protocol import (
    CreateGame,
    CreateSeek,
    GameAssigned,
    GameCreated,
    Seek,
    SeekCreated,
    TimeControl,
    decode_payload,
)
from lanqi.security import KeyPair, Link, curve_server


class LoseFirstGameCreated(threading.Thread):
    """A relay (ROUTER in front, DEALER to the referee) for one matchmaker's requests
    that drops the first ``game_created`` reply and notes every ``create_game``."""

    def __init__(self, context: zmq.Context[Any], upstream: str, keys: KeyPair) -> None:
        super().__init__(name="lose-game-created", daemon=True)
        self.front = context.socket(zmq.ROUTER)  # poses as the referee: its CURVE keys
        self.front.setsockopt(zmq.LINGER, 0)
        curve_server(self.front, keys)
        self.endpoint = f"tcp://127.0.0.1:{self.front.bind_to_random_port('tcp://127.0.0.1')}"
        self.back = context.socket(zmq.DEALER)
        self.back.setsockopt(zmq.LINGER, 0)
        Link.to(keys.public).setup(self.back)
        self.back.connect(upstream)
        self.stopping = threading.Event()
        self.lost = threading.Event()
        self.lost_reply: GameCreated | None = None
        self.creates: list[CreateGame] = []

    def run(self) -> None:
        poller = zmq.Poller()
        poller.register(self.front, zmq.POLLIN)
        poller.register(self.back, zmq.POLLIN)
        identity = b""
        try:
            while not self.stopping.is_set():
                ready = dict(poller.poll(100))
                if self.front in ready:
                    identity, payload = self.front.recv_multipart()
                    request = decode_payload(payload)
                    if isinstance(request, CreateGame):
                        self.creates.append(request)
                    self.back.send(payload)
                if self.back in ready:
                    payload = self.back.recv()
                    reply = decode_payload(payload)
                    if isinstance(reply, GameCreated) and self.lost_reply is None:
                        self.lost_reply = reply
                        self.lost.set()
                        continue
                    self.front.send_multipart([identity, payload])
        finally:
            self.front.close(linger=0)
            self.back.close(linger=0)


def test_a_retried_create_leaves_one_game_on_the_referee(
    lanqi: Any,
    mm: Callable[..., MatchmakerClient],
    names: Callable[..., list[str]],
    zmq_context: zmq.Context[Any],
) -> None:
    referee = lanqi.referee()
    relay = LoseFirstGameCreated(zmq_context, referee.endpoints["requests"], referee.keys)
    relay.start()
    try:
        matchmaker = lanqi.matchmaker(referee, referee_requests=relay.endpoint)
        ann, bob = mm(matchmaker), mm(matchmaker)
        ann_name, bob_name = names(2, "retry")
        ann.hello(ann_name)
        bob.hello(bob_name)
        seek = Seek(variant="gomoku", time_control=TimeControl(kind="per_move", per_move_ms=30_000))
        assert not ann.call(CreateSeek(seek=seek), SeekCreated).paired
        assert bob.call(CreateSeek(seek=seek), SeekCreated).paired
        assert relay.lost.wait(10), "the referee never answered the create"
        referee.restart(kill=True)  # the referee dies between the create and its reply
        assignments = [_assignment(player, 30.0) for player in (ann, bob)]
    finally:
        relay.stopping.set()
        relay.join(timeout=5)
    lost = relay.lost_reply
    assert lost is not None
    assert len(relay.creates) >= 2, "the matchmaker did not send the create again"
    assert {c.game_id for c in relay.creates} == {lost.game_id}
    assert {a.game_id for a in assignments} == {lost.game_id}
    assert sorted((a.seat, a.token) for a in assignments) == list(enumerate(lost.tokens))
    with RefereeClient(referee.endpoints["requests"], referee.events, context=zmq_context) as rc:
        games = rc.list_games("all").games
        assert [g.game_id for g in games] == [lost.game_id]
        for a in assignments:  # the tokens the players got hold the seats of that game
            assert rc.join(a.game_id, seat=a.seat, token=a.token).your_seat == a.seat


def _assignment(player: MatchmakerClient, timeout_s: float) -> Any:
    deadline = time.monotonic() + timeout_s
    while (left := deadline - time.monotonic()) > 0:
        push = player.next_push(int(left * 1000) + 1)
        if isinstance(push, GameAssigned):
            return push.game
        assert push is None, f"unexpected push {push!r}"
    raise AssertionError(f"no game_assigned within {timeout_s} s")
