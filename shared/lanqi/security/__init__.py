"""Encryption and authentication on every lanqi socket (ZeroMQ's CURVE, via pyzmq).

- A server's key pair is made once in its data directory (:func:`server_keys`);
  people compare keys by :func:`fingerprint`.
- Services bind CURVE servers (:func:`curve_server`) and answer their public key on
  a plain key port (:class:`KeyResponder`, request port + :data:`KEY_PORT_OFFSET`).
- Clients decide how to talk to a server in one place, :func:`trust_server`: the key
  from a trusted source or the key port, checked against the data directory's pins
  (:class:`KnownServers`, like SSH's known hosts); the :class:`Link` it returns sets
  up each socket, and :class:`HandshakeWatch` turns a refused handshake into one line.
- What a client keeps per server (lobby sessions) is filed under
  :func:`server_identity`: the key's fingerprint, not the address it was reached at.
"""

from lanqi.security.curve import HandshakeWatch, Link, curve_client, curve_server
from lanqi.security.errors import (
    HandshakeRefused,
    InsecureServer,
    KeyChanged,
    KeyFileError,
    NoServerKey,
    SecurityError,
)
from lanqi.security.identity import server_identity
from lanqi.security.keyport import KEY_PORT_OFFSET, KeyResponder, fetch_server_key, key_endpoint
from lanqi.security.keys import (
    KeyPair,
    fingerprint,
    parse_public_key,
    public_key_file,
    server_keys,
)
from lanqi.security.known import KnownServers, Pin, address_of
from lanqi.security.trust import trust_server

__all__ = [
    "KEY_PORT_OFFSET",
    "HandshakeRefused",
    "HandshakeWatch",
    "InsecureServer",
    "KeyChanged",
    "KeyFileError",
    "KeyPair",
    "KeyResponder",
    "KnownServers",
    "Link",
    "NoServerKey",
    "Pin",
    "SecurityError",
    "address_of",
    "curve_client",
    "curve_server",
    "fetch_server_key",
    "fingerprint",
    "key_endpoint",
    "parse_public_key",
    "public_key_file",
    "server_identity",
    "server_keys",
    "trust_server",
]
