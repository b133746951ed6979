"""`banco report --day` as a user runs it on a built warehouse: the one-page morning report where asked or
in BANCO_REPORTS, and a bad day one line with exit 2."""

from __future__ import annotations

import os
import subprocess

from pypdf import PdfReader

from tests.pipelines.test_cli_ingest import BANCO


def report(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([BANCO, "report", *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})})  # fmt: skip


def test_the_day_is_one_page_where_out_says(built_warehouse, tmp_path):
    out = tmp_path / "today.pdf"
    env = {"BANCO_PROPERTY_NAME": "Casino of the Tests", "BANCO_DASHBOARD_URL": "https://bi.casino.test"}
    made = report("--db", str(built_warehouse), "--day", "2026-11-02", "--format", "pdf", "--out", str(out), env=env)
    assert made.returncode == 0, made.stderr
    assert made.stdout.startswith(f"wrote {out}: 6 tables, ")
    page = PdfReader(out)
    assert len(page.pages) == 1
    text = page.pages[0].extract_text()
    assert "Casino of the Tests" in text and "gaming day 2026-11-02" in text and "https://bi.casino.test/tables" in text


def test_by_default_the_page_goes_to_the_reports_folder(built_warehouse, tmp_path):
    made = report("--db", str(built_warehouse), "--day", "2026-11-03", env={"BANCO_REPORTS": str(tmp_path)})
    assert made.returncode == 0, made.stderr
    assert len(PdfReader(tmp_path / "morning-report-2026-11-03.pdf").pages) == 1


def test_a_bad_day_is_one_line_and_exit_2(built_warehouse, tmp_path):
    for args, said in (
        (["--day", "2026-11-31"], "a gaming day is a date as YYYY-MM-DD, not '2026-11-31'"),
        (["--day", "2026-10-01"], "no coups on gaming day 2026-10-01"),
        (["--day", "2026-11-02", "--month", "2026-11"], "not allowed with argument"),
        (["--day", "2026-11-02", "--format", "csv"], "--day makes the one-page morning report"),
        (["--day", "2026-11-02", "--out", str(tmp_path / "x.csv")], "does not end in .pdf"),
    ):
        failed = report("--db", str(built_warehouse), *args)
        assert failed.returncode == 2 and len(failed.stderr.strip().splitlines()) == 1, failed.stderr
        assert said in failed.stderr
    assert list(tmp_path.iterdir()) == []
