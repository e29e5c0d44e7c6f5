"""The TXT record a server announces, read back as a client reads it, and the choice
of the address a client connects to."""

from __future__ import annotations

import pytest

from lanqi.discovery import (
    MAX_LABEL_BYTES,
    MAX_NAME_BYTES,
    TxtFields,
    choose_address,
    instance_label,
    parse_txt,
    txt_record,
)
from lanqi.protocol import PROTOCOL_VERSION


def _wire(fields: dict[str, str]) -> dict[bytes, bytes | None]:
    """What zeroconf hands a client: bytes keys and values."""
    return {key.encode(): value.encode() for key, value in fields.items()}


@pytest.mark.parametrize("key", ["rq:Z85-public-key-40-chars-long-abcdefghij", None])
def test_fields_round_trip(key: str | None) -> None:
    fields = txt_record(name="象棋 Club night", events_port=5051, key=key, players=7)
    assert fields["v"] == str(PROTOCOL_VERSION)
    assert parse_txt(_wire(fields)) == TxtFields(
        name="象棋 Club night",
        version=PROTOCOL_VERSION,
        key=key,  # an empty key field reads as no key
        events_port=5051,
        players_online=7,
    )


def test_every_field_fits_a_txt_string() -> None:
    name = "棋" * 300
    fields = txt_record(name=name, events_port=2, key="k" * 40, players=10**6)
    assert name.startswith(fields["name"])  # cut on a character, not inside one
    assert MAX_NAME_BYTES - 3 < len(fields["name"].encode()) <= MAX_NAME_BYTES
    for key, value in fields.items():
        assert len(f"{key}={value}".encode()) <= 255, key


def test_unknown_fields_are_ignored_and_bad_numbers_unknown() -> None:
    wire = _wire({"v": "1", "name": "Hall", "players": "many", "events": "-3", "future": "x"})
    wire[b"flag"] = None  # a TXT key without a value
    assert parse_txt(wire) == TxtFields(
        name="Hall", version=1, key=None, events_port=None, players_online=None
    )


def test_a_record_without_a_version_is_not_a_lanqi_server() -> None:
    assert parse_txt(_wire({"name": "printer"})) is None
    assert parse_txt(_wire({"v": "one"})) is None


def test_a_missing_name_falls_back_to_the_instance_name() -> None:
    fields = parse_txt(_wire({"v": "2"}), fallback_name="Hall (2)")
    assert fields is not None
    assert (fields.name, fields.version) == ("Hall (2)", 2)


def test_bad_utf8_reads_as_missing() -> None:
    fields = parse_txt({b"v": b"1", b"name": b"\xff\xfe", b"key": b"\xc3"}, fallback_name="x")
    assert fields is not None
    assert (fields.name, fields.key) == ("x", None)


def test_instance_label_is_one_dns_label() -> None:
    label = instance_label("Club.night " + "象" * 40)
    assert "." not in label
    assert len(label.encode()) <= MAX_LABEL_BYTES
    assert label.startswith("Club night 象")  # cut on a character, not inside one
    assert instance_label(" . ") == "lanqi"


def test_the_address_on_our_own_network_is_chosen() -> None:
    announced = ["172.17.0.1", "10.213.0.1", "192.168.1.20"]
    assert choose_address(announced, ["192.168.1.7/24"]) == "192.168.1.20"
    assert choose_address(announced, ["10.213.0.2/24", "192.168.1.7/24"]) == "10.213.0.1"
    assert choose_address(announced, ["8.8.8.8/32"]) == "172.17.0.1"  # none: the first
