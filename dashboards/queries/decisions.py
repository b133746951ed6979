"""The Decisions page's reads, from marts.decisions and marts.decision_summary as built: the totals, each
player's sums, the bank tenures' and the cost per cell, within the filters and the deciders chosen."""

from __future__ import annotations

import polars as pl

from dashboards import filters, query
from models.warehouse import schema

MARTS = (schema.MARTS_DECISIONS, schema.MARTS_DECISION_SUMMARY, schema.MARTS_DECISION_STYLES)
#: The deciders a page may keep: the punter (his draw or stand on 5), the bank (its optional draws).
DECIDERS = ("punter", "banker")
#: The chart's players: the most expected cost given up, at most this many.
CHARTED = 20
#: Bank tenures listed: the costliest first.
TENURES = 50
#: Per player and game, summed from the mart's rows; `expected_cost` is the mart's cost_money.
SUMS = (
    "count(DISTINCT gaming_day)::BIGINT AS days, sum(decisions)::BIGINT AS decisions, "
    "sum(deviations)::BIGINT AS deviations, sum(stake) AS stake, sum(cost_money) AS expected_cost"
)
TOTALS = (
    "SELECT sum(decisions)::BIGINT AS decisions, sum(deviations)::BIGINT AS deviations, "
    f"sum(cost_money) AS expected_cost FROM {schema.MARTS_DECISION_SUMMARY} "
    "WHERE list_contains($deciders, decider) AND {where}"
)
#: Where the equilibrium is filled and pure (draws with probability 0 or 1), whether the choice was its own.
EQUILIBRIUM = (
    "SELECT count(*) FILTER (equilibrium_draw IN (0, 1))::BIGINT AS pure, "
    "count(*) FILTER (equilibrium_draw = 1 AND choice = 'draw' OR equilibrium_draw = 0 AND choice = 'stand')"
    "::BIGINT AS followed, count(equilibrium_draw)::BIGINT AS rated "
    f"FROM {schema.MARTS_DECISIONS} WHERE list_contains($deciders, decider) AND {{where}}"
)
#: Each player's sums within the filters, beside the style that best fits all their decisions (all time).
PLAYERS = (
    f"SELECT * FROM (SELECT player_id, game, decider, {SUMS} FROM {schema.MARTS_DECISION_SUMMARY} "
    "WHERE player_id IS NOT NULL AND list_contains($deciders, decider) AND {where} GROUP BY ALL) "
    f"LEFT JOIN (SELECT game, decider, player_id, style, evidence FROM {schema.MARTS_DECISION_STYLES}) "
    "USING (game, decider, player_id) ORDER BY expected_cost DESC, deviations DESC, player_id, game, decider"
)
#: The cells (a decider's total against what he faced) whose choices gave up the most, at most this many.
CELLS_SHOWN = 15
CELLS = (
    "SELECT game, decider, total, facing, (CASE decider WHEN 'punter' THEN 'Punter' ELSE 'Banker' END) || ' on ' "
    "|| total || coalesce(' against ' || facing, '') AS cell, count(*)::BIGINT AS decisions, "
    "count(*) FILTER (cost > 0)::BIGINT AS deviations, sum(cost_money)::DOUBLE AS expected_cost "
    f"FROM {schema.MARTS_DECISIONS} WHERE list_contains($deciders, decider) AND {{where}} GROUP BY ALL "
    f"HAVING sum(cost_money) > 0 ORDER BY expected_cost DESC, game, cell LIMIT {CELLS_SHOWN}"
)
#: The style of a player with too few decisions to name one.
TOO_FEW = "too_few_decisions"
#: Players by the style that best fits their decisions, per game and decider (marts.decision_styles: all time).
STYLES = (
    f"SELECT game, decider, coalesce(style, '{TOO_FEW}') AS style, count(*)::BIGINT AS players, "
    f"sum(decisions)::BIGINT AS decisions FROM {schema.MARTS_DECISION_STYLES} "
    "WHERE list_contains($deciders, decider) AND {where} GROUP BY ALL ORDER BY game, decider, players DESC, style"
)
COSTLIEST = (
    "WITH per AS (SELECT player_id, decider, sum(cost_money)::DOUBLE AS expected_cost "
    f"FROM {schema.MARTS_DECISION_SUMMARY} WHERE player_id IS NOT NULL AND list_contains($deciders, decider) "
    "AND {where} GROUP BY ALL) SELECT * FROM per WHERE player_id IN (SELECT player_id FROM per GROUP BY 1 "
    f"ORDER BY sum(expected_cost) DESC, player_id LIMIT {CHARTED})"
)
BANKS = (
    "SELECT gaming_day, table_id, game, shoe_id, tenure, bank_holder, player_id, decisions::BIGINT AS decisions, "
    f"deviations::BIGINT AS deviations, stake, cost_money AS expected_cost FROM {schema.MARTS_DECISION_SUMMARY} "
    "WHERE decider = 'banker' AND {where} "
    f"ORDER BY expected_cost DESC, deviations DESC, gaming_day, table_id, shoe_id, tenure LIMIT {TENURES}"
)


def _frame(f: filters.Filters, sql: str, grain: filters.Grain, deciders: tuple[str, ...] = ()) -> pl.DataFrame:
    where, params = f.where(grain)
    return query.frame(sql.format(where=where), params | ({"deciders": list(deciders)} if deciders else {}))


def totals(f: filters.Filters, deciders: tuple[str, ...]) -> dict:
    """Decisions, deviations and expected cost in money of the filtered decisions of `deciders`."""
    return _frame(f, TOTALS, "table_day", deciders).row(0, named=True)


def equilibrium(f: filters.Filters, deciders: tuple[str, ...]) -> dict:
    """How many decisions have the equilibrium's probability (`rated`), how many a pure one, and how many of
    those made its choice (`followed`)."""
    return _frame(f, EQUILIBRIUM, "shoe", deciders).row(0, named=True)


def cells(f: filters.Filters, deciders: tuple[str, ...]) -> pl.DataFrame:
    """The CELLS_SHOWN cells whose choices gave up the most in money: decisions, deviations, expected cost."""
    return _frame(f, CELLS, "shoe", deciders)


def players(f: filters.Filters, deciders: tuple[str, ...]) -> pl.DataFrame:
    """Each named player's decisions per game and decider: days, decisions, deviations, stake and expected cost."""
    return _frame(f, PLAYERS, "table_day", deciders)


def costliest(f: filters.Filters, deciders: tuple[str, ...]) -> pl.DataFrame:
    """The CHARTED players whose choices gave up the most in money, their cost per decider."""
    return _frame(f, COSTLIEST, "table_day", deciders)


def styles(f: filters.Filters, deciders: tuple[str, ...]) -> pl.DataFrame:
    """Players per game, decider and best-fitting style, of the filtered games (the styles are all time)."""
    where = "list_contains($games, game)" if f.games else "TRUE"
    params = {"deciders": list(deciders)} | ({"games": list(f.games)} if f.games else {})
    return query.frame(STYLES.format(where=where), params)


def banks(f: filters.Filters) -> pl.DataFrame:
    """The TENURES bank tenures whose choices cost the most."""
    return _frame(f, BANKS, "table_day")
