"""Fixtures for the GUI tests: a real App on SDL's dummy video driver, driven by posted events.

``gui`` makes an :class:`~lanqi.gui.app.App` (data directory under ``tmp_path``) and
wraps it in a :class:`Driver` that posts mouse and key events, runs frames,
samples pixels and saves screenshots to ``tmp_path/screens``.  With
``LANQI_UPDATE_SCREENSHOTS=1`` the screenshots named for the docs are also
written, scaled down, to ``docs/images/``.

The tests skip when pygame is not installed (it is the ``gui`` extra).
"""

from __future__ import annotations

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["SDL_AUDIODRIVER"] = "dummy"
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from lanqi.client.referee import RefereeClient
    from lanqi.protocol import TimeControl
    from lanqi.server.embedded import EmbeddedServer

REPO = Path(__file__).resolve().parents[2]
DOCS_IMAGES = REPO / "docs" / "images"
DOCS_SIZE = (900, 600)

Color = tuple[int, int, int]


def near(color: Color, target: Color, tolerance: int = 40) -> bool:
    return sum(abs(a - b) for a, b in zip(color, target, strict=True)) <= tolerance


def is_wood(color: Color) -> bool:
    """The board's colour (with its grain), not a piece, a stone or a mark."""
    r, g, b = color
    return r > 170 and 120 < g < 215 and b < 160 and r > g > b


class Driver:
    """Runs an App frame by frame and plays the user."""

    def __init__(self, app: Any, shots: Path) -> None:
        self.app = app
        self.shots = shots

    # ------------------------------------------------------------ frames

    @property
    def scene(self) -> Any:
        return self.app.scene

    def frames(self, count: int = 1) -> None:
        for _ in range(count):
            self.app.step(1 / 60)

    def until(self, predicate: Callable[[], bool], timeout: float = 10.0, what: str = "") -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what or predicate}")
            self.app.step(1 / 60)
            time.sleep(0.002)

    def resize(self, size: tuple[int, int], *, frames: int = 2) -> None:
        """Resize the window as a window manager does (the app hears of it by events)."""
        self.app.window.size = size
        self.frames(frames)

    # ------------------------------------------------------------ input

    def post(self, kind: int, **attrs: Any) -> None:
        import pygame

        pygame.event.post(pygame.event.Event(kind, **attrs))

    def enter_lobby(self) -> None:
        """Open the first scene (the connect screen, connecting) and wait for the lobby."""
        from lanqi.gui.scenes.lobby import LobbyScene

        self.app.switch(self.app.first_scene())
        self.until(lambda: isinstance(self.app.scene, LobbyScene), 10, "the lobby")

    def click_row(self, widget: Any, index: int) -> None:
        """Click row ``index`` of a scrolling list."""
        rect = widget.rect
        y = rect.y + (index - widget.scroll) * widget.row_height + widget.row_height // 2
        self.click((rect.x + 20, y))

    def click(self, pos: tuple[int, int], *, frames: int = 1) -> None:
        import pygame

        self.post(pygame.MOUSEBUTTONDOWN, pos=pos, button=1)
        self.post(pygame.MOUSEBUTTONUP, pos=pos, button=1)
        self.frames(frames)

    def drag(self, start: tuple[int, int], end: tuple[int, int]) -> None:
        import pygame

        self.post(pygame.MOUSEBUTTONDOWN, pos=start, button=1)
        self.frames()
        middle = ((start[0] + end[0]) // 2, (start[1] + end[1]) // 2)
        for pos in (middle, end):
            self.post(pygame.MOUSEMOTION, pos=pos, rel=(0, 0), buttons=(1, 0, 0))
            self.frames()
        self.post(pygame.MOUSEBUTTONUP, pos=end, button=1)
        self.frames()

    def key(self, key: int, *, unicode: str = "", mod: int = 0, frames: int = 1) -> None:
        import pygame

        self.post(pygame.KEYDOWN, key=key, mod=mod, unicode=unicode, scancode=0)
        self.post(pygame.KEYUP, key=key, mod=mod, unicode=unicode, scancode=0)
        self.frames(frames)

    def type(self, text: str) -> None:
        import pygame

        self.post(pygame.TEXTINPUT, text=text)
        self.frames()

    def button(self, action_id: str) -> Any:
        for button in self.scene.panel.buttons:
            if button.id == action_id:
                return button
        ids = [b.id for b in self.scene.panel.buttons]
        raise AssertionError(f"no button {action_id!r}: {ids}")

    def press(self, action_id: str, *, frames: int = 1) -> None:
        button = self.button(action_id)
        assert button.enabled, f"button {action_id} is disabled"
        self.click(button.rect.center, frames=frames)

    def click_point(self, point: int) -> None:
        self.click(self.scene.view.center(point))

    def play_xiangqi(self, iccs: str, how: str = "click") -> None:
        """Make a move the way a person does: two clicks, a drag or the keyboard."""
        from lanqi.games.xiangqi import parse_square

        frm, to = parse_square(iccs[:2]), parse_square(iccs[2:])
        view = self.scene.view
        if how == "drag":
            self.drag(view.center(frm), view.center(to))
        elif how == "keys":
            self.keyboard_to(frm)
            self.key(self._pygame().K_RETURN)
            self.keyboard_to(to)
            self.key(self._pygame().K_SPACE)
        else:
            self.click(view.center(frm))
            self.click(view.center(to))

    def keyboard_to(self, point: int) -> None:
        """Walk the keyboard cursor to ``point`` with the arrow keys."""
        pygame = self._pygame()
        scene = self.scene
        controller = scene.controller
        if controller.cursor is None or not controller.keyboard:
            self.key(pygame.K_UP)  # the first arrow shows the cursor
        for _ in range(40):
            col, row = scene.view.col_row(controller.cursor)
            goal_col, goal_row = scene.view.col_row(point)
            if (col, row) == (goal_col, goal_row):
                return
            if col != goal_col:
                self.key(pygame.K_RIGHT if goal_col > col else pygame.K_LEFT)
            else:
                self.key(pygame.K_DOWN if goal_row > row else pygame.K_UP)
        raise AssertionError("the cursor did not get there")

    @staticmethod
    def _pygame() -> Any:
        import pygame

        return pygame

    # ------------------------------------------------------------ pixels

    def pixel(self, pos: tuple[int, int]) -> Color:
        color = self.app.screen.get_at(pos)
        return (color.r, color.g, color.b)

    def check_xiangqi_board(self, board: Any) -> None:
        """Red and Black discs where the position has pieces, wood where it has none
        (but under a banner, which goes only where no piece is)."""
        from lanqi.games.xiangqi import Color as Side
        from lanqi.gui import theme

        view = self.scene.view
        banner = getattr(self.scene, "banner_rect", None)
        for sq in range(90):
            probe = view.piece_probe(sq)
            color = self.pixel(probe)
            piece = board.piece_at(sq)
            if piece is None and banner is not None and banner.collidepoint(probe):
                continue
            if piece is None:
                assert not near(color, theme.RED, 60), (sq, color)
                assert not near(color, theme.BLACK, 60), (sq, color)
            elif piece.color is Side.RED:
                assert near(color, theme.RED), (sq, piece, color)
            else:
                assert near(color, theme.BLACK), (sq, piece, color)

    def check_last_move(self, iccs: str) -> None:
        from lanqi.games.xiangqi import parse_square
        from lanqi.gui import theme

        view = self.scene.view
        for name in (iccs[:2], iccs[2:]):
            color = self.pixel(view.last_move_probe(parse_square(name)))
            assert near(color, theme.LAST_MOVE, 12), (name, color)

    def check_gomoku_board(self, board: Any) -> None:
        from lanqi.games import gomoku

        view = self.scene.view
        n = board.size
        for point in range(n * n):
            stone = board.stone_at(point % n, point // n)
            color = self.pixel(view.piece_probe(point))
            brightness = sum(color) / 3
            if stone is gomoku.Color.BLACK:
                assert brightness < 90, (point, color)
            elif stone is gomoku.Color.WHITE:
                assert brightness > 170, (point, color)

    # ------------------------------------------------------------ screenshots

    def shot(self, name: str, *, docs: bool = False) -> Path:
        import pygame

        self.shots.mkdir(parents=True, exist_ok=True)
        path = self.shots / f"{name}.png"
        pygame.image.save(self.app.screen, str(path))
        if docs and os.environ.get("LANQI_UPDATE_SCREENSHOTS") == "1":
            # drawn again at a small size (not scaled down: crisp, and small files)
            DOCS_IMAGES.mkdir(parents=True, exist_ok=True)
            small = pygame.Surface(DOCS_SIZE)
            scene = self.app.scene
            scene.layout(DOCS_SIZE)
            scene.draw(small)
            scene.layout(self.app.screen.get_size())
            pygame.image.save(small, str(DOCS_IMAGES / f"{name}.png"))
        return path


#: a short xiangqi game that ends in checkmate (Red mates with a9c9)
MATE_LINE = [
    "b0c2", "b9a7", "b2a2", "f9e8", "a2a6", "g6g5", "a6a9", "b7b6",
    "a0b0", "c6c5", "b0b6", "h7h5", "b6e6", "a7b9", "a9c9",
]  # fmt: skip


@pytest.fixture
def mate_line() -> list[str]:
    """:data:`MATE_LINE`, a fresh copy."""
    return list(MATE_LINE)


@pytest.fixture
def offline(gui: Callable[..., Driver]) -> Callable[..., Driver]:
    """``offline(variant, **destination)``: a new GUI showing an offline game."""

    def start(variant: str, **kwargs: Any) -> Driver:
        from lanqi.gui.scenes.base import ToOfflineGame

        driver = gui()
        driver.app.go(ToOfflineGame(variant, **kwargs))
        driver.frames(2)
        return driver

    return start


@pytest.fixture
def gui(tmp_path: Path) -> Iterator[Callable[..., Driver]]:
    """Make an App (``gui(**config)``) and get a :class:`Driver`; closed after the test."""
    pytest.importorskip("pygame")
    from lanqi.gui.app import App, AppConfig

    apps: list[Any] = []

    def make(**config: Any) -> Driver:
        config.setdefault("data_dir", tmp_path / "data")
        config.setdefault("size", (1180, 780))
        app = App(AppConfig(**config))
        app.settings.animate = False  # still frames: pixels are checked right after a move
        apps.append(app)
        return Driver(app, tmp_path / "screens")

    yield make
    for app in apps:
        app.close()


def first_seat(
    created: Any,
    referee: tuple[str, str],
    variant: str,
    players: list[str],
    time_control: Any = None,
) -> Any:
    """The :class:`~lanqi.protocol.Assignment` of seat 0 in a game ``created`` by a
    scripted client on ``referee`` (its request and event endpoints)."""
    from lanqi.protocol import Assignment, TimeControl

    return Assignment(
        game_id=created.game_id,
        referee=referee[0],
        referee_pub=referee[1],
        seat=0,
        token=created.tokens[0],
        variant=variant,
        players=players,
        time_control=time_control or TimeControl(),
    )


@pytest.fixture
def seat_zero() -> Callable[..., Any]:
    """:func:`first_seat`, for tests that script a game their own way."""
    return first_seat


class ScriptedGame:
    """The GUI on seat 0 of a game on a real referee; the test plays seat 1 through
    ``script`` (a :class:`~lanqi.client.referee.RefereeClient`)."""

    def __init__(
        self, driver: Driver, script: RefereeClient, game_id: str, tokens: list[str]
    ) -> None:
        self.driver = driver
        self.script = script
        self.game_id = game_id
        self.tokens = tokens

    @property
    def scene(self) -> Any:
        return self.driver.scene

    def wait(self, predicate: Callable[[], object], what: str) -> None:
        """Run frames until ``predicate``, keeping the scripted seat alive."""

        def check() -> bool:
            self.script.heartbeat(self.game_id, self.tokens[1])
            return bool(predicate())

        self.driver.until(check, 10, what)

    def reply(self, move: str) -> None:
        """Seat 1 plays ``move``; returns in the frame the GUI shows it (the frame in
        which a premove would have been sent or dropped)."""
        ply = self.script.sync(self.game_id).ply
        self.script.move(self.game_id, self.tokens[1], ply, move)
        self.wait(lambda: self.scene.model.ply > ply, f"the reply {move}")

    def referee_moves(self) -> list[str]:
        return list(self.script.sync(self.game_id).moves)


@pytest.fixture
def scripted_game(
    gui: Callable[..., Driver], server: EmbeddedServer
) -> Callable[..., AbstractContextManager[ScriptedGame]]:
    """``with scripted_game("xiangqi", time_control=tc) as game:`` a casual game
    between the GUI (seat 0, "Alice") and the test (seat 1, "Script")."""
    from lanqi.client.referee import RefereeClient
    from lanqi.gui.scenes.base import ToSeat

    referee, referee_pub = server.referee.endpoint, server.referee.pub_endpoint

    @contextmanager
    def start(variant: str, *, time_control: TimeControl | None = None) -> Iterator[ScriptedGame]:
        with RefereeClient(referee, referee_pub) as script:
            players = ["Alice", "Script"]
            created = script.create_game(
                variant, players=players, time_control=time_control, casual=True
            )
            seat = first_seat(created, (referee, referee_pub), variant, players, time_control)
            driver = gui()
            driver.app.go(ToSeat(seat))
            driver.frames()
            script.join(created.game_id, 1, created.tokens[1])
            game = ScriptedGame(driver, script, created.game_id, list(created.tokens))
            game.wait(lambda: game.scene.model.status == "active", "the start")
            yield game

    return start


@pytest.fixture(autouse=True)
def _no_error_logs(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """A GUI test fails on an ERROR log record (a swallowed exception, say)."""
    caplog.set_level(logging.WARNING)
    yield
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]
