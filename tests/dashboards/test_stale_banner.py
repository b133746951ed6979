"""Every page warns, above its content, while the marts lag the warehouse: a build that failed and the
table-days held back, in the words `banco report` prints (AppTest, on warehouses made stale honestly)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboards import fmt
from models.metrics import staleness
from models.metrics.build import build
from models.warehouse.store import read
from tests import overflow

APP = str(Path(__file__).resolve().parents[2] / "dashboards" / "app.py")


@pytest.fixture(scope="module")
def stale(tmp_path_factory) -> Path:
    """T01's first gaming day held back, then a build failed on a corrupted data file."""
    root = tmp_path_factory.mktemp("stale")
    db = overflow.built(root)
    overflow.overflow(db, root)
    assert build(db).held_back
    overflow.corrupted(overflow.later_day(db, root)[0])
    with pytest.raises(Exception):  # noqa: B017 - whatever the reader says of a file that is no Parquet
        build(db)
    return db


def banners(db: Path, monkeypatch, page: str | None = None) -> list[str]:
    monkeypatch.setenv("BANCO_DB", str(db))
    at = AppTest.from_file(APP, default_timeout=120).run()
    if page:
        at.switch_page(f"views/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return [warning.value for warning in at.warning]


@pytest.mark.slow
def test_every_page_warns_of_the_failed_build_and_the_held_back_table_day(stale, monkeypatch):
    con = read(stale)
    try:
        held = con.execute(staleness.HELD_BACK).fetchall()
    finally:
        con.close()
    words = staleness.warning(staleness.failure(stale), held)
    assert words.startswith("The marts are stale: the last build, at ")
    assert "The marts leave out 1 table-day whose rows the build could not compute: T01 on 2026-11-01" in words
    for page in (None, "tables", "count_room"):
        assert fmt.plain(words) in banners(stale, monkeypatch, page), page


def test_fresh_marts_show_no_banner(rounds_only, monkeypatch):
    assert not any("The marts" in banner for banner in banners(rounds_only, monkeypatch))
