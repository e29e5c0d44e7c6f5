"""Ratings per game, end to end (real ``lanqi serve``, players over the protocol,
games on the referee, the director's CLI): Ann beats Bob in a rated xiangqi event
and loses to him in a rated gomoku event.  Her xiangqi rating goes up and her gomoku
rating goes down, and every place that shows a rating shows the one of the game at
hand: the lobby's player list (both, by variant), open seeks, each event's
standings (reply and ``lanqi tournament standings``) and its CSV export."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from typing import Any

import zmq

from lanqi.client.matchmaker import MatchmakerClient
from lanqi.protocol import (
    CreateSeek,
    JoinTournament,
    ListPlayers,
    ListSeeks,
    Ok,
    PlayersList,
    Seek,
    SeekCreated,
    SeeksList,
    Standings,
)

from .conftest import assigned
from .test_lost_results_e2e import play_and_resign
from .test_tournament_cli_e2e import cli, ok

MOVES = {"xiangqi": ("h2e2", "h9g7"), "gomoku": ("h8", "a1")}


def _event(
    tour: Any,
    director: MatchmakerClient,
    players: dict[str, MatchmakerClient],
    *,
    variant: str,
    winner: str,
    context: zmq.Context[Any],
) -> tuple[str, Standings]:
    """A rated two-player round robin in ``variant`` that ``winner`` wins."""
    tournament_id = tour.create(director, format="round_robin", variant=variant, rated=True)
    for client in players.values():
        client.call(JoinTournament(tournament_id=tournament_id), Ok)
    tour.start(director, tournament_id)
    seats = {name: assigned(client) for name, client in players.items()}
    by_seat = sorted(seats.values(), key=lambda a: a.seat)
    loser = next(a.seat for name, a in seats.items() if name != winner)
    endpoints = (by_seat[0].referee, by_seat[0].referee_pub)
    play_and_resign(endpoints, by_seat, context, moves=MOVES[variant], loser=loser)
    return tournament_id, tour.wait_finished(director, tournament_id, timeout_s=30)


def test_a_win_at_xiangqi_and_a_loss_at_gomoku_are_two_ratings(
    module_server: Any,
    mm: Callable[..., MatchmakerClient],
    names: Callable[..., list[str]],
    tour: Any,
    zmq_context: zmq.Context[Any],
) -> None:
    ann_name, bob_name = names(2, "rated")
    players = {ann_name: mm(module_server), bob_name: mm(module_server)}
    for name, client in players.items():
        client.hello(name)
    director = mm(module_server)
    xiangqi_id, xiangqi = _event(
        tour, director, players, variant="xiangqi", winner=ann_name, context=zmq_context
    )
    gomoku_id, gomoku = _event(
        tour, director, players, variant="gomoku", winner=bob_name, context=zmq_context
    )

    listed = {p.name: p.ratings for p in director.call(ListPlayers(), PlayersList).players}
    ann, bob = listed[ann_name], listed[bob_name]
    assert ann["xiangqi"] > 1500.0 > ann["gomoku"]
    assert bob["gomoku"] > 1500.0 > bob["xiangqi"]

    # standings: the rating in the event's game, and the one before its first game
    for standings, variant in ((xiangqi, "xiangqi"), (gomoku, "gomoku")):
        rows = {row.player: row for row in standings.rows}
        for name, ratings in ((ann_name, ann), (bob_name, bob)):
            assert (rows[name].rating, rows[name].rating_before) == (ratings[variant], 1500.0)
    assert {r.player: r.rating for r in xiangqi.rows} != {r.player: r.rating for r in gomoku.rows}

    # the director's CLI prints the event's rating; the CSV export carries it
    for tournament_id, variant in ((xiangqi_id, "xiangqi"), (gomoku_id, "gomoku")):
        table = ok(cli(module_server, "standings", tournament_id))
        ann_line = next(line for line in table.splitlines() if ann_name in line)
        assert f" {ann[variant]:.0f} " in ann_line, table
        exported = ok(cli(module_server, "export", tournament_id, "--format", "csv"))
        by_name = {r["Name"]: r for r in csv.DictReader(io.StringIO(exported))}
        assert abs(float(by_name[ann_name]["Rating"]) - ann[variant]) < 0.1, exported

    # an open seek shows the seeker's rating in the seek's game
    seeker = players[ann_name]
    for variant in ("gomoku", "xiangqi"):
        seek = Seek(variant=variant, rated=True)
        assert not seeker.call(CreateSeek(seek=seek), SeekCreated).paired
    seeks = director.call(ListSeeks(), SeeksList).seeks
    shown = {s.seek.variant: s.rating for s in seeks if s.player == ann_name}
    assert shown == {"gomoku": ann["gomoku"], "xiangqi": ann["xiangqi"]}
