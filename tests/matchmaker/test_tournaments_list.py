"""The lobby's tournament list names each tournament's entrants without a query per
entrant: every lobby reads it again after news, and with a 256-player Swiss and 244
lobby followers a rating and a player query per entrant stalled the matchmaker for
17-28 s (``lanqi bench crowd`` at 1,000 players).

The service runs in this process without sockets, as in test_players_list.py.
"""

from __future__ import annotations

import dataclasses
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from lanqi.matchmaker import director as director_module
from lanqi.matchmaker.referees import parse_referee
from lanqi.matchmaker.service import MatchmakerConfig, MatchmakerService
from lanqi.protocol import (
    ClaimCode,
    CreateTournament,
    JoinTournament,
    ListTournaments,
    Message,
    Ok,
    Request,
    TournamentCreated,
    TournamentsList,
    TournamentSpec,
    TourResult,
    encode,
)

ENTRANTS = 64


@pytest.fixture
def service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[MatchmakerService]:
    # what it would publish (the director's tournament news too) is dropped
    monkeypatch.setattr(MatchmakerService, "publish", lambda self, topic, message: None)
    config = MatchmakerConfig(
        data_dir=tmp_path, referees=[parse_referee("tcp://127.0.0.1:5999")], director_key="k"
    )
    mm = MatchmakerService(config)
    yield mm
    mm.store.close()


def _ask(service: MatchmakerService, request: Request) -> Message:
    return service.handle(b"director", encode(request), "127.0.0.1")


def test_the_tournament_list_names_every_entrant_in_a_few_queries(
    service: MatchmakerService,
) -> None:
    spec = TournamentSpec(name="Crowd", format="swiss", variant="xiangqi", rounds=3)
    created = _ask(service, CreateTournament(id=1, director_key="k", spec=spec))
    assert isinstance(created, TournamentCreated)
    names = [f"p{i:03d}" for i in range(ENTRANTS)]
    for i, name in enumerate(names):
        joined = _ask(
            service,
            JoinTournament(
                id=2 + i, tournament_id=created.tournament_id, player=name, director_key="k"
            ),
        )
        assert isinstance(joined, Ok | ClaimCode), joined

    statements: list[str] = []
    conn: sqlite3.Connection = service.store._conn
    conn.set_trace_callback(statements.append)
    try:
        listed = _ask(service, ListTournaments(id=999))
    finally:
        conn.set_trace_callback(None)
    assert isinstance(listed, TournamentsList)
    (info,) = listed.tournaments
    assert sorted(info.players) == names  # every entrant, by name
    # a handful of statements for the list, not one (or two) per entrant
    assert len(statements) < 10, f"{len(statements)} statements for {ENTRANTS} entrants"


def test_result_news_is_held_to_one_a_second_and_the_last_is_told(
    service: MatchmakerService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each TourResult carries the whole standings (O(players^2) to build): a burst of
    results at a round's end is told once at once and once at the end of the spell,
    with the standings as they stand then."""
    published: list[object] = []
    now = [5000.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])  # the director's clock
    spec = TournamentSpec(name="Burst", format="round_robin", variant="xiangqi")
    created = _ask(service, CreateTournament(id=1, director_key="k", spec=spec))
    assert isinstance(created, TournamentCreated)
    director = service.director
    director.host = dataclasses.replace(
        director.host, publish=lambda topic, message: published.append(message)
    )

    def results() -> int:
        return sum(isinstance(m, TourResult) for m in published)

    for _ in range(5):  # five results within a moment
        director.result_recorded(created.tournament_id)
    assert results() == 1  # the first at once
    now[0] += director_module.RESULT_NEWS_MS / 1000 / 2
    director.tick(0.0)
    assert results() == 1  # the rest held back ...
    now[0] += director_module.RESULT_NEWS_MS / 1000 / 2
    director.tick(0.0)
    assert results() == 2  # ... and told at the end of the spell
    director.tick(0.0)
    assert results() == 2  # once
    now[0] += director_module.RESULT_NEWS_MS / 1000
    director.result_recorded(created.tournament_id)
    assert results() == 3  # after a quiet spell: at once again
