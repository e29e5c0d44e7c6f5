"""A Swiss round is paired beside the matchmaker's loop, and what the director is told.

A real ``lanqi serve`` whose pairings are held by the test-only gate
``LANQI_TEST_PAIRING_GATE`` (a file: the pairing worker waits until it exists, so
"while the round is being paired" lasts as long as the test needs, with no clock in
it).  While round 1 is held the server answers a ping, ``tour_list`` and
``tour_standings`` (``pairing round 1...``); a withdrawal meanwhile makes the
finished pairing stale: it is dropped and the round paired again without that
player.  A kill -9 while a round is held loses nothing and pairs it once after the
restart.  A round that cannot be paired is told to the director (event ``stuck``,
the standings' note, ``tournament pairings``, the watch's line).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from lanqi.cli.watch import EventState
from lanqi.client.matchmaker import MatchmakerClient
from lanqi.matchmaker.director import PAIRING_GATE_ENV
from lanqi.protocol import (
    ClaimCode,
    ForbidPair,
    JoinTournament,
    ListTournaments,
    Message,
    Ok,
    Ping,
    TournamentsList,
    TourPairing,
    TourRound,
    TourStuck,
    WithdrawTournament,
)

from .conftest import read_store
from .test_tournament_cli_e2e import cli


def wait_event(
    client: MatchmakerClient, want: Callable[[Message], bool], what: str, timeout_s: float = 20
) -> Message:
    """The first event on the client's subscriptions that ``want`` accepts."""
    import time

    deadline = time.monotonic() + timeout_s
    while (left := deadline - time.monotonic()) > 0:
        event = client.next_event(int(left * 1000) + 1)
        if event is not None and want(event):
            return event
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")


def enter(client: MatchmakerClient, tournament_id: str, players: list[str], key: str) -> None:
    for name in players:
        join = JoinTournament(tournament_id=tournament_id, player=name, director_key=key)
        client.call(join, ClaimCode)


def test_the_server_answers_while_a_round_is_paired(
    lanqi: Any,
    mm: Callable[..., MatchmakerClient],
    tour: Any,
    names: Callable[..., list[str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    gate = lanqi.data_dir("gate") / "let-pairing-go"
    monkeypatch.setenv(PAIRING_GATE_ENV, str(gate))
    server = lanqi.serve()
    client = mm(server)
    client.hello(names(1, "td")[0])
    tid = tour.create(client, format="swiss", variant="gomoku", rounds=3, pairing="dutch")
    players = names(6, "ol")
    enter(client, tid, players, tour.director_key)
    tour.start(client, tid)

    held = wait_event(client, lambda e: isinstance(e, TourPairing), "round 1 being paired")
    assert isinstance(held, TourPairing)
    assert (held.round, held.note) == (1, "pairing round 1...")
    # the round is being paired: the loop answers all the same
    client.call(Ping(), Ok)
    listed = client.call(ListTournaments(), TournamentsList).tournaments
    assert [(t.status, t.round) for t in listed if t.tournament_id == tid] == [("running", 0)]
    assert tour.standings(client, tid).note == "pairing round 1..."
    # a withdrawal while it is paired: the pairing being made is stale
    gone = players[5]
    withdraw = WithdrawTournament(tournament_id=tid, player=gone, director_key=tour.director_key)
    client.call(withdraw, Ok)

    gate.touch()
    paired = wait_event(client, lambda e: isinstance(e, TourRound), "round 1 paired")
    assert isinstance(paired, TourRound) and paired.round == 1
    seated = {name for p in paired.pairings for name in (p.first, p.second) if name}
    assert seated == set(players[:5])  # paired again without the withdrawn player
    standings = tour.standings(client, tid)
    assert standings.note == ""
    assert len([p for p in standings.pairings if p.round == 1]) == 3  # 2 games, 1 bye


def test_a_kill_while_a_round_is_paired_pairs_it_once_after_the_restart(
    lanqi: Any,
    mm: Callable[..., MatchmakerClient],
    tour: Any,
    names: Callable[..., list[str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    gate = lanqi.data_dir("gate") / "let-pairing-go"
    monkeypatch.setenv(PAIRING_GATE_ENV, str(gate))
    server = lanqi.serve()
    client = mm(server)
    tid = tour.create(client, format="swiss", variant="gomoku", rounds=3, pairing="dutch")
    enter(client, tid, names(4, "kl"), tour.director_key)
    tour.start(client, tid)
    wait_event(client, lambda e: isinstance(e, TourPairing), "round 1 being paired")
    server.kill()
    assert read_store(server.data, "SELECT * FROM pairings WHERE tournament_id = ?", (tid,)) == []

    gate.touch()
    server.start()
    client = mm(server)
    final = tour.wait(
        client, tid, lambda s: s.tournament.round == 1, 20, "round 1 after the restart"
    )
    assert sorted(p.board for p in final.pairings) == [1, 2]


def test_a_round_that_cannot_be_paired_is_told_to_the_director(
    lanqi: Any,
    mm: Callable[..., MatchmakerClient],
    tour: Any,
    names: Callable[..., list[str]],
) -> None:
    data = lanqi.data_dir("stuck-data")
    server = lanqi.serve(data_dir=data)
    client = mm(server)
    tid = tour.create(client, format="swiss", variant="gomoku", rounds=1, pairing="dutch")
    ann, bob = names(2, "st")
    enter(client, tid, [ann, bob], tour.director_key)
    forbid = ForbidPair(tournament_id=tid, director_key=tour.director_key, players=[ann, bob])
    client.call(forbid, Ok)  # the only two players may not meet: no valid pairing
    tour.start(client, tid)

    stuck = wait_event(client, lambda e: isinstance(e, TourStuck), "the stuck event")
    assert isinstance(stuck, TourStuck) and stuck.round == 1
    assert stuck.note.startswith("no valid pairing for round 1: ")
    assert stuck.note.endswith(
        "(pair it by hand with `lanqi tournament pair`, or finish the event)"
    )
    assert "\n" not in stuck.note
    standings = tour.standings(client, tid)
    assert standings.note == stuck.note
    # the watch says it (one plain line), and so does `tournament pairings`
    assert stuck.note in EventState(tid).update(standings)
    shown = cli(server, "pairings", tid, data_dir=data)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines()[-1] == stuck.note
