"""The GUI's small settings file: ``gui.json`` in the data directory.

It remembers the server address and name of the last connection, the lobby
session of each (server, name) so a restarted GUI is the same player, and the
display choices (Latin letters, move notation, AI level, time of local games,
sound on or off).
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from lanqi.protocol.endpoints import MATCHMAKER_PORT

__all__ = ["DEFAULT_SIZE", "SETTINGS_FILE", "AppConfig", "Settings"]

log = logging.getLogger(__name__)

SETTINGS_FILE = "gui.json"
DEFAULT_SIZE = (1180, 780)


@dataclass(slots=True)
class AppConfig:
    """How the GUI starts (the ``lanqi gui`` flags)."""

    data_dir: Path
    server: str | None = None
    events: str | None = None
    referee: str | None = None
    referee_events: str | None = None
    name: str | None = None
    offline: str | None = None  # "xiangqi" or "gomoku"
    ai: int | None = None
    side: str = "first"  # the human's side against the AI: first or second
    fen: str | None = None
    time: str | None = None
    ai_time_ms: int | None = None
    review: Path | None = None
    size: tuple[int, int] = DEFAULT_SIZE
    connect: bool = False  # go straight to the lobby
    options: dict[str, object] = field(default_factory=dict)


@dataclass(slots=True)
class Settings:
    server: str = f"tcp://127.0.0.1:{MATCHMAKER_PORT}"
    #: matchmaker events; empty: the server's host, port + 1
    events: str = ""
    #: referee requests/events for watching games; empty: the server's host, 5052/5053
    referee: str = ""
    referee_events: str = ""
    name: str = ""
    #: draw pieces with Latin letters (R, H, E, A, K, C, P) instead of characters
    latin: bool = False
    #: move list: "chinese" or "wxf" (or "iccs")
    notation: str = "chinese"
    ai_level: int = 3
    #: slide pieces to their new square
    animate: bool = True
    #: play sounds (moves, captures, check, the end); ``M`` on the game screen toggles it
    sound: bool = True
    #: time control of local games: "none" or "MINUTES+SECONDS"
    local_time: str = "none"
    #: the game options last picked, "variant.option" -> value as text (``gomoku.size``)
    game_options: dict[str, str] = field(default_factory=dict)
    #: "server|name" -> lobby session token
    sessions: dict[str, str] = field(default_factory=dict)
    path: Path | None = field(default=None, repr=False, compare=False)

    @classmethod
    def load(cls, data_dir: Path) -> Settings:
        """Read ``gui.json`` from ``data_dir``; defaults if it is missing or unreadable."""
        path = data_dir / SETTINGS_FILE
        settings = cls(path=path)
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return settings
        except (OSError, ValueError) as exc:
            log.warning("ignoring unreadable settings %s: %s", path, exc)
            return settings
        if not isinstance(raw, dict):
            return settings
        for item in fields(cls):
            if item.name == "path" or item.name not in raw:
                continue
            value = raw[item.name]
            default = getattr(settings, item.name)
            if isinstance(default, bool):
                ok = isinstance(value, bool)
            elif isinstance(default, int):
                ok = isinstance(value, int) and not isinstance(value, bool)
            elif isinstance(default, dict):
                ok = isinstance(value, dict) and all(
                    isinstance(k, str) and isinstance(v, str) for k, v in value.items()
                )
            else:
                ok = isinstance(value, str)
            if ok:
                setattr(settings, item.name, value)
        return settings

    def save(self) -> None:
        """Write the settings back (creating the data directory); errors are logged."""
        if self.path is None:
            return
        data: dict[str, Any] = asdict(self)
        data.pop("path", None)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
            tmp.replace(self.path)
        except OSError as exc:
            log.warning("cannot save settings to %s: %s", self.path, exc)

    def session_for(self, server: str, name: str) -> str | None:
        return self.sessions.get(f"{server}|{name}")

    def remember_session(self, server: str, name: str, session: str | None) -> None:
        key = f"{server}|{name}"
        if session is None:
            self.sessions.pop(key, None)
        else:
            self.sessions[key] = session
