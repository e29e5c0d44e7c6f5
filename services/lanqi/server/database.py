"""Opening the services' SQLite files, with errors a person can act on.

Both stores (the referee's event log and the matchmaker's file) live in the data
directory.  When that directory cannot be created or written, or the file in it is
not an SQLite database, :func:`connect` raises :class:`StoreOpenError`, whose
message is one line that says what is wrong and what to do; the command-line entry
points print it and exit 1.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

__all__ = ["StoreOpenError", "connect", "explain", "prepare_data_dir"]

_WHAT_TO_DO = "pass --data-dir (or set $LANQI_DATA_DIR) to a writable directory"


class StoreOpenError(RuntimeError):
    """A service's database cannot be opened; the message says what to do."""


def prepare_data_dir(folder: Path) -> None:
    """Create ``folder`` if needed and make sure this process may write in it."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError as exc:
        raise StoreOpenError(
            f"data directory {folder} is a file, not a directory; {_WHAT_TO_DO}"
        ) from exc
    except OSError as exc:
        raise StoreOpenError(
            f"cannot create data directory {folder} ({exc.strerror}); {_WHAT_TO_DO}"
        ) from exc
    if not folder.is_dir():
        raise StoreOpenError(f"data directory {folder} is not a directory; {_WHAT_TO_DO}")
    # access() reports a read-only mount for root too (EROFS), unlike the mode bits
    if not os.access(folder, os.W_OK | os.X_OK):
        raise StoreOpenError(f"data directory {folder} is read-only; {_WHAT_TO_DO}")


#: SQLite's primary error code -> what is wrong with the file ``{path}`` and what to do
_SQLITE_PROBLEMS = {
    sqlite3.SQLITE_NOTADB: (
        "{path} is not an SQLite database; move it away, or pass --data-dir"
        " (or set $LANQI_DATA_DIR) to another directory"
    ),
    sqlite3.SQLITE_READONLY: "{path} is read-only; " + _WHAT_TO_DO,
    sqlite3.SQLITE_CANTOPEN: "{path} cannot be opened; " + _WHAT_TO_DO,
    sqlite3.SQLITE_BUSY: (
        "{path} is locked by another process (is another lanqi using this data"
        " directory?); stop it or use another --data-dir"
    ),
    sqlite3.SQLITE_FULL: "no space left for {path}; free some disk space or " + _WHAT_TO_DO,
}


def explain(path: Path, exc: sqlite3.Error | OSError) -> StoreOpenError:
    """A one-line StoreOpenError for ``exc``, raised while opening the database ``path``."""
    if isinstance(exc, OSError):
        written = exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM)
        problem = "cannot be written" if written else "cannot be opened"
        return StoreOpenError(f"{path} {problem} ({exc.strerror}); {_WHAT_TO_DO}")
    code = getattr(exc, "sqlite_errorcode", None)
    template = _SQLITE_PROBLEMS.get(code & 0xFF) if isinstance(code, int) else None
    if template is None:
        return StoreOpenError(f"cannot open {path} ({exc}); {_WHAT_TO_DO}")
    return StoreOpenError(template.format(path=path))


def connect(path: Path, *, timeout_s: float) -> sqlite3.Connection:
    """Open ``path`` (creating its directory) and read its header, or StoreOpenError.

    The connection runs in autocommit mode (``isolation_level=None``) and may be used
    from a thread other than the one that opened it (one thread at a time).
    """
    prepare_data_dir(path.parent)
    try:
        conn = sqlite3.connect(
            path, timeout=timeout_s, isolation_level=None, check_same_thread=False
        )
    except sqlite3.Error as exc:
        raise explain(path, exc) from exc
    try:
        conn.execute("PRAGMA user_version").fetchone()  # reads the header: is it SQLite?
    except sqlite3.Error as exc:
        conn.close()
        raise explain(path, exc) from exc
    return conn
