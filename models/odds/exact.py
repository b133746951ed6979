"""Exact odds for any composition: event probabilities, and every bet's house edge and variance."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from models.game.cells import CELL_OUTCOMES
from models.game.games import Game
from models.game.outcome import BANKER, PLAYER, TIE
from models.game.paytable import BETS, DEFAULT_PAYTABLE, PAIR_BETS, PayTable, settlement_grid
from models.game.shoe import MIN_CARDS_FOR_A_COUP, Composition, CompositionError
from models.game.tableau import DEFAULT_POLICY, DrawPolicy, draw_table
from models.odds.kernel import WEIGHTS_SHAPE, outcome_weights

_BANKER_WINS, _PLAYER_WINS, _TIES = (CELL_OUTCOMES.reshape(WEIGHTS_SHAPE) == letter for letter in (BANKER, PLAYER, TIE))


@lru_cache(maxsize=64)
def _payoffs(game: Game, table: PayTable) -> tuple[tuple[str, ...], np.ndarray]:
    """Net result per unit of each non-pair bet in each cell, from the one settlement function."""
    net, _ = settlement_grid(game, table)
    rows = [i for i, bet in enumerate(BETS) if bet not in PAIR_BETS]
    matrix = net[rows, ..., 0].reshape(len(rows), -1).astype(float)
    matrix.flags.writeable = False
    return tuple(BETS[i] for i in rows), matrix


@dataclass(frozen=True, slots=True)
class BetOdds:
    """A bet's house edge (expected loss per unit staked) and the variance of its net result."""

    edge: float
    variance: float


@dataclass(frozen=True)
class ExactOdds:
    """All deals of one composition under one game's tableau, weighted exactly."""

    game: Game
    composition: Composition
    weights: np.ndarray  # WEIGHTS_SHAPE, in ordered six-card deals

    @cached_property
    def deals(self) -> float:
        return float(self.weights.sum())

    @cached_property
    def cells(self) -> np.ndarray:
        """Probability of each (player total, banker total, player drew, banker drew)."""
        return self.weights / self.deals

    @property
    def p_banker(self) -> float:
        return float(self.cells[_BANKER_WINS].sum())

    @property
    def p_player(self) -> float:
        return float(self.cells[_PLAYER_WINS].sum())

    @property
    def p_tie(self) -> float:
        return float(self.cells[_TIES].sum())

    @property
    def p_tie_by_total(self) -> list[float]:
        by_totals = self.cells.sum(axis=(2, 3))
        return [float(by_totals[total, total]) for total in range(10)]

    @property
    def p_bank_keeps(self) -> float:
        """P(banker) / (P(banker) + P(player)): the chance the bank survives a decided coup."""
        return self.p_banker / (self.p_banker + self.p_player)

    @property
    def expected_cards(self) -> float:
        return 4.0 + float(self.cells[:, :, 1, :].sum() + self.cells[:, :, :, 1].sum())

    @cached_property
    def p_pair(self) -> float | None:
        """P(the first two cards of a hand share a rank); the same for either hand. None: unknown."""
        ranks = self.composition.ranks
        if ranks is None:
            return None
        n = self.composition.cards
        return sum(count * (count - 1) for count in ranks) / (n * (n - 1))

    def bets(self, table: PayTable = DEFAULT_PAYTABLE) -> dict[str, BetOdds]:
        """House edge and variance of every bet under `table` (pair bets only when ranks are known)."""
        names, payoffs = _payoffs(self.game, table)
        probabilities = self.cells.ravel()
        means = payoffs @ probabilities
        variances = (payoffs * payoffs) @ probabilities - means * means
        odds = {
            name: BetOdds(-float(mean), float(var)) for name, mean, var in zip(names, means, variances, strict=True)
        }
        if self.p_pair is not None:
            pays, p = float(table.pair), self.p_pair
            mean = p * pays - (1.0 - p)
            pair = BetOdds(-mean, p * pays * pays + (1.0 - p) - mean * mean)
            odds.update(dict.fromkeys(PAIR_BETS, pair))
        return {name: odds[name] for name in BETS if name in odds}


def exact_odds(
    composition: Composition,
    game: Game = Game.PUNTO_BANCO,
    policy: DrawPolicy = DEFAULT_POLICY,
) -> ExactOdds:
    """Enumerate every coup `composition` can deal under `game`'s tableau and `policy`."""
    if composition.cards < MIN_CARDS_FOR_A_COUP:
        raise CompositionError(f"{composition.cards} cards left: a coup needs up to {MIN_CARDS_FOR_A_COUP}")
    table = draw_table(game, policy)
    counts = np.asarray(composition.values, dtype=np.int64)
    weights = outcome_weights(counts, table.player, table.banker)
    weights.flags.writeable = False
    return ExactOdds(game=game, composition=composition, weights=weights)
