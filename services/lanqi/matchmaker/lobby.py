"""Seeks and challenges: which seeks fit together and who plays which colour.

Pure logic; the service owns the state and the sockets.

>>> from lanqi.protocol import Seek
>>> a = Seek(variant="xiangqi", color="first")
>>> b = Seek(variant="xiangqi", color="any")
>>> compatible(a, b), seats_for(a, b, coin=1)
(True, (0, 1))
"""

from __future__ import annotations

from dataclasses import dataclass

from lanqi.protocol import Seek

__all__ = ["COLORS", "OpenChallenge", "OpenSeek", "compatible", "seats_for"]

COLORS = ("any", "first", "second")


@dataclass(slots=True)
class OpenSeek:
    seek_id: str
    player_id: str
    seek: Seek
    created_ms: float


@dataclass(slots=True)
class OpenChallenge:
    challenge_id: str
    challenger: str  # player id
    target: str  # player id
    seek: Seek
    expires_at: float  # monotonic ms


def compatible(a: Seek, b: Seek) -> bool:
    """Same game, options, time control and rating mode, and colours that fit."""
    if (a.variant, a.rated, a.time_control) != (b.variant, b.rated, b.time_control):
        return False
    if dict(a.options) != dict(b.options):
        return False
    return not (a.color == b.color and a.color != "any")


def seats_for(a: Seek, b: Seek, coin: int) -> tuple[int, int]:
    """Seats (0 moves first) of the owners of ``a`` and ``b``; ``coin`` (0/1)
    decides when both say ``any``."""
    if a.color == "first" or b.color == "second":
        return 0, 1
    if a.color == "second" or b.color == "first":
        return 1, 0
    return (0, 1) if coin == 0 else (1, 0)
