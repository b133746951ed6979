"""The payoffs of Chemin de Fer under a model, as exact sums additive in each side's choices.

Player draws at his choice set k with probability x[k]; Banker draws at information set j with
probability y[j]. Then for each outcome (Player wins, Banker wins) the probability is, over
`denominator`, c + x.a + y.b + x.G.y: no strategy profile is ever enumerated. Player's 0-4 draw and
6-7 stand, which strict dominance settles in every model (Ethier and Gamez 2013, Section 2), are fixed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from models.gametheory.deal import Shoe, denominator, sequence_weights
from models.gametheory.models import COLUMNS, COMPOSITIONS, STOOD, Model, banker_rows, player_sets, total


@dataclass(frozen=True)
class Terms:
    """c + x.a + y.b + x.G.y, integer numerators: a has one entry per Player set, b and G's columns
    one per Banker set (row-major over Banker information x column)."""

    c: int
    a: np.ndarray
    b: np.ndarray
    g: np.ndarray


@dataclass(frozen=True)
class Payoffs:
    model: Model
    decks: int | None
    denominator: int
    win: Terms  # Player's hand wins
    lose: Terms  # Banker's hand wins


def _class_weights(shoe: Shoe) -> np.ndarray:
    """w[player composition, banker composition, Player's third, Banker's third] over the 6-card
    denominator; cards a deal does not use are summed out, which keeps one denominator for all."""
    weights = sequence_weights(shoe, 6).transpose(0, 2, 1, 3, 4, 5).reshape(100, 100, 100)
    onehot = np.zeros((100, len(COMPOSITIONS)), dtype=np.int64)
    for first in range(10):
        for second in range(10):
            onehot[10 * first + second, COMPOSITIONS.index((min(first, second), max(first, second)))] = 1
    by_player = np.tensordot(onehot.T, weights, axes=(1, 0))  # (player class, banker pair, thirds)
    by_both = np.tensordot(by_player, onehot, axes=(1, 0))  # (player class, thirds, banker class)
    return by_both.transpose(0, 2, 1).reshape(len(COMPOSITIONS), len(COMPOSITIONS), 10, 10)


def _outcome_sums(weights: np.ndarray, model: Model, sign: int) -> Terms:
    """Terms of the probability that the hand `sign` names wins: 1 Player, -1 Banker."""
    rows, sets = banker_rows(model), player_sets(model)
    row_of = [rows.index(c if model.banker_sees_composition else total(c)) if total(c) <= 7 else -1
              for c in COMPOSITIONS]  # fmt: skip
    set_of = [sets.index(c if model.player_sees_composition else 5) if total(c) == 5 else -1 for c in COMPOSITIONS]
    shape = weights.shape
    totals = np.array([total(c) for c in COMPOSITIONS])
    p_tot, b_tot = totals[:, None, None, None], totals[None, :, None, None]
    third = np.arange(10)
    p_draw, b_draw = (p_tot + third[None, None, :, None]) % 10, (b_tot + third[None, None, None, :]) % 10
    natural = (p_tot >= 8) | (b_tot >= 8)
    row = np.broadcast_to(np.array(row_of)[None, :, None, None], shape)
    column = np.broadcast_to(third[None, None, :, None], shape)
    chooser = np.broadcast_to(np.array(set_of)[:, None, None, None], shape)
    forced_draw = np.broadcast_to(~natural & (p_tot <= 4), shape)
    forced_stand = np.broadcast_to(~natural & (p_tot >= 6), shape)
    choosing = np.broadcast_to(~natural & (p_tot == 5), shape)

    def beats(player: np.ndarray, banker: np.ndarray) -> np.ndarray:
        return np.sign(np.broadcast_to(player - banker, shape)) == sign

    nat = int(weights[np.broadcast_to(natural, shape) & beats(p_tot, b_tot)].sum())
    forced = np.zeros((2, len(rows), COLUMNS), dtype=np.int64)  # [Banker stands/draws, row, column]
    chosen = np.zeros((2, 2, len(sets), len(rows), COLUMNS), dtype=np.int64)  # [Player, Banker, set, ...]
    for b_act, b_final in enumerate((b_tot, b_draw)):
        hit = forced_draw & beats(p_draw, b_final)
        np.add.at(forced[b_act], (row[hit], column[hit]), weights[hit])
        hit = forced_stand & beats(p_tot, b_final)
        np.add.at(forced[b_act], (row[hit], STOOD), weights[hit])
        for p_act, p_final in enumerate((p_tot, p_draw)):
            hit = choosing & beats(p_final, b_final)
            col = column[hit] if p_act else STOOD
            np.add.at(chosen[p_act, b_act], (chooser[hit], row[hit], col), weights[hit])
    stand_s, draw_s = chosen[0, 0], chosen[0, 1]  # Player stood at his choice; Banker stood, drew
    stand_d, draw_d = chosen[1, 0], chosen[1, 1]  # Player drew at it
    k = len(sets)
    return Terms(
        c=nat + int(forced[0].sum()) + int(stand_s.sum()),
        a=(stand_d - stand_s).reshape(k, -1).sum(axis=1),
        b=(forced[1] - forced[0] + (draw_s - stand_s).sum(axis=0)).reshape(-1),
        g=(draw_d - stand_d - draw_s + stand_s).reshape(k, -1),
    )


def payoffs(model: Model, decks: int | None) -> Payoffs:
    """The exact additive payoffs of Chemin de Fer under `model` with `decks` full decks (None: an endless
    shoe). Model A1 is the endless shoe by definition."""
    decks = None if model is Model.A1 else decks
    return shoe_payoffs(model, Shoe.decks(decks), decks)


def shoe_payoffs(model: Model, shoe: Shoe, decks: int | None = None) -> Payoffs:
    """The same for any shoe, a part-dealt one (`Shoe.of(composition)`) among them."""
    weights = _class_weights(shoe)
    return Payoffs(
        model=model,
        decks=decks,
        denominator=denominator(shoe, 6),
        win=_outcome_sums(weights, model, 1),
        lose=_outcome_sums(weights, model, -1),
    )
