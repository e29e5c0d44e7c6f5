"""The lobby's player list is built once per change, not once per request: every GUI
in a lobby asks for it again after each piece of lobby news, so a crowd's hellos had
the matchmaker build it (a query per player) hundreds of times a second
(``lanqi bench crowd``).  What it says must still follow every change at once.

The service runs in this process without sockets: requests go straight to
:meth:`MatchmakerService.handle`, and what it would publish is dropped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lanqi.matchmaker.referees import parse_referee
from lanqi.matchmaker.service import MatchmakerConfig, MatchmakerService
from lanqi.matchmaker.store import PlayerRecord
from lanqi.protocol import Hello, ListPlayers, Message, PlayersList, Request, encode


@pytest.fixture
def service(tmp_path: Path) -> Any:
    config = MatchmakerConfig(
        data_dir=tmp_path, referees=[parse_referee("tcp://127.0.0.1:5999")], director_key="k"
    )
    mm = MatchmakerService(config)
    mm.publish = lambda topic, message: None  # type: ignore[method-assign]
    yield mm
    mm.store.close()


def _ask(service: MatchmakerService, identity: bytes, request: Request) -> Message:
    return service.handle(identity, encode(request), "127.0.0.1")


def _listed(service: MatchmakerService, identity: bytes, request_id: int) -> dict[str, bool]:
    reply = _ask(service, identity, ListPlayers(id=request_id))
    assert isinstance(reply, PlayersList) and reply.re == request_id
    return {p.name: p.online for p in reply.players}


def test_the_list_is_built_once_per_change_and_follows_every_change(
    service: MatchmakerService, monkeypatch: pytest.MonkeyPatch
) -> None:
    builds: list[int] = []
    players = service.store.players

    def counted() -> list[PlayerRecord]:
        builds.append(1)
        return players()

    monkeypatch.setattr(service.store, "players", counted)
    for i in range(3):
        _ask(service, b"conn-%d" % i, Hello(name=f"p{i}", kind="bot"))

    everyone = {"p0": True, "p1": True, "p2": True}
    assert _listed(service, b"conn-0", 1) == everyone
    assert _listed(service, b"conn-1", 2) == everyone
    assert _listed(service, b"conn-2", 3) == everyone
    assert len(builds) == 1  # three requests, nothing changed between them

    _ask(service, b"conn-3", Hello(name="p3", kind="human"))  # a new player
    assert _listed(service, b"conn-0", 4) == everyone | {"p3": True}
    assert len(builds) == 2

    # everyone silent past the presence timeout: shown offline at once, but a request
    # is a sign of life, so its sender is listed online again
    p3 = service.store.player_by_name("p3")
    assert p3 is not None
    service._check_presence(service.clients[p3.player_id].last_seen + 10**9)
    assert _listed(service, b"conn-0", 5) == {"p0": True, "p1": False, "p2": False, "p3": False}
    assert _listed(service, b"conn-1", 6) == {"p0": True, "p1": True, "p2": False, "p3": False}
