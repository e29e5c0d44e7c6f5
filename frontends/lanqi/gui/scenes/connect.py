"""The connect screen: server address and name (remembered in ``gui.json``), and the
servers heard on the LAN (one click connects to one)."""

from __future__ import annotations

import time
from collections.abc import Hashable

import pygame

from lanqi.gui import theme
from lanqi.gui.lan import LanServers
from lanqi.gui.scenes.base import Host, Scene, ToLobby, ToMenu
from lanqi.gui.widgets import Button, ScrollList, TextInput, draw_text, wrap_text
from lanqi.i18n import tr
from lanqi.protocol.endpoints import normalise_endpoint

__all__ = ["ConnectScene"]

CONNECT_TIMEOUT_S = 8.0
#: the form and the list of servers side by side from this window width on
SIDE_BY_SIDE_W = 1000
LIST_TITLE = tr("connect.servers")
#: after this long with no server heard, the list says why that may be
LAN_QUIET_S = 4.0


class ConnectScene(Scene):
    """Click a server heard on the LAN, or type one, and a name, and press Enter: the
    lobby opens once the server answers."""

    def __init__(self, *, auto: bool = False) -> None:
        self.auto = auto
        self.error = ""
        self.connecting_since: float | None = None
        self.fields: list[tuple[str, TextInput]] = []
        self.buttons: list[Button] = []
        self.lan = LanServers()
        self.list = ScrollList(row_height=30, columns=3, weights=(5, 4, 1), on_pick=self.pick)
        self.list.empty_text = tr("connect.listening")
        #: when listening began (``time.monotonic()``)
        self.listening_since = time.monotonic()

    def startup(self, app: Host) -> None:
        settings = app.settings
        self.server = TextInput(
            settings.server, placeholder="tcp://host:5050", on_enter=self._enter
        )
        self.name = TextInput(
            settings.name, placeholder=tr("connect.name_hint"), on_enter=self._enter
        )
        self.name.max_length = 40
        self.referee = TextInput(
            settings.referee,
            placeholder=tr("connect.referee_hint"),
            on_enter=self._enter,
        )
        self.claim = TextInput("", placeholder=tr("connect.claim_hint"), on_enter=self._enter)
        self.claim.max_length = 16
        self.fields = [
            (tr("connect.server"), self.server),
            (tr("connect.name"), self.name),
            (tr("connect.claim"), self.claim),
            (tr("connect.referee"), self.referee),
        ]
        self.lan.start()
        self.listening_since = time.monotonic()
        super().startup(app)
        target = self.name if not settings.name else self.server
        target.focus(True)
        if self.auto and settings.name:
            self.connect()

    def layout(self, size: tuple[int, int]) -> None:
        w, h = size
        wide = w >= SIDE_BY_SIDE_W
        width = min(520 if wide else 560, w - 60)
        list_w = min(440, w - width - 100) if wide else width
        left = (w - width - 40 - list_w) // 2 if wide else w // 2 - width // 2
        if wide:  # the list beside the form, as tall as it
            top = max(140, h // 2 - 150)
        else:  # the list above the form, two rows (it scrolls): messages stay in view
            self.list.rect = pygame.Rect(left, 150, width, 2 * self.list.row_height)
            top = self.list.rect.bottom + 8
        y = top
        step = 74 if wide or h >= 700 else 62  # a short window: the fields closer together
        for _, field in self.fields:
            field.rect = pygame.Rect(left, y + 22, width, 34)
            y += step
        self.buttons = [
            Button(
                tr("connect.button"), self.connect, rect=pygame.Rect(0, 0, 200, 40), primary=True
            ),
            Button(tr("back"), self.back, rect=pygame.Rect(0, 0, 140, 40), key="escape"),
        ]
        self.buttons[0].rect.topleft = (left, y + 10)
        self.buttons[1].rect.topright = (left + width, y + 10)
        if wide:
            self.list.rect = pygame.Rect(left + width + 40, top + 22, list_w, y - top - 22)

    def pick(self, index: int) -> None:
        """A click on a server heard on the LAN: connect to it."""
        if not 0 <= index < len(self.lan.servers):
            return
        self.server.text = self.lan.servers[index].endpoint
        if not self.name.text.strip():
            self.error = tr("connect.need_name")
            for _, field in self.fields:
                field.focused = False
            self.name.focus(True)
            return
        self.connect()

    def _enter(self, _text: str) -> None:
        for i, (_, field) in enumerate(self.fields):
            if field.focused and i + 1 < len(self.fields) and not self.fields[i + 1][1].text:
                field.focus(False)
                self.fields[i + 1][1].focus(True)
                return
        self.connect()

    def connect(self) -> None:
        server = self.server.text.strip()
        name = self.name.text.strip()
        if not server or not name:
            self.error = tr("connect.need_both")
            return
        try:
            server = normalise_endpoint(server)
        except ValueError as exc:
            self.error = str(exc)
            return
        self.server.text = server
        settings = self.app.settings
        settings.server, settings.name = server, name
        settings.referee = self.referee.text.strip()
        settings.save()
        self.error = ""
        self.connecting_since = time.monotonic()
        self.app.connect(server, name, claim=self.claim.text.strip() or None)

    def back(self) -> None:
        self.app.disconnect()
        self.app.go(ToMenu())

    def handle_event(self, event: pygame.event.Event) -> None:
        for _, field in self.fields:
            if field.handle_event(event):
                if event.type == pygame.KEYDOWN and event.key == pygame.K_TAB:
                    self._next_field()
                return
        for button in self.buttons:
            if button.handle_event(event):
                return
        if self.list.handle_event(event):
            return
        if event.type == pygame.KEYDOWN:
            if event.key == pygame.K_ESCAPE:
                self.back()
            elif event.key == pygame.K_TAB:
                self._next_field()
            elif event.key in (pygame.K_RETURN, pygame.K_KP_ENTER):
                self.connect()

    def _next_field(self) -> None:
        index = next((i for i, (_, f) in enumerate(self.fields) if f.focused), -1)
        for _, field in self.fields:
            field.focused = False
        self.fields[(index + 1) % len(self.fields)][1].focus(True)

    def update(self, dt: float) -> None:
        for _, field in self.fields:
            field.update(dt)
        if self.lan.refresh():
            self.list.set_rows(self.lan.rows())
            self.list.selected = None
        if self.lan.error:
            self.list.empty_text = tr("connect.type_address", problem=self.lan.error)
        elif not self.lan.servers and time.monotonic() - self.listening_since > LAN_QUIET_S:
            self.list.empty_text = tr("connect.lan_quiet")
        lobby = self.app.lobby
        if self.connecting_since is None or lobby is None:
            return
        if lobby.failed:
            self.error = lobby.failed
            self.connecting_since = None
            self.app.disconnect()
        elif lobby.welcome is not None:
            self.connecting_since = None
            self.app.go(ToLobby())
        elif time.monotonic() - self.connecting_since > CONNECT_TIMEOUT_S:
            self.error = tr("connect.no_answer", server=lobby.server)
            self.connecting_since = None
            self.app.disconnect()

    def frame_key(self) -> Hashable:
        """The caret, the dots while connecting, the error, the servers heard."""
        dots = int(time.monotonic() * 3) % 3 if self.connecting_since is not None else -1
        carets = tuple(f.caret_shown() for _, f in self.fields)
        heard = tuple(tuple(row) for row in self.list.rows)
        return (carets, dots, self.error, heard, self.list.empty_text)

    def draw(self, surface: pygame.Surface) -> None:
        surface.fill(theme.BACKGROUND)
        w, _ = surface.get_size()
        draw_text(surface, tr("connect.title"), (w // 2, 50), 34, theme.ACCENT, anchor="midtop")
        draw_text(
            surface,
            tr("connect.help"),
            (w // 2, 100),
            16,
            theme.TEXT_DIM,
            anchor="midtop",
        )
        for label, field in self.fields:
            draw_text(surface, label, (field.rect.x, field.rect.y - 20), 15, theme.TEXT_DIM)
            field.draw(surface)
        for button in self.buttons:
            button.draw(surface)
        draw_text(
            surface, LIST_TITLE, (self.list.rect.x, self.list.rect.y - 20), 15, theme.TEXT_DIM
        )
        self.list.draw(surface)
        at = (self.fields[0][1].rect.centerx, self.buttons[0].rect.bottom + 24)
        if self.connecting_since is not None:
            dots = "." * (1 + int(time.monotonic() * 3) % 3)
            draw_text(surface, tr("connect.connecting") + dots, at, 16, theme.TEXT, anchor="midtop")
        elif self.error:  # a refusal that says what to do may take a few lines
            width = self.fields[0][1].rect.width
            for row, line in enumerate(wrap_text(self.error, 16, width)):
                where = (at[0], at[1] + row * 20)  # 16 px text, 20 px apart
                draw_text(surface, line, where, 16, theme.ERROR, anchor="midtop")

    def cleanup(self) -> None:
        self.lan.close()
