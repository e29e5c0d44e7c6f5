"""A player whose connection falls silent for the presence timeout is shown offline and
its open seeks are withdrawn (nobody is paired with someone who is gone).  A busy
client is not gone: when the same connection is heard from again, its seeks are put
back, under their ids, and pair as if just posted.  Before, they were dropped and the
player, which had only ``seek_created`` to go by, waited for a ``game_assigned`` that
never came (``lanqi bench crowd``: two of 500 seekers stuck at 1,000 players).

The matchmaker runs in this process on real sockets in front of a scripted referee
(``test_referee_answers``); its clock is the test's, so silence is a step of the
clock, not a sleep.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq

from lanqi.client.connection import RECONNECT
from lanqi.client.matchmaker import MatchmakerClient
from lanqi.matchmaker import service as service_module
from lanqi.matchmaker.service import LIST_REBUILD_MS, SEEK_KEPT_MS, MatchmakerService
from lanqi.protocol import (
    CreateGame,
    CreateSeek,
    GameAssigned,
    GameCreated,
    ListPlayers,
    ListSeeks,
    Ok,
    Ping,
    PlayersList,
    ResultsList,
    ResultsSince,
    Seek,
    SeekCreated,
    SeeksList,
    TimeControl,
)

from .test_referee_answers import ScriptedReferee, running_matchmaker

SEEK = Seek(variant="gomoku", time_control=TimeControl(kind="per_move", per_move_ms=9_000))
PRESENCE_MS = 15_000.0  # the matchmaker's default presence timeout


class Clock:
    """The matchmaker's monotonic clock in ms, moved by the test."""

    def __init__(self) -> None:
        self.ms = time.monotonic() * 1000.0

    def __call__(self) -> float:
        return self.ms


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    made = Clock()
    monkeypatch.setattr(service_module, "_now_ms", made)
    monkeypatch.setattr(service_module, "RECONCILE_EVERY_MS", 3_600_000.0)
    return made


@pytest.fixture
def referee(zmq_context: zmq.Context[Any]) -> Iterator[ScriptedReferee]:
    made = ScriptedReferee(zmq_context)
    try:
        yield made
    finally:
        made.close()


@pytest.fixture
def matchmaker(
    clock: Clock, referee: ScriptedReferee, tmp_path: Path, zmq_context: zmq.Context[Any]
) -> Iterator[MatchmakerService]:
    with running_matchmaker([referee], tmp_path, zmq_context) as service:
        start = referee.expect(ResultsSince)  # the reconcile at start
        referee.answer(ResultsList(re=start.id))
        yield service


@pytest.fixture
def client(
    matchmaker: MatchmakerService, zmq_context: zmq.Context[Any]
) -> Iterator[Callable[[], MatchmakerClient]]:
    clients: list[MatchmakerClient] = []

    def make() -> MatchmakerClient:
        made = MatchmakerClient(
            matchmaker.endpoint, matchmaker.pub_endpoint, context=zmq_context, timeout_ms=5000
        )
        # no pings of its own: the players speak when the test says (a busy client)
        made.connection.connection.policy = dataclasses.replace(RECONNECT, ping=3_600.0)
        clients.append(made)
        return made

    try:
        yield make
    finally:
        for made in clients:
            made.close()


def _wait(predicate: Callable[[], bool], what: str, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)  # polling a condition against a deadline


def _online(clock: Clock, watcher: MatchmakerClient, name: str) -> bool:
    clock.ms += LIST_REBUILD_MS  # the list may be as old as that
    reply = watcher.call(ListPlayers(name=name), PlayersList)
    return bool(reply.players and reply.players[0].online)


def _open_seeks(watcher: MatchmakerClient) -> dict[str, str]:
    return {s.seek_id: s.player for s in watcher.call(ListSeeks(), SeeksList).seeks}


def _fall_silent(clock: Clock, watcher: MatchmakerClient, silent_ms: float) -> None:
    """Everyone silent for ``silent_ms``: ann is shown offline (the watcher's own
    requests show it online again)."""
    clock.ms += silent_ms
    _wait(lambda: not _online(clock, watcher, "ann"), "ann shown offline")


def test_a_seek_withdrawn_while_its_player_was_silent_is_put_back_when_it_speaks_again(
    clock: Clock, referee: ScriptedReferee, client: Callable[[], MatchmakerClient]
) -> None:
    ann, bob, watcher = client(), client(), client()
    ann.hello("ann")
    watcher.hello("watcher")
    posted = ann.call(CreateSeek(seek=SEEK), SeekCreated)
    assert not posted.paired
    assert _open_seeks(watcher) == {posted.seek_id: "ann"}

    _fall_silent(clock, watcher, PRESENCE_MS + 1_000)
    assert _open_seeks(watcher) == {}  # withdrawn: nobody is paired with someone gone

    ann.call(Ping(), Ok)  # the same connection, busy for a while, speaks again
    assert _online(clock, watcher, "ann")
    assert _open_seeks(watcher) == {posted.seek_id: "ann"}  # back, under its id

    bob.hello("bob")
    paired = bob.call(CreateSeek(seek=SEEK), SeekCreated)
    assert paired.paired and paired.seek_id == posted.seek_id
    create = referee.expect(CreateGame)
    assert sorted(create.players) == ["ann", "bob"]
    referee.answer(GameCreated(re=create.id, game_id=create.game_id or "", tokens=["t0", "t1"]))
    push = ann.next_push(5000)
    assert isinstance(push, GameAssigned) and push.game.game_id == create.game_id


def test_a_seek_withdrawn_longer_ago_than_it_is_kept_is_not_put_back(
    clock: Clock, client: Callable[[], MatchmakerClient]
) -> None:
    ann, watcher = client(), client()
    ann.hello("ann")
    watcher.hello("watcher")
    assert not ann.call(CreateSeek(seek=SEEK), SeekCreated).paired

    _fall_silent(clock, watcher, PRESENCE_MS + 1_000)
    clock.ms += SEEK_KEPT_MS + 1_000  # gone for longer than a seek is kept
    ann.call(Ping(), Ok)
    assert _online(clock, watcher, "ann")
    assert _open_seeks(watcher) == {}


def test_a_new_connection_of_the_player_does_not_get_the_old_ones_seeks(
    clock: Clock, client: Callable[[], MatchmakerClient]
) -> None:
    ann, watcher = client(), client()
    welcome = ann.hello("ann")
    watcher.hello("watcher")
    assert not ann.call(CreateSeek(seek=SEEK), SeekCreated).paired

    _fall_silent(clock, watcher, PRESENCE_MS + 1_000)
    again = client()  # the program started again: it knows no seek ids
    again.hello("ann", session=welcome.session)
    assert _online(clock, watcher, "ann")
    assert _open_seeks(watcher) == {}
