"""Whole games on one computer, played through the GUI with posted clicks and keys."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

pygame = pytest.importorskip("pygame")

from lanqi.games import gomoku, xiangqi  # noqa: E402
from lanqi.gui import theme  # noqa: E402

if TYPE_CHECKING:
    from tests.gui.conftest import Driver

#: a short game that ends in checkmate (found by the built-in AI against random replies)
MATE_LINE = [
    "b0c2", "b9a7", "b2a2", "f9e8", "a2a6", "g6g5", "a6a9", "b7b6",
    "a0b0", "c6c5", "b0b6", "h7h5", "b6e6", "a7b9", "a9c9",
]  # fmt: skip


def start_local(gui: Callable[..., Driver], variant: str, **kwargs: Any) -> Driver:
    from lanqi.gui.scenes.base import ToOfflineGame

    driver = gui()
    driver.app.go(ToOfflineGame(variant, **kwargs))
    driver.frames(2)
    return driver


def test_two_players_xiangqi_to_checkmate(gui: Callable[..., Driver]) -> None:
    driver = start_local(gui, "xiangqi")
    scene = driver.scene
    driver.check_xiangqi_board(xiangqi.Board())
    driver.shot("xiangqi-start")
    ways = ("click", "drag", "keys")
    for i, move in enumerate(MATE_LINE):
        driver.play_xiangqi(move, ways[i % 3])
        assert scene.model.moves[-1] == move, (i, move, scene.model.moves)
        if i == 4:
            driver.frames(2)
            driver.check_xiangqi_board(scene.model.board)
            driver.check_last_move(move)
    model = scene.model
    assert model.finished
    assert (model.result, model.termination, model.winner) == ("1-0", "checkmate", 0)
    driver.frames(2)
    driver.check_xiangqi_board(model.board)
    driver.check_last_move(MATE_LINE[-1])
    # the general in check is ringed in the check colour
    king = model.board.king(xiangqi.Color.BLACK)
    cx, cy = scene.view.center(king)
    ring = scene.view.radius + 4
    assert any(driver.pixel((cx, cy - ring + d)) == theme.CHECK for d in range(-2, 3)), (
        "no check ring"
    )
    line, _, detail = scene.panel.status_lines()
    assert "红胜" in line and "Red wins" in line and "checkmate" in detail
    driver.shot("xiangqi-checkmate", docs=True)
    # further clicks cannot move anything
    driver.click(scene.view.center(xiangqi.parse_square("a9")))
    assert model.ply == len(MATE_LINE)


def test_illegal_moves_are_refused_with_the_reason(gui: Callable[..., Driver]) -> None:
    driver = start_local(gui, "xiangqi")
    scene = driver.scene
    # a horse cannot move straight ahead
    driver.play_xiangqi("b0b2")  # own cannon there: picking it up instead
    assert scene.controller.selected == xiangqi.parse_square("b2")
    driver.key(pygame.K_ESCAPE)
    driver.play_xiangqi("b0b1")
    assert scene.model.ply == 0
    assert "horse cannot move like that" in scene.session.notices[-1].text
    # a black piece when Red is to move
    driver.click_point(xiangqi.parse_square("a9"))
    assert "not your piece" in scene.session.notices[-1].text
    # legal targets are shown for a picked-up piece
    driver.click_point(xiangqi.parse_square("h2"))
    targets = set(scene.controller.legal_targets(xiangqi.parse_square("h2")))
    assert xiangqi.parse_square("e2") in targets and xiangqi.parse_square("h9") in targets
    driver.frames()
    center = scene.view.center(xiangqi.parse_square("h3"))
    assert driver.pixel(center) == theme.TARGET
    driver.shot("xiangqi-targets", docs=True)
    # a pinned rook may not leave the file
    board = "4k4/9/9/9/4r4/9/9/9/4R4/4K4 w - - 0 1"
    from lanqi.gui.scenes.base import ToOfflineGame

    driver.app.go(ToOfflineGame("xiangqi", fen=board))
    driver.frames(2)
    driver.play_xiangqi("e1d1")
    assert driver.scene.model.ply == 0
    assert "general in check or facing" in driver.scene.session.notices[-1].text


def test_two_players_gomoku_five_in_a_row(gui: Callable[..., Driver]) -> None:
    driver = start_local(gui, "gomoku")
    scene = driver.scene
    n = 15
    moves = ["h8", "h9", "i8", "i9", "j8", "j9", "k8", "k9", "l8"]
    for text in moves:
        move = gomoku.Move.from_text(text)
        driver.click_point(move.y * n + move.x)
    model = scene.model
    assert model.finished and model.result == "1-0" and model.termination == "five_in_a_row"
    driver.frames(2)
    driver.check_gomoku_board(model.board)
    last = gomoku.Move.from_text("l8")
    assert driver.pixel(scene.view.last_move_probe(last.y * n + last.x)) == theme.WIN_LINE
    driver.shot("gomoku-five")
    # New game (G) starts over
    driver.key(pygame.K_g)
    assert scene.model.ply == 0 and not scene.model.finished


def test_against_the_ai_gomoku_to_the_end(gui: Callable[..., Driver]) -> None:
    from lanqi.bot.base import SeatView
    from lanqi.bot.simple import GreedyGomokuBot

    driver = start_local(gui, "gomoku", ai=1, ai_time_ms=50, seed=3)
    scene = driver.scene
    me = GreedyGomokuBot(seed=1)
    n = 15
    while not scene.model.finished:
        driver.until(lambda: scene.interactive() or scene.model.finished, 10, "my turn")
        if scene.model.finished:
            break
        text = me.choose_move(SeatView.start("gomoku", moves=list(scene.model.moves)))
        move = gomoku.Move.from_text(text)
        before = scene.model.ply
        driver.click_point(move.y * n + move.x)
        assert scene.model.ply == before + 1
    assert scene.model.result in ("1-0", "0-1", "1/2-1/2")
    driver.frames(2)
    driver.check_gomoku_board(scene.model.board)
    driver.shot("gomoku-vs-ai")


def test_against_the_ai_xiangqi_to_the_end_with_takeback(gui: Callable[..., Driver]) -> None:
    from lanqi.bot.base import SeatView
    from lanqi.bot.xiangqi_ai import XiangqiAI

    driver = start_local(gui, "xiangqi", ai=1, seed=5)
    scene = driver.scene
    session = scene.session
    me = XiangqiAI(level=8, seed=1, depth=2)
    takeback_done = False
    while not scene.model.finished and scene.model.ply < 200:
        driver.until(lambda: scene.interactive() or scene.model.finished, 10, "my turn")
        if scene.model.finished:
            break
        if scene.model.ply == 4 and not takeback_done:
            takeback_done = True
            driver.press("takeback")  # 悔棋: my move and the AI's answer go back
            assert scene.model.ply == 2
            continue
        move = me.choose_move(SeatView.start("xiangqi", moves=list(scene.model.moves)))
        before = scene.model.ply
        driver.play_xiangqi(move)
        assert scene.model.ply >= before + 1, (move, session.notices[-1:])
        if scene.model.ply == 9:
            driver.shot("xiangqi-vs-ai")
    assert scene.model.finished, scene.model.moves
    assert takeback_done
    driver.frames(2)
    driver.check_xiangqi_board(scene.model.board)


def test_live_clock_and_time_out(gui: Callable[..., Driver]) -> None:
    from lanqi.phrases import clock_text

    driver = start_local(gui, "xiangqi", time_control="0.03+0")  # 1.8 s each
    scene = driver.scene
    # no clock runs before each side's first move (test_offline_clocks.py)
    driver.play_xiangqi("h2e2")
    driver.play_xiangqi("h9g7")
    first = scene.model.clock.left_ms(0)
    assert first is not None and scene.model.clock.running == 0
    driver.until(lambda: (scene.model.clock.left_ms(0) or first) < first - 150, 5, "Red's clock")
    assert scene.model.clock.left_ms(1) == pytest.approx(1800, abs=1)
    driver.play_xiangqi("g3g4")
    assert scene.model.clock.running == 1
    driver.until(lambda: scene.model.finished, 5, "Black to lose on time")
    assert (scene.model.termination, scene.model.winner) == ("timeout", 0)
    assert clock_text(scene.model.clock.left_ms(1)) == "0.0"


def test_resize_flip_and_latin(gui: Callable[..., Driver]) -> None:
    driver = start_local(gui, "xiangqi")
    scene = driver.scene
    for move in MATE_LINE[:6]:
        driver.play_xiangqi(move)
    big_cell = scene.view.cell
    driver.resize((820, 600))
    assert driver.app.screen.get_size() == (820, 600)
    assert scene.view.cell < big_cell
    driver.check_xiangqi_board(scene.model.board)
    driver.check_last_move(MATE_LINE[5])
    driver.shot("xiangqi-small-window")
    driver.key(pygame.K_f)
    assert scene.view.flipped
    red_king = scene.view.center(xiangqi.parse_square("e0"))
    assert red_king[1] < driver.app.screen.get_height() // 2  # Red's general is at the top now
    driver.check_xiangqi_board(scene.model.board)
    driver.key(pygame.K_l)
    assert scene.view.latin and driver.app.settings.latin
    driver.frames()
    driver.check_xiangqi_board(scene.model.board)
    driver.resize((1180, 780))
    driver.shot("xiangqi-flipped-latin", docs=True)
    # the setting is remembered in gui.json
    from lanqi.gui.settings import Settings

    assert Settings.load(driver.app.data_dir).latin


def test_menu_starts_every_mode(gui: Callable[..., Driver]) -> None:
    from lanqi.gui.scenes.game import GameScene
    from lanqi.gui.scenes.menu import MenuScene

    driver = gui()
    driver.app.switch(MenuScene())
    driver.frames(2)
    driver.shot("menu", docs=True)
    for key, kind, variant in (
        (pygame.K_2, "local", "xiangqi"),
        (pygame.K_3, "local", "gomoku"),
        (pygame.K_4, "ai", "xiangqi"),
        (pygame.K_5, "ai", "gomoku"),
    ):
        driver.key(key, frames=2)
        assert isinstance(driver.scene, GameScene)
        assert (driver.scene.session.kind, driver.scene.model.variant) == (kind, variant)
        driver.key(pygame.K_ESCAPE, frames=2)
        assert isinstance(driver.scene, MenuScene)


def test_moves_slide_into_place(gui: Callable[..., Driver]) -> None:
    driver = start_local(gui, "xiangqi")
    driver.app.settings.animate = True
    scene = driver.scene
    driver.play_xiangqi("h2e2")
    assert scene._anim is not None
    frm, to = xiangqi.parse_square("h2"), xiangqi.parse_square("e2")
    marks = scene.marks()
    assert marks.sliding is not None and marks.sliding[0] == to
    x = marks.sliding[1][0]
    assert scene.view.center(to)[0] < x < scene.view.center(frm)[0]
    driver.frames(12)
    assert scene._anim is None
    driver.check_xiangqi_board(scene.model.board)


def test_the_frame_loop_runs_until_the_window_closes(gui: Callable[..., Driver]) -> None:
    from lanqi.gui.scenes.game import GameScene

    driver = gui(offline="gomoku", ai=2, ai_time_ms=20)
    app = driver.app
    app.switch(app.first_scene())
    app.step()
    assert isinstance(app.scene, GameScene) and app.scene.session.kind == "ai"
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    assert app.run() == 0
    assert not app.running and app.scene is None
