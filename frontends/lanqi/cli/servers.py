"""Shared plumbing of the server commands (referee, matchmaker, serve)."""

from __future__ import annotations

import argparse
import ipaddress
import os
import secrets
import shlex
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from lanqi.server.database import StoreOpenError, prepare_data_dir

if TYPE_CHECKING:
    from lanqi.discovery import Announcer
    from lanqi.server.limits import Limits

DIRECTOR_KEY_FILE = "director.key"


def add_network_flags(parser: argparse.ArgumentParser, *, announces: bool = False) -> None:
    """``--host``, ``--lan``, ``--data-dir``, ``--durable``; with ``announces`` (the
    matchmaker's commands) ``--lan`` also announces the server and ``--name`` names it."""
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only)",
    )
    parser.add_argument(
        "--lan",
        action="store_true",
        help="listen on every interface (0.0.0.0) for LAN players"
        + (" and announce the server on the LAN (DNS-SD), so players find it" if announces else ""),
    )
    if announces:
        parser.add_argument(
            "--name",
            default=None,
            metavar="EVENT",
            help="the event's name players see in the servers found on the LAN"
            " (default: lanqi on HOSTNAME)",
        )
    parser.add_argument(
        "--data-dir", default=None, help="data directory (default: $LANQI_DATA_DIR or per-user)"
    )
    parser.add_argument(
        "--durable",
        action="store_true",
        help="fsync every commit (survives power loss, slower); default survives process crashes",
    )


def add_security_flags(parser: argparse.ArgumentParser, *, key_port_help: str) -> None:
    """``--insecure`` and ``--key-port`` for a server command."""
    parser.add_argument(
        "--insecure",
        action="store_true",
        help="plain ZeroMQ instead of CURVE encryption (for clients in languages without"
        " CURVE); anyone on the network can then read and forge its traffic",
    )
    parser.add_argument(
        "--key-port",
        type=int,
        default=None,
        metavar="PORT",
        help=key_port_help,
    )


def add_limit_flags(parser: argparse.ArgumentParser) -> None:
    """``--limit NAME=VALUE`` for a server command (its help lists every default)."""
    from lanqi.server.limits import limits_help

    parser.add_argument(
        "--limit", action="append", default=[], metavar="NAME=VALUE", help=limits_help()
    )


def parse_limits(args: argparse.Namespace, command: str) -> Limits | None:
    """The limits ``--limit`` gives; None after saying in one line what is wrong."""
    from lanqi.server.limits import Limits

    try:
        return Limits.parse(args.limit)
    except ValueError as exc:
        print(f"lanqi {command}: --limit: {exc}", file=sys.stderr)
        return None


def key_line(public_key: str | None, key_endpoint: str, folder: Path | None = None) -> str:
    """What a server says about its key when it is ready (one line).  ``folder``: its
    data directory, named in the ``lanqi key`` hint unless it is the default one
    (plain ``lanqi key`` would print, and make, another directory's key)."""
    from lanqi.paths import data_dir
    from lanqi.security import fingerprint

    again = "lanqi key"
    if folder is not None and folder.resolve() != data_dir().resolve():
        again += f" --data-dir {shlex.quote(str(folder))}"
    if public_key is None:
        return (
            "no encryption (--insecure): anyone on the network can read and forge this"
            f" server's traffic; key port {key_endpoint} says so to clients"
        )
    return (
        f"server key {fingerprint(public_key)} (`{again}` prints it again; clients"
        f" fetch it from the key port {key_endpoint})"
    )


def listen_host(args: argparse.Namespace) -> str:
    return "0.0.0.0" if args.lan else str(args.host)


def director_key(data_dir: Path, given: str | None) -> str:
    """The director key: given, or the one saved in the data directory, or a new one
    (saved there, readable by this user only, so local ``lanqi tournament`` finds it)."""
    path = data_dir / DIRECTOR_KEY_FILE
    if given:
        return given
    try:
        if path.exists():
            return path.read_text(encoding="utf-8").strip()
        key = secrets.token_hex(16)  # never starts with "-": usable as a command-line argument
        prepare_data_dir(data_dir)  # StoreOpenError, one line, if it cannot be written
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(key + "\n")
    except OSError as exc:
        raise StoreOpenError(
            f"cannot keep the director key in {path} ({exc.strerror}); pass --director-key,"
            " or --data-dir (or $LANQI_DATA_DIR) to a writable directory"
        ) from exc
    return key


def on_signals(stop: Callable[[], None]) -> None:
    """Call ``stop`` on SIGTERM and SIGINT (main thread only)."""

    def handler(signum: int, frame: FrameType | None) -> None:
        stop()

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, handler)
        signal.signal(signal.SIGINT, handler)


#: how long a server waits for the LAN to accept its name before saying it is ready
ANNOUNCE_WAIT_S = 10.0


def announce(
    args: argparse.Namespace,
    *,
    port: int,
    events_port: int,
    players_online: Callable[[], int],
    public_key: Callable[[], str | None] | str | None = None,
) -> Announcer | None:
    """With ``--lan``, announce the server on the LAN (on a thread; stop it at the end).

    The addresses announced are this machine's interface addresses, or the one given
    with ``--advertise`` when that is an IPv4 address.
    """
    if not args.lan:
        return None
    from lanqi.discovery import Announcer, default_event_name

    announcer = Announcer(
        name=args.name or default_event_name(),
        port=port,
        events_port=events_port,
        public_key=public_key,
        players_online=players_online,
        addresses=announced_addresses(args.advertise),
    )
    announcer.start()
    # the ready line says "announced" only once the LAN has the name (probing takes a
    # second or two): a client started after it hears the server
    announcer.wait_registered(ANNOUNCE_WAIT_S)
    return announcer


def announced_addresses(advertise: str | None) -> list[str] | None:
    """The addresses to announce: an IPv4 ``--advertise`` alone, else ``None`` (the
    machine's interface addresses; a host name cannot go in an A record).

    >>> announced_addresses("192.168.1.20"), announced_addresses("club.example")
    (['192.168.1.20'], None)
    """
    if not advertise:
        return None
    try:
        return [str(ipaddress.IPv4Address(advertise))]
    except ValueError:
        return None
