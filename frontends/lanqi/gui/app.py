"""The window, the frame loop and the scene machine.

One :class:`App` owns the window.  Each frame it takes the events with ONE
``pygame.event.get()``, hands them to the current scene, lets the lobby link
collect what its agent thread said, then updates and draws the scene.  A scene
is a small object with ``startup``, ``handle_event``, ``update(dt)``, ``draw``
and ``cleanup`` (:class:`~lanqi.gui.scenes.base.Scene`).  Scenes navigate by
destination: ``app.go(ToLobby())`` looks the destination's type up in
:data:`ROUTES`, makes the scene, and swaps it in between frames.  The app is the
only module that knows every scene; no scene imports another.

Nothing happens at import: :class:`App` calls ``pygame.init()`` when it is made.
Tests drive :meth:`App.step` themselves with posted events.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pygame

from lanqi.gui import fonts, theme
from lanqi.gui.connection import lobby_lost_text
from lanqi.gui.model import load_record
from lanqi.gui.net import LobbyAgent, LobbyLink, Note, Refused, derive_endpoint
from lanqi.gui.scenes import connect, game, lobby, menu, review
from lanqi.gui.scenes.base import (
    Destination,
    Host,
    Scene,
    ToConnect,
    ToLobby,
    ToMenu,
    ToOfflineGame,
    ToOpenRecord,
    ToResume,
    ToReview,
    ToSeat,
    ToWatch,
)
from lanqi.gui.settings import DEFAULT_SIZE, AppConfig, Settings
from lanqi.gui.sound import SoundPlayer
from lanqi.gui.widgets import draw_text, reset_cache

__all__ = ["DEFAULT_SIZE", "ROUTES", "App", "AppConfig", "Scene"]

log = logging.getLogger(__name__)

FPS = 60
MIN_SIZE = (640, 480)

D = TypeVar("D", bound=Destination)
Route = Callable[[Host, Destination], Scene]


def _route(kind: type[D], make: Callable[[Host, D], Scene]) -> tuple[type[Destination], Route]:
    def made(app: Host, destination: Destination) -> Scene:
        assert isinstance(destination, kind)
        return make(app, destination)

    return kind, made


#: destination type -> the function that makes its scene: the one place that
#: knows every scene
ROUTES: dict[type[Destination], Route] = dict(
    [
        _route(ToMenu, lambda app, to: menu.MenuScene()),
        _route(ToConnect, lambda app, to: connect.ConnectScene(auto=to.auto)),
        _route(ToLobby, lambda app, to: lobby.LobbyScene()),
        _route(ToOfflineGame, game.offline_game),
        _route(ToResume, game.resumed_game),
        _route(ToSeat, game.seated_game),
        _route(ToWatch, game.watched_game),
        _route(ToReview, game.review_game),
        _route(ToOpenRecord, lambda app, to: review.OpenScene(error=to.error)),
    ]
)


class App:
    """The GUI: a window and the scene shown in it."""

    def __init__(self, config: AppConfig) -> None:
        self.config = config
        # only what the GUI uses: the audio device is opened by the first game screen
        # (lanqi.gui.sound), not here
        pygame.display.init()
        pygame.font.init()
        pygame.display.set_caption("lanqi 象棋 · 五子棋")
        self.screen = pygame.display.set_mode(config.size, pygame.RESIZABLE)
        self.clock = pygame.time.Clock()
        self.settings = Settings.load(config.data_dir)
        if config.server:
            self.settings.server = config.server
        if config.name:
            self.settings.name = config.name
        # --events, --referee, --referee-events hold for this run, and are not saved:
        # an override kept from another server would be asked first there

        self.sound = SoundPlayer(self.settings)
        self.lobby: LobbyLink | None = None
        self.scene: Scene | None = None
        self._next: Scene | None = None
        self.running = True
        self.frames = 0
        self.notices: list[tuple[str, bool, float]] = []

    # ------------------------------------------------------------ paths

    @property
    def data_dir(self) -> Path:
        return self.config.data_dir

    @property
    def games_dir(self) -> Path:
        return self.config.data_dir / "games"

    # ------------------------------------------------------------ scenes

    def switch(self, scene: Scene) -> None:
        """Show ``scene`` from the next frame on."""
        self._next = scene

    def make(self, destination: Destination) -> Scene:
        """The scene for ``destination`` (not shown yet); raises what its route raises."""
        return ROUTES[type(destination)](self, destination)

    def go(self, destination: Destination) -> None:
        """Show the scene for ``destination`` from the next frame on."""
        self.switch(self.make(destination))

    def quit(self) -> None:
        self.running = False

    def _swap(self) -> None:
        scene, self._next = self._next, None
        if scene is None:
            return
        if self.scene is not None:
            self.scene.cleanup()
        self.scene = scene
        scene.startup(self)

    def first_scene(self) -> Scene:
        """The scene the command line asks for."""
        return self.make(self.first_destination())

    def first_destination(self) -> Destination:
        config = self.config
        if config.review is not None:
            try:
                games = load_record(config.review)
            except (OSError, ValueError) as exc:
                return ToOpenRecord(error=f"{config.review}: {exc}")
            return ToReview(tuple(games), source=config.review.name)
        if config.offline:
            return ToOfflineGame(
                config.offline,
                options=dict(config.options),
                ai=config.ai,
                side=config.side,
                fen=config.fen,
                time_control=config.time,
                ai_time_ms=config.ai_time_ms,
            )
        if config.connect or config.server:
            return ToConnect(auto=config.connect)
        return ToMenu()

    # ------------------------------------------------------------ lobby

    def connect(self, server: str, name: str, *, claim: str | None = None) -> LobbyLink:
        """Start a lobby agent for ``server`` as ``name`` (closing any other);
        ``claim``: a roster entry's claim code."""
        self.disconnect()
        settings, config = self.settings, self.config
        # events and referees: the ones the server names, after any override
        referee = config.referee or settings.referee or None
        referee_events = config.referee_events or settings.referee_events or None
        if referee and not referee_events:
            referee_events = derive_endpoint(referee, 1)
        agent = LobbyAgent(
            server,
            config.events or settings.events or None,
            name,
            session=settings.session_for(server, name),
            claim=claim,
            referee=referee,
            referee_pub=referee_events,
        )
        link = LobbyLink(agent, server)

        def remember(welcomed_name: str, session: str) -> None:
            settings.remember_session(server, welcomed_name, session)
            settings.save()

        link.on_session = remember
        self.lobby = link
        agent.start()
        return link

    @property
    def referee_endpoints(self) -> tuple[str, str] | None:
        """Where to watch games: (requests, events) of the referee the lobby uses."""
        return self.lobby.agent.referee_endpoints if self.lobby is not None else None

    def disconnect(self) -> None:
        if self.lobby is not None:
            self.lobby.close()
            self.lobby = None

    # ------------------------------------------------------------ frames

    def notice(self, text: str, *, error: bool = False) -> None:
        """A message shown over any scene for a few seconds."""
        self.notices.append((text, error, time.monotonic()))
        del self.notices[:-4]

    def resize(self, size: tuple[int, int]) -> None:
        w, h = max(MIN_SIZE[0], size[0]), max(MIN_SIZE[1], size[1])
        self.screen = pygame.display.get_surface() or self.screen
        if (w, h) != self.screen.get_size():
            self.screen = pygame.display.set_mode((w, h), pygame.RESIZABLE)
        if self.scene is not None:
            self.scene.layout((w, h))

    def step(self, dt: float = 1 / FPS) -> bool:
        """One frame: events, network, update, draw.  False once the app should quit."""
        self._swap()
        events = pygame.event.get()
        for event in events:
            if event.type == pygame.QUIT:
                if self.scene is None or self.scene.close_requested():
                    self.running = False
            elif event.type == pygame.VIDEORESIZE:
                self.resize((event.w, event.h))
            elif event.type == pygame.WINDOWSIZECHANGED:
                self.resize((event.x, event.y))
            elif self.scene is not None:
                self.scene.handle_event(event)
        if self.lobby is not None:
            self.lobby.pump()
            if self.scene is not None and not self.scene.shows_lobby_notes:
                while self.lobby.notes:
                    note = self.lobby.notes.popleft()
                    error = isinstance(note, Refused) or (isinstance(note, Note) and note.error)
                    text = note.text if isinstance(note, Note) else f"{note.code}: {note.msg}"
                    self.notice(text, error=error)
        if self.scene is not None:
            self.scene.update(dt)
            self.scene.draw(self.screen)
        self._draw_notices()
        pygame.display.flip()
        self.frames += 1
        self._swap()
        return self.running

    def _draw_notices(self) -> None:
        now = time.monotonic()
        self.notices = [n for n in self.notices if now - n[2] < 5.0]
        shown = [(text, error) for text, error, _ in reversed(self.notices)]
        lost = self.lobby.lost if self.lobby is not None else None
        if lost is not None:  # steady while it lasts, not a note that fades
            shown.insert(0, (lobby_lost_text(lost, now), True))
        w, _ = self.screen.get_size()
        y = 8
        for text, error in shown:
            rect = pygame.Rect(0, 0, min(w - 40, 12 + 9 * len(text)), 30)
            rect.midtop = (w // 2, y)
            pygame.draw.rect(self.screen, theme.PANEL_DARK, rect, border_radius=6)
            pygame.draw.rect(self.screen, theme.ERROR if error else theme.ACCENT, rect, 1, 6)
            draw_text(
                self.screen,
                text,
                rect.center,
                15,
                theme.ERROR if error else theme.TEXT,
                anchor="center",
                max_width=rect.width - 12,
            )
            y += 36

    def run(self) -> int:
        """The frame loop, at 60 frames a second until the window closes."""
        if self.scene is None and self._next is None:
            self.switch(self.first_scene())
        try:
            while self.running:
                dt = self.clock.tick(FPS) / 1000.0
                self.step(dt)
        finally:
            self.close()
        return 0

    def close(self) -> None:
        if self.scene is not None:
            self.scene.cleanup()
            self.scene = None
        self.disconnect()
        self.settings.save()
        self.sound.close()
        fonts.reset()
        reset_cache()
        pygame.quit()
