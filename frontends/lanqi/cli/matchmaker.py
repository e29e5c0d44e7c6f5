"""``lanqi matchmaker``: run the matchmaker on its own, in front of one or more referees."""

from __future__ import annotations

import argparse
import logging
import sys

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
from lanqi.protocol.endpoints import MATCHMAKER_PORT, MATCHMAKER_PUB_PORT

log = logging.getLogger(__name__)


EXAMPLES = """examples:
  lanqi matchmaker --referee tcp://127.0.0.1:5052
  lanqi matchmaker --lan --referee tcp://10.0.0.5:5052 --referee tcp://10.0.0.6:5052
  lanqi matchmaker --lan --name "Club night" --referee tcp://10.0.0.5:5052   # announced
"""


def configure(parser: argparse.ArgumentParser) -> None:
    add_network_flags(parser, announces=True)
    parser.add_argument("--port", type=int, default=MATCHMAKER_PORT, help="request port (ROUTER)")
    parser.add_argument(
        "--pub-port", type=int, default=MATCHMAKER_PUB_PORT, help="event port (PUB)"
    )
    parser.add_argument(
        "--referee",
        action="append",
        default=[],
        metavar="ENDPOINT",
        help="a referee: tcp://HOST:PORT (events on PORT+1) or tcp://HOST:PORT,tcp://HOST:PUBPORT"
        " (tcp:// and the port may be left out), then optionally ,key=KEY (its public key, or a"
        " key file; without it the key is asked at PORT+4 on first use and pinned in the data"
        " directory); repeat for several referees (games are spread over them);"
        " default tcp://127.0.0.1:5052",
    )
    parser.add_argument(
        "--advertise",
        default=None,
        metavar="HOST",
        help="host name or address players should use to reach the referees "
        "(when the referees are given as 127.0.0.1 but players come over the LAN);"
        " with --lan, an address given here is the one announced",
    )
    parser.add_argument(
        "--director-key",
        default=None,
        help="the tournament director's secret (default: saved in the data directory)",
    )
    parser.add_argument(
        "--referee-admin-key", default=None, help="admin key the referees were started with"
    )
    parser.add_argument(
        "--trust-address",
        action="append",
        default=[],
        metavar="IP",
        help="a client address limited per name only, not as one person (a web gateway on"
        " another machine); this machine's 127.0.0.1 and ::1 always are; repeat for several",
    )
    add_limit_flags(parser)
    add_security_flags(
        parser,
        key_port_help="the key port, which tells clients the matchmaker's public key"
        " (default: --port + 4; 0 picks a free port)",
    )


def run(args: argparse.Namespace) -> int:
    from lanqi.matchmaker.referees import parse_referee
    from lanqi.matchmaker.service import MatchmakerConfig, MatchmakerService
    from lanqi.paths import data_dir
    from lanqi.server.fds import raise_open_files

    limits = parse_limits(args, "matchmaker")
    if limits is None:
        return 2
    specs = args.referee or ["tcp://127.0.0.1:5052"]
    try:
        links = [parse_referee(spec, args.advertise) for spec in specs]
    except ValueError as exc:
        print(f"lanqi matchmaker: {exc}", file=sys.stderr)
        return 2
    folder = data_dir(args.data_dir)
    config = MatchmakerConfig(
        host=listen_host(args),
        port=args.port,
        pub_port=args.pub_port,
        data_dir=folder,
        referees=links,
        director_key=director_key(folder, args.director_key),
        referee_admin_key=args.referee_admin_key,
        durable=args.durable,
        advertise=args.advertise,
        insecure=args.insecure,
        key_port=args.key_port,
        name=args.name or "",
        trusted_addresses=tuple(args.trust_address),
        limits=limits,
    )
    raise_open_files()  # a file descriptor per client connection
    service = MatchmakerService(config)
    try:
        service.bind()
    except Exception as exc:  # zmq.ZMQError for a taken port, sqlite errors for a bad dir
        print(f"lanqi matchmaker: cannot start: {exc}", file=sys.stderr)
        service.close()
        return 1
    on_signals(service.stop)
    port = int(service.endpoint.rpartition(":")[2])
    announcer = announce(
        args,
        port=port,
        events_port=int(service.pub_endpoint.rpartition(":")[2]),
        players_online=service.players_online,
        public_key=service.public_key,
    )
    print(
        f"matchmaker ready: requests {service.endpoint}, events {service.pub_endpoint}, "
        f"referees {', '.join(link.endpoint for link in links)}, data {config.db_path}\n"
        + key_line(service.public_key, service.key_endpoint, folder)
        + (announcer.ready_line() if announcer else ""),
        flush=True,
    )
    try:
        service.serve_forever()
    finally:
        if announcer is not None:
            announcer.stop()
        service.close()
    return 0
