"""The game screen's side panel: players and clocks, status, moves, chat and buttons.

The panel lays itself out in the right-hand strip of the window, draws what the
game screen's session and model say, and turns clicks on its parts into calls
on the game screen (:class:`PanelHost`): a move in the list shows that
position, the toggles switch letters and notation, the buttons run actions.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable, Sequence
from typing import Protocol

import pygame

from lanqi.gui import theme
from lanqi.gui.board_view import BoardView
from lanqi.gui.connection import away_text, opponent_away_line
from lanqi.gui.fonts import MISSING_NOTE, UI_FONT, font, missing
from lanqi.gui.model import GameModel, seat_name, termination_text
from lanqi.gui.sessions import Action, AISession, Notice, Session
from lanqi.gui.settings import Settings
from lanqi.gui.variants import VariantUI
from lanqi.gui.widgets import Button, TextInput, draw_text, wrap_text

__all__ = ["NOTATIONS", "PanelHost", "SidePanel", "format_clock"]

log = logging.getLogger(__name__)

NOTATIONS = ("chinese", "wxf", "iccs")
NOTATION_LABELS = {"chinese": "中文", "wxf": "WXF", "iccs": "ICCS"}
#: the actions drawn as primary buttons
PRIMARY = ("accept_draw", "accept_takeback", "rematch")
MOVE_ROW = 24
CHAT_ROW = 17


def format_clock(ms: float | None) -> str:
    """``mm:ss`` (``h:mm:ss`` past an hour, ``s.t`` under ten seconds).

    >>> format_clock(65_000), format_clock(9_450), format_clock(3_725_000), format_clock(None)
    ('01:05', '9.4', '1:02:05', '--:--')
    """
    if ms is None:
        return "--:--"
    if ms < 10_000:
        tenths = int(ms // 100)
        return f"{tenths // 10}.{tenths % 10}"
    seconds = int(ms // 1000)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes:02d}:{secs:02d}"


def notation(settings: Settings) -> str:
    """The move notation the settings ask for (Chinese when they name none we know)."""
    return settings.notation if settings.notation in NOTATIONS else "chinese"


class PanelHost(Protocol):
    """What the side panel needs of the game screen."""

    session: Session
    view: BoardView
    ui: VariantUI

    @property
    def model(self) -> GameModel: ...

    @property
    def settings(self) -> Settings: ...

    def shown_ply(self) -> int: ...

    def set_view_ply(self, ply: int | None) -> None: ...

    def step_view(self, delta: int) -> None: ...

    def do(self, action_id: str) -> None: ...

    def toggle_latin(self) -> None: ...

    def toggle_notation(self) -> None: ...


class SidePanel:
    """The strip right of the board."""

    def __init__(self, host: PanelHost) -> None:
        self.host = host
        self.rect = pygame.Rect(0, 0, 0, 0)
        self.rects: dict[str, pygame.Rect] = {}
        self.buttons: list[Button] = []
        self.nav_buttons: list[Button] = []
        self.actions: list[Action] = []
        self.move_scroll = 0
        self.chat_scroll = 0
        self.chat_input = TextInput(placeholder="说点什么 Say something…", on_enter=self._send_chat)
        self.move_cells: list[tuple[pygame.Rect, int]] = []
        self.toggles: list[tuple[pygame.Rect, str]] = []
        self._missing_key: tuple[object, ...] = ()
        self._missing = ""

    @property
    def can_chat(self) -> bool:
        return self.host.session.can_chat

    # ------------------------------------------------------------ layout

    def layout(self, rect: pygame.Rect) -> None:
        self.rect = rect
        h = rect.height
        pad = 12
        x, width = rect.x + pad, rect.width - 2 * pad
        y = 10
        rects: dict[str, pygame.Rect] = {}

        def take(name: str, height: int) -> None:
            nonlocal y
            rects[name] = pygame.Rect(x, y, width, height)
            y += height + 6

        take("title", 22)
        take("top", 56)
        take("status", 44)
        bottom_fixed = 56 + 6 + 4 * 38 + 8
        chat_h = 0
        if self.can_chat:
            chat_h = max(80, min(170, (h - y - bottom_fixed) // 3))
        moves_h = max(60, h - y - bottom_fixed - (chat_h + 36 if chat_h else 0) - 72)
        take("moves_head", 22)
        take("moves", moves_h)
        take("nav", 30)
        if chat_h:
            take("chat", chat_h)
            take("chat_input", 28)
        take("bottom", 56)
        rects["buttons"] = pygame.Rect(x, y, width, h - y - 8)
        self.rects = rects
        self.chat_input.rect = rects.get("chat_input", pygame.Rect(0, 0, 0, 0))
        self._build_nav(rects["nav"])

    def set_actions(self, actions: Sequence[Action], *, force: bool = False) -> None:
        """The buttons for ``actions``, two a row (rebuilt only when they change)."""
        if not force and list(actions) == self.actions:
            return
        self.actions = list(actions)
        area = self.rects.get("buttons")
        if area is None:
            return
        self.buttons = []
        cols = 2
        bw = (area.width - 8) // cols
        for i, action in enumerate(self.actions):
            row, col = divmod(i, cols)
            rect = pygame.Rect(area.x + col * (bw + 8), area.y + row * 38, bw, 32)
            self.buttons.append(
                Button(
                    action.label,
                    functools.partial(self.host.do, action.id),
                    rect=rect,
                    enabled=action.enabled,
                    key=action.key,
                    primary=action.id in PRIMARY or action.id.startswith("accept_challenge"),
                    id=action.id,
                )
            )

    def _build_nav(self, rect: pygame.Rect) -> None:
        host = self.host
        width = (rect.width - 18) // 4
        actions: list[tuple[str, Callable[[], None]]] = [
            ("|◀", lambda: host.set_view_ply(0)),
            ("◀", lambda: host.step_view(-1)),
            ("▶", lambda: host.step_view(1)),
            ("▶|", lambda: host.set_view_ply(None)),
        ]
        self.nav_buttons = [
            Button(
                label,
                action,
                rect=pygame.Rect(rect.x + i * (width + 6), rect.y, width, rect.height),
            )
            for i, (label, action) in enumerate(actions)
        ]

    # ------------------------------------------------------------ input

    def handle_event(self, event: pygame.event.Event) -> bool:
        """The chat field and the buttons; True if they took ``event``."""
        if self.can_chat and self.chat_input.handle_event(event):
            return True
        return any(button.handle_event(event) for button in self.buttons + self.nav_buttons)

    def click(self, pos: tuple[int, int]) -> bool:
        """A left click on a move in the list or a toggle; True if it hit one."""
        for rect, ply in self.move_cells:
            if rect.collidepoint(pos):
                self.host.set_view_ply(ply)
                return True
        for rect, toggle in self.toggles:
            if rect.collidepoint(pos):
                if toggle == "latin":
                    self.host.toggle_latin()
                else:
                    self.host.toggle_notation()
                return True
        return False

    def wheel(self, pos: tuple[int, int], y: int) -> bool:
        """The mouse wheel over the move list or the chat scrolls it; True if it did."""
        if self.rects.get("moves", pygame.Rect(0, 0, 0, 0)).collidepoint(pos):
            self.move_scroll = max(0, self.move_scroll - y)
            return True
        if self.rects.get("chat", pygame.Rect(0, 0, 0, 0)).collidepoint(pos):
            self.chat_scroll = max(0, self.chat_scroll + y)
            return True
        return False

    def focus_chat(self) -> None:
        if self.can_chat:
            self.chat_input.focus(True)

    def _send_chat(self, text: str) -> None:
        if text.strip():
            self.host.session.chat(text)
        self.chat_input.text = ""

    def scroll_moves_to(self, index: int) -> None:
        """Scroll the move list so the move at ``index`` shows."""
        rect = self.rects.get("moves")
        if rect is None or index < 0:
            self.move_scroll = 0
            return
        offset = 1 if self.host.model.first_seat == 1 else 0
        row = (index + offset) // 2
        visible = max(1, rect.height // MOVE_ROW)
        if row < self.move_scroll:
            self.move_scroll = row
        elif row >= self.move_scroll + visible:
            self.move_scroll = row - visible + 1

    def update(self, dt: float) -> None:
        self.chat_input.update(dt)

    # ------------------------------------------------------------ drawing

    def draw(self, surface: pygame.Surface) -> None:
        pygame.draw.rect(surface, theme.PANEL, self.rect)
        pygame.draw.line(surface, theme.PANEL_LINE, self.rect.topleft, self.rect.bottomleft, 2)
        rects = self.rects
        draw_text(
            surface,
            self.title(),
            rects["title"].topleft,
            16,
            theme.ACCENT,
            max_width=rects["title"].width,
        )
        top_seat, bottom_seat = self.card_seats()
        self._draw_card(surface, rects["top"], top_seat)
        self._draw_card(surface, rects["bottom"], bottom_seat)
        self._draw_status(surface, rects["status"])
        self._draw_moves(surface, rects["moves_head"], rects["moves"])
        if "chat" in rects:
            self._draw_chat(surface, rects["chat"])
            self.chat_input.draw(surface)
        for button in self.buttons + self.nav_buttons:
            button.draw(surface)

    def title(self) -> str:
        """The panel's first line: the game, its options (``19x19 renju``), the session."""
        host = self.host
        options = host.ui.describe(host.model.options)
        game = f"{host.ui.title} {options}" if options else host.ui.title
        return f"{game} · {host.session.title}"

    def card_seats(self) -> tuple[int, int]:
        """The seats of the upper and lower player cards: as on the board where it turns
        for the second seat (xiangqi), yours below where it does not (gomoku)."""
        host = self.host
        if host.ui.turns_for_second_seat:
            bottom = 1 if host.view.flipped else 0
        else:
            bottom = host.session.bottom_seat()
        return 1 - bottom, bottom

    def card_name(self, seat: int) -> str:
        """The name on ``seat``'s card: yours once, marked as you (``你 You`` with no name)."""
        model, session = self.host.model, self.host.session
        name = model.players[seat] if seat < len(model.players) else ""
        if seat in session.my_seats and len(session.my_seats) == 1:
            return f"{name} (you)" if name else "你 You"
        return name or seat_name(model.variant, seat)

    def _draw_card(self, surface: pygame.Surface, rect: pygame.Rect, seat: int) -> None:
        model, session = self.host.model, self.host.session
        to_move = model.status == "active" and model.seat_to_move == seat
        pygame.draw.rect(surface, theme.PANEL_DARK, rect, border_radius=8)
        if to_move:
            pygame.draw.rect(surface, theme.ACCENT, rect, 2, border_radius=8)
        self.host.view.draw_seat_icon(surface, (rect.x + 28, rect.centery), 20, seat)
        draw_text(
            surface,
            self.card_name(seat),
            (rect.x + 56, rect.y + 8),
            17,
            theme.TEXT,
            max_width=rect.width - 170,
        )
        sub = seat_name(model.variant, seat, chinese=True) + " " + seat_name(model.variant, seat)
        window = model.clock.first_move_left_ms(seat) if model.status == "active" else None
        if window is not None:  # its clock waits for its first move: the time to make it
            sub += f" · first move {format_clock(window)}"
        away = away_text(session, seat, time.monotonic())
        if away is None and len(model.connected) == 2 and not model.connected[seat]:
            away = "offline" if model.status == "active" else None
        sub_color = theme.ERROR if away else theme.TEXT_DIM
        sub = f"{sub} · {away}" if away else sub
        draw_text(
            surface, sub, (rect.x + 56, rect.y + 32), 13, sub_color, max_width=rect.width - 170
        )
        left = model.clock.left_ms(seat)
        running = model.clock.running == seat and model.status == "active" and left is not None
        color = theme.TEXT_DIM
        if left is not None:
            color = theme.CLOCK_ACTIVE if running else theme.TEXT
            if running and left < 30_000:
                color = theme.CLOCK_LOW
        clock_rect = pygame.Rect(rect.right - 108, rect.y + 8, 100, rect.height - 16)
        if running:
            pygame.draw.rect(surface, (80, 62, 40), clock_rect, border_radius=6)
        if session.lost is not None and left is not None:  # frozen: nobody here knows it now
            color = theme.TEXT_DIM
            pygame.draw.rect(surface, theme.ERROR, clock_rect, 2, border_radius=6)
        draw_text(surface, format_clock(left), clock_rect.center, 26, color, anchor="center")

    def status_lines(self) -> tuple[str, theme.Color, str]:
        """(the state of the game, its colour, a detail line)."""
        model, session = self.host.model, self.host.session
        if session.failed:
            return session.failed, theme.ERROR, ""
        if session.lost is not None:
            return "等待连接 Connection lost", theme.ERROR, "the clocks are frozen"
        mode = session.rating_mode()  # Rated or Casual online: said while the game lasts
        if model.status == "waiting":
            return "等待开局 Waiting for the game to start", theme.TEXT_DIM, mode
        if model.finished:
            cn, en = model.headline()
            if model.result in (None, "*"):
                return "对局记录 Game record", theme.TEXT, termination_text(model.termination)
            return f"{cn} {en}", theme.ACCENT, termination_text(model.termination)
        seat = model.seat_to_move
        side_cn = seat_name(model.variant, seat, chinese=True)
        line = f"{side_cn}走棋 {seat_name(model.variant, seat)} to move"
        color = theme.TEXT
        if model.in_check():
            line = "将军! Check · " + line
            color = theme.CHECK
        detail = ""
        if isinstance(session, AISession) and session.thinking():
            detail = "电脑思考中 the computer is thinking…"
        elif away := opponent_away_line(session, time.monotonic()):
            detail = away
            mode = ""  # the countdown matters more now
        elif seat in session.my_seats and len(session.my_seats) == 1:
            detail = "轮到你 your move"
        if "forbidden" in model.position().markers:
            detail = f"{detail} · " if detail else ""
            detail += "× 禁手 forbidden for Black"
        return line, color, " · ".join(part for part in (mode, detail) if part)

    def _draw_status(self, surface: pygame.Surface, rect: pygame.Rect) -> None:
        line, color, detail = self.status_lines()
        draw_text(surface, line, rect.topleft, 16, color, max_width=rect.width)
        notice = self._current_notice()
        if notice is not None:
            draw_text(
                surface,
                notice.text,
                (rect.x, rect.y + 24),
                14,
                theme.ERROR if notice.error else theme.GOOD,
                max_width=rect.width,
            )
        elif detail:
            draw_text(
                surface, detail, (rect.x, rect.y + 24), 14, theme.TEXT_DIM, max_width=rect.width
            )

    def _current_notice(self) -> Notice | None:
        notices = self.host.session.notices
        if notices and time.monotonic() - notices[-1].at < 5.0:
            return notices[-1]
        return None

    def _draw_moves(self, surface: pygame.Surface, head: pygame.Rect, rect: pygame.Rect) -> None:
        host = self.host
        model, ui = host.model, host.ui
        style = notation(host.settings)
        self.toggles = []
        x = head.right
        toggles = [("latin", "ABC" if host.view.latin else "汉字")]
        if ui.notations:
            toggles.append(("notation", NOTATION_LABELS[style]))
        notate = ui.notations.get(style)
        for toggle, label in toggles:
            width = font(UI_FONT, 13).size(label)[0] + 14
            box = pygame.Rect(x - width, head.y + 1, width, head.height - 2)
            pygame.draw.rect(surface, theme.BUTTON, box, border_radius=4)
            draw_text(surface, label, box.center, 13, theme.TEXT, anchor="center")
            self.toggles.append((box, toggle))
            x = box.x - 6
        # stepping back through the moves: said here, off the board
        stepping = self.stepping_label()
        if stepping and font(UI_FONT, 15).size(stepping)[0] > x - head.x:
            stepping = stepping.split(" · ")[0]  # the hint goes first when space is short
        draw_text(
            surface,
            stepping or "着法 Moves",
            head.midleft,
            15,
            theme.ACCENT if stepping else theme.TEXT_DIM,
            anchor="midleft",
            max_width=x - head.x,
        )
        pygame.draw.rect(surface, theme.PANEL_DARK, rect, border_radius=4)
        texts = model.move_texts(style if notate else "", notate)
        offset = 1 if model.first_seat == 1 else 0
        rows = (len(texts) + offset + 1) // 2
        visible = max(1, rect.height // MOVE_ROW)
        self.move_scroll = max(0, min(self.move_scroll, max(0, rows - visible)))
        self.move_cells = []
        current = host.shown_ply() - 1
        num_w = 40
        col_w = (rect.width - num_w - 8) // 2
        clip = surface.get_clip()
        surface.set_clip(rect)
        for row in range(self.move_scroll, min(rows, self.move_scroll + visible)):
            y = rect.y + 2 + (row - self.move_scroll) * MOVE_ROW
            draw_text(
                surface,
                f"{row + 1}.",
                (rect.x + num_w - 6, y + MOVE_ROW // 2),
                14,
                theme.TEXT_DIM,
                anchor="midright",
            )
            for col in range(2):
                index = row * 2 + col - offset
                if not 0 <= index < len(texts):
                    continue
                cell = pygame.Rect(rect.x + num_w + col * col_w, y, col_w - 4, MOVE_ROW - 2)
                if index == current:
                    pygame.draw.rect(surface, theme.SELECTED_ROW, cell, border_radius=3)
                first_seat = (index + model.first_seat) % 2 == 0
                ink = ui.first_seat_ink if first_seat and ui.first_seat_ink else theme.TEXT
                draw_text(
                    surface,
                    texts[index],
                    (cell.x + 6, cell.centery),
                    15,
                    ink,
                    anchor="midleft",
                    max_width=cell.width - 8,
                )
                self.move_cells.append((cell, index + 1))
        surface.set_clip(clip)
        if not texts:
            draw_text(surface, "—", (rect.x + 10, rect.y + 6), 14, theme.TEXT_DIM)

    def missing_note(self) -> str:
        """A note when the chat or a name has characters no font here can draw."""
        model = self.host.model
        key = (len(model.chat), tuple(model.players))
        if key != self._missing_key:
            self._missing_key = key
            texts = [line.name + line.text for line in model.chat if not line.system]
            self._missing = missing("".join(texts + model.players))
            if self._missing:
                log.debug("no font can draw %r here", self._missing)
        return MISSING_NOTE if self._missing else ""

    def stepping_label(self) -> str:
        """``复盘 move 7/15 · End: live`` while an earlier position is shown, else ""."""
        model, shown = self.host.model, self.host.shown_ply()
        if shown >= model.ply:
            return ""
        back = "End: last" if self.host.session.kind == "review" else "End: live"
        return f"复盘 move {shown}/{model.ply} · {back}"

    def _draw_chat(self, surface: pygame.Surface, rect: pygame.Rect) -> None:
        pygame.draw.rect(surface, theme.PANEL_DARK, rect, border_radius=4)
        lines: list[tuple[str, theme.Color]] = []
        width = rect.width - 12
        for line in self.host.model.chat[-60:]:
            if line.system:
                text, color = f"· {line.text}", theme.TEXT_DIM
            else:
                room = " (观众)" if line.room == "spectators" else ""
                text, color = f"{line.name}{room}: {line.text}", theme.TEXT
            for part in wrap_text(text, 13, width):
                lines.append((part, color))
        top = rect.y + 3
        note = self.missing_note()
        if note:  # said once, above the lines
            draw_text(surface, note, (rect.x + 6, top), 12, theme.ERROR, max_width=width)
            top += CHAT_ROW
        visible = max(1, (rect.bottom - 3 - top) // CHAT_ROW)
        self.chat_scroll = max(0, min(self.chat_scroll, max(0, len(lines) - visible)))
        end = len(lines) - self.chat_scroll
        shown = lines[max(0, end - visible) : end]
        for i, (text, color) in enumerate(shown):
            draw_text(surface, text, (rect.x + 6, top + i * CHAT_ROW), 13, color)
        if not lines:
            draw_text(surface, "聊天 Chat", (rect.x + 6, rect.y + 4), 13, theme.TEXT_DIM)
