"""What a finished game, or a game that was never played, is worth in a tournament.

The referee reports a result string (``1-0``, ``0-1``, ``1/2-1/2``, or ``*`` when
nobody won) with a termination; these rules turn it into the points of the first
seat and a :data:`~lanqi.tournament.model.ResultKind`. A game abandoned before both
sides have made a move was not played: it is a forfeit won by the side that stayed,
or a double forfeit when nobody won (both sides were gone).

>>> score_game("1-0", "checkmate", plies=31)
GameScore(score_first=1.0, kind='played')
>>> score_game("0-1", "abandoned", plies=0)
GameScore(score_first=0.0, kind='forfeit')
>>> score_game("*", "abandoned", plies=1)
GameScore(score_first=0.0, kind='double_forfeit')
>>> score_unplayed(first_gone=True, second_gone=False)
UnplayedScore(result='0-1', score_first=0.0, kind='forfeit')

A :class:`PointsSystem` says what a result is worth in the event's points: FIDE's
1/½/0, the Chinese Xiangqi Association's 2/1/0, or 3/1/0. Results are always kept
as the game's result (the first seat's share: 1, 0.5 or 0); points are computed
from them, so ratings (which use the game's result) never see the points system.

>>> cxa = points_system("2-1-0")
>>> cxa.points(1.0), cxa.points(0.5), cxa.result_for(2.0)
(2.0, 1.0, 1.0)
"""

from __future__ import annotations

from dataclasses import dataclass

from lanqi.games.base import score_of
from lanqi.tournament.model import ResultKind, TournamentError

__all__ = [
    "ABANDONED",
    "DEFAULT_POINTS",
    "FORFEIT_BEFORE_PLIES",
    "POINTS_SYSTEMS",
    "GameScore",
    "PointsSystem",
    "UnplayedScore",
    "points_of",
    "points_system",
    "score_game",
    "score_unplayed",
]

#: The referee's termination for a game a seat left (or never joined).
ABANDONED = "abandoned"
#: An abandoned game with fewer plies than this (not both sides moved) was not played.
FORFEIT_BEFORE_PLIES = 2


@dataclass(frozen=True, slots=True)
class GameScore:
    """The first seat's points (``None``: the game has no score) and the result kind."""

    score_first: float | None
    kind: ResultKind


@dataclass(frozen=True, slots=True)
class UnplayedScore:
    """A pairing decided without a game: the result text, first seat's points, kind."""

    result: str
    score_first: float
    kind: ResultKind


def points_of(result: str) -> float | None:
    """The first seat's points for a result string; ``None`` for ``*`` or anything else
    (the rules core's :func:`~lanqi.games.base.score_of`).

    >>> points_of("1/2-1/2"), points_of("*")
    (0.5, None)
    """
    return score_of(result)


def score_game(result: str, termination: str, plies: int) -> GameScore:
    """What a game the referee finished is worth (see the module docstring)."""
    score = points_of(result)
    if termination != ABANDONED or plies >= FORFEIT_BEFORE_PLIES:
        return GameScore(score, "played")
    if score is None or score == 0.5:  # nobody won: both sides were gone, nobody scores
        return GameScore(0.0, "double_forfeit")
    return GameScore(score, "forfeit")


def score_unplayed(*, first_gone: bool, second_gone: bool) -> UnplayedScore:
    """A pairing one or both of whose players withdrew before it was played.

    >>> score_unplayed(first_gone=True, second_gone=True)
    UnplayedScore(result='0-0', score_first=0.0, kind='double_forfeit')
    """
    if not (first_gone or second_gone):
        raise TournamentError("nobody withdrew: the game is to be played")
    if first_gone and second_gone:
        return UnplayedScore("0-0", 0.0, "double_forfeit")
    if first_gone:
        return UnplayedScore("0-1", 0.0, "forfeit")
    return UnplayedScore("1-0", 1.0, "forfeit")


@dataclass(frozen=True, slots=True)
class PointsSystem:
    """What a win, a draw and a loss are worth in an event (a bye and a forfeit are
    worth the points of the result they stand for; a double forfeit the loss's)."""

    name: str
    win: float
    draw: float
    loss: float = 0.0

    @property
    def label(self) -> str:
        """How people write it: ``1/½/0``, ``2/1/0``."""
        return "/".join("½" if v == 0.5 else f"{v:g}" for v in (self.win, self.draw, self.loss))

    def points(self, score: float) -> float:
        """The points of a game result ``score`` (1, 0.5 or 0: the player's share)."""
        if score == 1.0:
            return self.win
        if score == 0.5:
            return self.draw
        return self.loss

    def result_for(self, points: float) -> float:
        """The game result (1, 0.5, 0) worth ``points`` in this system, e.g. the
        result a ``bye_score`` given in points stands for; :class:`TournamentError`
        for a number of points no result is worth."""
        for score in (1.0, 0.5, 0.0):
            if self.points(score) == points:
                return score
        raise TournamentError(
            f"{points:g} points is not a result in {self.label}: "
            f"use {self.win:g} (win), {self.draw:g} (draw) or {self.loss:g} (loss)"
        )


#: The points systems by name: FIDE's, the Chinese Xiangqi Association's (its rules
#: since 2011), and "three points for a win".
POINTS_SYSTEMS: dict[str, PointsSystem] = {
    s.name: s
    for s in (
        PointsSystem("1-0.5-0", 1.0, 0.5),
        PointsSystem("2-1-0", 2.0, 1.0),
        PointsSystem("3-1-0", 3.0, 1.0),
    )
}
DEFAULT_POINTS = "1-0.5-0"


def points_system(name: str | PointsSystem) -> PointsSystem:
    """The points system called ``name`` (``1-0.5-0``, ``2-1-0``, ``3-1-0``; ``/``
    for ``-`` and ``½`` for ``0.5`` are read too).

    >>> points_system("2/1/0").label, points_system("1-½-0").name
    ('2/1/0', '1-0.5-0')
    """
    if isinstance(name, PointsSystem):
        return name
    key = name.strip().replace("/", "-").replace("½", "0.5")
    if key not in POINTS_SYSTEMS:
        raise TournamentError(f"unknown points system {name!r}; known: {', '.join(POINTS_SYSTEMS)}")
    return POINTS_SYSTEMS[key]
