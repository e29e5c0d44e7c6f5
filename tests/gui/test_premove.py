"""Premoves in online games, against a scripted opponent on a real referee (in-process
server on loopback): made during the opponent's turn, sent when the reply arrives if
still legal, dropped with a note if not, cancelled by a right click, Esc or a click on
the piece again; never for spectators or offline games."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest

pygame = pytest.importorskip("pygame")

from lanqi.games import gomoku, xiangqi  # noqa: E402
from lanqi.gui import theme  # noqa: E402
from lanqi.gui.sound import Sound  # noqa: E402

if TYPE_CHECKING:
    from tests.gui.conftest import Driver

    from lanqi.client.referee import RefereeClient
    from lanqi.server.embedded import EmbeddedServer


@dataclass
class Table:
    """The GUI on seat 0 of a game and the script that plays seat 1."""

    driver: Driver
    script: RefereeClient
    game_id: str
    token: str

    @property
    def scene(self) -> Any:
        return self.driver.scene

    def wait(self, predicate: Callable[[], object], what: str) -> None:
        def check() -> bool:
            self.script.heartbeat(self.game_id, self.token)
            return bool(predicate())

        self.driver.until(check, 10, what)

    def reply(self, move: str) -> None:
        """The opponent plays ``move``; returns when the GUI has seen it (and, if it
        had a premove, sent or dropped it in that same frame)."""
        ply = self.script.sync(self.game_id).ply
        self.script.move(self.game_id, self.token, ply, move)
        self.wait(lambda: self.scene.model.ply > ply, f"the reply {move}")

    def referee_moves(self) -> list[str]:
        return list(self.script.sync(self.game_id).moves)

    def notice(self) -> str:
        notices = self.scene.session.notices
        return str(notices[-1].text) if notices else ""

    def right_click(self) -> None:
        pos = self.scene.view.rect.center
        self.driver.post(pygame.MOUSEBUTTONDOWN, pos=pos, button=3)
        self.driver.post(pygame.MOUSEBUTTONUP, pos=pos, button=3)
        self.driver.frames()


@contextmanager
def seated(gui: Callable[..., Driver], server: EmbeddedServer, variant: str) -> Iterator[Table]:
    from lanqi.client.referee import RefereeClient
    from lanqi.gui.scenes.base import ToSeat
    from lanqi.protocol import Assignment

    referee, referee_pub = server.referee.endpoint, server.referee.pub_endpoint
    with RefereeClient(referee, referee_pub) as script:
        created = script.create_game(variant, players=["Alice", "Script"], casual=True)
        game_id, tokens = created.game_id, created.tokens
        seat = Assignment(
            game_id=game_id,
            referee=referee,
            referee_pub=referee_pub,
            seat=0,
            token=tokens[0],
            variant=variant,
            players=["Alice", "Script"],
        )
        driver = gui()
        driver.app.go(ToSeat(seat))
        driver.frames()
        script.join(game_id, 1, tokens[1])
        table = Table(driver, script, game_id, tokens[1])
        table.wait(lambda: table.scene.model.status == "active", "the start")
        yield table


def sq(name: str) -> int:
    return xiangqi.parse_square(name)


def test_xiangqi_premoves(gui: Callable[..., Driver], server: EmbeddedServer) -> None:
    with seated(gui, server, "xiangqi") as t:
        driver, scene = t.driver, t.scene
        controller = scene.controller
        driver.play_xiangqi("h2e2")
        t.wait(lambda: scene.session.pending is None and scene.model.ply == 1, "h2e2 accepted")
        # Black to move: two clicks make a premove, shown on the board
        assert not scene.interactive() and scene.premoving()
        driver.play_xiangqi("h0g2")
        assert controller.premove is not None and controller.premove.move == "h0g2"
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
        assert list(driver.app.sound.played)[-3:] == [Sound.MOVE] * 3
        # a premove the reply makes illegal is dropped with a note, and nothing is sent:
        # the cannon would take the horse on b9 over the cannon on b7; the horse leaves
        t.wait(lambda: scene.session.pending is None, "h0g2 accepted")
        driver.play_xiangqi("b2b9")
        assert controller.premove is not None and controller.premove.move == "b2b9"
        t.reply("b9c7")
        assert t.notice().startswith("premove b2b9 dropped: ")
        assert scene.model.ply == 4 and scene.session.pending is None
        assert controller.premove is None and scene.interactive()
        # a right click cancels a premove
        driver.play_xiangqi("c3c4")
        t.wait(lambda: scene.session.pending is None and scene.model.ply == 5, "c3c4 accepted")
        driver.play_xiangqi("b2b6")
        assert controller.premove is not None
        t.right_click()
        assert controller.premove is None and t.notice() == "premove cancelled"
        t.reply("a9a8")
        assert scene.model.ply == 6 and scene.session.pending is None and scene.interactive()
        # a click on the premove's piece again cancels it; so does Esc (which does not
        # start leaving the game)
        driver.play_xiangqi("i0i1")
        t.wait(lambda: scene.session.pending is None and scene.model.ply == 7, "i0i1 accepted")
        driver.play_xiangqi("g3g4")
        assert controller.premove is not None
        driver.click_point(sq("g3"))
        assert controller.premove is None and t.notice() == "premove cancelled"
        driver.play_xiangqi("g3g4")
        assert controller.premove is not None
        driver.key(pygame.K_ESCAPE)
        assert controller.premove is None and t.notice() == "premove cancelled"
        # one premove at a time: the last one chosen (by drag) is the one played
        driver.play_xiangqi("a3a4")
        driver.play_xiangqi("g3g4", "drag")
        assert controller.premove is not None and controller.premove.move == "g3g4"
        t.reply("a8b8")
        assert scene.model.moves[-2:] == ["a8b8", "g3g4"]
        t.wait(lambda: t.referee_moves()[-1] == "g3g4", "the dragged premove at the referee")


def test_a_spectator_cannot_premove(gui: Callable[..., Driver], server: EmbeddedServer) -> None:
    from lanqi.gui.net import GameAgent
    from lanqi.gui.scenes.game import GameScene
    from lanqi.gui.sessions import LocalSession, OnlineSession

    with seated(gui, server, "xiangqi") as t:
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
        assert t.notice() == "you are watching: no moves here"
        t.reply("h9g7")
        assert scene.model.ply == 2 and scene.controller.premove is None
    # two players on one computer: always someone's own turn, never a premove
    assert LocalSession("xiangqi").can_premove() is False


def test_gomoku_premove_points(gui: Callable[..., Driver], server: EmbeddedServer) -> None:
    with seated(gui, server, "gomoku") as t:
        driver, scene = t.driver, t.scene
        controller = scene.controller
        n = scene.view.files

        def point(text: str) -> int:
            move = gomoku.Move.from_text(text, n)
            return move.y * n + move.x

        driver.click_point(point("h8"))
        t.wait(lambda: scene.session.pending is None and scene.model.ply == 1, "h8 accepted")
        driver.click_point(point("h8"))  # a taken point is no premove
        assert controller.premove is None and t.notice() == "that point is taken"
        driver.click_point(point("i9"))
        assert controller.premove is not None and controller.premove.move == "i9"
        driver.frames()
        assert driver.pixel(scene.view.premove_probe(point("i9"))) == theme.PREMOVE
        driver.click_point(point("i9"))  # the same point again: cancelled
        assert controller.premove is None and t.notice() == "premove cancelled"
        driver.click_point(point("i9"))
        t.reply("j10")
        assert scene.model.moves == ["h8", "j10", "i9"]
        t.wait(lambda: t.referee_moves() == ["h8", "j10", "i9"], "the premove at the referee")
        t.wait(lambda: scene.session.pending is None, "i9 accepted")
        # the opponent takes the premove's point: dropped, with the reason
        driver.click_point(point("g7"))
        t.reply("g7")
        assert t.notice().startswith("premove g7 dropped: ") and "occupied" in t.notice()
        assert scene.model.ply == 4 and scene.session.pending is None
