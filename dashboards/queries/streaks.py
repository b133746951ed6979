"""The Banker-pass streaks page's reads: tenures counted by length, the longest, the monthly fit and how a
chemin_de_fer bank grows while it is held."""

from __future__ import annotations

import polars as pl

from dashboards import filters
from models.metrics.streaks import BY_RULE
from models.warehouse import schema

#: The tenures whose length is a streak: not those of a game whose bank passes by rule.
BY_CHANCE = "game NOT IN ({})".format(", ".join(f"'{game}'" for game in BY_RULE))

COUNTS = (
    "SELECT game, decks, decided::BIGINT AS decided, ended_by = 'pass' AS passed, count(*) AS tenures "
    f"FROM {schema.MARTS_BANKER_STREAKS} WHERE {{where}} GROUP BY ALL"
)
LONGEST = (
    "SELECT table_id, shoe_id, game, holder, first_round, last_round, decided, coups, ties, ended_by, gaming_day "
    f"FROM {schema.MARTS_BANKER_STREAKS} WHERE {BY_CHANCE} AND {{where}} ORDER BY decided DESC, coups DESC LIMIT 20"
)
FIT = f"SELECT * FROM {schema.MARTS_TENURE_FIT} WHERE {{where}} ORDER BY p_value NULLS LAST, table_id"
GROWTH = (
    "SELECT least(decided, 10) AS decided, count(*) AS tenures, avg(bank_last / bank_first)::DOUBLE AS growth, "
    f"median(bank_max)::DOUBLE AS median_bank_max, sum(levy) AS levy FROM {schema.MARTS_BANKER_STREAKS} "
    "WHERE game = 'chemin_de_fer' AND bank_first > 0 AND {where} GROUP BY 1 ORDER BY 1"
)


def counts(f: filters.Filters) -> pl.DataFrame:
    """Tenures of the filtered shoes by game, decks, decided coups held and whether they passed."""
    return f.frame(COUNTS, "shoe")


def longest(f: filters.Filters) -> pl.DataFrame:
    """The 20 longest tenures of the filtered shoes, of the games where chance ends a tenure."""
    return f.frame(LONGEST, "shoe")


def fit(f: filters.Filters) -> pl.DataFrame:
    """The tenure fit per table, game and month of the filtered months."""
    return f.frame(FIT, "month")


def growth(f: filters.Filters) -> pl.DataFrame:
    """chemin_de_fer banks by decided coups held (10 pooling 10 or more): the last bank over the first."""
    return f.frame(GROWTH, "shoe")
