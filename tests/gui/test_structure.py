"""The GUI's shape: scenes reach each other only through the app's route table, every
agent command has a handler, and only the variant modules know the variants."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path
from typing import TypeVar

import pytest

pytest.importorskip("pygame")

from lanqi.gui import commands
from lanqi.gui.app import ROUTES
from lanqi.gui.net import GAME_REQUESTS, LOBBY_HANDLERS, SEAT_REQUESTS
from lanqi.gui.scenes.base import Destination
from lanqi.gui.sessions import SEAT_ACTIONS
from lanqi.gui.variants import VARIANTS

GUI = Path(__file__).resolve().parents[2] / "frontends" / "lanqi" / "gui"
#: the modules whose job is what differs between the variants
VARIANT_MODULES = {"board_view.py", "controllers.py", "variants.py"}
VARIANT_TEST = re.compile(r"""==\s*["'](xiangqi|gomoku)["']|\b(xiangqi|gomoku)\.Board\b""")


C = TypeVar("C")


def leaves(cls: type[C]) -> set[type[C]]:
    """The classes below ``cls`` with no subclass (as their modules name them: a slotted
    dataclass leaves the class it replaced behind in ``__subclasses__``)."""
    found: set[type[C]] = set()
    sub: type[C]
    for sub in cls.__subclasses__():
        if getattr(sys.modules[sub.__module__], sub.__name__, None) is not sub:
            continue
        below = leaves(sub)
        found |= below or {sub}
    return found


def test_every_destination_has_a_route() -> None:
    assert set(ROUTES) == leaves(Destination)


def test_no_scene_imports_another_scene() -> None:
    for path in sorted((GUI / "scenes").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            scenes = {
                n
                for n in names
                if n.startswith("lanqi.gui.scenes.") and not n.startswith("lanqi.gui.scenes.base")
            }
            assert not scenes, f"{path.name} imports {scenes}: go through app.go(...) instead"
            assert "lanqi.gui.app" not in names, f"{path.name} imports the app"


def test_every_command_has_a_handler() -> None:
    assert set(GAME_REQUESTS) == leaves(commands.GameCommand)
    assert set(LOBBY_HANDLERS) == leaves(commands.LobbyCommand)
    assert set(SEAT_ACTIONS.values()) <= set(SEAT_REQUESTS)
    assert all(cls.label != commands.Command.label for cls in leaves(commands.Command))


def test_only_the_variant_modules_test_the_variant() -> None:
    testing = {
        path.relative_to(GUI).as_posix()
        for path in GUI.rglob("*.py")
        if VARIANT_TEST.search(path.read_text(encoding="utf-8"))
    }
    assert testing <= VARIANT_MODULES, f"{testing - VARIANT_MODULES} test the variant"


def test_the_registry_covers_every_variant_of_the_rules_core() -> None:
    from lanqi.games.registry import VARIANTS as GAMES

    assert set(VARIANTS) == set(GAMES)
