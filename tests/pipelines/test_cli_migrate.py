"""`banco migrate` as a user runs it, on warehouses with nothing to move (test_migrate.py moves one)."""

import pytest

from tests.pipelines.test_cli_ingest import SAMPLES, banco


@pytest.mark.slow
def test_a_warehouse_on_the_iceberg_tables_has_nothing_to_move(tmp_path):
    db = tmp_path / "banco.duckdb"
    assert banco("ingest", "--db", str(db), str(SAMPLES / "01_rounds_suited.csv")).returncode == 0
    result = banco("migrate", "--db", str(db))
    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        f"nothing to move: {db} is on the Iceberg tables already\n",
        "",
    )


def test_no_warehouse_is_one_line_and_creates_none(tmp_path):
    db = tmp_path / "nowhere" / "banco.duckdb"
    result = banco("migrate", "--db", str(db))
    assert result.returncode == 2 and not result.stdout
    assert result.stderr == f"banco: error: no warehouse at {db}: nothing to migrate\n"
    assert not db.parent.exists()


def test_a_file_that_is_no_warehouse_is_one_line(tmp_path):
    db = tmp_path / "banco.duckdb"
    db.write_text("not a database")
    result = banco("migrate", "--db", str(db))
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith(f"banco: error: cannot open {db}: ")
