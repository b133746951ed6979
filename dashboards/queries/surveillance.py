"""The Surveillance page's reads: the alerts within the filters, a player's evidence (sessions and days from
the surveillance marts, their wagers with their edges) and one shoe's edges coup by coup with the wagers placed
in it. Only the wagers read core.bets, a player's or a shoe's at a time."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

from dashboards import filters, query
from models.game.paytable import BETS
from models.metrics.coup_edges import HOUSE_GAMES
from models.metrics.surveillance import wager_edges_sql
from models.warehouse import schema

MARTS = (
    schema.MARTS_COUP_EDGES,
    schema.MARTS_WAGER_EDGES,
    schema.MARTS_SURVEILLANCE_SESSIONS,
    schema.MARTS_SURVEILLANCE_PLAYER_DAY,
    schema.MARTS_SURVEILLANCE_FLAGS,
)
#: The alert list's columns, as marts.surveillance_flags holds them.
ALERTS = (
    "gaming_day, player_id, rule, scope, table_id, session, p_value, q_value, edge_won, wagers, advantage_wagers, "
    "advantage_share, expected_advantage_share, advantage_won, expected_advantage_won, house_win, zender_shoes, "
    "detail"
)
#: A player's sessions, as marts.surveillance_sessions holds them.
SESSIONS = (
    "gaming_day, table_id, session, started_at, ended_at, coups_present, wagers, side_wagers, advantage_wagers, "
    "advantage_share, expected_advantage_share, edge_rank_correlation, amount, edge_won, expected_edge_won, "
    "advantage_won, expected_advantage_won, house_win, permutations, p_value, zender_shoes, zender_won"
)
#: What a player's sessions sum to.
SUMMED = (
    "coups_present", "wagers", "side_wagers", "advantage_wagers", "amount", "edge_won", "expected_edge_won",
    "house_win", "zender_shoes", "zender_won",
)  # fmt: skip
DAYS = (
    "SELECT gaming_day, tables, sessions, wagers, advantage_wagers, advantage_share, expected_advantage_share, "
    f"edge_won, expected_edge_won, house_win, p_value, q_value FROM {schema.MARTS_SURVEILLANCE_PLAYER_DAY} "
    "WHERE player_id = $player AND {where} ORDER BY gaming_day"
)
#: A wager's columns as the evidence lists it: `w` a relation of marts.wager_edges' columns, `e` its coup's edges.
PLACED = (
    "w.table_id, w.shoe_id, w.round_no, e.gaming_day, e.cards_seen, w.seat, w.player_id, w.bet, w.amount, "
    "w.player_edge, w.advantage, w.amount * w.player_edge AS edge_worth, w.house_net"
)
#: Wagers a player's evidence lists at most (the sessions' sums cover them all).
MAX_WAGERS = 2_000


def _table_days(f: filters.Filters) -> tuple[str, dict[str, Any]]:
    """The filtered tables' gaming days, for marts that carry table_id and gaming_day but no game."""
    where, params = f.where("table_day")
    return f"SELECT DISTINCT table_id, gaming_day FROM {schema.MARTS_SHOE_SUMMARY} WHERE {where}", params


def _sessions_where(f: filters.Filters) -> tuple[str, dict[str, Any]]:
    """Rows of marts.surveillance_sessions within the filters (through their table-days)."""
    days, params = f.where("day")
    if not f.narrowed():
        return days, params
    kept, more = _table_days(f)
    return f"{days} AND (table_id, gaming_day) IN ({kept})", params | more


def alerts(f: filters.Filters) -> pl.DataFrame:
    """The flags of the filtered days, newest first. A table, game or dealer filter keeps a session's flag
    when its table-day is kept, and a player-day's when the player had a session at a kept table-day."""
    days, params = f.where("day")
    if f.narrowed():
        kept, more = _table_days(f)
        played = (
            f"SELECT player_id, gaming_day FROM {schema.MARTS_SURVEILLANCE_SESSIONS} "
            f"WHERE (table_id, gaming_day) IN ({kept})"
        )
        days += (
            f" AND CASE WHEN scope = 'session' THEN (table_id, gaming_day) IN ({kept}) "
            f"ELSE (player_id, gaming_day) IN ({played}) END"
        )
        params |= more
    return query.frame(
        f"SELECT {ALERTS} FROM {schema.MARTS_SURVEILLANCE_FLAGS} WHERE {days} "
        "ORDER BY gaming_day DESC, q_value NULLS LAST, p_value NULLS LAST, player_id, table_id NULLS FIRST, session",
        params,
    )


@dataclass(frozen=True)
class Coverage:
    """What the filters reach: coups with edges, whether any coup's edges follow from logged cards (a
    shoe's first coup has edges without them: a full shoe), and the sessions looked at, those tested for
    edge timing (with a side bet) and their players: what a list of no alerts was drawn from."""

    coups: int
    cards: bool
    sessions: int
    tested: int
    players: int


def coverage(f: filters.Filters) -> Coverage:
    shoes, params = f.where("shoe")
    tested, more = _sessions_where(f)
    found = query.frame(
        f"SELECT (SELECT count(*) FROM {schema.MARTS_COUP_EDGES} WHERE {shoes}) AS coups, "
        f"EXISTS (SELECT 1 FROM {schema.MARTS_COUP_EDGES} WHERE cards_seen > 0) AS cards, * FROM ("
        "SELECT count(*) AS sessions, count(p_value) AS tested, count(DISTINCT player_id) AS players "
        f"FROM {schema.MARTS_SURVEILLANCE_SESSIONS} WHERE {tested})",
        params | more,
    )
    return Coverage(**found.row(0, named=True))


def sessions(f: filters.Filters, player_id: str) -> pl.DataFrame:
    """The player's surveillance sessions within the filters, in the order they started."""
    where, params = _sessions_where(f)
    return query.frame(
        f"SELECT {SESSIONS} FROM {schema.MARTS_SURVEILLANCE_SESSIONS} WHERE player_id = $player AND {where} "
        "ORDER BY started_at, table_id, session",
        params | {"player": player_id},
    )


def sums(sessions: pl.DataFrame) -> dict[str, Any]:
    """A player's sessions (as `sessions` gives them) summed; the shares taken again from the sums, the
    expected one weighted by wagers as each session's is by bet type."""
    wagers = pl.col("wagers").sum()
    return sessions.select(
        sessions=pl.len(),
        **{name: pl.col(name).sum() for name in SUMMED},
        advantage_share=pl.col("advantage_wagers").sum() / wagers,
        expected_advantage_share=(pl.col("expected_advantage_share") * pl.col("wagers")).sum() / wagers,
    ).row(0, named=True)


def days(f: filters.Filters, player_id: str) -> pl.DataFrame:
    """The player's days (all their tables, whatever the table filter) with the day's combined test."""
    where, params = f.where("day")
    return query.frame(DAYS.format(where=where), params | {"player": player_id})


def wagers(f: filters.Filters, player_id: str) -> pl.DataFrame:
    """The player's wagers in the filtered shoes as marts.wager_edges gives them (the same SELECT, over their
    wagers alone), with the coup's cards seen and the shoe's gaming day (null on a coup without edges); one
    read of core.bets serves the list and the best shoe."""
    shoes, params = f.shoes()
    # the edges are read only at the player's coups, found by their keys first: a join over every coup
    # would unpack each coup's twenty edges to keep a few hundred of them
    return query.frame(
        f"WITH mine AS MATERIALIZED (SELECT * FROM {schema.CORE_BETS} WHERE player_id = $player AND {shoes}), "
        f"found AS MATERIALIZED (SELECT e.rowid AS id FROM {schema.MARTS_COUP_EDGES} e "
        "SEMI JOIN mine USING (table_id, shoe_id, round_no)), "
        f"coups AS MATERIALIZED (SELECT * FROM {schema.MARTS_COUP_EDGES} WHERE rowid IN (SELECT id FROM found)) "
        f"SELECT {PLACED} FROM ({wager_edges_sql('mine', 'coups')}) w LEFT JOIN coups e "
        "USING (table_id, shoe_id, round_no) ORDER BY w.table_id, w.shoe_id, w.round_no, w.seat, w.bet",
        params | {"player": player_id},
    )


def shoes(f: filters.Filters) -> pl.DataFrame:
    """The filtered shoes of the house-banked games (every one has edges, its first coup's at least): table,
    shoe, day, game and coups, from marts.shoe_summary (a row a shoe, not a coup)."""
    where, params = f.where("shoe")
    return query.frame(
        f"SELECT table_id, shoe_id, gaming_day, game, coups FROM {schema.MARTS_SHOE_SUMMARY} "
        f"WHERE {where} AND list_contains($house, game) ORDER BY table_id, gaming_day, shoe_id",
        params | {"house": list(HOUSE_GAMES)},
    )


def best_shoe(wagers: pl.DataFrame, day=None, table_id: str | None = None) -> tuple[str, str] | None:
    """Among a player's `wagers` (as `wagers` gives them) on coups with edges, of `day` and at `table_id` when
    given, the shoe where they were worth most to the player (the largest sum of amount x player_edge): a
    flag's best evidence."""
    kept = wagers.filter(pl.col("gaming_day").is_not_null())
    if day is not None:
        kept = kept.filter(pl.col("gaming_day") == day)
    if table_id is not None:
        kept = kept.filter(pl.col("table_id") == table_id)
    worth = kept.group_by("table_id", "shoe_id").agg(pl.col("edge_worth").sum())
    ranked = worth.sort(["edge_worth", "table_id", "shoe_id"], descending=[True, False, False], nulls_last=True)
    return ranked.row(0)[:2] if ranked.height else None


def edges(table_id: str, shoe_id: str) -> pl.DataFrame:
    """The shoe's coups with edges: round_no, cards_seen, cards_left, best bet and each bet's PLAYER edge."""
    each = ", ".join(f"-edge_{bet} AS {bet}" for bet in BETS)
    return query.frame(
        f"SELECT round_no, cards_seen, cards_left, best_bet, best_edge, {each} FROM {schema.MARTS_COUP_EDGES} "
        "WHERE table_id = $table AND shoe_id = $shoe ORDER BY round_no",
        {"table": table_id, "shoe": shoe_id},
    )


def shoe_wagers(table_id: str, shoe_id: str) -> pl.DataFrame:
    """Every wager placed in the shoe, with its player edge (null on a coup without edges)."""
    return query.frame(
        "SELECT w.round_no, e.cards_seen, w.seat, w.player_id, w.bet, w.amount, w.player_edge, w.advantage, "
        f"w.amount * w.player_edge AS edge_worth, w.house_net FROM {schema.MARTS_WAGER_EDGES} w "
        f"LEFT JOIN {schema.MARTS_COUP_EDGES} e USING (table_id, shoe_id, round_no) "
        "WHERE w.table_id = $table AND w.shoe_id = $shoe ORDER BY w.round_no, w.seat, w.bet",
        {"table": table_id, "shoe": shoe_id},
    )
