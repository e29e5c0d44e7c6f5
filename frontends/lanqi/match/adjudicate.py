"""Adjudication: when a match may end a game early, decided from the moves' evaluations.

Pure logic on :class:`MoveNote` lists; the game driver acts on the verdict through
the referee's ``adjudicate`` request (on its admin key, with the reason), so the
game ends as ``adjudication`` and the record says ``adjudication: score``,
``adjudication: draw`` or ``adjudication: max moves``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lanqi.bot.base import MATE_CP
from lanqi.match.config import Adjudication

__all__ = ["MATE_CP", "MoveNote", "Verdict", "adjudicate"]


@dataclass(frozen=True, slots=True)
class MoveNote:
    """One move as a player made it: its evaluation (from the mover's side), depth
    and think time.  ``book`` moves come from the opening; ``score_cp`` is None when
    the player reports none."""

    ply: int
    seat: int
    move: str
    score_cp: int | None = None
    mate: int | None = None
    depth: int | None = None
    time_ms: int = 0
    book: bool = False
    #: the player's answer offered a draw or resigned (UCCI's ``draw`` / ``resign``)
    offers_draw: bool = False
    resigns: bool = False
    #: the referee's latency before this move: from the previous move leaving its
    #: player to this player being asked (ms, one clock: both players run here)
    latency_ms: float | None = None
    #: when the player handed its move over (``time.perf_counter``), for the next one
    answered_at: float = 0.0

    def comment(self) -> str:
        """``+0.25/12 0.51s`` (cutechess's comment), ``book``, or the time alone; then
        ``[%lat 1.8ms]``, the referee's latency before the move, when measured."""
        if self.book:
            return "book"
        seconds = f"{self.time_ms / 1000:.2f}s"
        if self.mate is not None:
            text = f"{'+' if self.mate > 0 else '-'}M{abs(self.mate)}/{self.depth or 0} {seconds}"
        elif self.score_cp is not None:
            text = f"{self.score_cp / 100:+.2f}/{self.depth or 0} {seconds}"
        else:
            text = seconds
        if self.latency_ms is not None:
            text += f" [%lat {self.latency_ms:.1f}ms]"
        return text


@dataclass(frozen=True, slots=True)
class Verdict:
    """End the game: ``loser`` seat resigns (or a draw when None), with ``reason``."""

    loser: int | None
    reason: str


def _scores(notes: Sequence[MoveNote], seat: int, count: int) -> list[int] | None:
    """The last ``count`` scores of ``seat``'s moves, or None if any is missing."""
    mine = [n for n in notes if n.seat == seat][-count:]
    if len(mine) < count or any(n.score_cp is None or n.book for n in mine):
        return None
    return [n.score_cp for n in mine if n.score_cp is not None]


def adjudicate(rules: Adjudication, notes: Sequence[MoveNote], plies: int) -> Verdict | None:
    """The verdict after ``plies`` plies with these ``notes``, or None to play on."""
    if rules.resign_movecount is not None:
        for seat in (0, 1):
            own = _scores(notes, seat, rules.resign_movecount)
            if own is None or any(s > -rules.resign_score for s in own):
                continue
            if rules.resign_twosided:
                other = _scores(notes, 1 - seat, rules.resign_movecount)
                if other is None or any(s < rules.resign_score for s in other):
                    continue
            return Verdict(seat, "adjudication: score")
    if rules.draw_movenumber is not None and plies >= 2 * rules.draw_movenumber:
        both = [_scores(notes, seat, rules.draw_movecount) for seat in (0, 1)]
        if all(s is not None and all(abs(x) <= rules.draw_score for x in s) for s in both):
            return Verdict(None, "adjudication: draw")
    if rules.maxmoves is not None and plies >= 2 * rules.maxmoves:
        return Verdict(None, "adjudication: max moves")
    return None
