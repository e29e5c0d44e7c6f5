"""The GUI's connect screen in a process of its own (run inside a network namespace by
``test_netns_e2e.py``): SDL's dummy driver, the real :class:`~lanqi.gui.app.App`.

``python gui_probe.py SERVER_NAME PLAYER DATA_DIR`` waits until the connect screen
lists the server named SERVER_NAME, prints the rows it shows as one JSON line, clicks
that row (the player's name typed first) and prints, as a second JSON line, the
scene it ended on and the name the lobby welcomed.  Exit 1 (and a line saying what
never happened) after 30 s.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

TIMEOUT_S = 30.0


def _until(app: Any, done: Any, what: str) -> None:
    deadline = time.monotonic() + TIMEOUT_S
    while not done():
        if time.monotonic() > deadline:
            raise SystemExit(f"gui probe: timed out waiting for {what}")
        app.step(1 / 60)
        time.sleep(0.01)


def main(argv: list[str]) -> int:
    os.environ["SDL_VIDEODRIVER"] = "dummy"
    os.environ["SDL_AUDIODRIVER"] = "dummy"
    os.environ["PYGAME_HIDE_SUPPORT_PROMPT"] = "1"
    server_name, player, data_dir = argv
    import pygame

    from lanqi.gui.app import App, AppConfig
    from lanqi.gui.scenes.base import ToConnect
    from lanqi.gui.scenes.connect import ConnectScene

    app = App(AppConfig(data_dir=Path(data_dir), size=(1180, 780)))
    try:
        app.go(ToConnect())
        app.step(1 / 60)
        scene = app.scene
        assert isinstance(scene, ConnectScene), scene
        scene.name.text = player

        def index() -> int | None:
            names = [row[0] for row in scene.list.rows]
            return names.index(server_name) if server_name in names else None

        _until(app, lambda: index() is not None, f"{server_name!r} in the connect screen's list")
        print(json.dumps({"rows": [list(row) for row in scene.list.rows]}), flush=True)
        row = index()
        assert row is not None
        box = scene.list.rect
        at = (box.x + 20, box.y + row * scene.list.row_height + scene.list.row_height // 2)
        pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=at, button=1))
        pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=at, button=1))
        _until(app, lambda: app.scene is not scene, "the lobby after the click")
        welcome = app.lobby.welcome if app.lobby is not None else None
        print(
            json.dumps(
                {
                    "scene": type(app.scene).__name__,
                    "server": app.lobby.server if app.lobby is not None else None,
                    "welcomed": welcome.name if welcome is not None else None,
                }
            ),
            flush=True,
        )
    finally:
        app.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
