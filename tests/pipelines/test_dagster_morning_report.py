"""The morning report's schedule and job on real parts: a warehouse of the test's own, a Dagster instance,
an SMTP server on loopback. The mail goes to the rule's recipients with the day's page attached, once."""

from __future__ import annotations

import datetime as dt
import io
from pathlib import Path

import dagster as dg
import pytest
from pypdf import PdfReader

from pipelines.defs.alerts.assets import morning_report, morning_report_job
from pipelines.defs.alerts.schedules import built_day
from pipelines.defs.alerts.schedules import morning_report as morning_schedule
from pipelines.defs.resources import Warehouse
from tests.planted import planted_warehouse

ROOT = Path(__file__).resolve().parents[2]
URL = "https://bi.casino.test"


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    """A built warehouse of two gaming days, written by these tests alone."""
    return planted_warehouse(tmp_path_factory.mktemp("morning"), shoes=8, seed=5, advantage_share=0.0)


def test_the_schedule_asks_for_the_day_the_nightly_build_built():
    at = dt.datetime(2026, 11, 3, 6, 0, tzinfo=dt.UTC)  # the nightly build of 02:00 built 2026-11-01
    request = morning_schedule(dg.build_schedule_context(scheduled_execution_time=at))
    assert request.partition_key == "2026-11-01" and request.run_key == "morning-report-2026-11-01"
    assert morning_schedule.cron_schedule == "0 6 * * *" and morning_schedule.execution_timezone == "UTC"
    # a report hour before the nightly build's: the build of the night before
    assert built_day(dt.datetime(2026, 11, 3, 1, 0, tzinfo=dt.UTC), dt.time(2, 0), "UTC") == dt.date(2026, 10, 31)


def test_the_report_is_written_and_emailed_once_to_the_rules_recipients(warehouse, smtp_server, monkeypatch, tmp_path):
    inbox, port = smtp_server()
    for name, value in {
        "BANCO_SMTP_URL": f"smtp://127.0.0.1:{port}", "BANCO_SMTP_FROM": "banco@casino.test",
        "BANCO_ALERTS_TO": "pit@casino.test,compliance@casino.test", "BANCO_ALERTS": str(ROOT / "alerts.toml"),
        "BANCO_PROPERTY_NAME": "Casino of the Tests", "BANCO_DASHBOARD_URL": URL,
    }.items():  # fmt: skip
        monkeypatch.setenv(name, value)
    at = dt.datetime(2026, 11, 3, 6, 0, tzinfo=dt.UTC)
    request = morning_schedule(dg.build_schedule_context(scheduled_execution_time=at))
    defs = dg.Definitions(
        assets=[morning_report],
        jobs=[morning_report_job],
        resources={"warehouse": Warehouse(db=str(warehouse), landing=str(warehouse.parent / "landing"))},
    )
    job = defs.resolve_job_def("morning_report")
    config = {"ops": {"reports__morning_report": {"config": {"folder": str(tmp_path)}}}}
    with dg.instance_for_test() as instance:
        first = job.execute_in_process(instance=instance, partition_key=request.partition_key, run_config=config)
        again = job.execute_in_process(instance=instance, partition_key=request.partition_key, run_config=config)
    assert first.success and again.success

    (mail,) = inbox.mails()  # the second run sent nothing
    (envelope,) = inbox.envelopes
    assert sorted(envelope.rcpt_tos) == ["compliance@casino.test", "pit@casino.test"]
    assert mail["Subject"] == "Casino of the Tests: morning report, gaming day 2026-11-01"
    body = mail.get_body(("plain",)).get_content()
    for page in ("tables", "surveillance", "count_room", "integrity"):
        assert f"{URL}/{page}" in body, page
    (attachment,) = mail.iter_attachments()
    assert attachment.get_filename() == "morning-report-2026-11-01.pdf"
    assert attachment.get_content_type() == "application/pdf"
    page = PdfReader(io.BytesIO(attachment.get_content()))
    assert len(page.pages) == 1 and "gaming day 2026-11-01" in page.pages[0].extract_text()
    written = PdfReader(tmp_path / "morning-report-2026-11-01.pdf")  # made again by the second run
    assert len(written.pages) == 1 and "gaming day 2026-11-01" in written.pages[0].extract_text()

    sent = [run.asset_materializations_for_node("reports__morning_report")[0].metadata for run in (first, again)]
    assert sent[0]["sent"].value == 2 and sent[1]["sent"].value == 0  # log and email, then nothing
