"""A third variant needs only its own code plus one registry entry.

The toy game here (take-away: take one or two counters from a pile; who cannot
move, because the pile is empty, loses) lives entirely in this file.  It is
registered with one entry in ``VARIANTS`` and then played through the code the
referee runs (``GameSession``: join, moves, a retry, a takeback, the end, and
recovery from the stored events), the bot SDK's ``SeatView`` and the demo's
words for an ending; none of them is told anything about it.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest

from lanqi.bot.base import SeatView
from lanqi.bot.simple import RandomBot
from lanqi.cli.demo import ending
from lanqi.games.base import (
    GameRecord,
    IllegalMoveError,
    InvalidMoveError,
    Outcome,
    Position,
    Termination,
    Token,
    VariantSpec,
    first_seat,
)
from lanqi.games.registry import VARIANTS, create_game, restore_game
from lanqi.protocol import GameEnded, GameEvent, MoveMade, TakenBack, TimeControl
from lanqi.session import GameSession, RefereeError, SessionSetup

TOKENS = ["first-token", "second-token"]


class Seat(enum.IntEnum):
    FIRST = 0
    SECOND = 1


@dataclass(frozen=True, slots=True)
class Take:
    count: int

    def __str__(self) -> str:
        return f"take{self.count}"


_MOVE_RE = re.compile(r"take\s*([0-9])")


class TakeAway:
    """A pile of counters; a move takes one or two; the player who cannot move loses."""

    variant: ClassVar[str] = "takeaway"

    def __init__(self, counters: int = 7, fen: str | None = None) -> None:
        self._counters = counters
        self._start = fen
        self._first = 0
        self._pile = counters
        if fen is not None:
            pile, side = fen.split()
            self._pile, self._first = int(pile), "ab".index(side)
        self._stack: list[Take] = []

    @property
    def options(self) -> Mapping[str, Any]:
        return {"counters": self._counters}

    @property
    def ply(self) -> int:
        return len(self._stack)

    @property
    def seat_to_move(self) -> int:
        return (self._first + self.ply) % 2

    def _left(self) -> int:
        return self._pile - sum(take.count for take in self._stack)

    def legal_moves(self) -> list[Take]:
        return [Take(n) for n in (1, 2) if n <= self._left()]

    def parse_move(self, text: str) -> Take:
        match = _MOVE_RE.fullmatch(text.strip())
        if match is None:
            raise InvalidMoveError(f"not a move: {text!r} (like 'take2')")
        move = Take(int(match.group(1)))
        if move not in self.legal_moves():
            raise IllegalMoveError(f"cannot {move} from {self._left()}")
        return move

    def push(self, move: Take) -> None:
        if move not in self.legal_moves():
            raise IllegalMoveError(f"cannot {move} from {self._left()}")
        self._stack.append(move)

    def push_text(self, text: str) -> Take:
        move = self.parse_move(text)
        self.push(move)
        return move

    def pop(self) -> Take:
        return self._stack.pop()

    def copy(self) -> TakeAway:
        other = TakeAway(self._counters, self._start)
        other._stack = list(self._stack)
        return other

    def outcome(self) -> Outcome[Seat] | None:
        if self._left():
            return None
        return Outcome(Seat(1 - self.seat_to_move), Termination.STALEMATE)

    def fen(self) -> str:
        return f"{self._left()} {'ab'[self.seat_to_move]}"

    def move_text(self, move: Take) -> str:
        return f"take {move.count}"

    def snapshot(self) -> GameRecord:
        return {
            "variant": self.variant,
            "options": dict(self.options),
            "start": self._start,
            "moves": [str(m) for m in self._stack],
        }

    def position(self) -> Position:
        left = self._left()
        taken = self._stack[-1].count if self._stack else 0
        return Position(
            variant=self.variant,
            files=self._pile,
            ranks=1,
            file_names=tuple(str(n + 1) for n in range(self._pile)),
            rank_names=("1",),
            cells={(n, 0): Token(None, "counter") for n in range(left)},
            to_move=None if self.outcome() else self.seat_to_move,
            last_move=tuple((n, 0) for n in range(left, left + taken)),
        )


def _create(options: Mapping[str, Any]) -> TakeAway:
    unknown = set(options) - {"counters", "fen"}
    if unknown:
        raise ValueError(f"unknown options {sorted(unknown)}")
    return TakeAway(int(options.get("counters", 7)), options.get("fen"))


def _record(game: TakeAway, headers: Mapping[str, str], termination: str | None) -> str:
    return " ".join([*(f"{k}={v}" for k, v in headers.items()), *game.snapshot()["moves"]])


SPEC = VariantSpec(
    name="takeaway",
    board=TakeAway,
    create=_create,
    seat_names=("First", "Second"),
    record_suffix="txt",
    write=_record,
    ply_label=lambda ply: f"turn {ply}",
    termination_notes={"stalemate": "the pile ran out"},
)


@pytest.fixture
def registered() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(VARIANTS, SPEC.name, SPEC)  # the one registry line
        yield


def _setup(counters: int) -> SessionSetup:
    return SessionSetup(
        game_id="toy",
        variant="takeaway",
        options={"counters": counters},
        start_fen=None,
        players=["ann", "bob"],
        tokens=list(TOKENS),
        time_control=TimeControl(),
        casual=True,
    )


def _code(call: Any) -> str:
    with pytest.raises(RefereeError) as info:
        call()
    return info.value.code


@pytest.mark.usefixtures("registered")
def test_a_registered_toy_variant_plays_through_the_referee_session() -> None:
    session = GameSession(_setup(5), now=0.0)
    log: list[GameEvent] = [session.created_event(0.0)]
    log += session.join(0, TOKENS[0], 0.0)
    log += session.join(1, TOKENS[1], 0.0)
    assert session.status == "active"

    assert _code(lambda: session.move(TOKENS[1], 0, "take1", 1.0)) == "not_your_turn"
    assert _code(lambda: session.move(TOKENS[0], 0, "eat", 1.0)) == "bad_move"
    assert _code(lambda: session.move(TOKENS[0], 0, "take3", 1.0)) == "illegal_move"

    seq, wire, events = session.move(TOKENS[0], 0, "take 2", 1.0)
    assert wire == "take2" and isinstance(events[-1], MoveMade)
    assert events[-1].text == "take 2" and events[-1].fen == "3 b"
    log += events
    # a retry of the accepted move, in another spelling, gets the same answer
    assert session.move(TOKENS[0], 0, "take2", 2.0) == (seq, "take2", [])

    log += session.move(TOKENS[1], 1, "take2", 3.0)[2]
    log += session.request_takeback(TOKENS[1], 4.0)
    back = session.answer_takeback(TOKENS[0], True, 5.0)
    assert isinstance(back[-1], TakenBack) and back[-1].fen == "3 b"
    log += back
    log += session.move(TOKENS[1], 1, "take1", 6.0)[2]
    log += session.move(TOKENS[0], 2, "take2", 7.0)[2]

    end = log[-1]
    assert isinstance(end, GameEnded)
    assert (end.result, end.termination, end.winner) == ("1-0", "stalemate", 0)
    snapshot = session.snapshot(None, None, 8.0)
    assert snapshot.moves == ["take2", "take1", "take2"] and snapshot.to_move is None

    # recovery after a restart: the stored events rebuild the same game
    again = GameSession.restore(_setup(5), [(event, 9.0) for event in log], 9.0)
    again.resumed(9.0)
    assert again.snapshot(None, None, 9.0) == session.snapshot(None, None, 9.0)


@pytest.mark.usefixtures("registered")
def test_a_registered_toy_variant_reaches_bots_records_and_words() -> None:
    game = restore_game({"variant": "takeaway", "options": {"counters": 4}, "moves": ["take1"]})
    assert game.fen() == "3 b" and first_seat(game) == 0
    assert create_game("takeaway", counters=4, fen="4 b").seat_to_move == 1
    state = SeatView.start("takeaway", seat=1, options={"counters": 4}, moves=["take1"])
    assert state.my_turn and state.legal_moves() == ["take1", "take2"]
    assert RandomBot(seed=1).choose_move(state) in state.legal_moves()
    drawn = game.position()
    assert drawn.cells == {(n, 0): Token(None, "counter") for n in range(3)}
    assert drawn.last_move == ((3, 0),) and drawn.to_move == 1
    assert SPEC.write_record(game, {"First": "ann"}, None) == "First=ann take1"
    words = ending(
        "takeaway", first="ann", second="bob", result="0-1", termination="stalemate", ply=5
    )
    assert words == "bob beat ann: the pile ran out at turn 5"
