"""Running the gateway: :class:`Gateway` (hub + web app on one asyncio loop), in the
foreground (``lanqi web``) or in a thread of ``lanqi serve``."""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import threading
from pathlib import Path

from aiohttp import web

from lanqi.discovery import lan_addresses
from lanqi.security import Link
from lanqi.web.app import make_app
from lanqi.web.hub import Hub
from lanqi.web.tls import server_context

__all__ = ["Gateway", "GatewayThread", "web_urls"]

log = logging.getLogger(__name__)


def web_urls(host: str, port: int, *, tls: bool = False) -> list[str]:
    """The gateway's URLs: one per LAN address when it listens on every interface.

    >>> web_urls("127.0.0.1", 8080)
    ['http://127.0.0.1:8080/']
    """
    scheme = "https" if tls else "http"
    hosts = [host]
    if host in ("0.0.0.0", "::", ""):
        hosts = [address.split("/")[0] for address in lan_addresses()] or ["127.0.0.1"]
    return [f"{scheme}://{_bracketed(h)}:{port}/" for h in hosts]


def _bracketed(host: str) -> str:
    try:
        return f"[{host}]" if ipaddress.ip_address(host).version == 6 else host
    except ValueError:
        return host


class Gateway:
    """The hub and the web app, started and stopped together on the running loop."""

    def __init__(  # noqa: PLR0913 - keyword-only: where to listen and whom to reach
        self,
        matchmaker: str,
        link: Link,
        *,
        host: str = "127.0.0.1",
        port: int = 8080,
        folder: Path | None = None,
        tls: bool = False,
    ) -> None:
        self.matchmaker = matchmaker
        self.link = link
        self.host = host
        self.port = port
        self.folder = folder
        self.tls = tls
        self.fingerprint: str | None = None
        self.urls: list[str] = []
        self.hub: Hub | None = None
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        ssl_context = None
        if self.tls:
            assert self.folder is not None, "--web-tls keeps its certificate in the data dir"
            ssl_context, self.fingerprint = server_context(self.folder)
        self.hub = Hub(self.matchmaker, self.link, folder=self.folder)
        await self.hub.start()
        self._runner = web.AppRunner(make_app(self.hub), access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port, ssl_context=ssl_context)
        try:
            await site.start()
        except BaseException:  # a taken port: close the hub's sockets before saying so
            await self.stop()
            raise
        if self.port == 0:
            server = site._server
            assert server is not None
            sockets = getattr(server, "sockets", None) or []
            self.port = sockets[0].getsockname()[1]
        self.urls = web_urls(self.host, self.port, tls=self.tls)
        self.hub.urls = tuple(self.urls)

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
        if self.hub is not None:
            await self.hub.close()


class GatewayThread:
    """A :class:`Gateway` on its own loop in a daemon thread (for ``lanqi serve``)."""

    def __init__(self, gateway: Gateway) -> None:
        self.gateway = gateway
        self.loop = asyncio.new_event_loop()
        self._started = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="lanqi-web", daemon=True)

    def start(self, timeout: float = 15.0) -> None:
        """Start and wait until it listens; re-raises what stopped it from starting."""
        self._thread.start()
        if not self._started.wait(timeout):
            raise TimeoutError("the web gateway did not start in time")
        if self._error is not None:
            raise self._error

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_until_complete(self.gateway.start())
        except BaseException as exc:  # reported to start()'s caller
            self._error = exc
            self._started.set()
            return
        self._started.set()
        self.loop.run_forever()
        self.loop.run_until_complete(self.gateway.stop())
        self.loop.close()

    def alive(self) -> bool:
        return self._thread.is_alive()

    def stop(self) -> None:
        if self._thread.is_alive():
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(10.0)
