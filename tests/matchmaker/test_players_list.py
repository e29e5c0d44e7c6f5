"""The lobby's player list is built once per change, not once per request: every GUI
in a lobby asks for it again after each piece of lobby news, so a crowd's hellos had
the matchmaker build it (a query per player) hundreds of times a second
(``lanqi bench crowd``).  What it says must still follow every change at once.
A lobby larger than a reply's 1,000 players is read by pages (``offset``, ``limit``,
``total``), online players first; one player is looked up by ``name``.

The service runs in this process without sockets: requests go straight to
:meth:`MatchmakerService.handle`, and what it would publish is dropped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgpack
import pytest

from lanqi.matchmaker import service as service_module
from lanqi.matchmaker.referees import parse_referee
from lanqi.matchmaker.service import LIST_REBUILD_MS, MatchmakerConfig, MatchmakerService
from lanqi.matchmaker.store import PlayerRecord
from lanqi.protocol import (
    MAX_MESSAGE_BYTES,
    ErrorReply,
    Hello,
    ListPlayers,
    Message,
    PlayersList,
    Request,
    encode,
)


class Clock:
    """The matchmaker's clock (ms), moved by the test."""

    def __init__(self) -> None:
        self.ms = 1_000_000.0

    def __call__(self) -> float:
        return self.ms


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    made = Clock()
    monkeypatch.setattr(service_module, "_now_ms", made)
    return made


@pytest.fixture
def service(tmp_path: Path, clock: Clock) -> Any:
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
    service: MatchmakerService, clock: Clock, monkeypatch: pytest.MonkeyPatch
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
    # a list read less than LIST_REBUILD_MS after the last build is that build (a
    # crowd's hellos would have it built after each one) ...
    assert _listed(service, b"conn-0", 4) == everyone
    # ... and one read later holds the change: a GUI reads 0.2 s after the news
    clock.ms += LIST_REBUILD_MS
    assert _listed(service, b"conn-0", 5) == everyone | {"p3": True}
    assert len(builds) == 2

    # everyone silent past the presence timeout: shown offline at once, but a request
    # is a sign of life, so its sender is listed online again
    p3 = service.store.player_by_name("p3")
    assert p3 is not None
    clock.ms += LIST_REBUILD_MS
    service._check_presence(service.clients[p3.player_id].last_seen + 10**9)
    assert _listed(service, b"conn-0", 6) == {"p0": True, "p1": False, "p2": False, "p3": False}
    clock.ms += LIST_REBUILD_MS
    assert _listed(service, b"conn-1", 7) == {"p0": True, "p1": True, "p2": False, "p3": False}
    assert len(builds) == 2  # presence alone: the players are not read again


def test_a_lobby_of_more_than_a_page_is_read_by_pages_online_players_first(
    service: MatchmakerService,
) -> None:
    n = 1_250
    for i in range(n):
        _ask(service, b"conn-%d" % i, Hello(name=f"p{i:04d}", kind="bot"))
    # the first 400 fall silent: shown offline; the others stay online
    for i in range(400):
        record = service.store.player_by_name(f"p{i:04d}")
        assert record is not None
        service.clients[record.player_id].last_seen = -(10**12)
    service._check_presence(0.0)

    first = _ask(service, b"conn-1249", ListPlayers(id=1))  # what every client sent before
    assert isinstance(first, PlayersList)
    assert (len(first.players), first.total, first.online) == (1_000, n, n - 400)
    names = [p.name for p in first.players]
    # online players first, by name, then the offline ones by name
    assert names[: n - 400] == [f"p{i:04d}" for i in range(400, n)]
    assert names[n - 400 :] == [f"p{i:04d}" for i in range(1_000 - (n - 400))]
    assert all(p.online for p in first.players[: n - 400])
    assert not any(p.online for p in first.players[n - 400 :])

    rest = _ask(service, b"conn-1249", ListPlayers(id=2, offset=1_000))
    assert isinstance(rest, PlayersList) and rest.total == n
    assert [p.name for p in rest.players] == [f"p{i:04d}" for i in range(150, 400)]
    assert {p.name for p in first.players + rest.players} == {f"p{i:04d}" for i in range(n)}

    page = _ask(service, b"conn-1249", ListPlayers(id=3, offset=10, limit=5))
    assert isinstance(page, PlayersList) and page.re == 3
    assert [p.name for p in page.players] == names[10:15]

    beyond = _ask(service, b"conn-1249", ListPlayers(id=4, offset=5_000))
    assert isinstance(beyond, PlayersList) and (beyond.players, beyond.total) == ([], n)

    # one player by name, wherever it is in the order
    one = _ask(service, b"conn-1249", ListPlayers(id=5, name="p0003"))
    assert isinstance(one, PlayersList)
    assert [(p.name, p.online) for p in one.players] == [("p0003", False)]
    assert (one.total, one.online) == (1, 0)
    nobody = _ask(service, b"conn-1249", ListPlayers(id=6, name="nobody"))
    assert isinstance(nobody, PlayersList) and (nobody.players, nobody.total) == ([], 0)

    # a page is a message a client can take (well under the size limit)
    assert len(encode(first)[0]) < MAX_MESSAGE_BYTES // 4
    # each page is encoded once for every request that reads it: the same bytes as
    # the reply encoded on its own
    again = _ask(service, b"conn-1249", ListPlayers(id=77, offset=10, limit=5))
    assert isinstance(again, PlayersList) and again.players is page.players
    for reply in (first, rest, page, again, one):
        assert service._encode_reply(reply) == encode(reply)


def test_a_page_of_players_past_the_limit_is_refused_at_decode(service: MatchmakerService) -> None:
    _ask(service, b"conn-0", Hello(name="p0", kind="bot"))
    for bad in ({"limit": 0}, {"limit": 1_001}, {"offset": -1}):
        frames = [msgpack.packb({"t": "list_players", "id": 9, "v": 1, **bad})]
        reply = service.handle(b"conn-0", frames, "127.0.0.1")
        assert isinstance(reply, ErrorReply) and reply.code == "bad_message", bad
