"""Settlement of every bet type, including pushes, super6's 1:2 and EZ Baccarat's push."""

from decimal import Decimal

import numpy as np
import polars as pl
import pytest

from models.game.cards import parse_hand
from models.game.cells import CELL_FACTS, CELL_OUTCOMES
from models.game.coup import score
from models.game.games import Game
from models.game.paytable import (
    BETS,
    DEFAULT_PAYTABLE,
    NO_COMMISSION_GAMES,
    REDUCED_WINS,
    PayTable,
    settle,
    settlement_grid,
)

D = Decimal
PB = Game.PUNTO_BANCO


def coup(player, banker):
    return score(parse_hand(player), parse_hand(banker))


BANKER_7_VS_5 = coup("2H 3S KD", "4C 3D")  # banker 7 beats player 5, two cards each side
BANKER_THREE_CARD_7 = coup("2H 3S KD", "2C 3D 2S")  # player 5, banker 5+2 = 7 on three cards
BANKER_6 = coup("2H 3S KD", "2C 4D")  # banker 6 beats player 5
PLAYER_THREE_CARD_8 = coup("2H 3S 3D", "KC 7D")  # player 8 on three cards beats banker 7
TIE_ON_6 = coup("2H 4S", "3C 3D")
PAIRS = coup("9H 9S", "4C 4D")  # tie on 8 with both pairs


@pytest.mark.parametrize(
    ("game", "bet", "the_coup", "house_net", "commission"),
    [
        (PB, "banker", BANKER_7_VS_5, "-9.50", "0.50"),
        (PB, "banker", TIE_ON_6, "0", "0"),
        (PB, "banker", PLAYER_THREE_CARD_8, "10", "0"),
        (PB, "player", PLAYER_THREE_CARD_8, "-10", "0"),
        (PB, "player", TIE_ON_6, "0", "0"),
        (PB, "player", BANKER_6, "10", "0"),
        (PB, "tie", TIE_ON_6, "-80", "0"),
        (PB, "tie", BANKER_6, "10", "0"),
        (PB, "player_pair", PAIRS, "-110", "0"),
        (PB, "banker_pair", PAIRS, "-110", "0"),
        (PB, "player_pair", BANKER_6, "10", "0"),
        (PB, "dragon7", BANKER_THREE_CARD_7, "-400", "0"),
        (PB, "dragon7", BANKER_7_VS_5, "10", "0"),
        (PB, "panda8", PLAYER_THREE_CARD_8, "-250", "0"),
        (PB, "panda8", coup("4H 4S", "KC 7D"), "10", "0"),  # a natural 8 is not a panda
        (PB, "egalite_6", TIE_ON_6, "-450", "0"),
        (PB, "egalite_5", TIE_ON_6, "10", "0"),
        (PB, "egalite_8", PAIRS, "-800", "0"),
        (Game.SUPER6, "banker", BANKER_6, "-5.0", "0"),
        (Game.SUPER6, "banker", BANKER_7_VS_5, "-10", "0"),
        (Game.SUPER6, "banker", TIE_ON_6, "0", "0"),
        (Game.EZ_BACCARAT, "banker", BANKER_THREE_CARD_7, "0", "0"),
        (Game.EZ_BACCARAT, "banker", BANKER_7_VS_5, "-10", "0"),
        (Game.EZ_BACCARAT, "banker", PLAYER_THREE_CARD_8, "10", "0"),
        (Game.CHEMIN_DE_FER, "banker", BANKER_6, "-9.50", "0.50"),
    ],
)
def test_settlement(game, bet, the_coup, house_net, commission):
    result = settle(game, DEFAULT_PAYTABLE, bet, D("10"), the_coup)
    assert result.house_net == D(house_net)
    assert result.commission == D(commission)
    assert isinstance(result.house_net, Decimal) and isinstance(result.commission, Decimal)


def test_configured_pay_table():
    table = PayTable(commission="0.04", tie=9, egalite=[1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    assert settle(PB, table, "banker", D("25"), BANKER_6).commission == D("1.00")
    assert settle(PB, table, "tie", D("5"), TIE_ON_6).house_net == D("-45")
    assert settle(PB, table, "egalite_6", D("5"), TIE_ON_6).house_net == D("-35")


def test_commission_is_exact_decimal():
    result = settle(PB, DEFAULT_PAYTABLE, "banker", D("0.10"), BANKER_6)
    assert result == type(result)(house_net=D("-0.0950"), commission=D("0.0050"))


def test_reduced_wins_pay_what_settlement_pays_in_plain_values_and_in_polars():
    cells = pl.DataFrame(CELL_FACTS, schema=["player", "banker", "player_drew", "banker_drew"], orient="row")
    won = CELL_OUTCOMES == "B"
    table = PayTable(super6_six="0.6")
    assert set(NO_COMMISSION_GAMES) == {Game.SUPER6, Game.EZ_BACCARAT}
    assert (table.reduction(Game.SUPER6), table.reduction(Game.EZ_BACCARAT)) == (D("0.4"), D(1))
    for game, rule in REDUCED_WINS.items():
        plain = np.array([rule.holds(int(banker), bool(drew)) for _, banker, _, drew in CELL_FACTS.tolist()])
        drew = pl.col("banker_drew").cast(pl.Boolean)
        assert cells.select(rule.holds(pl.col("banker"), drew))["banker"].to_list() == plain.tolist()
        assert any(plain & won)  # some Banker wins are reduced
        net, commission = settlement_grid(game, table)
        pays = [table.reduced_pays(game) if reduced else D(1) for reduced in plain]
        assert net[BETS.index("banker"), won, 0].tolist() == [p for p, w in zip(pays, won, strict=True) if w]
        assert not commission[BETS.index("banker")].any()


def test_pair_bets_need_ranks():
    value_only = coup("0 0", "5 2")
    with pytest.raises(ValueError, match="ranks"):
        settle(PB, DEFAULT_PAYTABLE, "player_pair", D(1), value_only)
    assert settle(PB, DEFAULT_PAYTABLE, "banker_pair", D(1), value_only).house_net == D(1)


@pytest.mark.parametrize("amount", ["0", "-5"])
def test_amount_must_be_positive(amount):
    with pytest.raises(ValueError, match="positive"):
        settle(PB, DEFAULT_PAYTABLE, "banker", D(amount), BANKER_6)


def test_unknown_bet_and_bad_tables():
    with pytest.raises(ValueError, match="unknown bet"):
        settle(PB, DEFAULT_PAYTABLE, "big", D(1), BANKER_6)
    with pytest.raises(ValueError, match="commission"):
        PayTable(commission="1.5")
    with pytest.raises(ValueError, match="egalite"):
        PayTable(egalite=[1, 2])


#: What the house nets on a unit wager of each bet when both hands tie on 8 with a pair each: the main
#: bets push, the tie pays 8:1, each pair 11:1, egalite 8 its 80:1; Dragon 7 and Panda 8 (a banker
#: three-card 7, a player three-card 8) and every other egalite lose.
HOUSE_NET_ON_PAIRED_TIE_8 = {
    "banker": "0", "player": "0", "tie": "-8", "player_pair": "-11", "banker_pair": "-11",
    "dragon7": "1", "panda8": "1", **{f"egalite_{total}": "1" for total in range(10)}, "egalite_8": "-80",
}  # fmt: skip


def test_every_bet_settles():
    assert set(HOUSE_NET_ON_PAIRED_TIE_8) == set(BETS)
    for bet in BETS:
        settled = settle(PB, DEFAULT_PAYTABLE, bet, D(1), PAIRS)
        assert (bet, settled.house_net, settled.commission) == (bet, D(HOUSE_NET_ON_PAIRED_TIE_8[bet]), 0)
