"""A seek's or a challenge's terms in words, for every screen that shows one (the
lobby's lists, a challenge after a game): the game and its options, the clock,
rated or casual."""

from __future__ import annotations

from lanqi.gui.variants import VARIANTS
from lanqi.i18n import en, tr
from lanqi.phrases import time_control_text
from lanqi.protocol import Seek, TimeControl

__all__ = ["describe_seek", "describe_time"]


def describe_time(tc: TimeControl) -> str:
    """``5+3``, ``30 s/move`` or ``untimed``.

    >>> describe_time(TimeControl(kind="fischer", base_ms=300_000, increment_ms=3000))
    '5+3'
    """
    if tc.kind == "fischer":
        return time_control_text(tc, "short")
    if tc.kind == "per_move":
        return tr("time.per_move", s=tc.per_move_ms // 1000)
    return tr("time.untimed")


def describe_seek(seek: Seek, *, chinese: bool = True) -> str:
    """``象棋 xiangqi · 5+3 · casual``; without the Chinese name (``chinese`` False)
    where a narrow list has no room for it."""
    ui = VARIANTS.get(seek.variant)
    options = ui.describe(seek.options) if ui is not None else ""
    if options:  # gomoku 19x19 renju
        name = f"{seek.variant} {options}"
    else:
        name = (
            f"{ui.chinese} {seek.variant}".strip() if ui is not None and chinese else seek.variant
        )
    # a narrow list leaves the Chinese words out (as the game's Chinese name)
    rated = (tr if chinese else en)("rated" if seek.rated else "casual")
    return f"{name} · {describe_time(seek.time_control)} · {rated}"
