"""Banker-pass streaks (bank tenures) and runs of decisions, beside the geometric theory."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl
from scipy import stats

from models.game.bank import bank_passes_expr
from models.game.games import Game
from models.metrics.expectation import tenure_hazard
from models.metrics.theory import outcome_rates

SHOE = ["table_id", "shoe_id"]
#: Whether a coup passes the bank, by game, when the log does not say who holds it (docs/metrics.md).
PASSES = bank_passes_expr(pl.col("game"), pl.col("outcome"))
#: The games whose bank passes by rule (`Game.passes_by_rule`): left out of the fit and the longest tenures.
BY_RULE = tuple(game.value for game in Game if game.passes_by_rule)
#: Whether a tenure's game lets chance end it: the tenures whose length is a streak.
BY_CHANCE = ~pl.col("game").cast(pl.String).is_in(BY_RULE)


#: What every span (tenure or run) takes from its first row: its shoe and the shoe's game.
_SHOE_FACTS = {name: pl.col(name) for name in ("_shoe", "table_id", "shoe_id", "game", "decks")}


def bank_tenures(rounds: pl.LazyFrame, in_order: bool = False) -> pl.LazyFrame:
    """One row per bank tenure: a maximal run of coups at a table with one holder.

    A tenure ends when the game's passing rule passes the bank, and, where the log names the holder
    (`bank_holder`), when the holder changes without such a pass (a withdrawal). Ties never pass.
    A tenure cut by the end of its shoe is `shoe_end` (censored). `in_order`: the rows already hold
    each shoe's coups together by round_no (saves a sort).
    """
    ordered, start = _tenure_starts(rounds, in_order)
    tenures = _spans(
        ordered.with_columns(_ties=pl.col("_tie").cum_sum()),
        start,
        first={
            **_SHOE_FACTS,
            "_holder": pl.col("bank_holder"),
            "observed": pl.col("_observed"),
            "first_round": pl.col("round_no"),
            "_ties_before": pl.col("_ties") - pl.col("_tie").cast(pl.UInt32),
            "started_at": pl.col("started_at"),
            "gaming_day": pl.col("shoe_day"),
        },
        last={"last_round": pl.col("round_no"), "_last_passes": pl.col("_passes"), "_ties_through": pl.col("_ties")},
    ).with_columns(coups=pl.col("_rows"), ties=(pl.col("_ties_through") - pl.col("_ties_before")).cast(pl.UInt32))
    last_in_shoe = (pl.col("_shoe") != pl.col("_shoe").shift(-1)).fill_null(True)
    leading = [*SHOE, "tenure", "game", "decks", "holder"]  # the mart's column order
    return (
        _numbered(tenures, "tenure", pl.Int32)
        .with_columns(
            holder=pl.when(pl.col("observed"))
            .then(pl.col("_holder"))
            .otherwise(pl.format("derived {}", pl.col("tenure"))),
            decided=pl.col("coups") - pl.col("ties"),
            ended_by=pl.when(last_in_shoe)
            .then(pl.lit("shoe_end"))
            .when(pl.col("_last_passes") | ~pl.col("observed"))
            .then(pl.lit("pass"))
            .otherwise(pl.lit("withdraw")),
        )
        .select(*leading, *TENURE_FACTS)
    )


def _tenure_starts(rounds: pl.LazyFrame, in_order: bool) -> tuple[pl.LazyFrame, pl.Expr]:
    """The rounds in shoe order with `_observed`, `_passes` and `_tie`, and where a tenure starts."""
    ordered = _in_shoe_order(rounds, in_order).with_columns(
        _observed=pl.col("bank_holder").is_not_null().all().over("_shoe"),
        _passes=PASSES,
        _tie=pl.col("outcome") == "T",
    )
    changed = pl.col("bank_holder") != _previous("bank_holder")
    # the rule's passes always start a tenure (a lone player may take the shoe straight back);
    # with observed holders, a change of holder without one is a withdrawal
    return ordered, (_previous("_passes") | (pl.col("_observed") & changed)).fill_null(True)


def coup_tenures(rounds: pl.LazyFrame, in_order: bool = False) -> pl.LazyFrame:
    """Each coup's bank tenure, numbered in its shoe as `bank_tenures` numbers them: the rounds'
    table_id, shoe_id and round_no, with `tenure`. `in_order`: as `bank_tenures`'."""
    ordered, start = _tenure_starts(rounds, in_order)
    begins = (start | pl.col("_first")).cast(pl.Int32)
    return ordered.select(*SHOE, "round_no", tenure=begins.cum_sum().over("_shoe").cast(pl.Int32))


#: The tenure mart's columns after its leading ones, in the contract's order.
TENURE_FACTS = (
    "observed", "first_round", "last_round", "coups", "ties", "started_at", "gaming_day", "decided", "ended_by"
)  # fmt: skip


def _in_shoe_order(rounds: pl.LazyFrame, in_order: bool = False) -> pl.LazyFrame:
    """Rounds sorted by shoe and round (unless `in_order`), with `_first` (a shoe's first row) and
    `_shoe`, a shoe number counted along the rows (windows over a number are much cheaper than over
    two text columns)."""
    ordered = rounds if in_order else rounds.sort(*SHOE, "round_no")
    new_shoe = (pl.col("table_id") != pl.col("table_id").shift(1)) | (pl.col("shoe_id") != pl.col("shoe_id").shift(1))
    return ordered.with_columns(_first=new_shoe.fill_null(True)).with_columns(
        _shoe=pl.col("_first").cast(pl.Int32).cum_sum().set_sorted()
    )


def _previous(column: str) -> pl.Expr:
    """The column's value on the shoe's previous row (null on its first)."""
    return pl.when(~pl.col("_first")).then(pl.col(column).shift(1))


def _spans(ordered: pl.LazyFrame, start: pl.Expr, first: dict[str, pl.Expr], last: dict[str, pl.Expr]) -> pl.LazyFrame:
    """One row per span of the sorted rows, each beginning where `start` holds (and at every shoe's
    first row): the `first` expressions read on its first row, the `last` ones on its last, `_rows`
    (its length) and `_span` (a number counting the spans along the rows). Spans are read off the
    rows where they begin and end, which is several times cheaper than grouping the rows."""
    marked = ordered.with_columns(_begins=start | pl.col("_first")).with_columns(
        _span=pl.col("_begins").cast(pl.Int32).cum_sum(), _row=pl.int_range(pl.len(), dtype=pl.Int64)
    )
    heads = marked.filter(pl.col("_begins")).select("_span", "_row", **first)
    tails = marked.filter(pl.col("_begins").shift(-1).fill_null(True)).select(_end=pl.col("_row"), **last)
    return pl.concat([heads, tails], how="horizontal").with_columns(
        _rows=(pl.col("_end") - pl.col("_row") + 1).cast(pl.UInt32)
    )


def _numbered(spans: pl.LazyFrame, name: str, dtype: pl.DataType) -> pl.LazyFrame:
    """Number each shoe's spans from 1, in order (`spans` holds `_span` and `_shoe`, in span order)."""
    first = (pl.col("_shoe") != pl.col("_shoe").shift(1)).fill_null(True)
    return spans.with_columns(
        (pl.col("_span") - pl.when(first).then(pl.col("_span")).forward_fill() + 1).cast(dtype).alias(name)
    )


def decision_runs(rounds: pl.LazyFrame, in_order: bool = False) -> pl.LazyFrame:
    """Runs of consecutive Banker or Player decisions in each shoe (ties neither break nor extend them).
    `in_order`: the rows already hold each shoe's coups together by round_no (saves a sort)."""
    decided = _in_shoe_order(rounds.filter(pl.col("outcome") != "T"), in_order)
    runs = _spans(
        decided,
        (pl.col("outcome") != _previous("outcome")).fill_null(True),
        first={
            **_SHOE_FACTS,
            "gaming_day": pl.col("shoe_day"),
            "side": pl.col("outcome"),
        },
        last={},
    ).with_columns(length=pl.col("_rows"))
    return _numbered(runs, "run", pl.UInt32).select(*SHOE, "run", "game", "decks", "gaming_day", "side", "length")


def tenure_fit(tenures: pl.DataFrame, by: Sequence[str], longest: int = 8) -> pl.DataFrame:
    """Tenures against the geometric law with the exact keep probability q, censoring included.

    In theory every decided coup a bank holds ends its tenure with probability 1 - q, whatever came
    before. `tenure_hazard` counts, for each length k (pooling k >= `longest`), the tenures at risk
    and the passes; the chi-square sums (passes - at_risk (1 - q))^2 / (at_risk q (1 - q)) over the
    lengths with more than 5 passes expected. Tenures cut by the shoe's end count while they last,
    so the test is not biased towards short tenures. Games whose bank passes by rule (`BY_RULE`) have no
    law to test and are left out.
    """
    by = list(by)
    keys = list(dict.fromkeys([*by, "game", "decks", "decided", "passed"]))
    # text keys as categoricals while grouping: millions of tenures group several times faster so
    text = [name for name in keys if tenures.schema.get(name) == pl.String]
    held = tenures.filter(pl.col("decided") >= 1, BY_CHANCE).with_columns(
        pl.col(text).cast(pl.Categorical),
        pl.col("decks").cast(pl.Int8),
        pl.col("decided").cast(pl.Int64),
        passed=pl.col("ended_by") == "pass",
    )
    as_text = pl.col(text).cast(pl.String)
    counts = held.group_by(keys).agg(tenures=pl.len()).with_columns(as_text)
    rates = outcome_rates().select("game", "decks", "p_keep").with_columns(pl.col("game").cast(held.schema["game"]))
    groups = (
        held.join(rates, on=["game", "decks"], how="left")
        .group_by(by, maintain_order=True)
        .agg(
            tenures=pl.len().cast(pl.Int64),
            completed=pl.col("passed").sum().cast(pl.Int64),
            pass_rate=pl.col("passed").sum() / pl.col("decided").sum(),
            q=pl.col("p_keep").mean(),
        )
        .with_columns(pl.col(name).cast(pl.String) for name in text if name in by)
    )
    hazard = tenure_hazard(counts, by, longest).join(groups.select(*by, "q"), on=by)
    usable = hazard.filter(pl.col("expected_passes") > 5)
    tests = usable.group_by(by).agg(
        chi2=((pl.col("passes") - pl.col("expected_passes")) ** 2 / (pl.col("expected_passes") * pl.col("q"))).sum(),
        dof=pl.len().cast(pl.Int64),
    )
    fit = groups.join(tests, on=by, how="left", maintain_order="left").with_columns(
        pl.col("chi2").fill_null(0.0), pl.col("dof").fill_null(0)
    )
    p_value = np.where(fit["dof"].to_numpy() > 0, stats.chi2.sf(fit["chi2"].to_numpy(), fit["dof"].to_numpy()), np.nan)
    return fit.select(
        *by, "tenures", "completed", "pass_rate", (1 - pl.col("q")).alias("expected_pass_rate"), "q", "chi2", "dof",
        p_value=pl.Series(p_value, dtype=pl.Float64),
    )  # fmt: skip


def chemin_bank(tenures: pl.LazyFrame, bets: pl.LazyFrame) -> pl.LazyFrame:
    """Chemin de fer tenures with the bank's size as it rode (the covered Banker wager of each coup:
    first, last and largest) and the levy the house took from it."""
    banker = bets.filter((pl.col("game") == "chemin_de_fer") & (pl.col("bet") == "banker")).select(
        *SHOE, "round_no", bank=pl.col("amount"), levy=pl.col("commission")
    )
    spans = tenures.filter(pl.col("game") == "chemin_de_fer").select(*SHOE, "tenure", "first_round", "last_round")
    return (
        banker.join(spans, on=SHOE)
        .filter(pl.col("round_no").is_between(pl.col("first_round"), pl.col("last_round")))
        .sort(*SHOE, "round_no")
        .group_by(*SHOE, "tenure")
        .agg(
            bank_first=pl.col("bank").first(),
            bank_last=pl.col("bank").last(),
            bank_max=pl.col("bank").max(),
            levy=pl.col("levy").sum(),
        )
    )


def with_banks(tenures: pl.DataFrame, bets: pl.DataFrame) -> pl.DataFrame:
    """The tenures with `chemin_bank`'s columns (null but on chemin de fer tenures)."""
    # only chemin de fer tenures ride a bank: without one, no wager is looked at and nothing joined
    riding = (tenures["game"] == "chemin_de_fer").any()
    banks = chemin_bank(tenures.lazy(), (bets if riding else bets.clear()).lazy()).collect()
    if banks.height:
        return tenures.join(banks, on=[*SHOE, "tenure"], how="left")
    return tenures.with_columns(
        pl.lit(None, dtype).alias(name) for name, dtype in banks.schema.items() if name not in tenures.columns
    )
