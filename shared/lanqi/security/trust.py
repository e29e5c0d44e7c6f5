"""The one place a client decides how to talk to a server: :func:`trust_server`."""

from __future__ import annotations

import logging
from typing import Any

import zmq

from lanqi.security.curve import Link
from lanqi.security.errors import InsecureServer, KeyChanged, NoServerKey
from lanqi.security.keyport import fetch_server_key, key_endpoint
from lanqi.security.keys import KeyPair, fingerprint, parse_public_key
from lanqi.security.known import KnownServers, address_of

__all__ = ["trust_server"]

log = logging.getLogger(__name__)


def trust_server(  # noqa: PLR0913 - keyword-only: where the key comes from
    endpoint: str,
    *,
    known: KnownServers | None,
    key: str | bytes | None = None,
    client: KeyPair | None = None,
    context: zmq.Context[Any] | None = None,
    timeout_ms: int = 3000,
) -> Link:
    """How to reach the service at ``endpoint`` (its request endpoint) safely.

    ``key``: the server's public key when the client already has it from a trusted
    source (the matchmaker's ``server_info``, an mDNS announcement, a flag); without
    it the service's key port is asked.  ``known``: the pins to check the key against
    and to add a first-seen key to (None: no pinning, for keys vouched for by a
    CURVE-authenticated matchmaker).

    Refuses, each with one line that says what to do: a key other than the pinned
    one (:class:`KeyChanged`), a pinned server that now runs without CURVE
    (:class:`InsecureServer`), a key port that does not answer (:class:`NoServerKey`).
    A server without CURVE that was never pinned gets a plain link (and a warning).
    """
    address = address_of(endpoint)
    pin = known.lookup(address) if known is not None else None
    if key is None:
        answer = fetch_server_key(endpoint, context, timeout_ms)
        if not answer.secure:
            if pin is not None:
                raise InsecureServer(
                    f"{address} now runs without encryption (--insecure), but its key"
                    f" {fingerprint(pin.key)} was pinned on {pin.since}; if that is expected,"
                    f" run `lanqi servers forget {address}`"
                )
            log.warning("%s runs without encryption (--insecure): nothing is private", address)
            return Link.plain()
        key = answer.key
    try:
        offered = parse_public_key(key.decode("ascii") if isinstance(key, bytes) else str(key))
    except ValueError:
        raise NoServerKey(f"{key_endpoint(endpoint)} answered a malformed key") from None
    if pin is not None and pin.key.encode("ascii") != offered:
        raise KeyChanged(
            f"{address} offers key {fingerprint(offered)}, not {fingerprint(pin.key)} pinned on"
            f" {pin.since}: someone may be posing as it; if the server was reinstalled,"
            f" run `lanqi servers forget {address}`"
        )
    if known is not None and pin is None:
        known.remember(address, offered.decode("ascii"))
        log.info("trusting %s with key %s from now on", address, fingerprint(offered))
    return Link.to(offered, client)
