"""``lanqi key`` and ``lanqi servers``: what the director reads out and what a player
checks (the refusal they fix is in tests/matchmaker/test_curve_e2e.py).

``lanqi key --qr``: the QR code a player's phone scans off the director's screen.  The
drawing is read back module by module (the terminal's coloured half blocks, and the
plain ones of ``--qr=always`` into a pipe) and compared with segno's code; then a real
decoder (zbarimg, Debian's zbar-tools) reads an image made of the modules drawn and
must find the fingerprint and the whole key.  Piped, plain ``--qr`` draws nothing and
says why on stderr.
"""

from __future__ import annotations

import os
import pty
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from lanqi.bench.process import source_path
from lanqi.cli.qr import JOIN_CAPTION, QUIET_ZONE, qr_lines, qr_matrix
from lanqi.cli.servers import key_line
from lanqi.security import KeyPair, KnownServers, fingerprint, public_key_file, server_keys

ANSI = re.compile(r"\x1b\[(\d+);(\d+)m")
INK = {
    " ": (False, False),
    "\u2580": (True, False),
    "\u2584": (False, True),
    "\u2588": (True, True),
}
DARK = 30  # the ANSI black foreground (background 40)


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


def test_lanqi_key_says_when_it_made_the_key(tmp_path: Path) -> None:
    """A director who forgot ``--data-dir`` is told that the key shown is a new one."""
    first = lanqi("key", data=tmp_path)
    assert first.stderr.strip() == (
        f"lanqi key: {tmp_path} had no server key: made one now (a server started with this"
        " data directory will use it; is your server's elsewhere? --data-dir DIR)"
    )
    assert lanqi("key", data=tmp_path).stderr == ""  # the same key, read again


def test_ready_line_names_the_command_that_shows_the_same_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = tmp_path / "my server"
    key = server_keys(server).public.decode()
    monkeypatch.setenv("LANQI_DATA_DIR", str(tmp_path / "default"))
    line = key_line(key, "tcp://127.0.0.1:5054", server)
    command = re.search(r"\(`lanqi (key[^`]*)` prints it again", line)
    assert command is not None and command[1] == f"key --data-dir '{server}'"
    shown = lanqi(*shlex.split(command[1]), data=tmp_path / "default")
    assert shown.stdout.splitlines()[0] == f"fingerprint {fingerprint(key)}"
    assert line.startswith(f"server key {fingerprint(key)} ")
    monkeypatch.setenv("LANQI_DATA_DIR", str(server))  # the default: no flag needed
    assert "(`lanqi key` prints it again" in key_line(key, "tcp://127.0.0.1:5054", server)


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


def on_terminal(*args: str, data: Path) -> str:
    """The output of ``lanqi ARGS`` run with a pseudo-terminal as its stdout."""
    env = dict(os.environ, PYTHONPATH=source_path(), LANQI_DATA_DIR=str(data))
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "lanqi.cli.main", *args],
            stdout=follower,
            stderr=subprocess.PIPE,
            timeout=60,
            env=env,
            check=False,
        )
        os.close(follower)
        follower = -1
        assert done.returncode == 0, done.stderr
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the writer closed
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(leader)
        if follower != -1:
            os.close(follower)
    return b"".join(chunks).decode("utf-8").replace("\r\n", "\n")


def read_plain(lines: list[str]) -> list[list[bool]]:
    """The modules drawn by plain half blocks (two rows per line)."""
    rows: list[list[bool]] = []
    for line in lines:
        pairs = [INK[char] for char in line]
        rows += [[top for top, _ in pairs], [bottom for _, bottom in pairs]]
    return rows


def read_colored(lines: list[str]) -> list[list[bool]]:
    """The modules drawn by coloured upper half blocks (fg: upper row, bg: lower row)."""
    rows: list[list[bool]] = []
    for line in lines:
        top, bottom, fg, bg = [], [], 0, 0
        for part in re.split(r"(\x1b\[[\d;]+m)", line):
            colours = ANSI.fullmatch(part)
            if colours:
                fg, bg = int(colours[1]), int(colours[2]) - 10
                continue
            if part == "\x1b[0m":
                continue
            for char in part:
                assert char == "\u2580", f"unexpected {char!r} in a coloured line"
                top.append(fg == DARK)
                bottom.append(bg == DARK)
        rows += [top, bottom]
    return rows


def drawn_code(output: str, read: Callable[[list[str]], list[list[bool]]]) -> list[list[bool]]:
    """The key's QR code in ``lanqi key`` output: after the blank line, before the hint."""
    lines = output.splitlines()
    hint = next(n for n, line in enumerate(lines) if line.startswith("scan it: the phone shows"))
    return read(lines[lines.index("") + 1 : hint])


def drawn_join_code(
    output: str, read: Callable[[list[str]], list[list[bool]]]
) -> tuple[str, list[list[bool]]]:
    """The join code (the web pages' URL) in ``lanqi key`` output: after the key's
    hint and a blank line, before ``scan it to join: URL``; and that URL."""
    lines = output.splitlines()
    assert lines[-1].startswith(JOIN_CAPTION), lines[-1]
    hint = next(n for n, line in enumerate(lines) if line.startswith("scan it: the phone shows"))
    assert lines[hint + 1] == ""
    return lines[-1].removeprefix(JOIN_CAPTION), read(lines[hint + 2 : -1])


def expected(data: Path) -> tuple[str, list[list[bool]]]:
    keys = server_keys(data)
    text = f"lanqi server key {fingerprint(keys.public)}\n{keys.public.decode()}"
    matrix = qr_matrix(text)
    if len(matrix) % 2:
        matrix.append([False] * len(matrix[0]))
    return text, matrix


def test_qr_on_a_terminal_is_the_code_of_fingerprint_and_key(tmp_path: Path) -> None:
    output = on_terminal("key", "--qr", data=tmp_path)
    matrix = expected(tmp_path)[1]
    keys = server_keys(tmp_path)
    assert output.splitlines()[:2] == [
        f"fingerprint {keys.fingerprint}",
        f"public key  {keys.public.decode()}",
    ]
    assert "\x1b[" in output  # coloured: reads on dark and light themes alike
    assert drawn_code(output, read_colored) == matrix
    assert len(matrix[0]) <= 80 and len(matrix) // 2 <= 24  # fits a small terminal


def _even(matrix: list[list[bool]]) -> list[list[bool]]:
    """A code's modules as half blocks draw them (a light row added to an odd count)."""
    return [*matrix, [False] * len(matrix[0])] if len(matrix) % 2 else matrix


def test_qr_of_the_web_pages_url_to_join(tmp_path: Path) -> None:
    """After the key's code, one of the web pages' URL (what `lanqi serve --lan` serves
    on this machine's LAN address and port 8080, or --web-url); --web-port 0: none."""
    from lanqi.web.server import web_urls

    url, matrix = drawn_join_code(on_terminal("key", "--qr", data=tmp_path), read_colored)
    assert url == web_urls("0.0.0.0", 8080)[0]
    assert "/" not in url.removeprefix("http://").removesuffix("/")  # a host and a port
    assert matrix == _even(qr_matrix(url))
    given = "https://club.example:8443/"
    piped = lanqi("key", "--qr=always", "--web-url", given, data=tmp_path)
    assert drawn_join_code(piped.stdout, read_plain) == (given, _even(qr_matrix(given)))
    none = lanqi("key", "--qr=always", "--web-port", "0", data=tmp_path)
    assert JOIN_CAPTION not in none.stdout
    assert none.stdout.splitlines()[-1].startswith("scan it: the phone shows")


def test_qr_piped_only_when_asked(tmp_path: Path) -> None:
    server_keys(tmp_path)  # a server's key already (no note that one was made)
    piped = lanqi("key", "--qr", data=tmp_path)
    assert piped.returncode == 0
    assert len(piped.stdout.splitlines()) == 3  # the three lines of plain `lanqi key`
    assert piped.stderr.strip() == (
        "lanqi key: no QR code: the output is not a terminal (--qr=always draws one anyway)"
    )
    asked = lanqi("key", "--qr=always", data=tmp_path)
    assert asked.returncode == 0, asked.stderr
    assert "\x1b" not in asked.stdout  # no escapes in a file
    assert drawn_code(asked.stdout, read_plain) == expected(tmp_path)[1]
    both = lanqi("key", "--raw", "--qr", data=tmp_path)
    assert (both.returncode, both.stderr.strip()) == (
        2,
        "lanqi key: --raw prints only the key: drop --qr",
    )


@pytest.mark.skipif(
    shutil.which("zbarimg") is None, reason="zbarimg (Debian's zbar-tools) is missing"
)
def test_a_decoder_reads_the_drawn_code(tmp_path: Path) -> None:
    """What was drawn, made an image (8 pixels a module), decodes to the key's text."""
    text = expected(tmp_path)[0]
    for color in (True, False):
        lines = qr_lines(text, color=color)
        modules = read_colored(lines) if color else read_plain(lines)
        assert modules[0] == [False] * len(modules[0])  # the quiet zone came along
        assert sum(modules[QUIET_ZONE]) > 0
        scale = 8
        pixels = [
            " ".join("1" if dark else "0" for dark in row for _ in range(scale))
            for row in modules
            for _ in range(scale)
        ]
        image = tmp_path / f"code-{color}.pbm"
        width = len(modules[0]) * scale
        image.write_text(f"P1\n{width} {len(pixels)}\n" + "\n".join(pixels) + "\n")
        done = subprocess.run(
            ["zbarimg", "--raw", "-q", "-Sbinary", str(image)],
            capture_output=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.decode("utf-8").removesuffix("\n") == text
