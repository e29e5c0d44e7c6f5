"""``lanqi servers``: the servers this data directory trusts (their pinned keys)."""

from __future__ import annotations

import argparse

from lanqi.cli.common import CliError, print_table

EXAMPLES = """examples:
  lanqi servers list
  lanqi servers forget 192.168.1.20:5050   # after that server was reinstalled (a new key)
"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data-dir", default=None, help="data directory (default: $LANQI_DATA_DIR or per-user)"
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    text = "every trusted server: address, key fingerprint, first use"
    actions.add_parser(
        "list", help=text, description=text, epilog="example:\n  lanqi servers list\n"
    )
    text = "stop trusting a server's key (the next connection pins its new one)"
    forget = actions.add_parser(
        "forget",
        help=text,
        description=text,
        epilog="example:\n  lanqi servers forget 192.168.1.20:5050\n",
    )
    forget.add_argument("address", metavar="HOST:PORT", help="as the refusal names it")


def run(args: argparse.Namespace) -> int:
    from lanqi.security import KnownServers, address_of, fingerprint

    known = KnownServers.of(args.data_dir)
    if args.action == "forget":
        address = address_of(args.address.strip())
        if not known.forget(address):
            raise CliError(f"no key is pinned for {address} in {known.path}", 1)
        print(f"forgot the key of {address}; the next connection trusts the key it offers")
        return 0
    if args.action != "list":
        raise CliError("name an action: list, forget (see --help)")
    print_table(
        ("server", "fingerprint", "since"),
        [(pin.address, fingerprint(pin.key), pin.since) for pin in known.pins()],
    )
    return 0
