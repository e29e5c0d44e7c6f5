"""The referee's store on a file system that fills up, and opened where it cannot be.

The faults are real: a 4 MiB tmpfs mounted for the test (so these tests need root
and skip without it), filled with a file until the kernel says ENOSPC; a read-only
mount; a file that is not SQLite.
"""

from __future__ import annotations

import errno
import logging
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from lanqi.referee import store as store_module
from lanqi.referee.store import EventStore, StoredEvent
from lanqi.server.database import StoreOpenError

from .test_store import counted, folded_events, make_game


@pytest.fixture
def small_fs(tmpfs: Callable[[str, str], Path]) -> Path:
    """A 4 MiB file system of the test's own."""
    return tmpfs("small", "size=4m")


@pytest.fixture
def read_only_fs(tmpfs: Callable[[str, str], Path]) -> Path:
    """A read-only file system (root may not write there either)."""
    return tmpfs("ro", "size=1m,ro")


def fill(path: Path) -> None:
    """Write ``path`` until its file system is full."""
    chunk = b"\xa5" * 65536
    with path.open("wb", buffering=0) as handle:
        try:
            while True:
                handle.write(chunk)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC, exc
    with path.open("ab", buffering=0) as handle:  # the last few free bytes too
        try:
            while True:
                handle.write(b"\xa5" * 512)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC, exc


def test_checkpoints_retry_while_the_disk_is_full_and_fold_once_it_has_room(
    small_fs: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = small_fs / "referee.sqlite3"
    caplog.set_level(logging.WARNING, logger="lanqi.referee.store")
    with EventStore(db) as store:
        store.create_game(make_game("g1"), [StoredEvent(1, "created", b"c", 1)])
        with store.batch():  # ~300 KiB in the write-ahead log, none in the file yet
            for seq in range(2, 301):
                store.append("g1", [StoredEvent(seq, "moved", os.urandom(1000), seq)])
        assert folded_events(db, tmp_path) == 0
        filler = small_fs / "filler"
        fill(filler)
        turns = counted(store)  # the checkpointer's loop turns, to wait on
        store.start_checkpoints(quiet_s=0.01, max_wait_s=0.05)
        turns.until(lambda: store.checkpoint_failures >= 3)
        assert store.checkpoints == 0
        filler.unlink()  # room again: the thread must still be there to use it
        turns.until(lambda: store.checkpoints >= 1)
        assert folded_events(db, tmp_path) == 300
        store.append("g1", [StoredEvent(301, "moved", b"m", 301)])  # and the store writes on
    messages = [r.getMessage() for r in caplog.records if "checkpoints of" in r.getMessage()]
    failing = [m for m in messages if "failing" in m]
    assert len(failing) == 1, messages  # once, not per attempt
    assert "database or disk is full" in failing[0]
    assert sum("work again" in m for m in messages) == 1


def test_a_read_only_directory_is_one_line_to_act_on(read_only_fs: Path) -> None:
    with pytest.raises(StoreOpenError, match=r"is read-only; pass --data-dir") as caught:
        EventStore(read_only_fs / "referee.sqlite3")
    assert "\n" not in str(caught.value)
    with pytest.raises(StoreOpenError, match=r"cannot create data directory .*Read-only"):
        EventStore(read_only_fs / "more" / "referee.sqlite3")


def test_a_file_that_is_not_sqlite_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "referee.sqlite3"
    junk = bytes(range(256)) * 20
    path.write_bytes(junk)
    with pytest.raises(StoreOpenError, match=r"is not an SQLite database; move it away"):
        EventStore(path)
    assert path.read_bytes() == junk
    assert sqlite3.sqlite_version  # the refusal came from SQLite reading the header


def test_a_write_lock_held_elsewhere_fails_the_batch_fast_and_writes_nothing(
    tmp_path: Path,
) -> None:
    db = tmp_path / "referee.sqlite3"
    with EventStore(db) as store:
        store.create_game(make_game("g1"), [StoredEvent(1, "created", b"c", 1)])
        # the loop's connection gives up on a lock quickly (the docs promise 50 ms)
        busy_ms = store._conn.execute("PRAGMA busy_timeout").fetchone()[0]
        assert busy_ms == store_module.BUSY_TIMEOUT_MS <= 50
        holder = sqlite3.connect(db, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
        with pytest.raises(sqlite3.OperationalError, match="locked"), store.batch():
            store.append("g1", [StoredEvent(2, "moved", b"m", 2)])
        holder.execute("ROLLBACK")
        holder.close()
        assert [e.seq for e in store.events("g1")] == [1]
        store.append("g1", [StoredEvent(2, "moved", b"m", 2)])  # the lock is gone
        assert [e.seq for e in store.events("g1")] == [1, 2]
