"""Nothing drawn over the board hides a piece, a stone or a word printed on it
(issue 19, item 3): the result, check and waiting banners, the connection-lost band,
an opponent away and an offer, in every window shape.  The board view records where
it drew each piece or stone (``view.pieces``) and each coordinate and river word
(``view.words``); the game screen records where it drew its banner and band."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

pygame = pytest.importorskip("pygame")

from lanqi.games import gomoku  # noqa: E402

if TYPE_CHECKING:
    from tests.gui.conftest import Driver

SHAPES = [(1280, 800), (800, 540), (640, 900), (640, 540)]
#: Black is mated by the cannon on e4, screened by the pawn on e5: both stand in the
#: rows next to the river, in the middle, where the result banner used to go
CANNON_MATE = "4k4/9/9/9/2p1P1p2/2P1C1P2/9/9/3R1R3/4K4 b"
#: Black wins along the bottom row; White's stones fill the second row
BOTTOM_FIVE = ["a1", "a2", "b1", "b2", "c1", "c2", "d1", "d2", "e1"]


def covered_by(scene: Any) -> list[tuple[str, Any]]:
    """What the last frame drew over the board or the panel: its banner and band."""
    drawn = [("banner", scene.banner_rect), ("lost", scene.lost_rect)]
    return [(name, rect) for name, rect in drawn if rect is not None]


def assert_uncovered(driver: Driver, what: str) -> None:
    """No banner or band of the last frame meets a piece, a stone or a word on the
    board, and every coordinate shows as the board's background has it."""
    scene = driver.scene
    view = scene.view
    assert view.pieces, "the view records its pieces"
    assert view.words.get("labels"), "the view records its coordinates"
    for name, rect in covered_by(scene):
        for piece in view.pieces:
            assert not rect.colliderect(piece), (what, name, rect, "piece", piece)
        for kind, words in view.words.items():
            for word in words:
                assert not rect.colliderect(word), (what, name, rect, kind, word)
    background = view.background()
    screen = driver.app.screen
    near_pieces = [piece.inflate(8, 8) for piece in view.pieces]  # a stone's shadow
    for rect in view.words["labels"]:
        if rect.collidelist(near_pieces) >= 0:
            continue
        drawn = background.subsurface(rect.move(-view.rect.x, -view.rect.y))
        shown = screen.subsurface(rect)
        assert pygame.image.tobytes(shown, "RGB") == pygame.image.tobytes(drawn, "RGB"), (
            what,
            rect,
        )


def assert_pieces_show(driver: Driver) -> None:
    """Every piece shows its colour with the banner up (empty points may be under it)."""
    from tests.gui.conftest import near

    from lanqi.gui import theme

    scene = driver.scene
    board = scene.model.board
    for sq, piece in board.piece_map().items():
        color = driver.pixel(scene.view.piece_probe(sq))
        ink = theme.RED if piece.color.value == 0 else theme.BLACK
        assert near(color, ink, 60), (sq, piece, color)


def every_shape(driver: Driver, what: str, expect: tuple[str, ...]) -> None:
    for size in SHAPES:
        driver.resize(size)
        drawn = {name for name, _ in covered_by(driver.scene)}
        assert set(expect) <= drawn, (what, size, drawn)
        assert_uncovered(driver, f"{what} at {size}")


def test_the_result_banner_leaves_the_mating_cannon_and_its_screen_visible(
    offline: Callable[..., Driver],
) -> None:
    driver = offline("xiangqi", fen=CANNON_MATE)
    scene = driver.scene
    assert scene.model.finished and scene.model.termination == "checkmate"
    for flipped in (False, True):
        scene.view.flipped = flipped
        every_shape(driver, f"result, flipped {flipped}", ("banner",))
        assert_pieces_show(driver)
    driver.shot("xiangqi-cannon-mate")


def test_the_check_banner_and_the_lost_band_cover_nothing(
    offline: Callable[..., Driver], mate_line: list[str]
) -> None:
    from lanqi.gui.net import Disconnected

    driver = offline("xiangqi")
    scene = driver.scene
    for move in mate_line[:-1]:
        driver.play_xiangqi(move)
    for size in SHAPES:
        scene.check_flash = 1.0  # the 将军! flash, as after a checking move
        driver.resize(size)
        assert scene.banner_rect is not None, size
        assert_uncovered(driver, f"check at {size}")
    scene.check_flash = 0.0
    now = time.monotonic()
    scene.session.lost = Disconnected("referee", since=now - 5, next_try_at=now + 60)
    every_shape(driver, "lost", ("lost",))
    for size in SHAPES:
        # the app's notices and the lost-server line go off the board too
        driver.app.notices = [("lost the server 0:05 ago; retrying in 2 s", True, time.monotonic())]
        driver.resize(size)
        assert not scene.lost_rect.colliderect(scene.view.rect), size  # off the board
        assert driver.app.notice_rects, size
        for rect in driver.app.notice_rects:
            assert not rect.colliderect(scene.view.rect), (size, rect)
    driver.shot("lost-band")


def test_a_gomoku_review_shows_every_stone_of_the_bottom_rows(
    gui: Callable[..., Driver],
) -> None:
    from lanqi.gui.model import GameModel
    from lanqi.gui.scenes.base import ToReview

    driver = gui()
    board = gomoku.Board()
    for text in BOTTOM_FIVE:
        board.push_text(text)
    (model,) = GameModel.from_record(gomoku.write_record(board, {"Black": "Ann", "White": "Bo"}))
    driver.app.go(ToReview((model,), source="five.gmk"))
    driver.frames(2)
    driver.key(pygame.K_END)
    scene = driver.scene
    assert scene.model.finished and scene.view_ply is None
    every_shape(driver, "gomoku review", ("banner",))
    view = scene.view
    for text in BOTTOM_FIVE:  # each stone in its colour, the banner up
        move = gomoku.Move.from_text(text)
        color = driver.pixel(view.piece_probe(move.y * 15 + move.x))
        black = sum(color) < 3 * 100
        assert black == (BOTTOM_FIVE.index(text) % 2 == 0), (text, color)


def test_offers_and_the_waiting_banner_cover_nothing(
    offline: Callable[..., Driver], mate_line: list[str]
) -> None:
    driver = offline("xiangqi")
    scene = driver.scene
    for move in mate_line[:6]:
        driver.play_xiangqi(move)
    from lanqi.gui.sessions import LocalSession
    from lanqi.protocol import OfferDraw

    session = scene.session
    assert isinstance(session, LocalSession)
    black = session.tables[1]  # an offer shows in the panel, not on the board
    black.send(OfferDraw(game_id=black.game_id, token=black.token or ""))
    driver.frames()
    assert scene.model.draw_offer == 1
    every_shape(driver, "offer", ())
    model = scene.model  # as an online game before its start
    model.show(model.state._replace(status="waiting", draw_offer=None))
    every_shape(driver, "waiting", ("banner",))


@pytest.mark.parametrize("variant", ["xiangqi", "gomoku"])
def test_a_640x540_window_gives_the_board_more_than_half_its_width(
    offline: Callable[..., Driver], variant: str
) -> None:
    """Issue 19, item 9: the panel takes what the board, as tall as the window,
    leaves over (at least its narrowest), not a fixed 300 px."""
    driver = offline(variant)
    driver.resize((640, 540))
    scene = driver.scene
    board, panel = scene.view.rect, scene.panel.rect
    assert board.width >= 0.53 * 640, board
    assert not board.colliderect(panel) and panel.right == 640
    # a wide window: the board as tall as the window allows, the panel at most 440
    driver.resize((1280, 800))
    assert scene.view.rect.height >= 800 - 24 or scene.view.rect.width >= 1280 - 440 - 24
    assert scene.panel.rect.width <= 440
