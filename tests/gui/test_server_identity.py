"""One server under two addresses is one server: the GUI's saved session is filed
under the server's key, not the address it was reached at (issue 19, item 1).

A ``lanqi serve`` subprocess listens on every interface, so the GUI reaches it as
``127.0.0.1`` and as ``127.0.0.2`` (loopback answers any 127.x address).  Alice's
session was saved by an older GUI under the first address; the GUI finds it there,
files it under the server's key fingerprint, and is Alice again under the second
address.  A name held by a session the GUI does not have is refused with what to do.

Nothing sleeps: every wait runs frames until the state it waits for shows.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

pygame = pytest.importorskip("pygame")

from lanqi.bench.process import LanqiService  # noqa: E402
from lanqi.client.matchmaker import MatchmakerClient  # noqa: E402
from lanqi.i18n import en, zh  # noqa: E402
from lanqi.security import fingerprint, server_keys  # noqa: E402

if TYPE_CHECKING:
    from tests.gui.conftest import Driver

SERVE_READY = re.compile(
    rb"lanqi server ready: lobby (?P<lobby>\S+) \(events (?P<events>\S+)\), "
    rb"referee (?P<referee>\S+), data"
)


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[LanqiService]:
    """``lanqi serve`` on every interface (free ports), stopped after the test."""
    data, logs = tmp_path / "serve-data", tmp_path / "logs"
    data.mkdir()
    logs.mkdir()
    service = LanqiService(
        "serve",
        ["--host", "0.0.0.0", "--referee-pub-port", "0", "--data-dir", str(data)],
        logs,
        name="serve",
        ready=SERVE_READY,
        ports={"--port": "lobby", "--pub-port": "events", "--referee-port": "referee"},
    )
    service.start()
    try:
        yield service
    finally:
        service.stop()
    assert not service.new_errors(), service.new_errors()


def addresses(service: LanqiService) -> tuple[str, str]:
    port = service.endpoints["lobby"].rsplit(":", 1)[1]
    return f"tcp://127.0.0.1:{port}", f"tcp://127.0.0.2:{port}"


def in_lobby(driver: Driver) -> None:
    driver.app.switch(driver.app.first_scene())
    driver.until(lambda: driver.app.lobby is not None and driver.app.lobby.connected, 15, "lobby")


def test_one_server_under_two_addresses_is_one_player(
    gui: Callable[..., Driver], serve: LanqiService, tmp_path: Path
) -> None:
    first, second = addresses(serve)
    key = fingerprint(server_keys(tmp_path / "serve-data").public)
    with MatchmakerClient(first) as old_gui:  # Alice, as an older GUI registered her
        alice = old_gui.hello("Alice")
    data = tmp_path / "data"
    data.mkdir()
    settings_file = data / "gui.json"
    settings_file.write_text(
        json.dumps(
            {"server": first, "name": "Alice", "sessions": {f"{first}|Alice": alice.session}}
        )
    )

    driver = gui(server=first, name="Alice", connect=True)
    in_lobby(driver)
    link = driver.app.lobby
    assert link is not None and link.welcome is not None
    assert link.welcome.player_id == alice.player_id, "the address-keyed session was not used"
    saved = json.loads(settings_file.read_text())["sessions"]
    assert saved == {f"{key}|Alice": alice.session}, "not re-filed under the server's key"
    driver.app.disconnect()

    # the GUI started again, the same server reached at another of its addresses
    again = gui(server=second, name="Alice", connect=True)
    in_lobby(again)
    link = again.app.lobby
    assert link is not None and link.welcome is not None and link.failed is None
    assert (link.welcome.player_id, link.welcome.session) == (alice.player_id, alice.session)
    again.until(lambda: bool(link.state.players), 10, "the players list")
    players = [p for p in link.state.players if p.name.casefold() == "alice"]
    assert len(players) == 1 and players[0].online, players
    assert players[0].player_id == alice.player_id  # the same player: the same ratings
    assert json.loads(settings_file.read_text())["sessions"] == {f"{key}|Alice": alice.session}


def test_a_name_held_by_a_lost_session_says_how_to_get_it_back(
    gui: Callable[..., Driver], serve: LanqiService
) -> None:
    """Bob's session is on another machine: the connect screen says, in both
    languages, to ask the director for a claim code and where to type it."""
    from lanqi.gui.scenes.connect import ConnectScene

    first, _ = addresses(serve)
    with MatchmakerClient(first) as elsewhere:
        elsewhere.hello("Bob")
    driver = gui(server=first, name="Bob", connect=True)
    driver.app.switch(driver.app.first_scene())
    driver.frames()
    scene = driver.scene
    assert isinstance(scene, ConnectScene)
    driver.until(lambda: bool(scene.error), 15, "the refusal")
    assert zh("name_taken", name="Bob") in scene.error
    assert en("name_taken", name="Bob") in scene.error
    assert "lanqi reclaim Bob" in en("name_taken", name="Bob")
    assert "认领码" in zh("name_taken", name="Bob")
    assert "pass your session" not in scene.error
