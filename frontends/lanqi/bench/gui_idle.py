"""What an idle GUI window costs: the share of a core one window takes while nobody
touches it.

The GUI draws a frame only when its picture changed and otherwise ticks slowly
(:mod:`lanqi.gui.app`).  The benchmark runs one window for a while, untouched, and
reads the process's CPU time; then the same window again drawing every frame at
60 frames a second, the loop the GUI had before, as the baseline measured in the
same run.  By default the window is on SDL's dummy video driver (no display
needed; drawing is measured, not the copy to the screen, which under X costs
more); ``real_display`` opens it on the display in ``$DISPLAY``.

The scenes: ``game``, an offline xiangqi game with a 10+5 clock (the clock of the
side to move runs, so a frame a second is drawn), and ``menu``.
"""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SCENES", "IdleFigure", "format_report", "measure_idle"]

SCENES = ("game", "menu")
#: seconds the window runs before the measurement starts (fonts, the board's wood)
WARM_UP_S = 1.0


@dataclass(frozen=True, slots=True)
class IdleFigure:
    """One window left alone for ``seconds``."""

    scene: str
    every_frame: bool
    seconds: float
    #: CPU time over wall time: 1.0 is a whole core
    cpu_share: float
    frames: int
    draws: int


def measure_idle(
    scene: str,
    seconds: float,
    *,
    every_frame: bool = False,
    size: tuple[int, int] = (1180, 780),
    real_display: bool = False,
    warm_up: float = WARM_UP_S,
) -> IdleFigure:
    """Run one untouched window for ``seconds`` (after a warm-up) and read its cost."""
    if scene not in SCENES:
        raise ValueError(f"no scene {scene!r}: {', '.join(SCENES)}")
    if not real_display:
        os.environ["SDL_VIDEODRIVER"] = "dummy"
    from lanqi.gui.app import App, AppConfig
    from lanqi.gui.scenes.base import ToMenu, ToOfflineGame

    with tempfile.TemporaryDirectory(prefix="lanqi-gui-idle-") as folder:
        app = App(AppConfig(data_dir=Path(folder), size=size))
        try:
            app.draw_every_frame = every_frame
            app.go(ToOfflineGame("xiangqi", time_control="10+5") if scene == "game" else ToMenu())
            app.loop(until=time.monotonic() + warm_up)
            frames, draws = app.frames, app.draws
            cpu, wall = time.process_time(), time.monotonic()
            app.loop(until=wall + seconds)
            cpu, wall = time.process_time() - cpu, time.monotonic() - wall
            return IdleFigure(
                scene,
                every_frame,
                wall,
                cpu / wall if wall > 0 else 0.0,
                app.frames - frames,
                app.draws - draws,
            )
        finally:
            app.close()


def format_report(figures: list[IdleFigure]) -> str:
    """A line per figure: the scene, the loop, the share of a core, frames drawn.

    >>> print(format_report([IdleFigure("game", False, 10.0, 0.004, 200, 10)]))
    game  drawn on change     0.4% of a core   10 of 200 frames drawn in 10.0 s
    """
    lines = []
    for f in figures:
        loop = "every frame (60/s)" if f.every_frame else "drawn on change"
        lines.append(
            f"{f.scene:<5} {loop:<18} {100 * f.cpu_share:4.1f}% of a core"
            f" {f.draws:4d} of {f.frames} frames drawn in {f.seconds:.1f} s"
        )
    return "\n".join(lines)
