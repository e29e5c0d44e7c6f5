"""Leaving a game that goes on: the question first, and offline games kept to resume.

Esc, the Back button and the window's close button in an unfinished offline or
vs-computer game open a question (save and leave / give it up / keep playing); the
game is kept in ``<data dir>/unfinished/`` after every move and when it is left, and
the menu's Resume brings it back exactly: moves, players, clocks, the AI's level and
side.  Online, leaving a seat in a game that goes on asks too.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

pygame = pytest.importorskip("pygame")

from lanqi.games import xiangqi  # noqa: E402
from lanqi.gui import resume  # noqa: E402
from lanqi.i18n import tr  # noqa: E402

if TYPE_CHECKING:
    from tests.gui.conftest import Driver


OPENING = ["b0c2", "b9a7", "b2a2", "f9e8"]


def menu_button(driver: Driver, key: str) -> Any:
    return next(b for b in driver.scene.buttons if b.key == key)


def test_esc_asks_first_and_resume_restores_the_game(
    gui: Callable[..., Driver], offline: Callable[..., Driver]
) -> None:
    from lanqi.gui.scenes.game import GameScene
    from lanqi.gui.scenes.menu import MenuScene

    driver = offline("xiangqi", time_control="5+3")
    scene = driver.scene
    for move in OPENING[:3]:
        driver.play_xiangqi(move)
    data_dir = driver.app.data_dir
    # kept after every move
    kept = resume.latest(data_dir)
    assert kept is not None and kept.moves == OPENING[:3] and kept.kind == "local"
    # Esc: a question, the game goes on under it
    driver.key(pygame.K_ESCAPE, frames=2)
    assert driver.scene is scene and scene.dialog is not None
    assert [b.id for b in scene.dialog.buttons] == ["keep", "discard", "stay"]
    assert scene.model.ply == 3 and scene.model.status == "active"
    driver.shot("leave-confirm")
    # Esc again answers "keep playing"; board clicks still play
    driver.key(pygame.K_ESCAPE, frames=2)
    assert driver.scene is scene and scene.dialog is None
    driver.play_xiangqi(OPENING[3])
    assert scene.model.ply == 4
    # the Back button asks the same; "save and leave" goes to the menu
    driver.press("back")
    assert scene.dialog is not None
    driver.click(next(b for b in scene.dialog.buttons if b.id == "keep").rect.center, frames=2)
    menu = driver.scene
    assert isinstance(menu, MenuScene)
    kept = resume.latest(data_dir)
    assert kept is not None and kept.moves == OPENING
    assert kept.remaining_ms is not None and kept.time_control == "5+3"
    button = menu_button(driver, "r")
    assert "Resume" in button.label and "4 moves" in button.label and "双人" in button.label
    driver.shot("menu-resume")
    # Resume: the same position, history, players and clocks
    driver.key(pygame.K_r, frames=2)
    resumed = driver.scene
    assert isinstance(resumed, GameScene) and resumed.session.kind == "local"
    model = resumed.model
    assert model.moves == OPENING and model.ply == 4
    assert model.board.fen() == _fen_after(OPENING)
    assert model.players == kept.players
    clock = model.clock
    assert clock.running == model.seat_to_move == 0
    assert clock.left_ms(1) == kept.remaining_ms[1]  # the waiting clock exactly
    left = clock.left_ms(0)
    assert left is not None and left <= kept.remaining_ms[0]
    assert resumed.keep_id == kept.id
    # playing on updates the same kept game; a result drops it
    driver.play_xiangqi("h2e2")
    again = resume.latest(data_dir)
    assert again is not None and again.id == kept.id and len(again.moves) == 5
    driver.key(pygame.K_r)
    assert not model.finished  # the first R only asks
    assert driver.button("resign").label.startswith("确认认输")
    driver.key(pygame.K_r)
    assert model.finished and model.termination == "resignation"
    driver.frames()
    assert resume.latest(data_dir) is None


def _fen_after(moves: list[str]) -> str:
    board = xiangqi.Board()
    for move in moves:
        board.push(board.parse_move(move))
    return board.fen()


def test_give_it_up_drops_the_game_and_a_fresh_game_leaves_at_once(
    gui: Callable[..., Driver],
    offline: Callable[..., Driver],
) -> None:
    from lanqi.gui.scenes.menu import MenuScene

    driver = offline("gomoku")
    driver.click_point(7 * 15 + 7)
    assert resume.latest(driver.app.data_dir) is not None
    driver.key(pygame.K_ESCAPE)
    driver.key(pygame.K_d, frames=2)
    assert isinstance(driver.scene, MenuScene)
    assert resume.latest(driver.app.data_dir) is None
    assert not any(b.key == "r" for b in driver.scene.buttons)
    # nothing to lose: Esc leaves at once
    driver.key(pygame.K_3, frames=2)
    driver.key(pygame.K_ESCAPE, frames=2)
    assert isinstance(driver.scene, MenuScene)


def test_new_game_needs_a_second_press_in_a_game_that_goes_on(
    offline: Callable[..., Driver],
) -> None:
    driver = offline("xiangqi")
    scene = driver.scene
    driver.play_xiangqi(OPENING[0])
    driver.key(pygame.K_g)
    assert scene.model.ply == 1
    driver.key(pygame.K_g)
    assert scene.model.ply == 0


def test_closing_the_window_keeps_a_game_against_the_ai_to_resume(
    gui: Callable[..., Driver],
    offline: Callable[..., Driver],
) -> None:
    from lanqi.gui.scenes.game import GameScene
    from lanqi.gui.scenes.menu import MenuScene
    from lanqi.gui.sessions import AISession

    driver = offline("xiangqi", ai=2, side="second", ai_time_ms=50, seed=3)
    app = driver.app
    scene = driver.scene
    assert scene.panel.card_name(1) == tr("you")  # no name: not "You (you)"
    driver.until(scene.interactive, 10, "the AI's first move")
    first = scene.model.moves[0]
    reply = next(m for m in ("h7e7", "b7e7", "h9g7", "b9c7") if scene.model.legal_reason(m) is None)
    driver.play_xiangqi(reply)
    driver.until(scene.interactive, 10, "the AI's answer")
    moves = list(scene.model.moves)
    assert moves[:2] == [first, reply] and len(moves) == 3
    # the window's close button: a question first, the app goes on
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    assert app.step()
    assert app.scene is scene and scene.dialog is not None
    assert scene.dialog.buttons[0].label.startswith("保存退出 Save and quit")
    # a second close quits, and the game is kept
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    assert not app.step()
    app.close()
    kept = resume.latest(driver.app.data_dir)
    assert kept is not None
    assert (kept.kind, kept.ai_level, kept.human_seat, kept.moves) == ("ai", 2, 1, moves)
    # a new window: the menu offers it, and Resume brings it back
    driver = gui()
    driver.app.switch(MenuScene())
    driver.frames(2)
    label = menu_button(driver, "r").label
    assert "L2" in label and "3 moves" in label and "Black" in label
    driver.key(pygame.K_r, frames=2)
    resumed = driver.scene
    assert isinstance(resumed, GameScene)
    session = resumed.session
    assert isinstance(session, AISession)
    assert (session.level, session.human_seat, session.ai_time_ms) == (2, 1, 50)
    assert resumed.model.moves == moves and resumed.view.flipped
    assert resumed.interactive()  # Black (you) to move, as it was left
    driver.check_xiangqi_board(resumed.model.board)


def test_an_unreadable_kept_game_is_skipped(gui: Callable[..., Driver]) -> None:
    from lanqi.gui.scenes.menu import MenuScene

    driver = gui()
    folder = driver.app.data_dir / resume.FOLDER
    folder.mkdir(parents=True)
    (folder / "broken.json").write_text("{not json", encoding="utf-8")
    driver.app.switch(MenuScene())
    driver.frames(2)
    assert driver.scene.unfinished is None
    assert not any(b.key == "r" for b in driver.scene.buttons)


def test_leaving_an_online_seat_asks_and_says_the_game_goes_on(
    scripted_game: Callable[..., AbstractContextManager[Any]],
) -> None:
    from lanqi.gui.scenes.base import ToMenu
    from lanqi.gui.scenes.menu import MenuScene

    with scripted_game("xiangqi") as game:
        driver, scene = game.driver, game.scene
        scene.back = ToMenu()
        assert scene.panel.card_name(0) == f"Alice ({tr('you_mark')})"
        assert scene.panel.card_name(1) == "Script"
        driver.key(pygame.K_ESCAPE, frames=2)
        assert driver.scene is scene and scene.dialog is not None
        assert "clock keeps running" in " ".join(scene.dialog.lines)
        driver.key(pygame.K_n)
        assert scene.dialog is None and driver.scene is scene
        # the window's close button asks the same, and quits on "leave"
        pygame.event.post(pygame.event.Event(pygame.QUIT))
        assert driver.app.step() and scene.dialog is not None
        assert scene.dialog.buttons[0].label == tr("quit_goes_on")
        driver.key(pygame.K_ESCAPE)
        assert scene.dialog is None and driver.app.running
        driver.key(pygame.K_ESCAPE)
        driver.key(pygame.K_RETURN, frames=2)
        assert isinstance(driver.scene, MenuScene)
        assert game.script.sync(game.game_id).status == "active"  # the game goes on


def test_the_leave_question_goes_when_the_online_game_ends_under_it(
    scripted_game: Callable[..., AbstractContextManager[Any]],
) -> None:
    from lanqi.gui.scenes.base import ToMenu
    from lanqi.gui.scenes.menu import MenuScene

    with scripted_game("xiangqi") as game:
        driver, scene = game.driver, game.scene
        scene.back = ToMenu()
        driver.key(pygame.K_ESCAPE, frames=2)
        assert scene.dialog is not None and "clock keeps running" in " ".join(scene.dialog.lines)
        game.script.resign(game.game_id, game.tokens[1])
        game.wait(lambda: scene.model.finished, "the opponent's resignation")
        driver.frames(2)
        # "the game goes on without you" is no longer true: the question is gone
        assert scene.dialog is None and driver.scene is scene
        driver.key(pygame.K_ESCAPE, frames=2)  # and a finished game leaves at once
        assert isinstance(driver.scene, MenuScene)


def test_the_eight_newest_unfinished_games_are_kept(tmp_path: Path) -> None:
    games = [
        resume.Unfinished(
            id=f"g{i:02d}",
            kind="local",
            variant="gomoku",
            moves=["h8"],
            players=["Black", "White"],
            saved_at=f"2026-01-01T00:00:{i:02d}+00:00",
        )
        for i in range(resume.KEEP + 2)
    ]
    for game in games:
        resume.keep(tmp_path, game)
    kept = sorted(p.stem for p in (tmp_path / resume.FOLDER).glob("*.json"))
    assert kept == [g.id for g in games[2:]]
    assert resume.latest(tmp_path) == games[-1]
    resume.drop(tmp_path, games[-1].id)
    assert resume.latest(tmp_path) == games[-2]
    with pytest.raises(ValueError, match="gone"):
        resume.find(tmp_path, games[-1].id)


def test_a_kept_game_that_cannot_be_played_again_is_dropped_with_a_reason(
    gui: Callable[..., Driver],
) -> None:
    from lanqi.gui.scenes.menu import MenuScene

    driver = gui()
    bad = resume.Unfinished(
        id="bad", kind="local", variant="xiangqi", moves=["h2e2", "h2e2"], players=["", ""]
    )
    resume.keep(driver.app.data_dir, bad)
    driver.app.switch(MenuScene())
    driver.frames(2)
    driver.key(pygame.K_r, frames=2)
    menu = driver.scene
    assert isinstance(menu, MenuScene)
    assert menu.error.startswith(tr("cannot_resume"))
    assert resume.latest(driver.app.data_dir) is None
    assert not any(b.key == "r" for b in menu.buttons)
