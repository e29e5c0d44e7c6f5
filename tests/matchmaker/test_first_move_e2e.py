"""Which games have first-move windows, through a real ``lanqi serve`` (issue 13, item 8).

Lobby games (seeks, challenges) take the time control as the players wrote it: with
``first_move_ms`` left out, 30 s.  A side that lets its window run out ends the game
without a result, and a rated game that ends so changes no rating.  Tournament games
have no window (``first_move_ms`` 0, whatever the spec said): the clock of the side to
move starts when both have joined, and a no-show is the forfeit's business.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from typing import Any

import pytest
import zmq

from lanqi.client.matchmaker import MatchmakerClient
from lanqi.client.referee import GameView, RefereeClient
from lanqi.protocol import (
    DEFAULT_FIRST_MOVE_MS,
    Assignment,
    CreateSeek,
    JoinTournament,
    ListPlayers,
    ListTournaments,
    Ok,
    PlayersList,
    Seek,
    SeekCreated,
    TimeControl,
    TournamentsList,
)

from .conftest import assigned

_per_move = itertools.count(9_001)  # seeks pair on equal time controls only


Pair = tuple[MatchmakerClient, MatchmakerClient]


@pytest.fixture
def pair(
    module_server: Any, mm: Callable[..., MatchmakerClient], names: Callable[..., list[str]]
) -> Pair:
    """Two players in the lobby of the module's server."""
    ann, bob = mm(module_server), mm(module_server)
    for client, name in zip((ann, bob), names(2, "fm"), strict=True):
        client.hello(name)
    return ann, bob


def sought(
    ann: MatchmakerClient, bob: MatchmakerClient, seek: Seek
) -> tuple[Assignment, Assignment]:
    """Both seek the same game; their assignments."""
    ann.call(CreateSeek(seek=seek), SeekCreated)
    assert bob.call(CreateSeek(seek=seek), SeekCreated).paired
    return assigned(ann), assigned(bob)


def seated(
    a: Assignment, b: Assignment, context: zmq.Context[Any]
) -> tuple[RefereeClient, GameView]:
    """Both seats joined on the game's referee; the client and a view of the game."""
    referee = RefereeClient(a.referee, a.referee_pub, context=context)
    referee.wait_connected()
    view = GameView(referee, a.game_id)
    for seat in (a, b):
        referee.join(seat.game_id, seat.seat, seat.token)
    assert view.wait_for(lambda v: v.status == "active"), "the game never started"
    return referee, view


def test_a_lobby_game_gets_the_default_window(pair: Pair, zmq_context: zmq.Context[Any]) -> None:
    ann, bob = pair
    tc = TimeControl(kind="fischer", base_ms=next(_per_move) * 1000)  # no first_move_ms
    mine, theirs = sought(ann, bob, Seek(variant="xiangqi", time_control=tc))
    assert mine.time_control.first_move_ms == DEFAULT_FIRST_MOVE_MS == 30_000
    referee, _ = seated(mine, theirs, zmq_context)
    with referee:
        clock = referee.sync(mine.game_id).clock
        assert clock.running is None and clock.remaining_ms == [tc.base_ms, tc.base_ms]
        assert clock.first_move_left_ms is not None and clock.first_move_left_ms <= 30_000


def test_a_rated_lobby_game_without_a_first_move_is_aborted_and_rates_nobody(
    pair: Pair,
    module_server: Any,
    mm: Callable[..., MatchmakerClient],
    zmq_context: zmq.Context[Any],
) -> None:
    ann, bob = pair
    tc = TimeControl(kind="per_move", per_move_ms=next(_per_move) * 1000, first_move_ms=1_000)
    mine, theirs = sought(ann, bob, Seek(variant="xiangqi", time_control=tc, rated=True))
    assert mine.rated and mine.time_control.first_move_ms == 1_000
    referee, view = seated(mine, theirs, zmq_context)
    with referee:
        assert view.wait_for(lambda v: v.finished, 5000), "the window never closed"
        assert (view.result, view.termination, view.winner) == ("*", "no_first_move", None)
    # the matchmaker has recorded the game once it no longer lists it as ann's ...
    assert ann.welcome is not None
    deadline = time.monotonic() + 10
    while mm(module_server).hello(ann.welcome.name, session=ann.welcome.session).games:
        assert time.monotonic() < deadline, "the matchmaker never recorded the abort"
        time.sleep(0.05)  # polling the result's effect against a deadline
    # ... and no rating moved
    ratings = {p.name: p.ratings for p in ann.call(ListPlayers(), PlayersList).players}
    for player in mine.players:
        assert ratings[player].get("xiangqi", 1500.0) == 1500.0, ratings[player]


def test_tournament_games_have_no_window_the_clock_starts_at_the_join(
    pair: Pair, tour: Any, zmq_context: zmq.Context[Any]
) -> None:
    ann, bob = pair
    windowed = TimeControl(kind="fischer", base_ms=600_000, first_move_ms=45_000)
    tid = tour.create(ann, format="round_robin", variant="xiangqi", time_control=windowed)
    listed = {t.tournament_id: t for t in ann.call(ListTournaments(), TournamentsList).tournaments}
    assert listed[tid].spec.time_control.first_move_ms == 0  # the director's rule, shown
    for client in (ann, bob):
        client.call(JoinTournament(tournament_id=tid), Ok)
    tour.start(ann, tid)
    mine, theirs = assigned(ann), assigned(bob)
    assert (mine.time_control.first_move_ms, mine.time_control.join_within_ms) == (0, 120_000)
    referee, _ = seated(mine, theirs, zmq_context)
    with referee:
        clock = referee.sync(mine.game_id).clock
        assert (clock.running, clock.first_move_left_ms) == (0, None)
