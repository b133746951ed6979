"""The dashboard's pages, apart from the entry point (which runs when imported): the tests and the
benchmark list them from here."""

from __future__ import annotations

from pathlib import Path

VIEWS = Path(__file__).resolve().parent / "views"
#: (file in views/, title, icon): one module per page.
PAGES = (
    ("overview.py", "Overview", ":material/dashboard:"),
    ("streaks.py", "Banker-pass streaks", ":material/timeline:"),
    ("commission.py", "Commission", ":material/payments:"),
    ("ties.py", "Ties", ":material/balance:"),
    ("tables.py", "Tables and dealers", ":material/table_restaurant:"),
    ("shoe.py", "Shoe explorer", ":material/style:"),
    ("integrity.py", "Integrity", ":material/rule:"),
    ("odds.py", "Odds lab", ":material/calculate:"),
    ("sql.py", "SQL", ":material/terminal:"),
)
