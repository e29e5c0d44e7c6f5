"""The servers a client has trusted: one pinned public key per address, per data
directory (like SSH's ``known_hosts``).

``<data-dir>/known_servers`` holds one line per server, ``HOST:PORT KEY DATE``: the
address the client named, the server's Z85 public key and the day it was first
used.  A server that later offers another key is refused
(:class:`~lanqi.security.errors.KeyChanged`) until ``lanqi servers forget HOST:PORT``
removes its line.
"""

from __future__ import annotations

import datetime
import os
from dataclasses import dataclass
from pathlib import Path

from lanqi.paths import data_dir

__all__ = ["KNOWN_SERVERS_FILE", "KnownServers", "Pin", "address_of"]

KNOWN_SERVERS_FILE = "known_servers"
HEADER = (
    "# lanqi: servers this data directory trusts, one per line: HOST:PORT KEY FIRST-USED\n"
    "# `lanqi servers forget HOST:PORT` removes one (after the server got a new key)\n"
)


def address_of(endpoint: str) -> str:
    """The address a pin is filed under: ``tcp://10.0.0.5:5050`` -> ``10.0.0.5:5050``."""
    return endpoint[len("tcp://") :] if endpoint.startswith("tcp://") else endpoint


@dataclass(frozen=True, slots=True)
class Pin:
    address: str
    key: str
    since: str  # ISO date of first use


class KnownServers:
    """The pin file of one data directory (read on every look-up, so several
    processes sharing a data directory agree)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def of(cls, folder: str | Path | None = None) -> KnownServers:
        """The pins of a data directory (default: ``$LANQI_DATA_DIR`` or per user)."""
        return cls(data_dir(folder) / KNOWN_SERVERS_FILE)

    def pins(self) -> list[Pin]:
        """Every pin, first line first (a repeated address: the first one counts)."""
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return []
        found = []
        for line in lines:
            parts = line.split()
            if len(parts) >= 2 and not line.startswith("#"):
                found.append(Pin(parts[0], parts[1], parts[2] if len(parts) > 2 else "?"))
        return found

    def lookup(self, address: str) -> Pin | None:
        return next((pin for pin in self.pins() if pin.address == address), None)

    def remember(self, address: str, key: str) -> Pin:
        """Pin ``key`` for ``address`` (appended: one short write)."""
        pin = Pin(address, key, datetime.date.today().isoformat())
        self.path.parent.mkdir(parents=True, exist_ok=True)
        new = not self.path.exists()
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write((HEADER if new else "") + f"{pin.address} {pin.key} {pin.since}\n")
        return pin

    def forget(self, address: str) -> bool:
        """Remove every pin of ``address``; False if there was none."""
        pins = self.pins()
        kept = [pin for pin in pins if pin.address != address]
        if len(kept) == len(pins):
            return False
        text = HEADER + "".join(f"{p.address} {p.key} {p.since}\n" for p in kept)
        scratch = self.path.with_name(f".{self.path.name}.{os.getpid()}")
        scratch.write_text(text, encoding="utf-8")
        os.replace(scratch, self.path)
        return True
