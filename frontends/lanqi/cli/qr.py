"""QR codes drawn as text, for ``lanqi key --qr`` and ``lanqi serve``'s ready line: a
phone scans the server's key, or the web pages' URL to join, off the director's screen.

The code itself comes from segno (a small, pure-Python, well-kept QR encoder); this
module only draws its modules with Unicode half blocks, two rows of modules per
line, so a code of 40-odd modules (quiet zone included) fits an 80x24 terminal.

- :func:`qr_lines` with ``color=True`` (a terminal): every cell sets its own
  foreground and background (black on white, ANSI escapes), so the code reads the
  same on a dark and a light terminal theme, as phone cameras expect.
- ``color=False`` (a file, a pipe): plain characters, a dark module drawn as ink, so
  the code reads on paper and in an editor with a light background.
"""

from __future__ import annotations

import segno

__all__ = ["JOIN_CAPTION", "QUIET_ZONE", "join_lines", "qr_lines", "qr_matrix"]

#: modules of light border around the code (the QR standard asks for 4)
QUIET_ZONE = 4
#: the line under a QR code of the web pages' URL
JOIN_CAPTION = "scan it to join: "

_BLACK, _WHITE = 30, 97  # ANSI foreground colours; background is +10
_RESET = "\x1b[0m"
#: (top dark, bottom dark) -> the character that draws the pair in ink
_INK = {
    (False, False): " ",
    (True, False): "\u2580",
    (False, True): "\u2584",
    (True, True): "\u2588",
}


def qr_matrix(text: str) -> list[list[bool]]:
    """The modules of ``text``'s QR code (True: dark), quiet zone included.

    >>> matrix = qr_matrix("lanqi")
    >>> len(matrix) == len(matrix[0]) == 21 + 2 * QUIET_ZONE  # version 1
    True
    >>> any(matrix[0]) or any(row[0] for row in matrix)  # the quiet zone is light
    False
    """
    code = segno.make(text, micro=False)
    return [[bool(module) for module in row] for row in code.matrix_iter(border=QUIET_ZONE)]


def qr_lines(text: str, *, color: bool) -> list[str]:
    """``text``'s QR code as lines of half blocks (see the module doc for ``color``)."""
    matrix = qr_matrix(text)
    if len(matrix) % 2:
        matrix.append([False] * len(matrix[0]))  # one more light row under the quiet zone
    lines = []
    for top, bottom in zip(matrix[::2], matrix[1::2], strict=True):
        if not color:
            lines.append("".join(_INK[pair] for pair in zip(top, bottom, strict=True)))
            continue
        cells, last = [], (0, 0)
        for upper, lower in zip(top, bottom, strict=True):
            now = (_BLACK if upper else _WHITE, (_BLACK if lower else _WHITE) + 10)
            if now != last:  # a colour change: upper half in fg, lower half in bg
                cells.append(f"\x1b[{now[0]};{now[1]}m")
                last = now
            cells.append("\u2580")
        lines.append("".join(cells) + _RESET)
    return lines


def join_lines(url: str, *, color: bool) -> list[str]:
    """The QR code of the web pages' ``url`` (a phone that scans it opens the lobby),
    then the URL in words, for people whose camera does not read codes."""
    return [*qr_lines(url, color=color), JOIN_CAPTION + url]
