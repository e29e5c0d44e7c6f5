"""No import cycle between the modules of one lanqi package.

Every ``import`` in every module counts, wherever it is written (at the top, inside
a function, under ``if TYPE_CHECKING:``): a cycle that only type checking sees still
ties the modules into one knot.  Modules are read from the source tree, not imported.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("shared", "services", "frontends")


@functools.cache
def source_modules() -> dict[str, Path]:
    """Every ``lanqi`` module (packages as ``lanqi.x`` for ``lanqi/x/__init__.py``)."""
    modules = {}
    for folder in FOLDERS:
        for path in sorted((ROOT / folder / "lanqi").rglob("*.py")):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def imported(name: str, path: Path, known: set[str]) -> set[str]:
    """The lanqi modules ``name`` imports (a ``from m import x`` names ``m.x`` when
    that is a module, else ``m``)."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".")
                anchor = anchor if is_package else anchor[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in known else base)
    return {m for m in found if m in known and m != name}


def package_of(module: str) -> str:
    """``lanqi.matchmaker.service`` -> ``lanqi.matchmaker``."""
    return ".".join(module.split(".")[:2])


def cycles(graph: dict[str, set[str]]) -> Iterator[list[str]]:
    """One cycle per strongly connected component of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()

    def visit(node: str) -> Iterator[list[str]]:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                yield from visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                yield sorted(component)

    for node in sorted(graph):
        if node not in index:
            yield from visit(node)


@functools.cache
def package_graphs() -> dict[str, dict[str, set[str]]]:
    modules = source_modules()
    known = set(modules)
    graphs: dict[str, dict[str, set[str]]] = {}
    for name, path in modules.items():
        package = package_of(name)
        if package == name == "lanqi":
            continue
        inside = {m for m in imported(name, path, known) if package_of(m) == package}
        graphs.setdefault(package, {})[name] = inside
    for graph in graphs.values():
        for targets in list(graph.values()):
            for target in targets:
                graph.setdefault(target, set())
    return graphs


def test_the_scan_sees_the_imports() -> None:
    graphs = package_graphs()
    assert {"lanqi.matchmaker", "lanqi.referee", "lanqi.games", "lanqi.tournament"} <= set(graphs)
    matchmaker = graphs["lanqi.matchmaker"]
    assert "lanqi.matchmaker.director" in matchmaker["lanqi.matchmaker.service"]
    assert "lanqi.matchmaker.store" in matchmaker["lanqi.matchmaker.director"]
    # the xiangqi board reaches its notations and repetition judge through plain imports
    # (they build on lanqi.games.xiangqi.pieces, not on the board)
    xiangqi = graphs["lanqi.games"]
    assert {
        "lanqi.games.xiangqi.notation",
        "lanqi.games.xiangqi.repetition",
        "lanqi.games.xiangqi.pieces",
    } <= xiangqi["lanqi.games.xiangqi.core"]
    assert list(cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}})) == [["a", "b", "c"]]


@pytest.mark.parametrize("package", sorted(package_graphs()))
def test_no_import_cycle_within_a_package(package: str) -> None:
    found = list(cycles(package_graphs()[package]))
    assert not found, f"modules of {package} import each other: {found}"


def test_the_director_does_not_import_the_matchmaker_service() -> None:
    modules = source_modules()
    director = "lanqi.matchmaker.director"
    assert "lanqi.matchmaker.service" not in imported(director, modules[director], set(modules))
