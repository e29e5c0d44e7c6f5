"""Fixtures shared by every test folder."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Callable[[str, str], Path]]:
    """``tmpfs(name, options)``: a tmpfs of the test's own (e.g. ``"size=4m"`` or
    ``"size=1m,ro"``), unmounted after the test; the test skips where it may not mount
    (it needs root)."""
    mounted: list[Path] = []

    def mount(name: str, options: str) -> Path:
        where = tmp_path / name
        where.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here (needs root): {done.stderr.strip()}")
        mounted.append(where)
        return where

    try:
        yield mount
    finally:
        for where in reversed(mounted):
            subprocess.run(["umount", "-l", str(where)], check=True)
