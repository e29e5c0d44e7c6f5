"""``lanqi serve``: the whole server (matchmaker + referee) in one process."""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from lanqi.cli.servers import (
    add_limit_flags,
    add_network_flags,
    add_security_flags,
    announce,
    director_key,
    key_line,
    listen_host,
    on_signals,
    parse_limits,
)
from lanqi.cli.web import add_web_flags, ready_line
from lanqi.protocol.endpoints import (
    MATCHMAKER_PORT,
    MATCHMAKER_PUB_PORT,
    REFEREE_PORT,
    REFEREE_PUB_PORT,
)

if TYPE_CHECKING:
    from lanqi.server.embedded import EmbeddedServer
    from lanqi.web.server import GatewayThread

#: the longest one service's loop holds the GIL while the other's waits for it
SWITCH_INTERVAL_S = 0.0005

EXAMPLES = """examples:
  lanqi serve                                   # this machine only, ports 5050-5053
  lanqi serve --lan                             # for the LAN: announced, players find it
  lanqi serve --lan --name "Club night"         # ...under the event's name
  lanqi serve --port 6599 --pub-port 6600 --referee-port 6601 --referee-pub-port 6602
  lanqi serve --lan --limit chat_per_address=40 --limit connections_per_address=128
  lanqi serve --lan --web-port 80               # the browser pages on port 80 (--no-web: none)
"""


def configure(parser: argparse.ArgumentParser) -> None:
    add_network_flags(parser, announces=True)
    parser.add_argument("--port", type=int, default=MATCHMAKER_PORT, help="matchmaker requests")
    parser.add_argument("--pub-port", type=int, default=MATCHMAKER_PUB_PORT, help="lobby events")
    parser.add_argument(
        "--trust-address",
        action="append",
        default=[],
        metavar="IP",
        help="a client address limited per name only, not as one person (a web gateway on"
        " another machine); this machine's 127.0.0.1 and ::1 always are; repeat for several",
    )
    parser.add_argument("--referee-port", type=int, default=REFEREE_PORT, help="referee requests")
    parser.add_argument(
        "--referee-pub-port", type=int, default=REFEREE_PUB_PORT, help="game events"
    )
    parser.add_argument(
        "--advertise",
        default=None,
        metavar="HOST",
        help="address clients are told to reach the events and the referee at, and the one"
        " announced with --lan (default: the address each client reached the server at;"
        " announced: every LAN address of this machine)",
    )
    parser.add_argument(
        "--director-key",
        default=None,
        help="the tournament director's secret (default: saved in the data directory)",
    )
    add_security_flags(
        parser,
        key_port_help="the matchmaker's key port, which tells clients the server's public"
        " key (default: --port + 4; 0 picks a free port)",
    )
    parser.add_argument(
        "--referee-key-port",
        type=int,
        default=None,
        metavar="PORT",
        help="the referee's key port (default: --referee-port + 4)",
    )
    parser.add_argument(
        "--abandon-after",
        type=float,
        default=60.0,
        help="seconds a disconnected player may stay away before losing (default 60)",
    )
    add_limit_flags(parser)
    add_web_flags(parser, port_flag="--web-port")
    parser.add_argument("--no-web", action="store_true", help="no web pages (no browser gateway)")


def run(args: argparse.Namespace) -> int:
    from lanqi.paths import data_dir
    from lanqi.server.embedded import EmbeddedServer
    from lanqi.server.fds import raise_open_files
    from lanqi.session import Liveness

    raise_open_files()  # a file descriptor per client connection
    limits = parse_limits(args, "serve")
    if limits is None:
        return 2
    # The referee's and the matchmaker's loops share this process's GIL: a loop that
    # wants it waits up to the switch interval (5 ms by default, ten move round trips)
    # while the other works, as when it refuses a flood.  A shorter turn bounds that.
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    folder = data_dir(args.data_dir)
    key = director_key(folder, args.director_key)
    host = listen_host(args)
    server = EmbeddedServer(
        folder,
        host=host,
        advertise=args.advertise,
        port=args.port,
        pub_port=args.pub_port,
        referee_port=args.referee_port,
        referee_pub_port=args.referee_pub_port,
        director_key=key,
        liveness=Liveness(abandon_after_ms=args.abandon_after * 1000.0),
        durable=args.durable,
        insecure=args.insecure,
        key_port=args.key_port,
        referee_key_port=args.referee_key_port,
        name=args.name or "",
        trusted_addresses=tuple(args.trust_address),
        limits=limits,
    )
    try:
        server.start()
    except Exception as exc:  # zmq.ZMQError for a taken port, sqlite errors for a bad dir
        print(f"lanqi serve: cannot start: {exc}", file=sys.stderr)
        return 1
    gateway = None if args.no_web else _start_web(args, server, host, folder)
    if gateway is False:
        server.stop()
        return 1
    done = threading.Event()
    on_signals(done.set)
    assert server.matchmaker is not None
    port = _port(server.matchmaker_endpoint)
    announcer = announce(
        args,
        port=port,
        events_port=_port(server.matchmaker_pub_endpoint),
        players_online=server.matchmaker.players_online,
        public_key=server.referee.public_key,
    )
    print(
        f"lanqi server ready: lobby {server.matchmaker_endpoint} (events "
        f"{server.matchmaker_pub_endpoint}), referee {server.referee.endpoint}, data {folder}\n"
        + (
            "director key: the one given with --director-key"  # no file is written then
            if args.director_key
            else f"director key in {folder / 'director.key'}"
        )
        + "\n"
        + key_line(server.referee.public_key, server.key_endpoint, folder)
        + (announcer.ready_line() if announcer else "")
        + (f"\n{ready_line(gateway.gateway.urls, gateway.gateway.fingerprint)}" if gateway else ""),
        flush=True,
    )
    if gateway and gateway.gateway.urls and sys.stdout.isatty():  # a phone scans it to join
        from lanqi.cli.qr import join_lines

        print("\n".join(join_lines(gateway.gateway.urls[0], color=True)), flush=True)
    code = 0
    try:
        while not done.wait(0.5):
            if not server.alive() or (gateway and not gateway.alive()):
                print("lanqi serve: a service stopped unexpectedly; see the log", file=sys.stderr)
                code = 1
                break
    finally:
        if announcer is not None:
            announcer.stop()  # the goodbye first: players stop seeing a server going away
        if gateway:
            gateway.stop()
        server.stop()
    return code


def _start_web(
    args: argparse.Namespace, server: EmbeddedServer, host: str, folder: Path
) -> GatewayThread | Literal[False]:
    """The browser gateway in a thread of this process, a client of the server like
    any other (CURVE with the server's own key); False when it cannot start."""
    from lanqi.web.server import Gateway, GatewayThread

    link = server.client_link()
    local = server.matchmaker_endpoint.replace("0.0.0.0", "127.0.0.1")
    thread = GatewayThread(
        Gateway(local, link, host=host, port=args.web_port, folder=folder, tls=args.web_tls)
    )
    try:
        thread.start()
    except Exception as exc:  # OSError for a taken port, TlsError without openssl
        print(
            f"lanqi serve: cannot start the web pages on port {args.web_port}: {exc};"
            " pick another --web-port or turn them off with --no-web",
            file=sys.stderr,
        )
        thread.stop()
        return False
    return thread


def _port(endpoint: str) -> int:
    return int(endpoint.rpartition(":")[2])
