"""Where lanqi keeps its data: one directory, per user by default.

Order: an explicit path (a ``--data-dir`` flag), then ``$LANQI_DATA_DIR``, then
the platform's per-user data directory (``~/.local/share/lanqi`` on Linux).
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

__all__ = ["data_dir"]


def data_dir(explicit: str | Path | None = None) -> Path:
    """The data directory to use (not created here)."""
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get("LANQI_DATA_DIR")
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir("lanqi", appauthor=False))
