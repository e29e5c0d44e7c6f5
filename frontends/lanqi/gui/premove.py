"""Premoves: a move chosen while the opponent thinks, played when the turn comes.

In an online game, on your own seat, while it is the opponent's turn, the input
controllers (:mod:`lanqi.gui.controllers`) let you pick a piece and a target
(xiangqi) or a point (gomoku).  That makes a :class:`Premove`, shown on the
board until :func:`settle` decides its fate on a later frame:

- the opponent has moved and it is your turn at the ply the premove was meant
  for: it is played if the rules allow it in the new position, else dropped
  with a short note saying why;
- the game ended, or another game took the screen: dropped without a word;
- the position changed some other way (a takeback, your last move refused):
  dropped with a note.

One premove at a time; offline games and spectators never make one
(:meth:`lanqi.gui.sessions.Session.can_premove`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from lanqi.gui.model import GameModel

__all__ = ["Fate", "Premove", "settle"]


@dataclass(frozen=True, slots=True, eq=False)
class Premove:
    """A move waiting for its turn: ``move`` in the rules' text (``h0g2``, ``h8``),
    ``points`` to mark on the board, made on ``model`` to be played at ``ply``."""

    move: str
    points: tuple[int, ...]
    model: GameModel
    ply: int

    @classmethod
    def on(cls, model: GameModel, move: str, points: tuple[int, ...]) -> Premove:
        """A premove made now, during the opponent's turn: for the next ply."""
        return cls(move, points, model, model.ply + 1)


class Fate(enum.Enum):
    WAIT = "wait"
    PLAY = "play"
    #: dropped quietly: the game is over, or another game is shown
    FORGET = "forget"
    #: dropped with a note: the position is not the one it was meant for
    STALE = "stale"


def settle(premove: Premove, model: GameModel, *, my_turn: bool) -> Fate:
    """What to do with ``premove`` now that the live game is ``model``.

    ``my_turn``: the local seat may move now (no move of ours on its way).
    """
    if premove.model is not model or model.status != "active":
        return Fate.FORGET
    if model.ply == premove.ply - 1 and not my_turn:
        return Fate.WAIT  # the opponent is still thinking (or our last move is on its way)
    if model.ply == premove.ply and my_turn:
        return Fate.PLAY
    if model.ply == premove.ply:
        return Fate.WAIT  # our turn, but no move can go out now (a lost connection)
    return Fate.STALE
