"""The dashboard's SQL names no warehouse table itself: every name comes from models/warehouse/schema.py,
and the pages read through their query modules (dashboards/queries/), never with SQL of their own."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from dashboards.pages import PAGES

DASHBOARDS = Path(__file__).resolve().parents[2] / "dashboards"
MODULES = sorted(DASHBOARDS.rglob("*.py"))
#: A table named by its schema, as SQL writes it.
TABLE = re.compile(r"\b(?:core|marts|audit|quarantine|meta)\.[a-z_]+")
#: Pages that read through another page's query module: the odds lab picks a shoe as the shoe explorer does.
BORROWED = {"odds.py": "shoe.py"}


def _docstrings(tree: ast.Module) -> set[int]:
    """The ids of the docstrings' nodes: prose may name a table, code may not."""
    owners = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, owners)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }


def table_literals(source: str) -> list[tuple[int, str]]:
    """(line, name) of each table name written in a string of `source` (f-strings' parts included), outside
    the docstrings."""
    tree = ast.parse(source)
    prose = _docstrings(tree)
    return [
        (node.lineno, found)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose
        for found in TABLE.findall(node.value)
    ]


def test_the_scan_sees_a_literal_and_spares_prose_and_constants():
    source = (
        '"""Reads marts.table_day."""\n'
        "from models.warehouse import schema\n"
        'A = f"SELECT * FROM {schema.MARTS_TABLE_DAY}"\n'
        'B = f"SELECT {x} FROM core.rounds"\n'
        "def f():\n"
        '    """From quarantine.rounds."""\n'
        '    return "SELECT 1 FROM audit.log JOIN meta.ingest_log"\n'
    )
    assert table_literals(source) == [(4, "core.rounds"), (7, "audit.log"), (7, "meta.ingest_log")]


@pytest.mark.parametrize("path", MODULES, ids=lambda path: str(path.relative_to(DASHBOARDS)))
def test_no_module_writes_a_table_name(path: Path):
    found = table_literals(path.read_text(encoding="utf-8"))
    assert not found, f"{path.name}: use models/warehouse/schema.py's constants for {found}"


@pytest.mark.parametrize("page", [name for name, _, _ in PAGES])
def test_every_page_reads_through_its_query_module(page: str):
    view = DASHBOARDS / "views" / page
    assert (DASHBOARDS / "queries" / BORROWED.get(page, page)).exists()
    calls = [
        node.lineno
        for node in ast.walk(ast.parse(view.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute) and node.attr == "frame" and getattr(node.value, "id", None) == "query"
    ]
    assert not calls, f"views/{page} runs its own SQL (lines {calls}): put it in dashboards/queries/{page}"
