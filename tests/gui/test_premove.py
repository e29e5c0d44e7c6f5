"""Premoves in online games, against a scripted opponent on a real referee (in-process
server on loopback): made during the opponent's turn, sent when the reply arrives if
still legal, dropped with a note if not, cancelled by a right click, Esc or a click on
the piece again; never for spectators or offline games."""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

import pytest

pygame = pytest.importorskip("pygame")

from lanqi.games import gomoku, xiangqi  # noqa: E402
from lanqi.gui import theme  # noqa: E402
from lanqi.gui.sound import Sound  # noqa: E402
from lanqi.i18n import tr  # noqa: E402

if TYPE_CHECKING:
    from tests.gui.conftest import ScriptedGame

    from lanqi.server.embedded import EmbeddedServer

    Scripted = Callable[..., AbstractContextManager[ScriptedGame]]


def notice(game: ScriptedGame) -> str:
    notices = game.scene.session.notices
    return str(notices[-1].text) if notices else ""


def right_click(game: ScriptedGame) -> None:
    pos = game.scene.view.rect.center
    game.driver.post(pygame.MOUSEBUTTONDOWN, pos=pos, button=3)
    game.driver.post(pygame.MOUSEBUTTONUP, pos=pos, button=3)
    game.driver.frames()


def sq(name: str) -> int:
    return xiangqi.parse_square(name)


def test_xiangqi_premoves(scripted_game: Scripted) -> None:
    with scripted_game("xiangqi") as t:
        driver, scene = t.driver, t.scene
        controller = scene.controller
        driver.play_xiangqi("h2e2")
        t.wait(lambda: scene.session.pending is None and scene.model.ply == 1, "h2e2 accepted")
        # no premove is made while the connection is lost (the session's lost state,
        # set here by hand: test_connection kills a real server for the state itself)
        from lanqi.gui.net import Disconnected

        now = time.monotonic()
        scene.session.lost = Disconnected("referee", now, now + 5)
        assert not scene.premoving()
        scene.session.lost = None
        # Black to move: two clicks make a premove, shown on the board
        assert not scene.interactive() and scene.premoving()
        driver.play_xiangqi("h0g2")
        assert controller.premove is not None and controller.premove.move == "h0g2"
        assert notice(t) == tr("premove_set", move="h0g2")
        assert scene.model.ply == 1 and scene.session.pending is None  # nothing sent yet
        assert scene.marks().premove == (sq("h0"), sq("g2"))
        driver.frames()
        for name in ("h0", "g2"):
            assert driver.pixel(scene.view.premove_probe(sq(name))) == theme.PREMOVE, name
        driver.shot("xiangqi-premove")
        # the reply arrives: the premove goes out in the same frame
        t.reply("h9g7")
        assert scene.model.moves == ["h2e2", "h9g7", "h0g2"] and scene.session.pending
        assert controller.premove is None and scene.marks().premove == ()
        t.wait(lambda: t.referee_moves() == ["h2e2", "h9g7", "h0g2"], "the premove at the referee")
        driver.frames()  # the premove's own sound is chosen on the frame after it went out
        assert list(driver.app.sound.played)[-3:] == [Sound.MOVE] * 3
        # a premove the reply makes illegal is dropped with a note, and nothing is sent:
        # the cannon would take the horse on b9 over the cannon on b7; the horse leaves
        t.wait(lambda: scene.session.pending is None, "h0g2 accepted")
        driver.play_xiangqi("b2b9")
        assert controller.premove is not None and controller.premove.move == "b2b9"
        t.reply("b9c7")
        assert notice(t).startswith(tr("premove_dropped", move="b2b9") + ": ")
        assert scene.model.ply == 4 and scene.session.pending is None
        assert controller.premove is None and scene.interactive()
        # a right click cancels a premove
        driver.play_xiangqi("c3c4")
        t.wait(lambda: scene.session.pending is None and scene.model.ply == 5, "c3c4 accepted")
        driver.play_xiangqi("b2b6")
        assert controller.premove is not None
        right_click(t)
        assert controller.premove is None and notice(t) == tr("premove_cancelled")
        t.reply("a9a8")
        assert scene.model.ply == 6 and scene.session.pending is None and scene.interactive()
        # a click on the premove's piece again cancels it; so does Esc (which does not
        # start leaving the game)
        driver.play_xiangqi("i0i1")
        t.wait(lambda: scene.session.pending is None and scene.model.ply == 7, "i0i1 accepted")
        driver.play_xiangqi("g3g4")
        assert controller.premove is not None
        driver.click_point(sq("g3"))
        assert controller.premove is None and notice(t) == tr("premove_cancelled")
        driver.play_xiangqi("g3g4")
        assert controller.premove is not None
        driver.key(pygame.K_ESCAPE)
        assert controller.premove is None and notice(t) == tr("premove_cancelled")
        # one premove at a time: the last one chosen (by drag) is the one played
        driver.play_xiangqi("a3a4")
        driver.play_xiangqi("g3g4", "drag")
        assert controller.premove is not None and controller.premove.move == "g3g4"
        t.reply("a8b8")
        assert scene.model.moves[-2:] == ["a8b8", "g3g4"]
        t.wait(lambda: t.referee_moves()[-1] == "g3g4", "the dragged premove at the referee")
        # a takeback changes the position under a premove: dropped, with a note
        t.wait(lambda: scene.session.pending is None, "g3g4 accepted")
        driver.play_xiangqi("a3a4", "keys")  # the keyboard cursor makes premoves too
        assert controller.premove is not None and controller.premove.move == "a3a4"
        driver.key(pygame.K_t)
        t.wait(lambda: scene.model.takeback_offer == 0, "my takeback request")
        t.script.accept_takeback(t.game_id, t.tokens[1])
        t.wait(lambda: scene.model.ply == 8, "g3g4 taken back")
        assert notice(t) == f"{tr('premove_dropped', move='a3a4')}: {tr('position_changed')}"
        assert controller.premove is None and scene.session.pending is None


def test_a_spectator_cannot_premove(scripted_game: Scripted, server: EmbeddedServer) -> None:
    from lanqi.gui.net import GameAgent
    from lanqi.gui.scenes.game import GameScene
    from lanqi.gui.sessions import LocalSession, OnlineSession

    with scripted_game("xiangqi") as t:
        driver = t.driver
        driver.play_xiangqi("h2e2")
        t.wait(lambda: t.referee_moves() == ["h2e2"], "h2e2 at the referee")
        agent = GameAgent(
            server.referee.endpoint, server.referee.pub_endpoint, t.game_id, name="Watcher"
        )
        driver.app.switch(GameScene(OnlineSession(agent, variant="xiangqi", name="Watcher")))
        t.wait(lambda: t.scene.session.kind == "spectate", "the watcher's screen")
        scene = t.scene
        t.wait(lambda: scene.model.ply == 1, "the position")
        assert not scene.premoving()
        driver.play_xiangqi("h0g2")  # Red's piece, Black to move: would be a premove
        assert scene.controller.premove is None and scene.controller.selected is None
        assert notice(t) == tr("watching_no_moves")
        t.reply("h9g7")
        assert scene.model.ply == 2 and scene.controller.premove is None
    # two players on one computer: always someone's own turn, never a premove
    assert LocalSession("xiangqi").can_premove() is False


def test_gomoku_premove_points(scripted_game: Scripted) -> None:
    with scripted_game("gomoku") as t:
        driver, scene = t.driver, t.scene
        controller = scene.controller
        n = scene.view.files

        def point(text: str) -> int:
            move = gomoku.Move.from_text(text, n)
            return int(move.y * n + move.x)

        driver.click_point(point("h8"))
        t.wait(lambda: scene.session.pending is None and scene.model.ply == 1, "h8 accepted")
        driver.click_point(point("h8"))  # a taken point is no premove
        assert controller.premove is None and notice(t) == tr("point_taken")
        driver.click_point(point("i9"))
        assert controller.premove is not None and controller.premove.move == "i9"
        driver.frames()
        assert driver.pixel(scene.view.premove_probe(point("i9"))) == theme.PREMOVE
        driver.click_point(point("i9"))  # the same point again: cancelled
        assert controller.premove is None and notice(t) == tr("premove_cancelled")
        driver.click_point(point("i9"))
        t.reply("j10")
        assert scene.model.moves == ["h8", "j10", "i9"]
        t.wait(lambda: t.referee_moves() == ["h8", "j10", "i9"], "the premove at the referee")
        t.wait(lambda: scene.session.pending is None, "i9 accepted")
        # the opponent takes the premove's point: dropped, with the reason
        driver.click_point(point("g7"))
        t.reply("g7")
        assert notice(t).startswith(
            tr("premove_dropped", move="g7") + ": "
        ) and "g7 is taken" in notice(t)
        assert scene.model.ply == 4 and scene.session.pending is None


def test_what_becomes_of_a_premove() -> None:
    from tests.gui.conftest import follow

    from lanqi.gui.model import GameModel
    from lanqi.gui.premove import Fate, Premove, settle

    model = GameModel("xiangqi", moves=["h2e2"])  # Black to move; Red premoves
    premove = Premove.on(model, "h0g2", (sq("h0"), sq("g2")))
    assert premove.ply == 2
    assert settle(premove, model, my_turn=False) is Fate.WAIT  # the opponent thinks
    follow(model, ["h2e2", "h9g7"])
    assert settle(premove, model, my_turn=False) is Fate.WAIT  # our turn, no moving yet
    assert settle(premove, model, my_turn=True) is Fate.PLAY
    follow(model, [])
    assert settle(premove, model, my_turn=True) is Fate.STALE  # taken back under it
    assert settle(premove, GameModel("xiangqi"), my_turn=True) is Fate.FORGET  # another game
    follow(model, ["h2e2"], status="finished", result="0-1", termination="resignation", winner=1)
    assert settle(premove, model, my_turn=False) is Fate.FORGET  # the game is over
