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
