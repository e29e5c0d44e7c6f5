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
"""

from __future__ import annotations

from dataclasses import dataclass

from lanqi.games.base import score_of
from lanqi.tournament.model import ResultKind, TournamentError

__all__ = [
    "ABANDONED",
    "FORFEIT_BEFORE_PLIES",
    "GameScore",
    "UnplayedScore",
    "points_of",
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
