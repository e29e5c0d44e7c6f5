"""The tournament data model: players, pairings and results as small frozen values.

Seats are neutral: ``first`` moves first (Red in xiangqi, Black in gomoku), ``second``
moves second. A pairing or result whose ``second`` is ``None`` is a bye for ``first``.

>>> alice = Player("a", "Alice", 1620.0, seed=1)
>>> p = Pairing(round=1, board=1, first="a", second="b")
>>> Result.from_pairing(p, 0.5)
Result(round=1, board=1, first='a', second='b', score_first=0.5, kind='played', game_no=0)
>>> Result.from_pairing(p, 1.0).score_second
0.0
>>> Pairing(round=1, board=2, first="c", second=None).is_bye
True
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal, get_args

__all__ = [
    "RESULT_KINDS",
    "SCORES",
    "Pairing",
    "Player",
    "Result",
    "ResultKind",
    "RoundInProgressError",
    "TournamentError",
    "seeded_order",
    "unfinished",
]

ResultKind = Literal["played", "forfeit", "bye", "double_forfeit"]
#: Every result kind: a game over the board, a forfeit (one side absent), a bye
#: (no opponent), both sides absent.
RESULT_KINDS: tuple[ResultKind, ...] = get_args(ResultKind)
#: The scores one side can make in one game.
SCORES = (0.0, 0.5, 1.0)


class TournamentError(ValueError):
    """Input that makes no sense for a tournament: bad options, unknown players, ..."""


class RoundInProgressError(TournamentError):
    """The next round was asked for while games of the current one have no result."""


@dataclass(frozen=True, slots=True)
class Player:
    """A participant.

    ``seed`` is the director's ranking (1 = strongest); ``0`` means unseeded, and
    unseeded players rank after seeded ones, by rating. See :func:`seeded_order`.
    """

    id: str
    name: str
    rating: float = 1500.0
    seed: int = 0

    def __post_init__(self) -> None:
        if not self.id:
            raise TournamentError("a player needs a non-empty id")
        if self.seed < 0:
            raise TournamentError(f"seed of {self.id!r} cannot be negative")
        if not math.isfinite(self.rating):
            raise TournamentError(f"rating of {self.id!r} must be a finite number")


@dataclass(frozen=True, slots=True)
class Pairing:
    """One game to play: ``first`` moves first; ``second is None`` is a bye.

    ``(round, board, game_no)`` identifies the game within an event. ``game_no`` is 0
    in round robins and Swiss events, and counts the games of a match (1, 2, ...) in
    knockouts and gauntlets. ``warning`` is empty unless the pairing had to break a
    pairing rule (a rematch, a colour rule); it says which, for the director.
    """

    round: int
    board: int
    first: str | None
    second: str | None
    game_no: int = 0
    warning: str = ""

    def __post_init__(self) -> None:
        if self.first is None:
            raise TournamentError("a pairing needs a first player (a bye goes in first)")
        if self.first == self.second:
            raise TournamentError(f"{self.first!r} cannot play themselves")
        if self.round < 1 or self.board < 1 or self.game_no < 0:
            raise TournamentError("round and board count from 1, game_no from 0")

    @property
    def is_bye(self) -> bool:
        """True when nobody sits in ``second``."""
        return self.second is None

    @property
    def key(self) -> tuple[int, int, int]:
        """``(round, board, game_no)``: the identity shared with the game's result."""
        return (self.round, self.board, self.game_no)

    def players(self) -> tuple[str, ...]:
        """The one or two player ids of this pairing."""
        assert self.first is not None
        return (self.first,) if self.second is None else (self.first, self.second)


@dataclass(frozen=True, slots=True)
class Result:
    """The result of one pairing, as the matchmaker records it.

    ``score_first`` is 1, 0.5 or 0. ``kind`` is ``played`` (over the board),
    ``forfeit`` (one side did not play; the score says who), ``bye`` (``second`` is
    ``None``; the score is what the bye was worth) or ``double_forfeit`` (nobody
    played; both score 0).

    ``left_out`` marks a bye the pairing did not allocate: the player asked for it
    (a requested bye) or was absent at check-in. FIDE's rules treat it apart from
    the pairing-allocated bye: it does not stop a later pairing-allocated bye, and
    the TRF codes it ``H``/``F``/``Z`` by its points where the allocated one is ``U``.
    """

    round: int
    board: int
    first: str
    second: str | None
    score_first: float
    kind: ResultKind = "played"
    game_no: int = 0
    left_out: bool = field(default=False, repr=False)

    def __post_init__(self) -> None:
        if self.kind not in RESULT_KINDS:
            raise TournamentError(f"result kind must be one of {', '.join(RESULT_KINDS)}")
        if self.score_first not in SCORES:
            raise TournamentError(f"a score is 0, 0.5 or 1, not {self.score_first!r}")
        if (self.kind == "bye") != (self.second is None):
            raise TournamentError("a bye has no second player, and only a bye")
        if self.first == self.second:
            raise TournamentError(f"{self.first!r} cannot play themselves")
        if self.left_out and self.kind != "bye":
            raise TournamentError("only a bye can leave a player out of the pairing")
        if self.kind == "double_forfeit" and self.score_first != 0.0:
            raise TournamentError("a double forfeit scores 0 for both sides")
        if self.kind == "forfeit" and self.score_first == 0.5:
            raise TournamentError("a forfeit has a winner: score 1 or 0")
        if self.round < 1 or self.board < 1 or self.game_no < 0:
            raise TournamentError("round and board count from 1, game_no from 0")

    @classmethod
    def from_pairing(
        cls, pairing: Pairing, score_first: float, kind: ResultKind = "played"
    ) -> Result:
        """The result of ``pairing`` with ``first`` scoring ``score_first``."""
        assert pairing.first is not None
        return cls(
            pairing.round,
            pairing.board,
            pairing.first,
            pairing.second,
            score_first,
            kind,
            pairing.game_no,
        )

    @classmethod
    def bye(cls, pairing: Pairing, score: float = 1.0, *, left_out: bool = False) -> Result:
        """The result of a bye pairing, worth ``score`` points; ``left_out``: a
        requested bye or an absence, not the pairing-allocated bye.

        >>> Result.bye(Pairing(3, 5, "x", None), 1.0).kind
        'bye'
        """
        if not pairing.is_bye:
            raise TournamentError("only a bye pairing has a bye result")
        assert pairing.first is not None
        return cls(
            pairing.round,
            pairing.board,
            pairing.first,
            None,
            score,
            "bye",
            pairing.game_no,
            left_out=left_out,
        )

    @property
    def allocated_bye(self) -> bool:
        """True for the pairing-allocated bye (odd count), not a requested one."""
        return self.kind == "bye" and not self.left_out

    @classmethod
    def forfeit(cls, pairing: Pairing, absent: str) -> Result:
        """The result of ``pairing`` when ``absent`` did not play: the other side wins.

        >>> Result.forfeit(Pairing(1, 1, "a", "b"), absent="a").score_second
        1.0
        """
        if absent not in pairing.players() or pairing.is_bye:
            raise TournamentError(f"{absent!r} is not a player of this game")
        return cls.from_pairing(pairing, 0.0 if absent == pairing.first else 1.0, "forfeit")

    @property
    def key(self) -> tuple[int, int, int]:
        """``(round, board, game_no)``, as :attr:`Pairing.key`."""
        return (self.round, self.board, self.game_no)

    @property
    def score_second(self) -> float:
        """What ``second`` scored (0 in a double forfeit, 0 for a bye)."""
        if self.second is None or self.kind == "double_forfeit":
            return 0.0
        return 1.0 - self.score_first

    @property
    def is_game(self) -> bool:
        """True when the game was played over the board (counts for colours)."""
        return self.kind == "played"

    def score_of(self, player: str) -> float:
        """What ``player`` scored in this result."""
        if player == self.first:
            return self.score_first
        if player == self.second:
            return self.score_second
        raise TournamentError(f"{player!r} is not in this result")

    def opponent_of(self, player: str) -> str | None:
        """The other side of the result (``None`` for a bye)."""
        if player == self.first:
            return self.second
        if player == self.second:
            return self.first
        raise TournamentError(f"{player!r} is not in this result")

    def players(self) -> tuple[str, ...]:
        """The one or two player ids of this result."""
        return (self.first,) if self.second is None else (self.first, self.second)


def seeded_order(players: Iterable[Player]) -> list[Player]:
    """Players from strongest to weakest: by seed (unseeded last), rating, then id.

    >>> [p.id for p in seeded_order([Player("x", "X", 1400), Player("y", "Y", 1900),
    ...                               Player("z", "Z", 1200, seed=1)])]
    ['z', 'y', 'x']
    """
    return sorted(players, key=lambda p: (p.seed if p.seed > 0 else math.inf, -p.rating, p.id))


def check_players(players: Sequence[Player], *, minimum: int = 1) -> None:
    """Raise :class:`TournamentError` on duplicate ids or too few players."""
    ids = [p.id for p in players]
    if len(set(ids)) != len(ids):
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        raise TournamentError(f"duplicate player ids: {', '.join(dupes)}")
    if len(players) < minimum:
        raise TournamentError(f"needs at least {minimum} players, got {len(players)}")


def unfinished(pairings: Iterable[Pairing], results: Iterable[Result]) -> list[Pairing]:
    """The pairings (byes included) that have no result with the same key yet.

    >>> ps = [Pairing(1, 1, "a", "b"), Pairing(1, 2, "c", None)]
    >>> unfinished(ps, [Result.from_pairing(ps[0], 1.0)])
    [Pairing(round=1, board=2, first='c', second=None, game_no=0, warning='')]
    """
    done = {r.key for r in results}
    return [p for p in pairings if p.key not in done]
