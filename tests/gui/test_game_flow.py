"""Game flow online: rematches swap the colours, rated or casual is chosen where games
are made and shown in the game, the player list says who is playing, and an answered
takeback request's prompt goes with the event that answers it.

A real matchmaker and referee run in-process (the ``server`` fixture); opponents are
bot runners or scripted clients.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

import pytest

pygame = pytest.importorskip("pygame")

from lanqi.bot.runner import BotRunner, Policy  # noqa: E402
from lanqi.bot.simple import RandomBot  # noqa: E402
from lanqi.gui import commands  # noqa: E402
from lanqi.i18n import tr  # noqa: E402
from lanqi.protocol import Seek  # noqa: E402

if TYPE_CHECKING:
    from tests.gui.conftest import Driver

    from lanqi.server.embedded import EmbeddedServer


@pytest.fixture
def bot(server: EmbeddedServer) -> Iterator[Callable[..., BotRunner]]:
    """``bot(name, **policy)``: a random bot on the server, stopped after the test."""
    started: list[tuple[BotRunner, threading.Thread]] = []

    def start(name: str, **policy: Any) -> BotRunner:
        runner = BotRunner(
            make_bot=lambda: RandomBot(seed=7),
            matchmaker=server.matchmaker_endpoint,
            name=name,
            policy=Policy(**policy),
        )
        thread = threading.Thread(target=runner.run, name=f"bot-{name}", daemon=True)
        thread.start()
        started.append((runner, thread))
        return runner

    yield start
    for runner, _ in started:
        runner.stop.set()
    for _, thread in started:
        thread.join(timeout=5)


def lobby_of(gui: Callable[..., Driver], server: EmbeddedServer, name: str) -> Driver:
    driver = gui(server=server.matchmaker_endpoint, name=name, connect=True)
    driver.enter_lobby()
    return driver


def new_game(driver: Driver, not_id: str = "") -> Any:
    from lanqi.gui.scenes.game import GameScene

    def opened() -> bool:
        scene = driver.scene
        return isinstance(scene, GameScene) and getattr(scene.session, "game_id", "") != not_id

    driver.until(opened, 10, "a new game")
    scene = driver.scene
    driver.until(lambda: scene.model.status != "waiting", 10, "the game to start")
    return scene


def resign(driver: Driver, scene: Any) -> None:
    driver.key(pygame.K_r)
    driver.key(pygame.K_r)
    driver.until(lambda: scene.model.finished, 10, "the resignation")


def challenge(driver: Driver, lobby: Any, name: str) -> None:
    link = driver.app.lobby
    driver.until(lambda: any(p.name == name for p in link.state.players), 10, name)
    driver.frames()
    driver.click_row(lobby.players, [p.name for p in link.state.players].index(name))
    assert lobby.selected_player == name
    driver.key(pygame.K_c)


def test_a_rematch_swaps_the_colours(
    gui: Callable[..., Driver], server: EmbeddedServer, bot: Callable[..., BotRunner]
) -> None:
    bot("Randy", variants=("xiangqi",))
    driver = lobby_of(gui, server, "Alice")
    challenge(driver, driver.scene, "Randy")
    first = new_game(driver)
    seat = first.session.seat
    assert first.session.assignment.players[seat] == "Alice"
    resign(driver, first)
    driver.press("rematch")
    second = new_game(driver, not_id=first.session.game_id)
    # the matchmaker made the game with the seats swapped, and the screen shows it
    assignment = second.session.assignment
    assert assignment.seat == 1 - seat
    assert assignment.players == list(reversed(first.session.assignment.players))
    assert second.model.players[1 - seat] == "Alice"
    assert second.panel.card_name(1 - seat) == f"Alice ({tr('you_mark')})"
    side = "black" if seat == 0 else "red"
    assert any(n.text.startswith(tr(f"you_play.{side}")) for n in second.session.notices)
    # xiangqi turns the board for Black: your side is at the bottom either way
    assert second.view.flipped == (assignment.seat == 1)
    assert second.panel.card_seats()[1] == assignment.seat


def test_rated_or_casual_is_chosen_in_the_lobby_and_shown_in_the_game(
    gui: Callable[..., Driver], server: EmbeddedServer, bot: Callable[..., BotRunner]
) -> None:
    bot("Rita", variants=("xiangqi",))
    driver = lobby_of(gui, server, "Eve")
    lobby = driver.scene
    rated = next(b for b in lobby.buttons if b.id == "rated")
    assert rated.label == tr("casual_button")
    driver.key(pygame.K_k)  # rated from now on
    assert lobby.rated and next(b for b in lobby.buttons if b.id == "rated").label.startswith(
        "等级赛"
    )
    challenge(driver, lobby, "Rita")
    scene = new_game(driver)
    assert scene.session.assignment.rated and not scene.model.casual
    assert scene.panel.status_lines()[2].startswith("等级赛 Rated")
    assert "takeback" not in {b.id for b in scene.panel.buttons}  # rated: no takebacks
    assert any(tr("rated") in n.text for n in scene.session.notices)
    resign(driver, scene)
    # the rematch keeps it rated
    driver.press("rematch")
    again = new_game(driver, not_id=scene.session.game_id)
    assert again.session.assignment.rated
    resign(driver, again)
    driver.key(pygame.K_ESCAPE, frames=2)
    lobby = driver.scene
    assert lobby.rated  # the lobby remembers the choice (issue 19, item 6)
    driver.key(pygame.K_k)  # casual
    challenge(driver, lobby, "Rita")
    casual = new_game(driver)
    assert not casual.session.assignment.rated and casual.model.casual
    assert casual.panel.status_lines()[2].startswith(tr("casual_button"))


def test_the_end_of_a_rated_game_shows_the_rating_change(
    gui: Callable[..., Driver], server: EmbeddedServer, bot: Callable[..., BotRunner]
) -> None:
    """Issue 19, item 6: ``1500 → 1484 (-16)`` in the status line when a rated game
    ends, as soon as the matchmaker has counted it (no V in the lobby needed)."""
    import re

    bot("Rhea", variants=("xiangqi",))
    driver = lobby_of(gui, server, "Ivy")
    lobby = driver.scene
    driver.key(pygame.K_k)  # rated
    challenge(driver, lobby, "Rhea")
    scene = new_game(driver)
    assert scene.session.assignment.rated
    assert scene.session.rating_change == ""
    resign(driver, scene)
    driver.until(lambda: scene.session.rating_change != "", 15, "the rating change")
    change = scene.session.rating_change
    match = re.fullmatch(r"等级分 1500 → (\d+) \(-(\d+)\) rating 1500 → (\d+) \(-(\d+)\)", change)
    assert match, change
    assert 1500 - int(match[1]) == int(match[2]) > 0  # a loss: down
    assert scene.panel.status_lines()[2].endswith(change)
    driver.frames()
    driver.shot("rating-change")


def test_the_player_list_says_who_is_playing(
    gui: Callable[..., Driver], server: EmbeddedServer
) -> None:
    from lanqi.client.matchmaker import MatchmakerClient
    from lanqi.client.referee import RefereeClient
    from lanqi.gui.scenes.lobby import LobbyScene

    referee, referee_pub = server.referee.endpoint, server.referee.pub_endpoint
    with (
        MatchmakerClient(server.matchmaker_endpoint) as ann,
        MatchmakerClient(server.matchmaker_endpoint) as bob,
        RefereeClient(referee, referee_pub) as script,
    ):
        ann.hello("Ann")
        bob.hello("Bob")
        driver = lobby_of(gui, server, "Zed")
        lobby = driver.scene
        assert isinstance(lobby, LobbyScene)
        link = driver.app.lobby

        def row(name: str) -> list[str]:
            return next(list(r) for r in lobby.players.rows if r[0].split()[1] == name)

        driver.until(lambda: {"Ann", "Bob"} <= {p.name for p in link.state.players}, 10, "both")
        driver.frames()
        assert row("Ann")[1] == tr("lobby.idle") and row("Zed")[0] == f"● Zed ({tr('you_mark')})"
        created = script.create_game("xiangqi", players=["Ann", "Bob"])
        script.join(created.game_id, 0, created.tokens[0])
        script.join(created.game_id, 1, created.tokens[1])
        link.send(commands.Refresh())
        driver.until(lambda: "对局中" in row("Ann")[1], 10, "Ann playing")
        assert row("Ann")[1] == tr("lobby.playing", name="Bob", variant="xiangqi")
        assert row("Bob")[1] == tr("lobby.playing", name="Ann", variant="xiangqi")
        assert row("Zed")[1] == tr("lobby.idle")
        index = next(i for i, r in enumerate(lobby.players.rows) if "Ann" in r[0])
        assert (
            lobby.players.colors[index]
            != lobby.players.colors[
                next(i for i, r in enumerate(lobby.players.rows) if "Zed" in r[0])
            ]
        )
        driver.shot("lobby-playing")
        # a click on a player who plays picks their game: W watches it
        driver.click_row(lobby.players, index)
        assert lobby.games.selected == 0 and "W watches" in lobby.message
        driver.key(pygame.K_w, frames=2)
        watching = driver.scene
        assert getattr(watching.session, "game_id", None) == created.game_id
        assert watching.session.kind == "spectate"


def test_the_takeback_prompt_goes_with_the_acceptance(
    scripted_game: Callable[..., AbstractContextManager[Any]],
) -> None:
    with scripted_game("xiangqi") as game:
        driver, scene = game.driver, game.scene
        driver.play_xiangqi("h2e2")
        game.wait(lambda: scene.model.ply == 1 and scene.session.pending is None, "h2e2")
        game.reply("h9g7")
        game.script.request_takeback(game.game_id, game.tokens[1])

        def prompt() -> bool:
            notice = scene.panel._current_notice()
            shown = notice is not None and "takeback" in notice.text
            return shown or "accept_takeback" in {b.id for b in scene.panel.buttons}

        game.wait(prompt, "the takeback request")
        driver.key(pygame.K_t, frames=0)
        # frame by frame: the first frame that shows the move taken back shows no prompt
        deadline = time.monotonic() + 10
        while scene.model.ply == 2:
            assert time.monotonic() < deadline, "the takeback did not come"
            driver.frames()
        assert scene.model.ply == 1
        assert not prompt()
        assert scene.model.takeback_offer is None


def test_seeks_say_rated_or_casual() -> None:
    from lanqi.gui.scenes.lobby import describe_seek

    assert describe_seek(Seek(variant="xiangqi", rated=True)).endswith(tr("rated"))
    assert describe_seek(Seek(variant="gomoku")).endswith(tr("casual"))
