"""Socket plumbing the services share: binding, and a service's CURVE and key port."""

from __future__ import annotations

import errno
from typing import Any

import zmq

from lanqi.security import KEY_PORT_OFFSET, KeyPair, KeyResponder, curve_server
from lanqi.server.gate import ZAP_DOMAIN, Gate

__all__ = ["SecureSockets", "bind_tcp"]

#: tries at a free request port whose key port (+ KEY_PORT_OFFSET) is free too
RANDOM_PORT_TRIES = 100


def bind_tcp(socket: zmq.Socket[Any], host: str, port: int) -> str:
    """Bind ``socket`` on ``host``:``port`` (0: a free port) and return the endpoint."""
    if port == 0:
        chosen = socket.bind_to_random_port(f"tcp://{host}")
        return f"tcp://{host}:{chosen}"
    endpoint = f"tcp://{host}:{port}"
    socket.bind(endpoint)
    return endpoint


class SecureSockets:
    """A service's CURVE: its key pair (None: ``--insecure``) set on the sockets it
    binds, and its key port, bound beside the request port; and the context's
    :class:`~lanqi.server.gate.Gate`, which judges every connection to those sockets.

    ``key_port`` None: the request port + :data:`KEY_PORT_OFFSET` (with request port
    0, a free port whose neighbour is free too), where clients given only the
    request endpoint ask; 0: any free port.
    """

    def __init__(
        self,
        context: zmq.Context[Any],
        keys: KeyPair | None,
        *,
        service: str,
        key_port: int | None = None,
        name: str = "",
    ) -> None:
        self.keys = keys
        self.key_port = key_port
        self.responder = KeyResponder(context, keys, service=service, name=name)
        self.gate = Gate.open(context)

    @property
    def key_endpoint(self) -> str:
        return self.responder.endpoint

    def server(self, socket: zmq.Socket[Any]) -> None:
        """Make ``socket`` a CURVE server with the service's keys, its connections judged
        by the gate (before binding it)."""
        curve_server(socket, self.keys)
        socket.setsockopt_string(zmq.ZAP_DOMAIN, ZAP_DOMAIN)

    def bind_requests(self, router: zmq.Socket[Any], host: str, port: int) -> str:
        """Bind the request ROUTER and the key port; returns the request endpoint."""
        self.server(router)
        key_socket = self.responder.socket
        if self.key_port is not None:
            endpoint = bind_tcp(router, host, port)
            self.responder.endpoint = bind_tcp(key_socket, host, self.key_port)
            return endpoint
        if port != 0:
            endpoint = bind_tcp(router, host, port)
            self.responder.endpoint = bind_tcp(key_socket, host, port + KEY_PORT_OFFSET)
            return endpoint
        for _ in range(RANDOM_PORT_TRIES):
            endpoint = bind_tcp(router, host, 0)
            chosen = int(endpoint.rpartition(":")[2])
            try:
                self.responder.endpoint = bind_tcp(key_socket, host, chosen + KEY_PORT_OFFSET)
            except zmq.ZMQError as exc:
                if exc.errno != errno.EADDRINUSE:
                    raise
                router.unbind(router.getsockopt_string(zmq.LAST_ENDPOINT))
                continue
            return endpoint
        raise zmq.ZMQError(errno.EADDRINUSE, "no free request port with a free key port")

    def close(self) -> None:
        self.responder.close()
        self.gate.close()
