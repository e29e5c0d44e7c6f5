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

__all__ = ["DEFAULT_SIZE", "SETTINGS_FILE", "AppConfig", "Settings", "saved_session"]

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
    #: "server|name" -> lobby session token; the server is its key's fingerprint
    #: (:func:`~lanqi.security.server_identity`: one server under any address), or
    #: its address for a server without a key (``--insecure``) and in entries older
    #: than that (found all the same, and filed under the key once used)
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

    def session_for(self, server: str, name: str, *, address: str | None = None) -> str | None:
        """The saved session of ``name`` on ``server`` (its identity), else the one
        saved under the ``address`` it was reached at (an entry from before sessions
        were filed by key)."""
        return saved_session(self.sessions, server, name, address=address)

    def remember_session(
        self, server: str, name: str, session: str | None, *, address: str | None = None
    ) -> None:
        """File ``session`` under ``server|name`` (None: forget it); an entry for the
        same name under ``address`` is dropped (it has moved to the key)."""
        for key in [k for k in self.sessions if _entry_of(k, server, name, address)]:
            del self.sessions[key]
        if session is not None:
            self.sessions[f"{server}|{name}"] = session


def _entry_of(key: str, server: str, name: str, address: str | None) -> bool:
    where, _, who = key.rpartition("|")
    return where in (server, address) and who.casefold() == name.casefold()


def saved_session(
    sessions: dict[str, str], server: str, name: str, *, address: str | None = None
) -> str | None:
    """The session of ``name`` (any case, as the matchmaker compares names) filed under
    ``server``, else under ``address``.

    >>> table = {"tcp://10.0.0.5:5050|Alice": "old", "8411-2785-d109-2a7e|Bob": "new"}
    >>> saved_session(table, "8411-2785-d109-2a7e", "alice", address="tcp://10.0.0.5:5050")
    'old'
    >>> saved_session(table, "8411-2785-d109-2a7e", "Bob", address="tcp://127.0.0.1:5050")
    'new'
    """
    for where in (server, address):
        if where is None:
            continue
        exact = sessions.get(f"{where}|{name}")
        if exact is not None:
            return exact
        for key, session in sessions.items():
            if _entry_of(key, where, name, None):
                return session
    return None
