"""The README an export writes beside its database: what is in it, where it came from, how to open it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from models.warehouse.export.folder import Written

#: The core tables the README counts one by one; the other relations are counted by schema.
COUNTED = ("core.rounds", "core.bets", "core.shoes", "core.table_events")
CUT = (
    "How each table was cut down (a shoe's gaming day is its first coup's, a shift's the one it opened in, "
    "as the marts count them; a table without a gaming day or table column is whole):"
)


def text(written: Written) -> str:
    """The README of the export `written` describes, one screen long."""
    folder, cut, day = written.folder, written.cut, written.day
    counted = ", ".join(f"{name} {written.rows[name]:,}" for name in COUNTED if name in written.rows)
    others = {}
    for name, rows in written.rows.items():
        if name not in COUNTED:
            schema = name.split(".")[0]
            others[schema] = others.get(schema, 0) + rows
    commit = f"commit {written.log_snapshot}" + (
        f" (pointed at {written.pointed_at:%Y-%m-%d %H:%M:%S %Z})" if written.pointed_at else ""
    )
    built = f"; its marts were built from {written.built.describe()}" if written.built else ""
    lines = [
        "# Banco Analytics: a warehouse snapshot",
        "",
        f"Exported {written.made_at:%Y-%m-%d %H:%M:%S} UTC by `banco export` from the serving snapshot of the "
        f"warehouse's {commit}{built}.",
        f"Cut down to: {cut.describe()}. Gaming days open at {day.start_hour:02d}:00 in {day.timezone}.",
        "",
        f"- `banco.duckdb`: DuckDB (1.4 or later). The marts and the `meta` ledgers are tables; `core.*`, "
        f"`quarantine.*` and `meta.ingest_log` are views over the {written.files} Parquet files in `data/`, "
        "named by paths relative to this folder. Names and columns are the warehouse's: its queries run here.",
        f"- Rows: {counted}; " + ", ".join(f"{schema} {rows:,}" for schema, rows in others.items()) + ".",
    ]
    if not cut.whole:
        by_how: dict[str, list[str]] = {}
        for name, how in written.how.items():
            by_how.setdefault(how, []).append(name)
        lines += ["", CUT]
        lines += [f"- {how}: {', '.join(names)}" for how, names in by_how.items()]
        if written.other_views:
            lines.append(f"- views over the above: {', '.join(written.other_views)}")
    lines += [
        "",
        "## Opening it",
        "",
        "DuckDB resolves the views' relative paths against its working directory (or `file_search_path`), "
        "not against the database file's folder: open it from this folder, or set `file_search_path` to it.",
        "",
        f"- DuckDB CLI: `cd {folder} && duckdb -readonly banco.duckdb`",
        "- Python, run from this folder: `duckdb.connect('banco.duckdb', read_only=True)`; from anywhere: "
        f"`con = duckdb.connect('{folder}/banco.duckdb', read_only=True)`, then "
        f"`con.execute(\"SET file_search_path = '{folder}'\")`.",
        f"- DBeaver: a DuckDB connection to `{folder}/banco.duckdb`, read-only, with "
        f"`SET file_search_path = '{folder}'` as its bootstrap query.",
        "",
        "Moved or copied elsewhere, the folder opens the same way: use its new path.",
    ]
    return "\n".join(lines) + "\n"
