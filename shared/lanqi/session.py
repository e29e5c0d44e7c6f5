"""One game as the referee holds it: rules, seats, clock, offers, and its events.

A :class:`GameSession` has no I/O.  Each command (``move``, ``resign``...) checks
the request and creates the events it causes; the session folds each event into
its :class:`~lanqi.gamestate.GameState` with :func:`lanqi.gamestate.apply`, the one
reducer clients use too, and returns the events to publish.  A refused request
raises :class:`RefereeError` (a stable code and a message) and changes nothing.
:meth:`GameSession.restore` rebuilds a game after a restart by folding its stored
events through the same reducer; the rules object and the running clock are then
set from the state (the session keeps them in step with it, live).

Times: ``now`` is monotonic milliseconds, passed in by the service.

Lag compensation: a move whose request says how long its player thought
(``think_ms``) is charged that, not the time it took: the rest - the time the
clock ran this turn less ``think_ms``, the network's lag - is given back within the
seat's :class:`~lanqi.clock.LagQuota` and recorded on the move (``lag_ms``), so a
restored game's quotas are folded from its moves.  A seat whose last move said how
long it thought is flagged only once its clock is past zero by more than its quota
would give back (a move on its way is not lost on time); a seat that never says is
charged and flagged as before.
"""

from __future__ import annotations

import secrets
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from lanqi.clock import ClockError, GameClock, LagQuota, LagRules, awaits_first_move
from lanqi.games.base import (
    AmbiguousMoveError,
    Game,
    IllegalMoveError,
    InvalidMoveError,
    Outcome,
    ResultText,
    Termination,
    first_seat,
    result_for,
    termination_text,
    winner_of,
)
from lanqi.games.registry import UnknownVariantError, create_game
from lanqi.gamestate import GameState, apply, to_snapshot
from lanqi.protocol import (
    TERMINATIONS,
    AbortGame,
    AcceptDraw,
    AcceptTakeback,
    ChatPosted,
    ChatRequest,
    ChatRoom,
    ClockInfo,
    DeclineDraw,
    DeclineTakeback,
    DrawDeclined,
    DrawOffered,
    ErrorReply,
    GameEnded,
    GameEvent,
    GameStarted,
    GameStatus,
    GameSummary,
    Heartbeat,
    Join,
    MoveAccepted,
    MoveMade,
    MoveRequest,
    OfferDraw,
    Ok,
    PlayerJoined,
    Presence,
    Reply,
    Request,
    RequestTakeback,
    Resign,
    Snapshot,
    Sync,
    TakebackDeclined,
    TakebackRequested,
    TakenBack,
    TimeControl,
)
from lanqi.protocol import Termination as WireTermination
from lanqi.protocol.endpoints import game_topic
from lanqi.protocol.schema import ErrorCode

__all__ = [
    "GAME_REQUESTS",
    "ClockReading",
    "GameEndedError",
    "GameSession",
    "Liveness",
    "RefereeError",
    "SessionSetup",
    "answer",
]

CHAT_BURST = 5  # messages ...
CHAT_WINDOW_MS = 10_000.0  # ... per this window, per sender


class RefereeError(Exception):
    """A refused request: ``code`` goes into the error reply."""

    def __init__(self, code: ErrorCode, msg: str) -> None:
        super().__init__(msg)
        self.code = code
        self.msg = msg

    def reply(self, re: int | None) -> ErrorReply:
        """The error reply that refuses request ``re``."""
        return ErrorReply(re=re, code=self.code, msg=self.msg[:500])


class GameEndedError(RefereeError):
    """The request is refused, but checking it ended the game (a flag fell):
    ``events`` must still be stored and published."""

    def __init__(self, code: ErrorCode, msg: str, events: list[GameEvent]) -> None:
        super().__init__(code, msg)
        self.events = events


@dataclass(frozen=True, slots=True)
class Liveness:
    """How long a silent seat stays "connected", and how long it may stay away."""

    disconnect_after_ms: float = 5_000.0
    abandon_after_ms: float = 60_000.0


@dataclass(frozen=True, slots=True)
class SessionSetup:
    """Everything a game is created from (and persisted as its game row)."""

    game_id: str
    variant: str
    options: dict[str, Any]
    start_fen: str | None
    players: list[str]
    tokens: list[str]
    time_control: TimeControl
    casual: bool
    tag: str = ""

    @staticmethod
    def new_tokens() -> list[str]:
        return [secrets.token_urlsafe(16), secrets.token_urlsafe(16)]


@dataclass(frozen=True, slots=True)
class ClockReading:
    """A running clock as recorded between events (the referee's clock marks).

    ``seq``: the game's last event when it was read; ``at``: the monotonic time it
    is taken to have been read at; ``remaining_ms`` per seat, the seat whose clock
    ``running`` and the first-move window's time left (``window_ms``) if one runs.
    """

    seq: int
    remaining_ms: tuple[float, float]
    running: int | None
    window_ms: float | None
    at: float


@dataclass(slots=True)
class _Seat:
    """A seat's token and its timers (runtime only: the rest is in the state)."""

    token: str
    last_seen: float = 0.0
    away_since: float = 0.0


@dataclass(slots=True)
class _ChatMeter:
    sent: deque[float] = field(default_factory=deque)

    def allow(self, now: float) -> bool:
        while self.sent and now - self.sent[0] > CHAT_WINDOW_MS:
            self.sent.popleft()
        if len(self.sent) >= CHAT_BURST:
            return False
        self.sent.append(now)
        return True


def _checked_reason(reason: str, default: Termination) -> str:
    """A seat's ``reason`` for its ending, spaces folded: its own words, but never
    the word of an ending only the rules or the referee decide (``""``: none)."""
    reason = " ".join(reason.split())
    if reason in TERMINATIONS and reason != default.value:
        raise RefereeError("bad_request", f"{reason!r} is decided by the referee, not a seat")
    return "" if reason == default.value else reason


def _make_game(variant: str, options: dict[str, Any], start_fen: str | None) -> Game[Any]:
    opts = dict(options)
    if start_fen is not None:
        opts["fen"] = start_fen
    return create_game(variant, **opts)


def _lag_quota(tc: TimeControl, seat: int) -> LagQuota | None:
    """Seat ``seat``'s lag quota (None untimed)."""
    own = tc.for_seat(seat)
    rules = LagRules.for_time_control(
        own.kind, base_ms=own.base_ms, increment_ms=own.increment_ms, per_move_ms=own.per_move_ms
    )
    return None if rules is None else LagQuota(rules)


def _make_clock(tc: TimeControl) -> GameClock:
    return GameClock(
        tc.kind,
        base_ms=tc.base_ms,
        increment_ms=tc.increment_ms,
        per_move_ms=tc.per_move_ms,
        seat_base_ms=tc.seat_base_ms,
        seat_increment_ms=tc.seat_increment_ms,
        seat_per_move_ms=tc.seat_per_move_ms,
        first_move_ms=tc.first_move_ms,
    )


class GameSession:
    """The authoritative state of one game.

    ``state`` is what the events say (folded by :func:`lanqi.gamestate.apply`);
    ``game`` (the rules object at the live position) and ``clock`` (counting down
    in real time) follow it.
    """

    def __init__(self, setup: SessionSetup, now: float, liveness: Liveness | None = None) -> None:
        try:
            self.game = _make_game(setup.variant, setup.options, setup.start_fen)
            self.clock = _make_clock(setup.time_control)
        except (UnknownVariantError, ClockError, ValueError) as exc:
            raise RefereeError("bad_request", str(exc)) from None
        self.setup = setup
        self.game_id = setup.game_id
        #: the PUB topic of this game's events, encoded
        self.topic = game_topic(setup.game_id).encode()
        self.liveness = liveness or Liveness()
        self.seats = [_Seat(token, last_seen=now, away_since=now) for token in setup.tokens]
        self.state = GameState.new(
            setup.game_id,
            setup.variant,
            self.game.options,
            self.game.snapshot()["start"],
            tuple(setup.players),
            fen=self.game.fen(),
            to_move=self.game.seat_to_move,
            time_control=setup.time_control,
            casual=setup.casual,
            clock=self.clock_info(now),
        )
        self._chat: dict[str, _ChatMeter] = {}
        #: each seat's lag quota (None untimed), and whether its last move said how
        #: long it thought (``think_ms``): only then does a flag wait for its quota
        self.lag_quotas = [_lag_quota(setup.time_control, seat) for seat in (0, 1)]
        self.reports_lag = [False, False]

    @classmethod
    def restore(
        cls,
        setup: SessionSetup,
        events: Iterable[tuple[GameEvent, float]],
        now: float,
        liveness: Liveness | None = None,
        mark: ClockReading | None = None,
    ) -> GameSession:
        """A game rebuilt from its stored events, each with the monotonic time it
        is taken to have happened (nothing is published).

        The events are folded by the same reducer as live; the rules object and
        the clock are then set from the state.  The clock runs from the latest
        reading: the event that last set it, or ``mark`` if that was read later
        (no move since) and agrees on whose clock runs.  After a restart, pass
        ``now`` as the time of every event and of the mark: the clock resumes from
        its latest reading (the time used up to it is charged, the downtime is
        not); for a rebuild in a running referee, the times they were stored at.
        Raises :class:`~lanqi.gamestate.CannotFollow` for a broken log.
        """
        session = cls(setup, now, liveness)
        state = session.state
        since = now
        set_at_seq = 0  # the seq of the event that last set the clock
        for event, at in events:
            before = state.clock
            state = apply(state, event)
            if isinstance(event, MoveMade):
                session._lag_settled(event.seat, event.lag_ms)
            if state.clock is not before:  # a new reading: the clock runs from here
                since = at
                set_at_seq = state.seq
        session.state = state
        for text in state.moves:
            session.game.push(session.game.parse_move(text))
        active = state.status == "active"
        running = state.clock.running if active else None
        window: float | None = None
        if active and state.clock.first_move_left_ms is not None:
            window = float(state.clock.first_move_left_ms)
        waiting = state.to_move if window is not None else None
        remaining = state.clock.remaining_ms
        left = (float(remaining[0]), float(remaining[1])) if len(remaining) == 2 else (0.0, 0.0)
        if (
            mark is not None
            and active
            and mark.seq >= set_at_seq
            and mark.running == running
            and (mark.window_ms is None) == (window is None)
        ):
            left, since = mark.remaining_ms, mark.at
            window = mark.window_ms if window is not None else None
        session.clock.restore(
            left, running, since, waiting=waiting, window_left_ms=float(window or 0)
        )
        return session

    def clock_reading(self, now: float) -> ClockReading | None:
        """The running clock at ``now`` (None if no clock or first-move window runs):
        what the referee records between events, see :meth:`restore`."""
        if self.state.status != "active":
            return None
        clock = self.clock.state(now)
        runs = self.clock.timed and clock.running is not None
        if not runs and clock.first_move_left_ms is None:
            return None
        return ClockReading(
            seq=self.state.seq,
            remaining_ms=clock.remaining_ms if self.clock.timed else (0.0, 0.0),
            running=clock.running,
            window_ms=clock.first_move_left_ms,
            at=now,
        )

    def resumed(self, now: float) -> None:
        """After a restart: seats that had joined count as present from ``now``
        (they get the full grace); with :meth:`kept_seats` the only changes to the
        state not made by an event."""
        for seat in self.seats:
            seat.last_seen = seat.away_since = now
        self.state = self.state._replace(connected=self._joined())

    def kept_seats(self, old: GameSession) -> None:
        """After a rebuild in a running referee: the seats keep their last sign of
        life and presence from ``old``, the session this one replaces."""
        for was, seat in zip(old.seats, self.seats, strict=True):
            seat.last_seen, seat.away_since = was.last_seen, was.away_since
        connected = tuple(
            was and joined for was, joined in zip(old.state.connected, self._joined(), strict=True)
        )
        self.state = self.state._replace(connected=connected)

    # ------------------------------------------------------------ state

    @property
    def status(self) -> GameStatus:
        return self.state.status

    @property
    def over(self) -> bool:
        return self.state.status == "finished"

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.state.options)

    def _joined(self) -> tuple[bool, ...]:
        joined = self.state.joined
        assert joined is not None  # the referee's state always knows
        return joined

    def _emit(self, event: GameEvent, events: list[GameEvent]) -> None:
        """Fold ``event`` into the state and add it to ``events`` (to publish)."""
        self.state = apply(self.state, event)
        events.append(event)

    def _next(self) -> int:
        return self.state.seq + 1

    def clock_info(self, now: float) -> ClockInfo:
        state = self.clock.state(now)
        window = state.first_move_left_ms
        return ClockInfo(
            remaining_ms=[max(0, round(t)) for t in state.remaining_ms] if self.clock.timed else [],
            running=state.running,
            first_move_left_ms=None if window is None else max(0, round(window)),
        )

    def seat_of(self, token: str | None) -> int:
        """The seat holding ``token``; raises ``bad_token``."""
        if token is not None:
            for index, seat in enumerate(self.seats):
                if secrets.compare_digest(seat.token.encode(), token.encode()):
                    return index
        raise RefereeError("bad_token", "that token holds no seat in this game")

    def _require_live(self) -> None:
        if self.over:
            raise RefereeError("game_over", f"the game is over ({self.state.termination})")

    def _require_started(self) -> None:
        self._require_live()
        if self.state.status != "active":
            raise RefereeError("not_started", "the game starts when both players have joined")

    def seen(self, seat: int, now: float) -> list[GameEvent]:
        """A sign of life from ``seat``; returns a presence event if it was away."""
        events: list[GameEvent] = []
        self._seen(seat, now, events)
        return events

    def _seen(self, seat: int, now: float, events: list[GameEvent]) -> None:
        self.seats[seat].last_seen = now
        state = self.state
        if state.connected[seat] or not self._joined()[seat] or self.over:
            return
        self._emit(
            Presence(game_id=self.game_id, seq=self._next(), seat=seat, connected=True), events
        )

    # ------------------------------------------------------------ creation / join

    def created_event(self, now: float) -> GameStarted:
        started = GameStarted(
            game_id=self.game_id,
            seq=self._next(),
            variant=self.setup.variant,
            players=list(self.setup.players),
            fen=self.game.fen(),
            clock=self.clock_info(now),
        )
        self._emit(started, [])
        return started

    def join(self, seat: int | None, token: str | None, now: float) -> list[GameEvent]:
        """A player takes its seat (spectators need no event)."""
        if seat is None and token is None:
            return []
        index = self.seat_of(token)
        if seat is not None and seat != index:
            raise RefereeError("bad_token", f"that token holds seat {index}, not seat {seat}")
        events: list[GameEvent] = []
        if not self._joined()[index]:
            waiting = self.state.status == "waiting"
            # "joined" implies present: the reducer marks the seat connected
            self._emit(
                PlayerJoined(
                    game_id=self.game_id,
                    seq=self._next(),
                    seat=index,
                    name=self.setup.players[index],
                ),
                events,
            )
            if waiting and self.state.status == "active":  # both seats are taken now
                self._begin_turn(now)
        self._seen(index, now, events)
        return events

    # ------------------------------------------------------------ moves

    def move(
        self, token: str, ply: int, text: str, now: float, think_ms: int | None = None
    ) -> tuple[int, str, list[GameEvent]]:
        """Play a move; returns (seq of its event, wire move, events).

        ``think_ms``: how long the player thought, as its client measured it (None:
        not said); the rest of the time the move took is its lag, given back within
        the seat's lag quota (see the module).  A retry of the move already accepted
        for ``ply`` returns the same answer and no events.
        """
        seat = self.seat_of(token)
        state = self.state
        if ply < len(state.moves):
            return self._retry(seat, ply, text)
        if state.termination == "timeout" and seat == self.game.seat_to_move:
            raise RefereeError("timeout", "your time ran out before the move arrived")
        self._require_started()
        if ply > len(state.moves):
            raise RefereeError(
                "stale_move", f"ply {ply} is ahead of the game, which is at ply {len(state.moves)}"
            )
        if seat != self.game.seat_to_move:
            raise RefereeError("not_your_turn", "it is your opponent's turn")
        lag = self._lag(seat, now, think_ms)
        quota = self.lag_quotas[seat]
        may_get = 0 if lag is None or quota is None else min(lag, quota.allowance())
        flagged = self.clock.flagged(now)
        if flagged is not None and self.clock.remaining(flagged, now) + may_get <= 0:
            events = self.seen(seat, now)
            self._end_on_time(flagged, now, events)
            raise GameEndedError("timeout", "your time ran out before the move arrived", events)
        if self.clock.missed_first_move(now) is not None:
            events = self.seen(seat, now)
            self._end_without_first_move(now, events)
            raise GameEndedError(
                "game_over", "your first move came too late: the game was aborted", events
            )
        try:
            move = self.game.parse_move(text)
        except AmbiguousMoveError as exc:
            raise RefereeError("ambiguous_move", str(exc)) from None
        except IllegalMoveError as exc:
            raise RefereeError("illegal_move", str(exc)) from None
        except InvalidMoveError as exc:
            raise RefereeError("bad_move", str(exc)) from None
        # Every check passed: only now may the request change anything (seq included).
        events = self.seen(seat, now)
        human = self.game.move_text(move)
        credit = None if lag is None or quota is None else quota.credit(lag)
        if credit is None and quota is not None:
            quota.settle(0)  # the quota gains after every move of the seat
        self.reports_lag[seat] = credit is not None
        left = None
        if self.clock.timed:
            left = round(max(0.0, self.clock.remaining(seat, now) + (credit or 0)))
        self.clock.press(
            seat, now, first_move_next=awaits_first_move(self.game.ply + 1), credit_ms=credit or 0
        )
        self.game.push(move)
        wire = str(move)
        moved = MoveMade(
            game_id=self.game_id,
            seq=self._next(),
            ply=ply,
            seat=seat,
            move=wire,
            text=human,
            fen=self.game.fen(),
            clock=self.clock_info(now),
            left_ms=left,
            lag_ms=credit,
        )
        self._emit(moved, events)
        outcome = self.game.outcome()
        if outcome is not None:
            self._end(outcome, now, events)
        return moved.seq, wire, events

    def _lag(self, seat: int, now: float, think_ms: int | None) -> float | None:
        """The lag of ``seat``'s move arriving at ``now`` that thought ``think_ms``:
        the time its clock ran this turn less that (0 if its clock did not run: a
        first move); None if the move did not say how long it thought."""
        if think_ms is None:
            return None
        if self.clock.running != seat:
            return 0.0
        return max(0.0, self.clock.running_for(now) - think_ms)

    def _lag_settled(self, seat: int, credit: int | None) -> None:
        """A stored move of ``seat`` got ``credit`` back (None: it did not say how
        long it thought): its quota as it was after the move, live."""
        quota = self.lag_quotas[seat]
        if quota is not None:
            quota.settle(credit or 0)
        self.reports_lag[seat] = credit is not None

    def _grace(self, seat: int) -> int:
        """How far past zero ``seat``'s clock may run before it flags: what its quota
        would give back, if its last move said how long it thought."""
        quota = self.lag_quotas[seat]
        return quota.allowance() if quota is not None and self.reports_lag[seat] else 0

    def _flagged(self, now: float) -> int | None:
        """The seat whose time ran out at ``now``, its lag grace counted."""
        seat = self.clock.flagged(now)
        if seat is None or self.clock.remaining(seat, now) + self._grace(seat) > 0:
            return None
        return seat

    def _retry(self, seat: int, ply: int, text: str) -> tuple[int, str, list[GameEvent]]:
        moves = self.state.moves
        played = moves[ply]
        mover = (ply + first_seat(self.game)) % 2
        same = mover == seat and text.strip() == played
        if mover == seat and not same:
            replay = _make_game(self.setup.variant, self.setup.options, self.setup.start_fen)
            for earlier in moves[:ply]:
                replay.push_text(earlier)
            try:
                same = str(replay.parse_move(text)) == played
            except (InvalidMoveError, IllegalMoveError, AmbiguousMoveError):
                same = False
        if not same:
            raise RefereeError(
                "stale_move",
                f"ply {ply} was already played ({played}); the game is at ply {len(moves)}",
            )
        move_seqs = self.state.move_seqs
        assert move_seqs is not None  # the referee's state always knows
        return move_seqs[ply], played, []

    # ------------------------------------------------------------ endings

    def end_if_over(self, now: float) -> list[GameEvent]:
        """End a live game whose position the rules say is over (a game set up from
        such a position: the referee refuses to create one, a local table shows it)."""
        outcome = self.game.outcome()
        if outcome is None or self.over:
            return []
        events: list[GameEvent] = []
        self._end(outcome, now, events)
        return events

    def _end(self, outcome: Outcome[Any], now: float, events: list[GameEvent]) -> None:
        termination = termination_text(outcome.termination)
        self._finish(outcome.result(), termination, outcome.winner_seat, now, events)

    def _finish(  # noqa: PLR0913 - an ending's fields, the reason keyword-only
        self,
        result: ResultText,
        termination: WireTermination,
        winner: int | None,
        now: float,
        events: list[GameEvent],
        *,
        reason: str = "",
    ) -> None:
        self.clock.stop(now)
        ended = GameEnded(
            game_id=self.game_id,
            seq=self._next(),
            result=result,
            termination=termination,
            winner=winner,
            fen=self.game.fen(),
            clock=self.clock_info(now),
            reason=reason,
        )
        self._emit(ended, events)

    def _end_on_time(self, seat: int, now: float, events: list[GameEvent]) -> None:
        winner = 1 - seat
        self._finish(result_for(winner), termination_text(Termination.TIMEOUT), winner, now, events)

    def _end_without_first_move(self, now: float, events: list[GameEvent]) -> None:
        """The side to move let its first-move window run out: no result."""
        self._finish("*", termination_text(Termination.NO_FIRST_MOVE), None, now, events)

    def _begin_turn(self, now: float) -> None:
        """The side to move's turn begins at ``now`` in a started game: its clock
        runs, or its first-move window if it has yet to move."""
        first_move = awaits_first_move(self.game.ply)
        self.clock.begin_turn(self.game.seat_to_move, now, first_move=first_move)

    def resign(self, token: str, now: float, reason: str = "") -> list[GameEvent]:
        """Give up; ``reason`` (an engine's crash, an illegal move) is recorded beside
        the termination ``resignation``."""
        seat = self.seat_of(token)
        self._require_live()
        said = _checked_reason(reason, Termination.RESIGNATION)
        events = self.seen(seat, now)
        winner = 1 - seat
        self._finish(result_for(winner), "resignation", winner, now, events, reason=said)
        return events

    def adjudicate(self, result: ResultText, reason: str, now: float) -> list[GameEvent]:
        """End the game with ``result`` on the admin's word (the caller checked its
        key): termination ``adjudication``, ``reason`` beside it.  The same
        adjudication of the game it ended asks for nothing more (no events)."""
        reason = " ".join(reason.split())
        if not reason:
            raise RefereeError("bad_request", "an adjudication needs a reason")
        state = self.state
        if self.over:
            if (state.termination, state.result, state.reason) == ("adjudication", result, reason):
                return []  # a retry of the request that ended it
            raise RefereeError("game_over", f"the game is over ({state.termination})")
        events: list[GameEvent] = []
        self._finish(result, "adjudication", winner_of(result), now, events, reason=reason)
        return events

    def abort(self, token: str, now: float) -> list[GameEvent]:
        seat = self.seat_of(token)
        self._require_live()
        if not self.setup.casual:
            raise RefereeError("not_allowed", "rated and tournament games cannot be aborted")
        if self.game.ply >= 2:
            raise RefereeError("not_allowed", "a game can be aborted only before both sides moved")
        events = self.seen(seat, now)
        self._finish("*", termination_text(Termination.ABORTED), None, now, events)
        return events

    def offer_draw(self, token: str, now: float) -> list[GameEvent]:
        seat = self.seat_of(token)
        self._require_started()
        if self.state.draw_offer == seat:
            raise RefereeError("not_allowed", "your draw offer is already pending")
        events = self.seen(seat, now)
        if self.state.draw_offer == 1 - seat:  # offering when one is pending accepts it
            self._finish("1/2-1/2", termination_text(Termination.AGREEMENT), None, now, events)
        else:
            self._emit(DrawOffered(game_id=self.game_id, seq=self._next(), seat=seat), events)
        return events

    def answer_draw(
        self, token: str, accept: bool, now: float, reason: str = ""
    ) -> list[GameEvent]:
        seat = self.seat_of(token)
        self._require_started()
        if self.state.draw_offer != 1 - seat:
            raise RefereeError("no_offer", "your opponent has not offered a draw")
        said = _checked_reason(reason, Termination.AGREEMENT)
        events = self.seen(seat, now)
        if accept:
            self._finish("1/2-1/2", "agreement", None, now, events, reason=said)
        else:
            self._emit(DrawDeclined(game_id=self.game_id, seq=self._next(), seat=seat), events)
        return events

    def request_takeback(self, token: str, now: float) -> list[GameEvent]:
        seat = self.seat_of(token)
        self._require_started()
        if not self.setup.casual:
            raise RefereeError("not_allowed", "takebacks are not allowed in this game")
        if self._takeback_plies(seat) == 0:
            raise RefereeError("not_allowed", "you have no move to take back")
        if self.state.takeback_offer == seat:
            raise RefereeError("not_allowed", "your takeback request is already pending")
        events = self.seen(seat, now)
        self._emit(TakebackRequested(game_id=self.game_id, seq=self._next(), seat=seat), events)
        return events

    def _takeback_plies(self, seat: int) -> int:
        """Plies to undo so that ``seat``'s last move is taken back."""
        if self.game.ply == 0:
            return 0
        last_mover = 1 - self.game.seat_to_move
        if last_mover == seat:
            return 1
        return 2 if self.game.ply >= 2 else 0

    def answer_takeback(self, token: str, accept: bool, now: float) -> list[GameEvent]:
        seat = self.seat_of(token)
        self._require_started()
        requester = 1 - seat
        if self.state.takeback_offer != requester:
            raise RefereeError("no_offer", "your opponent has not asked for a takeback")
        events = self.seen(seat, now)
        if not accept:
            self._emit(TakebackDeclined(game_id=self.game_id, seq=self._next(), seat=seat), events)
            return events
        plies = self._takeback_plies(requester)
        for _ in range(plies):
            self.game.pop()
        if self.state.status == "active":
            self._begin_turn(now)
        taken = TakenBack(
            game_id=self.game_id,
            seq=self._next(),
            plies=plies,
            ply=self.game.ply,
            fen=self.game.fen(),
            clock=self.clock_info(now),
        )
        self._emit(taken, events)
        return events

    # ------------------------------------------------------------ chat

    def chat(
        self, token: str | None, name: str, text: str, sender: str, now: float
    ) -> list[GameEvent]:
        text = text.strip()
        if not text:
            raise RefereeError("bad_request", "empty chat message")
        if token is not None:
            seat: int | None = self.seat_of(token)
            assert seat is not None
            room: ChatRoom = "players"
            speaker = self.setup.players[seat] or f"seat {seat}"
            key = f"seat:{seat}"
        else:
            seat, room = None, "spectators"
            speaker = (name.strip() or "spectator")[:40]
            key = f"peer:{sender}"
        meter = self._chat.setdefault(key, _ChatMeter())
        if not meter.allow(now):
            raise RefereeError(
                "rate_limited", f"at most {CHAT_BURST} messages per {CHAT_WINDOW_MS / 1000:.0f} s"
            )
        events = self.seen(seat, now) if seat is not None else []
        posted = ChatPosted(
            game_id=self.game_id, seq=self._next(), room=room, name=speaker, text=text, seat=seat
        )
        self._emit(posted, events)
        return events

    # ------------------------------------------------------------ timers

    def next_deadline(self) -> float | None:
        """The next monotonic time at which :meth:`tick` may have something to do."""
        if self.over:
            return None
        times = []
        if self.state.status == "active":
            flag = self.clock.flag_deadline()
            running = self.clock.running
            if flag is not None and running is not None:
                times.append(flag + self._grace(running))
            window = self.clock.window_deadline()
            if window is not None:
                times.append(window)
        for index, seat in enumerate(self.seats):
            if self.state.connected[index]:
                times.append(seat.last_seen + self.liveness.disconnect_after_ms)
            else:
                times.append(seat.away_since + self._away_limit(index))
        return min(times) if times else None

    def _away_limit(self, index: int) -> float:
        """How long seat ``index`` may stay away: the join deadline for a no-show, if set."""
        join_within = self.setup.time_control.join_within_ms
        if not self._joined()[index] and join_within:
            return float(join_within)
        return self.liveness.abandon_after_ms

    def tick(self, now: float) -> list[GameEvent]:
        """Flags, first-move windows, silent seats and abandonment, checked at ``now``."""
        if self.over:
            return []
        events: list[GameEvent] = []
        if self.state.status == "active":
            flagged = self._flagged(now)
            if flagged is not None:
                self._end_on_time(flagged, now, events)
                return events
            if self.clock.missed_first_move(now) is not None:
                self._end_without_first_move(now, events)
                return events
        for index, seat in enumerate(self.seats):
            silent = now - seat.last_seen > self.liveness.disconnect_after_ms
            if self.state.connected[index] and silent:
                seat.away_since = seat.last_seen
                gone = Presence(game_id=self.game_id, seq=self._next(), seat=index, connected=False)
                self._emit(gone, events)
        away = [
            i
            for i, seat in enumerate(self.seats)
            if not self.state.connected[i] and now - seat.away_since > self._away_limit(i)
        ]
        if len(away) == 2:  # nobody is left: no result
            self._finish("*", termination_text(Termination.ABANDONED), None, now, events)
        elif away:
            winner = 1 - away[0]
            self._finish(
                result_for(winner), termination_text(Termination.ABANDONED), winner, now, events
            )
        return events

    # ------------------------------------------------------------ views

    def snapshot(self, re: int | None, your_seat: int | None, now: float) -> Snapshot:
        snapshot = to_snapshot(self.state, re=re, your_seat=your_seat, clock=self.clock_info(now))
        return replace(
            snapshot,
            abandon_in_ms=self.abandon_in_ms(now),
            abandon_after_ms=round(self.liveness.abandon_after_ms),
        )

    def abandon_in_ms(self, now: float) -> list[int]:
        """Per seat, how long from ``now`` until it loses by abandonment if it stays
        silent (empty once the game is over): what clients count down."""
        if self.over:
            return []
        left = []
        for index, seat in enumerate(self.seats):
            since = seat.last_seen if self.state.connected[index] else seat.away_since
            left.append(max(0, round(since + self._away_limit(index) - now)))
        return left

    def summary(self) -> GameSummary:
        state = self.state
        return GameSummary(
            game_id=self.game_id,
            variant=state.variant,
            players=list(state.players),
            status=state.status,
            ply=len(state.moves),
            result=state.result,
        )

    @property
    def clock_log(self) -> list[int]:
        """The mover's time left (ms) as each ply arrived (empty untimed)."""
        return list(self.state.clocks or ())  # the referee's state always has them

    def moves(self) -> list[str]:
        return list(self.state.moves)


# ---------------------------------------------------------------- requests

#: what a request for one game does to its session: (reply, events to publish)
_Answer = tuple[Reply, list[GameEvent]]
#: a request's handler; ``sender`` names who sent it (a spectator's chat meter is per sender)
GameRequestHandler = Callable[[GameSession, Any, str, float], _Answer]


def _seat(
    action: Callable[[GameSession, Any, float], list[GameEvent]],
) -> GameRequestHandler:
    def handle(session: GameSession, request: Any, sender: str, now: float) -> _Answer:
        return Ok(re=request.id), action(session, request, now)

    return handle


def _join(session: GameSession, request: Join, sender: str, now: float) -> _Answer:
    events = session.join(request.seat, request.token, now)
    seat = session.seat_of(request.token) if request.token is not None else None
    # the snapshot is taken after the join events: it already counts them
    return session.snapshot(request.id, seat, now), events


def _move(session: GameSession, request: MoveRequest, sender: str, now: float) -> _Answer:
    seq, wire, events = session.move(
        request.token, request.ply, request.move, now, request.think_ms
    )
    reply = MoveAccepted(
        re=request.id, game_id=session.game_id, ply=request.ply, move=wire, seq=seq
    )
    return reply, events


def _chat(session: GameSession, request: ChatRequest, sender: str, now: float) -> _Answer:
    events = session.chat(request.token, request.name, request.text, sender, now)
    return Ok(re=request.id), events


def _sync(session: GameSession, request: Sync, sender: str, now: float) -> _Answer:
    return session.snapshot(request.id, None, now), []


#: every request addressed to one game (it names its ``game_id``), to its handler:
#: the referee service and a local table answer them alike
GAME_REQUESTS: dict[type[Request], GameRequestHandler] = {
    Join: _join,
    MoveRequest: _move,
    Resign: _seat(lambda s, r, now: s.resign(r.token, now, r.reason)),
    AbortGame: _seat(lambda s, r, now: s.abort(r.token, now)),
    OfferDraw: _seat(lambda s, r, now: s.offer_draw(r.token, now)),
    AcceptDraw: _seat(lambda s, r, now: s.answer_draw(r.token, True, now, r.reason)),
    DeclineDraw: _seat(lambda s, r, now: s.answer_draw(r.token, False, now)),
    RequestTakeback: _seat(lambda s, r, now: s.request_takeback(r.token, now)),
    AcceptTakeback: _seat(lambda s, r, now: s.answer_takeback(r.token, True, now)),
    DeclineTakeback: _seat(lambda s, r, now: s.answer_takeback(r.token, False, now)),
    Heartbeat: _seat(lambda s, r, now: s.seen(s.seat_of(r.token), now)),
    ChatRequest: _chat,
    Sync: _sync,
}


def answer(session: GameSession, request: Request, sender: str, now: float) -> _Answer:
    """What the referee answers ``request`` (one of :data:`GAME_REQUESTS`) for
    ``session`` at ``now``, and the events it causes.

    A refusal raises :class:`RefereeError` (its :meth:`~RefereeError.reply` is
    the answer); a :class:`GameEndedError` carries events to publish all the same.
    """
    handler = GAME_REQUESTS.get(type(request))
    if handler is None:
        raise RefereeError("bad_request", f"{request.T!r} is not a request for one game")
    return handler(session, request, sender, now)
