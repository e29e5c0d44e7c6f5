"""Window shapes, stable buttons, the chat's keyboard focus and frames drawn only on change.

The game screen is checked at the three window shapes the GUI promises
(landscape 1280x800, small 800x540, portrait 640x900, and the smallest the window
can be) in every kind of session:
every button and the panel's parts lie inside the window, no two buttons overlap,
no label is cut, the status wraps a long notice instead of cutting it, and the
move list keeps the latest move in view.  The online sessions here get their
game from a stand-in for the network thread (as in ``test_online_chat``), which
lets a test hand the screen a draw offer at a moment it chooses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

pygame = pytest.importorskip("pygame")

from lanqi.games import xiangqi  # noqa: E402
from lanqi.gamestate import GameState  # noqa: E402
from lanqi.gui import commands  # noqa: E402
from lanqi.gui.app import MIN_SIZE  # noqa: E402
from lanqi.gui.net import ViewState  # noqa: E402
from lanqi.gui.scenes.base import ToMenu, ToOfflineGame, ToReview  # noqa: E402
from lanqi.gui.sessions import OnlineSession  # noqa: E402
from lanqi.protocol import Assignment, ClockInfo, TimeControl  # noqa: E402

if TYPE_CHECKING:
    from tests.gui.conftest import Driver

SIZES = [(1280, 800), (800, 540), (640, 900), MIN_SIZE]
XIANGQI_START = xiangqi.Board().fen()
#: the longest reason the rules give for a refused move
LONG_NOTICE = "it would leave the general in check or facing the other"
#: 40 legal plies (random moves, seed 7) that end nothing: enough to fill any move list
SHUFFLE = [
    "d0e1", "b7b8", "e3e4", "h9i7", "b0a2", "b8b3", "h2i2", "b3b7", "e4e5", "h7h9",
    "a3a4", "h9h7", "b2d2", "a9a8", "a4a5", "c6c5", "e5d5", "a8c8", "d2d9", "b7b3",
    "i2d2", "b3b1", "i0i1", "b1b6", "d2d4", "h7h3", "i1h1", "h3h7", "a2b4", "h7h4",
    "h1f1", "g9e7", "a0a4", "c8e8", "a4a2", "i6i5", "h0i2", "c5c4", "d4d0", "h4d4",
]  # fmt: skip


class ScriptedAgent:
    """Stands in for the network thread: the test queues the views it 'receives'."""

    game_id = "g1"

    def __init__(self) -> None:
        self.inbox: list[object] = []
        self.sent: list[commands.GameCommand] = []

    def is_alive(self) -> bool:
        return True

    def start(self) -> None:  # pragma: no cover - already "running"
        raise AssertionError("not started twice")

    def poll(self) -> list[object]:
        items, self.inbox = self.inbox, []
        return items

    def send(self, command: commands.GameCommand) -> None:
        self.sent.append(command)

    def stop(self, wait: float = 0.0) -> None:
        pass


def online_state(
    seq: int, *, draw_offer: int | None = None, takeback_offer: int | None = None
) -> GameState:
    tc = TimeControl(kind="fischer", base_ms=300_000, increment_ms=3000)
    state = GameState.new(
        "g1",
        "xiangqi",
        {},
        None,
        ("ann", "bob"),
        fen=XIANGQI_START,
        time_control=tc,
        clock=ClockInfo(remaining_ms=[300_000, 300_000], running=None),
    )
    return state._replace(
        seq=seq,
        status="active",
        connected=(True, True),
        moves=("h2e2", "h9g7"),
        draw_offer=draw_offer,
        takeback_offer=takeback_offer,
    )


def open_online(driver: Driver, *, seated: bool = True) -> tuple[Any, ScriptedAgent]:
    """A game screen on an online session whose agent the test scripts."""
    from lanqi.gui.scenes.game import GameScene

    agent = ScriptedAgent()
    assignment = Assignment(
        game_id="g1",
        referee="tcp://127.0.0.1:1",
        referee_pub="tcp://127.0.0.1:2",
        seat=0,
        token="t",
        variant="xiangqi",
        players=["ann", "bob"],
    )
    session = OnlineSession(
        agent,  # type: ignore[arg-type]
        variant="xiangqi",
        players=["ann", "bob"],
        assignment=assignment if seated else None,
        name="ann",
    )
    agent.inbox.append(ViewState(online_state(3), at=0.0))
    driver.app.switch(GameScene(session, back=ToMenu()))
    driver.frames(2)
    return driver.scene, agent


def open_session(gui: Callable[..., Driver], kind: str, size: tuple[int, int]) -> Driver:
    driver = gui(size=size)
    if kind == "online":
        open_online(driver)
    elif kind == "watch":
        open_online(driver, seated=False)
    elif kind == "review":
        from lanqi.gui.model import GameModel

        model = GameModel("xiangqi", moves=SHUFFLE[:10])
        model.show(
            model.state._replace(status="finished", result="1/2-1/2", termination="agreement")
        )
        driver.app.go(ToReview((model, model), source="two-games.pgn"))
        driver.frames(2)
    else:
        ai = 2 if kind.endswith("-ai") else None
        driver.app.go(ToOfflineGame(kind.removesuffix("-ai"), ai=ai, time_control="5+3"))
        driver.frames(2)
    return driver


def check_inside_and_whole(driver: Driver) -> None:
    """Every button inside the window, none over another, no label cut; the panel's
    parts inside the window; the status's lines inside its box."""
    scene = driver.scene
    window = pygame.Rect((0, 0), driver.app.screen.get_size())
    panel = scene.panel
    buttons = panel.buttons + panel.nav_buttons
    for button in buttons:
        assert window.contains(button.rect), (button.id or button.label, button.rect)
        label, _ = button.shown_label()
        assert not label.endswith("…"), (button.label, button.rect.width)
    for i, a in enumerate(panel.buttons):
        for b in panel.buttons[i + 1 :]:
            assert not a.rect.colliderect(b.rect), (a.id, b.id)
    for name, rect in panel.rects.items():
        assert window.contains(rect), (name, rect)
    assert panel.rects["moves"].height >= 3 * 24, panel.rects["moves"]
    assert scene.view.rect.width > 0 and window.contains(scene.view.rect)
    status = panel.rects["status"]
    lines = panel.status_layout()
    assert sum(size * 5 // 4 for _, size, _ in lines) <= status.height, lines
    from lanqi.gui.widgets import rendered

    for text, size, color in lines:
        assert rendered(text, size, color).get_width() <= status.width, text
    title = panel.rects["title"]
    assert " ".join(panel._title_lines).replace("  ", " ") == panel.title().replace("  ", " ")
    for line in panel._title_lines:
        assert rendered(line, 15, (0, 0, 0)).get_width() <= title.width, line


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("kind", ["xiangqi", "gomoku-ai", "online", "watch", "review"])
def test_every_part_fits_every_window_shape(
    gui: Callable[..., Driver],
    kind: str,
    size: tuple[int, int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    texts = TextWatch(monkeypatch)
    driver = open_session(gui, kind, size)
    scene = driver.scene
    ids = {b.id for b in scene.panel.buttons}
    assert {"save", "back", "flip"} <= ids, ids
    scene.session.notice(LONG_NOTICE, error=True)
    driver.frames()
    check_inside_and_whole(driver)
    w, h = size
    if h > w:  # portrait: the board on top, larger than the panel's old strip left it
        assert scene.view.rect.bottom <= scene.panel.rect.top
        assert scene.view.rect.width >= 440, scene.view.rect
    else:
        assert scene.view.rect.right <= scene.panel.rect.left
    if kind == "online":  # every answer button too, while offers are open
        state = online_state(4, draw_offer=1, takeback_offer=1)
        scene.session.agent.inbox.append(ViewState(state, at=0.0))
        driver.frames()
        assert "accept_draw" in {b.id for b in scene.panel.buttons}
        check_inside_and_whole(driver)
    assert not texts.cut, texts.cut
    assert not texts.outside, texts.outside
    driver.shot(f"layout-{kind}-{w}x{h}")
    driver.key(pygame.K_h)  # the list of keys fits too
    assert scene.help
    driver.frames()
    assert not texts.cut, texts.cut
    assert not texts.outside, texts.outside


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_move_list_follows_the_latest_move(
    gui: Callable[..., Driver], size: tuple[int, int]
) -> None:
    driver = open_session(gui, "xiangqi", size)
    scene = driver.scene
    for move in SHUFFLE:
        driver.play_xiangqi(move)
    assert scene.model.ply == len(SHUFFLE)
    driver.frames()
    panel = scene.panel
    moves = panel.rects["moves"]
    shown = {ply: rect for rect, ply in panel.move_cells}
    assert len(shown) >= 6, "several rows of moves"
    assert len(SHUFFLE) in shown, "the latest move is in view"
    assert moves.contains(shown[len(SHUFFLE)])
    # the wheel over the list scrolls it back to the first moves, and down again
    driver.post(pygame.MOUSEMOTION, pos=moves.center, rel=(0, 0), buttons=(0, 0, 0))
    for _ in range(30):
        driver.post(pygame.MOUSEWHEEL, x=0, y=1, flipped=False)
    driver.frames()
    shown = {ply: rect for rect, ply in panel.move_cells}
    assert 1 in shown and len(SHUFFLE) not in shown
    for _ in range(30):
        driver.post(pygame.MOUSEWHEEL, x=0, y=-1, flipped=False)
    driver.frames()
    assert len(SHUFFLE) in {ply for _, ply in panel.move_cells}
    # a new size keeps the latest move in view
    driver.resize((700, 560) if size[1] <= size[0] else (640, 1000))
    driver.frames()
    assert len(SHUFFLE) in {ply for _, ply in panel.move_cells}


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_buttons_stay_in_place_when_an_offer_comes(
    gui: Callable[..., Driver], size: tuple[int, int]
) -> None:
    driver = gui(size=size)
    scene, agent = open_online(driver)
    before = {b.id: pygame.Rect(b.rect) for b in scene.panel.buttons}
    assert {"offer_draw", "takeback", "resign", "back"} <= set(before)
    agent.inbox.append(ViewState(online_state(4, draw_offer=1), at=0.0))
    driver.frames()
    during = {b.id: pygame.Rect(b.rect) for b in scene.panel.buttons}
    assert {"accept_draw", "decline_draw"} <= set(during)
    assert before.keys() <= during.keys(), "every button stays (Offer draw disabled)"
    assert not driver.button("offer_draw").enabled
    for action_id, rect in during.items():
        if action_id in before:
            assert rect == before[action_id], action_id
        else:  # the answers come in their own places, over no other button
            assert all(not rect.colliderect(r) for r in before.values()), action_id
    driver.shot("xiangqi-offer-buttons", docs=size == (800, 540))
    # their takeback request instead: the same
    agent.inbox.append(ViewState(online_state(5, takeback_offer=1), at=0.0))
    driver.frames()
    after = {b.id: pygame.Rect(b.rect) for b in scene.panel.buttons}
    assert {"accept_takeback", "decline_takeback"} <= set(after)
    assert after["accept_takeback"] == during["accept_draw"]
    for action_id, rect in after.items():
        if action_id in before:
            assert rect == before[action_id], action_id
    # and back to normal: everything where it was
    agent.inbox.append(ViewState(online_state(6), at=0.0))
    driver.frames()
    assert {b.id: b.rect for b in scene.panel.buttons} == before


def test_the_chat_gives_the_keys_back_after_enter_and_esc(gui: Callable[..., Driver]) -> None:
    driver = gui(size=(800, 540))
    scene, agent = open_online(driver)
    chat = scene.panel.chat_input
    driver.key(pygame.K_TAB)
    assert chat.focused
    driver.type("good luck")
    driver.key(pygame.K_f, unicode="f")  # typed into the field, not a shortcut
    assert chat.text == "good luck" and not scene.view.flipped
    driver.key(pygame.K_RETURN)
    assert not chat.focused
    assert [c.text for c in agent.sent if isinstance(c, commands.Say)] == ["good luck"]
    driver.key(pygame.K_f, unicode="f")  # now a shortcut again: flip
    assert scene.view.flipped
    driver.key(pygame.K_TAB)
    assert chat.focused
    driver.key(pygame.K_ESCAPE)
    assert not chat.focused and driver.scene is scene  # Esc left the field, not the game
    driver.key(pygame.K_f, unicode="f")
    assert not scene.view.flipped


def test_a_frame_is_drawn_only_when_something_changed(gui: Callable[..., Driver]) -> None:
    driver = open_session(gui, "xiangqi", (800, 540))
    scene, app = driver.scene, driver.app
    driver.frames(3)
    drawn = app.draws
    driver.frames(30)
    assert app.draws == drawn, "nothing changed: nothing drawn"
    assert app.frames >= 30
    driver.click_point(xiangqi.parse_square("h2"))  # input: a frame
    assert app.draws == drawn + 1 and scene.controller.selected is not None
    driver.frames(10)
    assert app.draws == drawn + 1
    driver.click_point(xiangqi.parse_square("e2"))  # a move
    scene.session.play("h9g7")  # each side has moved: Red's clock runs
    driver.frames()
    drawn = app.draws
    # a second of Red's clock passes (the clock read at ``at`` is set back by it):
    # the shown time changes, so a frame is drawn; then none until the next one
    clock = scene.model.clock
    assert clock.running is not None
    clock.at -= 1.0
    driver.frames()
    assert app.draws == drawn + 1
    driver.frames(5)
    assert app.draws == drawn + 1
    # a resize draws
    driver.resize((900, 600))
    assert app.draws > drawn + 1


def test_a_window_made_smaller_than_the_minimum_grows_back_in_place(
    gui: Callable[..., Driver], monkeypatch: pytest.MonkeyPatch
) -> None:
    driver = open_session(gui, "xiangqi", (800, 540))
    window = driver.app.window.id

    def no_new_window(*args: object, **kwargs: object) -> None:
        raise AssertionError("the window was made again")

    # set_mode on a resize makes a new window (under X11 where the window manager
    # places it); the dummy driver cannot show that, so the call itself is refused
    monkeypatch.setattr(pygame.display, "set_mode", no_new_window)
    driver.resize((500, 400))
    driver.frames(2)
    assert driver.app.screen.get_size() == MIN_SIZE
    assert driver.app.window.id == window
    assert driver.scene.panel.rect.right == MIN_SIZE[0]
    check_inside_and_whole(driver)


class TextWatch:
    """Records every text the widgets cut with an ellipsis to fit, and every text
    drawn past the window's edge (neither should happen)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import sys

        from lanqi.gui import widgets

        self.cut: list[tuple[str, str]] = []
        self.outside: list[tuple[str, Any]] = []
        fit, draw = widgets.fit_text, widgets.draw_text

        def fitting(text: str, size: int, width: int, **kwargs: Any) -> str:
            shown = fit(text, size, width, **kwargs)
            if shown != text:
                self.cut.append((text, shown))
            return shown

        def drawing(surface: Any, text: str, *args: Any, **kwargs: Any) -> Any:
            rect = draw(surface, text, *args, **kwargs)
            if text.strip() and not surface.get_rect().contains(rect):
                self.outside.append((text, rect))
            return rect

        monkeypatch.setattr(widgets, "fit_text", fitting)
        for name, module in list(sys.modules.items()):
            if name.startswith("lanqi.gui") and getattr(module, "draw_text", None) is draw:
                monkeypatch.setattr(module, "draw_text", drawing)

    def clear(self) -> None:
        self.cut.clear()
        self.outside.clear()


def check_buttons(driver: Driver, buttons: list[Any]) -> None:
    window = pygame.Rect((0, 0), driver.app.screen.get_size())
    for button in buttons:
        assert window.contains(button.rect), (button.label, button.rect, window)
        assert not button.shown_label()[0].endswith("…"), button.label
    for i, a in enumerate(buttons):
        for b in buttons[i + 1 :]:
            assert not a.rect.colliderect(b.rect), (a.label, b.label)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_menu_connect_and_review_fit_every_window_shape(
    gui: Callable[..., Driver], size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    from lanqi.gui.scenes.base import ToConnect, ToOpenRecord

    texts = TextWatch(monkeypatch)
    driver = gui(size=size)
    w, h = size
    for destination in (ToMenu(), ToConnect(), ToOpenRecord(error=LONG_NOTICE)):
        driver.app.go(destination)
        driver.frames(2)
        scene = driver.scene
        buttons = list(scene.buttons)
        check_buttons(driver, buttons)
        lowest = max(b.rect.bottom for b in buttons)
        for field in getattr(scene, "fields", []):
            assert pygame.Rect(0, 0, w, h).contains(field[1].rect), field[0]
        assert lowest <= h, type(scene).__name__
        driver.shot(f"layout-{type(scene).__name__}-{w}x{h}")
    assert not texts.cut, texts.cut
    assert not texts.outside, texts.outside


def test_the_lobby_fits_every_window_shape(
    gui: Callable[..., Driver], server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lanqi.client.matchmaker import MatchmakerClient
    from lanqi.gui.scenes.lobby import LobbyScene
    from lanqi.protocol import Challenge, ChallengeCreated, Seek

    texts = TextWatch(monkeypatch)
    driver = gui(server=server.matchmaker_endpoint, name="Alice", connect=True, size=SIZES[0])
    driver.app.switch(driver.app.first_scene())
    driver.until(lambda: isinstance(driver.scene, LobbyScene), 10, "the lobby")
    scene = driver.scene
    link = driver.app.lobby
    driver.key(pygame.K_s)  # a seek of my own, so the lists have rows
    driver.until(lambda: bool(scene.seeks.rows) and bool(scene.players.rows), 10, "the rows")
    with MatchmakerClient(server.matchmaker_endpoint) as dave:
        dave.hello("Dave")  # and a challenge: its row and its buttons at the top
        dave.call(Challenge(to="Alice", seek=Seek(variant="xiangqi")), ChallengeCreated)
        driver.until(lambda: bool(link.challenges), 10, "Dave's challenge")
        assert len(scene.challenge_buttons) == 2
        for size in SIZES:
            driver.resize(size)
            driver.frames(2)
            check_buttons(driver, scene.buttons + scene.challenge_buttons)
            window = pygame.Rect((0, 0), size)
            for widget in (scene.players, scene.seeks, scene.games, scene.tournaments):
                assert window.contains(widget.rect)
                assert widget.rect.height >= 2 * widget.row_height
            driver.shot(f"layout-lobby-{size[0]}x{size[1]}")
            assert not texts.cut, (size, texts.cut)
            assert not texts.outside, (size, texts.outside)


def test_a_label_too_wide_for_its_button_shows_a_part_then_is_cut(
    gui: Callable[..., Driver],
) -> None:
    from lanqi.gui.widgets import Button

    gui()  # pygame and its fonts
    button = Button("同意悔棋 Allow takeback", lambda: None, key="t")
    button.rect = pygame.Rect(0, 0, 400, 30)
    assert button.shown_label()[0] == "同意悔棋 Allow takeback"
    button.rect = pygame.Rect(0, 0, 130, 30)
    assert button.shown_label()[0] == "Allow takeback"
    button.rect = pygame.Rect(0, 0, 85, 30)
    assert button.shown_label()[0] == "同意悔棋"
    button.rect = pygame.Rect(0, 0, 40, 30)
    assert button.shown_label()[0].endswith("…")


def test_what_changes_without_input_in_the_game_flow_is_drawn(
    gui: Callable[..., Driver],
) -> None:
    """The resign button's confirm state running out, the leave question opening
    and the menu's Resume row and error line are in the scenes' frame keys: each
    draws a frame when it changes outside an input event, and only then."""
    driver = open_session(gui, "xiangqi", (800, 540))
    scene, app = driver.scene, driver.app
    driver.play_xiangqi("h2e2")
    driver.key(pygame.K_r, unicode="r")  # the first press asks to confirm
    assert driver.button("resign").label.startswith("确认认输?")
    driver.frames(3)
    drawn = app.draws
    driver.frames(5)
    assert app.draws == drawn
    # the 3 s pass (the press is set back by them): the button is drawn as it was
    session = scene.session
    session._armed["resign"] -= 3.5
    driver.frames(2)
    assert driver.button("resign").label == "认输 Resign"
    assert app.draws > drawn
    drawn = app.draws
    assert scene.ask_before_leaving()  # the leave question, opened by no event
    driver.frames(2)
    assert scene.dialog is not None and app.draws > drawn
    drawn = app.draws
    driver.frames(5)
    assert app.draws == drawn
    driver.key(pygame.K_y, unicode="y")  # leave: the game is kept for Resume
    driver.frames(2)
    menu = driver.scene
    assert menu.unfinished is not None
    driver.frames(3)
    drawn = app.draws
    menu.error = "cannot resume that game: a test"
    driver.frames(2)
    assert app.draws > drawn
    drawn = app.draws
    menu.unfinished = None
    driver.frames(2)
    assert app.draws > drawn
