"""A game's state as a pure fold of its events: ``apply(state, event) -> state``.

This is the one place that says what each event on ``game/<id>`` does to a game.
The referee folds the events it creates through :func:`apply` (live, right after a
command is accepted, and on recovery from its log); a client's
:class:`~lanqi.client.referee.GameView` and the GUI fold the events they receive
through the same function, starting from a snapshot (:func:`from_snapshot`).

:class:`GameState` is immutable; :func:`apply` returns a new one and does no I/O.
It knows no rules: the fen, clock and move text come with the events (the referee
decided them).  An event the state cannot follow (out of ``seq`` order, another
game, a move for another ply, a type without a rule) raises :class:`CannotFollow`:
a client then asks for a snapshot; for the referee it is a bug.

>>> from lanqi.protocol import DrawOffered
>>> state = GameState.new("g1", "gomoku", {"size": 15}, None, ("ann", "bob"), fen="15/15 b")
>>> state = apply(state, DrawOffered(game_id="g1", seq=1, seat=0))
>>> state.seq, state.draw_offer
(1, 0)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple, TypeVar

from lanqi.clock import awaits_first_move
from lanqi.games.base import ResultText, winner_of
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
    GameStatus,
    MoveMade,
    PlayerJoined,
    Presence,
    Snapshot,
    TakebackDeclined,
    TakebackRequested,
    TakenBack,
    Termination,
    TimeControl,
)

__all__ = [
    "CannotFollow",
    "GameState",
    "apply",
    "fold",
    "from_snapshot",
    "handles",
    "to_snapshot",
]


class CannotFollow(ValueError):  # noqa: N818 - reads as what happened
    """The event does not follow from the state: take a snapshot instead (a
    ValueError: for the referee, a log that does not fold is broken data)."""


class GameState(NamedTuple):
    """One game as its events tell it (plus what it was created with).

    ``clock`` is the clock as the latest event that carried one told it (and
    started when both seats joined), not counted down.  ``joined``,
    ``move_seqs`` and ``clocks`` are None where the state began from a snapshot,
    which does not carry them: the referee's own state always has them.

    A NamedTuple, not a frozen dataclass: the referee folds every accepted event on
    its hot path, and ``_replace`` copies a tuple about three times faster than
    ``dataclasses.replace`` copies a frozen dataclass.
    """

    game_id: str
    variant: str
    options: Mapping[str, Any]
    start_fen: str | None
    players: tuple[str, ...]
    fen: str
    to_move: int | None
    time_control: TimeControl
    casual: bool
    clock: ClockInfo
    seq: int = 0
    moves: tuple[str, ...] = ()
    status: GameStatus = "waiting"
    result: ResultText | None = None
    termination: Termination | None = None
    winner: int | None = None
    joined: tuple[bool, ...] | None = (False, False)
    connected: tuple[bool, ...] = (False, False)
    draw_offer: int | None = None
    takeback_offer: int | None = None
    #: seq of the ``moved`` event of each ply (the referee answers retries with it)
    move_seqs: tuple[int, ...] | None = ()
    #: the latest chat lines, as many as a snapshot carries
    chat: tuple[ChatLine, ...] = ()
    #: the mover's time left (ms) as each move arrived: the ``moved`` events'
    #: ``left_ms`` (empty untimed; game records write them as ``%clk``); None where
    #: the state began from a snapshot, which does not carry them
    clocks: tuple[int, ...] | None = ()
    #: what the resigning seat or the adjudicator said, beside ``termination``
    #: (``""``: nothing; :func:`lanqi.protocol.termination_label` reads both)
    reason: str = ""

    @classmethod
    def new(
        cls,
        game_id: str,
        variant: str,
        options: Mapping[str, Any],
        start_fen: str | None,
        players: tuple[str, ...],
        *,
        fen: str,
        to_move: int = 0,
        time_control: TimeControl | None = None,
        casual: bool = True,
        clock: ClockInfo | None = None,
    ) -> GameState:
        """A game before its first event (seq 0), as the referee creates it."""
        return cls(
            game_id=game_id,
            variant=variant,
            options=dict(options),
            start_fen=start_fen,
            players=tuple(players),
            fen=fen,
            to_move=to_move,
            time_control=time_control or TimeControl(),
            casual=casual,
            clock=clock or ClockInfo(),
        )

    @property
    def ply(self) -> int:
        return len(self.moves)

    @property
    def finished(self) -> bool:
        return self.status == "finished"

    def public(self) -> GameState:
        """This state without what a snapshot does not carry (to compare views)."""
        return self._replace(joined=None, move_seqs=None, clocks=None)


# ---------------------------------------------------------------- the reducer

E = TypeVar("E", bound=GameEvent)
_Rule = Callable[[GameState, Any], GameState]
_RULES: dict[type[GameEvent], _Rule] = {}


def _rule(kind: type[E]) -> Callable[[Callable[[GameState, E], GameState]], _Rule]:
    def register(rule: Callable[[GameState, E], GameState]) -> _Rule:
        _RULES[kind] = rule
        return rule

    return register


def apply(state: GameState, event: GameEvent) -> GameState:
    """The state after ``event``; raises :class:`CannotFollow` if it does not follow."""
    if event.game_id != state.game_id:
        raise CannotFollow(f"event of game {event.game_id}, not {state.game_id}")
    if event.seq != state.seq + 1:
        raise CannotFollow(f"event seq {event.seq} does not follow seq {state.seq}")
    rule = _RULES.get(type(event))
    if rule is None:
        raise CannotFollow(f"no rule for a {event.T!r} event")
    return rule(state, event)


def handles(kind: type[GameEvent]) -> bool:
    """True if :func:`apply` has a rule for events of type ``kind``."""
    return kind in _RULES


def fold(state: GameState, events: Iterable[GameEvent]) -> GameState:
    """:func:`apply` every event of the iterable ``events`` in turn."""
    for event in events:
        state = apply(state, event)
    return state


def _set(values: tuple[bool, ...], seat: int, value: bool) -> tuple[bool, ...]:
    if len(values) != 2:
        return values
    return (value, values[1]) if seat == 0 else (values[0], value)


@_rule(GameStarted)
def _started(state: GameState, event: GameStarted) -> GameState:
    return state._replace(
        seq=event.seq,
        variant=event.variant,
        players=tuple(event.players),
        fen=event.fen,
        clock=event.clock,
    )


@_rule(PlayerJoined)
def _joined(state: GameState, event: PlayerJoined) -> GameState:
    joined = state.joined
    if joined is None:
        if state.status == "waiting":
            raise CannotFollow("whether the game starts now: the snapshot knows")
    else:
        joined = _set(joined, event.seat, True)
    connected = _set(state.connected, event.seat, True)  # joining is being there
    if state.status == "waiting" and joined is not None and all(joined):
        return state._replace(
            seq=event.seq,
            joined=joined,
            connected=connected,
            status="active",
            clock=_starting_clock(state),
        )
    return state._replace(seq=event.seq, joined=joined, connected=connected)


def _starting_clock(state: GameState) -> ClockInfo:
    """The clock as the game starts (both seats joined): the side to move's clock
    runs, or its first-move window (with the time control's ``first_move_ms``)."""
    window = state.time_control.first_move_ms
    remaining = list(state.clock.remaining_ms)
    if window and awaits_first_move(len(state.moves)):
        return ClockInfo(remaining_ms=remaining, running=None, first_move_left_ms=window)
    return ClockInfo(remaining_ms=remaining, running=state.to_move)


@_rule(Presence)
def _presence(state: GameState, event: Presence) -> GameState:
    return state._replace(
        seq=event.seq, connected=_set(state.connected, event.seat, event.connected)
    )


@_rule(MoveMade)
def _moved(state: GameState, event: MoveMade) -> GameState:
    if event.ply != len(state.moves):
        raise CannotFollow(f"a move for ply {event.ply} at ply {len(state.moves)}")
    draw_offer = state.draw_offer
    if draw_offer is not None and draw_offer != event.seat:
        draw_offer = None  # moving declines the opponent's offer
    move_seqs = state.move_seqs
    left = event.left_ms
    if left is None and len(event.clock.remaining_ms) == 2:  # logged before left_ms
        left = event.clock.remaining_ms[event.seat]
    clocks = state.clocks
    if clocks is not None and left is not None:
        clocks = (*clocks[: event.ply], left)
    return state._replace(
        seq=event.seq,
        clocks=clocks,
        moves=(*state.moves, event.move),
        fen=event.fen,
        clock=event.clock,
        to_move=1 - event.seat,
        draw_offer=draw_offer,
        takeback_offer=None,
        move_seqs=None if move_seqs is None else (*move_seqs, event.seq),
    )


@_rule(TakenBack)
def _taken_back(state: GameState, event: TakenBack) -> GameState:
    keep = len(state.moves) - event.plies
    if event.plies < 0 or keep < 0 or keep != event.ply:
        raise CannotFollow(f"taking back {event.plies} plies to ply {event.ply} at {keep}")
    to_move = state.to_move
    if to_move is not None and event.plies % 2:
        to_move = 1 - to_move
    move_seqs = state.move_seqs
    return state._replace(
        seq=event.seq,
        clocks=None if state.clocks is None else state.clocks[:keep],
        moves=state.moves[:keep],
        fen=event.fen,
        clock=event.clock,
        to_move=to_move,
        draw_offer=None,
        takeback_offer=None,
        move_seqs=None if move_seqs is None else move_seqs[:keep],
    )


def _pending(*, draw: bool, made: bool) -> _Rule:
    """The rule of an event that makes (or declines) a draw offer (or a takeback
    request): the pending offer becomes the event's seat (or None)."""

    def rule(state: GameState, event: DrawOffered | DrawDeclined) -> GameState:
        seat = event.seat if made else None
        if draw:
            return state._replace(seq=event.seq, draw_offer=seat)
        return state._replace(seq=event.seq, takeback_offer=seat)

    return rule


_RULES[DrawOffered] = _pending(draw=True, made=True)
_RULES[DrawDeclined] = _pending(draw=True, made=False)
_RULES[TakebackRequested] = _pending(draw=False, made=True)
_RULES[TakebackDeclined] = _pending(draw=False, made=False)


@_rule(ChatPosted)
def _chat_posted(state: GameState, event: ChatPosted) -> GameState:
    line = ChatLine(
        seq=event.seq, room=event.room, name=event.name, text=event.text, seat=event.seat
    )
    return state._replace(seq=event.seq, chat=(*state.chat, line)[-MAX_CHAT_HISTORY:])


@_rule(GameEnded)
def _ended(state: GameState, event: GameEnded) -> GameState:
    return state._replace(
        seq=event.seq,
        status="finished",
        result=event.result,
        termination=event.termination,
        reason=event.reason,
        winner=event.winner,
        fen=event.fen,
        clock=event.clock,
        to_move=None,
        draw_offer=None,
        takeback_offer=None,
    )


# ---------------------------------------------------------------- snapshots


def from_snapshot(snapshot: Snapshot) -> GameState:
    """The state a snapshot describes: a client folds events on from here."""
    winner = snapshot.winner
    if winner is None:
        winner = winner_of(snapshot.result)
    return GameState(
        game_id=snapshot.game_id,
        variant=snapshot.variant,
        options=dict(snapshot.options),
        start_fen=snapshot.start_fen,
        players=tuple(snapshot.players),
        fen=snapshot.fen,
        to_move=snapshot.to_move,
        time_control=snapshot.time_control,
        casual=snapshot.casual,
        seq=snapshot.seq,
        moves=tuple(snapshot.moves),
        status=snapshot.status,
        result=snapshot.result,
        termination=snapshot.termination,
        reason=snapshot.reason,
        winner=winner,
        joined=(True, True) if snapshot.status == "active" else None,
        connected=tuple(snapshot.connected),
        clock=snapshot.clock,
        draw_offer=snapshot.draw_offer,
        takeback_offer=snapshot.takeback_offer,
        move_seqs=None,
        clocks=None,
        chat=tuple(snapshot.chat),
    )


def to_snapshot(
    state: GameState,
    *,
    re: int | None = None,
    your_seat: int | None = None,
    clock: ClockInfo | None = None,
) -> Snapshot:
    """The snapshot of ``state`` (``clock``: the clock read now, if not the state's)."""
    return Snapshot(
        re=re,
        game_id=state.game_id,
        seq=state.seq,
        variant=state.variant,
        options=dict(state.options),
        start_fen=state.start_fen,
        moves=list(state.moves),
        fen=state.fen,
        ply=len(state.moves),
        status=state.status,
        result=state.result,
        termination=state.termination,
        players=list(state.players),
        connected=list(state.connected),
        clock=clock if clock is not None else state.clock,
        time_control=state.time_control,
        casual=state.casual,
        draw_offer=state.draw_offer,
        takeback_offer=state.takeback_offer,
        your_seat=your_seat,
        to_move=state.to_move,
        winner=state.winner,
        chat=list(state.chat),
        reason=state.reason,
    )
