"""The bot SDK: a bot is a class with one method that picks a move.

>>> import random
>>> from lanqi.bot.base import Bot, SeatView
>>> class RandomBot(Bot):
...     name = "random"
...     variants = ("xiangqi", "gomoku")
...     def choose_move(self, state: SeatView) -> str:
...         return random.choice(state.legal_moves())
>>> state = SeatView.start("xiangqi", seat=0)
>>> state.legal_moves()[0] in {str(m) for m in state.board.legal_moves()}
True

The runner builds a :class:`SeatView` for every move the bot must make; the bot
answers with the move as text in the game's wire notation (ICCS ``h2e2`` for
xiangqi, ``h8`` for gomoku).  A bot that has more to say overrides :meth:`Bot.play`
instead and answers with a :class:`PlayResult`: the move, the reply it expects,
what its search found, a draw offer or a resignation (lichess-bot's homemade
engines answer the same way).  The runner always asks :meth:`Bot.play`, whose
default wraps :meth:`Bot.choose_move`; a bot defines either one.

>>> class Drawish(Bot):
...     def play(self, state: SeatView) -> PlayResult:
...         move = state.legal_moves()[0]
...         return PlayResult(move, info=SearchInfo(score_cp=0, depth=1), offer_draw=True)
>>> Drawish().choose_move(SeatView.start("gomoku"))
'a1'
>>> class First(Bot):
...     def choose_move(self, state: SeatView) -> str:
...         return state.legal_moves()[0]
>>> result = First().play(SeatView.start("gomoku"))
>>> result.move, result.info.score, result.offer_draw
('a1', None, False)

Engines (UCI, UCCI, Gomocup) are adapters behind this same interface.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from lanqi.games.base import Game
from lanqi.games.registry import create_game

__all__ = [
    "Bot",
    "GameState",
    "PlayResult",
    "SearchInfo",
    "SeatView",
    "clock_margin_ms",
    "think_time_ms",
]

#: mate scores in centipawns: this much less the moves to mate (as engine matches count)
MATE_CP = 30_000


@dataclass(frozen=True, slots=True)
class SearchInfo:
    """What a bot's search found for its move, each part ``None`` when it does not
    say: ``score_cp`` from the mover's side in centipawns, ``mate`` in moves
    (negative: it is mated), ``depth``, ``nodes``, ``time_ms`` and the principal
    variation ``pv`` in wire notation."""

    depth: int | None = None
    score_cp: int | None = None
    mate: int | None = None
    nodes: int | None = None
    time_ms: int | None = None
    pv: tuple[str, ...] = ()

    @property
    def score(self) -> int | None:
        """The score in centipawns with a mate folded in (``MATE_CP`` less the moves
        to it, negative when mated), or None.

        >>> SearchInfo(mate=3).score, SearchInfo(mate=-2).score, SearchInfo(score_cp=25).score
        (29997, -29998, 25)
        """
        if self.mate is not None:
            return (MATE_CP - abs(self.mate)) * (1 if self.mate > 0 else -1)
        return self.score_cp


@dataclass(frozen=True, slots=True)
class PlayResult:
    """A bot's answer for one turn.

    ``move`` in wire notation; ``ponder`` the reply it expects (it may think on it
    in :meth:`Bot.on_opponent_turn`); ``info`` what its search found; ``offer_draw``:
    it offers a draw with this move, or takes the opponent's pending offer;
    ``resign``: it gives up instead of moving (``move`` is not played).
    """

    move: str
    ponder: str | None = None
    info: SearchInfo = field(default_factory=SearchInfo)
    offer_draw: bool = False
    resign: bool = False


@dataclass(slots=True)
class SeatView:
    """What a bot sees when it must move: its seat's view of the game (the folded
    game of the table port is :class:`lanqi.gamestate.GameState`; this one was
    called ``GameState`` before, a name still importable, deprecated).

    ``board`` is a rules object (``lanqi.games.xiangqi.Board`` or
    ``lanqi.games.gomoku.Board``) at the current position with the whole history
    pushed, so ``board.legal_moves()``, ``board.outcome()`` and ``board.fen()`` work.
    Clocks are in milliseconds; ``remaining_ms`` is ``None`` for untimed games.
    ``deadline`` (a ``time.monotonic()`` value, ``None`` when untimed) is when the
    move must be back in the runner's hands to reach the referee in time: the
    runner sets it from the clock when it sees the turn, less a safety margin; for
    a side's first move in a game with a first-move window (its clock does not run
    yet), from the clock as if it ran or the time left in that window, whichever
    ends first (untimed games: the window).
    ``increment_ms`` and ``per_move_ms`` are this bot's own; with time odds the
    opponent's increment may differ: :attr:`opponent_increment_ms` (``None``: the same).
    """

    game_id: str
    variant: str
    options: Mapping[str, Any]
    seat: int
    board: Game[Any]
    moves: list[str] = field(default_factory=list)
    start_fen: str | None = None
    remaining_ms: tuple[int, int] | None = None
    increment_ms: int = 0
    per_move_ms: int = 0
    opponent: str = ""
    rated: bool = False
    deadline: float | None = None
    opponent_increment_ms: int | None = None

    @classmethod
    def start(
        cls,
        variant: str,
        *,
        seat: int = 0,
        options: Mapping[str, Any] | None = None,
        start_fen: str | None = None,
        moves: list[str] | None = None,
        game_id: str = "local",
        remaining_ms: tuple[int, int] | None = None,
        increment_ms: int = 0,
        per_move_ms: int = 0,
    ) -> SeatView:
        """A state built by replaying ``moves`` from the start (used by the runner too)."""
        opts = dict(options or {})
        if start_fen is not None:
            opts["fen"] = start_fen
        board = create_game(variant, **opts)
        played = list(moves or [])
        for text in played:
            board.push(board.parse_move(text))
        return cls(
            game_id=game_id,
            variant=variant,
            options=dict(options or {}),
            seat=seat,
            board=board,
            moves=played,
            start_fen=start_fen,
            remaining_ms=remaining_ms,
            increment_ms=increment_ms,
            per_move_ms=per_move_ms,
        )

    @property
    def my_turn(self) -> bool:
        return self.board.seat_to_move == self.seat

    def increment_of(self, seat: int) -> int:
        """The increment ``seat`` gains per move (its own under time odds)."""
        if seat == self.seat or self.opponent_increment_ms is None:
            return self.increment_ms
        return self.opponent_increment_ms

    @property
    def my_time_ms(self) -> int | None:
        return None if self.remaining_ms is None else self.remaining_ms[self.seat]

    def legal_moves(self) -> list[str]:
        """The legal moves in wire notation, in a stable order."""
        return sorted(str(m) for m in self.board.legal_moves())

    def ms_to_deadline(self) -> float | None:
        """Milliseconds until :attr:`deadline` (negative once past), or None."""
        if self.deadline is None:
            return None
        return (self.deadline - time.monotonic()) * 1000


def clock_margin_ms(clock_ms: float, *, per_move: bool = False) -> int:
    """The safety margin the runner keeps back from a clock of ``clock_ms``: a
    quarter of it, or half of a per-move clock, at least 50 ms and at most 1 s (the
    move still has to travel to the referee, and a busy machine delays both
    directions).  A per-move clock keeps more back because nothing absorbs a delay:
    a Fischer clock's bank pays for a stall of the process, a per-move clock flags."""
    share = 2 if per_move else 4
    return int(min(1000.0, max(50.0, clock_ms / share)))


def think_time_ms(state: SeatView, *, overhead_ms: int = 100, default_ms: int = 1000) -> int:
    """A time budget for this move that never flags.

    Fischer: about 1/30 of the time left plus most of the increment; per-move: the
    per-move time; untimed: ``default_ms``.  ``overhead_ms`` is kept back for the
    network and the runner, so a slow runner cannot lose on time.  When the state
    has a :attr:`~SeatView.deadline`, the budget never reaches past it.
    """
    if state.per_move_ms:
        budget = float(state.per_move_ms - overhead_ms)
    elif state.my_time_ms is None:
        budget = float(default_ms)
    else:
        left = state.my_time_ms
        ceiling = max(0.0, left - overhead_ms) / 2
        budget = min(left / 30 + state.increment_ms * 0.8, ceiling)
    to_deadline = state.ms_to_deadline()
    if to_deadline is not None:
        budget = min(budget, to_deadline)
    return int(max(10.0, budget))


class Bot:
    """Subclass and implement :meth:`choose_move` (the move) or :meth:`play` (the
    move and more, a :class:`PlayResult`); the hooks are optional."""

    name: ClassVar[str] = "bot"
    variants: ClassVar[tuple[str, ...]] = ("xiangqi", "gomoku")

    def choose_move(self, state: SeatView) -> str:
        """Return the move to play, as text (ICCS for xiangqi, ``h8`` for gomoku).
        A bot that defines :meth:`play` instead gets its move from there."""
        if type(self).play is Bot.play:
            raise NotImplementedError(f"{type(self).__name__} defines neither choose_move nor play")
        return self.play(state).move

    def play(self, state: SeatView) -> PlayResult:
        """The answer for this turn; what the runner asks.  Default: the move of
        :meth:`choose_move` and nothing more."""
        if type(self).choose_move is Bot.choose_move:
            raise NotImplementedError(f"{type(self).__name__} defines neither choose_move nor play")
        return PlayResult(self.choose_move(state))

    def on_game_start(self, state: SeatView) -> None:
        """A game begins (the bot may not be the first to move)."""

    def on_opponent_turn(self, state: SeatView) -> None:
        """The opponent is to move (``state.my_turn`` is false); called once per
        opponent turn, in the same thread as :meth:`choose_move`.  Engines ponder here."""

    @property
    def ponders(self) -> bool:
        """Does :meth:`on_opponent_turn` do anything?  The runner calls it only then: a
        call costs a thread's wake-up and a copy of the board right when the opponent's
        turn starts (on a match's critical path).  Default: when a subclass defines it."""
        return type(self).on_opponent_turn is not Bot.on_opponent_turn

    def on_game_end(self, state: SeatView, result: str, termination: str) -> None:
        """A game ended: ``result`` is ``1-0``, ``0-1``, ``1/2-1/2`` or ``*``."""

    def on_draw_offer(self, state: SeatView) -> bool:
        """The opponent offers a draw: accept?  Default: decline."""
        return False

    def on_chat(self, state: SeatView, name: str, text: str) -> str | None:
        """Someone said something; return a reply to say, or None."""
        return None

    def engine_id(self) -> str | None:
        """What the bot is, for tournament records (an engine's ``id name``); the
        runner asks after the bot's first move.  Default: not known."""
        return None

    def close(self) -> None:
        """Release resources (engine processes)."""


if TYPE_CHECKING:
    #: deprecated: :class:`SeatView`'s name before; kept for one release
    GameState = SeatView
else:

    def __getattr__(name: str) -> type[SeatView]:
        """``GameState``, :class:`SeatView`'s name before: still importable for one
        release, with a DeprecationWarning."""
        if name == "GameState":
            warnings.warn(
                "lanqi.bot.base.GameState is now SeatView; the old name goes in the next release",
                DeprecationWarning,
                stacklevel=2,
            )
            return SeatView
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
