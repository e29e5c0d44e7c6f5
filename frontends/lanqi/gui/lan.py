"""The connect screen's model of the servers heard on the LAN.

A :class:`~lanqi.discovery.ServerBrowser` listens on a thread of its own; the scene
calls :meth:`LanServers.refresh` once a frame, which only copies the list when it
changed, so no frame waits for the network.  No pygame here.
"""

from __future__ import annotations

from lanqi.discovery import DiscoveredServer, ServerBrowser
from lanqi.protocol import PROTOCOL_VERSION

__all__ = ["LanServers"]


class LanServers:
    """The lanqi servers heard on the LAN, as rows for the connect screen."""

    def __init__(self) -> None:
        self.servers: list[DiscoveredServer] = []
        self._browser: ServerBrowser | None = None
        self._seen = -1

    def start(self) -> None:
        """Start listening (returns at once)."""
        if self._browser is None:
            self._browser = ServerBrowser().start()

    def refresh(self) -> bool:
        """Take the latest list; True when it changed since the last call."""
        browser = self._browser
        if browser is None or browser.version == self._seen:
            return False
        self._seen = browser.version
        self.servers = browser.servers()
        return True

    @property
    def error(self) -> str | None:
        """Why nothing can be heard (no multicast DNS on this machine), if so."""
        return self._browser.error if self._browser is not None else None

    def rows(self) -> list[tuple[str, str, str]]:
        """(name, address, players online) per server; another protocol version says so."""
        rows = []
        for server in self.servers:
            players = "?" if server.players_online is None else str(server.players_online)
            name = server.name
            if server.version != PROTOCOL_VERSION:
                name = f"{name} (protocol v{server.version})"
            rows.append((name, server.address, players))
        return rows

    def close(self) -> None:
        """Stop listening (the browser lets go of the network on its own thread)."""
        if self._browser is not None:
            self._browser.close()
            self._browser = None
            self._seen = -1
