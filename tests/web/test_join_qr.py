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


@pytest.mark.skipif(shutil.which("zbarimg") is None, reason="needs zbarimg (zbar-tools)")
def test_serve_on_a_terminal_shows_the_join_code(tmp_path: Path) -> None:
    port = free_port()
    env = dict(os.environ, PYTHONPATH=source_path())
    leader, follower = pty.openpty()
    with (tmp_path / "serve.log").open("wb") as log:
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "lanqi.cli.main",
                "serve",
                "--data-dir",
                str(tmp_path / "data"),
                "--director-key",
                "join-qr-test",
                *("--port", "0", "--pub-port", "0", "--referee-port", "0"),
                *("--referee-pub-port", "0", "--web-port", str(port)),
            ],
            stdout=follower,
            stderr=log,
            env=env,
        )
    os.close(follower)
    try:
        output = _until_caption(leader, time.monotonic() + 60)
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        os.close(leader)
    lines = output.splitlines()
    assert lines[0].startswith("lanqi server ready: lobby ")
    web = next(line for line in lines if line.startswith("web pages at "))
    url = web.removeprefix("web pages at ").split(", ")[0]
    assert url == f"http://127.0.0.1:{port}/"
    caption = next(n for n, line in enumerate(lines) if line.startswith(JOIN_CAPTION))
    assert lines[caption] == JOIN_CAPTION + url
    drawn = read_colored(lines[lines.index(web) + 1 : caption])
    wanted = qr_matrix(url)
    assert drawn[: len(wanted)] == wanted
    assert _decode(drawn, tmp_path / "join.pbm") == url
