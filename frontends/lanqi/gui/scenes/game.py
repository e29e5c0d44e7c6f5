"""The game screen: the board on the left, players, clocks, moves, chat and buttons on the right.

It works the same for every session (two players, against the AI, online,
watching, reviewing).  Moves are made by click-click, by drag and drop, or with
the keyboard (arrows move a cursor, Enter or Space picks up and puts down).
Only legal moves reach the session; an illegal try shows the rules' reason.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pygame

from lanqi.games import gomoku, xiangqi
from lanqi.games.base import Game
from lanqi.gui import theme
from lanqi.gui.app import App, Scene
from lanqi.gui.board_view import BoardView, Marks, make_view
from lanqi.gui.fonts import BOARD_FONT, UI_FONT, font
from lanqi.gui.model import GameModel, seat_name, termination_text
from lanqi.gui.net import GameAgent
from lanqi.gui.sessions import Action, AISession, Notice, OnlineSession, Session
from lanqi.gui.widgets import Button, TextInput, draw_text, wrap_text
from lanqi.protocol import Assignment, GameSummary
from lanqi.protocol.endpoints import reachable

__all__ = ["GameScene", "format_clock", "open_assignment", "open_spectate"]

log = logging.getLogger(__name__)

NOTATIONS = ("chinese", "wxf", "iccs")
ANIMATION_S = 0.16
NOTATION_LABELS = {"chinese": "中文", "wxf": "WXF", "iccs": "ICCS"}
HELP = (
    ("Click / drag", "pick up and put down a piece · 点击或拖动走棋"),
    ("Arrows + Enter/Space", "move the cursor, pick up, put down · 键盘走棋"),
    ("Esc", "drop the piece; again: leave · 返回"),
    (", .  Home End", "step back / forward, first / last move · 复盘"),
    ("← →", "step through moves when not playing"),
    ("F", "flip the board · 翻转"),
    ("L", "Latin letters or characters on pieces"),
    ("N", "notation: 中文 / WXF / ICCS"),
    ("S", "save the game (PGN / gomoku record) · 保存"),
    ("R", "resign (twice online) · 认输"),
    ("D", "offer or accept a draw · 求和"),
    ("T", "ask for or allow a takeback · 悔棋"),
    ("X", "decline an offer"),
    ("G", "new game / rematch · 再来一局"),
    ("Tab", "type in the chat"),
    ("H or F1", "this help"),
)


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


@dataclass(slots=True)
class _Drag:
    point: int
    start: tuple[int, int]
    pos: tuple[int, int]
    moving: bool = False


class GameScene(Scene):
    """The board and the side panel for one session."""

    def __init__(self, session: Session, *, back: Callable[[], Scene] | None = None) -> None:
        self.session = session
        self.back = back
        model = session.model
        self.view: BoardView = make_view(model.variant, model.options)
        self._view_key: tuple[object, ...] = (model.variant, model.options.get("size"))
        self.selected: int | None = None
        self.drag: _Drag | None = None
        self.cursor: int | None = None
        self.keyboard = False
        self.view_ply: int | None = None
        self.banner_hidden = False
        self.check_flash = 0.0
        self.help = False
        self._seen_model: GameModel | None = None
        self._seen_version = -1
        self._legal: dict[int, list[int]] = {}
        self._legal_version = -1
        self._shown: tuple[int, int, Game[Any]] | None = None
        self._actions: list[Action] = []
        self._leave_armed = 0.0
        self.buttons: list[Button] = []
        self.nav_buttons: list[Button] = []
        self.move_scroll = 0
        self.chat_scroll = 0
        self.chat_input = TextInput(placeholder="说点什么 Say something…", on_enter=self._send_chat)
        self.panel = pygame.Rect(0, 0, 0, 0)
        self.rects: dict[str, pygame.Rect] = {}
        self._move_cells: list[tuple[pygame.Rect, int]] = []
        self._toggles: list[tuple[pygame.Rect, str]] = []
        self.next_game: Assignment | None = None
        self._next_game_at = 0.0
        #: the last move sliding into place: (from, to, share done)
        self._anim: tuple[int, int, float] | None = None
        self._last_ply = session.model.ply
        self._dropped = False

    # ------------------------------------------------------------ setup

    @property
    def model(self) -> GameModel:
        return self.session.model

    def startup(self, app: App) -> None:
        # xiangqi: your side at the bottom; a gomoku board reads the same for both
        self.view.flipped = self.model.variant == "xiangqi" and self.session.bottom_seat() == 1
        self.view.latin = app.settings.latin
        super().startup(app)
        pygame.key.set_repeat(300, 40)

    def cleanup(self) -> None:
        self.session.close()
        if pygame.display.get_init():
            pygame.key.set_repeat()

    def layout(self, size: tuple[int, int]) -> None:
        w, h = size
        panel_w = max(300, min(440, round(w * 0.31)))
        self.view.layout(pygame.Rect(8, 8, w - panel_w - 16, h - 16))
        self.panel = pygame.Rect(w - panel_w, 0, panel_w, h)
        pad = 12
        x, width = self.panel.x + pad, panel_w - 2 * pad
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
        if self.session.can_chat:
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
        self._build_buttons(force=True)

    # ------------------------------------------------------------ buttons

    def _common_actions(self) -> list[Action]:
        return [
            Action("flip", "翻转 Flip", "f"),
            Action("save", "保存 Save", "s", enabled=self.model.ply > 0),
            Action("back", "返回 Back", "escape"),
        ]

    def _build_buttons(self, *, force: bool = False) -> None:
        actions = self._session_actions() + self._common_actions()
        if not force and actions == self._actions:
            return
        self._actions = actions
        area = self.rects.get("buttons")
        if area is None:
            return
        self.buttons = []
        cols = 2
        bw = (area.width - 8) // cols
        for i, action in enumerate(actions):
            row, col = divmod(i, cols)
            rect = pygame.Rect(area.x + col * (bw + 8), area.y + row * 38, bw, 32)
            self.buttons.append(
                Button(
                    action.label,
                    functools.partial(self.do, action.id),
                    rect=rect,
                    enabled=action.enabled,
                    key=action.key,
                    primary=action.id in ("accept_draw", "accept_takeback", "rematch")
                    or action.id.startswith("accept_challenge"),
                    id=action.id,
                )
            )

    def _session_actions(self) -> list[Action]:
        actions = list(self.session.actions())
        lobby = self.app.lobby if hasattr(self, "app") else None
        if lobby is not None and lobby.challenges and self.model.status != "active":
            challenge = next(iter(lobby.challenges.values()))
            actions.append(
                Action(
                    f"accept_challenge:{challenge.challenge_id}",
                    f"接受 {challenge.challenger}",
                    "y",
                )
            )
        return actions

    def do(self, action_id: str) -> None:
        """Run a button's action (also the keyboard shortcuts)."""
        if action_id == "flip":
            self.view.flipped = not self.view.flipped
        elif action_id == "save":
            self.save()
        elif action_id == "back":
            self.leave()
        elif action_id.startswith("accept_challenge:"):
            if self.app.lobby is not None:
                self.app.lobby.accept(action_id.split(":", 1)[1])
        else:
            self.session.act(action_id)
            self.selected = None
            if action_id in ("takeback", "new_game", "prev_game", "next_game"):
                self.view_ply = None
                self.banner_hidden = False

    def leave(self) -> None:
        session = self.session
        active_seat = isinstance(session, OnlineSession) and session.seat is not None
        if active_seat and self.model.status == "active":
            now = time.monotonic()
            if now - self._leave_armed > 3.0:
                self._leave_armed = now
                session.notice("Esc again leaves the game: your clock keeps running")
                return
        self.app.switch(self.back() if self.back is not None else _menu())

    def save(self) -> None:
        model = self.model
        try:
            text = model.record_text()
        except ValueError as exc:
            self.session.notice(f"cannot save: {exc}", error=True)
            return
        folder = self.app.games_dir
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        suffix = "pgn" if model.variant == "xiangqi" else "txt"
        path = folder / f"{model.variant}-{stamp}.{suffix}"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            self.session.notice(f"cannot save: {exc}", error=True)
            return
        self.saved_path = path
        self.session.notice(f"saved {path}")

    # ------------------------------------------------------------ state

    def interactive(self) -> bool:
        """Can the local player move now, on the live position?"""
        return self.view_ply is None and self.session.can_move()

    def playing(self) -> bool:
        """Is there a local seat in a game that goes on (arrows move the cursor)?"""
        return bool(self.session.my_seats) and self.model.status == "active"

    def shown_ply(self) -> int:
        return self.model.ply if self.view_ply is None else self.view_ply

    def shown_board(self) -> Game[Any]:
        model = self.model
        ply = self.shown_ply()
        if ply >= model.ply:
            return model.board
        key = (model.version, ply)
        if self._shown is None or self._shown[:2] != key:
            self._shown = (model.version, ply, model.board_at(ply))
        return self._shown[2]

    def legal_targets(self, point: int) -> list[int]:
        model = self.model
        if model.variant != "xiangqi":
            return []
        if self._legal_version != model.version or self._seen_model is not model:
            self._legal = {}
            board = model.board
            if not model.finished:
                for move in board.legal_moves():
                    self._legal.setdefault(move.from_square, []).append(move.to_square)
            self._legal_version = model.version
        return self._legal.get(point, [])

    def set_view_ply(self, ply: int | None) -> None:
        if ply is not None:
            ply = max(0, min(self.model.ply, ply))
            if ply == self.model.ply:
                ply = None
        self.view_ply = ply
        self.selected = None
        self.drag = None
        shown = self.shown_ply()
        self._scroll_moves_to(shown - 1)

    def step_view(self, delta: int) -> None:
        self.set_view_ply(self.shown_ply() + delta)

    # ------------------------------------------------------------ input

    def handle_event(self, event: pygame.event.Event) -> None:
        if self.help and event.type in (pygame.KEYDOWN, pygame.MOUSEBUTTONDOWN):
            self.help = False
            return
        if self.session.can_chat and self.chat_input.handle_event(event):
            return
        for button in self.buttons + self.nav_buttons:
            if button.handle_event(event):
                return
        if event.type == pygame.KEYDOWN:
            self._key(event)
        elif event.type == pygame.MOUSEBUTTONDOWN:
            self._mouse_down(event)
        elif event.type == pygame.MOUSEMOTION:
            if self.drag is not None:
                self.drag.pos = event.pos
                dx = event.pos[0] - self.drag.start[0]
                dy = event.pos[1] - self.drag.start[1]
                if dx * dx + dy * dy > 25:
                    self.drag.moving = True
        elif event.type == pygame.MOUSEBUTTONUP and event.button == 1:
            self._mouse_up(event)
        elif event.type == pygame.MOUSEWHEEL:
            self._wheel(event)

    def _key(self, event: pygame.event.Event) -> None:
        key = event.key
        name = pygame.key.name(key)
        if key == pygame.K_ESCAPE:
            if self.selected is not None or self.drag is not None:
                self.selected = None
                self.drag = None
            else:
                self.leave()
            return
        if key in (pygame.K_F1, pygame.K_h) or event.unicode == "?":
            self.help = True
            return
        arrows = {
            pygame.K_LEFT: (-1, 0),
            pygame.K_RIGHT: (1, 0),
            pygame.K_UP: (0, -1),
            pygame.K_DOWN: (0, 1),
        }
        if key in arrows:
            if self.playing() and self.view_ply is None:
                self._move_cursor(*arrows[key])
            elif key in (pygame.K_LEFT, pygame.K_RIGHT):
                self.step_view(-1 if key == pygame.K_LEFT else 1)
            return
        if key in (pygame.K_RETURN, pygame.K_KP_ENTER, pygame.K_SPACE):
            if self.playing() and self.view_ply is None:
                if self.cursor is None:
                    self._move_cursor(0, 0)
                elif self.cursor is not None:
                    self.keyboard = True
                    self.activate(self.cursor)
            return
        if key == pygame.K_COMMA:
            self.step_view(-1)
        elif key == pygame.K_PERIOD:
            self.step_view(1)
        elif key == pygame.K_HOME:
            self.set_view_ply(0)
        elif key == pygame.K_END:
            self.set_view_ply(None)
        elif key == pygame.K_TAB and self.session.can_chat:
            self.chat_input.focus(True)
        elif key == pygame.K_l:
            self.toggle_latin()
        elif key == pygame.K_n:
            self.toggle_notation()
        else:
            for action in self._actions:
                if action.key and action.key.lower() == name and action.enabled:
                    self.do(action.id)
                    return

    def toggle_latin(self) -> None:
        settings = self.app.settings
        settings.latin = not settings.latin
        self.view.latin = settings.latin
        settings.save()

    def toggle_notation(self) -> None:
        settings = self.app.settings
        current = settings.notation if settings.notation in NOTATIONS else "chinese"
        settings.notation = NOTATIONS[(NOTATIONS.index(current) + 1) % len(NOTATIONS)]
        settings.save()

    def _move_cursor(self, dx: int, dy: int) -> None:
        self.keyboard = True
        if self.cursor is None:
            self.cursor = self._start_cursor()
            return
        self.cursor = self.view.step(self.cursor, dx, dy)

    def _start_cursor(self) -> int:
        model = self.model
        if self.selected is not None:
            return self.selected
        if isinstance(model.board, gomoku.Board):
            n = model.board.size
            last = model.moves[-1] if model.moves else None
            if last:
                move = gomoku.Move.from_text(last, n)
                return move.y * n + move.x
            return (n // 2) * n + n // 2
        board = model.board
        assert isinstance(board, xiangqi.Board)
        return board.king(board.turn)

    def _mouse_down(self, event: pygame.event.Event) -> None:
        if event.button == 3:
            self.selected = None
            self.drag = None
            return
        if event.button != 1:
            return
        for rect, ply in self._move_cells:
            if rect.collidepoint(event.pos):
                self.set_view_ply(ply)
                return
        for rect, toggle in self._toggles:
            if rect.collidepoint(event.pos):
                self.toggle_latin() if toggle == "latin" else self.toggle_notation()
                return
        if not self.view.rect.collidepoint(event.pos):
            return
        self.keyboard = False
        self.banner_hidden = True
        point = self.view.point_at(event.pos)
        if point is None:
            self.selected = None
            return
        self.cursor = point
        picked = self.activate(point)
        if picked and self.model.variant == "xiangqi":
            self.drag = _Drag(point, event.pos, event.pos)

    def _mouse_up(self, event: pygame.event.Event) -> None:
        drag, self.drag = self.drag, None
        if drag is None or not drag.moving:
            return
        target = self.view.point_at(event.pos)
        if target is None or target == drag.point:
            return  # dropped back: the piece stays picked up (click-click goes on)
        self._dropped = True  # it is where it was dropped: no need to slide it there
        self.try_move(drag.point, target)

    def _wheel(self, event: pygame.event.Event) -> None:
        pos = pygame.mouse.get_pos()
        if self.rects.get("moves", pygame.Rect(0, 0, 0, 0)).collidepoint(pos):
            self.move_scroll = max(0, self.move_scroll - event.y)
        elif self.rects.get("chat", pygame.Rect(0, 0, 0, 0)).collidepoint(pos):
            self.chat_scroll = max(0, self.chat_scroll + event.y)
        elif self.view.rect.collidepoint(pos):
            self.step_view(-1 if event.y > 0 else 1)

    def activate(self, point: int) -> bool:
        """A click (or Enter) on ``point``; True if a piece is now picked up."""
        model = self.model
        session = self.session
        if self.view_ply is not None:
            session.notice("reviewing an earlier move: End returns to the game")
            return False
        if model.variant == "gomoku":
            if self.interactive():
                n = self.view.files
                session.play(str(gomoku.Move(point % n, point // n)))
            else:
                self._why_not()
            return False
        board = model.board
        assert isinstance(board, xiangqi.Board)
        piece = board.piece_at(point)
        own = piece is not None and piece.color is board.turn
        if self.selected is not None:
            if point == self.selected:
                self.selected = None
                return False
            if own:
                self.selected = point
                return True
            self.try_move(self.selected, point)
            return False
        if piece is None:
            return False
        if not self.interactive():
            self._why_not(piece)
            return False
        if not own:
            side = seat_name("xiangqi", int(board.turn))
            session.notice(f"that is not your piece: {side} to move", error=True)
            return False
        self.selected = point
        return True

    def _why_not(self, piece: xiangqi.Piece | None = None) -> None:
        model, session = self.model, self.session
        if model.finished:
            session.notice("the game is over")
        elif model.status != "active":
            session.notice("the game has not started yet")
        elif isinstance(session, AISession) and session.thinking():
            session.notice("电脑思考中 the computer is thinking…")
        elif session.busy():
            session.notice("wait: your move is on its way")
        elif not session.my_seats:
            session.notice("you are watching: no moves here")
        else:
            session.notice("wait for your opponent's move")

    def try_move(self, frm: int, to: int) -> None:
        """Play ``frm`` -> ``to`` if legal; otherwise say why (the rules' reason)."""
        self.selected = None
        if not self.interactive():
            self._why_not()
            return
        text = xiangqi.square_name(frm) + xiangqi.square_name(to)
        if not self.session.play(text):
            self._dropped = False

    def _send_chat(self, text: str) -> None:
        if text.strip():
            self.session.chat(text)
        self.chat_input.text = ""

    # ------------------------------------------------------------ update

    def update(self, dt: float) -> None:
        now = time.monotonic()
        session = self.session
        session.update(now)
        model = session.model
        if model is not self._seen_model:
            key = (model.variant, model.options.get("size"))
            if key != self._view_key:
                self._view_key = key
                latin, flipped = self.view.latin, self.view.flipped
                self.view = make_view(model.variant, model.options)
                self.view.latin, self.view.flipped = latin, flipped
                self.layout(self.app.screen.get_size())
            if self._seen_model is not None:
                self.view_ply = None
                self.selected = None
            self._seen_model = model
            self._seen_version = -1
            self._last_ply = model.ply
        if model.version != self._seen_version:
            self._seen_version = model.version
            self._new_position()
        self.check_flash = max(0.0, self.check_flash - dt)
        if self._anim is not None:
            frm, to, done = self._anim
            done += dt / ANIMATION_S
            self._anim = None if done >= 1.0 else (frm, to, done)
        self.chat_input.update(dt)
        self._build_buttons()
        self._follow_lobby(now)

    def _new_position(self) -> None:
        model = self.model
        board = model.board
        if self.selected is not None and isinstance(board, xiangqi.Board):
            piece = board.piece_at(self.selected)
            if piece is None or piece.color is not board.turn or not self.interactive():
                self.selected = None
        if self.drag is not None and not self.interactive():
            self.drag = None
        if model.in_check() and not model.finished:
            self.check_flash = 1.6
        if model.finished:
            self.check_flash = 0.0
        self.banner_hidden = False
        if self.view_ply is None:
            self._scroll_moves_to(model.ply - 1)
        grew = model.ply == self._last_ply + 1
        self._anim = None
        if grew and model.variant == "xiangqi" and self.app.settings.animate and not self._dropped:
            move = xiangqi.Move.from_iccs(model.moves[-1])
            self._anim = (move.from_square, move.to_square, 0.0)
        self._dropped = False
        self._last_ply = model.ply

    def _follow_lobby(self, now: float) -> None:
        lobby = self.app.lobby if hasattr(self, "app") else None
        if lobby is None:
            return
        session = self.session
        busy = isinstance(session, OnlineSession) and session.seat is not None
        if self.next_game is None and lobby.assignments and (not busy or self.model.finished):
            self.next_game = lobby.next_assignment()
            self._next_game_at = now + (2.0 if busy else 0.0)
            if self.next_game is not None:
                session.notice("your next game is ready: opening it…")
        if self.next_game is not None and now >= self._next_game_at:
            game, self.next_game = self.next_game, None
            self.app.switch(open_assignment(self.app, game))

    # ------------------------------------------------------------ drawing

    def draw(self, surface: pygame.Surface) -> None:
        surface.fill(theme.BACKGROUND)
        board = self.shown_board()
        self.view.draw(surface, board, self._marks(board))
        self._draw_board_overlays(surface, board)
        self._draw_panel(surface)
        for button in self.buttons + self.nav_buttons:
            button.draw(surface)
        if self.help:
            self._draw_help(surface)

    def _marks(self, board: Game[Any]) -> Marks:
        model = self.model
        ply = self.shown_ply()
        marks = Marks()
        if ply > 0:
            text = model.moves[ply - 1]
            if model.variant == "xiangqi":
                move = xiangqi.Move.from_iccs(text)
                marks.last = (move.from_square, move.to_square)
            else:
                n = self.view.files
                stone = gomoku.Move.from_text(text, n)
                marks.last = (stone.y * n + stone.x,)
        if isinstance(board, xiangqi.Board) and board.is_check():
            marks.check = board.king(board.turn)
        if isinstance(board, gomoku.Board):
            line = board.winning_line()
            if line:
                n = self.view.files
                marks.win_line = tuple(m.y * n + m.x for m in line)
        if self.view_ply is None and self.interactive():
            if self.selected is not None:
                marks.selected = self.selected
                marks.targets = tuple(self.legal_targets(self.selected))
            if self.drag is not None and self.drag.moving:
                marks.drag = (self.drag.point, self.drag.pos)
                marks.selected = None
                marks.targets = tuple(self.legal_targets(self.drag.point))
        if self.keyboard and self.cursor is not None and self.playing():
            marks.cursor = self.cursor
        if self._anim is not None and self.view_ply is None:
            frm, to, done = self._anim
            (x0, y0), (x1, y1) = self.view.center(frm), self.view.center(to)
            t = 1 - (1 - done) ** 2  # ease out
            marks.sliding = (to, (round(x0 + (x1 - x0) * t), round(y0 + (y1 - y0) * t)))
        return marks

    def _draw_board_overlays(self, surface: pygame.Surface, board: Game[Any]) -> None:
        model = self.model
        view = self.view
        c = view.cell
        if self.check_flash > 0 and self.view_ply is None:
            alpha = min(255, int(255 * min(1.0, self.check_flash / 0.5)))
            image = font(BOARD_FONT, round(c * 1.2)).render("将军!", True, theme.CHECK)
            image.set_alpha(alpha)
            rect = image.get_rect(center=view.rect.center)
            surface.blit(image, rect)
        if model.finished and model.result and not self.banner_hidden and self.view_ply is None:
            self._draw_banner(surface)
        if model.status == "waiting":
            self._draw_band(
                surface, "等待开局 Waiting for the game to start…", "", view.rect.center
            )
        if self.view_ply is not None:
            label = f"复盘 move {self.view_ply} of {model.ply}  ·  End: back to the game"
            rect = pygame.Rect(0, 0, min(view.rect.width - 20, 460), 26)
            rect.midtop = (view.rect.centerx, view.rect.top + 4)
            pygame.draw.rect(surface, theme.PANEL_DARK, rect, border_radius=6)
            draw_text(surface, label, rect.center, 14, theme.ACCENT, anchor="center")

    def _banner_center(self) -> tuple[int, int]:
        view = self.view
        if self.model.variant == "xiangqi":
            return view.rect.centerx, round(view.y0 + 4.5 * view.cell)
        n = view.files
        return view.rect.centerx, round(view.y0 + (n - 1) * view.cell + 0.55 * view.cell)

    def _draw_banner(self, surface: pygame.Surface) -> None:
        model = self.model
        cn, en = model.headline()
        why = termination_text(model.termination)
        self._draw_band(surface, f"{cn}  {en}", why, self._banner_center())

    def _draw_band(
        self, surface: pygame.Surface, headline: str, detail: str, center: tuple[int, int]
    ) -> None:
        view = self.view
        height = max(34, round(view.cell * 0.86))
        band = pygame.Surface((view.rect.width, height), pygame.SRCALPHA)
        band.fill((30, 20, 14, 200))
        rect = band.get_rect(center=center)
        surface.blit(band, rect)
        size = max(14, round(height * (0.42 if detail else 0.5)))
        if detail:
            draw_text(
                surface,
                headline,
                (rect.centerx, rect.centery - 1),
                size,
                theme.ACCENT,
                anchor="midbottom",
                name=BOARD_FONT,
            )
            draw_text(
                surface,
                detail,
                (rect.centerx, rect.centery + 1),
                max(11, size * 3 // 4),
                theme.TEXT,
                anchor="midtop",
            )
        else:
            draw_text(surface, headline, rect.center, size, theme.TEXT, anchor="center")

    def _draw_panel(self, surface: pygame.Surface) -> None:
        pygame.draw.rect(surface, theme.PANEL, self.panel)
        pygame.draw.line(surface, theme.PANEL_LINE, self.panel.topleft, self.panel.bottomleft, 2)
        rects = self.rects
        session, model = self.session, self.model
        game_name = "象棋 Xiangqi" if model.variant == "xiangqi" else "五子棋 Gomoku"
        draw_text(
            surface,
            f"{game_name} · {session.title}",
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

    def card_seats(self) -> tuple[int, int]:
        """The seats of the upper and lower player cards: as on the board in xiangqi,
        yours below in gomoku (whose board is not turned for White)."""
        if self.model.variant == "xiangqi":
            bottom = 1 if self.view.flipped else 0
        else:
            bottom = self.session.bottom_seat()
        return 1 - bottom, bottom

    def _draw_card(self, surface: pygame.Surface, rect: pygame.Rect, seat: int) -> None:
        model, session = self.model, self.session
        to_move = model.status == "active" and model.seat_to_move == seat
        pygame.draw.rect(surface, theme.PANEL_DARK, rect, border_radius=8)
        if to_move:
            pygame.draw.rect(surface, theme.ACCENT, rect, 2, border_radius=8)
        icon = (rect.x + 28, rect.centery)
        radius = 20
        if model.variant == "xiangqi":
            ink = theme.RED if seat == 0 else theme.BLACK
            pygame.draw.circle(surface, theme.PIECE_RIM, icon, radius)
            pygame.draw.circle(surface, theme.PIECE_FACE, icon, radius - 2)
            pygame.draw.circle(surface, ink, icon, radius - 4, 2)
            char = "帥" if seat == 0 else "將"
            if self.view.latin:
                char = "K"
            draw_text(surface, char, icon, 22, ink, anchor="center", name=BOARD_FONT)
        else:
            color = theme.STONE_BLACK if seat == 0 else theme.STONE_WHITE
            pygame.draw.circle(surface, color, icon, radius - 2)
            pygame.draw.circle(surface, theme.PANEL_LINE, icon, radius - 2, 1)
        name = model.players[seat] if seat < len(model.players) else ""
        you = " (you)" if seat in session.my_seats and len(session.my_seats) == 1 else ""
        draw_text(
            surface,
            (name or seat_name(model.variant, seat)) + you,
            (rect.x + 56, rect.y + 8),
            17,
            theme.TEXT,
            max_width=rect.width - 170,
        )
        sub = seat_name(model.variant, seat, chinese=True) + " " + seat_name(model.variant, seat)
        if len(model.connected) == 2 and not model.connected[seat] and model.status == "active":
            sub += " · offline"
        draw_text(surface, sub, (rect.x + 56, rect.y + 32), 13, theme.TEXT_DIM)
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
        draw_text(surface, format_clock(left), clock_rect.center, 26, color, anchor="center")

    def _status_lines(self) -> tuple[str, theme.Color, str]:
        model, session = self.model, self.session
        if session.failed:
            return session.failed, theme.ERROR, ""
        if model.status == "waiting":
            return "等待开局 Waiting for the game to start", theme.TEXT_DIM, ""
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
        elif seat in session.my_seats and len(session.my_seats) == 1:
            detail = "轮到你 your move"
        return line, color, detail

    def _draw_status(self, surface: pygame.Surface, rect: pygame.Rect) -> None:
        line, color, detail = self._status_lines()
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
            draw_text(surface, detail, (rect.x, rect.y + 24), 14, theme.TEXT_DIM)

    def _current_notice(self) -> Notice | None:
        notices = self.session.notices
        if notices and time.monotonic() - notices[-1].at < 5.0:
            return notices[-1]
        return None

    def _notation(self) -> str:
        style = self.app.settings.notation
        return style if style in NOTATIONS else "chinese"

    def _draw_moves(self, surface: pygame.Surface, head: pygame.Rect, rect: pygame.Rect) -> None:
        model = self.model
        draw_text(surface, "着法 Moves", head.midleft, 15, theme.TEXT_DIM, anchor="midleft")
        self._toggles = []
        x = head.right
        toggles = [("latin", "ABC" if self.view.latin else "汉字")]
        if model.variant == "xiangqi":
            toggles.append(("notation", NOTATION_LABELS[self._notation()]))
        for toggle, label in toggles:
            width = font(UI_FONT, 13).size(label)[0] + 14
            box = pygame.Rect(x - width, head.y + 1, width, head.height - 2)
            pygame.draw.rect(surface, theme.BUTTON, box, border_radius=4)
            draw_text(surface, label, box.center, 13, theme.TEXT, anchor="center")
            self._toggles.append((box, toggle))
            x = box.x - 6
        pygame.draw.rect(surface, theme.PANEL_DARK, rect, border_radius=4)
        texts = model.move_texts(self._notation())
        offset = 1 if model.first_seat == 1 else 0
        rows = (len(texts) + offset + 1) // 2
        row_h = 24
        visible = max(1, rect.height // row_h)
        self.move_scroll = max(0, min(self.move_scroll, max(0, rows - visible)))
        self._move_cells = []
        current = self.shown_ply() - 1
        num_w = 40
        col_w = (rect.width - num_w - 8) // 2
        clip = surface.get_clip()
        surface.set_clip(rect)
        for row in range(self.move_scroll, min(rows, self.move_scroll + visible)):
            y = rect.y + 2 + (row - self.move_scroll) * row_h
            draw_text(
                surface,
                f"{row + 1}.",
                (rect.x + num_w - 6, y + row_h // 2),
                14,
                theme.TEXT_DIM,
                anchor="midright",
            )
            for col in range(2):
                index = row * 2 + col - offset
                if not 0 <= index < len(texts):
                    continue
                cell = pygame.Rect(rect.x + num_w + col * col_w, y, col_w - 4, row_h - 2)
                if index == current:
                    pygame.draw.rect(surface, theme.SELECTED_ROW, cell, border_radius=3)
                ink = (
                    theme.RED
                    if (model.variant == "xiangqi" and (index + model.first_seat) % 2 == 0)
                    else theme.TEXT
                )
                if model.variant == "xiangqi" and ink == theme.RED:
                    ink = (240, 140, 120)
                draw_text(
                    surface,
                    texts[index],
                    (cell.x + 6, cell.centery),
                    15,
                    ink,
                    anchor="midleft",
                    max_width=cell.width - 8,
                )
                self._move_cells.append((cell, index + 1))
        surface.set_clip(clip)
        if not texts:
            draw_text(surface, "—", (rect.x + 10, rect.y + 6), 14, theme.TEXT_DIM)

    def _scroll_moves_to(self, index: int) -> None:
        rect = self.rects.get("moves")
        if rect is None or index < 0:
            self.move_scroll = 0
            return
        offset = 1 if self.model.first_seat == 1 else 0
        row = (index + offset) // 2
        visible = max(1, rect.height // 24)
        if row < self.move_scroll:
            self.move_scroll = row
        elif row >= self.move_scroll + visible:
            self.move_scroll = row - visible + 1

    def _build_nav(self, rect: pygame.Rect) -> None:
        width = (rect.width - 18) // 4
        actions: list[tuple[str, Callable[[], None]]] = [
            ("|◀", lambda: self.set_view_ply(0)),
            ("◀", lambda: self.step_view(-1)),
            ("▶", lambda: self.step_view(1)),
            ("▶|", lambda: self.set_view_ply(None)),
        ]
        self.nav_buttons = [
            Button(
                label,
                action,
                rect=pygame.Rect(rect.x + i * (width + 6), rect.y, width, rect.height),
            )
            for i, (label, action) in enumerate(actions)
        ]

    def _draw_chat(self, surface: pygame.Surface, rect: pygame.Rect) -> None:
        pygame.draw.rect(surface, theme.PANEL_DARK, rect, border_radius=4)
        lines: list[tuple[str, theme.Color]] = []
        width = rect.width - 12
        for line in self.model.chat[-60:]:
            if line.system:
                text, color = f"· {line.text}", theme.TEXT_DIM
            else:
                room = " (观众)" if line.room == "spectators" else ""
                text, color = f"{line.name}{room}: {line.text}", theme.TEXT
            for part in wrap_text(text, 13, width):
                lines.append((part, color))
        row_h = 17
        visible = max(1, (rect.height - 6) // row_h)
        self.chat_scroll = max(0, min(self.chat_scroll, max(0, len(lines) - visible)))
        end = len(lines) - self.chat_scroll
        shown = lines[max(0, end - visible) : end]
        for i, (text, color) in enumerate(shown):
            draw_text(surface, text, (rect.x + 6, rect.y + 3 + i * row_h), 13, color)
        if not lines:
            draw_text(surface, "聊天 Chat", (rect.x + 6, rect.y + 4), 13, theme.TEXT_DIM)

    def _draw_help(self, surface: pygame.Surface) -> None:
        w, h = surface.get_size()
        shade = pygame.Surface((w, h), pygame.SRCALPHA)
        shade.fill((0, 0, 0, 170))
        surface.blit(shade, (0, 0))
        box = pygame.Rect(0, 0, min(w - 40, 720), min(h - 40, 70 + 28 * len(HELP)))
        box.center = (w // 2, h // 2)
        pygame.draw.rect(surface, theme.PANEL, box, border_radius=10)
        pygame.draw.rect(surface, theme.ACCENT, box, 2, border_radius=10)
        draw_text(surface, "键盘 Keys and mouse", (box.x + 20, box.y + 14), 20, theme.ACCENT)
        for i, (keys, what) in enumerate(HELP):
            y = box.y + 52 + i * 28
            draw_text(surface, keys, (box.x + 20, y), 15, theme.TEXT)
            draw_text(
                surface, what, (box.x + 230, y), 15, theme.TEXT_DIM, max_width=box.width - 250
            )


def _menu() -> Scene:
    from lanqi.gui.scenes.menu import MenuScene

    return MenuScene()


def _lobby() -> Scene:
    from lanqi.gui.scenes.lobby import LobbyScene

    return LobbyScene()


def open_assignment(app: App, game: Assignment) -> GameScene:
    """The game screen for a seat the matchmaker assigned to us."""
    referee, referee_pub = game.referee, game.referee_pub
    if not referee_pub and app.referee_endpoints is not None:
        referee_pub = app.referee_endpoints[1]
    if app.lobby is not None:  # a referee named by a wildcard or loopback host
        referee = reachable(referee, app.lobby.server)
        referee_pub = reachable(referee_pub, app.lobby.server) if referee_pub else referee_pub
    name = app.lobby.name if app.lobby is not None else ""
    agent = GameAgent(
        referee, referee_pub, game.game_id, seat=game.seat, token=game.token, name=name
    )
    session = OnlineSession(
        agent,
        variant=game.variant,
        options=game.options,
        players=list(game.players),
        assignment=game,
        lobby=app.lobby,
        name=name,
    )
    if app.lobby is not None:
        app.lobby.started_games.add(game.game_id)
    return GameScene(session, back=_lobby)


def open_spectate(app: App, game: GameSummary) -> GameScene:
    """The game screen watching ``game`` live (no seat, chat as a spectator)."""
    if app.referee_endpoints is None:
        raise ValueError("no referee to watch games on")
    referee, referee_pub = app.referee_endpoints
    name = app.lobby.name if app.lobby is not None else "spectator"
    agent = GameAgent(referee, referee_pub, game.game_id, name=name)
    session = OnlineSession(agent, variant=game.variant, players=list(game.players), name=name)
    return GameScene(session, back=_lobby)
