"""The dashboard's pages, apart from the entry point (which runs when imported): the tests and the
benchmark list them from here."""

from __future__ import annotations

from pathlib import Path

from models.access import Role

VIEWS = Path(__file__).resolve().parent / "views"
#: (file in views/, title, icon): one module per page.
PAGES = (
    ("overview.py", "Overview", ":material/dashboard:"),
    ("streaks.py", "Banker-pass streaks", ":material/timeline:"),
    ("commission.py", "Commission", ":material/payments:"),
    ("ties.py", "Ties", ":material/balance:"),
    ("tables.py", "Tables and dealers", ":material/table_restaurant:"),
    ("players.py", "Players", ":material/groups:"),
    ("decisions.py", "Decisions", ":material/psychology:"),
    ("surveillance.py", "Surveillance", ":material/visibility:"),
    ("count_room.py", "Count room", ":material/point_of_sale:"),
    ("shoe.py", "Shoe explorer", ":material/style:"),
    ("integrity.py", "Integrity", ":material/rule:"),
    ("alerts.py", "Alerts", ":material/notifications:"),
    ("odds.py", "Odds lab", ":material/calculate:"),
    ("systems.py", "Systems lab", ":material/science:"),
    ("sql.py", "SQL", ":material/terminal:"),
)
#: Pages only an analyst sees: the SQL console reads anything the snapshot holds, every wager of every player;
#: the players page shows each named player's play and worth to the house; surveillance, the suspicion on them;
#: the count room, the tables whose chips went missing and the report filed with the regulator; the alerts, the
#: flagged players and unreconciled tables each message names, and who was told of them; the decisions, what each
#: named player's choices cost.
ANALYSTS_ONLY = frozenset({"sql.py", "players.py", "decisions.py", "surveillance.py", "count_room.py", "alerts.py"})


def visible(role: Role) -> tuple[tuple[str, str, str], ...]:
    """The pages `role` sees, in order: an analyst every page, a viewer all but the analysts' own."""
    return tuple(page for page in PAGES if role is Role.ANALYST or page[0] not in ANALYSTS_ONLY)
