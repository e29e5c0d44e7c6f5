"""Run a referee and a matchmaker in one process, each in its own thread and loop.

>>> import tempfile, pathlib
>>> server = EmbeddedServer(pathlib.Path(tempfile.mkdtemp()), port=0, pub_port=0,
...                         referee_port=0, referee_pub_port=0, director_key="k")
>>> server.start()
>>> server.matchmaker_endpoint.startswith("tcp://127.0.0.1:")
True
>>> server.stop()
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

import zmq

from lanqi.matchmaker.referees import RefereeLink
from lanqi.matchmaker.service import MatchmakerConfig, MatchmakerService
from lanqi.protocol.endpoints import (
    MATCHMAKER_PORT,
    MATCHMAKER_PUB_PORT,
    REFEREE_PORT,
    REFEREE_PUB_PORT,
)
from lanqi.referee.service import RefereeConfig, RefereeService
from lanqi.security import KeyPair, Link, server_keys
from lanqi.server.limits import Limits
from lanqi.session import Liveness

__all__ = ["EmbeddedServer"]

log = logging.getLogger(__name__)


class EmbeddedServer:
    """A whole lanqi server: start(), the endpoints, stop()."""

    def __init__(
        self,
        data_dir: Path,
        *,
        host: str = "127.0.0.1",
        advertise: str | None = None,
        port: int = MATCHMAKER_PORT,
        pub_port: int = MATCHMAKER_PUB_PORT,
        referee_port: int = REFEREE_PORT,
        referee_pub_port: int = REFEREE_PUB_PORT,
        director_key: str,
        liveness: Liveness | None = None,
        durable: bool = False,
        insecure: bool = False,
        key_port: int | None = None,
        referee_key_port: int | None = None,
        name: str = "",
        trusted_addresses: tuple[str, ...] = (),
        limits: Limits | None = None,
        context: zmq.Context[Any] | None = None,
    ) -> None:
        self.context = context or zmq.Context.instance()
        #: one key pair for both services (None: ``--insecure``)
        self.keys: KeyPair | None = None if insecure else server_keys(data_dir)
        self.referee = RefereeService(
            RefereeConfig(
                host=host,
                port=referee_port,
                pub_port=referee_pub_port,
                data_dir=data_dir,
                liveness=liveness or Liveness(),
                durable=durable,
                insecure=insecure,
                keys=self.keys,
                key_port=referee_key_port,
                limits=limits or Limits(),
                trusted_addresses=trusted_addresses,
            ),
            self.context,
        )
        self._mm_config = MatchmakerConfig(
            host=host,
            port=port,
            pub_port=pub_port,
            data_dir=data_dir,
            durable=durable,
            director_key=director_key,
            advertise=advertise,
            insecure=insecure,
            keys=self.keys,
            key_port=key_port,
            name=name,
            trusted_addresses=trusted_addresses,
            limits=limits or Limits(),
        )
        self.advertise = advertise
        self.matchmaker: MatchmakerService | None = None
        self._threads: list[threading.Thread] = []

    @property
    def matchmaker_endpoint(self) -> str:
        assert self.matchmaker is not None
        return self.matchmaker.endpoint

    def client_link(self) -> Link:
        """How a client in this process reaches both services (their key is known)."""
        return Link.to(None if self.keys is None else self.keys.public)

    @property
    def key_endpoint(self) -> str:
        """The matchmaker's key port (the referee has its own, with the same key)."""
        assert self.matchmaker is not None
        return self.matchmaker.key_endpoint

    @property
    def matchmaker_pub_endpoint(self) -> str:
        assert self.matchmaker is not None
        return self.matchmaker.pub_endpoint

    def start(self) -> None:
        """Bind both services and start their loops."""
        self.referee.bind()
        local_host = "127.0.0.1"
        ref_port = self.referee.endpoint.rpartition(":")[2]
        pub_port = self.referee.pub_endpoint.rpartition(":")[2]
        public_host = self.advertise or self.referee.endpoint[len("tcp://") :].rpartition(":")[0]
        if public_host == "0.0.0.0":
            public_host = local_host
        link = RefereeLink(
            name=self.referee.endpoint,
            endpoint=f"tcp://{local_host}:{ref_port}",
            pub_endpoint=f"tcp://{local_host}:{pub_port}",
            public_endpoint=f"tcp://{public_host}:{ref_port}",
            public_pub_endpoint=f"tcp://{public_host}:{pub_port}",
            key=None if self.keys is None else self.keys.public.decode("ascii"),
            insecure=self.keys is None,
        )
        self._mm_config.referees = [link]
        self.matchmaker = MatchmakerService(self._mm_config, self.context)
        self.matchmaker.bind()
        for name, target in (
            ("referee", self.referee.serve_forever),
            ("matchmaker", self.matchmaker.serve_forever),
        ):
            thread = threading.Thread(target=target, name=f"lanqi-{name}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def alive(self) -> bool:
        """Are both service loops still running?"""
        return bool(self._threads) and all(thread.is_alive() for thread in self._threads)

    def stop(self) -> None:
        """Stop both loops, wait for them, close sockets and stores."""
        if self.matchmaker is not None:
            self.matchmaker.stop()
        self.referee.stop()
        for thread in self._threads:
            thread.join(timeout=5)
        if self.matchmaker is not None:
            self.matchmaker.close()
        self.referee.close()
