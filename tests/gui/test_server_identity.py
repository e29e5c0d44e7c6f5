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
        ["--host", "0.0.0.0", "--referee-pub-port", "0", "--no-web", "--data-dir", str(data)],
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
    def welcomed() -> bool:
        link = driver.app.lobby
        refusal = getattr(driver.scene, "error", "")  # the connect screen's
        assert not refusal, f"refused: {refusal}"
        return link is not None and link.connected

    driver.app.switch(driver.app.first_scene())
    driver.until(welcomed, 15, "the lobby")


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
    saved = json.loads(settings_file.read_text())["sessions"]
    assert saved == {f"{key}|Alice": alice.session}, "not filed under the server's key"


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
    assert zh("connect.name_taken", name="Bob") in scene.error
    assert en("connect.name_taken", name="Bob") in scene.error
    assert "lanqi reclaim Bob" in en("connect.name_taken", name="Bob")
    assert "报名码" in zh("connect.name_taken", name="Bob")  # the field the code goes in
    assert "Entry code" in en("connect.name_taken", name="Bob")
    assert "pass your session" not in scene.error

    # the whole line is on screen: wrapped under the buttons, within the window
    from lanqi.gui import theme
    from lanqi.gui.widgets import wrap_text

    driver.frames()
    driver.shot("connect-name-taken")
    field = scene.fields[0][1].rect
    lines = wrap_text(scene.error, 16, field.width)
    assert len(lines) > 1
    top = scene.buttons[0].rect.bottom + 24
    assert top + 20 * len(lines) <= driver.app.window.size[1]
    for row in range(len(lines)):
        band = [
            driver.pixel((x, y))
            for x in range(field.left, field.right, 2)
            for y in range(top + 20 * row, top + 20 * row + 18, 2)
        ]
        reds = [
            c for c in band if sum(abs(a - b) for a, b in zip(c, theme.ERROR, strict=True)) <= 60
        ]
        assert reds, f"line {row} of the refusal is not drawn"
