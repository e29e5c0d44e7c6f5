"""Reviewing records: open a PGN or a gomoku record, step through it, flip, save."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

pygame = pytest.importorskip("pygame")

from tests.gui.test_banner_layout import assert_pieces_show  # noqa: E402

from lanqi.games import gomoku, xiangqi  # noqa: E402
from lanqi.games.xiangqi.pgn import read_pgns, write_pgn  # noqa: E402
from lanqi.gui.model import GameModel  # noqa: E402
from lanqi.gui.variants import variant_ui  # noqa: E402
from lanqi.i18n import tr  # noqa: E402

if TYPE_CHECKING:
    from tests.gui.conftest import CatalogueWatch, Driver

MATE_LINE = [
    "b0c2", "b9a7", "b2a2", "f9e8", "a2a6", "g6g5", "a6a9", "b7b6",
    "a0b0", "c6c5", "b0b6", "h7h5", "b6e6", "a7b9", "a9c9",
]  # fmt: skip


def write_game(path: Path, moves: list[str], **headers: str) -> xiangqi.Board:
    board = xiangqi.Board()
    for move in moves:
        board.push_text(move)
    path.write_text(write_pgn(board, headers, notation="chinese"), encoding="utf-8")
    return board


def test_review_a_pgn_step_flip_and_save(gui: Callable[..., Driver], tmp_path: Path) -> None:
    from lanqi.gui.scenes.game import GameScene

    record = tmp_path / "club.pgn"
    final = write_game(record, MATE_LINE, Red="Lü Qin", Black="Hu Ronghua", Event="Club")
    driver = gui(review=record)
    driver.app.switch(driver.app.first_scene())
    driver.frames(2)
    scene = driver.scene
    assert isinstance(scene, GameScene) and scene.session.kind == "review"
    assert scene.model.players == ["Lü Qin", "Hu Ronghua"]
    assert scene.view_ply == 0
    driver.check_xiangqi_board(xiangqi.Board())
    for _ in range(5):
        driver.key(pygame.K_PERIOD)
    assert scene.view_ply == 5
    driver.check_xiangqi_board(scene.model.board_at(5))
    driver.check_last_move(MATE_LINE[4])
    driver.key(pygame.K_LEFT)  # arrows step through a record too
    assert scene.view_ply == 4
    driver.check_last_move(MATE_LINE[3])
    driver.key(pygame.K_COMMA)
    assert scene.view_ply == 3
    driver.key(pygame.K_HOME)
    assert scene.view_ply == 0
    # a click on a move in the list shows the position after it
    cell = next(c for c, p in scene.panel.move_cells if p == 7)
    driver.click(cell.center)
    assert scene.view_ply == 7
    driver.check_xiangqi_board(scene.model.board_at(7))
    driver.shot("xiangqi-review", docs=True)
    driver.key(pygame.K_END)
    assert scene.view_ply is None and scene.shown_board().fen() == final.fen()
    assert scene.model.finished and scene.model.result == "1-0"
    driver.key(pygame.K_f)
    assert_pieces_show(driver)  # the result banner up: every piece shows
    driver.click(driver.scene.view.rect.center)  # a click hides it: the whole board
    driver.check_xiangqi_board(final)
    driver.check_last_move(MATE_LINE[-1])
    # a record cannot be played on
    driver.play_xiangqi("a9a8")
    assert scene.model.ply == len(MATE_LINE)
    # save (S): the saved PGN holds the same game
    driver.key(pygame.K_s)
    saved = scene.saved_path
    games = read_pgns(saved.read_text(encoding="utf-8"))
    assert [str(m) for m in games[0].board.move_stack] == MATE_LINE
    assert games[0].headers["Red"] == "Lü Qin" and games[0].result == "1-0"


def test_review_several_games_and_a_gomoku_record(
    gui: Callable[..., Driver], tmp_path: Path
) -> None:
    from lanqi.gui.scenes.review import OpenScene

    two = tmp_path / "two.pgn"
    first = write_game(tmp_path / "a.pgn", MATE_LINE[:4], Red="A")
    second = write_game(tmp_path / "b.pgn", ["h2e2", "h9g7"], Red="B")
    two.write_text(
        (tmp_path / "a.pgn").read_text(encoding="utf-8")
        + "\n"
        + (tmp_path / "b.pgn").read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    driver = gui()
    driver.app.switch(OpenScene())
    driver.frames(2)
    driver.type(str(two))
    driver.key(pygame.K_RETURN, frames=2)
    scene = driver.scene
    assert scene.session.kind == "review" and len(scene.session.games) == 2
    assert scene.model.moves == [str(m) for m in first.move_stack]
    driver.key(pygame.K_PAGEDOWN, frames=2)
    assert scene.model.moves == [str(m) for m in second.move_stack]
    assert scene.model.players[0] == "B"
    # a gomoku record, opened from the open screen's list
    board = gomoku.Board()
    for text in ["h8", "h9", "i8", "i9", "j8", "j9", "k8", "k9", "l8"]:
        board.push_text(text)
    games_dir = driver.app.games_dir
    games_dir.mkdir(parents=True, exist_ok=True)
    (games_dir / "five.txt").write_text(
        gomoku.write_record(board, {"Black": "Ann", "White": "Ben"}), encoding="utf-8"
    )
    driver.key(pygame.K_ESCAPE, frames=2)  # back to the menu
    driver.app.switch(OpenScene())
    driver.frames(2)
    open_scene = driver.scene
    index = next(i for i, p in enumerate(open_scene.files) if p.name == "five.txt")
    rect = open_scene.list.rect
    driver.click((rect.x + 30, rect.y + index * open_scene.list.row_height + 10), frames=2)
    scene = driver.scene
    assert scene.model.variant == "gomoku" and scene.model.players == ["Ann", "Ben"]
    driver.key(pygame.K_END)
    driver.frames()
    driver.check_gomoku_board(board)
    assert scene.model.result == "1-0"
    driver.shot("gomoku-review")


def test_records_round_trip_through_the_model() -> None:
    board = xiangqi.Board("3k5/9/9/9/9/9/9/9/4A4/3AK1R2 b")
    board.push_text("d9e9")
    text = write_pgn(board, {"Red": "R"})
    [model] = GameModel.from_record(text)
    assert model.start_fen == board.start_fen and model.moves == ["d9e9"]
    notations = variant_ui("xiangqi").notations
    assert model.move_texts("chinese", notations["chinese"]) == ["将４平５"]
    assert model.move_texts("wxf", notations["wxf"]) == ["K4=5"]
    assert model.move_texts() == ["K4=5"]  # the game's own move text
    assert model.move_texts("iccs", notations["iccs"]) == ["d9e9"]
    again = read_pgns(model.record_text())[0]
    assert again.board.fen() == board.fen()
    with pytest.raises(ValueError):
        GameModel.from_record("this is not a record")


def test_a_record_that_cannot_be_read_opens_the_find_screen_saying_why(
    gui: Callable[..., Driver], tmp_path: Path, catalogue_only: CatalogueWatch
) -> None:
    from lanqi.gui.model import GameModel
    from lanqi.gui.scenes.review import OpenScene

    bad = tmp_path / "notes.pgn"
    bad.write_text("this is not a record", encoding="utf-8")
    try:  # the reader's reason is shown as it is: where in the file, what is wrong
        GameModel.from_record("this is not a record")
    except ValueError as exc:
        catalogue_only.shown_as_is(str(exc))
    for path, why in ((bad, "not a move"), (tmp_path / "missing.pgn", tr("no_such_file"))):
        driver = gui(review=path)
        driver.app.switch(driver.app.first_scene())
        driver.frames(2)
        assert isinstance(driver.scene, OpenScene)
        assert str(path) in driver.scene.error and why in driver.scene.error
    # typed into the find screen, it says why in place
    driver.type(str(bad))
    driver.key(pygame.K_RETURN, frames=2)
    assert isinstance(driver.scene, OpenScene) and "not a move" in driver.scene.error
