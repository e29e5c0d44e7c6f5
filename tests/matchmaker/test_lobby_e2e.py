"""The lobby through a real ``lanqi serve``: challenges, seeks, presence, reconnects.

All tests share one server; each uses its own player names, and its seeks carry a
time control no other test uses, so they never pair with another test's seeks.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
import zmq

from lanqi.client.matchmaker import MatchmakerClient, MatchmakerRefused
from lanqi.client.referee import GameView, RefereeClient
from lanqi.protocol import (
    AbortGame,
    AcceptChallenge,
    CancelChallenge,
    CancelSeek,
    Challenge,
    ChallengeClosed,
    ChallengeCreated,
    ChallengeReceived,
    CreateSeek,
    DeclineChallenge,
    ErrorReply,
    GameAssigned,
    ListPlayers,
    ListSeeks,
    LobbyChallenge,
    LobbyEvent,
    LobbyPaired,
    LobbyPresence,
    LobbySeekAdded,
    LobbySeekRemoved,
    Message,
    Ok,
    Ping,
    PlayersList,
    RequestTakeback,
    Seek,
    SeekCreated,
    SeeksList,
    TimeControl,
)

M = TypeVar("M", bound=Message)
E = TypeVar("E", bound=LobbyEvent)
_per_move = itertools.count(7_001)


def fresh_tc() -> TimeControl:
    """A time control no other test's seek has (seeks pair only on equal ones)."""
    return TimeControl(kind="per_move", per_move_ms=next(_per_move) * 1000)


def expect_push(
    client: MatchmakerClient,
    kind: type[M],
    timeout_ms: int = 5000,
    where: Callable[[M], bool] = lambda m: True,
) -> M:
    """The next private push of ``kind`` (others are skipped)."""
    deadline = time.monotonic() + timeout_ms / 1000
    seen = []
    while (left := deadline - time.monotonic()) > 0:
        push = client.next_push(int(left * 1000) + 1)
        if isinstance(push, kind) and where(push):
            return push
        if push is not None:
            seen.append(push.T)
    raise AssertionError(f"no {kind.T} push within {timeout_ms} ms (saw {seen})")


def expect_event(
    client: MatchmakerClient,
    kind: type[E],
    where: Callable[[E], bool] = lambda event: True,
    timeout_ms: int = 5000,
) -> E:
    """The next lobby event of class ``kind`` that ``where`` accepts."""
    deadline = time.monotonic() + timeout_ms / 1000
    while (left := deadline - time.monotonic()) > 0:
        event = client.next_event(int(left * 1000) + 1)
        if isinstance(event, kind) and where(event):
            return event
    raise AssertionError(f"no matching {kind.__name__} within {timeout_ms} ms")


def refused(client: MatchmakerClient, request: Any) -> str:
    with pytest.raises(MatchmakerRefused) as info:
        client.call(request, Ok)
    return info.value.code


@pytest.fixture
def player(
    module_server: Any, mm: Callable[..., MatchmakerClient], names: Callable[..., list[str]]
) -> Callable[[str], MatchmakerClient]:
    """``player(prefix)``: a client that has said hello under a fresh name."""

    def make(prefix: str) -> MatchmakerClient:
        client = mm(module_server)
        client.hello(names(1, prefix)[0])
        return client

    return make


@pytest.fixture
def lobby_watcher(
    module_server: Any, mm: Callable[..., MatchmakerClient], player: Callable[..., Any]
) -> MatchmakerClient:
    """A client subscribed to ``lobby`` whose subscription is known to be live:
    a probe opens and cancels seeks until the watcher has seen one of them."""
    watcher = mm(module_server)
    watcher.subscribe("lobby")
    probe = player("probe")
    tc = fresh_tc()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        seek_id = probe.call(
            CreateSeek(seek=Seek(variant="gomoku", time_control=tc)), SeekCreated
        ).seek_id
        probe.call(CancelSeek(seek_id=seek_id), Ok)
        event = watcher.next_event(200)
        while event is not None:
            if isinstance(event, LobbySeekAdded | LobbySeekRemoved) and event.seek_id == seek_id:
                while watcher.next_event(0) is not None:  # drain the probe's events
                    pass
                return watcher
            event = watcher.next_event(0)
    raise AssertionError("the lobby subscription never went live")


# ---------------------------------------------------------------- challenges


def test_accepted_challenge_is_played_through_the_referee(
    module_server: Any,
    player: Callable[[str], MatchmakerClient],
    lobby_watcher: MatchmakerClient,
    zmq_context: zmq.Context[Any],
) -> None:
    ann, bob = player("ann"), player("bob")
    assert ann.welcome is not None and bob.welcome is not None
    seek = Seek(variant="gomoku", rated=True)
    challenge_id = ann.call(
        Challenge(to=bob.welcome.name, seek=seek), ChallengeCreated
    ).challenge_id
    received = expect_push(bob, ChallengeReceived)
    assert (received.challenge_id, received.challenger, received.seek) == (
        challenge_id,
        ann.welcome.name,
        # the matchmaker writes the options out in full (so equal games compare equal)
        dataclasses.replace(seek, options={"size": 15, "rule": "freestyle"}),
    )
    bob_name = bob.welcome.name
    expect_event(lobby_watcher, LobbyChallenge, lambda e: e.to == bob_name)
    bob.call(AcceptChallenge(challenge_id=challenge_id), Ok)
    mine = expect_push(ann, GameAssigned).game
    theirs = expect_push(bob, GameAssigned).game
    assert mine.game_id == theirs.game_id and {mine.seat, theirs.seat} == {0, 1}
    assert mine.token != theirs.token and mine.variant == "gomoku" and mine.rated
    assert mine.players == theirs.players
    assert mine.players[mine.seat] == ann.welcome.name
    paired = expect_event(lobby_watcher, LobbyPaired)
    assert paired.game_id == mine.game_id

    # both seats join with their tokens and play; the first mover then resigns
    first, second = (mine, theirs) if mine.seat == 0 else (theirs, mine)
    with (
        RefereeClient(first.referee, first.referee_pub, context=zmq_context) as one,
        RefereeClient(second.referee, second.referee_pub, context=zmq_context) as two,
    ):
        one.wait_connected()
        view = GameView(one, first.game_id)
        one.join(first.game_id, first.seat, first.token)
        two.join(second.game_id, second.seat, second.token)
        assert view.wait_for(lambda v: v.status == "active"), "the game never started"
        one.move(first.game_id, first.token, 0, "h8")
        two.move(second.game_id, second.token, 1, "a1")
        one.resign(first.game_id, first.token)
        assert view.wait_for(lambda v: v.finished)
        assert (view.result, view.termination, view.moves) == ("0-1", "resignation", ["h8", "a1"])

    # the matchmaker learned the result: the rated game moved both gomoku ratings,
    # and only those (xiangqi has its own)
    winner = second.players[second.seat]
    loser = first.players[first.seat]
    deadline = time.monotonic() + 10
    while True:
        ratings = {p.name: p.ratings for p in ann.call(ListPlayers(), PlayersList).players}
        if ratings[winner]["gomoku"] > 1500 > ratings[loser]["gomoku"]:
            break
        assert time.monotonic() < deadline, f"ratings unchanged: {ratings[winner], ratings[loser]}"
        time.sleep(0.05)  # polling the result's effect against a deadline
    assert ratings[winner]["xiangqi"] == ratings[loser]["xiangqi"] == 1500.0


def test_declined_challenge_tells_the_challenger_why(
    player: Callable[[str], MatchmakerClient],
) -> None:
    ann, bob = player("ann"), player("bob")
    assert bob.welcome is not None
    challenge_id = ann.call(
        Challenge(to=bob.welcome.name, seek=Seek(variant="xiangqi")), ChallengeCreated
    ).challenge_id
    expect_push(bob, ChallengeReceived)
    bob.call(DeclineChallenge(challenge_id=challenge_id, reason="I only play gomoku today"), Ok)
    for side in (ann, bob):
        closed = expect_push(side, ChallengeClosed)
        assert (closed.challenge_id, closed.how, closed.reason) == (
            challenge_id,
            "declined",
            "I only play gomoku today",
        )
    assert refused(bob, AcceptChallenge(challenge_id=challenge_id)) == "unknown_challenge"


def test_challenge_expires(player: Callable[[str], MatchmakerClient]) -> None:
    ann, bob = player("ann"), player("bob")
    assert bob.welcome is not None
    created = time.monotonic()
    challenge_id = ann.call(
        Challenge(to=bob.welcome.name, seek=Seek(variant="gomoku"), expires_s=1),
        ChallengeCreated,
    ).challenge_id
    assert expect_push(bob, ChallengeReceived).expires_s == 1
    for side in (ann, bob):
        closed = expect_push(side, ChallengeClosed, timeout_ms=5000)
        assert (closed.challenge_id, closed.how) == (challenge_id, "expired")
    assert time.monotonic() - created >= 0.9
    assert refused(bob, AcceptChallenge(challenge_id=challenge_id)) == "unknown_challenge"


def test_cancelled_challenge(player: Callable[[str], MatchmakerClient]) -> None:
    ann, bob = player("ann"), player("bob")
    assert bob.welcome is not None
    challenge_id = ann.call(
        Challenge(to=bob.welcome.name, seek=Seek(variant="gomoku")), ChallengeCreated
    ).challenge_id
    expect_push(bob, ChallengeReceived)
    # only the challenger cancels, only the challenged answers
    assert refused(bob, CancelChallenge(challenge_id=challenge_id)) == "unknown_challenge"
    assert refused(ann, AcceptChallenge(challenge_id=challenge_id)) == "unknown_challenge"
    ann.call(CancelChallenge(challenge_id=challenge_id), Ok)
    for side in (ann, bob):
        closed = expect_push(side, ChallengeClosed)
        assert (closed.challenge_id, closed.how) == (challenge_id, "cancelled")
    assert refused(bob, AcceptChallenge(challenge_id=challenge_id)) == "unknown_challenge"


# ---------------------------------------------------------------- seeks


def test_compatible_seeks_pair(
    player: Callable[[str], MatchmakerClient], lobby_watcher: MatchmakerClient
) -> None:
    ann, bob = player("ann"), player("bob")
    assert ann.welcome is not None and bob.welcome is not None
    tc = fresh_tc()
    opened = ann.call(CreateSeek(seek=Seek(variant="gomoku", time_control=tc)), SeekCreated)
    assert not opened.paired
    added = expect_event(lobby_watcher, LobbySeekAdded, lambda e: e.seek_id == opened.seek_id)
    assert (added.kind, added.player) == ("seek_added", ann.welcome.name)
    # ann wants to move second; bob's "any" fits
    matched = bob.call(CreateSeek(seek=Seek(variant="gomoku", time_control=tc)), SeekCreated)
    assert matched.paired and matched.seek_id == opened.seek_id
    mine = expect_push(ann, GameAssigned).game
    theirs = expect_push(bob, GameAssigned).game
    assert mine.game_id == theirs.game_id and {mine.seat, theirs.seat} == {0, 1}
    assert mine.time_control == tc
    removed = expect_event(lobby_watcher, LobbySeekRemoved)
    assert removed.seek_id == opened.seek_id
    assert expect_event(lobby_watcher, LobbyPaired).game_id == mine.game_id
    open_ids = {s.seek_id for s in ann.call(ListSeeks(), SeeksList).seeks}
    assert opened.seek_id not in open_ids


def test_seek_colours_decide_the_seats(player: Callable[[str], MatchmakerClient]) -> None:
    ann, bob = player("ann"), player("bob")
    tc = fresh_tc()
    ann.call(CreateSeek(seek=Seek(variant="xiangqi", time_control=tc, color="second")), SeekCreated)
    paired = bob.call(
        CreateSeek(seek=Seek(variant="xiangqi", time_control=tc, color="first")), SeekCreated
    )
    assert paired.paired
    assert expect_push(ann, GameAssigned).game.seat == 1
    assert expect_push(bob, GameAssigned).game.seat == 0


@pytest.mark.parametrize(
    ("mine", "theirs"),
    [
        ({"variant": "gomoku"}, {"variant": "xiangqi"}),
        ({"variant": "gomoku", "fischer": (300, 3)}, {"variant": "gomoku", "fischer": (180, 2)}),
        ({"variant": "gomoku", "color": "first"}, {"variant": "gomoku", "color": "first"}),
        ({"variant": "gomoku", "color": "second"}, {"variant": "gomoku", "color": "second"}),
        ({"variant": "gomoku", "rated": True}, {"variant": "gomoku", "rated": False}),
        ({"variant": "gomoku", "options": {"size": 19}}, {"variant": "gomoku"}),
    ],
    ids=["variant", "time-control", "both-first", "both-second", "rated", "options"],
)
def test_incompatible_seeks_stay_open_until_cancelled(
    player: Callable[[str], MatchmakerClient],
    lobby_watcher: MatchmakerClient,
    mine: dict[str, Any],
    theirs: dict[str, Any],
) -> None:
    ann, bob = player("ann"), player("bob")
    base = next(_per_move) * 1000

    def seek(spec: dict[str, Any]) -> Seek:
        spec = dict(spec)
        fischer = spec.pop("fischer", None)
        tc = (
            TimeControl(kind="fischer", base_ms=fischer[0] * 1000 + base, increment_ms=fischer[1])
            if fischer
            else TimeControl(kind="per_move", per_move_ms=base)
        )
        return Seek(time_control=tc, **spec)

    one = ann.call(CreateSeek(seek=seek(mine)), SeekCreated)
    two = bob.call(CreateSeek(seek=seek(theirs)), SeekCreated)
    assert not one.paired and not two.paired and one.seek_id != two.seek_id
    listed = {s.seek_id: s for s in ann.call(ListSeeks(), SeeksList).seeks}
    assert {one.seek_id, two.seek_id} <= set(listed)
    shown = listed[one.seek_id].seek  # the options are written out in full
    assert dataclasses.replace(shown, options={}) == dataclasses.replace(seek(mine), options={})
    assert shown.options.items() >= seek(mine).options.items()
    assert ann.next_push(0) is None and bob.next_push(0) is None  # no game for anyone

    # a seek is cancelled by its owner only, once
    assert refused(bob, CancelSeek(seek_id=one.seek_id)) == "unknown_seek"
    ann.call(CancelSeek(seek_id=one.seek_id), Ok)
    bob.call(CancelSeek(seek_id=two.seek_id), Ok)
    assert refused(ann, CancelSeek(seek_id=one.seek_id)) == "unknown_seek"
    left = {s.seek_id for s in ann.call(ListSeeks(), SeeksList).seeks}
    assert not {one.seek_id, two.seek_id} & left
    gone: set[str] = set()
    mine_and_theirs = {one.seek_id, two.seek_id}
    while len(gone) < 2:  # other tests' seeks come and go on the shared server
        event = expect_event(
            lobby_watcher, LobbySeekRemoved, lambda e: e.seek_id in mine_and_theirs
        )
        assert event.seek_id is not None
        gone.add(event.seek_id)
    assert gone == {one.seek_id, two.seek_id}


def test_seeks_with_the_same_game_written_differently_pair(
    player: Callable[[str], MatchmakerClient],
) -> None:
    ann, bob = player("ann"), player("bob")
    tc = fresh_tc()
    ann.call(CreateSeek(seek=Seek(variant="gomoku", time_control=tc)), SeekCreated)
    spelled_out = Seek(variant="gomoku", time_control=tc, options={"size": 15})
    assert bob.call(CreateSeek(seek=spelled_out), SeekCreated).paired


@pytest.mark.parametrize("rated", [False, True], ids=["unrated", "rated"])
def test_a_seek_with_default_options_is_assigned_a_game_with_them_spelled_out(
    player: Callable[[str], MatchmakerClient], zmq_context: zmq.Context[Any], rated: bool
) -> None:
    """docs/protocol.md, "Being assigned a game": the assignment carries the game's
    options in full (the variant's defaults filled in, as the snapshot shows them);
    an unrated lobby game is casual (takeback and abort accepted), a rated one is
    not (both ``not_allowed``)."""
    ann, bob = player("ann"), player("bob")
    tc = fresh_tc()
    wanted = Seek(variant="xiangqi", time_control=tc, rated=rated, options={})
    ann.call(CreateSeek(seek=wanted), SeekCreated)
    assert bob.call(CreateSeek(seek=wanted), SeekCreated).paired
    mine, theirs = expect_push(ann, GameAssigned).game, expect_push(bob, GameAssigned).game
    first, second = (mine, theirs) if mine.seat == 0 else (theirs, mine)
    with RefereeClient(first.referee, first.referee_pub, context=zmq_context) as ref:
        ref.wait_connected()
        snapshot = ref.join(first.game_id, first.seat, first.token)
        ref.join(second.game_id, second.seat, second.token)
        assert first.options == theirs.options == snapshot.options
        assert first.options == {"repetition": "axf", "repetition_count": 3, "move_limit": 120}
        assert snapshot.casual is not rated
        ref.move(first.game_id, first.token, 0, "h2e2")
        takeback = ref.request(RequestTakeback(game_id=first.game_id, token=first.token))
        abort = ref.request(AbortGame(game_id=first.game_id, token=second.token))
        if rated:
            assert isinstance(takeback, ErrorReply) and takeback.code == "not_allowed"
            assert isinstance(abort, ErrorReply) and abort.code == "not_allowed"
        else:
            assert isinstance(takeback, Ok) and isinstance(abort, Ok)
            assert ref.sync(first.game_id).termination == "aborted"


# ---------------------------------------------------------------- presence, reconnect


def test_presence_and_reconnect_with_the_session(
    module_server: Any,
    mm: Callable[..., MatchmakerClient],
    names: Callable[..., list[str]],
    player: Callable[[str], MatchmakerClient],
    lobby_watcher: MatchmakerClient,
) -> None:
    name = names(1, "carol")[0]
    first = mm(module_server)
    welcome = first.hello(name)
    seen = expect_event(lobby_watcher, LobbyPresence, lambda e: e.player == name)
    assert seen.online is True
    listed = {p.name: p for p in first.call(ListPlayers(), PlayersList).players}
    assert listed[name].online and listed[name].player_id == welcome.player_id

    # carol gets a game (a seek pairing), then comes back on a new connection
    opponent = player("dave")
    tc = fresh_tc()
    first.call(CreateSeek(seek=Seek(variant="gomoku", time_control=tc)), SeekCreated)
    opponent.call(CreateSeek(seek=Seek(variant="gomoku", time_control=tc)), SeekCreated)
    game = expect_push(first, GameAssigned).game
    first.close()

    again = mm(module_server)
    back = again.hello(name, session=welcome.session)
    assert (back.player_id, back.session, back.name) == (
        welcome.player_id,
        welcome.session,
        name,
    )
    assert [g.game_id for g in back.games] == [game.game_id]
    assert back.games[0] == game  # same seat, same token
    back_online = expect_event(lobby_watcher, LobbyPresence, lambda e: e.player == name)
    assert back_online.online is True
    # the new connection is carol: requests that need a session are served
    assert again.call(Ping(), Ok) is not None
    with pytest.raises(MatchmakerRefused) as info:
        mm(module_server).hello(name)
    assert info.value.code == "name_taken"
