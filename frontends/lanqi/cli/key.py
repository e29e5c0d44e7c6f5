"""``lanqi key``: the server's public key and its fingerprint, for people to compare."""

from __future__ import annotations

import argparse

EXAMPLES = """examples:
  lanqi key                                # the key of the server in the default data directory
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


def run(args: argparse.Namespace) -> int:
    from lanqi.paths import data_dir
    from lanqi.security import public_key_file, server_keys

    folder = data_dir(args.data_dir)
    keys = server_keys(folder)  # made once, the first time
    public = keys.public.decode("ascii")
    if args.raw:
        print(public)
        return 0
    print(f"fingerprint {keys.fingerprint}")
    print(f"public key  {public}")
    print(f"key file    {public_key_file(folder)}")
    return 0
