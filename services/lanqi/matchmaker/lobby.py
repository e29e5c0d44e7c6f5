"""Seeks and challenges: which seeks fit together and who plays which colour.

Pure logic; the service owns the state and the sockets.

>>> from lanqi.protocol import Seek
>>> a = Seek(variant="xiangqi", color="first")
>>> b = Seek(variant="xiangqi", color="any")
>>> compatible(a, b), seats_for(a, b, coin=1)
(True, (0, 1))
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lanqi.clock import ClockError, GameClock
from lanqi.games.registry import UnknownVariantError, create_game
from lanqi.matchmaker.errors import MatchmakerError
from lanqi.protocol import Seek, TimeControl

__all__ = ["COLORS", "OpenChallenge", "OpenSeek", "check_game", "compatible", "seats_for"]

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


def check_game(variant: str, options: Mapping[str, Any], tc: TimeControl) -> dict[str, Any]:
    """Options in normal form for a game that can be played; ``bad_request`` otherwise."""
    try:
        game = create_game(variant, **dict(options))
        GameClock(
            tc.kind,
            base_ms=tc.base_ms,
            increment_ms=tc.increment_ms,
            per_move_ms=tc.per_move_ms,
            first_move_ms=tc.first_move_ms,
        )
    except (UnknownVariantError, ClockError, ValueError) as exc:
        raise MatchmakerError("bad_request", str(exc)) from None
    normal = dict(game.options)
    if "fen" in options:
        normal["fen"] = options["fen"]
    return normal
