"""Records saved from the GUI and the review list (issue 19, item 9): a saved game
carries its date and event; the list of records shows each one's players, result,
date and event, not only the file's name."""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

pygame = pytest.importorskip("pygame")

from lanqi.games import gomoku  # noqa: E402
from lanqi.games.xiangqi.pgn import read_pgns  # noqa: E402

if TYPE_CHECKING:
    from tests.gui.conftest import Driver


def test_a_saved_pgn_and_gomoku_record_carry_the_date_and_event(
    offline: Callable[..., Driver], mate_line: list[str]
) -> None:
    today = datetime.date.today().strftime("%Y.%m.%d")
    driver = offline("xiangqi")
    scene = driver.scene
    for move in mate_line:
        driver.play_xiangqi(move)
    driver.key(pygame.K_s)
    game = read_pgns(scene.saved_path.read_text(encoding="utf-8"))[0]
    assert game.headers["Date"] == today
    assert re.fullmatch(r"\d{4}\.\d\d\.\d\d", game.headers["Date"])
    assert game.headers["Event"] == scene.session.title

    driver = offline("gomoku")
    scene = driver.scene
    scene.session.play("h8")
    driver.frames()
    driver.key(pygame.K_s)
    headers, _ = gomoku.read_record(scene.saved_path.read_text(encoding="utf-8"))
    assert headers["Date"] == today and headers["Event"] == scene.session.title


def test_the_review_list_shows_players_result_date_and_event(
    gui: Callable[..., Driver], tmp_path: Path, mate_line: list[str]
) -> None:
    from lanqi.gui.model import GameModel
    from lanqi.gui.scenes.base import ToOpenRecord

    driver = gui()
    games = driver.app.games_dir
    games.mkdir(parents=True)
    model = GameModel("xiangqi", moves=mate_line, players=["Lü Qin", "Hu Ronghua"])
    day = datetime.date(2026, 12, 2)
    (games / "club.pgn").write_text(model.record_text(event="Club night", day=day), "utf-8")
    board = gomoku.Board()
    for text in ["h8", "h9", "i8", "i9", "j8", "j9", "k8", "k9", "l8"]:
        board.push_text(text)
    record = gomoku.write_record(board, {"Black": "Ann", "White": "Bo", "Date": "2026.11.30"})
    (games / "five.gmk").write_text(record + "\n" + record, "utf-8")
    driver.app.go(ToOpenRecord())
    driver.frames(2)
    rows = {}
    for row in driver.scene.list.rows:
        rows["club" if "club.pgn" in row[3] else "five"] = tuple(row)
    assert rows["club"] == ("Lü Qin – Hu Ronghua", "1-0", "2026.12.02", "Club night · club.pgn")
    players, result, date, where = rows["five"]
    assert (players, result, date) == ("Ann – Bo", "1-0", "2026.11.30")
    assert where.startswith("five.gmk") and "2 games" in where
    driver.shot("review-list")
