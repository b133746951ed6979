"""Bets, pay tables and settlement: the one place that knows what every bet pays."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache

import numpy as np

from models.game.cells import CELL_FACTS, CELLS
from models.game.coup import Coup
from models.game.games import Game
from models.game.outcome import BANKER, PLAYER, TIE

MAIN_BETS = ("banker", "player", "tie")
SIDE_BETS = ("player_pair", "banker_pair", "dragon7", "panda8")
EGALITE_BETS = tuple(f"egalite_{total}" for total in range(10))
BETS = MAIN_BETS + SIDE_BETS + EGALITE_BETS
PAIR_BETS = ("player_pair", "banker_pair")

DEFAULT_EGALITE = (150, 215, 225, 200, 120, 110, 45, 45, 80, 80)


def _decimals(values) -> tuple[Decimal, ...]:
    return tuple(Decimal(str(value)) for value in values)


@dataclass(frozen=True)
class PayTable:
    """What each bet pays to one unit staked (net), and the commission on Banker wins."""

    commission: Decimal = Decimal("0.05")
    tie: Decimal = Decimal(8)
    pair: Decimal = Decimal(11)
    dragon7: Decimal = Decimal(40)
    panda8: Decimal = Decimal(25)
    super6_six: Decimal = Decimal("0.5")
    egalite: tuple[Decimal, ...] = field(default_factory=lambda: _decimals(DEFAULT_EGALITE))

    def __post_init__(self) -> None:
        for name in ("commission", "tie", "pair", "dragon7", "panda8", "super6_six"):
            object.__setattr__(self, name, Decimal(str(getattr(self, name))))
        object.__setattr__(self, "egalite", _decimals(self.egalite))
        if not Decimal(0) <= self.commission < Decimal(1):
            raise ValueError(f"commission must be a fraction in [0, 1), got {self.commission}")
        if len(self.egalite) != 10:
            raise ValueError("the egalite pay table needs one entry per tie total 0..9")
        if min(self.tie, self.pair, self.dragon7, self.panda8, *self.egalite) <= 0:
            raise ValueError("every pay-table entry must be positive")

    def reduced_pays(self, game: Game) -> Decimal:
        """What a Banker win of `REDUCED_WINS[game]` pays per unit staked."""
        entry = REDUCED_WINS[game].pays
        return Decimal(0) if entry is None else getattr(self, entry)

    def reduction(self, game: Game) -> Decimal:
        """What the house keeps per unit staked on a Banker win of `REDUCED_WINS[game]`, against even money."""
        return Decimal(1) - self.reduced_pays(game)


DEFAULT_PAYTABLE = PayTable()


@dataclass(frozen=True)
class ReducedWin:
    """The Banker wins a no-commission game pays less than even money: a Banker `total`, whether the
    Banker drew a third card (`drew`; None: either way), and the PayTable entry such a win pays
    (`pays`; None: it pushes)."""

    total: int
    drew: bool | None = None
    pays: str | None = None

    def holds(self, banker_total, banker_drew):
        """Whether a Banker win is one: ints and flags in, a bool out, or Polars expressions in and out."""
        hit = banker_total == self.total
        return hit if self.drew is None else hit & (banker_drew == self.drew)


#: The games whose Banker bet pays no commission but less on some wins, and those wins: Super 6 a
#: Banker six, EZ Baccarat a Banker three-card seven.
REDUCED_WINS = {Game.SUPER6: ReducedWin(6, pays="super6_six"), Game.EZ_BACCARAT: ReducedWin(7, drew=True)}
NO_COMMISSION_GAMES = tuple(REDUCED_WINS)
#: The game whose Banker commission is the cagnotte, the house's levy on a player-held bank's wins:
#: the marts count it apart from commission (the other player-banked games' levy is commission).
CAGNOTTE_GAMES = (Game.CHEMIN_DE_FER,)


@dataclass(frozen=True, slots=True)
class Result:
    """A bet's outcome per unit staked, from the bettor's side: net win, and commission paid."""

    net: Decimal
    commission: Decimal = Decimal(0)


LOSE, PUSH = Result(Decimal(-1)), Result(Decimal(0))


def _banker_bet(game: Game, table: PayTable, coup: Coup) -> Result:
    if coup.outcome != BANKER:
        return PUSH if coup.outcome == TIE else LOSE
    if game in REDUCED_WINS:
        reduced = REDUCED_WINS[game].holds(coup.banker_total, coup.banker_cards == 3)
        return Result(table.reduced_pays(game) if reduced else Decimal(1))
    return Result(Decimal(1) - table.commission, table.commission)


def _wins(condition: bool, pays: Decimal) -> Result:
    return Result(pays) if condition else LOSE


def bet_result(game: Game, table: PayTable, bet: str, coup: Coup) -> Result:
    """The bettor's net result and commission per unit staked on `bet` in this coup."""
    outcome = coup.outcome
    if bet == "banker":
        return _banker_bet(game, table, coup)
    if bet == "player":
        return PUSH if outcome == TIE else _wins(outcome == PLAYER, Decimal(1))
    if bet == "tie":
        return _wins(outcome == TIE, table.tie)
    if bet in PAIR_BETS:
        pair = coup.player_pair if bet == "player_pair" else coup.banker_pair
        if pair is None:
            raise ValueError(f"cannot settle {bet}: the log does not give the cards' ranks")
        return _wins(pair, table.pair)
    if bet == "dragon7":
        return _wins(outcome == BANKER and coup.banker_cards == 3 and coup.banker_total == 7, table.dragon7)
    if bet == "panda8":
        return _wins(outcome == PLAYER and coup.player_cards == 3 and coup.player_total == 8, table.panda8)
    if bet in EGALITE_BETS:
        total = int(bet.removeprefix("egalite_"))
        return _wins(outcome == TIE and coup.player_total == total, table.egalite[total])
    raise ValueError(f"unknown bet {bet!r}: choose one of {', '.join(BETS)}")


@dataclass(frozen=True, slots=True)
class Settlement:
    """The house's side of one wager, in currency units."""

    house_net: Decimal
    commission: Decimal


def settle(game: Game, table: PayTable, bet: str, amount: Decimal, coup: Coup) -> Settlement:
    """(coup, bet, amount) -> the house's net result (commission included) and the commission."""
    if amount <= 0:
        raise ValueError(f"a wager must be positive, got {amount}")
    result = bet_result(game, table, bet, coup)
    return Settlement(house_net=-result.net * amount, commission=result.commission * amount)


@lru_cache(maxsize=64)
def settlement_grid(game: Game, table: PayTable) -> tuple[np.ndarray, np.ndarray]:
    """`bet_result` tabulated for vectorised use: net and commission per unit, as Decimal.

    Both arrays are indexed [bet (index in BETS), cell (`models.game.cells.cell_index`), pair],
    where `pair` is the flag of the hand a pair bet is on (ignored by the other bets).
    """
    shape = (len(BETS), CELLS, 2)
    net, commission = np.empty(shape, dtype=object), np.empty(shape, dtype=object)
    for b, bet in enumerate(BETS):
        for cell, (pt, bt, p3, b3) in enumerate(CELL_FACTS.tolist()):
            for pair in (False, True):
                coup = Coup(pt, bt, 2 + p3, 2 + b3, player_pair=pair, banker_pair=pair)
                result = bet_result(game, table, bet, coup)
                net[b, cell, int(pair)] = result.net
                commission[b, cell, int(pair)] = result.commission
    net.flags.writeable = commission.flags.writeable = False
    return net, commission
