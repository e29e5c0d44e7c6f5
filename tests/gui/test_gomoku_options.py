"""Gomoku's choices in the GUI: board size and rule in the menu, seeks and challenges,
shown in the game; renju forbidden points marked and explained; ``--fen`` sizes."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

pygame = pytest.importorskip("pygame")

from lanqi.games import gomoku  # noqa: E402
from lanqi.gui import theme  # noqa: E402

if TYPE_CHECKING:
    from tests.gui.conftest import Driver

    from lanqi.client.matchmaker import MatchmakerClient
    from lanqi.gui.scenes.game import GameScene
    from lanqi.gui.widgets import Button
    from lanqi.protocol import Assignment
    from lanqi.server.embedded import EmbeddedServer

RENJU_19 = {"size": 19, "rule": "renju"}


def double_three(size: int = 19) -> gomoku.Board:
    """Black f8 g8 h7 h6 (White far away), Black to move: h8 makes two open threes."""
    board = gomoku.Board(size=size, rule="renju")
    for black, white in (("f8", "a1"), ("g8", "a3"), ("h7", "s19"), ("h6", "s17")):
        board.push_text(black)
        board.push_text(white)
    assert board.forbidden_reason(gomoku.Move.from_text("h8")) is gomoku.Forbidden.DOUBLE_THREE
    return board


def near(color: tuple[int, int, int], target: tuple[int, int, int], tolerance: int = 40) -> bool:
    return sum(abs(a - b) for a, b in zip(color, target, strict=True)) <= tolerance


def marked_forbidden(driver: Driver, board: gomoku.Board) -> set[str]:
    """The empty points drawn with the forbidden cross."""
    view = driver.scene.view
    n = board.size
    marked = set()
    for point in range(n * n):
        if board.stone_at(point % n, point // n) is None:
            color = driver.pixel(view.forbidden_probe(point))
            if near(color, theme.FORBIDDEN):
                marked.add(str(gomoku.Move(point % n, point // n)))
    return marked


def test_the_menu_starts_19x19_renju_games(gui: Callable[..., Driver]) -> None:
    from lanqi.gui.scenes.game import GameScene
    from lanqi.gui.scenes.menu import MenuScene
    from lanqi.gui.settings import Settings

    driver = gui()
    driver.app.switch(MenuScene())
    driver.frames(2)
    menu = driver.scene

    def button(option: str) -> Button:
        found: Button = next(b for b in menu.buttons if b.id == f"gomoku.{option}")
        return found

    assert "15×15" in button("size").label and "freestyle" in button("rule").label
    driver.click(button("size").rect.center)  # 15 -> 19
    for _ in range(2):  # freestyle -> standard -> renju
        driver.click(button("rule").rect.center)
    assert "19×19" in button("size").label and "renju" in button("rule").label
    driver.shot("menu-gomoku-options")
    for key, kind in ((pygame.K_3, "local"), (pygame.K_5, "ai")):
        driver.key(key, frames=2)
        scene = driver.scene
        assert isinstance(scene, GameScene)
        assert scene.session.kind == kind
        board = scene.model.board
        assert isinstance(board, gomoku.Board)
        assert (board.size, board.rule) == (19, "renju")
        assert scene.view.files == 19
        title = scene.panel.title()
        assert "19×19" in title and "renju" in title, title
        driver.key(pygame.K_ESCAPE, frames=2)
        assert isinstance(driver.scene, MenuScene)
    # remembered for the next start
    saved = Settings.load(driver.app.config.data_dir)
    assert saved.game_options == {"gomoku.size": "19", "gomoku.rule": "renju"}


def test_forbidden_points_are_marked_and_a_click_says_why(gui: Callable[..., Driver]) -> None:
    from lanqi.gui.scenes.base import ToOfflineGame

    board = double_three()
    driver = gui()
    driver.app.go(ToOfflineGame("gomoku", options={"rule": "renju"}, fen=board.fen()))
    driver.frames(2)
    scene = driver.scene
    assert scene.view.files == 19
    driver.check_gomoku_board(board)
    wanted = {str(m) for m in board.forbidden_moves()}
    assert "h8" in wanted
    assert wanted == {
        str(gomoku.Move(x, y))
        for x in range(19)
        for y in range(19)
        if board.stone_at(x, y) is None and board.forbidden_reason(gomoku.Move(x, y)) is not None
    }
    assert marked_forbidden(driver, board) == wanted
    assert "禁手 forbidden for Black" in scene.panel.status_lines()[2]
    driver.shot("gomoku-renju-forbidden")
    # a click on h8: refused with the rules' reason
    h8 = gomoku.Move.from_text("h8")
    driver.click_point(h8.y * 19 + h8.x)
    assert scene.model.ply == 0
    notice = scene.session.notices[-1]
    assert notice.error and "h8" in notice.text and "double-three" in notice.text, notice
    driver.frames()
    assert "double-three" in driver.scene.panel._current_notice().text
    # Black plays elsewhere: White to move, no marks
    j12 = gomoku.Move.from_text("j12")
    driver.click_point(j12.y * 19 + j12.x)
    assert scene.model.ply == 1
    board.push(j12)
    driver.frames()
    assert board.forbidden_moves() == []
    assert marked_forbidden(driver, board) == set()
    assert "禁手" not in scene.panel.status_lines()[2]


def test_a_19_row_position_opens_a_19x19_board(gui: Callable[..., Driver]) -> None:
    fen = double_three().fen()  # opened as freestyle: no marks
    driver = gui(offline="gomoku", fen=fen)
    driver.app.switch(driver.app.first_scene())
    driver.frames(2)
    scene = driver.scene
    assert scene.model.options["size"] == 19
    assert scene.view.files == 19
    assert "19×19 freestyle" in scene.panel.title()
    driver.check_gomoku_board(gomoku.Board.from_fen(fen))
    r18 = gomoku.Move.from_text("r18", 19)
    driver.click_point(r18.y * 19 + r18.x)
    assert scene.model.moves[-1] == "r18"  # off a 15x15 board
    # twenty rows: 20x20
    twenty = gomoku.Board(size=20)
    twenty.push_text("t20")
    driver = gui(offline="gomoku", fen=twenty.fen())
    driver.app.switch(driver.app.first_scene())
    driver.frames(2)
    assert driver.scene.view.files == 20


def test_the_command_line_refuses_a_size_that_disagrees_with_the_position(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from lanqi.cli.main import main

    fen = double_three().fen()
    code = main(["gui", "--offline", "gomoku", "--fen", fen, "--option", "size=15"])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert err.count("\n") == 0, err
    assert "size 15 disagrees with the fen (19x19)" in err
    code = main(["gui", "--offline", "gomoku", "--option", "rule=fivefold"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "unknown rule 'fivefold'" in err and "\n" not in err


def test_options_from_the_command_line_start_the_game(gui: Callable[..., Driver]) -> None:
    from lanqi.cli.gui import _offline_options

    options = _offline_options("gomoku", ["size=20", "rule=standard"], None)
    assert options == {"size": 20, "rule": "standard"}
    driver = gui(offline="gomoku", options=options)
    driver.app.switch(driver.app.first_scene())
    driver.frames(2)
    board = driver.scene.model.board
    assert (board.size, board.rule) == (20, "standard")
    assert driver.scene.view.files == 20


def test_seeks_and_challenges_carry_size_and_rule(
    gui: Callable[..., Driver], server: EmbeddedServer
) -> None:
    from tests.gui.test_online import click_row, connect, wait_for_game

    from lanqi.client.matchmaker import MatchmakerClient
    from lanqi.gui.scenes.game import GameScene
    from lanqi.gui.scenes.lobby import LobbyScene, describe_seek, describe_time
    from lanqi.protocol import (
        AcceptChallenge,
        ChallengeReceived,
        CreateSeek,
        Ok,
        Seek,
        SeekCreated,
    )

    driver = connect(gui, server)
    lobby = driver.scene
    assert isinstance(lobby, LobbyScene)
    link = driver.app.lobby
    driver.key(pygame.K_v)  # the game: gomoku
    assert lobby.variant == "gomoku"

    def option_button(option: str) -> Button:
        found: Button = next(b for b in lobby.buttons if b.id == f"option.{option}")
        return found

    driver.click(option_button("size").rect.center)  # 19
    driver.click(option_button("rule").rect.center)  # standard
    driver.click(option_button("rule").rect.center)  # renju
    assert "19×19" in option_button("size").label and "renju" in option_button("rule").label

    with MatchmakerClient(server.matchmaker_endpoint) as bob:
        bob.hello("Bob")
        driver.until(lambda: any(p.name == "Bob" for p in link.state.players), 10, "Bob")
        # a seek: the lobby lists it with its options, an equal seek plays it
        driver.key(pygame.K_s)
        driver.until(lambda: bool(link.state.seeks), 10, "the seek")
        info = link.state.seeks[0]
        assert info.seek.variant == "gomoku"
        assert {k: info.seek.options[k] for k in RENJU_19} == RENJU_19
        assert "gomoku 19×19 renju · 5+3" in describe_seek(info.seek)
        driver.frames(2)
        driver.shot("lobby-gomoku-seek")
        same = Seek(variant="gomoku", options=RENJU_19, time_control=info.seek.time_control)
        bob.call(CreateSeek(seek=same), SeekCreated)
        join(bob, server)
        scene = wait_for_game(driver)
        check_game(scene, server)
        scene.session.act("resign")
        scene.session.act("resign")
        driver.until(lambda: scene.model.finished, 10, "the resignation")
        driver.key(pygame.K_ESCAPE, frames=2)
        assert isinstance(driver.scene, LobbyScene)
        lobby = driver.scene
        # a challenge to Bob: gomoku again, the game and the options are remembered
        assert lobby.variant == "gomoku"
        index = next(i for i, p in enumerate(link.state.players) if p.name == "Bob")
        click_row(driver, lobby.players, index)
        driver.key(pygame.K_c)
        received = None
        for _ in range(50):
            push = bob.next_push(200)
            if isinstance(push, ChallengeReceived):
                received = push
                break
        assert received is not None, "no challenge reached Bob"
        assert received.seek.variant == "gomoku"
        assert {k: received.seek.options[k] for k in RENJU_19} == RENJU_19
        assert describe_time(received.seek.time_control) == "5+3"  # the clock picked
        bob.call(AcceptChallenge(challenge_id=received.challenge_id), Ok)
        join(bob, server)
        driver.until(
            lambda: isinstance(driver.scene, GameScene) and driver.scene is not scene,
            10,
            "the challenge's game",
        )
        check_game(wait_for_game(driver), server)


def join(bob: MatchmakerClient, server: EmbeddedServer) -> Assignment:
    """Bob takes his seat of the game the matchmaker assigned him."""
    from lanqi.client.referee import RefereeClient
    from lanqi.protocol import GameAssigned

    for _ in range(50):
        push = bob.next_push(200)
        if isinstance(push, GameAssigned):
            game = push.game
            with RefereeClient(server.referee.endpoint, server.referee.pub_endpoint) as referee:
                referee.join(game.game_id, game.seat, game.token)
            return game
    raise AssertionError("Bob got no game")


def test_a_spectator_sees_the_size_and_the_forbidden_points(
    gui: Callable[..., Driver], server: EmbeddedServer
) -> None:
    from tests.gui.test_online import click_row, connect

    from lanqi.client.matchmaker import MatchmakerClient
    from lanqi.client.referee import RefereeClient
    from lanqi.gui.scenes.game import GameScene
    from lanqi.protocol import CreateSeek, Seek, SeekCreated

    seek = Seek(variant="gomoku", options=RENJU_19)
    with (
        MatchmakerClient(server.matchmaker_endpoint) as bob,
        MatchmakerClient(server.matchmaker_endpoint) as dave,
        RefereeClient(server.referee.endpoint, server.referee.pub_endpoint) as referee,
    ):
        bob.hello("Bob")
        dave.hello("Dave")
        bob.call(CreateSeek(seek=seek), SeekCreated)
        dave.call(CreateSeek(seek=seek), SeekCreated)
        seats = sorted((join(bob, server), join(dave, server)), key=lambda game: game.seat)
        board = double_three()
        for ply, move in enumerate(board.move_stack):
            game = seats[ply % 2]
            referee.move(game.game_id, game.token, ply, str(move))
        driver = connect(gui, server, "Carol")
        link = driver.app.lobby
        assert link is not None
        driver.until(lambda: bool(link.state.games), 10, "the live game in the lobby")
        driver.frames()
        click_row(driver, driver.scene.games, 0)
        driver.until(lambda: isinstance(driver.scene, GameScene), 5, "the game screen")
        scene = driver.scene
        driver.until(lambda: scene.model.ply == board.ply, 10, "the moves")
        driver.frames()
        assert scene.session.kind == "spectate"
        assert scene.view.files == 19 and "19×19 renju" in scene.panel.title()
        driver.check_gomoku_board(board)
        assert marked_forbidden(driver, board) == {str(m) for m in board.forbidden_moves()}


def check_game(scene: GameScene, server: EmbeddedServer) -> None:
    """The referee has the game at 19x19 renju, and the game screen shows it."""
    from lanqi.client.referee import RefereeClient
    from lanqi.gui.sessions import OnlineSession

    session = scene.session
    assert isinstance(session, OnlineSession)
    with RefereeClient(server.referee.endpoint, server.referee.pub_endpoint) as referee:
        snapshot = referee.sync(session.game_id)
    assert {k: snapshot.options[k] for k in RENJU_19} == RENJU_19
    assert scene.model.options == RENJU_19
    assert scene.view.files == 19
    title = scene.panel.title()
    assert "19×19 renju" in title, title
