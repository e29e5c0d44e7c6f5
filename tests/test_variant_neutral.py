"""Services and frontends reach a variant only through the registry.

README promises that they never special-case a variant; this test fails when a
comparison with a variant's name or a type check against one variant's board
creeps into code that should not know which game it runs.  The exceptions are
code that belongs to one variant (its rules package, the built-in AIs and
engine adapters for that game) and the GUI's per-variant drawing and input.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: variant-specific code by design: a variant's package, its bots and engines
OWN_VARIANT = (
    "shared/lanqi/games/xiangqi/",
    "shared/lanqi/games/gomoku/",
    "frontends/lanqi/bot/xiangqi_ai.py",
    "frontends/lanqi/bot/xiangqi_eval.py",
    "frontends/lanqi/bot/gomoku_ai.py",
    "frontends/lanqi/bot/gomoku_patterns.py",
    "frontends/lanqi/bot/simple.py",  # GreedyBot plays gomoku only
    "frontends/lanqi/bot/engines/",
    "frontends/lanqi/bench/movegen.py",  # xiangqi perft
    "frontends/lanqi/cli/perft.py",
    # the GUI's per-variant drawing and input, chosen once through gui/variants.py
    "frontends/lanqi/gui/board_view.py",
    "frontends/lanqi/gui/controllers.py",
    "frontends/lanqi/gui/variants.py",
)
SPECIAL_CASE = re.compile(
    r"""variant\s*[!=]=\s*["'](xiangqi|gomoku)["']"""
    r"""|["'](xiangqi|gomoku)["']\s*[!=]=\s*\w*variant"""
    r"""|isinstance\([^)]*\b(xiangqi|gomoku)\.Board\b"""
)


def test_no_variant_is_special_cased_outside_its_own_code() -> None:
    found = []
    for folder in ("shared", "services", "frontends"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel.startswith(OWN_VARIANT):
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if SPECIAL_CASE.search(line):
                    found.append(f"{rel}:{number}: {line.strip()}")
    assert found == [], "dispatch through lanqi.games.registry instead:\n" + "\n".join(found)


def test_the_check_sees_a_special_case() -> None:
    assert SPECIAL_CASE.search('if state.variant == "xiangqi":')
    assert SPECIAL_CASE.search("if isinstance(board, gomoku.Board):")
    assert not SPECIAL_CASE.search("spec = variant_spec(state.variant)")
