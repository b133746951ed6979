"""Who imports whom, read from the source with `ast` (nothing imported): no module imports itself round a
loop, the domain's packages form layers, and each room imports only the rooms it may (docs of the shape:
models neither dagster nor streamlit nor the apps; dashboards never the pipelines; nothing the benchmarks)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROOMS = ("models", "pipelines", "dashboards", "benchmarks", "deploy")
#: What each room must not import (top-level names; a dagster_* library counts as dagster).
FORBIDDEN = {
    "models": {"dagster", "streamlit", "pipelines", "dashboards", "benchmarks", "tests"},
    "dashboards": {"dagster", "pipelines", "benchmarks", "tests"},
    "pipelines": {"dashboards", "benchmarks", "tests"},
}
#: Known violations on their way out, each (importer, imported): none now.
KNOWN: set[tuple[str, str]] = set()


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for room in ROOMS for path in sorted((ROOT / room).rglob("*.py"))}


def imported(path: Path) -> Iterator[str]:
    """Every name `path` imports, at the top or inside a function (a deferred import still ties the two
    modules together); not under `if TYPE_CHECKING:`, which never runs."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]

    def walk(node: ast.AST) -> Iterator[str]:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for other in node.orelse:
                yield from walk(other)
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([node.module] if node.module else [])])
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in MODULES)
        else:
            for child in ast.iter_child_nodes(node):
                yield from walk(child)

    yield from walk(ast.parse(path.read_text()))


def project_module(name: str) -> str | None:
    """The project's module `name` is, or lies in (`models.metrics.build.build` is `models.metrics.build`)."""
    parts = name.split(".")
    while parts and ".".join(parts) not in MODULES:
        parts.pop()
    return ".".join(parts) or None


def graph() -> dict[str, set[str]]:
    edges = {name: set() for name in MODULES}
    for name, path in MODULES.items():
        edges[name] = {target for other in imported(path) if (target := project_module(other))} - {name}
    return edges


def loops(edges: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules each of which reaches every other by imports (Tarjan's components of two or more)."""
    order, low, stack, found, counter = {}, {}, [], [], [0]

    def visit(node: str) -> None:
        order[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        for target in sorted(edges.get(node, ())):
            if target not in order:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], order[target])
        if low[node] == order[node]:
            group = []
            while not group or group[-1] != node:
                group.append(stack.pop())
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(edges):
        if node not in order:
            visit(node)
    return found


def packages(edges: dict[str, set[str]], room: str) -> dict[str, set[str]]:
    """The imports between the packages of `room` (models.metrics, models.reports, ...; a module directly in
    the room is a package of its own)."""
    result: dict[str, set[str]] = {}
    for source, targets in edges.items():
        if source.startswith(f"{room}."):
            package = ".".join(source.split(".")[:2])
            inside = {".".join(t.split(".")[:2]) for t in targets if t.startswith(f"{room}.")}
            result.setdefault(package, set()).update(inside - {package})
    return result


def test_no_module_imports_itself_round_a_loop():
    assert loops(graph()) == []


def test_the_domains_packages_are_layers_without_loops():
    assert loops(packages(graph(), "models")) == []


def test_each_room_imports_only_what_it_may():
    broken = set()
    for name, path in MODULES.items():
        banned = FORBIDDEN.get(name.split(".")[0], set())
        for other in imported(path):
            top = other.split(".")[0]
            if top in banned or (top.startswith("dagster_") and "dagster" in banned):
                broken.add((name, project_module(other) or other))
    assert broken - KNOWN == set()
    assert KNOWN - broken == set(), "fixed: take these out of KNOWN"


def test_the_reading_finds_a_loop_and_a_deferred_import():
    """The checks above see what they are meant to: a loop of three, a deferred import, packages in a loop."""
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert loops(edges) == [["a", "b", "c"]]
    assert "pipelines.definitions" in set(imported(ROOT / "pipelines" / "cluster" / "worker.py"))
    assert loops(packages({"models.x.one": {"models.y.two"}, "models.y.two": {"models.x.three"}}, "models")) == [
        ["models.x", "models.y"]
    ]
