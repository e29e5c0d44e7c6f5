"""``lanqi reclaim NAME``: the director gives a player their name back.

A player whose session is lost (another machine, a wiped settings file) is
refused their own name (``name_taken``).  The director runs this on any name,
in a tournament or not: it prints ``NAME CODE``, a one-time claim code the player
types in the GUI's claim code field (or passes as ``lanqi bot --claim CODE``); the
session the name had stops working, the player (ratings, games) stays the same.
For an entrant, ``lanqi tournament reclaim ID NAME`` does the same.
"""

from __future__ import annotations

import argparse

from lanqi.cli.common import CliError, server_endpoint
from lanqi.cli.tournament import _common, _key

EXAMPLES = """example:
  lanqi reclaim Alice            # prints: Alice K7QW2M (hand the code to Alice)
"""


def configure(parser: argparse.ArgumentParser) -> None:
    _common(parser)
    parser.add_argument("player", metavar="NAME", help="the player's name (any case)")


def run(args: argparse.Namespace) -> int:
    from lanqi.client.matchmaker import MatchmakerClient, MatchmakerRefused, MatchmakerTimeout
    from lanqi.protocol import ClaimCode, ReclaimName
    from lanqi.security import KnownServers, NoServerKey

    server = server_endpoint(args)
    director = _key(args)  # a missing key is said before any connection is tried
    unreachable = CliError(
        f"no answer from {server}: is the server running? (name it with --server or $LANQI_SERVER)",
        1,
    )
    known = KnownServers.of(getattr(args, "data_dir", None))
    try:
        client = MatchmakerClient(server, getattr(args, "events", None), known=known)
    except NoServerKey:  # its key port is silent: the server is not there
        raise unreachable from None
    try:
        code = client.call(ReclaimName(player=args.player, director_key=director), ClaimCode)
    except MatchmakerRefused as exc:
        raise CliError(f"refused: {exc}", 1) from None
    except MatchmakerTimeout:
        raise unreachable from None
    finally:
        client.close()
    print(f"{code.player} {code.code}", flush=True)
    return 0
