"""Connections as the game screen shows them, against real services.

- A ``lanqi serve`` subprocess killed in the middle of a timed game: one steady
  "connection lost" state across several tries (frozen, marked clocks, no moves, a
  countdown to the next try, what the opponent sees), then the referee's own clock
  once the restarted server answers.
- An opponent who goes silent: their countdown to abandonment, as the referee has it.
- Watching on ports that are not the defaults with only ``--server`` given: games of
  every referee the matchmaker names are listed and can be watched.

Nothing sleeps: every wait runs frames until the state it waits for shows.
"""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

pygame = pytest.importorskip("pygame")

from lanqi.bench.process import LanqiService  # noqa: E402
from lanqi.client.referee import RefereeClient  # noqa: E402
from lanqi.i18n import tr  # noqa: E402
from lanqi.protocol import Assignment, TimeControl  # noqa: E402
from lanqi.referee.session import Liveness  # noqa: E402

if TYPE_CHECKING:
    from tests.gui.conftest import Driver

    from lanqi.server.embedded import EmbeddedServer


DIRECTOR_KEY = "k"
#: the in-process server's referee (``server`` fixture): away after 2 s, abandoned after 30
LIVENESS = Liveness(disconnect_after_ms=2_000.0, abandon_after_ms=30_000.0)
SERVE_READY = re.compile(
    rb"lanqi server ready: lobby (?P<lobby>\S+) \(events (?P<events>\S+)\), "
    rb"referee (?P<referee>\S+), data"
)
REFEREE_READY = re.compile(rb"referee ready: requests (?P<requests>\S+), events (?P<events>\S+),")
MATCHMAKER_READY = re.compile(
    rb"matchmaker ready: requests (?P<lobby>\S+), events (?P<events>\S+),"
)


def unused_port() -> int:
    """A loopback port nobody listens on now (for a flag that must stay the same
    across a restart, where port 0 would not)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


class Services:
    """``lanqi`` subprocesses for one test, stopped (and their logs checked) at the end."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.started: list[LanqiService] = []

    def start(
        self, command: str, args: list[str], ready: re.Pattern[bytes], ports: dict[str, str]
    ) -> LanqiService:
        data = self.root / f"{command}-{len(self.started)}"
        data.mkdir(parents=True)
        service = LanqiService(
            command,
            ["--data-dir", str(data), *args],
            self.root / "logs",
            name=f"{command}-{len(self.started)}",
            ready=ready,
            ports=ports,
        )
        (self.root / "logs").mkdir(exist_ok=True)
        self.started.append(service)
        return service.start()

    def stop_all(self) -> list[str]:
        problems: list[str] = []
        for service in reversed(self.started):
            service.stop()
            problems.extend(service.new_errors())
        return problems


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    started = Services(tmp_path / "services")
    try:
        yield started
    finally:
        problems = started.stop_all()
    assert not problems, "\n".join(problems)


def referee_pub(service: LanqiService, port: int) -> str:
    return service.endpoints["referee"].rsplit(":", 1)[0] + f":{port}"


def seat_in_game(
    driver: Driver, script: RefereeClient, referee: str, events: str, tc: TimeControl
) -> tuple[Any, str, list[str]]:
    """A game created on the referee, the GUI in seat 0 (Red), the script in seat 1."""
    from lanqi.gui.scenes.base import ToSeat

    created = script.create_game("xiangqi", players=["Alice", "Script"], time_control=tc)
    seat = Assignment(
        game_id=created.game_id,
        referee=referee,
        referee_pub=events,
        seat=0,
        token=created.tokens[0],
        variant="xiangqi",
        time_control=tc,
        players=["Alice", "Script"],
    )
    driver.app.go(ToSeat(seat))
    driver.frames()
    script.join(created.game_id, 1, created.tokens[1])
    return driver.scene, created.game_id, created.tokens


def test_a_killed_server_is_shown_lost_until_it_is_back(
    gui: Callable[..., Driver], services: Services
) -> None:
    from lanqi.gui.connection import lobby_lost_text, lost_lines

    pub_port = unused_port()
    serve = services.start(
        "serve",
        ["--referee-pub-port", str(pub_port), "--no-web", "--director-key", DIRECTOR_KEY],
        SERVE_READY,
        {"--port": "lobby", "--pub-port": "events", "--referee-port": "referee"},
    )
    referee, events = serve.endpoints["referee"], referee_pub(serve, pub_port)
    tc = TimeControl(kind="fischer", base_ms=300_000, increment_ms=2_000)
    driver = gui(server=serve.endpoints["lobby"], name="Alice", connect=True)
    driver.app.switch(driver.app.first_scene())
    driver.until(lambda: driver.app.lobby is not None and driver.app.lobby.connected, 10, "lobby")
    link = driver.app.lobby
    with RefereeClient(referee, events, timeout_ms=3000) as script:
        scene, game_id, tokens = seat_in_game(driver, script, referee, events, tc)
        session = scene.session
        driver.until(lambda: scene.model.status == "active", 10, "the start")
        driver.play_xiangqi("h2e2")
        driver.until(lambda: scene.model.ply == 1 and session.pending is None, 10, "my move")
        script.move(game_id, tokens[1], 1, "h9g7")
        driver.until(scene.interactive, 10, "my move again")
        assert scene.model.clock.running == 0  # I think, my clock runs

        serve.kill()  # kill -9 in the middle of the game
        driver.until(lambda: session.lost is not None, 10, "the lost state")
        frozen = [scene.model.clock.left_ms(seat) for seat in (0, 1)]
        assert scene.model.clock.running is None
        assert not scene.interactive()
        assert not any(b.enabled for b in scene.panel.buttons if b.id in ("resign", "offer_draw"))
        assert scene.panel.status_lines()[0] == "等待连接 Connection lost"

        # one steady state over several tries: every frame shows it, the clocks stay
        tries = [session.lost]
        countdowns: set[str] = set()

        def steady() -> bool:
            lost = session.lost
            assert lost is not None, "the lost state went away while the server is down"
            assert [scene.model.clock.left_ms(seat) for seat in (0, 1)] == frozen
            lines = lost_lines(session, time.monotonic())
            assert lines[0].startswith("等待连接 Connection lost · ")
            assert "Clocks frozen" in lines[1] and "abandonment" in lines[2]
            countdowns.add(lines[0])
            if lost is not tries[-1]:
                tries.append(lost)
            return len(tries) >= 4 and link.lost is not None

        driver.until(steady, 40, "three more failed tries")
        assert len({lost.since for lost in tries}) == 1
        assert any("retrying in" in line for line in countdowns)
        assert any("trying to reconnect now" in line for line in countdowns)
        assert lobby_lost_text(link.lost, time.monotonic()).startswith(
            tr("lost_server", time="0:0")[:8]
        )
        driver.shot("connection-lost")
        # the band is over the panel's moves and chat: off the board (issue 19, item 3)
        assert scene.lost_rect is not None and not scene.lost_rect.colliderect(scene.view.rect)
        # my move is refused here, not sent
        notices = len(session.notices)
        driver.play_xiangqi("b2c2")
        assert scene.model.ply == 2 and session.pending is None
        assert session.notices[notices:], "no word on the refused click"
        assert session.notices[-1].text == tr("no_moves_while_lost")
        assert session.play("b2c2") is False

        serve.start()  # the same ports and data
        driver.until(lambda: session.lost is None, 30, "the referee back")
        shown = list(scene.model.clock.remaining_ms)
        snapshot = script.sync(game_id)
        # Black's stopped clock is exactly the referee's; mine runs again from the
        # referee's value (not charged for the downtime), read here a little later
        assert shown[1] == snapshot.clock.remaining_ms[1]
        assert shown[0] >= snapshot.clock.remaining_ms[0]
        assert scene.model.clock.running == 0
        driver.until(scene.interactive, 10, "my move again")
        driver.play_xiangqi("b2c2")
        driver.until(lambda: scene.model.ply == 3 and session.pending is None, 10, "a move")
        driver.until(lambda: link.lost is None, 30, "the lobby back")

        # a chat line later does not restart the clock from the time it came (unless a
        # fresh snapshot came with it: then the clock is new, so try again)
        def chat_lines(count: int) -> Callable[[], bool]:
            return lambda: len(scene.model.chat) >= count

        for attempt in range(5):
            clock, told = scene.model.clock, session.view.state.clock
            script.chat(game_id, f"still here {attempt}", token=tokens[1])
            driver.until(chat_lines(attempt + 1), 10, "the chat line")
            if session.view.state.clock is told:
                assert scene.model.clock == clock
                break
        else:
            raise AssertionError("every chat line came with a fresh snapshot")


def test_the_opponent_away_counts_down_to_abandonment(
    gui: Callable[..., Driver], server: EmbeddedServer
) -> None:
    from lanqi.gui.connection import away_text, opponent_away_line

    referee, events = server.referee.endpoint, server.referee.pub_endpoint
    driver = gui()
    with RefereeClient(referee, events) as script:
        scene, game_id, tokens = seat_in_game(
            driver, script, referee, events, TimeControl(kind="fischer", base_ms=600_000)
        )
        session = scene.session
        driver.until(lambda: scene.model.status == "active", 10, "the start")

        def away() -> str:
            return away_text(session, 1, time.monotonic()) or ""

        # the script says nothing more: the referee shows it away, then counts down
        driver.until(
            lambda: bool(re.fullmatch(r"离开 \d:\d\d away \d:\d\d", away())), 10, "the countdown"
        )
        assert session.view is not None
        deadline = session.view.abandon_at[1]
        assert deadline is not None and session.view.abandon_at[0] is None
        shown = deadline - time.monotonic()
        told = script.sync(game_id).abandon_in_ms[1] / 1000.0  # read after: no later
        # (the wire counts whole milliseconds: the referee's figure may round up by < 1 ms)
        assert told <= shown + 0.001 and shown < LIVENESS.abandon_after_ms / 1000.0
        line = opponent_away_line(session, time.monotonic())
        assert (
            line is not None
            and line.startswith("Script 离开")
            and "Script away: you win by abandonment" in line
        )
        assert scene.panel.status_lines()[2] == line
        first = away()
        driver.until(lambda: away() != first, 5, "the countdown moving")
        driver.shot("opponent-away")
        # back: the countdown goes
        script.heartbeat(game_id, tokens[1])
        driver.until(lambda: not away(), 10, "back")


def test_watching_games_of_every_referee_with_only_the_server_given(
    gui: Callable[..., Driver], services: Services
) -> None:
    """Two referees and a matchmaker on ports that are not the defaults; the GUI is
    told only the matchmaker's address, and watches a game on the second referee."""
    from lanqi.gui.scenes.game import GameScene
    from lanqi.gui.scenes.lobby import LobbyScene

    referees = [
        services.start("referee", [], REFEREE_READY, {"--port": "requests", "--pub-port": "events"})
        for _ in range(2)
    ]
    spec = [f"{r.endpoints['requests']},{r.endpoints['events']}" for r in referees]
    matchmaker = services.start(
        "matchmaker",
        ["--referee", spec[0], "--referee", spec[1], "--director-key", DIRECTOR_KEY],
        MATCHMAKER_READY,
        {"--port": "lobby", "--pub-port": "events"},
    )
    second = (referees[1].endpoints["requests"], referees[1].endpoints["events"])
    with RefereeClient(*second) as script:
        created = script.create_game("xiangqi", players=["Ann", "Bob"])
        game_id, tokens = created.game_id, created.tokens
        script.join(game_id, 0, tokens[0])
        script.join(game_id, 1, tokens[1])
        script.move(game_id, tokens[0], 0, "h2e2")
        driver = gui(server=matchmaker.endpoints["lobby"], name="Watcher", connect=True)
        driver.app.switch(driver.app.first_scene())
        driver.until(lambda: isinstance(driver.scene, LobbyScene), 10, "the lobby")
        link = driver.app.lobby
        assert link is not None
        driver.until(lambda: link.state.referee_of(game_id) is not None, 10, "the game listed")
        assert link.state.referee_of(game_id) == second
        assert link.state.referee_ok
        lobby = driver.scene
        row = next(i for i, g in enumerate(link.state.games) if g.game_id == game_id)
        driver.frames()
        rect = lobby.games.rect
        y = rect.y + (row - lobby.games.scroll) * lobby.games.row_height
        driver.click((rect.x + 20, y + lobby.games.row_height // 2))
        driver.until(lambda: isinstance(driver.scene, GameScene), 5, "the game screen")
        scene = driver.scene
        driver.until(lambda: scene.model.ply == 1, 10, "the game as it stands")
        script.move(game_id, tokens[1], 1, "h9g7")
        driver.until(lambda: scene.model.ply == 2, 10, "a live move")
        assert scene.session.kind == "spectate" and scene.session.lost is None


def test_a_referee_override_is_for_the_run_and_hides_no_game(
    gui: Callable[..., Driver], server: EmbeddedServer
) -> None:
    """``--referee`` names one more referee (here one that never answers): the games of
    the referees the server names are listed all the same, and the flag is not saved."""
    from lanqi.gui.scenes.lobby import LobbyScene
    from lanqi.gui.settings import Settings

    named = (server.referee.endpoint, server.referee.pub_endpoint)
    dead = f"tcp://127.0.0.1:{unused_port()}"
    with RefereeClient(*named) as script:
        created = script.create_game("gomoku", players=["Ann", "Bob"])
        game_id = created.game_id
        for seat, token in enumerate(created.tokens):
            script.join(game_id, seat, token)
    driver = gui(server=server.matchmaker_endpoint, name="Watcher", connect=True, referee=dead)
    driver.app.switch(driver.app.first_scene())
    driver.until(lambda: isinstance(driver.scene, LobbyScene), 10, "the lobby")
    link = driver.app.lobby
    assert link is not None
    driver.until(lambda: link.state.referee_of(game_id) == named, 15, "the game listed")
    assert link.agent.referees[0][0] == dead and named in link.agent.referees
    driver.until(lambda: not link.state.referee_ok, 15, "the silent override noticed")
    assert link.state.referee_of(game_id) == named
    driver.app.settings.save()
    assert driver.app.settings.path is not None
    assert Settings.load(driver.app.settings.path.parent).referee == ""
