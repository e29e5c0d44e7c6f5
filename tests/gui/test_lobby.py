"""The lobby remembers and shows what was picked (issue 19, item 6): the game and
rated/casual survive a game and a restart (``gui.json``), the game button names the
game at every width, and a short window lists more players.  A real matchmaker and
referee run in-process (the ``server`` fixture)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

pygame = pytest.importorskip("pygame")

if TYPE_CHECKING:
    from tests.gui.conftest import Driver

    from lanqi.server.embedded import EmbeddedServer


def lobby_of(
    gui: Callable[..., Driver], server: EmbeddedServer, name: str, **config: Any
) -> Driver:
    driver = gui(server=server.matchmaker_endpoint, name=name, connect=True, **config)
    driver.enter_lobby()
    return driver


def button(scene: Any, button_id: str) -> Any:
    return next(b for b in scene.buttons if b.id == button_id)


def test_the_lobby_remembers_the_game_and_rated_or_casual(
    gui: Callable[..., Driver], server: EmbeddedServer
) -> None:
    from lanqi.gui.scenes.base import ToLobby, ToMenu

    driver = lobby_of(gui, server, "Gus")
    lobby = driver.scene
    assert (lobby.variant, lobby.rated) == ("xiangqi", False)
    driver.key(pygame.K_v)  # gomoku
    driver.key(pygame.K_k)  # rated
    assert (lobby.variant, lobby.rated) == ("gomoku", True)
    # another lobby screen (after a game, or from the menu) keeps them
    driver.app.go(ToMenu())
    driver.frames()
    driver.app.go(ToLobby())
    driver.frames()
    again = driver.scene
    assert again is not lobby and (again.variant, again.rated) == ("gomoku", True)
    saved = json.loads((driver.app.data_dir / "gui.json").read_text(encoding="utf-8"))
    assert saved["game_options"]["lobby.variant"] == "gomoku"
    assert saved["game_options"]["lobby.rated"] == "rated"
    # and so does a restarted GUI
    restarted = lobby_of(gui, server, "Gus")
    assert (restarted.scene.variant, restarted.scene.rated) == ("gomoku", True)


@pytest.mark.parametrize("size", [(640, 540), (800, 540), (1280, 800)])
def test_the_game_button_names_the_game(
    gui: Callable[..., Driver], server: EmbeddedServer, size: tuple[int, int]
) -> None:
    driver = lobby_of(gui, server, "Hal", size=size)
    lobby = driver.scene
    for variant, names in (("xiangqi", ("象棋", "Xiangqi")), ("gomoku", ("五子棋", "Gomoku"))):
        if lobby.variant != variant:
            driver.key(pygame.K_v)
        shown, _ = button(lobby, "variant").shown_label()
        assert any(name in shown for name in names), (size, shown)
        assert shown != "游戏"


def test_a_short_lobby_lists_more_players(
    gui: Callable[..., Driver], server: EmbeddedServer
) -> None:
    driver = lobby_of(gui, server, "Ida", size=(800, 540))
    lobby = driver.scene
    assert lobby.players.visible_rows >= 6, lobby.players.rect
    for name in ("players", "seeks", "games", "tournaments", "standings"):
        widget = getattr(lobby, name)
        assert widget.rect.height >= widget.row_height, name  # every list still shows
    screen = driver.app.screen.get_rect()
    for b in lobby.buttons:
        assert screen.contains(b.rect), b.label
    link = driver.app.lobby
    driver.until(lambda: bool(lobby.players.rows) and bool(link.state.players), 10, "the players")
    driver.frames(2)
    driver.shot("lobby-800x540")


def test_a_lobby_of_two_thousand_players_shows_its_first_page_and_says_so(
    gui: Callable[..., Driver], server: EmbeddedServer
) -> None:
    """``list_players`` names 1,000 players a page (docs/protocol.md#list_players):
    with 2,000 in the lobby the GUI shows the first page, online players first (so
    the player itself, whose name sorts last, is on it), and its header says
    ``1000/2001``.  The rows are made once per lobby state, not at every frame."""
    import asyncio

    from lanqi.client.connection import Connection
    from lanqi.client.matchmaker import MatchmakerClient
    from lanqi.gui.scenes.lobby import LobbyScene
    from lanqi.i18n import tr
    from lanqi.protocol import Hello, Welcome

    async def register(conn: Connection, n: int) -> list[object]:
        # one connection, n names: each hello takes the connection over, so all but
        # the last are registered and offline
        service = await conn.matchmaker()
        waits = [service.send(Hello(name=f"crowd-{i:04d}", kind="bot"))[1] for i in range(n)]
        return list(await asyncio.gather(*waits))

    with MatchmakerClient(server.matchmaker_endpoint) as crowd:
        blocking = crowd.connection
        replies = blocking.run(register(blocking.connection, 2_000), timeout=120)
        assert all(isinstance(r, Welcome) for r in replies)

        driver = lobby_of(gui, server, "zz-me")
        lobby = driver.scene
        assert isinstance(lobby, LobbyScene)
        link = driver.app.lobby
        driver.until(lambda: link.state.players_total == 2_001, 20, "the whole lobby counted")
        driver.frames(2)
        state = link.state
        assert len(state.players) == 1_000 and len(lobby.players.rows) == 1_000
        names = [p.name for p in state.players]
        assert names[:2] == ["crowd-1999", "zz-me"]  # the online ones first
        assert lobby.players.rows[1][0] == f"● zz-me ({tr('you_mark')})"
        assert lobby._players_shown() == " 1000/2001"
        rows = lobby.players.rows
        driver.frames(5)
        if link.state is state:  # no refresh came meanwhile: the same rows
            assert lobby.players.rows is rows
        driver.shot("lobby-2000-players")
