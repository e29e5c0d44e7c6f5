"""A pygame GUI (SDL's dummy driver) and a browser (chromium through lanqi web) play
each other: the browser seeks, the GUI takes the seek from its lobby, and the
browser's Black makes five while the GUI's White plays elsewhere."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

pytest.importorskip("pygame")
pytest.importorskip("selenium")

from tests.gui.test_online import click_row, connect, wait_for_game
from tests.web.conftest import (
    Browser,
    board,
    browsers,
    gomoku_turn,
    in_game,
    ply,
    result,
    seek,
)
from tests.web.conftest import enter as enter_lobby

from lanqi.games import gomoku
from lanqi.web.server import Gateway, GatewayThread

if TYPE_CHECKING:
    from tests.gui.conftest import Driver

    from lanqi.server.embedded import EmbeddedServer

#: the GUI's stones, far from Black's row of five
WHITE = ["a1", "c1", "e1", "g1", "i1", "k1", "m1"]


@pytest.fixture
def browser() -> Iterator[Browser]:
    with browsers() as open_browser:
        yield open_browser


class Site:
    def __init__(self, url: str) -> None:
        self.url = url


def past(scene: Any, n: int) -> Callable[[], bool]:
    return lambda: scene.model.ply > n or scene.model.finished


def test_a_gui_and_a_browser_play_each_other(
    gui: Callable[..., Driver], server: EmbeddedServer, browser: Browser, tmp_path: Path
) -> None:
    gateway = Gateway(
        server.matchmaker_endpoint, server.client_link(), port=0, folder=tmp_path / "web"
    )
    thread = GatewayThread(gateway)
    thread.start()
    try:
        page = browser()
        enter_lobby(page, Site(gateway.urls[0].rstrip("/")), "Bo")  # type: ignore[arg-type]
        driver = connect(gui, server)
        link = driver.app.lobby
        assert link is not None
        seek(page, "gomoku", color="first")
        driver.until(lambda: any(s.player == "Bo" for s in link.state.seeks), 10, "Bo's seek")
        driver.frames()
        index = next(i for i, s in enumerate(link.state.seeks) if s.player == "Bo")
        click_row(driver, driver.scene.seeks, index)
        scene = wait_for_game(driver)
        in_game(page)
        assert scene.model.players == ["Bo", "Alice"]
        white = iter(WHITE)
        while not scene.model.finished:
            n = scene.model.ply
            if n % 2 == 0:
                gomoku_turn(page, 0)
            else:
                driver.until(lambda: scene.interactive() or scene.model.finished, 10, "my turn")
                if scene.model.finished:
                    break
                size = scene.view.files
                stone = gomoku.Move.from_text(next(white), size)
                driver.click_point(stone.y * size + stone.x)
            driver.until(past(scene, n), 10, "a move")
        assert scene.model.result == "1-0"
        assert result(page) == ("1-0", "five_in_a_row")
        assert ply(page) == scene.model.ply
        assert board(page)["fen"] == scene.model.board.fen()
    finally:
        thread.stop()
