"""A result whose live message and ``results_since`` reply are both lost still counts,
exactly once.

Real processes: ``lanqi referee`` and ``lanqi matchmaker``, with two relays between
them.  On the referee's ``results`` topic the relay drops the live result of the
first game to end; on the request line the relay drops the replies to
``results_since`` that carry that result until one was dropped after the second
game's result went by live.  The second result (seq 2) shows the matchmaker a gap,
its ``results_since`` reply is lost, and a matchmaker whose cursor jumped to the
highest seq heard live (2) would never ask for seq 1 again.  Its cursor moves only
over results it has recorded, and an unanswered ``results_since`` is asked again, so
the first game is recorded, once, and both rated games move the ratings once each.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import zmq

from lanqi.client.matchmaker import MatchmakerClient
from lanqi.client.referee import GameView, RefereeClient
from lanqi.protocol import (
    Assignment,
    CreateSeek,
    GameResult,
    ResultsList,
    Seek,
    SeekCreated,
    TimeControl,
    decode_payload,
)
from lanqi.security import KeyPair, Link, curve_server

from .conftest import assigned, read_store


class LossyRelays(threading.Thread):
    """A ROUTER/DEALER relay for the matchmaker's requests and a SUB/PUB relay for the
    referee's events, losing what the module docstring says.  Both pose as the
    referee with its ``keys`` (CURVE on both sides)."""

    def __init__(
        self, context: zmq.Context[Any], requests: str, events: str, keys: KeyPair
    ) -> None:
        super().__init__(name="lossy-relays", daemon=True)
        self.front = context.socket(zmq.ROUTER)
        self.front.setsockopt(zmq.LINGER, 0)
        curve_server(self.front, keys)
        self.endpoint = f"tcp://127.0.0.1:{self.front.bind_to_random_port('tcp://127.0.0.1')}"
        self.back = context.socket(zmq.DEALER)
        self.back.setsockopt(zmq.LINGER, 0)
        Link.to(keys.public).setup(self.back)
        self.back.connect(requests)
        self.sub = context.socket(zmq.SUB)
        self.sub.setsockopt(zmq.LINGER, 0)
        self.sub.setsockopt(zmq.SUBSCRIBE, b"")
        Link.to(keys.public).setup(self.sub)
        self.sub.connect(events)
        self.pub = context.socket(zmq.PUB)
        self.pub.setsockopt(zmq.LINGER, 0)
        curve_server(self.pub, keys)
        self.events = f"tcp://127.0.0.1:{self.pub.bind_to_random_port('tcp://127.0.0.1')}"
        self.stopping = threading.Event()
        #: the game whose result is lost live and in replies, and the one after it
        self.first_game = ""
        self.second_game = ""
        self.second_went_by = threading.Event()
        self.lost_live: list[int] = []
        self.lost_replies = 0
        self.lost_after_gap = threading.Event()

    def run(self) -> None:
        poller = zmq.Poller()
        for socket in (self.front, self.back, self.sub):
            poller.register(socket, zmq.POLLIN)
        identity = b""
        try:
            while not self.stopping.is_set():
                ready = dict(poller.poll(100))
                if self.front in ready:
                    identity, payload = self.front.recv_multipart()
                    self.back.send(payload)
                if self.back in ready:
                    payload = self.back.recv()
                    if not self._lose_reply(decode_payload(payload)):
                        self.front.send_multipart([identity, payload])
                if self.sub in ready:
                    frames = self.sub.recv_multipart()
                    event = decode_payload(frames[-1])
                    if isinstance(event, GameResult) and event.game_id == self.first_game:
                        self.lost_live.append(event.result_seq)
                        continue
                    self.pub.send_multipart(frames)
                    if isinstance(event, GameResult) and event.game_id == self.second_game:
                        self.second_went_by.set()
        finally:
            for socket in (self.front, self.back, self.sub, self.pub):
                socket.close(linger=0)

    def _lose_reply(self, reply: Any) -> bool:
        if not isinstance(reply, ResultsList) or self.lost_after_gap.is_set():
            return False
        if not any(r.game_id == self.first_game for r in reply.results):
            return False
        self.lost_replies += 1
        if self.second_went_by.is_set():
            self.lost_after_gap.set()
        return True


def _pair(mm: Callable[..., MatchmakerClient], server: Any, names: list[str]) -> list[Assignment]:
    """Two players, a rated gomoku game between them; their assignments by seat."""
    one, two = mm(server), mm(server)
    one.hello(names[0])
    two.hello(names[1])
    seek = Seek(
        variant="gomoku", rated=True, time_control=TimeControl(kind="per_move", per_move_ms=60_000)
    )
    assert not one.call(CreateSeek(seek=seek), SeekCreated).paired
    assert two.call(CreateSeek(seek=seek), SeekCreated).paired
    return sorted((assigned(one), assigned(two)), key=lambda a: a.seat)


def play_and_resign(
    endpoints: tuple[str, str],
    seats: list[Assignment],
    context: zmq.Context[Any],
    *,
    moves: tuple[str, str] = ("h8", "a1"),
    loser: int = 0,
) -> None:
    """Both seats join, each plays a move, then seat ``loser`` resigns (a played,
    rated game); ``endpoints``: the referee's requests and events."""
    with RefereeClient(*endpoints, context=context) as rc:
        rc.wait_connected()
        view = GameView(rc, seats[0].game_id)
        for seat in seats:
            rc.join(seat.game_id, seat.seat, seat.token)
        assert view.wait_for(lambda v: v.status == "active"), "the game never started"
        for ply, seat in enumerate(seats):
            rc.move(seat.game_id, seat.token, ply, moves[ply])
        rc.resign(seats[loser].game_id, seats[loser].token)
        assert view.wait_for(lambda v: v.finished)


def _wait_rows(data_dir: Path, sql: str, want: list[Any], timeout_s: float) -> list[Any]:
    deadline = time.monotonic() + timeout_s
    while True:
        rows = [tuple(r) for r in read_store(data_dir, sql)]
        if rows == want or time.monotonic() > deadline:
            return rows
        time.sleep(0.1)  # polling the store against a deadline


def test_a_result_lost_live_and_in_a_reply_is_recorded_once(
    lanqi: Any,
    mm: Callable[..., MatchmakerClient],
    names: Callable[..., list[str]],
    zmq_context: zmq.Context[Any],
) -> None:
    referee = lanqi.referee()
    relays = LossyRelays(
        zmq_context, referee.endpoints["requests"], referee.endpoints["events"], referee.keys
    )
    relays.start()
    try:
        data_dir = lanqi.data_dir("lossy-matchmaker")
        matchmaker = lanqi.matchmaker(
            referee,
            data_dir=data_dir,
            referee_requests=relays.endpoint,
            referee_events=relays.events,
        )
        players = names(4, "lossy")
        first = _pair(mm, matchmaker, players[:2])
        second = _pair(mm, matchmaker, players[2:])
        relays.first_game, relays.second_game = first[0].game_id, second[0].game_id
        endpoints = (referee.endpoints["requests"], referee.endpoints["events"])
        play_and_resign(endpoints, first, zmq_context)  # result seq 1: lost live
        play_and_resign(endpoints, second, zmq_context)  # result seq 2: the gap shows
        assert relays.second_went_by.wait(15), "the second result never went by"
        assert relays.lost_after_gap.wait(15), "no results_since reply was lost after the gap"
        finished = _wait_rows(
            data_dir,
            "SELECT game_id, status FROM games ORDER BY game_id",
            sorted([(first[0].game_id, "finished"), (second[0].game_id, "finished")]),
            timeout_s=20,
        )
    finally:
        relays.stopping.set()
        relays.join(timeout=5)
    assert relays.lost_live == [1], "the first game's live result was not the one lost"
    assert finished == sorted([(first[0].game_id, "finished"), (second[0].game_id, "finished")])
    # counted once: each player has one rated gomoku game and none in xiangqi
    rows = read_store(
        data_dir,
        "SELECT p.name, r.variant, r.games FROM ratings r JOIN players p USING (player_id) "
        "ORDER BY p.name, r.variant",
    )
    assert [tuple(r) for r in rows] == [
        (name, variant, 1 if variant == "gomoku" else 0)
        for name in sorted(players)
        for variant in ("gomoku", "xiangqi")
    ]
    cursor = read_store(data_dir, "SELECT last_result_seq FROM referee_cursors")
    assert [r[0] for r in cursor] == [2]
    assert not read_store(data_dir, "SELECT * FROM results_ahead")
