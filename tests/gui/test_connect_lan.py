"""The connect screen lists the lanqi servers heard on the LAN, keeps the list fresh
while frames run, and connects to one with a click; typing an address still works
(``test_online.py``).

A real server (the ``server`` fixture's, on every interface) is announced with a
real :class:`~lanqi.discovery.Announcer`; the GUI hears it over multicast DNS.  Other
lanqi servers may be announced on this network meanwhile, so the test looks for its
own uniquely named one.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

pygame = pytest.importorskip("pygame")

from lanqi.discovery import Announcer, lan_addresses  # noqa: E402

if TYPE_CHECKING:
    from tests.gui.conftest import Driver

    from lanqi.server.embedded import EmbeddedServer


SERVER_HOST = "0.0.0.0"  # the ``server`` fixture listens on every interface


@pytest.fixture
def lan_server(server: EmbeddedServer) -> EmbeddedServer:
    """The test's whole server, on every interface (free ports)."""
    if not lan_addresses():
        pytest.skip("no network interface besides loopback: multicast DNS has nowhere to go")
    return server


def test_connect_screen_lists_an_announced_server_and_connects_with_a_click(
    gui: Callable[..., Driver], lan_server: EmbeddedServer
) -> None:
    from lanqi.gui.scenes.base import ToConnect
    from lanqi.gui.scenes.connect import ConnectScene
    from lanqi.gui.scenes.lobby import LobbyScene

    name = f"象棋 club {uuid.uuid4().hex[:6]}"
    port = int(lan_server.matchmaker_endpoint.rpartition(":")[2])
    assert lan_server.matchmaker is not None
    announcer = Announcer(
        name=name,
        port=port,
        events_port=int(lan_server.matchmaker_pub_endpoint.rpartition(":")[2]),
        players_online=lan_server.matchmaker.players_online,
    )
    driver = gui()
    driver.app.go(ToConnect())
    driver.frames()
    scene = driver.scene
    assert isinstance(scene, ConnectScene)
    announcer.start()
    try:

        def row() -> int | None:
            names = [r[0] for r in scene.list.rows]
            return names.index(name) if name in names else None

        driver.until(lambda: row() is not None, 20, "the announced server in the list")
        index = row()
        assert index is not None
        _, address, players = scene.list.rows[index]
        assert address.rpartition(":")[0] in announcer.addresses
        assert address.endswith(f":{port}")
        assert players == "0"
        driver.shot("connect-lan")

        # a click without a name asks for one and connects nowhere
        scene.name.text = ""
        box, height = scene.list.rect, scene.list.row_height
        at = (box.x + 20, box.y + index * height + height // 2)
        driver.click(at)
        assert driver.app.lobby is None and "name" in scene.error
        scene.name.text = "Lin"
        driver.click(at)
        driver.until(lambda: isinstance(driver.scene, LobbyScene), 20, "the lobby")
        assert driver.app.lobby is not None and driver.app.lobby.name == "Lin"
        assert driver.app.lobby.server == f"tcp://{address}"
        assert driver.app.settings.server == f"tcp://{address}"  # remembered for next time

        # back on the connect screen, the server now has a player online
        driver.app.go(ToConnect())
        driver.frames()
        again = driver.scene
        assert isinstance(again, ConnectScene)
        driver.until(
            lambda: [name, address, "1"] in [list(r) for r in again.list.rows],
            20,
            "one player online in the list",
        )
    finally:
        announcer.stop()
