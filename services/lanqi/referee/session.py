"""One game as the referee holds it: rules, seats, clock, offers, and its events.

A :class:`GameSession` has no I/O.  Each command (``move``, ``resign``...) checks
the request, changes the state and returns the events to publish; it raises
:class:`RefereeError` (a stable code and a message) and changes nothing when the
request is refused.  :meth:`GameSession.replay` rebuilds the state from stored
events after a restart, through the same state changes as the live commands.

Times: ``now`` is monotonic milliseconds, passed in by the service.
"""

from __future__ import annotations

import secrets
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from lanqi.clock import ClockError, GameClock
from lanqi.games.base import (
    AmbiguousMoveError,
    Game,
    IllegalMoveError,
    InvalidMoveError,
    Outcome,
    Termination,
)
from lanqi.games.registry import UnknownVariantError, create_game
from lanqi.protocol import (
    MAX_CHAT_HISTORY,
    ChatLine,
    ChatPosted,
    ClockInfo,
    DrawDeclined,
    DrawOffered,
    GameEnded,
    GameEvent,
    GameStarted,
    GameSummary,
    MoveMade,
    PlayerJoined,
    Presence,
    Snapshot,
    TakebackDeclined,
    TakebackRequested,
    TakenBack,
    TimeControl,
)
from lanqi.protocol.endpoints import game_topic

__all__ = ["GameEndedError", "GameSession", "Liveness", "RefereeError", "SessionSetup"]

CHAT_BURST = 5  # messages ...
CHAT_WINDOW_MS = 10_000.0  # ... per this window, per sender


class RefereeError(Exception):
    """A refused request: ``code`` goes into the error reply."""

    def __init__(self, code: str, msg: str) -> None:
        super().__init__(msg)
        self.code = code
        self.msg = msg


class GameEndedError(RefereeError):
    """The request is refused, but checking it ended the game (a flag fell):
    ``events`` must still be stored and published."""

    def __init__(self, code: str, msg: str, events: list[GameEvent]) -> None:
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


@dataclass(slots=True)
class _Seat:
    token: str
    name: str
    joined: bool = False
    connected: bool = False
    last_seen: float = 0.0
    away_since: float = 0.0


@dataclass(slots=True)
class _Ended:
    result: str
    termination: str
    winner: int | None


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


def _make_game(variant: str, options: dict[str, Any], start_fen: str | None) -> Game:
    opts = dict(options)
    if start_fen is not None:
        opts["fen"] = start_fen
    return create_game(variant, **opts)


def _make_clock(tc: TimeControl) -> GameClock:
    return GameClock(
        tc.kind, base_ms=tc.base_ms, increment_ms=tc.increment_ms, per_move_ms=tc.per_move_ms
    )


class GameSession:
    """The authoritative state of one game."""

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
        self.seats = [
            _Seat(token, name, last_seen=now, away_since=now)
            for token, name in zip(setup.tokens, setup.players, strict=True)
        ]
        self.seq = 0
        self.status = "waiting"
        self.ended: _Ended | None = None
        self.draw_offer: int | None = None
        self.takeback_offer: int | None = None
        #: seq of the ``moved`` event of each ply, to answer retries identically
        self.move_seqs: list[int] = []
        self._chat: dict[str, _ChatMeter] = {}
        #: the latest chat lines, for snapshots (rebuilt from the log after a restart)
        self.chat_log: deque[ChatLine] = deque(maxlen=MAX_CHAT_HISTORY)

    # ------------------------------------------------------------ helpers

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.game.options)

    def _next(self) -> int:
        self.seq += 1
        return self.seq

    def clock_info(self, now: float) -> ClockInfo:
        if not self.clock.timed:
            return ClockInfo(remaining_ms=[], running=self.clock.running)
        state = self.clock.state(now)
        return ClockInfo(
            remaining_ms=[max(0, round(t)) for t in state.remaining_ms], running=state.running
        )

    def seat_of(self, token: str | None) -> int:
        """The seat holding ``token``; raises ``bad_token``."""
        if token is not None:
            for index, seat in enumerate(self.seats):
                if secrets.compare_digest(seat.token.encode(), token.encode()):
                    return index
        raise RefereeError("bad_token", "that token holds no seat in this game")

    def _require_live(self) -> None:
        if self.ended is not None:
            raise RefereeError("game_over", f"the game is over ({self.ended.termination})")

    def _require_started(self) -> None:
        self._require_live()
        if self.status != "active":
            raise RefereeError("not_started", "the game starts when both players have joined")

    def seen(self, seat: int, now: float) -> list[GameEvent]:
        """A sign of life from ``seat``; returns a presence event if it was away."""
        state = self.seats[seat]
        state.last_seen = now
        if state.connected or not state.joined or self.ended is not None:
            return []
        state.connected = True
        return [Presence(game_id=self.game_id, seq=self._next(), seat=seat, connected=True)]

    # ------------------------------------------------------------ creation / join

    def created_event(self, now: float) -> GameStarted:
        return GameStarted(
            game_id=self.game_id,
            seq=self._next(),
            variant=self.setup.variant,
            players=list(self.setup.players),
            fen=self.game.fen(),
            clock=self.clock_info(now),
        )

    def join(self, seat: int | None, token: str | None, now: float) -> list[GameEvent]:
        """A player takes its seat (spectators need no event)."""
        if seat is None and token is None:
            return []
        index = self.seat_of(token)
        if seat is not None and seat != index:
            raise RefereeError("bad_token", f"that token holds seat {index}, not seat {seat}")
        events: list[GameEvent] = []
        state = self.seats[index]
        if not state.joined:
            state.joined = True
            state.connected = True  # "joined" implies present: no separate presence event
            events.append(
                PlayerJoined(game_id=self.game_id, seq=self._next(), seat=index, name=state.name)
            )
        events.extend(self.seen(index, now))
        if self.status == "waiting" and all(s.joined for s in self.seats) and not self.ended:
            self.status = "active"
            self.clock.start(self.game.seat_to_move, now)
        return events

    # ------------------------------------------------------------ moves

    def move(self, token: str, ply: int, text: str, now: float) -> tuple[int, str, list[GameEvent]]:
        """Play a move; returns (seq of its event, wire move, events).

        A retry of the move already accepted for ``ply`` returns the same answer
        and no events.
        """
        seat = self.seat_of(token)
        if ply < self.game.ply:
            return self._retry(seat, ply, text)
        if self.ended and self.ended.termination == "timeout" and seat == self.game.seat_to_move:
            raise RefereeError("timeout", "your time ran out before the move arrived")
        self._require_started()
        if ply > self.game.ply:
            raise RefereeError(
                "stale_move", f"ply {ply} is ahead of the game, which is at ply {self.game.ply}"
            )
        if seat != self.game.seat_to_move:
            raise RefereeError("not_your_turn", "it is your opponent's turn")
        flagged = self.clock.flagged(now)
        if flagged is not None:
            events = self.seen(seat, now) + self._end_on_time(flagged, now)
            raise GameEndedError("timeout", "your time ran out before the move arrived", events)
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
        self.clock.press(seat, now)
        self.game.push(move)
        wire = str(move)
        event = MoveMade(
            game_id=self.game_id,
            seq=self._next(),
            ply=self.game.ply - 1,
            seat=seat,
            move=wire,
            text=human,
            fen=self.game.fen(),
            clock=self.clock_info(now),
        )
        self.move_seqs.append(event.seq)
        events.append(event)
        if self.draw_offer is not None and self.draw_offer != seat:
            self.draw_offer = None  # moving declines a pending offer
        self.takeback_offer = None
        outcome = self.game.outcome()
        if outcome is not None:
            events.append(self._end(outcome, now))
        return event.seq, wire, events

    def _retry(self, seat: int, ply: int, text: str) -> tuple[int, str, list[GameEvent]]:
        played = self.game.snapshot()["moves"][ply]
        mover = (ply + self._first_seat()) % 2
        same = mover == seat and text.strip() == played
        if mover == seat and not same:
            replay = _make_game(self.setup.variant, self.setup.options, self.setup.start_fen)
            for earlier in self.game.snapshot()["moves"][:ply]:
                replay.push(replay.parse_move(earlier))
            try:
                same = str(replay.parse_move(text)) == played
            except (InvalidMoveError, IllegalMoveError, AmbiguousMoveError):
                same = False
        if not same:
            raise RefereeError(
                "stale_move",
                f"ply {ply} was already played ({played}); the game is at ply {self.game.ply}",
            )
        return self.move_seqs[ply], played, []

    def _first_seat(self) -> int:
        """Seat that moved first in this game (a FEN may start with seat 1 to move)."""
        return (self.game.seat_to_move - self.game.ply) % 2

    # ------------------------------------------------------------ endings

    def _end(self, outcome: Outcome[Any], now: float) -> GameEnded:
        return self._finish(outcome.result(), outcome.termination.value, outcome.winner_seat, now)

    def _finish(self, result: str, termination: str, winner: int | None, now: float) -> GameEnded:
        self.clock.stop(now)
        self.ended = _Ended(result, termination, winner)
        self.status = "finished"
        self.draw_offer = self.takeback_offer = None
        return GameEnded(
            game_id=self.game_id,
            seq=self._next(),
            result=result,
            termination=termination,
            winner=winner,
            fen=self.game.fen(),
            clock=self.clock_info(now),
        )

    def _end_on_time(self, seat: int, now: float) -> list[GameEvent]:
        winner = 1 - seat
        return [
            self._finish("1-0" if winner == 0 else "0-1", Termination.TIMEOUT.value, winner, now)
        ]

    def resign(self, token: str, now: float) -> list[GameEvent]:
        seat = self.seat_of(token)
        self._require_live()
        events = self.seen(seat, now)
        winner = 1 - seat
        result = "1-0" if winner == 0 else "0-1"
        events.append(self._finish(result, Termination.RESIGNATION.value, winner, now))
        return events

    def abort(self, token: str, now: float) -> list[GameEvent]:
        seat = self.seat_of(token)
        self._require_live()
        if not self.setup.casual:
            raise RefereeError("not_allowed", "rated and tournament games cannot be aborted")
        if self.game.ply >= 2:
            raise RefereeError("not_allowed", "a game can be aborted only before both sides moved")
        events = self.seen(seat, now)
        events.append(self._finish("*", Termination.ABORTED.value, None, now))
        return events

    def offer_draw(self, token: str, now: float) -> list[GameEvent]:
        seat = self.seat_of(token)
        self._require_started()
        if self.draw_offer == seat:
            raise RefereeError("not_allowed", "your draw offer is already pending")
        events = self.seen(seat, now)
        if self.draw_offer == 1 - seat:  # offering when one is pending accepts it
            events.append(self._finish("1/2-1/2", Termination.AGREEMENT.value, None, now))
            return events
        self.draw_offer = seat
        events.append(DrawOffered(game_id=self.game_id, seq=self._next(), seat=seat))
        return events

    def answer_draw(self, token: str, accept: bool, now: float) -> list[GameEvent]:
        seat = self.seat_of(token)
        self._require_started()
        if self.draw_offer != 1 - seat:
            raise RefereeError("no_offer", "your opponent has not offered a draw")
        events = self.seen(seat, now)
        if accept:
            events.append(self._finish("1/2-1/2", Termination.AGREEMENT.value, None, now))
        else:
            self.draw_offer = None
            events.append(DrawDeclined(game_id=self.game_id, seq=self._next(), seat=seat))
        return events

    def request_takeback(self, token: str, now: float) -> list[GameEvent]:
        seat = self.seat_of(token)
        self._require_started()
        if not self.setup.casual:
            raise RefereeError("not_allowed", "takebacks are not allowed in this game")
        if self._takeback_plies(seat) == 0:
            raise RefereeError("not_allowed", "you have no move to take back")
        if self.takeback_offer == seat:
            raise RefereeError("not_allowed", "your takeback request is already pending")
        events = self.seen(seat, now)
        self.takeback_offer = seat
        events.append(TakebackRequested(game_id=self.game_id, seq=self._next(), seat=seat))
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
        if self.takeback_offer != requester:
            raise RefereeError("no_offer", "your opponent has not asked for a takeback")
        events = self.seen(seat, now)
        self.takeback_offer = None
        if not accept:
            events.append(TakebackDeclined(game_id=self.game_id, seq=self._next(), seat=seat))
            return events
        plies = self._takeback_plies(requester)
        self._undo(plies, now)
        events.append(
            TakenBack(
                game_id=self.game_id,
                seq=self._next(),
                plies=plies,
                ply=self.game.ply,
                fen=self.game.fen(),
                clock=self.clock_info(now),
            )
        )
        return events

    def _undo(self, plies: int, now: float) -> None:
        for _ in range(plies):
            self.game.pop()
            self.move_seqs.pop()
        self.draw_offer = None
        if self.clock.running is not None:
            self.clock.start(self.game.seat_to_move, now)

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
            room, speaker = "players", self.seats[seat].name or f"seat {seat}"
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
        self._log_chat(posted)
        events.append(posted)
        return events

    def _log_chat(self, posted: ChatPosted) -> None:
        self.chat_log.append(
            ChatLine(
                seq=posted.seq,
                room=posted.room,
                name=posted.name,
                text=posted.text,
                seat=posted.seat,
            )
        )

    # ------------------------------------------------------------ timers

    def next_deadline(self) -> float | None:
        """The next monotonic time at which :meth:`tick` may have something to do."""
        if self.ended is not None:
            return None
        times = []
        flag = self.clock.flag_deadline() if self.status == "active" else None
        if flag is not None:
            times.append(flag)
        for seat in self.seats:
            if seat.connected:
                times.append(seat.last_seen + self.liveness.disconnect_after_ms)
            else:
                times.append(seat.away_since + self._away_limit(seat))
        return min(times) if times else None

    def _away_limit(self, seat: _Seat) -> float:
        """How long ``seat`` may stay away: the join deadline for a no-show, if set."""
        join_within = self.setup.time_control.join_within_ms
        if not seat.joined and join_within:
            return float(join_within)
        return self.liveness.abandon_after_ms

    def tick(self, now: float) -> list[GameEvent]:
        """Flags, silent seats and abandonment, checked at ``now``."""
        if self.ended is not None:
            return []
        events: list[GameEvent] = []
        if self.status == "active":
            flagged = self.clock.flagged(now)
            if flagged is not None:
                return self._end_on_time(flagged, now)
        for index, seat in enumerate(self.seats):
            if seat.connected and now - seat.last_seen > self.liveness.disconnect_after_ms:
                seat.connected = False
                seat.away_since = seat.last_seen
                events.append(
                    Presence(game_id=self.game_id, seq=self._next(), seat=index, connected=False)
                )
        away = [
            i
            for i, seat in enumerate(self.seats)
            if not seat.connected and now - seat.away_since > self._away_limit(seat)
        ]
        if len(away) == 2:  # nobody is left: no result
            events.append(self._finish("*", Termination.ABANDONED.value, None, now))
        elif away:
            events.append(self._abandon(away[0], now))
        return events

    def _abandon(self, seat: int, now: float) -> GameEnded:
        winner = 1 - seat
        return self._finish(
            "1-0" if winner == 0 else "0-1", Termination.ABANDONED.value, winner, now
        )

    # ------------------------------------------------------------ views

    def snapshot(self, re: int | None, your_seat: int | None, now: float) -> Snapshot:
        record = self.game.snapshot()
        return Snapshot(
            re=re,
            game_id=self.game_id,
            seq=self.seq,
            variant=self.setup.variant,
            options=self.options,
            start_fen=record.get("start"),
            moves=list(record["moves"]),
            fen=self.game.fen(),
            ply=self.game.ply,
            status=self.status,
            result=self.ended.result if self.ended else None,
            termination=self.ended.termination if self.ended else None,
            players=list(self.setup.players),
            connected=[s.connected for s in self.seats],
            clock=self.clock_info(now),
            time_control=self.setup.time_control,
            casual=self.setup.casual,
            draw_offer=self.draw_offer,
            takeback_offer=self.takeback_offer,
            your_seat=your_seat,
            to_move=None if self.ended else self.game.seat_to_move,
            winner=self.ended.winner if self.ended else None,
            chat=list(self.chat_log),
        )

    def summary(self) -> GameSummary:
        return GameSummary(
            game_id=self.game_id,
            variant=self.setup.variant,
            players=list(self.setup.players),
            status=self.status,
            ply=self.game.ply,
            result=self.ended.result if self.ended else None,
        )

    def moves(self) -> list[str]:
        return list(self.game.snapshot()["moves"])

    # ------------------------------------------------------------ recovery

    def replay(self, event: GameEvent, now: float) -> None:
        """Apply a stored event after a restart (nothing is published)."""
        self.seq = event.seq
        if isinstance(event, PlayerJoined):
            self.seats[event.seat].joined = True
            if all(s.joined for s in self.seats) and self.status == "waiting":
                self.status = "active"
                self.clock.start(self.game.seat_to_move, now)
        elif isinstance(event, MoveMade):
            self.game.push(self.game.parse_move(event.move))
            self.move_seqs.append(event.seq)
            self._restore_clock(event.clock, now)
            if self.draw_offer is not None and self.draw_offer != event.seat:
                self.draw_offer = None
            self.takeback_offer = None
        elif isinstance(event, DrawOffered):
            self.draw_offer = event.seat
        elif isinstance(event, DrawDeclined):
            self.draw_offer = None
        elif isinstance(event, TakebackRequested):
            self.takeback_offer = event.seat
        elif isinstance(event, TakebackDeclined):
            self.takeback_offer = None
        elif isinstance(event, TakenBack):
            self.takeback_offer = None
            self._undo(event.plies, now)
            self._restore_clock(event.clock, now)
        elif isinstance(event, GameEnded):
            self.clock.stop(now)
            self.ended = _Ended(event.result, event.termination, event.winner)
            self.status = "finished"
        elif isinstance(event, ChatPosted):
            self._log_chat(event)
        # created and presence change nothing that must survive a restart

    def _restore_clock(self, info: ClockInfo, now: float) -> None:
        if self.clock.timed and len(info.remaining_ms) == 2:
            remaining = (float(info.remaining_ms[0]), float(info.remaining_ms[1]))
            running = info.running if self.status == "active" else None
            self.clock.restore(remaining, running, now)

    def resumed(self, now: float) -> None:
        """After replay: seats count as present from ``now`` (they get the full grace)."""
        for seat in self.seats:
            seat.last_seen = seat.away_since = now
            seat.connected = seat.joined
