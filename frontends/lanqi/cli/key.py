"""``lanqi key``: the server's public key and its fingerprint, for people to compare
(``--qr``: also as a QR code a phone can scan off the screen, and a second one of
the web pages' URL, which opens the lobby on a phone)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lanqi.cli.common import CliError

EXAMPLES = """examples:
  lanqi key                                # the key of the server in the default data directory
  lanqi key --qr                           # and QR codes of it and of the web pages' URL
  lanqi key --qr --web-url https://club.lan:8443/   # the join code for another address
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
        help="also draw a QR code of the fingerprint and the key, and one of the web pages'"
        " URL (scanned, it opens the lobby), for a phone to scan: on a terminal only"
        " (--qr=always: also into a pipe or file, without colours)",
    )
    parser.add_argument(
        "--web-url",
        default=None,
        metavar="URL",
        help="the URL in the join code (default: this machine's LAN address and --web-port,"
        " https when the data directory has the --web-tls certificate)",
    )
    parser.add_argument(
        "--web-port",
        type=int,
        default=8080,
        metavar="PORT",
        help="the port of `lanqi serve`'s web pages (default 8080; 0: no join code, for a"
        " server run with --no-web)",
    )


def web_url(args: argparse.Namespace, folder: Path) -> str | None:
    """The URL of the web pages for the join code, or None (``--web-port 0``)."""
    if args.web_url:
        return str(args.web_url)
    if args.web_port == 0:
        return None
    from lanqi.web.server import web_urls
    from lanqi.web.tls import CERT_FILE

    return web_urls("0.0.0.0", args.web_port, tls=(folder / CERT_FILE).exists())[0]


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
    url = web_url(args, folder)
    if url is not None:
        from lanqi.cli.qr import join_lines

        print()
        for line in join_lines(url, color=terminal):
            print(line)
    return 0
