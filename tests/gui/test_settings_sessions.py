"""Saved lobby sessions in ``gui.json``: filed by the server's identity (its key's
fingerprint), entries of older GUIs filed by address found and moved (issue 19)."""

from __future__ import annotations

import json
from pathlib import Path

from lanqi.gui.settings import Settings

KEY = "8411-2785-d109-2a7e"
LAN, LOOPBACK = "tcp://192.0.2.2:6400", "tcp://127.0.0.1:6400"


def test_an_address_entry_is_found_for_its_address_and_moves_to_the_key(tmp_path: Path) -> None:
    (tmp_path / "gui.json").write_text(
        json.dumps({"sessions": {f"{LAN}|Alice": "s-alice", f"{LAN}|Bob": "s-bob"}})
    )
    settings = Settings.load(tmp_path)
    assert settings.session_for(KEY, "Alice", address=LOOPBACK) is None  # another address
    assert settings.session_for(KEY, "alice", address=LAN) == "s-alice"  # names: any case
    settings.remember_session(KEY, "Alice", "s-alice", address=LAN)
    settings.save()
    again = Settings.load(tmp_path)
    assert again.sessions == {f"{KEY}|Alice": "s-alice", f"{LAN}|Bob": "s-bob"}
    assert again.session_for(KEY, "Alice", address=LOOPBACK) == "s-alice"  # any address now


def test_the_key_entry_wins_and_forgetting_drops_both(tmp_path: Path) -> None:
    settings = Settings(sessions={f"{LAN}|Alice": "old", f"{KEY}|Alice": "new"})
    assert settings.session_for(KEY, "Alice", address=LAN) == "new"
    settings.remember_session(KEY, "Alice", None, address=LAN)
    assert settings.sessions == {}


def test_a_server_without_a_key_is_filed_by_its_address() -> None:
    settings = Settings()
    settings.remember_session(LOOPBACK, "Alice", "s", address=LOOPBACK)
    assert settings.sessions == {f"{LOOPBACK}|Alice": "s"}
    assert settings.session_for(LOOPBACK, "Alice", address=LOOPBACK) == "s"
