"""``lanqi web``: the browser gateway on its own, a client of a running server.

``lanqi serve`` starts one by itself (``--web-port``, ``--no-web``); run this one
for a gateway on another machine than the server, or a second one.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from lanqi.cli.common import add_server_flag, server_endpoint

EXAMPLES = """examples:
  lanqi web                                  # pages for the server on this machine, port 8080
  lanqi web --server 192.168.1.20 --lan      # for every phone on the LAN
  lanqi web --port 8443 --web-tls            # HTTPS with a self-signed certificate
"""


def add_web_flags(parser: argparse.ArgumentParser, *, port_flag: str) -> None:
    """The flags ``lanqi web`` and ``lanqi serve`` share (the port's flag differs)."""
    parser.add_argument(
        port_flag,
        dest="web_port",
        type=int,
        default=8080,
        metavar="PORT",
        help="the web pages' port (default 8080; 0 picks a free one)",
    )
    parser.add_argument(
        "--web-tls",
        action="store_true",
        help="HTTPS with a self-signed certificate made once in the data directory"
        " (its fingerprint is printed)",
    )


def configure(parser: argparse.ArgumentParser) -> None:
    add_server_flag(parser)
    add_web_flags(parser, port_flag="--port")
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: this machine only)"
    )
    parser.add_argument("--lan", action="store_true", help="listen on every interface (0.0.0.0)")
    parser.add_argument(
        "--data-dir", default=None, help="data directory (default: $LANQI_DATA_DIR or per-user)"
    )


def ready_line(urls: list[str], fingerprint: str | None) -> str:
    """What a server prints about its web pages.

    >>> ready_line(["http://192.168.1.20:8080/"], None)
    'web pages at http://192.168.1.20:8080/'
    """
    line = "web pages at " + ", ".join(urls)
    if fingerprint:
        line += f"\nweb certificate (self-signed) SHA-256 {fingerprint}"
    return line


def run(args: argparse.Namespace) -> int:
    from lanqi.paths import data_dir
    from lanqi.security import KnownServers, trust_server
    from lanqi.web.server import Gateway

    folder = data_dir(args.data_dir)
    endpoint = server_endpoint(args)
    link = trust_server(endpoint, known=KnownServers.of(folder))
    gateway = Gateway(
        endpoint,
        link,
        host="0.0.0.0" if args.lan else args.host,
        port=args.web_port,
        folder=folder,
        tls=args.web_tls,
    )

    async def main() -> None:
        await gateway.start()
        print(f"lanqi web ready: {ready_line(gateway.urls, gateway.fingerprint)}", flush=True)
        if gateway.urls and sys.stdout.isatty():  # a phone scans it to join
            from lanqi.cli.qr import join_lines

            print("\n".join(join_lines(gateway.urls[0], color=True)), flush=True)
        try:
            await asyncio.Event().wait()
        finally:
            await gateway.stop()

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        return 0
    except OSError as exc:
        print(f"lanqi web: cannot start: {exc}", file=sys.stderr)
        return 1
    return 0
