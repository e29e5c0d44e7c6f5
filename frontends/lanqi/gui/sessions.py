"""Where the moves of a game come from: the game screen talks to one session.

- :class:`LocalSession`: two people on one computer (both seats are local).
- :class:`AISession`: one person against a built-in AI, which thinks in a
  worker thread so no frame ever waits for it.
- :class:`OnlineSession`: a seat (or a spectator's view) of a game on a
  referee, through a :class:`~lanqi.gui.net.GameAgent` thread.
- :class:`ReviewSession`: records read from a file, to step through.

A session owns a :class:`~lanqi.gui.model.GameModel`.  The screen calls
:meth:`Session.update` once per frame, :meth:`Session.play` for a move the
player made (already checked against the rules), and :meth:`Session.act` for
the buttons that :meth:`Session.actions` offers.  No pygame here.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from lanqi.bot.base import Bot
from lanqi.bot.base import SeatView as BotState
from lanqi.gamestate import GameState as RefereeState
from lanqi.gui import commands
from lanqi.gui.model import (
    ClockView,
    GameModel,
    Pending,
    clock_view,
    seat_name,
    termination_text,
)
from lanqi.gui.net import (
    Disconnected,
    Failed,
    GameAgent,
    LobbyLink,
    Note,
    Reconnected,
    Refused,
    ViewState,
)
from lanqi.i18n import tr
from lanqi.protocol import (
    AcceptDraw,
    AcceptTakeback,
    Assignment,
    DeclineDraw,
    ErrorReply,
    MoveRequest,
    OfferDraw,
    Reply,
    Request,
    RequestTakeback,
    Resign,
    Seek,
)
from lanqi.protocol.timecontrol import parse_time_control
from lanqi.session import RefereeError
from lanqi.table.local import LocalReferee
from lanqi.table.port import Answered

__all__ = [
    "AISession",
    "Action",
    "LocalSession",
    "Notice",
    "OnlineSession",
    "ReviewSession",
    "Session",
    "parse_time_control",
]

log = logging.getLogger(__name__)

#: each clock's time left (ms), or None: untimed
Remaining = tuple[float, float] | None

#: a second press within this many seconds confirms an action that loses the game
CONFIRM_S = 3.0


@dataclass(frozen=True, slots=True)
class Action:
    """A button the session offers now: ``key`` is its keyboard shortcut."""

    id: str
    label: str
    key: str = ""
    enabled: bool = True


@dataclass(frozen=True, slots=True)
class Notice:
    text: str
    error: bool = False
    at: float = 0.0
    #: what the notice is about ("" for nothing in particular)
    key: str = ""
    #: news that is neither done nor wrong (an offer declined): plain text, not green
    plain: bool = False


class Session:
    """The base of every session: a model, the local seats, notices."""

    kind = "session"

    def __init__(self, model: GameModel) -> None:
        self.model = model
        #: seats whose moves are made on this screen
        self.my_seats: frozenset[int] = frozenset()
        self.notices: list[Notice] = []
        self.title = ""
        #: a problem that ends the session (a refused join, say)
        self.failed: str | None = None
        #: the referee does not answer: since when, the next try (online games)
        self.lost: Disconnected | None = None
        #: a rated game over: how it moved your rating (``1500 → 1516 (+16)``), once known
        self.rating_change = ""
        #: action id -> when its first press asked for a second one
        self._armed: dict[str, float] = {}

    # ------------------------------------------------------------ queries

    @property
    def can_chat(self) -> bool:
        return False

    def busy(self) -> bool:
        """True while a move is on its way (the AI thinks, the referee has not answered)."""
        return False

    def can_move(self) -> bool:
        model = self.model
        return (
            model.status == "active"
            and model.seat_to_move in self.my_seats
            and not self.busy()
            and self.failed is None
            and self.lost is None
        )

    def can_premove(self) -> bool:
        """May the local player choose a premove now (online, the opponent's turn)?"""
        return False

    def bottom_seat(self) -> int:
        """The seat shown at the bottom of the board, before any flip."""
        if len(self.my_seats) == 1:
            return next(iter(self.my_seats))
        return 0

    def actions(self) -> list[Action]:
        return []

    def rating_mode(self) -> str:
        """Whether the game counts for the ratings, for the status line ("": nothing
        to say, as in games on this computer)."""
        return ""

    # ------------------------------------------------------------ doing

    def notice(self, text: str, *, error: bool = False, key: str = "", plain: bool = False) -> None:
        """Say ``text`` in the status line; ``key`` names what it is about, so
        :meth:`withdraw` can take it back when that is over; ``plain`` news is
        neither a success nor an error (an offer declined)."""
        self.notices.append(Notice(text, error, time.monotonic(), key, plain))
        del self.notices[:-20]

    def offer_line(self) -> str:
        """An offer waiting for this player's answer, for the status line ("" here)."""
        return ""

    def withdraw(self, key: str) -> None:
        """Drop the notices about ``key`` (an offer that was answered, say)."""
        self.notices = [n for n in self.notices if n.key != key]

    def armed(self, action_id: str) -> bool:
        """Was ``action_id`` pressed once and waits for its confirming second press?"""
        return time.monotonic() - self._armed.get(action_id, -CONFIRM_S) < CONFIRM_S

    def confirmed(self, action_id: str, ask: str) -> bool:
        """True on the second press of ``action_id`` within :data:`CONFIRM_S`; the
        first press only says ``ask`` and arms it."""
        if self.armed(action_id):
            del self._armed[action_id]
            self.withdraw(f"confirm:{action_id}")
            return True
        self._armed[action_id] = time.monotonic()
        self.notice(ask, key=f"confirm:{action_id}")
        return False

    def update(self, now: float) -> None:
        """Called once per frame."""

    def pause(self, on: bool) -> None:
        """The screen asks a question over the game (``on``) or is done asking: a game
        on this computer stops its clock meanwhile; the referee's clocks go on."""

    def play(self, text: str) -> bool:
        """Play a move of a local seat; False (with a notice) if it cannot be played."""
        raise NotImplementedError

    def act(self, action_id: str) -> None:
        log.debug("%s: no action %r", self.kind, action_id)

    def chat(self, text: str) -> None:
        """Say something in the game's chat."""

    def close(self) -> None:
        """Stop threads; the session is not used afterwards."""


# ================================================================ local games

#: a local game's first-move window: longer than anyone sits at one screen, so that,
#: as in lobby games, no clock runs before each side's first move (and none is aborted)
LOCAL_FIRST_MOVE_MS = 24 * 3600 * 1000


class LocalSession(Session):
    """Two people on one computer; optional clocks (``time_control`` like ``5+3``).

    The game is refereed in this process: a :class:`~lanqi.table.local.LocalReferee`
    (the referee's own session) with one table per seat; this screen acts for both
    seats and keeps no game logic (moves, flags, draws, takebacks, resignation and
    clocks are the referee's).  Time stands still for it while a question is asked
    over the game (:meth:`pause`).
    """

    kind = "local"

    def __init__(
        self,
        variant: str,
        *,
        options: Mapping[str, Any] | None = None,
        start_fen: str | None = None,
        time_control: str = "none",
        players: list[str] | None = None,
    ) -> None:
        self._setup = (variant, dict(options or {}), start_fen, list(players or []))
        #: the time control as given (``5+3``, ``none``): kept with an unfinished game
        self.time_text = time_control
        self.time_control = parse_time_control(time_control)
        #: a question is asked over the game: the clocks stand still
        self.paused = False
        self._paused_at = 0.0
        self._paused_for = 0.0
        self.referee = self._start()
        self.tables = [self.referee.table(0), self.referee.table(1)]
        super().__init__(self._new_model())
        self.my_seats = frozenset({0, 1})
        self.title = tr("two_players")

    def _names(self) -> list[str]:
        variant, _, _, players = self._setup
        return players or [seat_name(variant, 0), seat_name(variant, 1)]

    def _start(self, moves: list[str] | None = None, remaining: Remaining = None) -> LocalReferee:
        variant, options, start_fen, _ = self._setup
        tc = dataclasses.replace(self.time_control, first_move_ms=LOCAL_FIRST_MOVE_MS)
        try:
            return LocalReferee.start(
                variant,
                options=options,
                start_fen=start_fen,
                players=self._names(),
                time_control=tc,
                clock=self.game_time,
                over_ok=True,  # set up from a final position: its result shows
                moves=moves or (),
                remaining_ms=remaining,
            )
        except RefereeError as exc:
            raise ValueError(exc.msg) from None

    def _new_model(self) -> GameModel:
        state = self.referee.state
        model = GameModel(
            state.variant, options=state.options, start_fen=state.start_fen, players=self._names()
        )
        model.show(state, clock=self._clock())
        return model

    # ------------------------------------------------------------ the table

    def game_time(self) -> float:
        """The game's own time (monotonic seconds): it stands still while paused."""
        now = time.monotonic()
        if self.paused:
            now = self._paused_at
        return now - self._paused_for

    def _clock(self) -> ClockView:
        """The referee's clocks read now, for the screen (a local game shows no
        first-move window: it lasts longer than anyone sits here)."""
        state = self.referee.state._replace(clock=self.referee.clock_at(self.game_time()))
        return clock_view(state, time.monotonic(), window=False, paused=self.paused)

    def _show(self) -> None:
        self.model.show(self.tables[0].state, clock=self._clock())

    def _poll(self) -> bool:
        """Run the referee's timers now and take the news; True if there was any."""
        now = self.game_time()
        news = [item for table in self.tables for item in table.poll(now)]
        for item in news:
            if isinstance(item, Answered) and item.refusal is not None:
                self.notice(item.refusal.msg or item.refusal.code, error=True)
        return bool(news)

    def _send(self, seat: int, kind: Callable[..., Request], **fields: Any) -> Reply:
        """``seat`` sends a request to the referee; the screen shows what it did."""
        table = self.tables[seat]
        request = kind(game_id=table.game_id, token=table.token or "", **fields)
        request_id = table.send(request)
        now = self.game_time()
        reply: Reply | None = None
        for item in table.poll(now):
            if isinstance(item, Answered) and item.request.id == request_id:
                reply = item.reply
        self._poll()  # the other table's news (the same events)
        self._show()
        assert reply is not None  # a local table answers at once
        return reply

    def _act(self, seat: int, kind: Callable[..., Request], **fields: Any) -> bool:
        """Like :meth:`_send`; a refusal is said in the status line.  True if done."""
        reply = self._send(seat, kind, **fields)
        if isinstance(reply, ErrorReply):
            self.notice(reply.msg or reply.code, error=True)
            return False
        return True

    # ------------------------------------------------------------ clock

    def pause(self, on: bool) -> None:
        if on == self.paused:
            return
        now = time.monotonic()
        if on:
            self._paused_at = now
        else:
            self._paused_for += now - self._paused_at
        self.paused = on
        self._show()

    def remaining_ms(self) -> tuple[float, float] | None:
        """What each clock has left now (None: untimed)."""
        left = self.referee.clock_at(self.game_time()).remaining_ms
        return (float(left[0]), float(left[1])) if len(left) == 2 else None

    def unfinished(self) -> bool:
        """Is there a game to lose: moves played and no result yet?"""
        return self.model.ply > 0 and not self.model.finished

    def resume(self, moves: list[str], remaining_ms: Remaining) -> None:
        """Continue a kept game: ``moves`` from the start, the clocks at ``remaining_ms``
        (the side to move's running from now). Raises ValueError for a move the
        referee refuses."""
        model = self.model
        kept = GameModel(  # raises the rules' own error, with its reason, for a bad move
            model.variant,
            options=model.options,
            start_fen=model.start_fen,
            moves=moves,
            players=model.players,
        )
        self.referee = self._start(moves, remaining_ms)
        self.tables = [self.referee.table(0), self.referee.table(1)]
        self.model = kept
        self._show()

    def update(self, now: float) -> None:
        if self._poll():  # a flag falls here
            self._show()

    # ------------------------------------------------------------ moves

    def play(self, text: str) -> bool:
        wire, reason = self.model.check(text)
        if reason is not None:
            self.notice(reason, error=True)
            return False
        seat = self.model.seat_to_move
        if seat not in self.my_seats:
            self.notice(tr("not_your_move"), error=True)
            return False
        return self._act(seat, MoveRequest, ply=self.model.ply, move=wire)

    # ------------------------------------------------------------ buttons

    def actions(self) -> list[Action]:
        model = self.model
        active = model.status == "active"
        return [
            Action("takeback", tr("undo"), "T", enabled=model.ply > 0 and active),
            Action("offer_draw", tr("draw_button"), "D", enabled=active),
            self._resign_action(),
            self._new_game_action(),
        ]

    def _resign_action(self) -> Action:
        active = self.model.status == "active"
        label = tr("confirm_resign") if self.armed("resign") else tr("resign")
        return Action("resign", label, "R", enabled=active)

    def _new_game_action(self) -> Action:
        label = tr("confirm_new_game") if self.armed("new_game") else tr("new_game")
        return Action("new_game", label, "G")

    def act(self, action_id: str) -> None:
        model = self.model
        if action_id == "new_game":
            ask = tr("press_g_again")
            if not self.unfinished() or self.confirmed("new_game", ask):
                self.new_game()
        elif model.status != "active":
            return
        elif action_id == "takeback" and model.ply > 0:
            self.take_back()
        elif action_id == "offer_draw":
            # both players are here: one offers, the other agrees at once
            seat = model.seat_to_move
            if self._act(seat, OfferDraw):
                self._act(1 - seat, AcceptDraw)
        elif action_id == "resign":
            if not self.confirmed("resign", tr("press_r_again")):
                return
            self._act(self._resigning_seat(), Resign)

    def _resigning_seat(self) -> int:
        return self.model.seat_to_move

    def take_back(self) -> None:
        """Undo the last move: its player asks, the other grants it at once."""
        asker = 1 - self.model.seat_to_move
        if self._act(asker, RequestTakeback):
            self._act(1 - asker, AcceptTakeback)

    def new_game(self) -> None:
        self.referee = self._start()
        self.tables = [self.referee.table(0), self.referee.table(1)]
        self.model = self._new_model()


class AISession(LocalSession):
    """One person against an AI (which thinks in a worker thread); ``ai_factory``
    makes a fresh one (the variant registry knows the built-in AIs).  The AI is a
    seat like the other: it moves, declines draws and grants takebacks through its
    own table, and thinks on the referee's live position (no replay)."""

    kind = "ai"

    def __init__(
        self,
        variant: str,
        *,
        ai_factory: Callable[[], Bot],
        level: int = 3,
        human_seat: int = 0,
        options: Mapping[str, Any] | None = None,
        start_fen: str | None = None,
        time_control: str = "none",
        human_name: str = "",
        ai_time_ms: int | None = None,
    ) -> None:
        self.level = level
        #: the AI's thinking time per move as asked (kept with an unfinished game)
        self.ai_time_ms = ai_time_ms
        self.human_seat = human_seat
        self.ai_seat = 1 - human_seat
        ai_name = f"{tr('computer')} L{level}"
        names = [human_name, ai_name]  # no name: the card says 你 You
        if human_seat == 1:
            names.reverse()
        self.ai: Bot = ai_factory()
        self._executor = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="lanqi-ai")
        self._future: concurrent.futures.Future[str] | None = None
        self._future_ply = -1
        self._generation = 0
        self._future_generation = -1
        super().__init__(
            variant,
            options=options,
            start_fen=start_fen,
            time_control=time_control,
            players=names,
        )
        self.my_seats = frozenset({human_seat})
        self.title = tr("vs_computer", level=level)

    def busy(self) -> bool:
        return self._future is not None

    def thinking(self) -> bool:
        return self._future is not None and not self.model.finished

    def update(self, now: float) -> None:
        super().update(now)
        model = self.model
        future = self._future
        if future is not None and future.done():
            self._future = None
            current = self._future_generation == self._generation and model.ply == self._future_ply
            if current and model.status == "active":
                self._ai_moves(future)
        if self._future is None and model.status == "active" and model.seat_to_move == self.ai_seat:
            self._think()

    def _ai_moves(self, future: concurrent.futures.Future[str]) -> None:
        try:
            text = future.result()
        except Exception as exc:  # the AI failed: it loses, the GUI goes on
            log.exception("the AI failed to move")
            why = str(exc)
        else:
            reply = self._send(self.ai_seat, MoveRequest, ply=self._future_ply, move=text)
            if not isinstance(reply, ErrorReply):
                return
            why = reply.msg or reply.code
        self.notice(f"{tr('computer_failed')}: {why}", error=True)
        self._act(self.ai_seat, Resign)

    def _think(self) -> None:
        model = self.model
        clock = self.referee.clock_at(self.game_time())
        remaining: tuple[int, int] | None = None
        if len(clock.remaining_ms) == 2:
            remaining = (clock.remaining_ms[0], clock.remaining_ms[1])
        state = self.referee.state
        view = BotState(
            game_id=state.game_id,
            variant=state.variant,
            options=dict(state.options),
            seat=self.ai_seat,
            board=self.referee.live_board(),
            moves=list(state.moves),
            start_fen=state.start_fen,
            remaining_ms=remaining,
            increment_ms=self.time_control.increment_ms,
            per_move_ms=self.time_control.per_move_ms,
        )
        self._future_ply = model.ply
        self._future_generation = self._generation
        self._future = self._executor.submit(self.ai.choose_move, view)

    def actions(self) -> list[Action]:
        model = self.model
        active = model.status == "active"
        mine = sum(1 for ply in range(model.ply) if (ply + model.first_seat) % 2 == self.human_seat)
        return [
            Action("takeback", tr("takeback"), "T", enabled=active and mine > 0),
            Action("offer_draw", tr("offer_draw"), "D", enabled=active),
            self._resign_action(),
            self._new_game_action(),
        ]

    def act(self, action_id: str) -> None:
        model = self.model
        if action_id == "offer_draw" and model.status == "active":
            if self._act(self.human_seat, OfferDraw):
                self._act(self.ai_seat, DeclineDraw)
                self.notice(tr("computer_declines_draw"))
            return
        if action_id == "takeback" and model.status == "active":
            self._generation += 1  # whatever the AI is thinking about is void now
            self._future = None
            if self._act(self.human_seat, RequestTakeback):
                self._act(self.ai_seat, AcceptTakeback)
            return
        super().act(action_id)

    def new_game(self) -> None:
        self._generation += 1  # whatever the AI is thinking about is void now
        self._future = None
        super().new_game()

    def _resigning_seat(self) -> int:
        return self.human_seat

    def close(self) -> None:
        self._generation += 1
        self._executor.shutdown(wait=False, cancel_futures=True)
        self.ai.close()


# ================================================================ online


class OnlineSession(Session):
    """A game on a referee: your seat (``assignment``) or a spectator's view."""

    kind = "online"

    def __init__(
        self,
        agent: GameAgent,
        *,
        variant: str,
        options: Mapping[str, Any] | None = None,
        players: list[str] | None = None,
        assignment: Assignment | None = None,
        lobby: LobbyLink | None = None,
        name: str = "",
    ) -> None:
        super().__init__(GameModel(variant, options=options, players=players, status="waiting"))
        self.agent = agent
        self.assignment = assignment
        self.lobby = lobby
        self.name = name
        self.seat = assignment.seat if assignment is not None else None
        self.my_seats = frozenset({self.seat}) if self.seat is not None else frozenset()
        self.kind = "online" if self.seat is not None else "spectate"
        self.pending: Pending | None = None
        self.view: ViewState | None = None
        self._clock_at: float | None = None
        self._chat_seen: set[int] = set()  # seq of the chat lines already shown
        where = tr("online_game") if self.seat is not None else tr("watching")
        if assignment is not None and assignment.tournament_id:
            where = tr("tournament_round", round=assignment.round)
        self.title = where
        if not agent.is_alive():
            agent.start()

    @property
    def can_chat(self) -> bool:
        return True

    @property
    def game_id(self) -> str:
        return self.agent.game_id

    def busy(self) -> bool:
        return self.pending is not None

    def can_premove(self) -> bool:
        model = self.model
        return (
            self.seat is not None
            and self.failed is None
            and self.lost is None  # no new premove while the connection is lost
            and model.status == "active"
            and model.seat_to_move != self.seat
        )

    def update(self, now: float) -> None:
        for item in self.agent.poll():
            if isinstance(item, ViewState):
                self._apply(item)
            elif isinstance(item, Refused):
                if isinstance(item.command, commands.PlayMove):
                    self.pending = None
                    self._apply_moves()
                self.notice(f"{item.command.label}: {item.msg or item.code}", error=True)
            elif isinstance(item, Disconnected):
                self._lost(item)
            elif isinstance(item, Reconnected):
                self.lost = None
                if item.view is not None:
                    self._apply(item.view)
                self.notice(tr("referee_back"))
            elif isinstance(item, Failed):
                self.failed, self.lost = item.text, None  # the agent stopped: no more tries
                self.notice(item.text, error=True)
            elif isinstance(item, Note):
                self.notice(item.text, error=item.error)

    def _lost(self, lost: Disconnected) -> None:
        """The referee does not answer: freeze the clocks where they were when it was
        last heard (nobody here knows them after that), forget a move on its way."""
        if self.lost is None:
            clock = self.model.clock
            left = [clock.left_ms(seat, lost.since) or 0.0 for seat in (0, 1)]
            self.model.clock = ClockView(left if clock.timed else [], None, lost.since)
            if self.pending is not None:
                self.pending = None
                self._apply_moves()
        self.lost = lost

    def _apply(self, view: ViewState) -> None:
        """Show the game state the agent's view folded (lanqi.gamestate) on the model."""
        old = self.view.state if self.view is not None else None
        self.view = view
        new = view.state
        model = self.model
        options = {k: v for k, v in new.options.items() if k != "fen"}
        first = old is None and (new.start_fen != model.start_fen or options != model.options)
        if model.variant != new.variant or first:  # a watched game's size, say
            self.model = model = GameModel(
                new.variant, options=new.options, start_fen=new.start_fen
            )
        if self.pending is not None and (
            len(new.moves) > self.pending.ply or new.status != "active"
        ):
            self.pending = None
        if old is None or new.clock is not old.clock or self._clock_at is None:
            self._clock_at = view.at  # when these times were read, not a later chat line
        self._apply_moves(clock_view(new, self._clock_at))
        model.players = [p or seat_name(new.variant, i) for i, p in enumerate(new.players)]
        self._offers(old, new)
        # A player in a rated game sees the spectators' room only once the game is
        # over: no kibitzing (a courtesy of this client; the referee publishes both).
        hide_spectators = self.seat is not None and not new.casual and new.status != "finished"
        for chat in new.chat:  # a resync may add lines the view missed, not only at the end
            if hide_spectators and chat.room == "spectators":
                continue
            if chat.seq not in self._chat_seen:
                self._chat_seen.add(chat.seq)
                model.chat.append(chat)

    def _apply_moves(self, clock: ClockView | None = None) -> None:
        """Show the view's state, with our move on its way after its moves."""
        model = self.model
        state = self.view.state if self.view is not None else model.state
        try:
            model.show(state, clock=clock, pending=self.pending)
        except ValueError as exc:  # a pending move the referee has not taken
            log.info("dropping a local move: %s", exc)
            self.pending = None
            model.show(state, clock=clock)

    def who(self, seat: int) -> str:
        """A seat's player by name (the side's name where the seat has none)."""
        players = self.model.players
        name = players[seat] if 0 <= seat < len(players) else ""
        return name or seat_name(self.model.variant, seat)

    def offer_line(self) -> str:
        """The offer that waits for this player's answer, by the offering player's
        name and with both answers' keys (the status line shows it while it stands),
        or ""."""
        model = self.model
        if self.seat is None or model.status != "active":
            return ""
        them = 1 - self.seat
        if model.draw_offer == them:
            return tr("draw_offer_answer", name=self.who(them))
        if model.takeback_offer == them and model.casual:
            return tr("takeback_answer", name=self.who(them))
        return ""

    def _offers(self, old: RefereeState | None, new: RefereeState) -> None:
        if old is not None:
            same_ply = len(new.moves) == len(old.moves)
            offered = old.draw_offer
            if (
                offered is not None
                and new.draw_offer is None
                and new.status == "active"
                and same_ply
            ):
                # the offer's receiver declined it
                declined = tr("draw_declined_by", name=self.who(1 - offered))
                self.model.say(declined)
                if offered == self.seat:
                    self.notice(declined, plain=True)
            if len(new.moves) < len(old.moves):
                self.model.say(tr("moves_taken_back", n=len(old.moves) - len(new.moves)))
            elif (
                (asked := old.takeback_offer) is not None
                and new.takeback_offer is None
                and same_ply
            ):
                refused = tr("takeback_refused_by", name=self.who(1 - asked))
                self.model.say(refused)
                if asked == self.seat:
                    self.notice(refused, plain=True)
            if old.status != "finished" and new.status == "finished":
                cn, en = self.model.headline()
                why = termination_text(new.termination)
                self.model.say(f"{cn} {en} · {why}" if why else f"{cn} {en}")
        if new.draw_offer is not None and (old is None or old.draw_offer != new.draw_offer):
            self.model.say(tr("draw_offered", name=self.who(new.draw_offer)))
        if new.takeback_offer is not None and (
            old is None or old.takeback_offer != new.takeback_offer
        ):
            self.model.say(tr("takeback_asked_by", name=self.who(new.takeback_offer)))

    def play(self, text: str) -> bool:
        model = self.model
        if self.seat is None:
            self.notice(tr("spectators_cannot_move"), error=True)
            return False
        if self.lost is not None:
            self.notice(tr("no_moves_while_lost"), error=True)
            return False
        if self.pending is not None:
            self.notice(tr("wait_last_move"), error=True)
            return False
        wire, reason = model.check(text)
        if reason is None and model.seat_to_move != self.seat:
            reason = tr("not_your_move")
        if reason is not None:
            self.notice(reason, error=True)
            return False
        ply = model.ply
        self.pending = Pending(ply, wire)
        self._apply_moves()  # shown at once, until the referee answers
        self.agent.send(commands.PlayMove(ply, wire))
        return True

    def rating_mode(self) -> str:
        """``等级赛 Rated``, ``Casual`` (takebacks allowed) or "" (neither: an unrated
        tournament game)."""
        if self.assignment is not None and self.assignment.rated:
            return tr("rated_button")
        return tr("casual_button") if self.model.casual else ""

    def _my_moves(self) -> int:
        model = self.model
        return sum(1 for ply in range(model.ply) if (ply + model.first_seat) % 2 == self.seat)

    def actions(self) -> list[Action]:
        model = self.model
        if self.seat is None:
            return []
        them = 1 - self.seat
        actions: list[Action] = []
        if model.status == "active":
            # an offer's answers come beside the button that makes one, which stays
            # (disabled) in its place
            if model.draw_offer == them:
                actions.append(Action("accept_draw", tr("accept_draw"), "D"))
                actions.append(Action("decline_draw", tr("decline"), "X"))
            asked = model.draw_offer is not None
            label = tr("draw_offered_button") if model.draw_offer == self.seat else tr("offer_draw")
            actions.append(Action("offer_draw", label, "D", enabled=not asked))
            if model.casual:
                if model.takeback_offer == them:
                    actions.append(Action("accept_takeback", tr("allow_takeback"), "T"))
                    actions.append(Action("decline_takeback", tr("refuse_takeback"), "X"))
                asked = model.takeback_offer == self.seat
                actions.append(
                    Action(
                        "takeback",
                        tr("takeback_asked") if asked else tr("takeback"),
                        "T",
                        enabled=model.takeback_offer is None and self._my_moves() > 0,
                    )
                )
            label = tr("confirm_resign") if self.armed("resign") else tr("resign")
            actions.append(Action("resign", label, "R"))
        elif model.finished and self._rematch_seek() is not None:
            actions.append(Action("rematch", tr("rematch"), "G"))
        if self.lost is not None:  # nothing reaches the referee now
            actions = [dataclasses.replace(action, enabled=False) for action in actions]
        return actions

    def _rematch_seek(self) -> Seek | None:
        a = self.assignment
        if a is None or self.lobby is None or a.tournament_id or len(a.players) != 2:
            return None
        # the colours swap: the challenger asks for the seat the opponent just had
        return Seek(
            variant=a.variant,
            options=dict(a.options),
            time_control=a.time_control,
            rated=a.rated,
            color="second" if a.seat == 0 else "first",
        )

    def act(self, action_id: str) -> None:
        if action_id == "rematch":
            seek = self._rematch_seek()
            if seek is not None and self.lobby is not None and self.assignment is not None:
                opponent = self.assignment.players[1 - self.assignment.seat]
                self.lobby.send(commands.SendChallenge(opponent, seek))
            return
        if action_id == "resign" and not self.confirmed("resign", tr("press_r_again")):
            return
        command = SEAT_ACTIONS.get(action_id)
        if command is not None:
            self.agent.send(command())

    def chat(self, text: str) -> None:
        text = text.strip()
        if text:
            self.agent.send(commands.Say(text[:500]))

    def close(self) -> None:
        self.agent.stop()


#: the online seat's buttons (action ids) -> the command each sends to the referee
SEAT_ACTIONS: dict[str, type[commands.GameCommand]] = {
    "resign": commands.Resign,
    "offer_draw": commands.OfferDraw,
    "accept_draw": commands.AcceptDraw,
    "decline_draw": commands.DeclineDraw,
    "takeback": commands.AskTakeback,
    "accept_takeback": commands.AcceptTakeback,
    "decline_takeback": commands.DeclineTakeback,
}


# ================================================================ review


class ReviewSession(Session):
    """Games read from a record file, stepped through on the game screen."""

    kind = "review"

    def __init__(self, games: list[GameModel], *, source: str = "") -> None:
        if not games:
            raise ValueError("no game to review")
        super().__init__(games[0])
        self.games = games
        self.index = 0
        self.source = source
        self.title = f"{tr('review')} · {source}" if source else tr("review")

    def play(self, text: str) -> bool:
        self.notice(tr("record_only"), error=True)
        return False

    def actions(self) -> list[Action]:
        if len(self.games) < 2:
            return []
        return [
            Action("prev_game", tr("prev_game"), "page up", enabled=self.index > 0),
            Action(
                "next_game", tr("next_game"), "page down", enabled=self.index + 1 < len(self.games)
            ),
        ]

    def act(self, action_id: str) -> None:
        step = {"prev_game": -1, "next_game": 1}.get(action_id, 0)
        index = self.index + step
        if step and 0 <= index < len(self.games):
            self.index = index
            self.model = self.games[index]
