"""What the command line loads to answer: each command imports only what it needs (pipelines/cli.py), so
`banco --help`, `banco sql` and `banco odds` start at once. Counted in a fresh interpreter, never timed
(the times are `banco bench cli`'s)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.pipelines.test_cli_ingest import sample_warehouse

ROOT = Path(__file__).resolve().parents[2]

#: Libraries no answer of the three needs: the orchestrator, the app, the compiler, the frames, the tables.
HEAVY = {"dagster", "streamlit", "numba", "polars", "pyiceberg", "pyarrow", "models.metrics"}
#: Python starts with about 70 modules (site and the editable install's finder); argparse, the settings and
#: the command line add about 55 (125 on 2026-12-05). 160 leaves room for a few standard modules, while the
#: lightest library kept out brings far more: numpy about 115, DuckDB 120, Polars 320, numba 440.
HELP_MODULES = 160
#: The reader (DuckDB with numpy, about 120) and the Arrow stream from the query's process (pyarrow) on top
#: of the command line: 327 on 2026-12-05; Polars alone would add about 200 more than it shares.
SQL_MODULES = 400


def loaded(*argv: str) -> set[str]:
    """The modules `banco ARGV` has loaded once it has answered, run in a fresh interpreter."""
    script = (
        "import contextlib, io, json, sys\n"
        "from pipelines.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        f"        status = main({list(argv)!r})\n"
        "    except SystemExit as exit:\n"
        "        status = exit.code\n"
        "print(json.dumps([status, sorted(sys.modules)]))\n"
    )
    # run in the checkout, whose code `python -c` then imports first
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    status, modules = json.loads(result.stdout)
    assert status == 0, result.stderr
    return set(modules)


def heavy(modules: set[str]) -> set[str]:
    """The HEAVY libraries `modules` holds, or a module of."""
    return {library for library in HEAVY if any(name.split(".")[: library.count(".") + 1] == library.split(".")
                                                 for name in modules)}  # fmt: skip


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    return sample_warehouse(tmp_path_factory.mktemp("imports"))


def test_help_loads_no_library_a_command_needs():
    modules = loaded("--help")
    assert not heavy(modules) and not {"duckdb", "numpy"} & modules
    assert len(modules) < HELP_MODULES, len(modules)


def test_sql_loads_the_reader_and_no_more(db):
    modules = loaded("sql", "--db", db, "SELECT outcome, count(*) FROM core.rounds GROUP BY 1")
    assert "duckdb" in modules and heavy(modules) == {"pyarrow"}  # the rows' stream from the query's process
    assert len(modules) < SQL_MODULES, len(modules)
    as_csv = loaded("sql", "--db", db, "SELECT 1", "--format", "csv")  # Polars writes CSV: loaded for it alone
    assert heavy(as_csv) == {"pyarrow", "polars"}


def test_odds_load_neither_frames_nor_tables_nor_the_apps_and_kept_odds_no_compiler():
    assert heavy(loaded("odds", "--decks", "7")) <= {"numba"}  # the kernel, when the odds are not kept yet
    assert not heavy(loaded("odds", "--decks", "7"))  # kept now: read back


def test_games_solve_loads_numpy_and_no_more():
    """The exact game solver needs numpy's integer arrays and Python's Fractions, nothing heavier."""
    modules = loaded("games", "solve", "--model", "A1")
    assert not heavy(modules) and "numpy" in modules and not {"duckdb", "scipy"} & modules
