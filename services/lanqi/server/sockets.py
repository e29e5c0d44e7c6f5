"""Socket plumbing the services share."""

from __future__ import annotations

from typing import Any

import zmq

__all__ = ["bind_tcp"]


def bind_tcp(socket: zmq.Socket[Any], host: str, port: int) -> str:
    """Bind ``socket`` on ``host``:``port`` (0: a free port) and return the endpoint."""
    if port == 0:
        chosen = socket.bind_to_random_port(f"tcp://{host}")
        return f"tcp://{host}:{chosen}"
    endpoint = f"tcp://{host}:{port}"
    socket.bind(endpoint)
    return endpoint
