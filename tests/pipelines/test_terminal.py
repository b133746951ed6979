"""Tables printed for people: `banco up`'s summary of what the warehouse holds, and the box's measures."""

import datetime as dt

import duckdb

from models import display
from models.metrics.build import build
from models.simulate.config import Simulation
from models.simulate.run import write_simulation
from models.warehouse.ingest import ingest
from pipelines import terminal
from pipelines.commands.up import report


def test_up_prints_what_the_warehouse_holds_as_two_box_tables(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)  # xdist's workers set 80: the tables are wider
    sim = Simulation(shoes=2, tables=2, shoes_per_day=1, start=dt.date(2026, 11, 1), seed=3)
    write_simulation(sim, tmp_path / "landing")
    db = tmp_path / "banco.duckdb"
    ingest(db, [tmp_path / "landing"])
    build(db)
    capsys.readouterr()
    report(db)
    out = capsys.readouterr().out
    assert "shape:" not in out and out.count("┌") == 2 and out.count("  1 row\n") == 2
    assert "│ Punto Banco │" in out and "punto_banco" not in out  # games by their names
    assert "Handle (EUR)" in out and "Hold (%)" in out and "decimal(" not in out  # words, not DuckDB's types
    handle = duckdb.connect(str(db.with_name("banco.serving.duckdb")), read_only=True)
    total, win, ties = handle.sql(
        "SELECT sum(handle), sum(house_win), (SELECT avg((outcome = 'T')::INT) FROM core.rounds) FROM marts.table_day"
    ).fetchall()[0]
    handle.close()
    assert f" {display.money(total)} │" in out  # to the cent
    assert f" {display.percent(win / total, 'hold')} │" in out and f" {display.percent(ties, 'rate')} │" in out


def test_worded_writes_each_figure_as_the_home_does():
    result = terminal.Result(
        ["game", "drop", "win_over_handle", "coups", "p_value", "note"],
        ["varchar", "decimal(18,2)", "double", "bigint", "double", "varchar"],
        [("chemin_de_fer", "-40161.25", "0.01802", "50435", "6.9e-09", None)],
        1,
    )
    shown = terminal.worded(result, "CHF")
    assert shown.names == ["Game", "Drop (CHF)", "Hold (%)", "Coups", "p-value", "Note"]
    assert shown.rows == [("Chemin de Fer", "-40,161.25", "1.80 %", "50,435", "< 0.0001", display.MISSING)]


def test_wide_characters_take_two_columns_and_the_box_stays_aligned():
    con = duckdb.connect()
    result = terminal.fetch(con.sql("SELECT '日本' AS name, 1 AS n UNION ALL SELECT 'ab', 22 ORDER BY n"))
    lines = terminal.box(result).splitlines()[:-1]
    assert terminal.width("日本") == 4 and terminal.width("é") == 1
    assert len({terminal.width(line) for line in lines}) == 1, lines


def test_a_long_text_is_cut_with_an_ellipsis_and_control_characters_are_escaped():
    con = duckdb.connect()
    result = terminal.fetch(con.sql("SELECT repeat('x', 100) AS long, 'a\nb' AS two_lines"))
    row = terminal.box(result).splitlines()[4]
    assert "x" * (terminal.CELL_WIDTH - 1) + "…" in row and "a\\nb" in row


def test_readable_rounds_floats_to_six_figures_and_leaves_what_is_not_a_number():
    values = ["-12.349407215671237", "6290375.123456", "12345.678", "0.049382", "1.5e20", "inf", "nan", "-0.0", None]
    result = terminal.Result(["x", "t"], ["double", "varchar"], [(value, "1234.5678") for value in values], 9)
    shown = terminal.readable(result)
    assert [row[0] for row in shown.rows] == [
        "-12.3494", "6,290,375", "12,345.7", "0.049382", "1.5e+20", "inf", "nan", "0", None,
    ]  # fmt: skip
    assert {row[1] for row in shown.rows} == {"1234.5678"} and shown.total == 9
