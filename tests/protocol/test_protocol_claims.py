"""Claims of docs/protocol.md that a client author relies on, checked against the code
(issue 19): the seek fit rule's time-control fields, the Gomocup ``x,y`` form, and the
lines a fresh ``lanqi serve`` prints (the doc shows them twice)."""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from lanqi.games.registry import create_game
from lanqi.matchmaker.lobby import compatible
from lanqi.protocol import Seek, TimeControl

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def doc_text() -> str:
    return DOC.read_text(encoding="utf-8")


def test_the_fit_rule_names_every_time_control_field_the_matchmaker_compares() -> None:
    found = re.search(r"Two seeks \*\*fit\*\* when (.*?)\n\n", doc_text(), re.S)
    assert found is not None
    rule = " ".join(found.group(1).split())
    listed = re.search(r"all (\w+) of its fields as sent \(defaults filled in\): (.*?), also", rule)
    assert listed is not None, rule
    names = re.findall(r"`([a-z_]+)`", listed.group(2))
    fields = [f.name for f in dataclasses.fields(TimeControl)]
    assert names == fields
    assert listed.group(1) == {9: "nine"}[len(fields)]
    base = Seek(variant="xiangqi", time_control=TimeControl(kind="fischer", base_ms=60_000))
    assert compatible(base, base)
    other_values: dict[str, Any] = {
        "kind": "per_move",
        "base_ms": 61_000,
        "increment_ms": 1_000,
        "per_move_ms": 5_000,  # unused by fischer, still compared
        "join_within_ms": 10_000,
        "first_move_ms": 0,
        "seat_base_ms": [60_000, 30_000],
        "seat_increment_ms": [0, 1_000],
        "seat_per_move_ms": [5_000, 5_000],
    }
    assert sorted(other_values) == sorted(fields)
    for name, value in other_values.items():
        changed = dataclasses.replace(base.time_control, **{name: value})
        assert not compatible(base, dataclasses.replace(base, time_control=changed)), name


def test_the_gomocup_form_counts_y_from_the_top_row_as_the_doc_says() -> None:
    found = re.search(r"the Gomocup form\s+`x,y`(.*?)The referee", doc_text(), re.S)
    assert found is not None
    text = " ".join(found.group(1).split())
    pairs = re.findall(r"`(\d+,\d+)` is ([a-o]\d+)", text)
    assert ("0,0", "a15") in pairs and len(pairs) == 3, text
    assert "on a 15×15 board" in text
    for gomocup, name in pairs:
        game = create_game("gomoku")
        assert game.parse_move(gomocup) == game.parse_move(name), (gomocup, name)


def mask(line: str) -> str:
    line = re.sub(r"tcp://\S+?(?=[ )]|$)", "ENDPOINT", line)
    line = re.sub(r"/tmp/\S+?(?=[ `/]|$)", "DIR", line)
    return re.sub(r"\b[0-9a-f]{4}(-[0-9a-f]{4}){3}\b", "FINGERPRINT", line)


def test_every_documented_start_of_lanqi_serve_shows_the_lines_it_prints(tmp_path: Path) -> None:
    documented = [
        [mask(line) for line in block.strip().splitlines()]
        for block in re.findall(r"^```text\n(lanqi server ready:.*?)^```", doc_text(), re.M | re.S)
    ]
    assert len(documented) == 2  # "Starting the services" and the raw lobby client
    data = Path("/tmp") / f"lanqi-doc-{tmp_path.name}"
    ports = ["--port", "0", "--pub-port", "0", "--referee-port", "0", "--referee-pub-port", "0"]
    ports.append("--no-web")
    command = [sys.executable, "-m", "lanqi.cli.main", "serve", *ports, "--data-dir", str(data)]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    printed: list[str] = []
    watchdog = threading.Timer(30, server.kill)  # readline returns "" if it hangs
    watchdog.start()
    try:
        assert server.stdout is not None
        while len(printed) < 3 and (line := server.stdout.readline()):
            printed.append(mask(line.rstrip("\n")))
    finally:
        watchdog.cancel()
        server.terminate()
        server.wait(timeout=10)
        shutil.rmtree(data, ignore_errors=True)
    assert len(printed) == 3, printed
    for block in documented:
        assert block[:3] == printed, block
