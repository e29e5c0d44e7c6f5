"""``lanqi key``: the server's public key and its fingerprint, for people to compare
(``--qr``: also as a QR code a phone can scan off the screen)."""

from __future__ import annotations

import argparse
import sys

from lanqi.cli.common import CliError

EXAMPLES = """examples:
  lanqi key                                # the key of the server in the default data directory
  lanqi key --qr                           # and a QR code of it, for players' phones
  lanqi key --data-dir /srv/lanqi          # another server's (made there if it has none yet)
  lanqi referee --allow-key "$(lanqi key --data-dir mm-data --raw)"
"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data-dir",
        default=None,
        help="the server's data directory (default: $LANQI_DATA_DIR or per-user)",
    )
    parser.add_argument(
        "--raw", action="store_true", help="print only the key (Z85), for a script or --allow-key"
    )
    parser.add_argument(
        "--qr",
        nargs="?",
        const="auto",
        choices=["auto", "always"],
        default=None,
        help="also draw a QR code of the fingerprint and the key, for a phone to scan: on a"
        " terminal only (--qr=always: also into a pipe or file, without colours)",
    )


def qr_text(public: str, fingerprint: str) -> str:
    """What the QR code holds: the fingerprint players compare (``lanqi servers list``)
    and the full key (``known_servers``), on two lines."""
    return f"lanqi server key {fingerprint}\n{public}"


def run(args: argparse.Namespace) -> int:
    from lanqi.cli.qr import qr_lines
    from lanqi.paths import data_dir
    from lanqi.security import public_key_file, server_keys
    from lanqi.security.keys import KEY_NAME

    if args.raw and args.qr:
        raise CliError("--raw prints only the key: drop --qr")
    folder = data_dir(args.data_dir)
    new = not (folder / f"{KEY_NAME}.key_secret").exists()
    keys = server_keys(folder)  # made once, the first time
    if new:  # say so: a director who forgot --data-dir must not read this key out
        print(
            f"lanqi key: {folder} had no server key: made one now (a server started with"
            " this data directory will use it; is your server's elsewhere? --data-dir DIR)",
            file=sys.stderr,
        )
    public = keys.public.decode("ascii")
    if args.raw:
        print(public)
        return 0
    print(f"fingerprint {keys.fingerprint}")
    print(f"public key  {public}")
    print(f"key file    {public_key_file(folder)}")
    if args.qr is None:
        return 0
    terminal = sys.stdout.isatty()
    if not terminal and args.qr == "auto":
        print(
            "lanqi key: no QR code: the output is not a terminal (--qr=always draws one anyway)",
            file=sys.stderr,
        )
        return 0
    print()
    for line in qr_lines(qr_text(public, keys.fingerprint), color=terminal):
        print(line)
    print("scan it: the phone shows the fingerprint (compare `lanqi servers list`) and the key")
    return 0
