"""The director key ``lanqi serve`` creates is usable on a command line as it is."""

from __future__ import annotations

import re
import stat
from pathlib import Path

from lanqi.cli.main import build_parser
from lanqi.cli.servers import director_key


def test_a_new_director_key_is_saved_private_and_parses_as_an_argument(tmp_path: Path) -> None:
    for n in range(64):  # each a fresh key: any of them must parse
        folder = tmp_path / str(n)
        key = director_key(folder, None)
        # hex: never starts with "-", which argparse would take for an option
        assert re.fullmatch(r"[0-9a-f]{32}", key), key
        saved = folder / "director.key"
        assert saved.read_text(encoding="utf-8") == key + "\n"
        assert stat.S_IMODE(saved.stat().st_mode) == 0o600
        assert director_key(folder, None) == key  # read back on the next start
        args = build_parser().parse_args(["tournament", "--director-key", key, "list"])
        assert args.director_key == key
    assert director_key(tmp_path / "given", "mine") == "mine"
