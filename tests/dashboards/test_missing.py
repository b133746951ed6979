"""A missing value shows as an em dash on every page, never as None, nan or null: in the figures, the
captions, the select boxes and every table's cells (checked under AppTest on the small real warehouse)."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pytest
from streamlit.testing.v1 import AppTest

from dashboards import fmt
from dashboards.pages import PAGES

APP = str(Path(__file__).resolve().parents[2] / "dashboards" / "app.py")
SHOWN_AS_MISSING = re.compile(r"\b(None|nan|NaN|null|NaT)\b")
#: Every kind of element that shows text.
TEXTS = ("title", "header", "subheader", "markdown", "caption", "info", "warning", "success", "error", "text")


def test_the_formatters_show_a_missing_value_as_an_em_dash():
    assert fmt.MISSING == "—"
    assert fmt.money(None) == fmt.percent(None) == fmt.count(None) == fmt.number(None) == fmt.text(None) == "—"
    assert (fmt.money(Decimal("1234.5")), fmt.count(0), fmt.text("T01")) == ("1,234.50", "0", "T01")


def shown(at: AppTest) -> list[str]:
    """Every piece of text the page shows, apart from its tables' cells."""
    texts = [element.value for kind in TEXTS for element in getattr(at, kind)]
    texts += [f"{m.label} {m.value}" for m in at.metric]
    for box in (*at.selectbox, *at.multiselect, *at.radio):
        texts += [box.label, *map(str, box.options)]
    return texts


def nulls(table) -> int:
    """The missing cells of a shown table, counted in the Arrow data the browser receives."""
    data = pa.ipc.open_stream(io.BytesIO(table.proto.arrow_data.data)).read_all()
    return sum(column.null_count for column in data.columns)


def every_page(db: Path, monkeypatch) -> Iterator[tuple[str, AppTest]]:
    """Each page in turn, run in one session on the warehouse at `db`."""
    monkeypatch.setenv("BANCO_DB", str(db))
    at = AppTest.from_file(APP, default_timeout=120).run()
    for name, _, _ in PAGES:
        at.switch_page(f"views/{name}").run()
        assert not at.exception, (name, [e.value for e in at.exception])
        yield name, at


@pytest.mark.parametrize("db", ["warehouse", "rounds_only"])
@pytest.mark.slow
def test_no_page_shows_none_and_every_table_shows_an_em_dash(db, request, monkeypatch):
    missing_cells = 0
    for name, at in every_page(request.getfixturevalue(db), monkeypatch):
        assert not [text for text in shown(at) if SHOWN_AS_MISSING.search(text)], name
        for table in at.dataframe:
            assert table.proto.placeholder == fmt.MISSING, name
            missing_cells += nulls(table)
    if db == "warehouse":
        assert missing_cells > 0  # a z where nothing varies, the error of every file read well: shown as dashes


def test_the_drill_down_offers_a_dash_not_none(warehouse, monkeypatch):
    monkeypatch.setenv("BANCO_DB", str(warehouse))
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.switch_page("views/tables.py").run()
    for key in ("drill_table", "drill_dealer"):
        box = at.selectbox(key=key)
        assert box.value is None and box.options[0] == fmt.MISSING and "None" not in box.options
