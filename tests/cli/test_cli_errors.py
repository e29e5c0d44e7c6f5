"""Errors a user sees are one line that says what to do (a traceback only with ``-v``);
a closed pipe ends a command quietly; ``lanqi bot`` says when it cannot reach the
server, with a count.  Every case runs the real ``lanqi`` command in a subprocess."""

from __future__ import annotations

import os
import queue
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SOURCE_PATH = os.pathsep.join(str(REPO / part) for part in ("shared", "services", "frontends"))
LANQI = [sys.executable, "-m", "lanqi.cli.main"]


def env(tmp_path: Path) -> dict[str, str]:
    values = dict(os.environ, PYTHONPATH=SOURCE_PATH, LANQI_DATA_DIR=str(tmp_path / "data"))
    values.pop("LANQI_SERVER", None)
    return values


def lanqi(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*LANQI, *args], capture_output=True, text=True, env=env(tmp_path), timeout=120, check=False
    )


def free_port() -> int:
    """A loopback port nothing listens on (bound and released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def test_version(tmp_path: Path) -> None:
    done = lanqi(tmp_path, "--version")
    assert done.returncode == 0
    assert done.stdout.startswith("lanqi ") and done.stdout.split()[1][0].isdigit()


def test_a_missing_engine_is_one_line_and_a_traceback_with_v(tmp_path: Path) -> None:
    line = one_line(lanqi(tmp_path, "bot", "--engine", "uci:/nonexistent"))
    assert line.startswith("lanqi bot: cannot start nonexistent (/nonexistent)")
    assert line.endswith("check the program given with --engine/--bot")
    verbose = lanqi(tmp_path, "bot", "--engine", "uci:/nonexistent", "-v")
    assert verbose.returncode != 0
    assert "Traceback (most recent call last)" in verbose.stderr
    assert verbose.stderr.splitlines()[-1] == line


def test_no_server_is_one_line(tmp_path: Path) -> None:
    address = f"127.0.0.1:{free_port()}"
    line = one_line(lanqi(tmp_path, "tournament", "list", "--server", address))
    assert line == (
        f"lanqi tournament: no answer from tcp://{address}: is the server running? "
        "(name it with --server or $LANQI_SERVER)"
    )


def test_a_server_without_a_scheme_or_port_is_accepted_or_refused_in_one_line(
    tmp_path: Path,
) -> None:
    line = one_line(lanqi(tmp_path, "tournament", "list", "--server", "udp://host:5050"))
    assert line == (
        "lanqi tournament: --server: bad endpoint 'udp://host:5050': "
        "use tcp://HOST:PORT, HOST:PORT or HOST"
    )


def test_no_director_key_is_one_line(tmp_path: Path) -> None:
    line = one_line(lanqi(tmp_path, "tournament", "start", "abc"))
    assert line.startswith("lanqi tournament: no director key: pass --director-key")


@pytest.mark.parametrize(
    "args",
    [
        ("perft", "3", "--divide"),
        ("selfplay", "--games", "1", "--seed", "3"),
        ("--help",),
        ("tournament", "create", "--help"),
    ],
    ids=" ".join,
)
def test_a_closed_pipe_ends_the_command_quietly(tmp_path: Path, args: tuple[str, ...]) -> None:
    """``lanqi ... | head -1`` after head has gone: the first write meets a closed pipe."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the command writes anything
    err = tmp_path / "stderr"
    with err.open("w") as stderr:
        proc = subprocess.Popen([*LANQI, *args], stdout=write_end, stderr=stderr, env=env(tmp_path))
    os.close(write_end)
    code = proc.wait(timeout=120)
    assert err.read_text() == ""  # no BrokenPipeError, no "Exception ignored"
    assert code in (0, 141)  # argparse's help exits before lanqi's handler: 0 is fine


def test_bot_without_a_server_says_so_with_a_count(tmp_path: Path) -> None:
    address = f"127.0.0.1:{free_port()}"
    proc = subprocess.Popen(
        [*LANQI, "bot", "--bot", "random", "--name", "Lonely", "--server", address],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env(tmp_path),
    )
    lines: queue.Queue[str] = queue.Queue()
    assert proc.stderr is not None and proc.stdout is not None

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.put(line)
        lines.put("")

    threading.Thread(target=read, daemon=True).start()
    try:
        assert proc.stdout.readline().startswith(f"1 bot(s) on tcp://{address}: Lonely")
        tries: list[str] = []
        while len(tries) < 2:
            line = lines.get(timeout=60)
            assert line, "the bot stopped"
            assert "in the lobby" not in line
            if "cannot reach the server" in line:
                tries.append(line)
        assert f"Lonely: cannot reach the server at tcp://{address} (try 1)" in tries[0]
        assert "(try 2)" in tries[1]
        assert "trying again in" in tries[1]
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def test_a_bad_referee_for_the_matchmaker_is_one_line(tmp_path: Path) -> None:
    line = one_line(
        lanqi(tmp_path, "matchmaker", "--referee", "udp://x:1", "--data-dir", str(tmp_path))
    )
    assert line == (
        "lanqi matchmaker: bad referee 'udp://x:1': bad endpoint 'udp://x:1': "
        "use tcp://HOST:PORT, HOST:PORT or HOST"
    )


def test_referees_are_named_with_or_without_tcp() -> None:
    from lanqi.matchmaker.referees import parse_referee

    plain, full = parse_referee("10.0.0.5:6601"), parse_referee("tcp://10.0.0.5:6601")
    assert (plain.endpoint, plain.pub_endpoint) == (full.endpoint, full.pub_endpoint)
    assert (plain.endpoint, plain.pub_endpoint) == ("tcp://10.0.0.5:6601", "tcp://10.0.0.5:6602")
    both = parse_referee("r1,r1:7000", advertise="club")
    assert (both.endpoint, both.pub_endpoint) == ("tcp://r1:5052", "tcp://r1:7000")
    assert (both.public_endpoint, both.public_pub_endpoint) == (
        "tcp://club:5052",
        "tcp://club:7000",
    )
