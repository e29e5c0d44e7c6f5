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

os.environ["SDL_VIDEODRIVER"] = os.environ.get("LANQI_GUI_TEST_VIDEODRIVER", "dummy")
os.environ["SDL_AUDIODRIVER"] = "dummy"
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import ast
import functools
import importlib.util
import logging
import re
import string
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from lanqi.client.referee import RefereeClient
    from lanqi.gui.model import GameModel
    from lanqi.protocol import TimeControl
    from lanqi.server.embedded import EmbeddedServer

REPO = Path(__file__).resolve().parents[2]
DOCS_IMAGES = REPO / "docs" / "images"
DOCS_SIZE = (900, 600)

Color = tuple[int, int, int]


def follow(model: GameModel, moves: list[str], **changes: Any) -> None:
    """Show ``model`` the state a table would fold: its game after ``moves`` (from
    the start), with ``changes`` (``status=``, ``result=``...)."""
    model.show(model.state._replace(moves=tuple(moves), **changes))


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
        TYPED.add(text)  # what a player types is data wherever it shows
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


# ================================================================ every line from the catalogue

#: the text the tests typed into fields (names, addresses, codes): data
TYPED: set[str] = set()

#: characters that are data on the board and in moves: pieces, numerals, notation
_DATA_CJK = set(
    "帥帅將将仕士相象傌馬马俥車车炮砲包兵卒楚河漢汉界一二三四五六七八九十进進退平前后後中"
)
_DATA_CJK |= set("１２３４５６７８９０")
#: words that are data, not sentences: names the tests give players, games' and
#: options' names, notations, keys, the program's name
_DATA_WORDS = {
    *("Alice", "Bob", "Ann", "Zed", "Script", "Randy", "Carol", "Dave", "Eve", "Mallory"),
    *("xiangqi", "Xiangqi", "gomoku", "Gomoku", "renju", "freestyle", "standard", "swiss"),
    *("WXF", "ICCS", "ABC", "PGN", "lanqi", "tcp", "localhost", "Home", "End", "Esc"),
    *("Enter", "Space", "Tab", "page", "up", "down"),
    *("象棋", "五子棋", "汉字", "中文"),  # the games' names; the pieces' and notation's values
}
_SEPARATORS = re.compile(r"[\s·:;,()!?/–—…\-\[\]\"'@|+=×◀▶↑↓←→●○*#.]+")
_CJK = re.compile(r"[\u3400-\u9fff]")


def _is_data(token: str) -> bool:
    """A token a player reads as data: a number, clock or coordinate, a move, a
    name, a piece; not a word of a sentence."""
    if not token or any(ch.isdigit() for ch in token) or len(token) <= 2:
        return True
    if _CJK.search(token):
        return token in _DATA_WORDS or all(ch in _DATA_CJK for ch in token)
    return token in _DATA_WORDS or token.lower().startswith("lanqi")


@functools.cache
def _templates() -> list[re.Pattern[str]]:
    """Each catalogue line as a pattern, its fields matching anything (the lines with
    fields; the others are :func:`_fixed_lines`)."""
    from lanqi.i18n import CATALOGUE

    patterns: list[tuple[int, re.Pattern[str]]] = []
    for text in CATALOGUE.values():
        for line in {text.zh, text.en, text.en_plural} - {""}:
            parts = list(string.Formatter().parse(line))
            if not any(name for _, name, _, _ in parts):
                continue
            literal = "".join(lit for lit, _, _, _ in parts)
            if len(re.sub(r"[\W\d_]", "", literal)) < 2:
                continue  # no words of its own: "{name}: {text}"
            regex = "".join(re.escape(lit) + ("(.+?)" if name else "") for lit, name, _, _ in parts)
            patterns.append((len(literal), re.compile(regex)))
    return [p for _, p in sorted(patterns, key=lambda lp: -lp[0])]


@functools.cache
def _fixed_lines() -> frozenset[str]:
    """The catalogue's lines without fields, in each language and both together."""
    from lanqi.i18n import CATALOGUE, en, tr, zh

    lines: set[str] = set()
    for key, text in CATALOGUE.items():
        if "{" not in text.zh + text.en:
            lines |= {zh(key), en(key), tr(key)}
    return frozenset(lines)


def _replace_all(text: str, lines: list[str]) -> str:
    """``text`` with each of ``lines`` in it (longest first) made a NUL."""
    for line in lines:
        if line in text:
            text = text.replace(line, "\x00")
    return text


def _tails(line: str) -> list[str]:
    """The ends of ``line`` that begin a word, three characters or more (what a wrap
    leaves on the next line)."""
    return [line[i:] for i in range(1, len(line) - 2) if not line[i - 1].isalnum()]


def _heads(line: str, *, within_words: bool = False) -> list[str]:
    """The starts of ``line`` that end a word, four characters or more (what a wrap
    keeps on the first line); any start with ``within_words`` (what a fit keeps)."""
    return [line[:i] for i in range(4, len(line)) if within_words or not line[i].isalnum()]


class CatalogueWatch:
    """Records the lines the GUI draws and the lines the catalogue made, and tells
    which drawn lines hold words the catalogue did not make (issue 19)."""

    def __init__(self) -> None:
        self.drawn: dict[str, None] = {}
        self.made: set[str] = set()
        self.data: set[str] = set()  # chat text and names typed in the test
        #: the words of the test's own strings: the names, chat and files it made up
        self.words: set[str] = set()

    def leftover(self, text: str) -> str:
        """``text`` without what the catalogue made: its entries (any field filled
        in), the lines made while the test ran, and the pieces of one that wrapping or
        fitting cut at either end."""
        fitted = text.endswith("…")  # cut to fit: its last word may be cut too
        text = text.rstrip("…")
        made = sorted((m for m in self.made | _fixed_lines() if m), key=len, reverse=True)
        if any(text in m for m in made) or text in self.data:
            return ""
        # whole lines first, or the pieces at the ends first (a whole short line may
        # sit inside a cut one, or a cut piece inside a whole one): what leaves less
        return min(
            (
                self._without(text, made, whole_first=order, fitted=fitted)
                for order in (True, False)
            ),
            key=lambda rest: len(re.sub(r"[\W_]", "", rest)),
        )

    def _without(self, text: str, made: list[str], *, whole_first: bool, fitted: bool) -> str:
        if whole_first:
            text = _replace_all(text, made)
        # a line wrapped or fitted: a made line's tail first, its head last; the
        # longest such piece that is whole words (a short one must not eat a name)
        head = max(
            (
                len(piece)
                for m in made
                for piece in _tails(m)
                if text.startswith(piece)
                and (len(piece) == len(text) or not text[len(piece)].isalnum())
            ),
            default=0,
        )
        text = text[head:]
        tail = max(
            (
                len(piece)
                for m in made
                for piece in _heads(m, within_words=fitted)
                if text.endswith(piece)
                and (len(piece) == len(text) or not text[-len(piece) - 1].isalnum())
            ),
            default=0,
        )
        text = ("\x00" if head else "") + text[: len(text) - tail] + ("\x00" if tail else "")
        text = _replace_all(text, made)
        for pattern in _templates():
            text = pattern.sub(lambda m: "\x00" + "\x00".join(m.groups()) + "\x00", text)
        for d in sorted(self.data | TYPED, key=len, reverse=True):
            text = text.replace(d, "\x00")
        return text

    def shown_as_is(self, text: str) -> None:
        """``text`` comes from elsewhere and is shown as it is (SDL's error, a record
        reader's reason): its words are data in this test."""
        self.words.update(_SEPARATORS.split(text))

    def words_not_from_the_catalogue(self) -> dict[str, list[str]]:
        bad: dict[str, list[str]] = {}
        for text in self.drawn:
            rest = re.sub(r"\S*[/\\]\S*", " ", self.leftover(text))  # paths are data
            rest = re.sub(r"\S+\.(?:pgn|txt|psq|json)\b", " ", rest)  # so are file names
            tokens = _SEPARATORS.split(rest.replace("\x00", " "))
            words = [t for t in tokens if not _is_data(t) and t not in self.words]
            if words:
                bad[text] = words
        return bad


@pytest.fixture(autouse=True)
def catalogue_only(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[CatalogueWatch]:
    """Every GUI test checks, as it drives the screens, that each line drawn is made
    by the message catalogue or is data (names, moves, numbers, clocks, coordinates,
    chat): a player-facing line missing from the catalogue fails the test."""
    watch = CatalogueWatch()
    for source in (request.path, Path(__file__)):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                watch.words.update(_SEPARATORS.split(node.value))
    if "pygame" not in sys.modules and importlib.util.find_spec("pygame") is None:
        yield watch
        return
    from lanqi import i18n
    from lanqi.gui import board_view, fonts, widgets

    last_zh = [""]

    def recording(function: Callable[..., str]) -> Callable[..., str]:
        def wrapper(*args: Any, **kwargs: Any) -> str:
            line = function(*args, **kwargs)
            watch.made.add(line)
            # tr() is zh() then en() joined: a line made by a ``tr`` this fixture did not
            # patch (seen when tests/gui/test_online.py runs alone) is made of these
            if function is originals["zh"]:
                last_zh[0] = line
            elif function is originals["en"] and last_zh[0]:
                watch.made.add(f"{last_zh[0]} {line}")
            return line

        return wrapper

    originals: dict[str, Callable[..., str]] = {"tr": i18n.tr, "zh": i18n.zh, "en": i18n.en}
    for module in [m for name, m in sys.modules.items() if name.startswith("lanqi.")]:
        for name, function in originals.items():
            if getattr(module, name, None) is function:
                monkeypatch.setattr(module, name, recording(function))
    from lanqi.protocol import ChatLine

    chat_line = ChatLine.__init__

    def said(line: ChatLine, *args: Any, **kwargs: Any) -> None:
        chat_line(line, *args, **kwargs)
        watch.data.update({line.name or "?", line.text})  # what people type is data

    monkeypatch.setattr(ChatLine, "__init__", said)
    render = fonts.render  # what widgets draws its lines with

    def drawn(text: str, *args: Any) -> Any:
        watch.drawn[text] = None
        return render(text, *args)

    monkeypatch.setattr(widgets, "render", drawn)
    widgets.reset_cache()  # a line drawn by an earlier test is drawn again, and seen
    del board_view  # the board's own characters are pieces and coordinates: data
    yield watch
    widgets.reset_cache()
    if request.node.get_closest_marker("not_catalogue") is None:
        bad = watch.words_not_from_the_catalogue()
        assert not bad, "lines drawn with words not from lanqi.i18n's catalogue:\n" + "\n".join(
            f"  {text!r}: {words}" for text, words in bad.items()
        )
