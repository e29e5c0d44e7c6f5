"""``lanqi serve`` starts the web pages and says where in its ready lines;
``--no-web`` starts none; a taken port is one line that says what to do."""

from __future__ import annotations

import hashlib
import socket
import ssl
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

from tests.web.conftest import free_port

PORTS = ["--port", "0", "--pub-port", "0", "--referee-port", "0", "--referee-pub-port", "0"]


def serve(tmp_path: Path, *flags: str) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "lanqi.cli.main", "serve", *PORTS, *flags]
    return subprocess.Popen(
        [*command, "--data-dir", str(tmp_path / "data")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def lines_until(process: subprocess.Popen[str], ending: str) -> list[str]:
    """Stdout lines up to the one starting with ``ending`` (or the end of output)."""
    assert process.stdout is not None
    watchdog = threading.Timer(30, process.kill)  # readline returns "" if it hangs
    watchdog.start()
    try:
        lines: list[str] = []
        while line := process.stdout.readline():
            lines.append(line.rstrip("\n"))
            if line.startswith(ending):
                break
        return lines
    finally:
        watchdog.cancel()


def test_the_ready_lines_name_the_pages_which_are_served(tmp_path: Path) -> None:
    port = free_port()
    process = serve(tmp_path, "--web-port", str(port))
    try:
        lines = lines_until(process, "web pages at")
        assert lines[-1] == f"web pages at http://127.0.0.1:{port}/", lines
        base = f"http://127.0.0.1:{port}"
        page = urllib.request.urlopen(base + "/", timeout=10).read().decode()
        assert '<script type="module" src="/static/lobby.js">' in page
        game = urllib.request.urlopen(base + "/game/anything", timeout=10).read().decode()
        assert 'id="board"' in game
        for path in ("/static/board.js", "/static/game.js", "/static/style.css", "/i18n.json"):
            assert urllib.request.urlopen(base + path, timeout=10).status == 200, path
    finally:
        process.terminate()
        process.wait(10)


def test_no_web_serves_no_pages_and_a_taken_port_says_what_to_do(tmp_path: Path) -> None:
    process = serve(tmp_path, "--no-web")
    try:
        lines = lines_until(process, "server key")
        assert not any("web pages" in line for line in lines), lines
    finally:
        process.terminate()
        process.wait(10)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        process = serve(tmp_path, "--web-port", str(port))
        _, err = process.communicate(timeout=30)
    assert process.returncode == 1
    assert f"cannot start the web pages on port {port}" in err
    assert "--web-port" in err and "--no-web" in err
    assert "ERROR" not in err and "Traceback" not in err, err


def test_web_tls_serves_https_with_the_printed_fingerprint(tmp_path: Path) -> None:
    port = free_port()
    process = serve(tmp_path, "--web-port", str(port), "--web-tls")
    try:
        lines = lines_until(process, "web certificate")
        assert f"web pages at https://127.0.0.1:{port}/" in lines, lines
        printed = lines[-1].rsplit(" ", 1)[1]
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE  # self-signed: people compare the fingerprint
        with (
            socket.create_connection(("127.0.0.1", port), timeout=10) as raw,
            context.wrap_socket(raw) as tls,
        ):
            der = tls.getpeercert(binary_form=True)
        assert der is not None
        digest = hashlib.sha256(der).hexdigest().upper()
        assert printed == ":".join(digest[i : i + 2] for i in range(0, 64, 2))
        page = urllib.request.urlopen(f"https://127.0.0.1:{port}/", context=context, timeout=10)
        assert b"/static/lobby.js" in page.read()
    finally:
        process.terminate()
        process.wait(10)
