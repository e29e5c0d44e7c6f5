"""``lanqi lobby ACTION``: the director keeps order in the lobby.

- ``lockouts``: the names and addresses with wrong claim codes held against them,
  and the addresses shut out for flooding (kind ``flood``), and how long each is
  locked out (``TARGET KIND FAILURES LOCKS WAIT_S`` lines);
- ``unlock NAME|ADDRESS``: forget them (a player who mistyped their code), or let a
  shut-out address connect again;
- ``mute NAME`` / ``mute --off NAME``: the player may not post seeks or challenges;
- ``remove NAME`` / ``remove --off NAME``: the player is signed out, their seeks and
  challenges are withdrawn and their ``hello`` is refused until ``--off``.

All need the director key, read like ``lanqi tournament`` reads it.
"""

from __future__ import annotations

import argparse

from lanqi.cli.common import CliError
from lanqi.cli.director import director_client, director_flags, director_key

EXAMPLES = """examples:
  lanqi lobby lockouts               # ann name 0 1 27 (locked out for 27 s more)
  lanqi lobby unlock ann             # ann may type her claim code again
  lanqi lobby unlock 10.0.0.23       # so may that machine (or it may connect again)
  lanqi lobby mute troll             # no seeks or challenges from troll
  lanqi lobby remove troll           # out of the lobby; --off lets troll back
"""

#: action -> (what it does, an example)
ACTIONS = {
    "lockouts": (
        "the names and addresses with wrong claim codes, and those shut out for flooding"
        " (kind flood): TARGET KIND FAILURES LOCKS WAIT_S",
        "lanqi lobby lockouts",
    ),
    "unlock": (
        "forget the wrong claim codes of a name or an address, or lift a shut-out",
        "lanqi lobby unlock ann",
    ),
    "mute": ("no seeks or challenges from a player (--off: again)", "lanqi lobby mute troll"),
    "remove": (
        "sign a player out and refuse their hello (--off: let them back)",
        "lanqi lobby remove troll",
    ),
}


def configure(parser: argparse.ArgumentParser) -> None:
    director_flags(parser)
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    for name, (text, example) in ACTIONS.items():
        action = sub.add_parser(
            name, help=text, description=text, epilog=f"example:\n  {example}\n"
        )
        director_flags(action)
        if name == "unlock":
            action.add_argument("target", metavar="NAME|ADDRESS", help="as lockouts lists it")
        elif name != "lockouts":
            action.add_argument("target", metavar="NAME", help="the player's name (any case)")
            action.add_argument("--off", action="store_true", help="undo")


def run(args: argparse.Namespace) -> int:
    from lanqi.protocol import (
        ListLockouts,
        LockoutsList,
        MutePlayer,
        Ok,
        RemovePlayer,
        Request,
        Unlock,
    )

    if args.action not in ACTIONS:
        raise CliError("name an action: lockouts, unlock, mute, remove (see --help)")
    off = getattr(args, "off", False)
    director = director_key(args)  # a missing key is said before any connection is tried
    request: Request
    if args.action == "lockouts":
        request = ListLockouts(director_key=director)
    elif args.action == "unlock":
        request = Unlock(target=args.target, director_key=director)
    elif args.action == "mute":
        request = MutePlayer(player=args.target, muted=not off, director_key=director)
    else:
        request = RemovePlayer(player=args.target, removed=not off, director_key=director)
    with director_client(args) as client:
        if isinstance(request, ListLockouts):
            listed = client.call(request, LockoutsList)
            for row in listed.lockouts:
                print(f"{row.target} {row.kind} {row.failures} {row.locks} {row.retry_s}")
        else:
            client.call(request, Ok)
            print(f"{args.action}{' --off' if off else ''} {args.target}: done", flush=True)
    return 0
