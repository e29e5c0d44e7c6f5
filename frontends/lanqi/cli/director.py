"""What the director's commands share (``lanqi tournament``, ``lanqi lobby``,
``lanqi reclaim``): their flags, the director key, and one connection to the
matchmaker whose failures are one line each (the process's client connection,
:mod:`lanqi.client.connection`, through its blocking face
:class:`~lanqi.client.matchmaker.MatchmakerClient`).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from lanqi.cli.common import CliError, add_server_flag, endpoint_arg, server_endpoint
from lanqi.protocol.endpoints import MATCHMAKER_PUB_PORT

if TYPE_CHECKING:
    from lanqi.client.matchmaker import MatchmakerClient

__all__ = ["director_client", "director_flags", "director_key", "unreachable"]


def director_flags(parser: argparse.ArgumentParser) -> None:
    """The flags every director action takes, before or after the action's name."""
    add_server_flag(parser)
    parser.add_argument(
        "--events",
        type=endpoint_arg(MATCHMAKER_PUB_PORT),
        default=argparse.SUPPRESS,
        metavar="ADDRESS",
        help="the matchmaker's event endpoint (default: the one the matchmaker names)",
    )
    parser.add_argument(
        "--director-key",
        default=argparse.SUPPRESS,
        help="the director's secret (default: $LANQI_DIRECTOR_KEY, else the key file "
        "in the server's data directory)",
    )
    parser.add_argument(
        "--data-dir",
        default=argparse.SUPPRESS,
        help="where `lanqi serve` keeps director.key, to read it (default: $LANQI_DATA_DIR "
        "or per-user)",
    )


def director_key(args: argparse.Namespace) -> str:
    """``--director-key``, else ``$LANQI_DIRECTOR_KEY``, else the server's key file."""
    from lanqi.paths import data_dir

    given = getattr(args, "director_key", None)
    if given:
        return str(given)
    env = os.environ.get("LANQI_DIRECTOR_KEY")
    if env:
        return env
    path = data_dir(getattr(args, "data_dir", None)) / "director.key"
    if path.exists():
        return path.read_text(encoding="utf-8").strip()
    raise CliError(
        "no director key: pass --director-key, set LANQI_DIRECTOR_KEY, "
        f"or run on the server machine (looked in {path})"
    )


def unreachable(server: str) -> CliError:
    """The one line for a server that does not answer."""
    return CliError(
        f"no answer from {server}: is the server running? (name it with --server or $LANQI_SERVER)",
        1,
    )


@contextmanager
def director_client(args: argparse.Namespace) -> Iterator[MatchmakerClient]:
    """A client of the matchmaker ``args`` name; a silent server, a timeout and a
    refusal come out as one-line :class:`CliError` s, and the client is closed."""
    from lanqi.client.matchmaker import MatchmakerClient, MatchmakerRefused, MatchmakerTimeout
    from lanqi.security import KnownServers, NoServerKey

    server = server_endpoint(args)
    known = KnownServers.of(getattr(args, "data_dir", None))
    try:
        client = MatchmakerClient(server, getattr(args, "events", None), known=known)
    except NoServerKey:  # its key port is silent: the server is not there
        raise unreachable(server) from None
    try:
        yield client
    except MatchmakerRefused as exc:
        raise CliError(f"refused: {exc}", 1) from None
    except MatchmakerTimeout:
        raise unreachable(server) from None
    finally:
        client.close()
