"""docs/protocol.md keeps up with the code: every message type and error code is
documented, and every example in it is a valid message of the current protocol."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import msgpack
import pytest

import lanqi.protocol
from lanqi.protocol import PROTOCOL_VERSION, GameEvent, decode, message_types
from lanqi.protocol.schema import Struct, to_wire

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "protocol.md"
SOURCES = [
    *sorted((ROOT / "shared" / "lanqi" / "protocol").glob("*.py")),
    *sorted((ROOT / "services" / "lanqi" / "referee").glob("*.py")),
]
RAISED_CODE = re.compile(r'\b(?:RefereeError|GameEndedError|ProtocolError)\(\s*"([a-z_]+)"')
REPLIED_CODE = re.compile(r'\bcode="([a-z_]+)"')


def doc_text() -> str:
    return DOC.read_text(encoding="utf-8")


def named_in_headings_or_table_rows(text: str) -> set[str]:
    """Every `name` in backticks on a heading line or at the start of a table row."""
    names: set[str] = set()
    for line in text.splitlines():
        if line.startswith("#"):
            names.update(re.findall(r"`([^`]+)`", line))
        elif line.startswith("|"):
            first_cell = line.split("|")[1]
            names.update(re.findall(r"`([^`]+)`", first_cell))
    return names


def example_values() -> list[Any]:
    """The JSON values in the doc's ```jsonc blocks (``//`` lines are comments)."""
    blocks = re.findall(r"^```jsonc\n(.*?)^```", doc_text(), flags=re.M | re.S)
    decoder = json.JSONDecoder()
    values = []
    for block in blocks:
        body = "\n".join(ln for ln in block.splitlines() if not ln.lstrip().startswith("//"))
        pos = 0
        while True:
            while pos < len(body) and body[pos].isspace():
                pos += 1
            if pos == len(body):
                break
            value, pos = decoder.raw_decode(body, pos)
            values.append(value)
    return values


def test_every_message_type_is_documented() -> None:
    documented = named_in_headings_or_table_rows(doc_text())
    missing = sorted(set(message_types()) - documented)
    assert not missing, f"docs/protocol.md does not document message type(s) {missing}"


def test_every_error_code_is_in_the_error_table() -> None:
    codes: set[str] = set()
    for path in SOURCES:
        source = path.read_text(encoding="utf-8")
        codes.update(RAISED_CODE.findall(source))
        codes.update(REPLIED_CODE.findall(source))
    assert {"bad_message", "unknown_type", "bad_token", "internal"} <= codes  # the scan works
    codes.add("bad_version")  # raised with the code on its own line in codec.py
    documented = named_in_headings_or_table_rows(doc_text())
    missing = sorted(codes - documented)
    assert not missing, f"docs/protocol.md does not explain error code(s) {missing}"


def test_every_message_with_its_own_section_has_an_example() -> None:
    sections = set(re.findall(r"^#{3,4} `([a-z_]+)`", doc_text(), flags=re.M))
    assert sections & set(message_types()), "no message sections found"
    seen = {(v[1] if isinstance(v, list) else v)["t"] for v in example_values()}
    missing = sorted((sections & set(message_types())) - seen)
    assert not missing, f"no example of {missing}"


def documented_field_tables() -> dict[str, list[str]]:
    """Section name -> the fields its table lists (sections with a ``| field |`` table)."""
    parts = re.split(r"^(#{2,4} .*)$", doc_text(), flags=re.M)
    tables = {}
    for head, body in zip(parts[1::2], parts[2::2], strict=True):
        name = re.match(r"#+ `?([A-Za-z_]+)`?", head)
        if name and re.search(r"^\| field \|", body, flags=re.M):
            tables[name.group(1)] = re.findall(r"^\| `([a-z_]+)` \|", body, flags=re.M)
    return tables


def test_field_tables_list_exactly_the_fields_of_the_code() -> None:
    tables = documented_field_tables()
    assert {"move", "snapshot", "moved", "TimeControl"} <= set(tables)
    for name, listed in tables.items():
        cls = message_types().get(name) or getattr(lanqi.protocol, name, None)
        if not (isinstance(cls, type) and issubclass(cls, Struct)):
            continue  # e.g. the error reply's table lives under "Errors"
        fields = [f.name for f in dataclasses.fields(cls) if f.name not in ("id", "re")]
        if issubclass(cls, GameEvent):  # every event's game_id and seq are described once
            fields = [f for f in fields if f not in ("game_id", "seq")]
        assert listed == fields, f"the table of {name} lists {listed}, the code has {fields}"


@pytest.mark.parametrize("value", example_values(), ids=lambda v: str(v)[:60])
def test_every_example_is_an_exact_message_of_this_protocol(value: Any) -> None:
    if isinstance(value, list):  # an event: [topic, payload]
        topic, payload = value
        expected = "results" if payload["t"] == "result" else f"game/{payload['game_id']}"
        assert topic == expected
    else:
        payload = value
    assert payload["v"] == PROTOCOL_VERSION
    message = decode([msgpack.packb(payload, use_bin_type=True)])
    wire = to_wire(message)
    wire["v"] = PROTOCOL_VERSION
    assert wire == payload  # every field present, nothing unknown, same values
