"""The server key pair in a data directory, fingerprints, key arguments and the pins
(no sockets: the end-to-end refusals are in tests/matchmaker/test_curve_e2e.py)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
import zmq
import zmq.auth

from lanqi.security import (
    KeyPair,
    KnownServers,
    fingerprint,
    parse_public_key,
    public_key_file,
    server_keys,
)


def test_the_key_pair_is_made_once_with_a_private_secret_file(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    first = server_keys(folder)
    secret = folder / "server_curve.key_secret"
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    assert zmq.auth.load_certificate(secret) == (first.public, first.secret)
    assert zmq.auth.load_certificate(public_key_file(folder)) == (first.public, None)
    assert server_keys(folder) == first  # read again, not made again
    assert [p.name for p in folder.iterdir() if p.name.startswith(".")] == []  # no scratch left


def test_a_lost_public_file_is_written_again_from_the_secret_one(tmp_path: Path) -> None:
    pair = server_keys(tmp_path)
    public_key_file(tmp_path).unlink()
    assert server_keys(tmp_path) == pair
    assert zmq.auth.load_certificate(public_key_file(tmp_path))[0] == pair.public


def test_a_key_pair_works_as_curve_keys() -> None:
    pair = KeyPair.ephemeral()
    assert zmq.curve_public(pair.secret) == pair.public


def test_fingerprints_are_short_and_tell_keys_apart() -> None:
    one, two = KeyPair.ephemeral(), KeyPair.ephemeral()
    assert len(one.fingerprint) == 19 and one.fingerprint.count("-") == 3
    assert fingerprint(one.public.decode()) == fingerprint(one.public) == one.fingerprint
    assert one.fingerprint != two.fingerprint


def test_a_key_argument_is_a_key_or_a_key_file(tmp_path: Path) -> None:
    pair = server_keys(tmp_path)
    assert parse_public_key(pair.public.decode()) == pair.public
    assert parse_public_key(str(public_key_file(tmp_path))) == pair.public
    with pytest.raises(ValueError, match="neither a key"):
        parse_public_key("not-a-key")
    (tmp_path / "empty.key").write_text("nothing here\n")
    with pytest.raises(ValueError, match="holds no public key"):
        parse_public_key(str(tmp_path / "empty.key"))


def test_pins_are_kept_per_address_and_forgotten(tmp_path: Path) -> None:
    known = KnownServers(tmp_path / "known_servers")
    assert known.lookup("10.0.0.5:5050") is None
    one, two = KeyPair.ephemeral(), KeyPair.ephemeral()
    known.remember("10.0.0.5:5050", one.public.decode())
    known.remember("10.0.0.6:5050", two.public.decode())
    again = KnownServers(tmp_path / "known_servers")  # another process reads the file
    pin = again.lookup("10.0.0.5:5050")
    assert pin is not None and pin.key == one.public.decode()
    assert again.forget("10.0.0.5:5050")
    assert not again.forget("10.0.0.5:5050")
    assert [p.address for p in known.pins()] == ["10.0.0.6:5050"]
