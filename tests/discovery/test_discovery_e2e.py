"""Announce and browse on this machine's own network (real multicast DNS, python-zeroconf
on both ends): what a server announces is what a client hears, changes reach it, and
its goodbye removes it.

Other lanqi servers may be announced on this network meanwhile (other tests run
``lanqi serve --lan``), so each test looks for its own uniquely named server.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import pytest

from lanqi.discovery import Announcer, DiscoveredServer, ServerBrowser, browse, lan_addresses
from lanqi.protocol import PROTOCOL_VERSION

WAIT_S = 20.0


@pytest.fixture
def browser() -> Iterator[ServerBrowser]:
    if not lan_addresses():
        pytest.skip("no network interface besides loopback: multicast DNS has nowhere to go")
    with ServerBrowser() as listening:
        yield listening


def _named(servers: list[DiscoveredServer], name: str) -> DiscoveredServer | None:
    return next((s for s in servers if s.name == name), None)


def _heard(
    browser: ServerBrowser,
    name: str,
    check: Callable[[DiscoveredServer], bool] = lambda server: True,
) -> DiscoveredServer:
    """The server named ``name`` once the browser hears it (and ``check`` holds)."""

    def ready(servers: list[DiscoveredServer]) -> bool:
        found = _named(servers, name)
        return found is not None and check(found)

    found = _named(browser.wait(ready, WAIT_S), name)
    assert found is not None and ready([found]), f"never heard {name!r} as expected: {found}"
    return found


def test_a_client_hears_the_name_key_ports_and_players_announced(browser: ServerBrowser) -> None:
    name = f"象棋 night {uuid.uuid4().hex[:6]}"
    key = "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7"  # a Z85 key's alphabet, quotes aside
    players = [0]
    announcer = Announcer(
        name=name, port=6599, events_port=6600, public_key=key, players_online=lambda: players[0]
    )
    announcer.start()
    try:
        found = _heard(browser, name)
        assert found.key == key
        assert found.version == PROTOCOL_VERSION
        assert found.players_online == 0
        assert found.events_port == 6600
        assert found.endpoint.endswith(":6599")
        assert found.address.rpartition(":")[0] in announcer.addresses
        players[0] = 3  # a player comes online: the record is updated, the client hears it
        _heard(browser, name, lambda s: s.players_online == 3)
    finally:
        announcer.stop()
    gone = browser.wait(lambda servers: _named(servers, name) is None, WAIT_S)
    assert _named(gone, name) is None, "the goodbye did not remove it"


def test_a_key_known_only_later_is_announced_when_known(browser: ServerBrowser) -> None:
    name = f"keyless {uuid.uuid4().hex[:6]}"
    key: list[str | None] = [None]
    announcer = Announcer(name=name, port=6601, events_port=6602, public_key=lambda: key[0])
    announcer.start()
    try:
        assert _heard(browser, name).key is None
        key[0] = "the-key"
        _heard(browser, name, lambda s: s.key == "the-key")
    finally:
        announcer.stop()


def test_one_look_finds_an_announced_server(browser: ServerBrowser) -> None:
    name = f"one look {uuid.uuid4().hex[:6]}"
    announcer = Announcer(name=name, port=6603, events_port=6604)
    announcer.start()
    try:
        assert announcer.wait_registered(WAIT_S), announcer.error
        assert _named(browse(), name) is not None
    finally:
        announcer.stop()
