"""What the solved game and the house's policy draw at each free decision: probabilities looked up
from card-indexed arrays, one solve per shoe size (Chemin de Fer) or stake share (Baccarat Banque).

Chemin de Fer plays `models.gametheory.strategy.chemin_de_fer` under model B3 (each side sees his own
two cards) for the shoe's decks and the house's commission on the bank's wins. The Banque plays Ethier
and Lee's Nash equilibrium at theta, hand 1's share of the two hands' stakes (1/2 without wagers),
on the solver's grid. The house is `DEFAULT_POLICY` as the simulator deals it.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import polars as pl

from models.game.games import Game
from models.game.tableau import DEFAULT_POLICY, DrawPolicy, draw_table
from models.gametheory.models import Model
from models.gametheory.strategy import SHOWN_NATURAL, THETA_STEP, baccarat_banque, chemin_de_fer
from models.logs.hands import VALUES
from models.odds.decisions import NOT_LIVE, PUNTER

#: theta's grid points, in steps of THETA_STEP, kept strictly inside (0, 1) as `rounded_theta` keeps them.
_STEPS = round(1 / THETA_STEP)


def _cards(found: pl.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The point values of the decider's two cards (`cards`)."""
    tokens = pl.col("cards").str.split(" ")
    value = lambda k: tokens.list.get(k).str.slice(0, 1).replace_strict(VALUES, return_dtype=pl.Int64)  # noqa: E731
    both = found.select(a=value(0), b=value(1))
    return both["a"].to_numpy(), both["b"].to_numpy()


def _stakes(found: pl.DataFrame) -> np.ndarray:
    """Each hand's stake in ten-thousandths (int (n, 2), 0 where none)."""
    return (
        found.select(
            (pl.col(c).cast(pl.Float64) * 10_000).round().fill_null(0).cast(pl.Int64) for c in ("stake1", "stake2")
        )
        .to_numpy()
        .reshape(-1, 2)
    )


def theta_steps(stakes: np.ndarray) -> np.ndarray:
    """Hand 1's share of the two stakes (int (n, 2)) on the solving grid, in THETA_STEPs: rounded half
    to even exactly as `rounded_theta` rounds, 1/2 where nothing is staked."""
    total = stakes.sum(axis=1)
    staked = total > 0
    # no stakes: theta is 1/2, STEPS / 2 steps
    numerator, denominator = np.where(staked, _STEPS * stakes[:, 0], _STEPS), np.where(staked, total, 2)
    whole, rest = np.divmod(numerator, denominator)
    up = (2 * rest > denominator) | ((2 * rest == denominator) & (whole % 2 == 1))
    return np.clip(whole + up, 1, _STEPS - 1).astype(np.int64)


def equilibrium_draws(found: pl.DataFrame, commission: Fraction) -> np.ndarray:
    """float (n,): the equilibrium's probability of drawing at each decision of `choices`' frame
    (game, decks, _decider, hand, total, cards, _thirds, stake1, stake2)."""
    out = np.full(found.height, np.nan)
    a, b = _cards(found)
    games, decks = found["game"].to_numpy(), found["decks"].to_numpy()
    punter = found["_decider"].to_numpy() == PUNTER
    hand = found["hand"].fill_null(1).to_numpy().astype(np.int64)
    total = found["total"].to_numpy().astype(np.int64)
    thirds = np.stack(found["_thirds"].to_numpy()).reshape(-1, 2) if found.height else np.zeros((0, 2), np.int64)
    chemin = games == Game.CHEMIN_DE_FER.value
    for size in np.unique(decks[chemin]):
        rows = np.flatnonzero(chemin & (decks == size))
        solved = chemin_de_fer(int(size), commission, Model.B3)
        column = np.clip(thirds[rows, 0], 0, None)  # a Chemin de Fer banker always faces a live hand
        at = (a[rows], b[rows])
        out[rows] = np.where(punter[rows], solved.punter[at], solved.banker[(*at, column)])
    banque = games == Game.BACCARAT_BANQUE.value
    steps = theta_steps(_stakes(found))
    shown = np.where(thirds == NOT_LIVE, SHOWN_NATURAL, thirds)  # a Banque hand not live is on a natural
    for step in np.unique(steps[banque]):
        rows = np.flatnonzero(banque & (steps == step))
        solved = baccarat_banque(Fraction(int(step)) * THETA_STEP)
        mine = solved.punters[hand[rows] - 1, a[rows], b[rows]]
        out[rows] = np.where(punter[rows], mine, solved.banker[total[rows], shown[rows, 0], shown[rows, 1]])
    return out


def house_draws(found: pl.DataFrame, policy: DrawPolicy = DEFAULT_POLICY) -> np.ndarray:
    """float (n,): the house policy's probability of drawing at each decision, as the simulator deals:
    a Banque banker answers the hand with the larger stake (hand 1 at equal stakes), and stands when
    that hand is on a natural."""
    out = np.full(found.height, np.nan)
    games = found["game"].to_numpy()
    punter = found["_decider"].to_numpy() == PUNTER
    total = found["total"].to_numpy().astype(np.int64)
    thirds = np.stack(found["_thirds"].to_numpy()).reshape(-1, 2) if found.height else np.zeros((0, 2), np.int64)
    stakes = _stakes(found)
    main = np.where(stakes[:, 1] > stakes[:, 0], 1, 0)
    against = np.where(games == Game.BACCARAT_BANQUE.value, thirds[np.arange(len(main)), main], thirds[:, 0])
    for game in (Game.CHEMIN_DE_FER, Game.BACCARAT_BANQUE):
        rows = np.flatnonzero(games == game.value)
        table = draw_table(game, policy)
        third = against[rows]
        banker = np.where(third == NOT_LIVE, 0.0, table.banker[total[rows], np.clip(third, 0, None)])
        out[rows] = np.where(punter[rows], table.player[total[rows]], banker)
    return out
