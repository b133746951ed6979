"""A page still answers while another process holds the newest serving snapshot open read-write: it
reads the previous one under a notice naming that process and the fix; with every snapshot held, its
message names the holders and the fix, never a build (AppTest)."""

from __future__ import annotations

import html

import pytest

from models.warehouse import serving
from models.warehouse.store import serving_path
from tests.careless import holding, two_snapshots
from tests.dashboards.test_pages import open_app


@pytest.fixture
def db(warehouse, tmp_path):
    return two_snapshots(warehouse, tmp_path, dropped=5)


def test_a_page_reads_the_previous_snapshot_under_a_notice(db, monkeypatch):
    with holding(serving_path(db)) as pid:
        at = open_app(db, monkeypatch, "tables")
    shown = [html.unescape(warning.value) for warning in at.warning]  # as the page shows it (fmt.plain)
    notices = [words for words in shown if f"Process {pid} holds" in words]
    assert len(notices) == 1 and "read_only=True" in notices[0], shown
    assert serving.published(db)[1].name in notices[0]
    assert at.dataframe and not at.code  # the page drew its tables, no command to run


def test_every_snapshot_held_names_the_holders_and_the_fix_not_a_build(db, monkeypatch):
    newest, previous = serving.published(db)
    with holding(newest) as first, holding(previous) as second:
        at = open_app(db, monkeypatch)
    message = next(html.unescape(warning.value) for warning in at.warning if "can be read" in warning.value)
    assert f"process {first}" in message and f"process {second}" in message and "read_only=True" in message
    assert "read_only=True" in at.code[0].value and "banco build" not in at.code[0].value
