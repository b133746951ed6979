"""Settlement and theoretical win for wagers in bulk, from the one pay-table module.

The settlement grid (`models.game.paytable.settlement_grid`) becomes lookup frames keyed by game, bet,
coup cell and pair flag; rounds logged without cards settle only the bets their outcome decides.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import polars as pl

from models.game.cells import CELL_OUTCOMES, CELLS, cell_expr
from models.game.games import Game
from models.game.outcome import settled_on_natural_expr
from models.game.paytable import BETS, PayTable, settlement_grid
from models.game.shoe import MAX_DECKS, Composition
from models.money_units import MONEY, THEO, THEO_SUM
from models.odds.exact import exact_odds

#: The facts of its round a bet is settled by (`settle` reads them beside the bet), from the columns
#: of core.rounds or of checked rounds: the ingest, the simulator and the tests select these.
SETTLED_BY = (
    pl.col("game"),
    pl.col("decks").cast(pl.Int64),
    pl.col("outcome"),
    pl.col("outcome2"),
    pl.col("has_cards"),
    pl.col("player_total"),
    pl.col("banker_total"),
    pl.col("player2_total"),
    pl.col("player_third").is_not_null().alias("player_drew"),
    pl.col("banker_third").is_not_null().alias("banker_drew"),
    # the banker's first two cards: what a Banque hand's natural is settled against
    pl.when(pl.col("banker_third").is_null())
    .then(pl.col("banker_total"))
    .otherwise((pl.col("banker_total") - pl.col("banker_third") + 10) % 10)
    .alias("banker_two"),
    pl.col("player_pair"),
    pl.col("banker_pair"),
    (pl.col("player2_cards").str.split(" ").list.len() == 3).alias("player2_drew"),
)
#: The games where a player holds the bank: the house takes only a commission on the wagers.
PLAYER_BANKED = tuple(game.value for game in Game if game.player_banked)
#: The rounds' columns those facts are read from.
SETTLED_BY_COLUMNS = tuple(dict.fromkeys(name for fact in SETTLED_BY for name in fact.meta.root_names()))


@lru_cache(maxsize=8)
def by_cell(table: PayTable) -> pl.DataFrame:
    """(game, bet, cell, pair) -> net and commission per unit staked."""
    frames = []
    for game in Game:
        net, commission = settlement_grid(game, table)
        index = np.indices(net.shape).reshape(3, -1)
        frames.append(
            pl.DataFrame(
                {
                    "game": game.value,
                    "bet": np.array(BETS)[index[0]],
                    "cell": index[1].astype(np.int16),
                    "pair": index[2].astype(bool),
                    "net_unit": [str(v) for v in net.ravel()],
                    "commission_unit": [str(v) for v in commission.ravel()],
                }
            )
        )
    return pl.concat(frames).with_columns(pl.col("net_unit", "commission_unit").cast(MONEY))


@lru_cache(maxsize=8)
def by_outcome(table: PayTable) -> pl.DataFrame:
    """(game, bet, outcome) -> net and commission per unit, where the outcome alone decides them."""
    rows = []
    for game in Game:
        net, commission = settlement_grid(game, table)
        for b, bet in enumerate(BETS):
            for outcome in "BPT":
                cells = outcome == CELL_OUTCOMES
                nets = set(net[b, cells].ravel())
                commissions = set(commission[b, cells].ravel())
                if len(nets) == 1 and len(commissions) == 1:
                    rows.append((game.value, bet, outcome, str(nets.pop()), str(commissions.pop())))
    schema = {
        "game": pl.String,
        "bet": pl.String,
        "outcome": pl.String,
        "net_unit": pl.String,
        "commission_unit": pl.String,
    }
    return pl.DataFrame(rows, schema=schema, orient="row").with_columns(
        pl.col("net_unit", "commission_unit").cast(MONEY)
    )


@lru_cache(maxsize=8)
def by_net(table: PayTable) -> pl.DataFrame:
    """(game, bet, net_unit) -> commission per unit, where a wager's net alone decides it: what the house
    took on a wager whose logged payout is known but not its cards."""
    cells = by_cell(table).select("game", "bet", "net_unit", "commission_unit").unique()
    return cells.filter(pl.len().over("game", "bet", "net_unit") == 1).sort("game", "bet", "net_unit")


@lru_cache(maxsize=8)
def house_expectation(table: PayTable) -> pl.DataFrame:
    """(game, decks, bet) -> the house's expected result per unit staked, and its variance, from the
    exact odds. House-banked games: the bet's house edge. Player-banked games: the expected commission.
    """
    rows = []
    for game in Game:
        _, commission = settlement_grid(game, table)
        for decks in range(1, MAX_DECKS + 1):
            odds = exact_odds(Composition.full(decks), game)
            bets = odds.bets(table)
            cells = odds.cells.reshape(CELLS)  # C order: by `cell_index`
            for b, bet in enumerate(BETS):
                if game.player_banked:
                    levy = commission[b, :, 0].astype(float)
                    mean = float(cells @ levy)
                    value, variance = mean, float(cells @ levy**2) - mean**2
                else:
                    value, variance = bets[bet].edge, bets[bet].variance
                rows.append((game.value, decks, bet, value, variance))
    schema = {"game": pl.String, "decks": pl.Int64, "bet": pl.String, "edge": pl.Float64, "house_variance": pl.Float64}
    return pl.DataFrame(rows, schema=schema, orient="row")


def settle(placed: pl.DataFrame, table: PayTable) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(settled, mismatched) for bets joined with their rounds' columns: each bet's `house_net`,
    `commission` and `theo` from the pay table, and the bets quarantined with their reason (a
    payout the pay table does not give, a side on a one-hand game, an amount too large)."""
    second = pl.col("side") == 2
    player = pl.when(second).then(pl.col("player2_total")).otherwise(pl.col("player_total"))
    drew = pl.when(second).then(pl.col("player2_drew")).otherwise(pl.col("player_drew")).fill_null(False)
    # a hand's natural is settled against the banker's first two cards, before he draws (Banque)
    natural = settled_on_natural_expr(player, drew)
    placed = placed.with_columns(
        cell=cell_expr(
            player,
            pl.when(natural).then(pl.col("banker_two")).otherwise(pl.col("banker_total")),
            drew,
            pl.col("banker_drew") & ~natural,
        ),
        pair=pl.when(pl.col("bet") == "player_pair").then(pl.col("player_pair"))
        .when(pl.col("bet") == "banker_pair").then(pl.col("banker_pair")).otherwise(False),
        _outcome=pl.when(second).then(pl.col("outcome2")).otherwise(pl.col("outcome")),
    )  # fmt: skip
    cells = by_cell(table)
    outcomes = by_outcome(table).rename({"outcome": "_outcome", "net_unit": "_net_o", "commission_unit": "_com_o"})
    placed = (
        placed.join(cells, on=["game", "bet", "cell", "pair"], how="left")
        .join(outcomes, on=["game", "bet", "_outcome"], how="left")
        .join(house_expectation(table), on=["game", "decks", "bet"], how="left")
        .with_columns(
            net_unit=pl.when(pl.col("has_cards")).then(pl.col("net_unit")).otherwise(pl.col("_net_o")),
            commission_unit=pl.when(pl.col("has_cards")).then(pl.col("commission_unit")).otherwise(pl.col("_com_o")),
        )
        .with_columns(  # null where the figure would not fit its decimals: see `too_large`
            _expected=(pl.col("net_unit") * pl.col("amount")).cast(MONEY, strict=False),
            commission=(pl.col("commission_unit") * pl.col("amount")).cast(MONEY, strict=False),
            # through a wide decimal: a float too large for THEO raises even without `strict`
            theo=(pl.col("amount").cast(pl.Float64) * pl.col("edge")).cast(THEO_SUM).cast(THEO, strict=False),
        )
    )
    two_hands = [game.value for game in Game if game.second_player_hand]
    stray_side = pl.col("side").is_not_null() & ~pl.col("game").is_in(two_hands)
    # an amount whose figures do not fit their decimals (a strict cast would fail the whole file)
    lost = [("_expected", "net_unit"), ("commission", "commission_unit"), ("theo", "edge")]
    too_large = ~stray_side & pl.any_horizontal(pl.col(f).is_null() & pl.col(unit).is_not_null() for f, unit in lost)
    mismatch = pl.concat(
        [
            placed.filter(stray_side).with_columns(
                reason=pl.lit("bad_type"),
                detail=pl.format(f"side {{}} names a second hand, which only {' and '.join(two_hands)} deals", "side"),
            ),
            placed.filter(too_large).with_columns(
                reason=pl.lit("bad_amount"),
                detail=pl.format("amount {} is too large: what it pays or earns overflows its decimals", "amount"),
            ),
            placed.filter(
                ~stray_side
                & ~too_large
                & pl.col("payout").is_not_null()
                & pl.col("_expected").is_not_null()
                & (pl.col("payout") != pl.col("_expected"))
            ).with_columns(
                reason=pl.lit("payout_mismatch"),
                detail=pl.format("payout {} but the pay table gives {}", pl.col("payout"), pl.col("_expected")),
            ),
        ]
    )
    accepted = placed.join(mismatch.select("_line"), on="_line", how="anti")
    # a player holds the bank: the house takes only its commission (the cagnotte)
    player_banked = pl.col("game").is_in(PLAYER_BANKED)
    accepted = accepted.with_columns(
        house_net=pl.when(player_banked).then(pl.col("commission"))
        .otherwise(-pl.coalesce(pl.col("_expected"), pl.col("payout"))).cast(MONEY),
    )  # fmt: skip
    return accepted, mismatch
