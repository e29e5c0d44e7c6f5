"""Online play through the GUI against a real matchmaker and referee on loopback.

An :class:`~lanqi.server.embedded.EmbeddedServer` runs in-process; opponents are
:class:`~lanqi.bot.runner.BotRunner` threads with random bots.  The GUI connects
as a person would (connect screen, lobby), and every move is a posted click.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

pygame = pytest.importorskip("pygame")

from lanqi.bot.base import SeatView  # noqa: E402
from lanqi.bot.runner import BotRunner, Policy  # noqa: E402
from lanqi.bot.simple import GreedyGomokuBot, RandomBot  # noqa: E402
from lanqi.games import gomoku, xiangqi  # noqa: E402
from lanqi.gui import commands  # noqa: E402
from lanqi.i18n import tr  # noqa: E402
from lanqi.protocol import Seek  # noqa: E402

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from tests.gui.conftest import Driver, ScriptedGame

    from lanqi.server.embedded import EmbeddedServer

DIRECTOR_KEY = "k"


class Bots:
    """BotRunner threads, stopped at teardown."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint
        self.runners: list[tuple[BotRunner, threading.Thread]] = []

    def start(self, name: str, **policy: Any) -> BotRunner:
        seed = len(self.runners) + 1
        runner = BotRunner(
            make_bot=lambda: RandomBot(seed=seed),
            matchmaker=self.endpoint,
            name=name,
            policy=Policy(**policy),
        )
        thread = threading.Thread(target=runner.run, name=f"bot-{name}", daemon=True)
        thread.start()
        self.runners.append((runner, thread))
        return runner

    def stop(self) -> None:
        for runner, _ in self.runners:
            runner.stop.set()
        for _, thread in self.runners:
            thread.join(timeout=5)


@pytest.fixture
def bots(server: EmbeddedServer) -> Iterator[Bots]:
    pool = Bots(server.matchmaker_endpoint)
    try:
        yield pool
    finally:
        pool.stop()


def connect(
    gui: Callable[..., Driver],
    server: EmbeddedServer,
    name: str = "Alice",
    *,
    overrides: bool = False,
) -> Driver:
    """The GUI in the lobby of ``server`` (on ports that are not the defaults): it
    learns the event and referee endpoints from the matchmaker, unless ``overrides``
    gives them as on the command line (``--events``, ``--referee``...)."""
    from lanqi.gui.scenes.lobby import LobbyScene

    given = (
        {
            "events": server.matchmaker_pub_endpoint,
            "referee": server.referee.endpoint,
            "referee_events": server.referee.pub_endpoint,
        }
        if overrides
        else {}
    )
    driver = gui(server=server.matchmaker_endpoint, name=name, connect=True, **given)
    driver.app.switch(driver.app.first_scene())
    driver.until(lambda: isinstance(driver.scene, LobbyScene), 10, "the lobby")
    return driver


def click_row(driver: Any, widget: Any, index: int) -> None:
    rect = widget.rect
    y = rect.y + (index - widget.scroll) * widget.row_height + widget.row_height // 2
    driver.click((rect.x + 20, y))


def wait_for_game(driver: Any) -> Any:
    from lanqi.gui.scenes.game import GameScene

    driver.until(lambda: isinstance(driver.scene, GameScene), 10, "the game screen")
    scene = driver.scene
    driver.until(lambda: scene.model.status != "waiting", 10, "the game to start")
    return scene


def play_out(
    driver: Driver, scene: Any, choose: Callable[[list[str]], str], max_plies: int = 300
) -> None:
    """Play my moves by clicking until the game ends."""
    while not scene.model.finished:
        driver.until(lambda: scene.interactive() or scene.model.finished, 15, "my turn")
        if scene.model.finished:
            break
        assert scene.model.ply < max_plies
        move = choose(list(scene.model.moves))
        before = scene.model.ply
        if scene.model.variant == "xiangqi":
            driver.play_xiangqi(move)
        else:
            n = scene.view.files
            stone = gomoku.Move.from_text(move, n)
            driver.click_point(stone.y * n + stone.x)
        # my move is on the board (the bot's answer may be already too: a move's way
        # back is no longer held up by an agent's poll interval)
        moves = list(scene.model.moves)
        assert len(moves) > before and moves[before] == move, scene.session.notices[-1:]


def greedy_gomoku(moves: list[str]) -> str:
    return GreedyGomokuBot(seed=1).choose_move(SeatView.start("gomoku", moves=moves))


def test_online_gomoku_chat_and_rematch_then_resign(
    gui: Callable[..., Driver], server: EmbeddedServer, bots: Bots
) -> None:
    from lanqi.gui.scenes.lobby import LobbyScene

    bots.start("Randy", variants=("gomoku", "xiangqi"), seek=Seek(variant="gomoku"))
    driver = connect(gui, server)
    lobby = driver.scene
    assert isinstance(lobby, LobbyScene)
    link = driver.app.lobby
    driver.until(lambda: any(s.player == "Randy" for s in link.state.seeks), 10, "Randy's seek")
    driver.until(lambda: any(p.name == "Randy" for p in link.state.players), 10, "players")
    driver.frames(2)
    driver.shot("lobby")
    index = next(i for i, s in enumerate(link.state.seeks) if s.player == "Randy")
    click_row(driver, lobby.seeks, index)
    scene = wait_for_game(driver)
    assert scene.session.kind == "online" and scene.model.variant == "gomoku"
    # chat: Tab, type, Enter; it comes back from the referee
    driver.key(pygame.K_TAB)
    driver.type("你好 hello")
    driver.key(pygame.K_RETURN)
    driver.until(lambda: any(c.text == "你好 hello" for c in scene.model.chat), 10, "the chat")
    play_out(driver, scene, greedy_gomoku)
    model = scene.model
    assert model.result in ("1-0", "0-1", "1/2-1/2") and model.termination
    driver.frames(2)
    driver.check_gomoku_board(model.board)
    driver.shot("gomoku-online", docs=True)
    # a rematch: a challenge to the bot, which accepts; the new game opens by itself
    first_game = scene.session.game_id
    driver.press("rematch")
    driver.until(
        lambda: (
            getattr(driver.scene, "session", None) is not None
            and driver.scene.session.game_id != first_game
        ),
        10,
        "the rematch",
    )
    scene = wait_for_game(driver)
    driver.key(pygame.K_r)
    assert not scene.model.finished  # the first R only asks
    driver.key(pygame.K_r)
    driver.until(lambda: scene.model.finished, 10, "the resignation")
    assert scene.model.termination == "resignation"
    assert scene.model.winner == 1 - scene.session.seat
    driver.key(pygame.K_ESCAPE, frames=2)
    assert isinstance(driver.scene, LobbyScene)


def test_online_xiangqi_to_the_end(
    gui: Callable[..., Driver], server: EmbeddedServer, bots: Bots
) -> None:
    from lanqi.bot.xiangqi_ai import XiangqiAI

    bots.start("Rook", variants=("xiangqi",), seek=Seek(variant="xiangqi"))
    driver = connect(gui, server, "Bob")
    link = driver.app.lobby
    driver.until(lambda: any(s.player == "Rook" for s in link.state.seeks), 10, "Rook's seek")
    driver.frames()
    index = next(i for i, s in enumerate(link.state.seeks) if s.player == "Rook")
    click_row(driver, driver.scene.seeks, index)
    scene = wait_for_game(driver)
    me = XiangqiAI(level=8, seed=2, depth=2)
    checked = False

    def choose(moves: list[str]) -> str:
        nonlocal checked
        if len(moves) >= 6 and not checked:
            checked = True
            driver.frames()
            driver.check_xiangqi_board(scene.model.board)
            driver.check_last_move(moves[-1])
            driver.shot("xiangqi-online")
        return me.choose_move(SeatView.start("xiangqi", moves=moves))

    play_out(driver, scene, choose)
    assert checked
    assert scene.model.result in ("1-0", "0-1", "1/2-1/2")
    driver.frames(2)
    driver.check_xiangqi_board(scene.model.board)
    # the referee's record and ours agree
    from lanqi.client.referee import RefereeClient

    with RefereeClient(server.referee.endpoint, server.referee.pub_endpoint) as client:
        snapshot = client.sync(scene.session.game_id)
    assert list(snapshot.moves) == scene.model.moves
    assert snapshot.result == scene.model.result


def test_spectate_a_live_game(
    gui: Callable[..., Driver], server: EmbeddedServer, bots: Bots
) -> None:
    from lanqi.gui.scenes.game import GameScene

    bots.start("Red1", variants=("xiangqi",), seek=Seek(variant="xiangqi"), max_games=1)
    bots.start("Black1", variants=("xiangqi",), seek=Seek(variant="xiangqi"), max_games=1)
    driver = connect(gui, server, "Watcher")
    assert driver.app.referee_endpoints == (server.referee.endpoint, server.referee.pub_endpoint)
    link = driver.app.lobby
    driver.until(lambda: bool(link.state.games), 10, "a live game in the lobby")
    driver.frames()
    click_row(driver, driver.scene.games, 0)
    driver.until(lambda: isinstance(driver.scene, GameScene), 5, "the game screen")
    scene = driver.scene
    assert scene.session.kind == "spectate" and not scene.session.my_seats
    driver.until(lambda: scene.model.ply >= 8 or scene.model.finished, 15, "some moves")
    driver.frames()
    board = scene.model.board
    driver.check_xiangqi_board(board)
    if scene.model.moves:
        driver.check_last_move(scene.model.moves[-1])
    # spectators cannot move: a click on a piece selects nothing and says why ...
    session = scene.session
    last_notice = session.notices[-1] if session.notices else None

    def click_a_piece() -> bool:
        now = scene.model.board
        assert isinstance(now, xiangqi.Board)
        driver.click_point(next(sq for sq in range(90) if now.piece_at(sq) is not None))
        fresh = session.notices[-1] if session.notices else None
        return fresh is not last_notice

    driver.until(click_a_piece, 5, "a notice for the spectator's click")
    assert session.notices[-1].text == tr("watching_no_moves")
    assert scene.controller.selected is None
    # ... and a move the rules allow is not sent either
    live = scene.model.board
    assert isinstance(live, xiangqi.Board)
    if not scene.model.finished:
        ply = scene.model.ply
        assert session.play(next(iter(live.legal_moves())).iccs()) is False
        assert session.notices[-1].text == tr("spectators_cannot_move")
        assert session.pending is None and scene.model.ply >= ply
    plies = scene.model.ply
    driver.until(lambda: scene.model.ply > plies or scene.model.finished, 10, "live updates")
    driver.shot("xiangqi-spectate", docs=True)
    driver.until(lambda: scene.model.finished, 40, "the end of the game")
    driver.frames(2)
    driver.check_xiangqi_board(scene.model.board)
    assert scene.panel.status_lines()[0]


def test_tournament_calls_every_game(
    gui: Callable[..., Driver], server: EmbeddedServer, bots: Bots
) -> None:
    from lanqi.client.matchmaker import MatchmakerClient
    from lanqi.gui.scenes.game import GameScene
    from lanqi.gui.scenes.lobby import LobbyScene
    from lanqi.gui.sessions import OnlineSession
    from lanqi.protocol import (
        CreateTournament,
        Ok,
        StartTournament,
        TournamentCreated,
        TournamentSpec,
    )

    with MatchmakerClient(server.matchmaker_endpoint) as director:
        spec = TournamentSpec(
            name="Club night", format="double_round_robin", variant="gomoku", rated=False
        )
        tid = director.call(
            CreateTournament(director_key=DIRECTOR_KEY, spec=spec), TournamentCreated
        ).tournament_id
        bots.start("Tbot", variants=("gomoku",), tournaments=(tid,))
        driver = connect(gui, server, "Carol")
        link = driver.app.lobby
        lobby = driver.scene
        driver.until(lambda: bool(link.state.tournaments), 10, "the tournament list")
        driver.frames()
        click_row(driver, lobby.tournaments, 0)
        driver.frames()
        join = next(b for b in lobby.buttons if b.key == "j")
        assert join.enabled
        driver.click(join.rect.center)
        driver.until(
            lambda: any(
                "Carol" in t.players and "Tbot" in t.players for t in link.state.tournaments
            ),
            10,
            "both entered",
        )
        director.call(StartTournament(tournament_id=tid, director_key=DIRECTOR_KEY), Ok)
        games: list[str] = []
        for _ in range(2):  # a double round robin of two: two games, each called
            driver.until(
                lambda: (
                    isinstance(driver.scene, GameScene)
                    and isinstance(driver.scene.session, OnlineSession)
                    and driver.scene.session.game_id not in games
                ),
                15,
                "the next tournament game",
            )
            scene = wait_for_game(driver)
            assert scene.session.assignment.tournament_id == tid
            games.append(scene.session.game_id)
            play_out(driver, scene, greedy_gomoku)
            driver.frames()
        driver.shot("gomoku-tournament")
        driver.key(pygame.K_ESCAPE, frames=2)
        assert isinstance(driver.scene, LobbyScene)
        lobby = driver.scene
        lobby.selected_tournament = tid
        link.send(commands.FollowTournament(tid))
        driver.until(
            lambda: any(
                s.tournament.tournament_id == tid and sum(r.games for r in s.rows) == 4
                for s in link.state.standings
            ),
            10,
            "the standings",
        )
        driver.frames(2)
        assert any("Carol" in row[0] for row in lobby.standings.rows)
        driver.shot("lobby-standings", docs=True)


def test_offers_takebacks_and_clocks_with_a_scripted_opponent(
    scripted_game: Callable[..., AbstractContextManager[ScriptedGame]],
) -> None:
    """Draw and takeback buttons, and a live Fischer clock, against a scripted seat."""
    from lanqi.protocol import TimeControl

    tc = TimeControl(kind="fischer", base_ms=120_000, increment_ms=2_000)
    with scripted_game("xiangqi", time_control=tc) as game:
        driver, script, scene, wait = game.driver, game.script, game.scene, game.wait
        game_id, tokens = game.game_id, game.tokens

        def buttons() -> set[str]:
            return {b.id for b in scene.panel.buttons if b.enabled}

        wait(lambda: scene.model.status == "active", "the start")
        driver.play_xiangqi("h2e2")
        wait(lambda: scene.session.pending is None and scene.model.ply == 1, "my move accepted")
        # a lobby game (first_move_ms left at its default): no clock ran before Red's
        # first move, so Red has base + increment; Black's clock waits for its first
        # move, and the window to make it in counts down, live, between two frames
        assert scene.model.clock.left_ms(0) == 122_000 == script.sync(game_id).clock.remaining_ms[0]
        assert scene.model.clock.running is None and scene.model.clock.left_ms(1) == 120_000
        before = scene.model.clock.first_move_left_ms(1)
        assert before is not None and scene.model.clock.first_move_left_ms(0) is None
        wait(lambda: (scene.model.clock.first_move_left_ms(1) or before) < before - 100, "window")
        driver.shot("xiangqi-first-move")
        script.move(game_id, tokens[1], 1, "h9g7")
        wait(lambda: scene.model.ply == 2, "Black's move")
        # from Black's first move on, Red's clock runs, live
        assert scene.model.clock.running == 0 and scene.model.clock.first_move is None
        before = scene.model.clock.left_ms(0)
        assert before is not None
        wait(lambda: (scene.model.clock.left_ms(0) or before) < before - 100, "Red's clock")
        driver.shot("xiangqi-clock")
        # the opponent asks for a takeback; T allows it
        script.request_takeback(game_id, tokens[1])
        wait(lambda: "accept_takeback" in buttons(), "the takeback request")
        driver.key(pygame.K_t)
        wait(lambda: scene.model.ply == 1, "the takeback")
        # I ask for one: my h2e2 goes back, with the answer after it
        script.move(game_id, tokens[1], 1, "b9c7")
        wait(lambda: scene.model.ply == 2, "Black's other move")
        driver.press("takeback")
        wait(lambda: scene.model.takeback_offer == 0, "my takeback request")
        script.accept_takeback(game_id, tokens[1])
        wait(lambda: scene.model.ply == 0, "my move taken back")
        assert scene.interactive()
        # my draw offer is declined; theirs I accept with D
        driver.key(pygame.K_d)
        wait(lambda: scene.model.draw_offer == 0, "my draw offer")
        script.decline_draw(game_id, tokens[1])
        wait(lambda: scene.model.draw_offer is None, "the declined offer")
        script.offer_draw(game_id, tokens[1])
        wait(lambda: "accept_draw" in buttons(), "their draw offer")
        driver.shot("xiangqi-draw-offer")
        driver.key(pygame.K_d)
        wait(lambda: scene.model.finished, "the draw")
        assert (scene.model.result, scene.model.termination) == ("1/2-1/2", "agreement")


def test_challenges_both_ways(
    gui: Callable[..., Driver], server: EmbeddedServer, bots: Bots
) -> None:
    from lanqi.client.matchmaker import MatchmakerClient
    from lanqi.gui.scenes.game import GameScene
    from lanqi.gui.scenes.lobby import LobbyScene
    from lanqi.protocol import Challenge, ChallengeCreated

    bots.start("Chal", variants=("gomoku", "xiangqi"))
    driver = connect(gui, server, "Eve", overrides=True)
    link = driver.app.lobby
    lobby = driver.scene
    driver.until(lambda: any(p.name == "Chal" for p in link.state.players), 10, "Chal")
    driver.frames()
    index = next(i for i, p in enumerate(link.state.players) if p.name == "Chal")
    click_row(driver, lobby.players, index)
    assert lobby.selected_player == "Chal"
    driver.key(pygame.K_c)  # challenge: the bot accepts and the game opens
    scene = wait_for_game(driver)
    assert sorted(scene.model.players) == ["Chal", "Eve"]
    driver.key(pygame.K_r)
    driver.key(pygame.K_r)
    driver.until(lambda: scene.model.finished, 10, "the resignation")
    driver.key(pygame.K_ESCAPE, frames=2)
    assert isinstance(driver.scene, LobbyScene)
    # someone challenges me: Y accepts
    with MatchmakerClient(server.matchmaker_endpoint) as dave:
        dave.hello("Dave")
        dave.call(Challenge(to="Eve", seek=Seek(variant="xiangqi")), ChallengeCreated)
        driver.until(lambda: bool(link.challenges), 10, "Dave's challenge")
        driver.frames(2)
        driver.shot("lobby-challenge")
        driver.key(pygame.K_y)
        driver.until(
            lambda: isinstance(driver.scene, GameScene) and "Dave" in driver.scene.model.players,
            10,
            "the game against Dave",
        )


def test_a_roster_entry_is_claimed_on_the_connect_screen(
    gui: Callable[..., Driver], server: EmbeddedServer
) -> None:
    """The director entered "Mei" before she came; the connect screen's claim code
    field takes her entry over (a wrong code is refused there, in one line)."""
    from lanqi.client.matchmaker import MatchmakerClient
    from lanqi.gui.scenes.connect import ConnectScene
    from lanqi.gui.scenes.lobby import LobbyScene
    from lanqi.protocol import (
        ClaimCode,
        CreateTournament,
        JoinTournament,
        TournamentCreated,
        TournamentSpec,
    )

    with MatchmakerClient(server.matchmaker_endpoint) as director:
        spec = TournamentSpec(name="Roster night", format="round_robin", variant="gomoku")
        tid = director.call(
            CreateTournament(director_key=DIRECTOR_KEY, spec=spec), TournamentCreated
        ).tournament_id
        code = director.call(
            JoinTournament(tournament_id=tid, player="Mei", director_key=DIRECTOR_KEY), ClaimCode
        ).code
    driver = gui(
        server=server.matchmaker_endpoint,
        events=server.matchmaker_pub_endpoint,
        referee=server.referee.endpoint,
        referee_events=server.referee.pub_endpoint,
        name="Mei",
    )
    driver.app.switch(driver.app.first_scene())
    driver.frames()
    scene = driver.scene
    assert isinstance(scene, ConnectScene)

    def claim_with(text: str) -> None:
        driver.click(scene.claim.rect.center)
        scene.claim.text = ""
        driver.type(text)
        driver.click(scene.buttons[0].rect.center)  # 连接 Connect

    claim_with("ZZZZZZ" if code != "ZZZZZZ" else "YYYYYY")
    driver.until(lambda: bool(scene.error), 10, "the refusal")
    assert tr("connect.bad_claim", name="Mei") in scene.error
    claim_with(code.lower())
    driver.until(lambda: isinstance(driver.scene, LobbyScene), 10, "the lobby")
    assert driver.app.lobby is not None and driver.app.lobby.name == "Mei"


def test_a_board_game_result_is_given_in_the_lobby(
    gui: Callable[..., Driver], server: EmbeddedServer
) -> None:
    """An over-the-board tournament: Carol's game has no screen; her lobby shows the
    table and three result buttons; Dan says 1-0 on the command line's wire, Carol
    clicks 1-0 and the result counts (the event, one round, is over)."""
    from lanqi.client.matchmaker import MatchmakerClient
    from lanqi.protocol import (
        CreateTournament,
        JoinTournament,
        Ok,
        ReportResult,
        ResultNoted,
        StartTournament,
        TournamentCreated,
        TournamentSpec,
    )

    with (
        MatchmakerClient(server.matchmaker_endpoint) as director,
        MatchmakerClient(server.matchmaker_endpoint) as dan,
    ):
        spec = TournamentSpec(
            name="Board night", format="swiss", variant="xiangqi", rounds=1, boards="otb"
        )
        tid = director.call(
            CreateTournament(director_key=DIRECTOR_KEY, spec=spec), TournamentCreated
        ).tournament_id
        dan.hello("Dan")
        driver = connect(gui, server, "Carol")
        link = driver.app.lobby
        lobby = driver.scene
        for name in ("Carol", "Dan"):
            director.call(
                JoinTournament(tournament_id=tid, player=name, director_key=DIRECTOR_KEY), Ok
            )
        director.call(StartTournament(tournament_id=tid, director_key=DIRECTOR_KEY), Ok)
        driver.until(lambda: bool(link.state.tournaments), 10, "the tournament list")
        driver.frames()
        click_row(driver, lobby.tournaments, 0)
        driver.until(lambda: lobby.board_game is not None, 10, "the board game's buttons")
        assert lobby.board_game == (tid, 1, 1, "Dan")
        assert [b.label for b in lobby.result_buttons] == ["1-0", "½-½", "0-1"]
        standing = next(s for s in link.state.standings if s.tournament.tournament_id == tid)
        (pairing,) = standing.pairings
        said = dan.call(
            ReportResult(tournament_id=tid, round=1, table=1, result="1-0"), ResultNoted
        )
        assert said.status == "waiting"
        driver.frames()
        driver.shot("lobby-board-result")
        first_is_carol = pairing.first == "Carol"
        button = lobby.result_buttons[0]  # 1-0: the first player won, as Dan said
        driver.click(button.rect.center)
        driver.until(
            lambda: any(
                s.tournament.tournament_id == tid and s.tournament.status == "finished"
                for s in link.state.standings
            ),
            10,
            "the result to count",
        )
        driver.until(lambda: lobby.board_game is None, 10, "the buttons to go")
        final = next(s for s in link.state.standings if s.tournament.tournament_id == tid)
        points = {r.player: r.points for r in final.rows}
        assert points == (
            {"Carol": 1.0, "Dan": 0.0} if first_is_carol else {"Carol": 0.0, "Dan": 1.0}
        )
