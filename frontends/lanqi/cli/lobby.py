"""``lanqi lobby ACTION``: the director keeps order in the lobby.

- ``lockouts``: the names and addresses with wrong claim codes held against them,
  and how long each is locked out (``TARGET KIND FAILURES LOCKS WAIT_S`` lines);
- ``unlock NAME|ADDRESS``: forget them (a player who mistyped their code);
- ``mute NAME`` / ``mute --off NAME``: the player may not post seeks or challenges;
- ``remove NAME`` / ``remove --off NAME``: the player is signed out, their seeks and
  challenges are withdrawn and their ``hello`` is refused until ``--off``.

All need the director key, read like ``lanqi tournament`` reads it.
"""

from __future__ import annotations

import argparse

from lanqi.cli.common import CliError, server_endpoint
from lanqi.cli.tournament import _common, _key

EXAMPLES = """examples:
  lanqi lobby lockouts               # ann name 0 1 27 (locked out for 27 s more)
  lanqi lobby unlock ann             # ann may type her claim code again
  lanqi lobby unlock 10.0.0.23       # so may that machine
  lanqi lobby mute troll             # no seeks or challenges from troll
  lanqi lobby remove troll           # out of the lobby; --off lets troll back
"""

ACTIONS = ("lockouts", "unlock", "mute", "remove")


def configure(parser: argparse.ArgumentParser) -> None:
    _common(parser)
    parser.add_argument("action", choices=ACTIONS, help="what to do")
    parser.add_argument(
        "target", nargs="?", metavar="NAME", help="a player's name (unlock: or an IP address)"
    )
    parser.add_argument(
        "--off", action="store_true", help="mute, remove: undo (unmute, let back in)"
    )


def run(args: argparse.Namespace) -> int:
    from lanqi.client.matchmaker import MatchmakerClient, MatchmakerRefused, MatchmakerTimeout
    from lanqi.protocol import (
        ListLockouts,
        LockoutsList,
        MutePlayer,
        Ok,
        RemovePlayer,
        Request,
        Unlock,
    )
    from lanqi.security import KnownServers, NoServerKey

    if args.action != "lockouts" and not args.target:
        raise CliError(f"lanqi lobby {args.action} needs a NAME (see lanqi lobby --help)", 2)
    server = server_endpoint(args)
    director = _key(args)  # a missing key is said before any connection is tried
    request: Request
    if args.action == "lockouts":
        request = ListLockouts(director_key=director)
    elif args.action == "unlock":
        request = Unlock(target=args.target, director_key=director)
    elif args.action == "mute":
        request = MutePlayer(player=args.target, muted=not args.off, director_key=director)
    else:
        request = RemovePlayer(player=args.target, removed=not args.off, director_key=director)
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
        if isinstance(request, ListLockouts):
            listed = client.call(request, LockoutsList)
            for row in listed.lockouts:
                print(f"{row.target} {row.kind} {row.failures} {row.locks} {row.retry_s}")
        else:
            client.call(request, Ok)
            print(f"{args.action}{' --off' if args.off else ''} {args.target}: done", flush=True)
    except MatchmakerRefused as exc:
        raise CliError(f"refused: {exc}", 1) from None
    except MatchmakerTimeout:
        raise unreachable from None
    finally:
        client.close()
    return 0
