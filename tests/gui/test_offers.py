"""Offers that are hard to miss (issue 19, item 4): a draw or takeback offer, a
rematch and a challenge show in the status line with the offering player's name,
both answers (buttons and keys) and, for a challenge, its terms; a decline reaches
the other side as plain news with who declined, not as a green success.

Real services (the ``server`` fixture): the opponent is a scripted referee client
(``scripted_game``) or a scripted matchmaker client.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

import pytest

pygame = pytest.importorskip("pygame")

from lanqi.gui import theme  # noqa: E402
from lanqi.i18n import tr  # noqa: E402
from lanqi.protocol import (  # noqa: E402
    Challenge,
    ChallengeClosed,
    ChallengeCreated,
    ChallengeReceived,
    DeclineChallenge,
    GameAssigned,
    Ok,
    Seek,
)
from lanqi.protocol.timecontrol import parse_time_control  # noqa: E402

if TYPE_CHECKING:
    from tests.gui.conftest import Driver

    from lanqi.client.matchmaker import MatchmakerClient
    from lanqi.server.embedded import EmbeddedServer


def status_text(scene: Any) -> list[tuple[str, Any]]:
    """What the status box shows: (line, colour), wrapped lines joined back."""
    return [(text, color) for text, _, color in scene.panel.status_layout()]


def shown(scene: Any) -> str:
    return " ".join(text for text, _ in status_text(scene))


def test_a_draw_offer_names_the_player_and_both_answers(
    scripted_game: Callable[..., AbstractContextManager[Any]],
) -> None:
    with scripted_game("xiangqi") as game:
        driver, scene = game.driver, game.scene
        driver.play_xiangqi("h2e2")
        game.wait(lambda: scene.model.ply == 1 and scene.session.pending is None, "h2e2")
        game.script.offer_draw(game.game_id, game.tokens[1])
        game.wait(lambda: scene.model.draw_offer == 1, "the draw offer")
        driver.frames()
        # the status line: who offers (the name, not a colour) and the keys of both answers
        assert tr("draw_offer_answer", name="Script") in shown(scene)
        assert "Black offers" not in shown(scene)
        assert {"accept_draw", "decline_draw"} <= {b.id for b in scene.panel.buttons}
        assert tr("draw_offered", name="Script") in [line.text for line in scene.model.chat]
        # it stays while the offer stands, after the notices fade
        scene.session.notices.clear()
        assert tr("draw_offer_answer", name="Script") in shown(scene)
        driver.key(pygame.K_x)  # X declines
        game.wait(lambda: scene.model.draw_offer is None, "the declined offer")
        assert tr("draw_offer_answer", name="Script") not in shown(scene)
        assert tr("draw_declined_by", name="Alice") in [line.text for line in scene.model.chat]


def test_our_declined_offer_is_plain_news_with_who_declined(
    scripted_game: Callable[..., AbstractContextManager[Any]],
) -> None:
    with scripted_game("xiangqi") as game:
        driver, scene = game.driver, game.scene
        driver.play_xiangqi("h2e2")
        game.wait(lambda: scene.model.ply == 1 and scene.session.pending is None, "h2e2")
        game.reply("h9g7")
        driver.key(pygame.K_d)  # Alice offers a draw
        game.wait(lambda: scene.model.draw_offer == 0, "Alice's draw offer")
        game.script.decline_draw(game.game_id, game.tokens[1])
        declined = tr("draw_declined_by", name="Script")
        game.wait(lambda: declined in shown(scene), "the decline in the status line")
        ink = next(color for text, color in status_text(scene) if declined.startswith(text))
        assert ink == theme.TEXT and ink != theme.GOOD  # news, not a success
        # a takeback request: by name, with both answers
        game.script.request_takeback(game.game_id, game.tokens[1])
        game.wait(lambda: scene.model.takeback_offer == 1, "the takeback request")
        scene.session.notices.clear()
        assert tr("takeback_answer", name="Script") in shown(scene)
        assert {"accept_takeback", "decline_takeback"} <= {b.id for b in scene.panel.buttons}


@pytest.fixture
def bob(server: EmbeddedServer) -> Iterator[MatchmakerClient]:
    """A scripted player "Bob" in the lobby."""
    from lanqi.client.matchmaker import MatchmakerClient

    with MatchmakerClient(server.matchmaker_endpoint) as client:
        client.hello("Bob")
        yield client


def push(client: MatchmakerClient, kind: type[Any], what: str) -> Any:
    for _ in range(100):  # 10 s
        message = client.next_push(100)
        if isinstance(message, kind):
            return message
    raise AssertionError(f"no {what}")


def lobby_of(gui: Callable[..., Driver], server: EmbeddedServer, name: str) -> Driver:
    driver = gui(server=server.matchmaker_endpoint, name=name, connect=True)
    driver.enter_lobby()
    return driver


def test_a_rematch_shows_who_its_terms_and_both_answers(
    gui: Callable[..., Driver], server: EmbeddedServer, bob: MatchmakerClient
) -> None:
    from lanqi.client.referee import RefereeClient
    from lanqi.gui.scenes.game import GameScene

    driver = lobby_of(gui, server, "Alice")
    link = driver.app.lobby
    casual = Seek(variant="xiangqi", time_control=parse_time_control("5+3"))
    bob.call(Challenge(to="Alice", seek=casual), ChallengeCreated)
    driver.until(lambda: bool(link.challenges), 10, "Bob's challenge in the lobby")
    driver.key(pygame.K_y)
    driver.until(lambda: isinstance(driver.scene, GameScene), 10, "the game")
    scene = driver.scene
    game = push(bob, GameAssigned, "Bob's game").game
    with RefereeClient(server.referee.endpoint, server.referee.pub_endpoint) as referee:
        referee.join(game.game_id, game.seat, game.token)  # Bob sits down
        driver.until(lambda: scene.model.status == "active", 10, "the start")
    driver.key(pygame.K_r)
    driver.key(pygame.K_r)
    driver.until(lambda: scene.model.finished, 10, "Alice's resignation")
    # Bob asks for a rematch: rated this time, 3+2
    rated = Seek(variant="xiangqi", time_control=parse_time_control("3+2"), rated=True)
    bob.call(Challenge(to="Alice", seek=rated), ChallengeCreated)
    driver.until(lambda: tr("rematch_answer", name="Bob") in shown(scene), 10, "the rematch")
    line = shown(scene)
    assert "3+2" in line and tr("rated") in line and "xiangqi" in line  # its terms
    ids = {b.id.split(":")[0] for b in scene.panel.buttons}
    assert {"accept_challenge", "decline_challenge"} <= ids  # both answers
    driver.shot("offer-rematch", docs=True)
    driver.key(pygame.K_x)  # X declines
    closed = push(bob, ChallengeClosed, "the decline")
    assert closed.how == "declined"
    driver.frames()
    assert tr("rematch_answer", name="Bob") not in shown(scene)


def test_a_declined_challenge_says_who_declined_in_plain_words(
    gui: Callable[..., Driver], server: EmbeddedServer, bob: MatchmakerClient
) -> None:
    from lanqi.gui.scenes.lobby import LobbyScene

    driver = lobby_of(gui, server, "Alice")
    lobby, link = driver.scene, driver.app.lobby
    assert isinstance(lobby, LobbyScene)
    driver.until(lambda: any(p.name == "Bob" for p in link.state.players), 10, "Bob listed")
    driver.frames()
    driver.click_row(lobby.players, [p.name for p in link.state.players].index("Bob"))
    driver.key(pygame.K_c)
    received = push(bob, ChallengeReceived, "Alice's challenge")
    driver.until(lambda: lobby.message == tr("lobby.challenge_sent", name="Bob"), 10, "sent")
    bob.call(DeclineChallenge(challenge_id=received.challenge_id), Ok)
    declined = tr("lobby.challenge_declined", name="Bob")
    driver.until(lambda: lobby.message == declined, 10, "the decline")
    assert lobby.message_plain and not lobby.message_error  # drawn plain, not green
    assert "challenge declined" not in lobby.message
