"""Settlement and theoretical win for wagers in bulk, from the one pay-table module.

The settlement grid (`models.game.paytable.settlement_grid`) becomes lookup frames keyed by game, bet,
coup cell and pair flag; rounds logged without cards settle only the bets their outcome decides.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import polars as pl

from models.contract import MONEY
from models.game.games import Game
from models.game.paytable import BETS, CELL_SHAPE, PayTable, settlement_grid
from models.game.shoe import MAX_DECKS, Composition
from models.odds.exact import exact_odds

#: Games where a player holds the bank: the house takes only its commission (the cagnotte).
PLAYER_BANKED = (Game.CHEMIN_DE_FER, Game.BACCARAT_BANQUE, Game.BANCO)
OUTCOME_OF_CELL = np.array(
    ["B" if bt > pt else "P" if pt > bt else "T" for pt, bt, _, _ in np.ndindex(*CELL_SHAPE)], dtype=object
)


@lru_cache(maxsize=8)
def by_cell(table: PayTable) -> pl.DataFrame:
    """(game, bet, cell, pair) -> net and commission per unit staked."""
    frames = []
    for game in Game:
        net, commission = settlement_grid(game, table)
        cells = np.prod(CELL_SHAPE)
        index = np.indices((len(BETS), cells, 2)).reshape(3, -1)
        frames.append(
            pl.DataFrame(
                {
                    "game": game.value,
                    "bet": np.array(BETS)[index[0]],
                    "cell": index[1].astype(np.int16),
                    "pair": index[2].astype(bool),
                    "net_unit": [str(v) for v in net.reshape(len(BETS), cells, 2).ravel()],
                    "commission_unit": [str(v) for v in commission.reshape(len(BETS), cells, 2).ravel()],
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
                cells = outcome == OUTCOME_OF_CELL
                nets = set(net[b].reshape(-1, 2)[cells].ravel())
                commissions = set(commission[b].reshape(-1, 2)[cells].ravel())
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
            cells = odds.cells.ravel()
            for b, bet in enumerate(BETS):
                if game in PLAYER_BANKED:
                    levy = commission[b, ..., 0].reshape(-1).astype(float)
                    mean = float(cells @ levy)
                    value, variance = mean, float(cells @ levy**2) - mean**2
                else:
                    value, variance = bets[bet].edge, bets[bet].variance
                rows.append((game.value, decks, bet, value, variance))
    schema = {"game": pl.String, "decks": pl.Int64, "bet": pl.String, "edge": pl.Float64, "house_variance": pl.Float64}
    return pl.DataFrame(rows, schema=schema, orient="row")
