"""Default ports, topics and endpoint helpers.

A client names the matchmaker once (``--server`` or ``$LANQI_SERVER``) and learns the
rest from it (``server_info``).  Endpoints a service reports with a wildcard or
loopback host (it was bound to ``0.0.0.0``, or a referee was given as ``127.0.0.1``)
are reached through the host the client reached the matchmaker at: :func:`reachable`.
"""

from __future__ import annotations

MATCHMAKER_PORT = 5050  # ROUTER: the classic LAN xiangqi port
MATCHMAKER_PUB_PORT = 5051
REFEREE_PORT = 5052
REFEREE_PUB_PORT = 5053

TOPIC_LOBBY = "lobby"
TOPIC_RESULTS = "results"

#: how an endpoint may be written on a command line (for error messages)
ENDPOINT_FORMS = "tcp://HOST:PORT, HOST:PORT or HOST"
#: hosts that mean "this machine" or "every interface" to the service that reports them
_LOCAL_HOSTS = frozenset({"0.0.0.0", "*", "::", "[::]", "localhost", "::1", "[::1]"})


def game_topic(game_id: str) -> str:
    return f"game/{game_id}"


def tour_topic(tournament_id: str) -> str:
    return f"tour/{tournament_id}"


def tcp(host: str, port: int) -> str:
    """A ZeroMQ TCP endpoint: ``tcp(\"127.0.0.1\", 5052) == 'tcp://127.0.0.1:5052'``."""
    return f"tcp://{host}:{port}"


def normalise_endpoint(text: str, default_port: int = MATCHMAKER_PORT) -> str:
    """``tcp://HOST:PORT`` from what a person types; ``ValueError`` (one line) otherwise.

    >>> normalise_endpoint("127.0.0.1:6599")
    'tcp://127.0.0.1:6599'
    >>> normalise_endpoint("club-server")
    'tcp://club-server:5050'
    >>> normalise_endpoint("tcp://[::1]:5050")
    'tcp://[::1]:5050'
    >>> normalise_endpoint("udp://host:1")
    Traceback (most recent call last):
    ...
    ValueError: bad endpoint 'udp://host:1': use tcp://HOST:PORT, HOST:PORT or HOST
    """
    raw = text.strip()
    rest = raw[len("tcp://") :] if raw.startswith("tcp://") else raw
    bad = ValueError(f"bad endpoint {text!r}: use {ENDPOINT_FORMS}")
    if not rest or "/" in rest or any(c.isspace() for c in rest):
        raise bad
    if rest.startswith("["):  # [IPv6]:PORT or [IPv6]
        close = rest.find("]")
        if close < 0:
            raise bad
        host, tail = rest[: close + 1], rest[close + 1 :]
        if tail and not tail.startswith(":"):
            raise bad
        port_text = tail[1:] if tail else ""
    elif rest.count(":") > 1:
        raise bad  # a bare IPv6 address must be bracketed
    else:
        host, sep, port_text = rest.partition(":")
        if sep and not port_text:
            raise bad
    if not host or host == "[]":
        raise bad
    if not port_text:
        return tcp(host, default_port)
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise bad
    return tcp(host, int(port_text))


def host_of(endpoint: str) -> str:
    """``host_of('tcp://10.0.0.2:5052') == '10.0.0.2'``."""
    rest = endpoint[len("tcp://") :] if endpoint.startswith("tcp://") else endpoint
    return rest.rpartition(":")[0] or rest


def with_host(endpoint: str, host: str) -> str:
    """``tcp://a:5052`` with another host: ``with_host('tcp://a:5052', 'b') == 'tcp://b:5052'``."""
    return tcp(host, int(endpoint.rpartition(":")[2]))


def is_local_host(host: str) -> bool:
    """A wildcard or loopback host (only meaningful on the machine that reports it)."""
    return host in _LOCAL_HOSTS or host.startswith("127.")


def reachable(endpoint: str, server: str) -> str:
    """``endpoint`` as a client that reached the matchmaker at ``server`` can reach it.

    >>> reachable("tcp://0.0.0.0:6601", "tcp://192.168.1.20:6599")
    'tcp://192.168.1.20:6601'
    >>> reachable("tcp://127.0.0.1:6601", "tcp://club:6599")
    'tcp://club:6601'
    >>> reachable("tcp://10.0.0.9:5052", "tcp://club:5050")
    'tcp://10.0.0.9:5052'
    """
    if is_local_host(host_of(endpoint)):
        return with_host(endpoint, host_of(server))
    return endpoint
