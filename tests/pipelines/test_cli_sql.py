"""`banco sql` as a user runs it: the installed console script, on a warehouse of one sample file."""

import csv
import io
import json

import pytest

from tests.pipelines.test_cli_ingest import SAMPLES, banco


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("sql") / "banco.duckdb")
    loaded = banco("ingest", "--db", path, str(SAMPLES / "01_rounds_suited.csv"))
    assert loaded.returncode == 0, loaded.stderr
    return path


def sql(db, query, *options):
    return banco("sql", "--db", db, query, *options)


def test_each_format_gives_the_same_counts(db):
    query = "SELECT outcome, count(*) AS coups FROM core.rounds GROUP BY outcome ORDER BY outcome"
    as_csv = list(csv.DictReader(io.StringIO(sql(db, query, "--format", "csv").stdout)))
    as_json = json.loads(sql(db, query, "--format", "json").stdout)
    assert as_csv and [row["outcome"] for row in as_csv] == [row["outcome"] for row in as_json]
    assert [int(row["coups"]) for row in as_csv] == [row["coups"] for row in as_json]
    table = sql(db, query).stdout
    assert all(str(row["coups"]) in table for row in as_json)


def test_lists_and_structs_are_json_text_in_csv(db):
    query = (
        "SELECT column_names[1:2] AS first_two, {'a': 1, 'b': [2, 3]} AS nested, NULL::INT[] AS none "
        "FROM (SHOW ALL TABLES) WHERE name = 'rounds' AND schema = 'core'"
    )
    result = sql(db, query, "--format", "csv")
    assert result.returncode == 0, result.stderr
    (row,) = csv.DictReader(io.StringIO(result.stdout))
    assert json.loads(row["first_two"]) == ["table_id", "shoe_id"]
    assert json.loads(row["nested"]) == {"a": 1, "b": [2, 3]}
    assert row["none"] == ""


def test_intervals_blobs_and_names_used_twice_print_in_every_format(db):
    query = "SELECT max(finished_at) - min(started_at) AS took, 'x'::BLOB AS raw, 1 AS n, 2 AS n FROM meta.ingest_log"
    results = {output: sql(db, query, "--format", output) for output in ("table", "csv", "json")}
    assert all(result.returncode == 0 for result in results.values()), results
    (row,) = json.loads(results["json"].stdout)
    assert ":" in row["took"] and row["raw"] == "x" and (row["n"], row["n_1"]) == (1, 2)
    assert next(csv.DictReader(io.StringIO(results["csv"].stdout))) == {k: str(v) for k, v in row.items()}


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("DELETE FROM core.rounds", "read-only"),
        ("CREATE TABLE scratch AS SELECT 1", "read-only"),
        ("SELECT count(*) FROM nowhere", "SQL error"),
        ("SELECT natural::INT FROM core.rounds", "SQL error"),
    ],
)
def test_a_refused_or_broken_query_is_one_line_and_a_non_zero_exit(db, query, message):
    result = sql(db, query)
    assert result.returncode != 0 and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and message in result.stderr, result.stderr
    assert sql(db, "SELECT count(*) AS n FROM core.rounds", "--format", "json").returncode == 0


def test_without_a_warehouse_it_says_what_to_run(tmp_path):
    result = sql(str(tmp_path / "banco.duckdb"), "SELECT 1")
    assert result.returncode != 0 and "banco ingest" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
