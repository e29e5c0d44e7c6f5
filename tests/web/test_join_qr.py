"""Join by QR: ``lanqi serve`` on a terminal ends its ready lines with a QR code of
its web pages' URL (a phone that scans it opens the lobby).

The server runs with a pseudo-terminal as its stdout, as a director starts it; the
coloured half blocks are read back module by module (the reader of ``lanqi key
--qr``'s test), compared with segno's code of the URL the ready line names, and
decoded by a real decoder (zbarimg) from an image of what was drawn.
"""

from __future__ import annotations

import os
import pty
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.cli.test_keys_cli import read_colored

from lanqi.bench.process import source_path
from lanqi.cli.qr import JOIN_CAPTION, qr_matrix

from .conftest import free_port


def _until_caption(leader: int, deadline: float) -> str:
    """What the server writes to its terminal, up to the join code's caption line."""
    out = b""
    while JOIN_CAPTION.encode() not in out or not out.endswith(b"\n"):
        left = deadline - time.monotonic()
        assert left > 0, f"no join code in time; got {out.decode(errors='replace')!r}"
        ready, _, _ = select.select([leader], [], [], left)
        if ready:
            out += os.read(leader, 65536)
    return out.decode("utf-8").replace("\r\n", "\n")


def _decode(modules: list[list[bool]], image: Path) -> str:
    """zbarimg's reading of the modules drawn as a black-and-white image (8 px a module)."""
    scale = 8
    pixels = [
        " ".join("1" if dark else "0" for dark in row for _ in range(scale))
        for row in modules
        for _ in range(scale)
    ]
    image.write_text(f"P1\n{len(modules[0]) * scale} {len(pixels)}\n" + "\n".join(pixels) + "\n")
    done = subprocess.run(
        ["zbarimg", "--raw", "-q", str(image)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.removesuffix("\n")


def _on_terminal(args: list[str], log: Path) -> str:
    """``lanqi ARGS`` with a pseudo-terminal as its stdout, up to its join code's
    caption; then stopped as a person stops it (Ctrl-C)."""
    env = dict(os.environ, PYTHONPATH=source_path())
    leader, follower = pty.openpty()
    with log.open("wb") as errors:
        process = subprocess.Popen(
            [sys.executable, "-m", "lanqi.cli.main", *args],
            stdout=follower,
            stderr=errors,
            env=env,
        )
    os.close(follower)
    try:
        return _until_caption(leader, time.monotonic() + 60)
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        os.close(leader)


def _check_join_code(output: str, first: str, url: str, image: Path) -> None:
    """The ready line first, then the web URL, its QR code (module for module segno's)
    and the caption; the code decodes to the URL."""
    lines = output.splitlines()
    assert lines[0].startswith(first), lines[0]
    web = next(line for line in lines if "web pages at " in line)
    assert web.partition("web pages at ")[2].split(", ")[0] == url
    caption = next(n for n, line in enumerate(lines) if line.startswith(JOIN_CAPTION))
    assert lines[caption] == JOIN_CAPTION + url
    drawn = read_colored(lines[lines.index(web) + 1 : caption])
    wanted = qr_matrix(url)
    assert drawn[: len(wanted)] == wanted
    assert _decode(drawn, image) == url


SERVICE_PORTS = ("--port", "0", "--pub-port", "0", "--referee-port", "0", "--referee-pub-port", "0")


@pytest.mark.skipif(shutil.which("zbarimg") is None, reason="needs zbarimg (zbar-tools)")
def test_serve_on_a_terminal_shows_the_join_code(tmp_path: Path) -> None:
    port = free_port()
    output = _on_terminal(
        [
            "serve",
            *("--data-dir", str(tmp_path / "data"), "--director-key", "join-qr-test"),
            *SERVICE_PORTS,
            *("--web-port", str(port)),
        ],
        tmp_path / "serve.log",
    )
    url = f"http://127.0.0.1:{port}/"
    _check_join_code(output, "lanqi server ready: lobby ", url, tmp_path / "serve.pbm")


@pytest.mark.skipif(shutil.which("zbarimg") is None, reason="needs zbarimg (zbar-tools)")
def test_lanqi_web_on_a_terminal_shows_the_join_code(tmp_path: Path) -> None:
    """``lanqi web``, the gateway apart from the server, says the same."""
    with (tmp_path / "server.log").open("wb") as log:
        server = subprocess.Popen(
            [
                sys.executable,
                *("-m", "lanqi.cli.main", "serve", "--no-web"),
                *("--data-dir", str(tmp_path / "server"), "--director-key", "join-qr-test"),
                *SERVICE_PORTS,
            ],
            stdout=subprocess.PIPE,
            stderr=log,
            env=dict(os.environ, PYTHONPATH=source_path()),
        )
    try:
        assert server.stdout is not None
        ready = server.stdout.readline().decode()
        lobby = ready.split("lobby ", 1)[1].split()[0]
        port = free_port()
        output = _on_terminal(
            [
                "web",
                *("--server", lobby, "--port", str(port)),
                *("--data-dir", str(tmp_path / "web")),
            ],
            tmp_path / "web.log",
        )
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=20)
    url = f"http://127.0.0.1:{port}/"
    _check_join_code(output, "lanqi web ready: ", url, tmp_path / "web.pbm")
