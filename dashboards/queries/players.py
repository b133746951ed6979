"""The Players page's reads: ratings within the filters, read from the player marts alone (never core.bets,
so a page over millions of coups stays fast): the top players, a search by player id, one player's sessions
and bets by type."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

import polars as pl

from dashboards import filters, query
from models.ratios import on_handle, ratio, win_vs_theo_z
from models.settings import Settings
from models.warehouse import schema

MARTS = (schema.MARTS_PLAYERS, schema.MARTS_PLAYER_SESSIONS, schema.MARTS_PLAYER_BETS)
#: What the top list can be ranked by (label -> column), highest first.
RANKS = {
    "Theo": "theo",
    "House win": "house_win",
    "Average bet": "average_bet",
    "Visits": "visits",
    "Last visit": "last_visit",
    "Comp value": "comp_value",
    "Theo per hour": "theo_per_hour",
    "Theo per visit (ADT)": "theo_per_visit",
    "Hours played": "hours",
}
#: The top list's columns, as marts.players holds them (hours from minutes).
LISTED = (
    "player_id, first_visit, last_visit, visits, sessions, tables, minutes / 60 AS hours, decisions, handle, "
    "average_bet, max_bet, house_win, theo, theo_per_hour, theo / visits AS theo_per_visit, comp_value, "
    "win_vs_theo_z"
)
#: The same columns summed from marts.player_sessions, for filtered days, tables, games or dealers (ranked
#: in the database, so these columns are taken there; the z, from the sums of the rows listed).
SUMMED = (
    "player_id, min(gaming_day) AS first_visit, max(gaming_day) AS last_visit, "
    "count(DISTINCT gaming_day)::BIGINT AS visits, count(*)::BIGINT AS sessions, "
    "count(DISTINCT table_id)::BIGINT AS tables, sum(minutes) / 60 AS hours, sum(decisions)::BIGINT AS decisions, "
    "sum(handle) AS handle, sum(handle) / sum(decisions) AS average_bet, max(max_bet) AS max_bet, "
    "sum(house_win) AS house_win, sum(theo) AS theo, "
    "CASE WHEN sum(minutes) > 0 THEN sum(theo)::DOUBLE / (sum(minutes) / 60) END AS theo_per_hour, "
    "sum(theo) / count(DISTINCT gaming_day) AS theo_per_visit, "
    "sum(theo) * $comp_rate AS comp_value, sum(win_variance) AS win_variance"
)
SESSIONS = (
    "SELECT gaming_day, table_id, game, session, started_at, ended_at, minutes, decisions, wagers, handle, "
    "average_bet, max_bet, handle_main, handle_side, house_win, theo, theo_per_hour, win_variance, "
    f"win_vs_theo_z AS z FROM {schema.MARTS_PLAYER_SESSIONS} WHERE player_id = $player AND {{where}} "
    "ORDER BY started_at"
)
BETS = (
    "SELECT bet, sum(wagers)::BIGINT AS wagers, sum(handle) AS handle, sum(house_win) AS house_win, "
    f"sum(theo) AS theo, sum(win_variance) AS win_variance FROM {schema.MARTS_PLAYER_BETS} "
    "WHERE player_id = $player AND {where} GROUP BY bet ORDER BY handle DESC"
)
#: Players a search lists when what was typed names no one exactly.
MATCHES = 50
#: Every player's totals within the filters, over the rows of the list before its LIMIT.
TOTALS = {
    "all_players": "count(*) OVER ()",
    "all_visits": "(sum(visits) OVER ())::BIGINT",
    "all_theo": "sum(theo) OVER ()",
    "all_comp_value": "sum(comp_value) OVER ()",
}


def comp_rate() -> Decimal:
    """The comp reinvestment rate the marts were built with (BANCO_COMP_RATE, as for `banco build`):
    a filtered list's comp value is its theo at that rate, as marts.player_day's is."""
    return Settings.from_env().comp_rate


@dataclass(frozen=True)
class Ranking:
    """The top of the list, and the totals of every player within the filters (one query for both)."""

    listed: pl.DataFrame
    players: int
    visits: int
    theo: Decimal | None
    comp_value: Decimal | None


def top(f: filters.Filters, rank: str, limit: int) -> Ranking:
    """The `limit` players ranked highest by the column `rank` (a value of RANKS) within the filters:
    all time from marts.players when nothing is filtered, else summed from their sessions."""
    if rank not in RANKS.values():
        raise ValueError(f"no ranking by {rank!r}")
    where, params = f.where("table_day")
    if where == "TRUE":
        players = f"SELECT {LISTED} FROM {schema.MARTS_PLAYERS}"
    else:
        players = f"SELECT {SUMMED} FROM {schema.MARTS_PLAYER_SESSIONS} WHERE {where} GROUP BY player_id"
        params |= {"comp_rate": comp_rate()}
    # the windows run before the LIMIT: each listed row carries the totals of every player
    ranked = query.frame(
        f"SELECT *, {', '.join(f'{total} AS {name}' for name, total in TOTALS.items())} FROM ({players}) "
        f"ORDER BY {rank} DESC NULLS LAST, player_id LIMIT {int(limit)}",
        params,
    )
    sums = ranked.row(0, named=True) if ranked.height else dict.fromkeys(TOTALS, 0)
    if "win_variance" in ranked.columns:  # summed: the z of the sums, as marts.players takes its own
        ranked = ranked.with_columns(win_vs_theo_z()).drop("win_variance")
    listed = ranked.drop(*TOTALS).rename({"win_vs_theo_z": "z"})
    return Ranking(listed, *(sums[name] for name in TOTALS))


def find(text: str) -> pl.DataFrame:
    """The rows of marts.players whose id `text` names: the one it equals (ignoring case and spaces
    around it) first, then up to MATCHES in all that contain it; `exact` says which."""
    return query.frame(
        "SELECT *, theo / visits AS theo_per_visit, lower(player_id) = lower($id) AS exact "
        f"FROM {schema.MARTS_PLAYERS} WHERE contains(lower(player_id), lower($id)) "
        f"ORDER BY exact DESC, player_id LIMIT {MATCHES}",
        {"id": text.strip()},
    )


def sessions(f: filters.Filters, player_id: str) -> pl.DataFrame:
    """The player's ratings within the filters, in the order they started."""
    where, params = f.where("table_day")
    return query.frame(SESSIONS.format(where=where), params | {"player": player_id})


def bets(f: filters.Filters, player_id: str) -> pl.DataFrame:
    """The player's wagers by bet within the filtered days (marts.player_bets has no table or game): each
    bet's share of their handle, its holds and z."""
    where, params = f.where("day")
    by_bet = on_handle(query.frame(BETS.format(where=where), params | {"player": player_id}))
    return by_bet.with_columns(share=ratio("handle", pl.col("handle").sum()))
