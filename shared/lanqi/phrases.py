"""One function each for what the frontends, reports and records say about a game.

Results, terminations, time controls and clocks were written by hand in several
places (the GUI, ``lanqi match``'s records, the tournament reports, the watch
dashboard, the demo); each is said here once, in the forms people and files need,
and pure (time passed in).  Bilingual words for the GUI come from the message
catalogue (``lanqi.i18n``), which falls back to these English ones.

>>> termination_words("timeout"), termination_words("timeout", style="record")
('lost on time', 'time forfeit')
>>> time_control_text(TimeControl(kind="fischer", base_ms=300_000, increment_ms=3_000), "short")
'5+3'
>>> clock_text(65_000), clock_text(65_000, "display")
('01:05', '1:05')
>>> time_left_ms(60_000, read_at=10.0, now=12.5)
57500.0
"""

from __future__ import annotations

from typing import Literal

from lanqi.games.base import score_of
from lanqi.games.registry import VARIANTS
from lanqi.protocol.messages import TimeControl

__all__ = [
    "TERMINATIONS",
    "clock_text",
    "result_text",
    "termination_words",
    "time_control_text",
    "time_left_ms",
]

#: terminations whose words are not their wire text with spaces
TERMINATIONS = {
    "timeout": "lost on time",
    "agreement": "draw agreed",
    "abandoned": "abandoned (a player went silent)",
    "forbidden_move": "forbidden move (renju)",
    "over_the_board": "over the board",
}
#: a record's ``Termination`` tag where it is not the wire text (PGN's "time forfeit")
_RECORD_TERMINATIONS = {"timeout": "time forfeit", "": "unterminated"}


def termination_words(
    termination: str | None,
    variant: str | None = None,
    *,
    style: Literal["words", "record"] = "words",
) -> str:
    """How a game ended.

    ``words`` (for people): the variant's own words where its spec has a note
    (xiangqi's stalemate is a loss), else :data:`TERMINATIONS`, else the wire text
    with spaces; empty for none.  ``record``: a record's ``Termination`` tag (a flag
    fall is a ``time forfeit``, none ``unterminated``).

    >>> termination_words("five_in_a_row"), termination_words(None)
    ('five in a row', '')
    >>> termination_words("stalemate", "xiangqi")
    'stalemate (in xiangqi the side that cannot move loses)'
    >>> termination_words("checkmate", style="record"), termination_words("", style="record")
    ('checkmate', 'unterminated')
    """
    if style == "record":
        text = termination or ""
        return _RECORD_TERMINATIONS.get(text, text)
    if not termination:
        return ""
    spec = VARIANTS.get(variant or "")
    note = spec.termination_notes.get(termination) if spec is not None else None
    return note or TERMINATIONS.get(termination, termination.replace("_", " "))


def result_text(result: str | None, *, style: Literal["pgn", "people"] = "pgn") -> str:
    """A result as a record (``pgn``: ``1-0``, ``1/2-1/2``, ``*`` for none) or a
    table for people (``people``: a draw as ``½-½``) writes it.

    >>> result_text(None), result_text("1/2-1/2", style="people"), result_text("0-1")
    ('*', '½-½', '0-1')
    """
    if score_of(result) is None:
        return "*"
    assert result is not None
    return "½-½" if style == "people" and result == "1/2-1/2" else result


def _seconds(ms: float) -> str:
    return f"{ms / 1000:g}"


def _span(ms: int) -> str:
    seconds = ms / 1000
    if seconds >= 60 and seconds % 60 == 0:
        return f"{seconds / 60:g} min"
    return f"{seconds:g} s"


def time_control_text(tc: TimeControl, style: Literal["words", "short", "pgn"] = "words") -> str:
    """A time control as people say it (``words``: ``10 min + 5 s per move``,
    ``30 s per move``, ``untimed``), as a lobby lists it (``short``: ``5+3`` in
    minutes and seconds, ``30 s/move``, ``untimed``) or as a record's
    ``TimeControl`` tag (``pgn``: ``600+5`` in seconds, ``1/30`` for one move in 30
    seconds, ``-`` untimed).

    >>> fischer = TimeControl(kind="fischer", base_ms=600_000, increment_ms=5_000)
    >>> [time_control_text(fischer, style) for style in ("words", "short", "pgn")]
    ['10 min + 5 s per move', '10+5', '600+5']
    >>> move = TimeControl(kind="per_move", per_move_ms=30_000)
    >>> [time_control_text(move, style) for style in ("words", "short", "pgn")]
    ['30 s per move', '30 s/move', '1/30']
    >>> [time_control_text(TimeControl(), style) for style in ("words", "short", "pgn")]
    ['untimed', 'untimed', '-']
    """
    if tc.kind == "fischer":
        base, increment = tc.base_ms, tc.increment_ms
        words = _span(base) + (f" + {_span(increment)} per move" if increment else "")
        forms = {
            "pgn": f"{_seconds(base)}+{_seconds(increment)}",
            "short": f"{base / 60_000:g}+{increment // 1000}",
            "words": words,
        }
    elif tc.kind == "per_move":
        forms = {
            "pgn": f"1/{_seconds(tc.per_move_ms)}",
            "short": f"{tc.per_move_ms // 1000} s/move",
            "words": f"{_span(tc.per_move_ms)} per move",
        }
    else:
        forms = {"pgn": "-", "short": "untimed", "words": "untimed"}
    return forms[style]


def clock_text(ms: float | None, style: Literal["panel", "display"] = "panel") -> str:
    """A clock's time left.

    ``panel`` (the GUI's player cards): ``mm:ss``, ``h:mm:ss`` past an hour, ``s.t``
    under ten seconds, ``--:--`` for no clock.  ``display`` (a terminal dashboard, as a
    chess clock shows it): ``m:ss``, ``h:mm:ss``, ``0:ss.t`` in the last ten seconds,
    never below ``0:00.0``.

    >>> [clock_text(ms) for ms in (65_000, 9_450, 3_725_000, None)]
    ['01:05', '9.4', '1:02:05', '--:--']
    >>> [clock_text(ms, "display") for ms in (65_000, 3_903_000, 7_480, -5)]
    ['1:05', '1:05:03', '0:07.4', '0:00.0']
    """
    if ms is None:
        return "--:--" if style == "panel" else ""
    if ms < 10_000:
        tenths = int(max(0.0, ms) // 100)
        if style == "display":
            return f"0:{tenths // 10:02d}.{tenths % 10}"
        return f"{tenths // 10}.{tenths % 10}"
    seconds = int(ms // 1000)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes:02d}:{secs:02d}" if style == "panel" else f"{minutes}:{secs:02d}"


def time_left_ms(remaining_ms: float, *, read_at: float, now: float, running: bool = True) -> float:
    """The time left on a clock that read ``remaining_ms`` at ``read_at`` (seconds,
    one ``time.monotonic()``-like scale with ``now``): counting down since then if
    it is ``running``, never below zero.

    >>> time_left_ms(5_000, read_at=0.0, now=2.0), time_left_ms(5_000, read_at=0.0, now=9.0)
    (3000.0, 0.0)
    >>> time_left_ms(5_000, read_at=0.0, now=9.0, running=False)
    5000.0
    """
    if running:
        remaining_ms -= max(0.0, now - read_at) * 1000.0
    return max(0.0, float(remaining_ms))
