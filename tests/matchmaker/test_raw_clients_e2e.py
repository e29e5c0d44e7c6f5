"""docs/protocol.md's two raw clients, run as written against real services.

The doc promises a client in a few lines of pyzmq + msgpack; these tests take the
``python`` blocks out of the doc, run them as scripts against ``lanqi referee`` and
``lanqi serve``, and compare what they print with the output the doc shows (ids,
tokens, sessions, endpoints and clock readings differ from run to run; seats are
decided by a coin).
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
RUN_TIMEOUT_S = 60


def section(title: str) -> str:
    found = re.search(rf"^## {title}\n(.*?)(?=^## |\Z)", DOC.read_text("utf-8"), re.M | re.S)
    assert found, f"no section {title!r} in docs/protocol.md"
    return found.group(1)


def blocks(text: str, kind: str) -> list[str]:
    return re.findall(rf"^```{kind}\n(.*?)^```", text, flags=re.M | re.S)


def script(tmp_path: Path, title: str, name: str) -> Path:
    (code,) = blocks(section(title), "python")
    path = tmp_path / name
    path.write_text(code, encoding="utf-8")
    return path


def run(*command: str | Path) -> list[str]:
    done = subprocess.run(
        [sys.executable, *map(str, command)],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout.splitlines()


def without_clock(line: str) -> tuple[str, Any]:
    """A printed ``label {map}`` line as (label, the map without its clock readings,
    which differ from run to run)."""
    label, _, rest = line.partition(" ")
    rest = rest.strip()
    if not rest.startswith("{"):
        return label, rest.split()[0] if rest else ""
    value = ast.literal_eval(rest)
    for reading in ("clock", "left_ms", "clocks"):
        value.pop(reading, None)
    return label, value


def test_the_raw_referee_client_prints_what_the_doc_shows(lanqi: Any, tmp_path: Path) -> None:
    referee = lanqi.referee()
    client = script(tmp_path, "A raw client in Python", "raw_client.py")
    printed = run(client, referee.endpoints["requests"], referee.endpoints["events"])
    (documented,) = blocks(section("A raw client in Python"), "text")
    expected = documented.strip().splitlines()
    assert [line.split()[0] for line in printed] == [line.split()[0] for line in expected]
    # the game line names a new game; everything after it is the same but the clocks
    assert [without_clock(line) for line in printed[1:]] == [
        without_clock(line) for line in expected[1:]
    ]


def lobby_lines(lines: list[str]) -> list[str]:
    """A raw lobby client's lines with the run's ids, sessions, endpoints, clocks and
    seat-dependent words masked, and the player's name dropped."""
    masked = []
    for line in lines:
        text = line.split(maxsplit=1)[1]
        text = re.sub(r"\{'remaining_ms'.*\}", "CLOCK", text)
        text = re.sub(r"tcp://\S+", "ENDPOINT", text)
        text = re.sub(r"\b[0-9a-f]{12,16}\b", "ID", text)
        text = re.sub(r"session \S+", "session SESSION", text)
        masked.append(text)
    return masked


def test_two_raw_lobby_clients_play_the_documented_game(lanqi: Any, tmp_path: Path) -> None:
    server = lanqi.serve()
    client = script(tmp_path, "A raw lobby client in Python", "raw_lobby_client.py")
    players = [
        subprocess.Popen(
            [sys.executable, str(client), name, server.lobby, server.events],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("ann", "bob")
    ]
    outputs = []
    for player in players:
        out, err = player.communicate(timeout=RUN_TIMEOUT_S)
        assert player.returncode == 0, f"{out}\n{err}"
        outputs.append(lobby_lines(out.splitlines()))
    documented = [
        lobby_lines(block.strip().splitlines()[1:])  # [0] is the "$ python ..." line
        for block in blocks(section("A raw lobby client in Python"), "text")
        if block.startswith("$ python raw_lobby_client.py")
    ]
    assert len(documented) == 2
    # both play the same documented game: the same moves, the same ending
    moved = [[line for line in lines if line.startswith("moved")] for lines in documented]
    assert moved[0] == moved[1] and len(moved[0]) == 6
    for lines in outputs:
        assert lines[0].startswith("welcome ID session SESSION")
        assert lines[1].startswith("seek_created ID paired")
        assert any(
            re.fullmatch(r"assigned ID seat [01] of \['(ann|bob)', '(ann|bob)'\] on ENDPOINT", line)
            for line in lines
        )
        assert [line for line in lines if line.startswith("moved")] == moved[0]
        assert lines[-1] == documented[0][-1] == "ended    0-1 resignation winner seat 1"
    assert sum(line == "resigned" for lines in outputs for line in lines) == 1


def curve_example(tmp_path: Path) -> Path:
    """The runnable block of the doc's "A client in Python" (under Encryption)."""
    found = re.search(r"^#### A client in Python\n(.*?)(?=^#)", DOC.read_text("utf-8"), re.M | re.S)
    assert found, "no '#### A client in Python' in docs/protocol.md"
    (code,) = blocks(found.group(1), "python")
    path = tmp_path / "curve_client.py"
    path.write_text(code, encoding="utf-8")
    return path


def test_the_documented_curve_client_talks_to_a_server_and_to_an_insecure_one(
    lanqi: Any, tmp_path: Path
) -> None:
    """The doc's CURVE client fetches the key from the key port, prints it and gets a
    ``server`` reply over CURVE; against ``--insecure`` it learns so and speaks plain."""
    client = curve_example(tmp_path)
    secure = lanqi.serve()
    key = secure.keys.public.decode("ascii")
    printed = run(client, secure.lobby)
    assert printed[0] == f"server matchmaker key {key}"
    reply = ast.literal_eval(printed[1])
    assert reply["t"] == "server" and reply["referees"][0]["key"] == key
    plain = lanqi.serve("--insecure")
    printed = run(client, plain.lobby)
    assert printed[0] == "server matchmaker key None"
    reply = ast.literal_eval(printed[1])
    assert reply["t"] == "server" and reply["referees"][0]["key"] is None
