"""Money metrics: commission revenue and hold against theoretical win, per table and gaming day."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

import polars as pl

from models.game.games import Game
from models.game.paytable import (
    CAGNOTTE_GAMES,
    DEFAULT_PAYTABLE,
    MAIN_BETS,
    NO_COMMISSION_GAMES,
    REDUCED_WINS,
    PayTable,
)
from models.metrics.theory import outcome_rates
from models.money_units import MONEY
from models.ratios import ratio, theo_over_handle, win_over_handle, win_vs_theo_z

#: The marts' column of what each no-commission game keeps through its reduced Banker wins.
REDUCTIONS = {"super6_reduction": Game.SUPER6, "ez_reduction": Game.EZ_BACCARAT}


@dataclass(frozen=True)
class Rounding:
    """How commission is collected: `exact`, or rounded `down`/`up` to a chip `unit` (0.25, 1, ...)."""

    policy: str = "exact"
    unit: Decimal = Decimal("0.25")

    def __post_init__(self) -> None:
        if self.policy not in ("exact", "down", "up"):
            raise ValueError(f"rounding policy is exact, down or up, got {self.policy!r}")
        object.__setattr__(self, "unit", Decimal(str(self.unit)))
        if self.unit <= 0:
            raise ValueError("the rounding unit must be positive")

    def apply(self, amount: pl.Expr) -> pl.Expr:
        if self.policy == "exact":
            return amount
        units = (amount.cast(pl.Float64) / float(self.unit)).round(9)
        whole = units.floor() if self.policy == "down" else units.ceil()
        return (whole.cast(pl.Int64).cast(pl.Decimal(18, 0)) * self.unit).cast(MONEY)


def reduced_win(game: Game) -> pl.Expr:
    """Whether a coup of core.rounds is a Banker win of `game` that it pays less than even money
    (`REDUCED_WINS`)."""
    won = (pl.col("game") == game.value) & (pl.col("outcome") == "B")
    return won & REDUCED_WINS[game].holds(pl.col("banker_total"), pl.col("banker_third").is_not_null())


def cagnotte() -> pl.Expr:
    """Whether a row's game levies the cagnotte rather than a commission (`CAGNOTTE_GAMES`)."""
    return pl.col("game").is_in([game.value for game in CAGNOTTE_GAMES])


def wagers(bets: pl.LazyFrame, rounds: pl.LazyFrame) -> pl.LazyFrame:
    """Each wager with the facts of its coup the money metrics need (join once, use for all)."""
    facts = rounds.select(
        "table_id", "shoe_id", "round_no", "gaming_day", "dealer_id", "decks", "outcome", "banker_total", "banker_third"
    )
    return bets.join(facts, on=["table_id", "shoe_id", "round_no"], how="inner")


def commission(
    placed: pl.LazyFrame,
    by: Sequence[str] = ("table_id", "gaming_day"),
    rounding: Rounding = Rounding(),
    table: PayTable = DEFAULT_PAYTABLE,
) -> pl.DataFrame:
    """Commission revenue per group: winning Banker wagers, commission under the rounding policy,
    what super6 and EZ Baccarat keep through their reduced payouts, the chemin_de_fer cagnotte, and
    the commission the exact odds expect from the Banker handle. `placed` is `wagers(bets, rounds)`."""
    return commission_totals(commission_sums(placed, by, rounding, table), by)


#: The sums `commission_sums` keeps per group; they pool exactly into any coarser grouping.
COMMISSION_SUMS = (
    "banker_handle", "banker_wagers", "banker_won", "banker_won_amount", "commission", "cagnotte", *REDUCTIONS,
    "expected_commission",
)  # fmt: skip


def commission_sums(
    placed: pl.LazyFrame,
    by: Sequence[str] = ("table_id", "gaming_day"),
    rounding: Rounding = Rounding(),
    table: PayTable = DEFAULT_PAYTABLE,
) -> pl.LazyFrame:
    """The wagers' sums behind `commission` per group and game, exact (reductions not yet rounded to
    the cent): one pass at the finest grouping serves every coarser one through `commission_totals`."""
    banker = placed.filter(pl.col("bet") == "banker")
    won = pl.col("outcome") == "B"
    # what each no-commission game keeps on its reduced wins, wager by wager
    kept = {
        name: pl.col("amount").filter(reduced_win(game)) * pl.lit(table.reduction(game))
        for name, game in REDUCTIONS.items()
    }
    # the exact Banker probability depends on the game and decks only: applied per group, not per wager
    rates = outcome_rates(table).lazy().select("game", "decks", "p_banker")
    return (
        banker.with_columns(collected=rounding.apply(pl.col("commission")))
        .group_by(*by, "game", "decks")
        .agg(
            banker_handle=pl.col("amount").sum(),
            banker_wagers=pl.len(),
            banker_won=won.sum(),
            banker_won_amount=pl.col("amount").filter(won).sum(),
            commission=pl.col("collected").filter(~cagnotte()).sum(),
            cagnotte=pl.col("collected").filter(cagnotte()).sum(),
            **{name: reduction.sum() for name, reduction in kept.items()},
        )
        .join(rates, on=["game", "decks"], how="left")
        .with_columns(
            expected_commission=pl.col("banker_handle").cast(pl.Float64) * pl.col("p_banker") * float(table.commission)
        )
        .drop("decks", "p_banker")
    )


def commission_totals(sums: pl.LazyFrame, by: Sequence[str]) -> pl.DataFrame:
    """`commission_sums` (of `by` or any finer grouping) totalled per `by` and game."""
    return (
        sums.group_by(*by, "game")
        .agg(pl.col(COMMISSION_SUMS).sum())
        .with_columns(
            pl.col("banker_wagers", "banker_won").cast(pl.UInt32),
            pl.col(*REDUCTIONS).cast(MONEY),
            pl.when(pl.col("game").is_in([game.value for game in NO_COMMISSION_GAMES]))
            .then(0.0)
            .otherwise(pl.col("expected_commission"))
            .alias("expected_commission"),
        )
        .sort(*by, "game")
        .collect()
    )


def commission_per_unit(
    rounds: pl.LazyFrame, by: Sequence[str] = ("table_id", "gaming_day"), table: PayTable = DEFAULT_PAYTABLE
) -> pl.DataFrame:
    """Without bets: the commission one unit staked on Banker every coup would have paid, and theory's."""
    rate = float(table.commission)
    return (
        rounds.join(outcome_rates(table).lazy().select("game", "decks", "p_banker"), on=["game", "decks"], how="left")
        .group_by(*by, "game")
        .agg(coups=pl.len(), banker_wins=(pl.col("outcome") == "B").sum(), expected=(pl.col("p_banker") * rate).sum())
        .with_columns(commission_per_unit=pl.col("banker_wins") * rate)
        .sort(*by, "game")
        .collect()
    )


def table_day(
    placed: pl.LazyFrame, variance: pl.DataFrame, by: Sequence[str] = ("table_id", "gaming_day")
) -> pl.DataFrame:
    """Handle by bet, house win, theoretical win, hold, and the z-score of win against theo from each
    wager's exact variance (`variance`: game, decks, bet -> the house's variance per unit staked).
    `placed` is `wagers(bets, rounds)`."""
    return table_day_totals(table_day_sums(placed, variance, by), by)


#: The sums `table_day_sums` keeps per group; they pool exactly into any coarser grouping.
TABLE_DAY_SUMS = (
    "wagers",
    "handle",
    *(f"handle_{bet}" for bet in MAIN_BETS),
    "handle_side",
    "house_win",
    "theo",
    "win_variance",
)


def table_day_sums(
    placed: pl.LazyFrame, variance: pl.DataFrame, by: Sequence[str] = ("table_id", "gaming_day")
) -> pl.LazyFrame:
    """The wagers' sums behind `table_day` per group and game: one pass at the finest grouping serves
    every coarser one through `table_day_totals`."""
    with_variance = placed.join(variance.lazy(), on=["game", "decks", "bet"], how="left")
    side = ~pl.col("bet").is_in(MAIN_BETS)
    return with_variance.group_by(*by, "game").agg(
        wagers=pl.len(),
        handle=pl.col("amount").sum(),
        **{f"handle_{bet}": pl.col("amount").filter(pl.col("bet") == bet).sum() for bet in MAIN_BETS},
        handle_side=pl.col("amount").filter(side).sum(),
        house_win=pl.col("house_net").sum(),
        theo=pl.col("theo").sum(),
        win_variance=(pl.col("amount").cast(pl.Float64) ** 2 * pl.col("house_variance")).sum(),
    )


def table_day_totals(sums: pl.LazyFrame, by: Sequence[str]) -> pl.DataFrame:
    """`table_day_sums` (of `by` or any finer grouping) totalled per `by` and game, with hold (`hold_pct`,
    `win_over_handle`), `theo_over_handle` and z."""
    return (
        sums.group_by(*by, "game")
        .agg(pl.col(TABLE_DAY_SUMS).sum())
        .with_columns(
            pl.col("wagers").cast(pl.UInt32),
            hold_pct=ratio("house_win", "handle") * 100,  # win_over_handle x 100, for queries written against it
            win_vs_theo_z=win_vs_theo_z(),
        )
        .with_columns(win_over_handle(), theo_over_handle())
        .sort(*by, "game")
        .collect()
    )
