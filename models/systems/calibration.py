"""Whether a pattern's "prediction" wins more often than chance: every pattern and called side over
shoes' ordered outcomes, against the exact share of decided coups that side wins, with an exact
binomial p-value and a Benjamini-Hochberg q-value over the rows."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import altair as alt
import polars as pl
from scipy import stats

from models.metrics.theory import outcome_rates
from models.metrics.ties import q_values
from models.systems.patterns import ASK_ROADS, PATTERNS, calls

SIDES = {"B": "Banker", "P": "Player"}
#: Without a game and deck count, calls are rated at the house's default shoe.
DEFAULT_GAME, DEFAULT_DECKS = "punto_banco", 8
SCHEMA = {
    "pattern": pl.String,
    "road": pl.String,
    "side": pl.String,
    "calls": pl.Int64,
    "wins": pl.Int64,
    "ties": pl.Int64,
    "win_rate": pl.Float64,
    "expected_rate": pl.Float64,
    "z": pl.Float64,
    "p_value": pl.Float64,
    "q_value": pl.Float64,
    "ci_low": pl.Float64,
    "ci_high": pl.Float64,
}


def shoe_outcomes(shoes: pl.DataFrame | Sequence[Sequence[str]]) -> pl.DataFrame:
    """One row per shoe: its outcomes in order (a list), game and decks, from coups (table_id, shoe_id,
    round_no, outcome, and game and decks when known), from shoes (a list column `outcomes`, and game
    and decks when known) or from lists of outcomes."""
    if not isinstance(shoes, pl.DataFrame):
        return pl.DataFrame(
            {"outcomes": [list(shoe) for shoe in shoes]}, schema={"outcomes": pl.List(pl.String)}
        ).with_columns(game=pl.lit(DEFAULT_GAME), decks=pl.lit(DEFAULT_DECKS, pl.Int8))
    defaults = {"game": DEFAULT_GAME, "decks": DEFAULT_DECKS}
    if "outcomes" in shoes.columns:
        given = [pl.col(c) if c in shoes.columns else pl.lit(d).alias(c) for c, d in defaults.items()]
        return shoes.select("outcomes", *given).with_columns(pl.col("decks").cast(pl.Int8))
    known = [pl.col(c).first() if c in shoes.columns else pl.lit(d).alias(c) for c, d in defaults.items()]
    return (
        shoes.sort("table_id", "shoe_id", "round_no")
        .group_by("table_id", "shoe_id", maintain_order=True)
        .agg(pl.col("outcome").alias("outcomes"), *known)
        .with_columns(pl.col("decks").cast(pl.Int8))
    )


def counts(shoes: pl.DataFrame | Sequence[Sequence[str]]) -> pl.DataFrame:
    """Calls, wins and ties of every pattern and called side per game and decks: a call is what a
    pattern backed before a coup; a tie after it is neither won nor lost."""
    tally: Counter[tuple[str, str, str, int, str]] = Counter()
    for outcomes, game, decks in shoe_outcomes(shoes).select("outcomes", "game", "decks").iter_rows():
        for pattern in PATTERNS:
            for side, outcome in zip(calls(pattern, outcomes), outcomes, strict=True):
                if side is not None:
                    result = "ties" if outcome == "T" else "wins" if outcome == side else "losses"
                    tally[pattern, side, game, decks, result] += 1
    rows = [(*key, n) for key, n in tally.items()]
    schema = {
        "pattern": pl.String,
        "side": pl.String,
        "game": pl.String,
        "decks": pl.Int8,
        "result": pl.String,
        "n": pl.Int64,
    }
    frame = pl.DataFrame(rows, schema=schema, orient="row")
    return (
        frame.pivot("result", index=["pattern", "side", "game", "decks"], values="n", aggregate_function="sum")
        .with_columns(*(pl.lit(0, pl.Int64).alias(c) for c in ("wins", "losses", "ties") if c not in frame["result"]))
        .fill_null(0)
        .select("pattern", "side", "game", "decks", calls=pl.col("wins") + pl.col("losses"), wins="wins", ties="ties")
    )


def calibration(
    shoes: pl.DataFrame | Sequence[Sequence[str]], p_banker: float | None = None, p_player: float | None = None
) -> pl.DataFrame:
    """One row per pattern (its road for the ask patterns) and called side: calls (decided coups
    called), wins, ties called, win_rate, expected_rate (the exact P(side) / (P(B) + P(P)), of each
    call's game and decks unless `p_banker` and `p_player` are given), z, exact two-sided binomial
    p_value, its Benjamini-Hochberg q_value over the rows, and the exact 95 % interval of win_rate.

    Over several shoe types expected_rate is the mean of the calls' rates; the binomial test at that
    mean is then slightly conservative (a mix of rates varies less than one rate)."""
    tallied = counts(shoes)
    if p_banker is not None and p_player is not None:
        rates = tallied.with_columns(p_banker=pl.lit(p_banker), p_player=pl.lit(p_player))
    else:
        rates = tallied.join(outcome_rates().select("game", "decks", "p_banker", "p_player"), on=["game", "decks"])
    share = pl.when(pl.col("side") == "B").then(pl.col("p_banker")).otherwise(pl.col("p_player"))
    grouped = (
        rates.with_columns(expected=pl.col("calls") * share / (pl.col("p_banker") + pl.col("p_player")))
        .group_by("pattern", "side")
        .agg(pl.col("calls", "wins", "ties").sum(), pl.col("expected").sum())
        .filter(pl.col("calls") + pl.col("ties") > 0)
    )
    rows = []
    for row in grouped.iter_rows(named=True):
        n, k = row["calls"], row["wins"]
        p = row["expected"] / n if n else None
        tested = stats.binomtest(k, n, p) if n else None
        interval = tested.proportion_ci(0.95, method="exact") if tested else None
        rows.append(
            {
                "pattern": row["pattern"],
                "road": ASK_ROADS.get(row["pattern"]),
                "side": row["side"],
                "calls": n,
                "wins": k,
                "ties": row["ties"],
                "win_rate": k / n if n else None,
                "expected_rate": p,
                "z": (k - n * p) / (n * p * (1 - p)) ** 0.5 if n else None,
                "p_value": tested.pvalue if tested else None,
                "q_value": None,
                "ci_low": interval.low if interval else None,
                "ci_high": interval.high if interval else None,
            }
        )
    order = {pattern: i for i, pattern in enumerate(PATTERNS)}
    frame = pl.DataFrame(rows, schema=SCHEMA).sort(pl.col("pattern").replace_strict(order, default=99), "side")
    return frame.with_columns(q_value=q_values(frame["p_value"]))


def pooled(calibrated: pl.DataFrame) -> pl.DataFrame:
    """Each pattern with its called sides together: calls, wins, ties, win_rate and the expected rate
    for that mix of Banker and Player calls (what a player betting every call would see)."""
    return (
        calibrated.group_by("pattern", "road", maintain_order=True)
        .agg(
            pl.col("calls", "wins", "ties").sum(),
            expected_rate=(pl.col("calls") * pl.col("expected_rate")).sum() / pl.col("calls").sum(),
        )
        .with_columns(win_rate=pl.col("wins") / pl.col("calls"))
    )


def points(calibrated: pl.DataFrame) -> pl.DataFrame:
    """The rows ready to plot: a label per pattern and side, the win rate with its interval and the
    rate chance gives."""
    label = pl.col("pattern") + pl.lit(" · ") + pl.col("side").replace_strict(SIDES)
    return calibrated.filter(pl.col("calls") > 0).select(
        label.alias("label"), "pattern", "side", "calls", "win_rate", "ci_low", "ci_high", "expected_rate", "q_value"
    )


def chart(
    calibrated: pl.DataFrame, title: str = "Does any pattern's call win more often than chance?"
) -> alt.LayerChart:
    """Each pattern and side's win rate with its exact 95 % interval, beside the exact rate (a tick)."""
    data = points(calibrated)
    y = alt.Y("label:N", title="Pattern: side called", sort=None)
    rule = (
        alt.Chart(data)
        .mark_rule(color="#2c3e50")
        .encode(
            x=alt.X(
                "ci_low:Q",
                title="Share of decided coups won (%)",
                axis=alt.Axis(format=".1%"),
                scale=alt.Scale(zero=False),
            ),
            x2="ci_high:Q",
            y=y,
        )
    )
    won = (
        alt.Chart(data)
        .mark_point(filled=True, size=60)
        .encode(
            x="win_rate:Q",
            y=y,
            color=alt.Color("side:N", scale=alt.Scale(domain=["B", "P"], range=["#c0392b", "#2f6db5"]), legend=None),
            tooltip=[
                "label",
                "calls",
                alt.Tooltip("win_rate:Q", format=".2%"),
                alt.Tooltip("expected_rate:Q", format=".2%"),
                alt.Tooltip("q_value:Q", format=".3f"),
            ],
        )
    )
    chance = alt.Chart(data).mark_tick(color="#7f8c8d", thickness=2, size=18).encode(x="expected_rate:Q", y=y)
    return alt.layer(rule, chance, won, title=title).properties(width=520)
