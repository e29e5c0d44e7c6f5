"""The window, the frame loop and the scene machine.

One :class:`App` owns the window.  Each frame it takes the events with ONE
``pygame.event.get()``, hands them to the current scene, lets the lobby link
collect what its agent thread said, then updates and draws the scene.  A scene
is a small object with ``startup``, ``handle_event``, ``update(dt)``, ``draw``
and ``cleanup`` (:class:`~lanqi.gui.scenes.base.Scene`).  Scenes navigate by
destination: ``app.go(ToLobby())`` looks the destination's type up in
:data:`ROUTES`, makes the scene, and swaps it in between frames.  The app is the
only module that knows every scene; no scene imports another.

A frame is drawn only when its picture may have changed: an input event came,
the scene or the window size changed, a notice came or went, or the scene's
:meth:`~lanqi.gui.scenes.base.Scene.frame_key` (what its picture depends on
besides input: the model's version, the clocks' shown seconds, an animation's
progress...) differs from the last drawn frame's.  While frames are drawn the
loop runs at :data:`FPS`; while nothing changes it ticks at :data:`IDLE_FPS`
(to read the network and the clocks) and draws nothing.

Nothing happens at import: :class:`App` calls ``pygame.init()`` when it is made.
Tests drive :meth:`App.step` themselves with posted events.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import TypeVar

import pygame
from pygame._sdl2.video import Window

from lanqi.gui import fonts, theme
from lanqi.gui.connection import lobby_lost_text
from lanqi.gui.model import load_record, record_error
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
from lanqi.gui.widgets import Same, draw_text, fit_size, reset_cache
from lanqi.security import KnownServers

__all__ = ["DEFAULT_SIZE", "ROUTES", "App", "AppConfig", "Scene"]

log = logging.getLogger(__name__)

#: frames a second while the picture changes (input, animations, running clocks under 10 s)
FPS = 60
#: ticks a second while it does not: the network and the clocks are still read
IDLE_FPS = 20
#: the smallest window the layouts are made for; a smaller one is grown back to it
MIN_SIZE = (640, 540)

#: seconds an app notice stays
NOTICE_S = 5.0
#: events that change nothing on the screen (the window's own bookkeeping)
QUIET_EVENTS = frozenset(
    {pygame.ACTIVEEVENT, pygame.WINDOWMOVED, pygame.AUDIODEVICEADDED, pygame.KEYMAPCHANGED}
)

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
        size = (max(MIN_SIZE[0], config.size[0]), max(MIN_SIZE[1], config.size[1]))
        self.screen = pygame.display.set_mode(size, pygame.RESIZABLE)
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
        #: frames actually drawn (``frames`` counts every step)
        self.draws = 0
        self.notices: list[tuple[str, bool, float]] = []
        #: where the last frame drew each notice
        self.notice_rects: list[pygame.Rect] = []
        #: something outside the scene's frame key changed: draw the next frame
        self.dirty = True
        #: the last step drew a frame (the loop then runs at full speed)
        self.drew = True
        #: draw every frame whether it changed or not (the loop as it was, which
        #: ``lanqi bench gui-idle`` measures as its baseline)
        self.draw_every_frame = False
        self._drawn_key: Hashable = None
        self._window: Window | None = None

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
        log.debug("screen: %s", type(scene).__name__)

    def first_scene(self) -> Scene:
        """The scene the command line asks for."""
        return self.make(self.first_destination())

    def first_destination(self) -> Destination:
        config = self.config
        if config.review is not None:
            try:
                games = load_record(config.review)
            except (OSError, ValueError) as exc:
                return ToOpenRecord(error=record_error(config.review, exc))
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
            saved=settings.sessions,  # looked up under the server's key once it is known
            claim=claim,
            referee=referee,
            referee_pub=referee_events,
            known=KnownServers.of(self.config.data_dir),
        )
        link = LobbyLink(agent, server)

        def remember(server_id: str, welcomed_name: str, session: str) -> None:
            settings.remember_session(server_id, welcomed_name, session, address=server)
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
        self.dirty = True

    def resize(self, size: tuple[int, int]) -> None:
        """Lay the scene out for the window's new size.

        The window is never made again (``set_mode`` would re-create it, and a window
        manager may place the new one elsewhere): a window dragged below
        :data:`MIN_SIZE` is grown back in place, and laid out for the minimum
        meanwhile."""
        w, h = max(MIN_SIZE[0], size[0]), max(MIN_SIZE[1], size[1])
        if (w, h) != tuple(size):
            self.window.size = (w, h)
        self.screen = pygame.display.get_surface() or self.screen
        self.dirty = True
        if self.scene is not None:
            self.scene.layout((w, h))

    @property
    def window(self) -> Window:
        """The window as SDL sees it (its size can be set without making it again).

        One object for the app's life: pygame keeps a borrowed pointer to it in the
        SDL window, so a second one made and dropped later leaves that pointer
        dangling (and the process crashes at the next resize)."""
        if self._window is None:
            self._window = Window.from_display_module()
        return self._window

    def _frame_key(self) -> Hashable:
        """What the next frame would show besides what input changes (None: no scene)."""
        now = time.monotonic()
        notices = sum(1 for n in self.notices if now - n[2] < NOTICE_S)
        lost = self.lobby.lost if self.lobby is not None else None
        lost_line = lobby_lost_text(lost, now) if lost is not None else ""
        scene_key = self.scene.frame_key() if self.scene is not None else None
        return (Same(self.scene), notices, lost_line, scene_key)

    def step(self, dt: float = 1 / FPS) -> bool:
        """One frame: events, network, update, and a draw if the picture changed.
        False once the app should quit."""
        self._swap()
        events = pygame.event.get()
        for event in events:
            if event.type in QUIET_EVENTS:
                continue
            self.dirty = True
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
        key = self._frame_key()
        self.drew = self.dirty or self.draw_every_frame or key != self._drawn_key
        if self.drew:
            if self.scene is not None:
                self.scene.draw(self.screen)
            self._draw_notices()
            pygame.display.flip()
            self.draws += 1
            self.dirty = False
            self._drawn_key = key
        self.frames += 1
        if self._next is not None:
            self.dirty = True
        self._swap()
        return self.running

    def _draw_notices(self) -> None:
        """The passing notices and the lost-server line (where each went: in
        :attr:`notice_rects`)."""
        now = time.monotonic()
        self.notices = [n for n in self.notices if now - n[2] < NOTICE_S]
        shown = [(text, error) for text, error, _ in reversed(self.notices)]
        lost = self.lobby.lost if self.lobby is not None else None
        if lost is not None:  # steady while it lasts, not a note that fades
            shown.insert(0, (lobby_lost_text(lost, now), True))
        w, _ = self.screen.get_size()
        area = self.scene.notice_area() if self.scene is not None else None
        # across the top of the window, or from the bottom of the screen's own area up
        y = 8 if area is None else area.bottom - 34
        self.notice_rects = []
        for text, error in shown:
            room = w - 40 if area is None else area.width - 8
            size = fit_size(text, (15, 13, 12), room - 12)
            rect = pygame.Rect(0, 0, min(room, 12 + 9 * len(text)), 30)
            rect.midtop = (w // 2 if area is None else area.centerx, y)
            self.notice_rects.append(rect)
            pygame.draw.rect(self.screen, theme.PANEL_DARK, rect, border_radius=6)
            pygame.draw.rect(self.screen, theme.ERROR if error else theme.ACCENT, rect, 1, 6)
            draw_text(
                self.screen,
                text,
                rect.center,
                size,
                theme.ERROR if error else theme.TEXT,
                anchor="center",
                max_width=rect.width - 12,
            )
            y += 36 if area is None else -36

    def run(self) -> int:
        """The frame loop until the window closes, then close the app."""
        if self.scene is None and self._next is None:
            self.switch(self.first_scene())
        try:
            self.loop()
        finally:
            self.close()
        return 0

    def loop(self, until: float | None = None) -> None:
        """Frames until the window closes (or ``until``, a ``time.monotonic()`` reading):
        :data:`FPS` a second while the picture changes, :data:`IDLE_FPS` while it does
        not (every frame at :data:`FPS` with :attr:`draw_every_frame`)."""
        while self.running and (until is None or time.monotonic() < until):
            dt = self.clock.tick(FPS if self.drew else IDLE_FPS) / 1000.0
            self.step(dt)

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
        self._window = None
