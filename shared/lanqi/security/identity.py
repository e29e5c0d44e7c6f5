"""What a server *is* to a client that keeps things for it: its key, not its address.

One server is reached under many addresses (the LAN address a client heard it at,
``127.0.0.1`` on its own machine, a host name): whatever a client files per server
(a lobby session, remembered seats) is filed under :func:`server_identity`, the
fingerprint of the server's CURVE key.  A server run with ``--insecure`` has no
key, so there the address stands in for it (as before keys existed).
"""

from __future__ import annotations

from lanqi.security.curve import Link
from lanqi.security.keys import fingerprint

__all__ = ["server_identity"]


def server_identity(link: Link, endpoint: str) -> str:
    """The name a client files things of the server at ``endpoint`` under: its key's
    fingerprint (``8411-2785-d109-2a7e``), or ``endpoint`` itself for a server
    without CURVE (``--insecure``).

    >>> server_identity(Link.plain(), "tcp://10.0.0.5:5050")
    'tcp://10.0.0.5:5050'
    >>> server_identity(Link.to("rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7"), "tcp://10.0.0.5:5050")
    '8411-2785-d109-2a7e'
    """
    return endpoint if link.server_key is None else fingerprint(link.server_key)
