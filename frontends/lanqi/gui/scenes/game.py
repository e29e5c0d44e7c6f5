"""The game screen: the board on the left, the side panel on the right.

It works the same for every session (two players, against the AI, online,
watching, reviewing) and every variant.  The screen owns what is shown (which
ply, the banners, the last move sliding into place) and routes input: clicks and
keys on the board go to the variant's input controller
(:mod:`lanqi.gui.controllers`), the rest to the side panel (:mod:`lanqi.gui.panel`).
The board's drawer and the controller come from the variant registry
(:mod:`lanqi.gui.variants`).

The functions at the end make the screen for each game destination (an offline
game, an assigned seat, a watched game, a record to review).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Hashable
from datetime import datetime
from pathlib import Path
from typing import Any

import pygame

from lanqi.games.base import Game, IllegalMoveError
from lanqi.games.registry import variant_spec
from lanqi.gui import commands, resume, theme
from lanqi.gui.board_view import BoardView, Marks
from lanqi.gui.connection import draw_lost, lost_lines
from lanqi.gui.controllers import BoardInput
from lanqi.gui.dialog import Choice, Dialog
from lanqi.gui.fonts import BOARD_FONT, UI_FONT, font
from lanqi.gui.model import GameModel, illegal_text, seat_name
from lanqi.gui.net import GameAgent
from lanqi.gui.panel import NOTATIONS, SidePanel, notation
from lanqi.gui.scenes.base import (
    Destination,
    Host,
    Scene,
    ToLobby,
    ToMenu,
    ToOfflineGame,
    ToResume,
    ToReview,
    ToSeat,
    ToWatch,
)
from lanqi.gui.sessions import (
    Action,
    AISession,
    LocalSession,
    OnlineSession,
    ReviewSession,
    Session,
)
from lanqi.gui.settings import Settings
from lanqi.gui.sound import Cues
from lanqi.gui.terms import describe_seek
from lanqi.gui.variants import VariantUI, variant_ui
from lanqi.gui.widgets import Same, draw_text, fit_size
from lanqi.i18n import Term, en, tr, zh
from lanqi.protocol import ChallengeReceived
from lanqi.protocol.endpoints import reachable

__all__ = [
    "GameScene",
    "offline_game",
    "resumed_game",
    "review_game",
    "seated_game",
    "watched_game",
]

log = logging.getLogger(__name__)

ANIMATION_S = 0.16
HELP = (
    (tr("help_keys.click"), tr("help.click")),
    (tr("help_keys.arrows"), tr("help.arrows")),
    (tr("help_keys.escape"), tr("help.back")),
    (", .  Home End", tr("help.step")),
    ("← →", tr("help.step_arrows")),
    ("F", tr("help.flip")),
    ("L", tr("help.latin")),
    ("N", tr("help.notation")),
    ("S", tr("help.save")),
    ("R", tr("help.resign")),
    ("D", tr("help.draw")),
    ("T", tr("help.takeback")),
    ("X", tr("help.decline")),
    ("G", tr("help.new_game")),
    ("M", tr("help.sound")),
    ("Tab", tr("help.chat")),
    (tr("help_keys.help"), tr("help.help")),
)


#: the smallest text of a banner over the board: where a band has no room for it at
#: this size the banner goes to the panel
BANNER_MIN_SIZE = 13
#: after a rated game, how often the lobby's list is asked again for the new rating
RATING_ASK_S = 1.0
RATING_ASKS = 20
#: the side panel's width in a landscape window, at least and at most
PANEL_MIN_W = 280
PANEL_MAX_W = 440


class GameScene(Scene):
    """The board and the side panel for one session."""

    def __init__(
        self,
        session: Session,
        *,
        back: Destination | None = None,
        keep_id: str | None = None,
    ) -> None:
        self.session = session
        self.back: Destination = back if back is not None else ToMenu()
        #: an offline game is kept under this id while it is unfinished (lanqi.gui.resume)
        self.keep_id = keep_id
        #: the question asked before leaving a game that goes on (see :attr:`dialog`)
        self._dialog: Dialog | None = None
        #: the open question is "leave this online game? it goes on without you"
        self._asks_online = False
        model = session.model
        self.ui: VariantUI = variant_ui(model.variant)
        self.view: BoardView = self.ui.view(model.options)
        self._view_key: tuple[object, ...] = (model.variant, model.options.get("size"))
        self.controller: BoardInput = self.ui.controller(self)
        self.panel = SidePanel(self)
        self.view_ply: int | None = None
        self.banner_hidden = False
        self.check_flash = 0.0
        self.help = False
        self._seen_model: GameModel | None = None
        self._seen_version = -1
        self._shown: tuple[int, int, Game[Any]] | None = None
        self._kept: tuple[int, int, str] | None = None
        self.next_game: ToSeat | None = None
        #: where the banner (result, check, waiting) was drawn in the last frame
        #: (None: none); over the board only where no piece or word is
        self.banner_rect: pygame.Rect | None = None
        #: where the connection-lost band was drawn in the last frame (over the panel)
        self.lost_rect: pygame.Rect | None = None
        #: your rating in a rated game's variant as it began, and the asks for it after
        self._rating_before: float | None = None
        self._rating_asked_at = 0.0
        self._rating_asks = 0
        self._next_game_at = 0.0
        #: the last move sliding into place: (from, to, share done)
        self._anim: tuple[int, int, float] | None = None
        self._last_ply = session.model.ply
        self.saved_path: Path | None = None
        #: which sound each change of the live game calls for
        self.cues = Cues()
        self._pointer: tuple[int, int] = (0, 0)
        #: the size of the last layout
        self.size: tuple[int, int] = (0, 0)

    # ------------------------------------------------------------ setup

    @property
    def model(self) -> GameModel:
        return self.session.model

    @property
    def dialog(self) -> Dialog | None:
        """The question asked over the game (leaving it); a game on this computer
        stops its clock while it is open."""
        return self._dialog

    @dialog.setter
    def dialog(self, dialog: Dialog | None) -> None:
        self._dialog = dialog
        self._asks_online = False
        self.session.pause(dialog is not None)

    @property
    def settings(self) -> Settings:
        return self.app.settings

    def startup(self, app: Host) -> None:
        # your side at the bottom where the board turns for the second seat (xiangqi)
        self.view.flipped = self.ui.turns_for_second_seat and self.session.bottom_seat() == 1
        self.view.latin = app.settings.latin
        super().startup(app)
        pygame.key.set_repeat(300, 40)
        if not app.sound.muted:
            app.sound.open()  # here, not at the first move: no delay then
        self.cues.follow(self.model)

    def cleanup(self) -> None:
        self.keep()
        self.session.close()
        if pygame.display.get_init():
            pygame.key.set_repeat()

    def layout(self, size: tuple[int, int]) -> None:
        """Landscape: the board on the left, the panel as a strip on the right.
        Portrait (taller than wide): the board on top, the panel as a band below it,
        as low as its parts allow so the board gets the rest."""
        self.size = w, h = size
        actions = self._actions()
        if h > w:
            band = min(h // 2, self.panel.min_height(w, actions))
            self.view.layout(pygame.Rect(8, 8, w - 16, h - band - 16))
            # the board at the top: what it leaves of its area goes to the panel
            board = self.view.rect
            self.view.layout(pygame.Rect(8, 8, w - 16, board.height))
            top = self.view.rect.bottom + 8
            self.panel.layout(pygame.Rect(0, top, w, h - top), actions)
        else:
            # the panel gets what the board, as tall as the window, leaves over
            # (between PANEL_MIN_W and PANEL_MAX_W): a squarish window gives the
            # board more than half its width
            self.view.layout(pygame.Rect(8, 8, 4 * w, h - 16))
            wanted = self.view.rect.width + 16
            panel_w = max(PANEL_MIN_W, min(PANEL_MAX_W, w - wanted))
            self.view.layout(pygame.Rect(8, 8, w - panel_w - 16, h - 16))
            self.panel.layout(pygame.Rect(w - panel_w, 0, panel_w, h), actions)
        self.panel.scroll_moves_to(self.shown_ply() - 1)
        if self.dialog is not None:
            self.dialog.layout(size)

    def relayout(self) -> None:
        self.layout(self.size)

    def _challenge(self) -> ChallengeReceived | None:
        """A challenge from the lobby to answer here, once this game is over (the
        opponent's rematch, say)."""
        lobby = self.app.lobby if hasattr(self, "app") else None
        if lobby is None or not lobby.challenges or self.model.status == "active":
            return None
        return next(iter(lobby.challenges.values()))

    def offer_line(self) -> str:
        """The offer waiting for this player's answer, by name, with its terms and
        keys: a draw or takeback (the session's), or a challenge from the lobby
        (``Bob 请求再来一局 ... Bob offers a rematch: Y accepts, X declines · 象棋
        xiangqi · 5+3 · 友谊赛 casual``)."""
        line = self.session.offer_line()
        challenge = self._challenge()
        if line or challenge is None:
            return line
        name = challenge.challenger
        rematch = name in self.model.players
        key = "rematch_answer" if rematch else "challenge_answer"
        return f"{tr(key, name=name)} · {describe_seek(challenge.seek)}"

    def may_be_asked(self) -> bool:
        """Can an offer (a seat online) or a challenge (the lobby) come to answer?"""
        session = self.session
        seated = isinstance(session, OnlineSession) and session.seat is not None
        return seated or (hasattr(self, "app") and self.app.lobby is not None)

    def frame_key(self) -> Hashable:
        """What the picture shows that changes without input (see Scene.frame_key)."""
        model = self.model
        flash = 0
        if self.check_flash > 0 and self.view_ply is None:
            flash = min(255, int(255 * min(1.0, self.check_flash / 0.5)))
        return (
            Same(model),
            model.version,
            model.status,
            model.result,
            model.draw_offer,
            model.takeback_offer,
            len(model.chat),
            Same(model.chat[-1] if model.chat else None),
            tuple(model.connected),
            tuple(model.players),
            self._anim,
            flash,
            lost_lines(self.session, time.monotonic()),  # the countdown to the next try
            Same(self.controller.premove),  # a premove waits, or went
            Same(self.dialog),  # the leave question, open or not
            self.panel.frame_key(),
        )

    # ------------------------------------------------------------ actions

    def _actions(self) -> list[Action]:
        actions = list(self.session.actions())
        challenge = self._challenge()
        if challenge is not None:
            cid = challenge.challenge_id
            actions.append(Action(f"accept_challenge:{cid}", tr("accept"), "y"))
            actions.append(Action(f"decline_challenge:{cid}", tr("decline"), "x"))
        return [
            *actions,
            Action("flip", tr("flip"), "f"),
            Action("save", tr("save"), "s", enabled=self.model.ply > 0),
            Action("back", tr("back"), "escape"),
        ]

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
        elif action_id.startswith("decline_challenge:"):
            if self.app.lobby is not None:
                self.app.lobby.decline(action_id.split(":", 1)[1])
        else:
            self.session.act(action_id)
            self.controller.selected = None
            if action_id in ("takeback", "new_game", "prev_game", "next_game"):
                self.view_ply = None
                self.banner_hidden = False

    def leave(self, *, quit: bool = False) -> None:
        """Back to where the game came from (``quit``: close the window), asking first
        when that would lose a game that goes on."""
        if not self.ask_before_leaving(quit=quit):
            self._go(quit=quit)

    def close_requested(self) -> bool:
        # a second close while the question is up quits (an offline game is kept)
        return self.dialog is not None or not self.ask_before_leaving(quit=True)

    def ask_before_leaving(self, *, quit: bool = False) -> bool:
        """Open the leave question if leaving loses something; True if it did."""
        session, model = self.session, self.model
        if isinstance(session, LocalSession) and session.unfinished():
            self.dialog = self._leave_offline_dialog(quit)
        elif (
            isinstance(session, OnlineSession)
            and session.seat is not None
            and not model.finished
            and session.failed is None
        ):
            self.dialog = self._leave_online_dialog(quit)
            self._asks_online = True
        else:
            return False
        self.dialog.layout(self.app.screen.get_size())
        return True

    def _go(self, *, quit: bool) -> None:
        self.dialog = None
        if quit:
            self.app.quit()
        else:
            self.app.go(self.back)

    def _stay(self) -> None:
        self.dialog = None

    def _give_up(self, quit: bool) -> None:
        if self.keep_id is not None:
            resume.drop(self.app.data_dir, self.keep_id)
            self.keep_id = None
        self._go(quit=quit)

    def _leave_offline_dialog(self, quit: bool) -> Dialog:
        leave = tr("save_and_quit") if quit else tr("save_and_leave")
        kept = Term(
            "unfinished_kept_ai" if isinstance(self.session, AISession) else "unfinished_kept"
        )
        return Dialog(
            tr("leave_title"),
            [tr("unfinished_moves", n=self.model.ply), tr("unfinished_keeps", kept=kept)],
            [
                Choice("keep", leave, "y", lambda: self._go(quit=quit)),
                Choice("discard", tr("give_up"), "d", lambda: self._give_up(quit)),
                Choice("stay", tr("keep_playing"), "n", self._stay),
            ],
        )

    def _leave_online_dialog(self, quit: bool) -> Dialog:
        leave = tr("quit_goes_on") if quit else tr("leave_goes_on")
        return Dialog(
            tr("leave_title"),
            [tr("leave_online_why")],
            [
                Choice("leave", leave, "y", lambda: self._go(quit=quit)),
                Choice("stay", tr("stay"), "n", self._stay),
            ],
        )

    def keep(self) -> None:
        """Keep an unfinished offline game in the data directory (or drop the kept
        one once it has a result or no moves)."""
        if self.keep_id is None or not hasattr(self, "app"):
            return
        game = resume.of_session(self.session, self.keep_id)
        if game is None:
            resume.drop(self.app.data_dir, self.keep_id)
        else:
            resume.keep(self.app.data_dir, game)

    def save(self) -> None:
        model = self.model
        try:
            text = model.record_text(event=self.session.title)
        except ValueError as exc:
            self.session.notice(f"{tr('cannot_save')}: {exc}", error=True)
            return
        folder = self.app.games_dir
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        suffix = variant_spec(model.variant).record_suffix
        path = folder / f"{model.variant}-{stamp}.{suffix}"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            self.session.notice(f"{tr('cannot_save')}: {exc}", error=True)
            return
        self.saved_path = path
        self.session.notice(f"{tr('saved')} {path}")

    def toggle_latin(self) -> None:
        settings = self.app.settings
        settings.latin = not settings.latin
        self.view.latin = settings.latin
        settings.save()

    def toggle_sound(self) -> None:
        sound = self.app.sound
        if sound.toggle_mute():
            self.session.notice(tr("sound_off"))
        elif sound.available:
            self.session.notice(tr("sound_on"))
        else:
            self.session.notice(f"{tr('sound_no_device')}: {sound.problem}")

    def toggle_notation(self) -> None:
        settings = self.app.settings
        current = notation(settings)
        settings.notation = NOTATIONS[(NOTATIONS.index(current) + 1) % len(NOTATIONS)]
        settings.save()

    # ------------------------------------------------------------ state

    def interactive(self) -> bool:
        """Can the local player move now, on the live position?"""
        return self.view_ply is None and self.session.can_move()

    def premoving(self) -> bool:
        """Is it the opponent's turn in an online game of ours (clicks make a premove)?"""
        return self.view_ply is None and self.session.can_premove()

    def playing(self) -> bool:
        """Is there a local seat in a game that goes on (arrows move the cursor)?"""
        return bool(self.session.my_seats) and self.model.status == "active"

    def reviewing(self) -> bool:
        return self.view_ply is not None

    def why_not(self) -> None:
        """Say why the player cannot move now."""
        model, session = self.model, self.session
        if session.lost is not None:
            session.notice(tr("no_moves_while_lost"))
        elif model.finished:
            session.notice(tr("game_over"))
        elif model.status != "active":
            session.notice(tr("game_not_started"))
        elif isinstance(session, AISession) and session.thinking():
            session.notice(tr("ai_thinking"))
        elif session.busy():
            session.notice(tr("move_on_its_way"))
        elif not session.my_seats:
            session.notice(tr("watching_no_moves"))
        else:
            session.notice(tr("wait_opponent"))

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

    def set_view_ply(self, ply: int | None) -> None:
        if ply is not None:
            ply = max(0, min(self.model.ply, ply))
            if ply == self.model.ply:
                ply = None
        self.view_ply = ply
        self.controller.clear()
        self.panel.scroll_moves_to(self.shown_ply() - 1)

    def step_view(self, delta: int) -> None:
        self.set_view_ply(self.shown_ply() + delta)

    # ------------------------------------------------------------ input

    def handle_event(self, event: pygame.event.Event) -> None:
        if self.dialog is not None:
            self.dialog.handle_event(event)
            return
        if self.help and event.type in (pygame.KEYDOWN, pygame.MOUSEBUTTONDOWN):
            self.help = False
            return
        if event.type in (pygame.MOUSEMOTION, pygame.MOUSEBUTTONDOWN):
            self._pointer = event.pos  # where the wheel turns
        if self.panel.handle_event(event):
            return
        if event.type == pygame.KEYDOWN:
            self._key(event)
        elif event.type == pygame.MOUSEBUTTONDOWN:
            self._mouse_down(event)
        elif event.type == pygame.MOUSEMOTION:
            self.controller.motion(event.pos)
        elif event.type == pygame.MOUSEBUTTONUP and event.button == 1:
            self.controller.release(event.pos)
        elif event.type == pygame.MOUSEWHEEL:
            pos = self._pointer
            if not self.panel.wheel(pos, event.y) and self.view.rect.collidepoint(pos):
                self.step_view(-1 if event.y > 0 else 1)

    def _key(self, event: pygame.event.Event) -> None:
        key = event.key
        controller = self.controller
        if key == pygame.K_ESCAPE:
            if controller.holding():
                controller.cancel()
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
        on_board = self.playing() and self.view_ply is None
        if key in arrows:
            if on_board:
                controller.move_cursor(*arrows[key])
            elif key in (pygame.K_LEFT, pygame.K_RIGHT):
                self.step_view(-1 if key == pygame.K_LEFT else 1)
            return
        if key in (pygame.K_RETURN, pygame.K_KP_ENTER, pygame.K_SPACE):
            if on_board:
                controller.enter()
            return
        steps = {
            pygame.K_COMMA: lambda: self.step_view(-1),
            pygame.K_PERIOD: lambda: self.step_view(1),
            pygame.K_HOME: lambda: self.set_view_ply(0),
            pygame.K_END: lambda: self.set_view_ply(None),
            pygame.K_TAB: self.panel.focus_chat,
            pygame.K_l: self.toggle_latin,
            pygame.K_n: self.toggle_notation,
            pygame.K_m: self.toggle_sound,
        }
        if key in steps:
            steps[key]()
            return
        name = pygame.key.name(key)
        for action in self.panel.actions:
            if action.key and action.key.lower() == name and action.enabled:
                self.do(action.id)
                return

    def _mouse_down(self, event: pygame.event.Event) -> None:
        if event.button == 3:
            self.controller.cancel()
            return
        if event.button != 1 or self.panel.click(event.pos):
            return
        if self.view.rect.collidepoint(event.pos):
            self.banner_hidden = True
            self.controller.press(event.pos)

    # ------------------------------------------------------------ update

    def update(self, dt: float) -> None:
        now = time.monotonic()
        session = self.session
        session.update(now)
        model = session.model
        if self._asks_online and model.finished:
            # the game ended while "it goes on without you" was asked: nothing is lost
            # by leaving now, and the question would say what is no longer true
            self.dialog = None
        if model is not self._seen_model:
            key = (model.variant, model.options.get("size"))
            if key != self._view_key:
                self._view_key = key
                latin, flipped = self.view.latin, self.view.flipped
                self.ui = variant_ui(model.variant)
                self.view = self.ui.view(model.options)
                self.view.latin, self.view.flipped = latin, flipped
                self.controller = self.ui.controller(self)
                self.layout(self.app.screen.get_size())
            if self._seen_model is not None:
                self.view_ply = None
                self.controller.selected = None
            self._seen_model = model
            self._seen_version = -1
            self._last_ply = model.ply
        if model.version != self._seen_version:
            self._seen_version = model.version
            self._new_position()
        cue = self.cues.follow(model)
        if cue is not None:
            self.app.sound.play(cue)
        self.controller.follow_premove()
        kept = (id(model), model.version, model.status)
        if kept != self._kept:  # after every move, and once the game ends
            self._kept = kept
            self.keep()
        self.check_flash = max(0.0, self.check_flash - dt)
        if self._anim is not None:
            frm, to, done = self._anim
            done += dt / ANIMATION_S
            self._anim = None if done >= 1.0 else (frm, to, done)
        self.panel.update(dt)
        self.panel.set_actions(self._actions())
        self._follow_lobby(now)
        self._follow_rating(now)

    def _new_position(self) -> None:
        model = self.model
        self.controller.new_position()
        if model.in_check() and not model.finished:
            self.check_flash = 1.6
        if model.finished:
            self.check_flash = 0.0
        self.banner_hidden = False
        if self.view_ply is None:
            self.panel.scroll_moves_to(model.ply - 1)
        grew = model.ply == self._last_ply + 1
        self._anim = None
        last = model.position().last_move if grew else ()
        if len(last) == 2 and self.app.settings.animate and not self.controller.dropped:
            self._anim = (self.view.point(last[0]), self.view.point(last[1]), 0.0)
        self.controller.dropped = False
        self._last_ply = model.ply

    def _follow_lobby(self, now: float) -> None:
        lobby = self.app.lobby if hasattr(self, "app") else None
        if lobby is None:
            return
        session = self.session
        busy = isinstance(session, OnlineSession) and session.seat is not None
        if self.next_game is None and lobby.assignments and (not busy or self.model.finished):
            game = lobby.next_assignment()
            self.next_game = ToSeat(game) if game is not None else None
            self._next_game_at = now + (2.0 if busy else 0.0)
            if self.next_game is not None:
                session.notice(tr("next_game_ready"))
        if self.next_game is not None and now >= self._next_game_at:
            destination, self.next_game = self.next_game, None
            self.app.go(destination)

    def _follow_rating(self, now: float) -> None:
        """A rated game of yours: your rating in its game when it began and, once the
        matchmaker has counted the result (the lobby's list of players, asked again
        every :data:`RATING_ASK_S` until it moves), how it changed, said in the
        status line: ``1500 → 1516 (+16)``."""
        lobby = self.app.lobby if hasattr(self, "app") else None
        session = self.session
        if (
            lobby is None
            or not isinstance(session, OnlineSession)
            or session.seat is None
            or session.assignment is None
            or not session.assignment.rated
            or session.rating_change
        ):
            return
        mine = next((p for p in lobby.state.players if p.name == lobby.name), None)
        rating = mine.ratings.get(self.model.variant) if mine is not None else None
        if not self.model.finished:
            if rating is not None:
                self._rating_before = rating
            return
        before = self._rating_before
        if before is None or rating is None:
            return
        if rating != before:
            change = round(rating) - round(before)
            session.rating_change = tr(
                "rating_change", before=round(before), after=round(rating), delta=f"{change:+d}"
            )
            session.notice(session.rating_change)  # at once, then in the status line
        elif now >= self._rating_asked_at + RATING_ASK_S and self._rating_asks < RATING_ASKS:
            self._rating_asked_at, self._rating_asks = now, self._rating_asks + 1
            lobby.send(commands.Refresh())

    # ------------------------------------------------------------ drawing

    def draw(self, surface: pygame.Surface) -> None:
        surface.fill(theme.BACKGROUND)
        board = self.shown_board()
        self.view.draw(surface, board, self.marks())
        self.panel.draw(surface)
        self._draw_board_overlays(surface)  # some over the panel: after it
        if self.help:
            self._draw_help(surface)
        if self.dialog is not None:
            self.dialog.draw(surface)

    def marks(self) -> Marks:
        """What to draw over the shown position: its last move and markers, the input
        state, the sliding piece."""
        marks = Marks()
        self.view.position_marks(self.model.position(self.shown_ply()), marks)
        self.controller.marks(marks)
        if self._anim is not None and self.view_ply is None:
            frm, to, done = self._anim
            (x0, y0), (x1, y1) = self.view.center(frm), self.view.center(to)
            t = 1 - (1 - done) ** 2  # ease out
            marks.sliding = (to, (round(x0 + (x1 - x0) * t), round(y0 + (y1 - y0) * t)))
        return marks

    def _draw_board_overlays(self, surface: pygame.Surface) -> None:
        """The banners (check, the result, waiting for the start) and the
        connection-lost band.  Nothing drawn here hides a piece, a stone or a word on
        the board: a banner goes over the board only in a band where none is
        (:meth:`BoardView.banner_area`), else over the panel's status box; the
        connection-lost band goes over the panel's moves and chat.  Which move is
        shown when stepping back is said in the side panel."""
        model, view = self.model, self.view
        self.banner_rect = None
        live = self.view_ply is None
        if self.check_flash > 0 and live:
            word = "将军!"
            probe = font(BOARD_FONT, BANNER_MIN_SIZE)
            area = view.banner_area(
                model.position(self.shown_ply()), least_width=probe.size(word)[0] + 8
            )
            if area is not None:  # else the status line's 将军! Check says it
                size = _fitting(font(BOARD_FONT, 10), word, round(view.cell * 1.2), area.size)
                image = font(BOARD_FONT, size).render(word, True, theme.CHECK)
                while image.get_height() > area.height and size > BANNER_MIN_SIZE:
                    size -= 2  # the line is taller than the letters: all of it in the band
                    image = font(BOARD_FONT, size).render(word, True, theme.CHECK)
                image.set_alpha(min(255, int(255 * min(1.0, self.check_flash / 0.5))))
                self.banner_rect = image.get_rect(center=area.center)
                surface.blit(image, self.banner_rect)
        if model.finished and model.result and not self.banner_hidden and live:
            chinese, english = model.headline()
            head, why = f"{chinese}  {english}", model.ending
            self._draw_banner(surface, [head, why] if why else [head])
        if model.status == "waiting":
            key = "waiting_start_banner"
            self._draw_banner(surface, [zh(key), en(key)])
        self.lost_rect = draw_lost(
            surface, self.panel.lost_area(), lost_lines(self.session, time.monotonic())
        )

    def notice_area(self) -> pygame.Rect:
        # the app's notices and the lost-server line: over the panel's moves and
        # chat, off the board (from the bottom up: the lost band's headline shows)
        return self.panel.lost_area()

    def _banner_place(self, lines: list[str]) -> tuple[pygame.Rect, list[str]]:
        """Where the banner of ``lines`` goes and the lines it shows there: a band on
        the board with room for them (one line, joined, where the band is low), else
        the panel's status box, off the board."""
        position = self.model.position(self.shown_ply())
        probe = font(UI_FONT, BANNER_MIN_SIZE)
        wide = max(probe.size(line)[0] for line in lines) + 24
        area = self.view.banner_area(position, least_width=wide)
        if area is not None and (len(lines) == 1 or area.height >= 2 * BANNER_MIN_SIZE + 10):
            return area, lines
        joined = ["  ·  ".join(lines)]
        area = self.view.banner_area(position, least_width=probe.size(joined[0])[0] + 24)
        if area is not None:
            return area, joined
        return pygame.Rect(self.panel.rects["status"]).inflate(8, 4), lines

    def _draw_banner(self, surface: pygame.Surface, lines: list[str]) -> None:
        """``lines`` on a dark card (see :meth:`_banner_place`), each as large as
        fits: the first in the board's font, larger; the card as wide as its text."""
        area, lines = self._banner_place(lines)
        weights = [1.3] + [1.0] * (len(lines) - 1)
        unit = (area.height - 4) / (sum(weights) * 1.12)
        sizes, widths = [], []
        for i, (text, weight) in enumerate(zip(lines, weights, strict=True)):
            name = BOARD_FONT if i == 0 else UI_FONT
            box = (area.width - 16, round(unit * weight * 1.12))
            size = _fitting(font(name, 10), text, round(unit * weight), box)
            sizes.append(size)
            widths.append(font(name, size).size(text)[0])
        card_rect = pygame.Rect(0, 0, min(area.width, max(widths) + 32), area.height)
        card_rect.center = area.center
        card = pygame.Surface(card_rect.size, pygame.SRCALPHA)
        pygame.draw.rect(card, (30, 20, 14, 225), card.get_rect(), border_radius=6)
        surface.blit(card, card_rect)
        self.banner_rect = card_rect
        y = area.centery - round(unit * sum(weights) * 1.12) // 2
        for i, (text, weight) in enumerate(zip(lines, weights, strict=True)):
            height = round(unit * weight * 1.12)
            draw_text(
                surface,
                text,
                (area.centerx, y + height // 2),
                sizes[i],
                theme.ACCENT if i == 0 else theme.TEXT,
                anchor="center",
                name=BOARD_FONT if i == 0 else UI_FONT,
            )
            y += height

    def _draw_help(self, surface: pygame.Surface) -> None:
        w, h = surface.get_size()
        shade = pygame.Surface((w, h), pygame.SRCALPHA)
        shade.fill((0, 0, 0, 170))
        surface.blit(shade, (0, 0))
        box = pygame.Rect(0, 0, min(w - 40, 720), min(h - 40, 70 + 28 * len(HELP)))
        box.center = (w // 2, h // 2)
        pygame.draw.rect(surface, theme.PANEL, box, border_radius=10)
        pygame.draw.rect(surface, theme.ACCENT, box, 2, border_radius=10)
        draw_text(surface, tr("help_title"), (box.x + 20, box.y + 14), 20, theme.ACCENT)
        # a small window: the lines closer, the keys' column narrower, a long line smaller
        pitch = max(20, min(28, (box.height - 62) // len(HELP)))
        keys_w = 210 if box.width >= 700 else 170
        room = box.width - keys_w - 40
        for i, (keys, what) in enumerate(HELP):
            y = box.y + 52 + i * pitch
            size = fit_size(what, (15, 14, 13, 12), room)
            draw_text(surface, keys, (box.x + 20, y), min(15, pitch - 6), theme.TEXT)
            draw_text(surface, what, (box.x + 20 + keys_w, y), size, theme.TEXT_DIM, max_width=room)


def _fitting(probe: pygame.font.Font, text: str, size: int, box: tuple[int, int]) -> int:
    """The font size, at most ``size``, at which ``text`` fits ``box`` (width, height);
    ``probe`` is the font at size 10, whose text width scales with the size."""
    width = max(1, probe.size(text)[0])
    return max(8, min(size, box[1], box[0] * 10 // width))


# ================================================================ the routes to this screen


def offline_game(app: Host, to: ToOfflineGame, *, keep_id: str = "") -> GameScene:
    """A game on this computer: two players, or one against the AI; kept while it is
    unfinished (under ``keep_id``, or a new id)."""
    tc = to.time_control or app.settings.local_time
    options = dict(to.options)
    session: LocalSession
    level = to.ai
    if level is None:
        session = LocalSession(to.variant, options=options, start_fen=to.fen, time_control=tc)
    else:
        ui = variant_ui(to.variant)
        session = AISession(
            to.variant,
            ai_factory=lambda: ui.ai(level, to.ai_time_ms, to.seed),
            level=level,
            human_seat=0 if to.side in ("first", "red", "black-stones") else 1,
            options=options,
            start_fen=to.fen,
            time_control=tc,
            human_name=app.settings.name,
            ai_time_ms=to.ai_time_ms,
        )
    return GameScene(session, back=ToMenu(), keep_id=keep_id or resume.new_id())


def resumed_game(app: Host, to: ToResume) -> GameScene:
    """An unfinished offline game as it was kept: moves, clocks, players, AI level."""
    game = resume.find(app.data_dir, to.game_id)
    destination = ToOfflineGame(
        game.variant,
        options=dict(game.options),
        ai=game.ai_level if game.kind == "ai" else None,
        side=game.side,
        fen=game.start_fen,
        time_control=game.time_control,
        ai_time_ms=game.ai_time_ms,
    )
    try:
        scene = offline_game(app, destination, keep_id=game.id)
        session = scene.session
        assert isinstance(session, LocalSession)
        remaining = game.remaining_ms
        session.resume(list(game.moves), (remaining[0], remaining[1]) if remaining else None)
    except (ValueError, TypeError, IndexError) as exc:
        why = illegal_text(exc) if isinstance(exc, IllegalMoveError) else str(exc)
        raise ValueError(f"{tr('cannot_resume')}: {why}") from None
    if len(game.players) == 2:
        session.model.players = list(game.players)
    return scene


def seated_game(app: Host, to: ToSeat) -> GameScene:
    """The game screen for a seat the matchmaker assigned to us."""
    game = to.game
    referee, referee_pub = game.referee, game.referee_pub
    if not referee_pub and app.referee_endpoints is not None:
        referee_pub = app.referee_endpoints[1]
    if app.lobby is not None:  # a referee named by a wildcard or loopback host
        referee = reachable(referee, app.lobby.server)
        referee_pub = reachable(referee_pub, app.lobby.server) if referee_pub else referee_pub
    name = app.lobby.name if app.lobby is not None else ""
    agent = GameAgent(
        referee,
        referee_pub,
        game.game_id,
        seat=game.seat,
        token=game.token,
        name=name,
        key=game.referee_key,
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
    side = seat_name(game.variant, game.seat).lower()
    mode = "rated" if game.rated else "casual" if not game.tournament_id else ""
    session.notice(tr(f"you_play.{side}") + (f" · {tr(mode)}" if mode else ""))
    return GameScene(session, back=ToLobby())


def watched_game(app: Host, to: ToWatch) -> GameScene:
    """The game screen watching a game live (no seat, chat as a spectator)."""
    where = to.referee or app.referee_endpoints
    if where is None:
        raise ValueError("no referee to watch games on")
    referee, referee_pub = where
    name = app.lobby.name if app.lobby is not None else "spectator"
    game = to.game
    agent = GameAgent(referee, referee_pub, game.game_id, name=name)
    session = OnlineSession(agent, variant=game.variant, players=list(game.players), name=name)
    return GameScene(session, back=ToLobby())


def review_game(app: Host, to: ToReview) -> GameScene:
    """The game screen stepping through the games of a record, from the first position."""
    session = ReviewSession(list(to.games), source=to.source)
    scene = GameScene(session, back=to.back)
    scene.view_ply = 0 if to.games[0].ply else None
    return scene
