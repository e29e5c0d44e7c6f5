"""The refusals of :mod:`lanqi.security`: each one line that says what to do."""

from __future__ import annotations

__all__ = [
    "HandshakeRefused",
    "InsecureServer",
    "KeyChanged",
    "KeyFileError",
    "NoServerKey",
    "SecurityError",
]


class SecurityError(Exception):
    """A connection lanqi refuses (or cannot make) for its security; ``str()`` is
    one line for the user."""


class KeyChanged(SecurityError):  # noqa: N818 - reads as what happened
    """The server offers another key than the one pinned for its address."""


class InsecureServer(SecurityError):  # noqa: N818 - reads as what happened
    """A server pinned with a key now runs without encryption (no downgrade)."""


class NoServerKey(SecurityError):  # noqa: N818 - reads as what happened
    """The server's key port did not answer (or did not answer a key)."""


class HandshakeRefused(SecurityError):  # noqa: N818 - reads as what happened
    """The ZeroMQ handshake failed: no key, the wrong key, or a key not allowed."""


class KeyFileError(SecurityError):
    """The key pair in a data directory cannot be made or read."""
