"""The server commands on a data directory they cannot use: one line, exit 1.

``lanqi serve``, ``lanqi referee`` and ``lanqi matchmaker`` run as real processes on a
read-only mount (root ignores permission bits, not a read-only file system; the test
skips where it may not mount), under a path that cannot be created, and on a
database file that is not SQLite.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

PORTS = {
    "referee": ["--port", "0", "--pub-port", "0"],
    "matchmaker": ["--port", "0", "--pub-port", "0"],
    "serve": [
        *("--port", "0", "--pub-port", "0", "--referee-port", "0", "--referee-pub-port", "0"),
        "--no-web",
    ],
}
DATABASE = {
    "referee": "referee.sqlite3",
    "matchmaker": "matchmaker.sqlite3",
    "serve": "referee.sqlite3",
}


def start(command: str, data_dir: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    """Run the command; one that starts after all is stopped by the timeout (and fails)."""
    env = dict(os.environ)
    env.pop("LANQI_DATA_DIR", None)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "lanqi.cli.main",
            *flags,
            command,
            *PORTS[command],
            "--data-dir",
            str(data_dir),
        ],
        capture_output=True,
        text=True,
        timeout=30,
        env=env,
        check=False,
    )


def assert_one_line(done: subprocess.CompletedProcess[str], command: str, *phrases: str) -> None:
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"lanqi {command}: cannot start: ")
    for phrase in phrases:
        assert phrase in lines[0]


@pytest.fixture
def read_only_dir(tmpfs: Callable[[str, str], Path]) -> Path:
    return tmpfs("ro", "size=1m,ro")


@pytest.mark.parametrize("command", ["serve", "referee", "matchmaker"])
def test_a_read_only_data_directory(command: str, read_only_dir: Path) -> None:
    done = start(command, read_only_dir)
    assert_one_line(done, command, f"{read_only_dir} is read-only", "pass --data-dir")
    done = start(command, read_only_dir / "lanqi")
    assert_one_line(done, command, f"cannot create data directory {read_only_dir / 'lanqi'}")


@pytest.mark.parametrize("command", ["serve", "referee", "matchmaker"])
def test_a_data_directory_that_cannot_be_created(command: str, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory\n")
    done = start(command, blocker / "data")
    assert_one_line(done, command, f"cannot create data directory {blocker / 'data'}")
    done = start(command, blocker)
    assert_one_line(done, command, f"data directory {blocker} is a file")


@pytest.mark.parametrize("command", ["serve", "referee", "matchmaker"])
def test_a_database_that_is_not_sqlite(command: str, tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    database = folder / DATABASE[command]
    junk = b"these are notes, not a database\n" * 200
    database.write_bytes(junk)
    (folder / "director.key").write_text("key\n")
    done = start(command, folder)
    assert_one_line(done, command, f"{database} is not an SQLite database", "move it away")
    assert database.read_bytes() == junk


def test_verbose_shows_the_traceback_too(tmp_path: Path) -> None:
    database = tmp_path / "referee.sqlite3"
    database.write_bytes(b"not sqlite\n" * 500)
    done = start("referee", tmp_path, "-v")
    assert done.returncode == 1
    assert "Traceback" in done.stderr and "StoreOpenError" in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("lanqi referee: cannot start: ")
