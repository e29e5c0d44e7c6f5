"""The GUI as a person starts it - ``lanqi gui --server HOST:PORT --name NAME`` (README,
docs/gui.md) - in a real window on an Xvfb display, inside the client namespace of a
:class:`~lanqi.bench.wan.Wan`: every connection it makes crosses the link.

Driven only as a person drives it, by keys (:class:`~tests.net.xdisplay.XDisplay`,
XTEST): ``y`` accepts a challenge, the arrow keys and ``Enter`` pick up a piece and
put it down, ``Esc`` leaves a finished game, ``s`` seeks.  What it did is read from
outside: the referee's stored events, the matchmaker's lists, the window's own log
(``-v``: ``lost the referee`` / ``the referee is back`` / ``lobby: ...``) and
screenshots.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.net.xdisplay import XDisplay

from lanqi.bench.process import source_path
from lanqi.bench.wan import Wan

#: the window's size (``--size``) and the display's
SIZE = (900, 600)
#: xiangqi's board: files a-i, ranks 0-9
FILES, RANKS = 9, 10


class Window:
    """A ``lanqi gui`` process on ``display``, in ``wan``'s namespace."""

    def __init__(self, wan: Wan, display: XDisplay, server: str, name: str, root: Path) -> None:
        self.name = name
        self.display = display
        self.log = root / "logs" / f"window-{name}.log"
        self.log.parent.mkdir(parents=True, exist_ok=True)
        data = root / f"window-{name}-data"
        command = [
            "ip", "netns", "exec", wan.namespace,
            sys.executable, "-m", "lanqi.cli.main", "gui", "-v",
            "--server", server, "--name", name,
            "--size", f"{SIZE[0]}x{SIZE[1]}", "--data-dir", str(data),
        ]  # fmt: skip
        env = {
            **os.environ,
            "PYTHONPATH": source_path(),
            "PYTHONUNBUFFERED": "1",
            "DISPLAY": display.name,
            "SDL_VIDEODRIVER": "x11",
            "SDL_AUDIODRIVER": "dummy",
        }
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(command, stdout=log, stderr=log, env=env)

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")

    def count(self, pattern: str) -> int:
        """How many lines of its log hold ``pattern`` (a regular expression)."""
        return len(re.findall(pattern, self.log_text()))

    def focus(self) -> None:
        """The pointer over the window, so that its keys go to it (no window manager)."""
        width, height = self.display.size
        self.display.pointer(width // 2, height // 2)

    def play(self, move: str, seat: int) -> None:
        """Type an ICCS move (``h2e2``) with the arrow keys and Enter, as a person
        would: the cursor to the screen's bottom-left point first (it stops at the
        edges), then to the piece, Enter, to its target, Enter.  Seat 1 sees the
        board turned."""
        self.focus()
        (c0, r0), (c1, r1) = (screen_point(move[i : i + 2], seat) for i in (0, 2))
        keys = ["Left"] * FILES + ["Down"] * RANKS
        keys += ["Right"] * c0 + ["Up"] * (RANKS - 1 - r0) + ["Return"]
        keys += (["Right"] * (c1 - c0) if c1 > c0 else ["Left"] * (c0 - c1)) + (
            ["Up"] * (r0 - r1) if r0 > r1 else ["Down"] * (r1 - r0)
        )
        keys.append("Return")
        self.display.keys(*keys)

    def problems(self) -> list[str]:
        """ERROR records and tracebacks in its log."""
        text = self.log_text()
        return [line for line in text.splitlines() if " ERROR " in line or "Traceback" in line]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def screen_point(square: str, seat: int) -> tuple[int, int]:
    """The screen's (column, row) of an ICCS square (``e0``), row 0 at the top."""
    file, rank = ord(square[0]) - ord("a"), int(square[1])
    if seat == 0:  # Red at the bottom
        return file, RANKS - 1 - rank
    return FILES - 1 - file, rank
