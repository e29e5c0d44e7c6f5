"""Banners over the board leave its words readable: the river's 楚河 汉界 and the
coordinates, and its pieces (see also ``test_banner_layout.py``).  The result, check
and waiting banners go to a band of the board where none is, or off the board; which
move is shown while stepping back is said in the side panel, off the board."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

pygame = pytest.importorskip("pygame")

from tests.gui.test_banner_layout import assert_pieces_show  # noqa: E402

from lanqi.games import gomoku  # noqa: E402
from lanqi.i18n import tr  # noqa: E402

if TYPE_CHECKING:
    from tests.gui.conftest import Driver

    from lanqi.server.embedded import EmbeddedServer

#: landscape, the smallest window (640x480 is grown back to 640x540), portrait
SIZES = [(1180, 780), (900, 600), (640, 480), (1400, 1000), (640, 900)]


def resize(driver: Driver, size: tuple[int, int]) -> None:
    driver.resize(size)


def assert_clear(scene: Any, what: str) -> None:
    """The banner drawn in the last frame leaves every word and every piece on the
    board uncovered (it is on the board only where none is, else off it)."""
    banner = scene.banner_rect
    assert banner is not None, what
    words = scene.view.words
    assert words["labels"], "the board names its coordinates"
    for kind, rects in words.items():
        for rect in rects:
            assert not banner.colliderect(rect), (what, kind, banner, rect)
    for rect in scene.view.pieces:
        assert not banner.colliderect(rect), (what, "piece", banner, rect)


def test_the_result_and_check_banners_leave_the_river_and_coordinates_readable(
    offline: Callable[..., Driver], mate_line: list[str]
) -> None:
    driver = offline("xiangqi")
    scene = driver.scene
    for move in mate_line[:-1]:
        driver.play_xiangqi(move)
    scene.check_flash = 1.0  # the 将军! flash
    driver.frames()
    assert len(scene.view.words["river"]) == 2
    assert_clear(scene, "check")
    driver.play_xiangqi(mate_line[-1])
    assert scene.model.finished
    for flipped in (False, True):
        for latin in (False, True):
            scene.view.flipped, scene.view.latin = flipped, latin
            for size in SIZES:
                resize(driver, size)
                assert_clear(scene, f"result at {size}, flipped {flipped}, latin {latin}")
                assert_pieces_show(driver)  # no piece under the banner


def test_the_gomoku_banner_keeps_clear_of_the_coordinates_and_the_winning_row(
    offline: Callable[..., Driver],
) -> None:
    driver = offline("gomoku")
    scene = driver.scene
    n = 15
    # Black wins along the bottom row, where the banner used to go
    for text in ["a1", "a3", "b1", "b3", "c1", "c3", "d1", "d3", "e1"]:
        move = gomoku.Move.from_text(text)
        driver.click_point(move.y * n + move.x)
    assert scene.model.finished and scene.model.termination == "five_in_a_row"
    for size in SIZES:
        resize(driver, size)
        assert_clear(scene, f"result at {size}")
        for cell in scene.model.position().markers["line"]:
            center = scene.view.center(scene.view.point(cell))
            assert not scene.banner_rect.collidepoint(center), (size, cell)
    driver.shot("gomoku-banner")


def test_the_waiting_banner_is_in_the_river(
    gui: Callable[..., Driver], server: EmbeddedServer, seat_zero: Callable[..., Any]
) -> None:
    from lanqi.client.referee import RefereeClient
    from lanqi.gui.scenes.base import ToSeat

    endpoints = (server.referee.endpoint, server.referee.pub_endpoint)
    with RefereeClient(*endpoints) as script:
        players = ["Alice", "Late"]
        created = script.create_game("xiangqi", players=players)
        driver = gui()
        driver.app.go(ToSeat(seat_zero(created, endpoints, "xiangqi", players)))
        driver.frames()  # the other seat never joins
        scene = driver.scene
        driver.until(lambda: scene.session.view is not None, 10, "the snapshot")
        driver.frames()
        assert scene.model.status == "waiting"
        assert_clear(scene, "waiting")


def test_stepping_back_is_said_in_the_panel_not_over_the_coordinates(
    gui: Callable[..., Driver], mate_line: list[str]
) -> None:
    from lanqi.gui.model import GameModel
    from lanqi.gui.scenes.base import ToReview

    driver = gui()
    driver.app.go(ToReview((GameModel("xiangqi", moves=mate_line),), source="mate.pgn"))
    driver.frames(2)
    scene = driver.scene
    assert scene.view_ply == 0
    step = tr("review_step", shown=0, ply=len(mate_line))
    assert scene.panel.stepping_label() == f"{step} · {tr('review_end_last')}"
    assert scene.banner_rect is None
    # every coordinate is drawn as the board's background has it: nothing over them
    view = scene.view
    background = view.background()
    for rect in view.words["labels"]:
        on_screen = driver.app.screen.subsurface(rect)
        drawn = background.subsurface(rect.move(-view.rect.x, -view.rect.y))
        assert pygame.image.tobytes(on_screen, "RGB") == pygame.image.tobytes(drawn, "RGB")
    driver.key(pygame.K_END)
    assert scene.panel.stepping_label() == ""
