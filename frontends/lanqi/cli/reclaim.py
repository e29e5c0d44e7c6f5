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

from lanqi.cli.director import director_client, director_flags, director_key

EXAMPLES = """example:
  lanqi reclaim Alice            # prints: Alice K7QW2M (hand the code to Alice)
"""


def configure(parser: argparse.ArgumentParser) -> None:
    director_flags(parser)
    parser.add_argument("player", metavar="NAME", help="the player's name (any case)")


def run(args: argparse.Namespace) -> int:
    from lanqi.protocol import ClaimCode, ReclaimName

    director = director_key(args)  # a missing key is said before any connection is tried
    with director_client(args) as client:
        code = client.call(ReclaimName(player=args.player, director_key=director), ClaimCode)
    print(f"{code.player} {code.code}", flush=True)
    return 0
