"""Bulk settlement (`settlement.settle`, through its Polars cell index) agrees with the one settlement
function on every cell, for the first Player hand and for Baccarat Banque's second."""

from decimal import Decimal

import polars as pl
import pytest

from models.contract import MONEY
from models.game.cells import CELL_FACTS
from models.game.coup import Coup
from models.game.games import Game
from models.game.outcome import outcome
from models.game.paytable import DEFAULT_PAYTABLE, settle
from models.warehouse import settlement

BETS = ("banker", "player", "tie", "dragon7", "panda8", "egalite_3")
AMOUNT = Decimal("10")


def _coup(pt, bt, p3, b3):
    return Coup(pt, bt, 2 + p3, 2 + b3)


def _placed(game: Game, side: int | None) -> tuple[pl.DataFrame, list[Decimal]]:
    """Every cell x bet as a placed bet; on side 2 the cell is the second hand's, the first hand another."""
    rows, expected = [], []
    for pt, bt, p3, b3 in CELL_FACTS.tolist():
        other = (9 - pt, 1 - p3)  # the hand the bet is not on
        first, second = ((pt, p3), other) if side != 2 else (other, (pt, p3))
        for bet in BETS:
            rows.append(
                {
                    "_line": len(rows),
                    "game": game.value,
                    "decks": 8,
                    "bet": bet,
                    "side": side,
                    "amount": AMOUNT,
                    "payout": None,
                    "has_cards": True,
                    "player_total": first[0],
                    "player_drew": bool(first[1]),
                    "player2_total": second[0],
                    "player2_drew": bool(second[1]),
                    "banker_total": bt,
                    "banker_drew": bool(b3),
                    "banker_two": bt,  # what a natural meets: here the same total (no draw changed it)
                    "player_pair": False,
                    "banker_pair": False,
                    "outcome": outcome(first[0], bt),
                    "outcome2": outcome(second[0], bt),
                }
            )
            result = settle(game, DEFAULT_PAYTABLE, bet, AMOUNT, _coup(pt, bt, p3, b3))
            expected.append(result.commission if game.player_banked else result.house_net)
    schema = {"amount": MONEY, "payout": MONEY, "side": pl.Int8, "decks": pl.Int8}
    schema |= {f"{hand}_total": pl.Int8 for hand in ("player", "player2", "banker")} | {"banker_two": pl.Int8}
    frame = pl.DataFrame(rows, infer_schema_length=None)
    return frame.with_columns(pl.col(name).cast(dtype) for name, dtype in schema.items()), expected


@pytest.mark.parametrize(
    ("game", "side"),
    [(Game.PUNTO_BANCO, None), (Game.SUPER6, None), (Game.EZ_BACCARAT, None), (Game.CHEMIN_DE_FER, None),
     (Game.BACCARAT_BANQUE, 1), (Game.BACCARAT_BANQUE, 2)],
)  # fmt: skip
def test_bulk_settlement_agrees_with_settle_on_every_cell(game, side):
    placed, expected = _placed(game, side)
    accepted, mismatched = settlement.settle(placed, DEFAULT_PAYTABLE)
    assert mismatched.height == 0
    got = accepted.sort("_line")["house_net"].to_list()
    assert got == expected
