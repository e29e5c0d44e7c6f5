"""Time controls as people write them: ``10+5``, ``0.5``, ``5m+3s``, ``move:10``, ``none``.

>>> tc = parse_time_control("10+5")
>>> tc.kind, tc.base_ms, tc.increment_ms
('fischer', 600000, 5000)
>>> parse_time_control("90s+2s").base_ms, parse_time_control("0.5").base_ms
(90000, 30000)
>>> parse_time_control("move:0.5").per_move_ms
500
>>> parse_time_control("abc")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: bad time control 'abc': use MINUTES+SECONDS (10+5, 0.5, 5m+3s), move:SECONDS ...
"""

from __future__ import annotations

import math
import re

from lanqi.protocol.messages import TimeControl

__all__ = ["TIME_FORMS", "parse_time_control"]

#: the accepted forms, for help texts and error messages
TIME_FORMS = "MINUTES+SECONDS (10+5, 0.5, 5m+3s), move:SECONDS (move:10) or none"
_UNIT_MS = {"h": 3_600_000, "m": 60_000, "min": 60_000, "s": 1000, "sec": 1000, "ms": 1}
_AMOUNT = re.compile(r"(\d+(?:\.\d*)?|\.\d+)\s*(h|min|m|sec|s|ms)?")


def _ms(text: str, unit_ms: int) -> int:
    match = _AMOUNT.fullmatch(text.strip())
    if match is None:
        raise ValueError(text)
    value = float(match.group(1)) * (_UNIT_MS[match.group(2)] if match.group(2) else unit_ms)
    if not math.isfinite(value):
        raise ValueError(text)
    return round(value)


def parse_time_control(text: str) -> TimeControl:
    """A :class:`TimeControl` from ``text``; ``ValueError`` naming the accepted forms."""
    raw = text.strip().lower()
    try:
        if raw in ("", "none", "untimed", "-"):
            return TimeControl()
        if raw.startswith("move:"):
            per_move = _ms(raw[len("move:") :], 1000)
            if per_move <= 0:
                raise ValueError(text)
            return TimeControl(kind="per_move", per_move_ms=per_move)
        base, _, increment = raw.partition("+")
        base_ms = _ms(base, 60_000)
        increment_ms = _ms(increment, 1000) if increment else 0
        if base_ms <= 0:
            raise ValueError(text)
        return TimeControl(kind="fischer", base_ms=base_ms, increment_ms=increment_ms)
    except ValueError:
        raise ValueError(f"bad time control {text!r}: use {TIME_FORMS}") from None
