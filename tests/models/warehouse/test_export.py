"""How an export picks each relation's rows (models/warehouse/export/cut.py), and the folders it refuses."""

import datetime as dt

import pytest

from models.warehouse.export.cut import SHIFTS, SHOES, TABLE_IDS, Cut, rows
from models.warehouse.export.folder import refuse

DAY = dt.date(2026, 11, 2)


def test_nothing_cut_keeps_every_relation_whole():
    assert rows("core.rounds", {"table_id", "shoe_id"}, Cut(), iceberg=True) == ("SELECT * FROM core.rounds", "whole")
    assert rows("marts.table_day", {"table_id", "gaming_day"}, Cut(), iceberg=False)[1] == "whole"


def test_the_iceberg_tables_are_cut_by_shoe_or_by_shift_and_the_log_is_whole():
    cut = Cut(DAY, DAY, ("T01",))
    select, how = rows("core.bets", {"table_id", "shoe_id", "bet"}, cut, iceberg=True)
    assert select == f"SELECT * FROM core.bets SEMI JOIN {SHOES} USING (table_id, shoe_id)"
    assert how == "by its shoe's gaming day and table"
    select, how = rows("core.table_events", {"table_id", "shift_id"}, Cut(first=DAY), iceberg=True)
    assert (
        select.endswith(f"SEMI JOIN {SHIFTS} USING (table_id, shift_id)") and how == "by its table-shift's gaming day"
    )
    assert rows("meta.ingest_log", {"path", "sha256"}, cut, iceberg=True)[1] == "whole"
    # tables alone: by table_id, so a quarantined row of a shoe with no accepted coup is kept
    select, how = rows("quarantine.rounds", {"table_id", "shoe_id"}, Cut(tables=("T01",)), iceberg=True)
    assert select == f"SELECT * FROM quarantine.rounds SEMI JOIN {TABLE_IDS} USING (table_id)" and how == "by table"


def test_the_duckdb_tables_are_cut_by_the_columns_they_have():
    cut = Cut(DAY, dt.date(2026, 11, 3), ("T01",))
    select, how = rows("marts.table_day", {"table_id", "gaming_day", "shoe_id"}, cut, iceberg=False)
    assert select == (
        f"SELECT * FROM marts.table_day SEMI JOIN {TABLE_IDS} USING (table_id) "
        "WHERE gaming_day >= DATE '2026-11-02' AND gaming_day <= DATE '2026-11-03'"
    )
    assert how == "by gaming day and table"
    assert rows("marts.player_day", {"gaming_day"}, cut, iceberg=False)[1] == (
        "by gaming day only (no table column: every table's rows)"
    )
    assert rows("marts.tenure_fit", {"table_id"}, Cut(last=DAY), iceberg=False) == (
        "SELECT * FROM marts.tenure_fit",
        "whole",
    )
    assert rows("marts.players", {"player_id"}, cut, iceberg=False)[1] == "whole"


def test_a_cut_says_what_it_keeps():
    assert Cut().describe() == "none: every row"
    assert Cut(DAY, DAY, ("T01", "T02")).describe() == "gaming day 2026-11-02; tables T01, T02"
    assert Cut(first=DAY).describe() == "gaming days 2026-11-02 to the last"
    with pytest.raises(ValueError, match="2026-11-03 is after 2026-11-02"):
        Cut(dt.date(2026, 11, 3), DAY)


def test_only_a_new_or_empty_folder_is_written(tmp_path):
    refuse(tmp_path / "new")
    refuse(tmp_path)
    (tmp_path / "kept.txt").write_text("mine")
    with pytest.raises(ValueError, match="is not empty"):
        refuse(tmp_path)
    with pytest.raises(ValueError, match="is a file"):
        refuse(tmp_path / "kept.txt")
