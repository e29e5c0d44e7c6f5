"""``lanqi key`` and ``lanqi servers``: what the director reads out and what a player
checks (the refusal they fix is in tests/matchmaker/test_curve_e2e.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from lanqi.bench.process import source_path
from lanqi.security import KeyPair, KnownServers, fingerprint, public_key_file, server_keys


def lanqi(*args: str, data: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=source_path(), LANQI_DATA_DIR=str(data))
    return subprocess.run(
        [sys.executable, "-m", "lanqi.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )


def test_lanqi_key_makes_the_key_once_and_prints_it(tmp_path: Path) -> None:
    shown = lanqi("key", data=tmp_path)
    assert shown.returncode == 0, shown.stderr
    keys = server_keys(tmp_path)  # the pair the command made
    assert shown.stdout.splitlines() == [
        f"fingerprint {fingerprint(keys.public)}",
        f"public key  {keys.public.decode()}",
        f"key file    {public_key_file(tmp_path)}",
    ]
    raw = lanqi("key", "--raw", "--data-dir", str(tmp_path), data=tmp_path / "elsewhere")
    assert raw.stdout == keys.public.decode() + "\n"


def test_lanqi_servers_lists_and_forgets_pins(tmp_path: Path) -> None:
    key = KeyPair.ephemeral().public.decode()
    KnownServers.of(tmp_path).remember("192.168.1.20:5050", key)
    listed = lanqi("servers", "list", data=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines()[1].split()[:2] == ["192.168.1.20:5050", fingerprint(key)]
    forgot = lanqi("servers", "forget", "tcp://192.168.1.20:5050", data=tmp_path)
    assert forgot.returncode == 0 and "forgot the key of 192.168.1.20:5050" in forgot.stdout
    again = lanqi("servers", "forget", "192.168.1.20:5050", data=tmp_path)
    assert again.returncode == 1
    assert again.stderr.strip() == (
        f"lanqi servers: no key is pinned for 192.168.1.20:5050 in {tmp_path / 'known_servers'}"
    )
