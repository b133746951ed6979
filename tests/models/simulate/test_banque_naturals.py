"""The simulator logs and pays Baccarat Banque as the checks and the settlement read it: a Player
hand's natural meets the banker's first two cards, whatever he then draws against the other hand."""

import numpy as np
import polars as pl

from models.contract import NATURAL_KEY
from models.game.games import Game
from models.game.outcome import OUTCOMES, compiled_outcome_code
from models.logs.checks import check_rounds
from models.simulate.config import Simulation
from models.simulate.dealing import B1, NO_CARD, P1, Q1, banker_faced
from models.simulate.engine import simulate
from models.warehouse.settlement import SETTLED_BY, settle

KEY = list(NATURAL_KEY)
# card codes: rank index (A=0 .. K=12) * 4 + suit index (C, D, H, S)
EIGHT_H, KING_D, TWO_H, TWO_C, FOUR_D, TWO_C2, THREE_D, FOUR_S = 30, 49, 6, 4, 13, 4, 9, 15


def test_the_kernels_settle_a_natural_against_the_banker_s_two_cards():
    row = np.full(9, NO_CARD, np.int16)
    row[P1 : P1 + 2] = EIGHT_H, KING_D  # hand 1: a natural 8
    row[Q1 : Q1 + 3] = TWO_H, TWO_C, FOUR_D  # hand 2: 4, drew to 8
    row[B1 : B1 + 3] = TWO_C2, THREE_D, FOUR_S  # the banker on 5 drew to 9
    assert banker_faced(row, P1, 8, 9) == (5, 0)
    assert banker_faced(row, Q1, 8, 9) == (9, 1)
    assert OUTCOMES[compiled_outcome_code(8, banker_faced(row, P1, 8, 9)[0])] == "P"


def test_a_seeded_banque_month_passes_the_checks_and_settles_as_paid():
    sim = Simulation(shoes=40, seed=7, games=(Game.BACCARAT_BANQUE,), tables=2, shoes_per_day=4)
    chunks = list(simulate(sim))
    rounds = pl.concat([chunk.rounds for chunk in chunks]).with_row_index("_line")
    bets = pl.concat([chunk.bets for chunk in chunks]).with_row_index("_line")
    checked = check_rounds(rounds)
    assert checked["reason"].null_count() == checked.height, checked["reason"].value_counts()
    assert (checked["outcome"] == rounds["outcome"]).all()
    # the coups the rule decides: a natural met by a banker who drew against the other hand
    drew = checked["banker_third"].is_not_null()
    natural1 = drew & (rounds["player_cards"].str.count_matches(" ") == 1) & (checked["player_total"] >= 8)
    natural2 = drew & (rounds["player2_cards"].str.count_matches(" ") == 1) & (checked["player2_total"] >= 8)
    assert natural1.sum() + natural2.sum() > 0
    assert (checked.filter(natural1)["outcome"] == "P").all()
    assert (checked.filter(natural2)["outcome2"] == "P").all()
    assert checked.filter(natural1 & (checked["player_total"] < checked["banker_total"])).height > 0
    facts = checked.select(*KEY, *SETTLED_BY)
    accepted, mismatched = settle(bets.join(facts, on=KEY, how="left"), sim.paytable)
    assert mismatched.height == 0
    assert accepted.height == bets.height
