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
from collections.abc import Callable, Hashable, Sequence
from typing import Protocol

import pygame

from lanqi.games.registry import VARIANTS, notation_names
from lanqi.gui import theme
from lanqi.gui.board_view import BoardView
from lanqi.gui.connection import away_text, opponent_away_line
from lanqi.gui.fonts import MISSING_NOTE, UI_FONT, font, missing
from lanqi.gui.model import GameModel, SystemLine, seat_name
from lanqi.gui.sessions import Action, AISession, Notice, Session
from lanqi.gui.settings import Settings
from lanqi.gui.variants import VariantUI
from lanqi.gui.widgets import Button, Same, TextInput, draw_text, fit_size, wrap_text
from lanqi.i18n import tr
from lanqi.phrases import clock_text
from lanqi.protocol import ChatLine

__all__ = ["NOTATIONS", "PanelHost", "SidePanel"]

log = logging.getLogger(__name__)

#: the move notations a player can switch between, by their one name (the registry's)
NOTATIONS = notation_names()
#: each notation's label on the move list's switch
NOTATION_LABELS = {
    name: notation.label for spec in VARIANTS.values() for name, notation in spec.notations.items()
}
#: the actions drawn as primary buttons (and every ``accept_...``)
PRIMARY = ("rematch",)
#: answers to an offer or a challenge: they have their own row of buttons
ANSWER_PREFIXES = ("accept_", "decline_")
#: the grid's slots go to actions in this order (others after these, as they come)
SLOT_ORDER = (
    "offer_draw",
    "takeback",
    "resign",
    "new_game",
    "rematch",
    "prev_game",
    "next_game",
)
#: the screen's own actions, always last
TAIL_ORDER = ("flip", "save", "back")
MOVE_ROW = 24
CHAT_ROW = 17
CLOCK_SIZE = 26
#: a panel at least this wide is a band below the board (two columns)
WIDE_PANEL = 560
PAD = 12
GAP = 6
BUTTON_H = 30
BUTTON_PITCH = 36
TITLE_SIZE = 15
TITLE_ROW = 19
STATUS_H = 62
STATUS_SIZE = 16
NOTICE_SIZE = 14
MIN_MOVE_ROWS = 3
MIN_MOVES_H = MIN_MOVE_ROWS * MOVE_ROW + 4
CHAT_MIN_H = 3 * CHAT_ROW + 6
CHAT_MAX_H = 170
#: the move list's navigation buttons when they sit in its header
NAV_IN_HEAD_W = 132


def slot_rank(action: Action) -> tuple[int, int]:
    """Where ``action`` goes among actions that come at once (see :data:`SLOT_ORDER`)."""
    if action.id in TAIL_ORDER:
        return 2, TAIL_ORDER.index(action.id)
    if action.id in SLOT_ORDER:
        return 0, SLOT_ORDER.index(action.id)
    return 1, 0


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

    def may_be_asked(self) -> bool:
        """Can an offer or a challenge come that the player answers with a button?"""

    def offer_line(self) -> str:
        """The offer or challenge waiting for this player's answer, or ""."""

    def relayout(self) -> None:
        """Lay the screen out again (the panel needs more room for its buttons)."""

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
        self.chat_input = TextInput(placeholder=tr("chat_placeholder"), on_enter=self._send_chat)
        self.move_cells: list[tuple[pygame.Rect, int]] = []
        self.toggles: list[tuple[pygame.Rect, str]] = []
        self._missing_key: tuple[object, ...] = ()
        self._missing = ""
        #: action id -> its slot in the button grid (kept while the action shows)
        self._slots: dict[str, int] = {}
        self.wide = False
        self.compact = False
        self.nav_in_head = False
        self._gap, self._button_h, self._pitch = GAP, BUTTON_H, BUTTON_PITCH
        self._title_lines: list[str] = []

    @property
    def can_chat(self) -> bool:
        return self.host.session.can_chat

    # ------------------------------------------------------------ layout

    def layout(self, rect: pygame.Rect, actions: Sequence[Action] = ()) -> None:
        """Place the parts in ``rect`` with room for the buttons of ``actions``.

        A strip (the panel right of the board) stacks everything in one column; a
        band (below the board, in a portrait window) puts the players, the status and
        the buttons on the left and the moves and the chat on the right.  Where the
        height is short the move list's navigation joins its header and the player
        cards get lower.  The move list keeps at least :data:`MIN_MOVE_ROWS` rows."""
        self.rect = rect
        self.wide = rect.width >= WIDE_PANEL
        self._slots = {}
        for compact in (False, True):
            rects = self._stack(rect, actions, compact=compact)
            inside = all(rect.contains(part) for part in rects.values())
            if inside and rects["moves"].height >= MIN_MOVES_H:
                break
        self.compact = compact
        self.nav_in_head = rects["nav"].y == rects["moves_head"].y
        self.rects = rects
        self.chat_input.rect = rects.get("chat_input", pygame.Rect(0, 0, 0, 0))
        self._build_nav(rects["nav"])
        self.set_actions(actions, force=True)

    def min_height(self, width: int, actions: Sequence[Action]) -> int:
        """The least height a band of ``width`` (below the board) needs for ``actions``."""
        self.wide = width >= WIDE_PANEL
        rects = self._stack(pygame.Rect(0, 0, width, 0), actions, compact=True)
        right = rects["moves"].x
        left = max((r.bottom for r in rects.values() if r.x != right), default=0)
        return max(left, max(r.bottom for r in rects.values() if r.x == right) + MIN_MOVES_H) + 8

    def _stack(
        self, rect: pygame.Rect, actions: Sequence[Action], *, compact: bool
    ) -> dict[str, pygame.Rect]:
        """The parts' rectangles; ``moves`` (and ``chat``) share what is left over."""
        rects: dict[str, pygame.Rect] = {}
        # a short panel packs its parts closer
        self._gap = GAP - 2 if compact else GAP
        self._button_h = BUTTON_H - 2 if compact else BUTTON_H
        self._pitch = self._button_h + self._gap
        col_w = (rect.width - 3 * PAD) // 2 if self.wide else rect.width - 2 * PAD
        self._title_lines = wrap_text(self.title(), TITLE_SIZE, col_w)[:3]
        card_h = 46 if compact or self.wide else 56
        grid, answers = self._split(actions)
        rows = (len(grid) + 1) // 2 + (1 if self.host.may_be_asked() or answers else 0)
        buttons_h = max(0, rows * self._pitch - (self._pitch - self._button_h))
        chat = self.can_chat
        nav_row = not compact or self.wide
        fixed: list[tuple[str, int]] = [("moves_head", 22)]
        flexible_at = 1
        if nav_row:
            fixed.append(("nav", 28))
        if chat:
            fixed += [("chat_input", 28)]
        left: list[tuple[str, int]] = [
            ("title", TITLE_ROW * len(self._title_lines)),
            ("top", card_h),
            ("status", STATUS_H),
        ]
        if self.wide:
            left += [("bottom", card_h), ("buttons", buttons_h)]
            right = fixed
            x_right = rect.x + 2 * PAD + col_w
        else:
            flexible_at += len(left)
            right = left + fixed + [("bottom", card_h), ("buttons", buttons_h)]
            left = []
            x_right = rect.x + PAD
        y = rect.y + 8
        for name, height in left:
            rects[name] = pygame.Rect(rect.x + PAD, y, col_w, height)
            y += height + self._gap
        # the right (or only) column: the flexible parts get what the others leave
        used = sum(h + self._gap for _, h in right) + self._gap * (2 if chat else 1)
        spare = max(0, rect.bottom - 8 - (rect.y + 8) - used)
        chat_h = 0
        if chat:
            chat_h = max(CHAT_MIN_H, min(CHAT_MAX_H, spare // 3))
        moves_h = max(0, spare - chat_h)
        flexible = [("moves", moves_h)] + ([("chat", chat_h)] if chat else [])
        order = right[:flexible_at] + flexible[:1] + right[flexible_at:]
        if chat:  # the chat goes above its input line
            at = next(i for i, (n, _) in enumerate(order) if n == "chat_input")
            order.insert(at, flexible[1])
        y = rect.y + 8
        for name, height in order:
            rects[name] = pygame.Rect(x_right, y, col_w, height)
            y += height + self._gap
        if not nav_row:  # the navigation sits in the moves header
            head = rects["moves_head"]
            rects["nav"] = pygame.Rect(head.x, head.y, NAV_IN_HEAD_W, head.height)
        return rects

    @staticmethod
    def _split(actions: Sequence[Action]) -> tuple[list[Action], list[Action]]:
        """(the actions with a slot in the grid, the answers to an offer or a challenge)."""
        answers = [a for a in actions if a.id.startswith(ANSWER_PREFIXES)]
        return [a for a in actions if a not in answers], answers

    def set_actions(self, actions: Sequence[Action], *, force: bool = False) -> None:
        """The buttons for ``actions``, each in a fixed slot (rebuilt only when they change).

        The grid has two buttons a row.  An action keeps the slot it got while it
        is shown; a new one takes the first slot no shown button holds, in the order
        of :data:`SLOT_ORDER` when several come at once.  Answers (accept or decline
        an offer, a challenge) have their own row above the grid, reserved while an
        offer can come, so nothing else moves when one arrives.  Only when there are
        more buttons than room is the panel laid out again."""
        if not force and list(actions) == self.actions:
            return
        self.actions = list(actions)
        area = self.rects.get("buttons")
        if area is None:
            return
        grid, answers = self._split(self.actions)
        answer_row = bool(answers) or self.host.may_be_asked()
        top = area.y + (self._pitch if answer_row else 0)
        bw = (area.width - 8) // 2
        shown = {a.id for a in grid}
        taken = {self._slots[i] for i in shown if i in self._slots}
        for action in sorted(grid, key=slot_rank):
            if action.id not in self._slots:
                slot = next(n for n in range(len(self._slots) + 1) if n not in taken)
                self._slots = {k: v for k, v in self._slots.items() if v != slot}
                self._slots[action.id] = slot
                taken.add(slot)
        rows = (max(self._slots.values(), default=-1) + 2) // 2 + (1 if answer_row else 0)
        if rows * self._pitch - (self._pitch - self._button_h) > area.height:
            # more buttons than the layout has room for (the game has begun, say):
            # the screen is laid out again, with room for them
            self.host.relayout()
            return
        placed: list[tuple[Action, pygame.Rect]] = []
        for action in grid:
            row, col = divmod(self._slots[action.id], 2)
            placed.append(
                (
                    action,
                    pygame.Rect(
                        area.x + col * (bw + 8), top + row * self._pitch, bw, self._button_h
                    ),
                )
            )
        # the first answer of each kind; the keys still reach the others
        for col, prefix in enumerate(ANSWER_PREFIXES):
            answer = next((a for a in answers if a.id.startswith(prefix)), None)
            if answer is not None:
                placed.append(
                    (answer, pygame.Rect(area.x + col * (bw + 8), area.y, bw, self._button_h))
                )
        self.buttons = [
            Button(
                action.label,
                functools.partial(self.host.do, action.id),
                rect=rect,
                enabled=action.enabled,
                key=action.key,
                primary=action.id in PRIMARY or action.id.startswith("accept_"),
                id=action.id,
            )
            for action, rect in placed
        ]

    def _build_nav(self, rect: pygame.Rect) -> None:
        host = self.host
        gap = 6 if rect.width > 4 * 40 else 3
        width = (rect.width - 3 * gap) // 4
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
                rect=pygame.Rect(rect.x + i * (width + gap), rect.y, width, rect.height),
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
        """Enter in the chat: send the line and give the keys back to the game."""
        if text.strip():
            self.host.session.chat(text)
        self.chat_input.text = ""
        self.chat_input.focus(False)

    def scroll_moves_to(self, index: int) -> None:
        """Scroll the move list so the move at ``index`` shows."""
        rect = self.rects.get("moves")
        if rect is None or index < 0:
            self.move_scroll = 0
            return
        offset = 1 if self.host.model.first_seat == 1 else 0
        row = (index + offset) // 2
        visible = self.move_rows_visible()
        if row < self.move_scroll:
            self.move_scroll = row
        elif row >= self.move_scroll + visible:
            self.move_scroll = row - visible + 1

    def frame_key(self) -> Hashable:
        """What the panel shows that changes by itself: the clocks' shown time, the
        countdowns of a seat that is away or has its first move to make, the status
        and the latest notice (until it fades), the buttons, the caret."""
        model = self.host.model
        clocks = tuple(clock_text(model.clock.left_ms(seat)) for seat in (0, 1))
        notice = self._current_notice()
        caret = self.chat_input.focused and self.chat_input.caret_shown()
        now = time.monotonic()
        away = tuple(away_text(self.host.session, seat, now) for seat in (0, 1))
        windows = tuple(
            clock_text(model.clock.first_move_left_ms(seat)) if model.status == "active" else ""
            for seat in (0, 1)
        )
        return (
            clocks,
            away,
            windows,
            model.clock.running,
            self.status_lines(),
            self.offer_line(),
            Same(notice),
            tuple(self.actions),
            caret,
            self.move_scroll,
            self.chat_scroll,
        )

    def lost_area(self) -> pygame.Rect:
        """Where the connection-lost band goes: over the moves and the chat, which
        wait while the referee does not answer (off the board, clear of the clocks,
        the status and the buttons)."""
        parts = [
            self.rects[name]
            for name in ("moves_head", "nav", "moves", "chat", "chat_input")
            if name in self.rects
        ]
        return parts[0].unionall(parts[1:]) if parts else pygame.Rect(self.rect)

    def move_rows_visible(self) -> int:
        """How many rows of moves the list shows whole."""
        rect = self.rects.get("moves", pygame.Rect(0, 0, 0, 0))
        return max(1, (rect.height - 4) // MOVE_ROW)

    def update(self, dt: float) -> None:
        self.chat_input.update(dt)

    # ------------------------------------------------------------ drawing

    def draw(self, surface: pygame.Surface) -> None:
        pygame.draw.rect(surface, theme.PANEL, self.rect)
        edge = self.rect.topright if self.wide else self.rect.bottomleft
        pygame.draw.line(surface, theme.PANEL_LINE, self.rect.topleft, edge, 2)
        rects = self.rects
        title = rects["title"]
        for i, line in enumerate(self._title_lines):
            draw_text(
                surface,
                line,
                (title.x, title.y + i * TITLE_ROW),
                TITLE_SIZE,
                theme.ACCENT,
                max_width=title.width,
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
            return f"{name} ({tr('you_mark')})" if name else tr("you")
        return name or seat_name(model.variant, seat)

    def _draw_card(self, surface: pygame.Surface, rect: pygame.Rect, seat: int) -> None:
        model, session = self.host.model, self.host.session
        to_move = model.status == "active" and model.seat_to_move == seat
        pygame.draw.rect(surface, theme.PANEL_DARK, rect, border_radius=8)
        if to_move:
            pygame.draw.rect(surface, theme.ACCENT, rect, 2, border_radius=8)
        self.host.view.draw_seat_icon(surface, (rect.x + 28, rect.centery), 20, seat)
        top = rect.y + (rect.height - 42) // 2  # the name and the line under it
        clock_w = font(UI_FONT, CLOCK_SIZE).size("00:00")[0] + 18
        shown = self.card_name(seat)
        room = rect.width - 56 - clock_w - 16
        size = fit_size(shown, (17, 15, 13, 12, 11), room)
        draw_text(surface, shown, (rect.x + 56, top), size, theme.TEXT, max_width=room)
        sub = tr(f"side.{seat_name(model.variant, seat).lower()}")
        window = model.clock.first_move_left_ms(seat) if model.status == "active" else None
        if window is not None:  # its clock waits for its first move: the time to make it
            sub += " · " + tr("first_move_in", time=clock_text(window))
        away = away_text(session, seat, time.monotonic())
        if away is None and len(model.connected) == 2 and not model.connected[seat]:
            away = "offline" if model.status == "active" else None
        sub_color = theme.ERROR if away else theme.TEXT_DIM
        sub = f"{sub} · {away}" if away else sub
        size = fit_size(sub, (13, 12, 11), room)
        draw_text(surface, sub, (rect.x + 56, top + 24), size, sub_color, max_width=room)
        left = model.clock.left_ms(seat)
        running = model.clock.running == seat and model.status == "active" and left is not None
        color = theme.TEXT_DIM
        if left is not None:
            color = theme.CLOCK_ACTIVE if running else theme.TEXT
            if running and left < 30_000:
                color = theme.CLOCK_LOW
        clock_rect = pygame.Rect(rect.right - clock_w - 8, rect.y + 8, clock_w, rect.height - 16)
        if running:
            pygame.draw.rect(surface, (80, 62, 40), clock_rect, border_radius=6)
        if session.lost is not None and left is not None:  # frozen: nobody here knows it now
            color = theme.TEXT_DIM
            pygame.draw.rect(surface, theme.ERROR, clock_rect, 2, border_radius=6)
        text = clock_text(left)
        size = fit_size(text, (CLOCK_SIZE, CLOCK_SIZE - 4), clock_rect.width - 6)
        draw_text(surface, text, clock_rect.center, size, color, anchor="center")

    def status_lines(self) -> tuple[str, theme.Color, str]:
        """(the state of the game, its colour, a detail line)."""
        model, session = self.host.model, self.host.session
        if session.failed:
            return session.failed, theme.ERROR, ""
        if session.lost is not None:
            return tr("connection_lost"), theme.ERROR, tr("clocks_frozen")
        mode = session.rating_mode()  # Rated or Casual online: said while the game lasts
        if model.status == "waiting":
            return tr("waiting_start"), theme.TEXT_DIM, mode
        if model.finished:
            cn, en = model.headline()
            if model.result in (None, "*"):
                return tr("game_record"), theme.TEXT, model.ending
            why = model.ending
            return (
                f"{cn} {en}",
                theme.ACCENT,
                " · ".join(p for p in (why, session.rating_change) if p),
            )
        seat = model.seat_to_move
        line = tr(f"to_move.{seat_name(model.variant, seat).lower()}")
        color = theme.TEXT
        if model.in_check():
            line = f"{tr('check')} · {line}"
            color = theme.CHECK
        detail = ""
        if isinstance(session, AISession) and session.thinking():
            detail = tr("ai_thinking")
        elif away := opponent_away_line(session, time.monotonic()):
            detail = away
            mode = ""  # the countdown matters more now
        elif seat in session.my_seats and len(session.my_seats) == 1:
            detail = tr("your_move")
        if "forbidden" in model.position().markers:
            detail = f"{detail} · " if detail else ""
            detail += tr("forbidden_for_black")
        return line, color, " · ".join(part for part in (mode, detail) if part)

    def status_layout(self) -> list[tuple[str, int, theme.Color]]:
        """The status box's lines (text, size, colour), wrapped to its width: the state
        of the game, then the latest notice or the detail line.  A notice too long
        for the box at its size is set smaller rather than cut."""
        rect = self.rects["status"]
        line, color, detail = self.status_lines()
        lines = [(part, STATUS_SIZE, color) for part in wrap_text(line, STATUS_SIZE, rect.width)]
        notice = self._current_notice()
        # an offer waiting for an answer stays until it is answered, in place of the
        # detail line; a fresh notice shows for a few seconds after it
        offer = self.offer_line()
        texts: list[tuple[str, theme.Color]] = [(offer, theme.ACCENT)] if offer else []
        if notice is not None:  # on its own line, under a standing offer
            notice_ink = theme.ERROR if notice.error else theme.TEXT if notice.plain else theme.GOOD
            texts.append((notice.text, notice_ink))
        elif not offer and detail:
            texts.append((detail, theme.TEXT_DIM))
        if texts:
            room = rect.height - STATUS_SIZE * 5 // 4 * len(lines)
            for size in (NOTICE_SIZE, NOTICE_SIZE - 2, NOTICE_SIZE - 3):
                parts = [
                    (part, ink) for text, ink in texts for part in wrap_text(text, size, rect.width)
                ]
                if len(parts) * (size * 5 // 4) <= room:
                    break
            else:  # too tall even small: the fresh notice first, then the standing
                # offer as room allows (its answer buttons stay on screen)
                keep, parts = room // (size * 5 // 4), []
                for text, ink in reversed(texts):
                    wrapped = [(part, ink) for part in wrap_text(text, size, rect.width)]
                    if len(parts) + len(wrapped) <= keep:
                        parts = wrapped + parts
                    elif not parts:
                        parts = wrapped[:keep]
            lines += [(part, size, ink) for part, ink in parts]
        return lines

    def offer_line(self) -> str:
        """An offer or a challenge that waits for this player's answer: who makes it,
        its terms, the keys that answer it (see :meth:`PanelHost.offer_line`)."""
        return self.host.offer_line()

    def _draw_status(self, surface: pygame.Surface, rect: pygame.Rect) -> None:
        y = rect.y
        for text, size, color in self.status_layout():
            draw_text(surface, text, (rect.x, y), size, color, max_width=rect.width)
            y += size * 5 // 4

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
        # stepping back through the moves: said here, off the board (right of the
        # navigation buttons when they share the header)
        left = self.rects["nav"].right + 6 if self.nav_in_head else head.x
        stepping = self.stepping_label()
        if stepping and font(UI_FONT, 15).size(stepping)[0] > x - left:
            stepping = stepping.split(" · ")[0]  # the hint goes first when space is short
        label = stepping or ("" if self.nav_in_head else tr("moves"))
        if label:
            draw_text(
                surface,
                label,
                (left, head.centery),
                15,
                theme.ACCENT if stepping else theme.TEXT_DIM,
                anchor="midleft",
                max_width=x - left,
            )
        pygame.draw.rect(surface, theme.PANEL_DARK, rect, border_radius=4)
        texts = model.move_texts(style if notate else "", notate)
        offset = 1 if model.first_seat == 1 else 0
        rows = (len(texts) + offset + 1) // 2
        visible = self.move_rows_visible()
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
            texts = [line.name + line.text for line in model.chat if isinstance(line, ChatLine)]
            self._missing = missing("".join(texts + model.players))
            if self._missing:
                log.debug("no font can draw %r here", self._missing)
        return MISSING_NOTE if self._missing else ""

    def stepping_label(self) -> str:
        """``复盘 7/15 move 7/15 · 实时 End: live`` while an earlier position is shown,
        else ""."""
        model, shown = self.host.model, self.host.shown_ply()
        if shown >= model.ply:
            return ""
        back = tr("review_end_last" if self.host.session.kind == "review" else "review_end_live")
        return f"{tr('review_step', shown=shown, ply=model.ply)} · {back}"

    def _draw_chat(self, surface: pygame.Surface, rect: pygame.Rect) -> None:
        pygame.draw.rect(surface, theme.PANEL_DARK, rect, border_radius=4)
        lines: list[tuple[str, theme.Color]] = []
        width = rect.width - 12
        for line in self.host.model.chat[-60:]:
            if isinstance(line, SystemLine):
                text, color = f"· {line.text}", theme.TEXT_DIM
            else:
                room = f" ({tr('spectator')})" if line.room == "spectators" else ""
                text, color = f"{line.name or '?'}{room}: {line.text}", theme.TEXT
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
            draw_text(surface, tr("chat"), (rect.x + 6, rect.y + 4), 13, theme.TEXT_DIM)
