"""``lanqi referee``: run the referee service on its own (for compose or several machines)."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
from types import FrameType

from lanqi.cli.servers import add_limit_flags, add_security_flags, key_line, parse_limits
from lanqi.protocol.endpoints import REFEREE_PORT, REFEREE_PUB_PORT

log = logging.getLogger(__name__)


EXAMPLES = """examples:
  lanqi referee                                  # this machine only, ports 5052/5053
  lanqi referee --lan --admin-key SECRET         # for matchmakers on other machines
"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1; use 0.0.0.0 or --lan for the LAN)",
    )
    parser.add_argument("--lan", action="store_true", help="listen on every interface (0.0.0.0)")
    parser.add_argument("--port", type=int, default=REFEREE_PORT, help="request port (ROUTER)")
    parser.add_argument("--pub-port", type=int, default=REFEREE_PUB_PORT, help="event port (PUB)")
    parser.add_argument(
        "--data-dir", default=None, help="data directory (default: $LANQI_DATA_DIR or per-user)"
    )
    parser.add_argument(
        "--admin-key",
        default=None,
        help="secret that create_game requests must carry (default: anyone on the network may)",
    )
    add_security_flags(
        parser,
        key_port_help="the key port, which tells clients the referee's public key"
        " (default: --port + 4; 0 picks a free port)",
    )
    parser.add_argument(
        "--allow-key",
        action="append",
        default=[],
        metavar="KEY|FILE",
        help="a service key that may create games (a matchmaker's: `lanqi key --data-dir DIR`"
        " prints it, or give its server_curve.key file); repeat for several; without it any"
        " client may",
    )
    parser.add_argument(
        "--disconnect-after",
        type=float,
        default=5.0,
        help="seconds of silence before a seat is shown as disconnected (default 5)",
    )
    parser.add_argument(
        "--abandon-after",
        type=float,
        default=60.0,
        help="seconds a seat may stay disconnected before it loses by abandonment (default 60)",
    )
    parser.add_argument(
        "--trust-address",
        action="append",
        default=[],
        metavar="IP",
        help="a client address not limited as one person (a web gateway on another"
        " machine); this machine's 127.0.0.1 and ::1 always are; repeat for several",
    )
    add_limit_flags(parser)
    parser.add_argument(
        "--durable",
        action="store_true",
        help="fsync every commit (survives power loss, slower); default survives process crashes",
    )


def run(args: argparse.Namespace) -> int:
    from lanqi.paths import data_dir
    from lanqi.referee.service import RefereeConfig, RefereeService
    from lanqi.security import parse_public_key
    from lanqi.server.fds import raise_open_files
    from lanqi.session import Liveness

    if args.disconnect_after <= 0 or args.abandon_after <= 0:
        print(
            "lanqi referee: --disconnect-after and --abandon-after must be positive",
            file=sys.stderr,
        )
        return 2
    limits = parse_limits(args, "referee")
    if limits is None:
        return 2
    try:
        allowed = frozenset(parse_public_key(text) for text in args.allow_key)
    except ValueError as exc:
        print(f"lanqi referee: --allow-key: {exc}", file=sys.stderr)
        return 2
    if allowed and args.insecure:
        print("lanqi referee: --allow-key needs CURVE: drop --insecure", file=sys.stderr)
        return 2
    config = RefereeConfig(
        host="0.0.0.0" if args.lan else args.host,
        port=args.port,
        pub_port=args.pub_port,
        data_dir=data_dir(args.data_dir),
        admin_key=args.admin_key,
        liveness=Liveness(args.disconnect_after * 1000.0, args.abandon_after * 1000.0),
        durable=args.durable,
        insecure=args.insecure,
        key_port=args.key_port,
        allow_keys=allowed,
        limits=limits,
        trusted_addresses=tuple(args.trust_address),
    )
    raise_open_files()  # a file descriptor per client connection
    service = RefereeService(config)
    try:
        service.bind()
    except Exception as exc:  # zmq.ZMQError for a taken port, sqlite errors for a bad dir
        print(f"lanqi referee: cannot start: {exc}", file=sys.stderr)
        service.close()
        return 1

    def stop(signum: int, frame: FrameType | None) -> None:
        service.stop()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    keys = key_line(service.public_key, service.key_endpoint, config.data_dir)
    print(
        f"referee ready: requests {service.endpoint}, events {service.pub_endpoint}, "
        f"data {config.db_path}\n{keys}",
        flush=True,
    )
    try:
        service.serve_forever()
    finally:
        service.close()
        log.info("referee stopped")
    return 0
