"""Every free decision rated: the compiled values against the plain twin in Fractions on part-dealt
shoes, the mart on hand-made coups, and on a small simulated warehouse of both games."""

import datetime as dt
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pytest

from models.game.games import Game
from models.game.shoe import Composition
from models.game.tableau import DEFAULT_POLICY, Draw, Hand, draw_table, tableau
from models.gametheory.models import Model
from models.gametheory.strategy import SHOWN_NATURAL, SHOWN_STOOD, baccarat_banque, chemin_de_fer, rounded_theta
from models.metrics.decision_draws import theta_steps
from models.metrics.decisions import COLUMNS, decision_summary, decisions
from models.odds.decisions import BANKER, NOT_LIVE, PUNTER, STOOD, decision_values
from tests.models.naive_decisions import banker_values, punter_values

BANK_WIN = Fraction(19, 20)  # the banker's win less the house's 5 % levy
#: Part-dealt shoes by point value: a few values gone, so the plain twin's deals stay few.
SHOES = ([5, 2, 0, 3, 0, 2, 1, 0, 1, 2], [9, 0, 3, 1, 2, 0, 2, 1, 0, 3], [4, 1, 1, 2, 0, 3, 0, 2, 2, 1])
START = dt.datetime(2026, 11, 1, 7, 0, tzinfo=dt.UTC)


def _compiled(counts, decider, total, game, thirds=(NOT_LIVE, NOT_LIVE), stakes=(0.0, 0.0)):
    table = draw_table(game, DEFAULT_POLICY)
    values = decision_values(
        np.array([counts]), np.array([decider]), np.array([total]), np.array([thirds]), np.array([stakes]),
        table.player, table.banker, float(BANK_WIN),
    )  # fmt: skip
    return tuple(values[0])


@pytest.mark.parametrize("counts", SHOES)
@pytest.mark.parametrize("game", [Game.CHEMIN_DE_FER, Game.BACCARAT_BANQUE])
def test_a_punter_on_5_equals_the_plain_enumeration(counts, game):
    got = _compiled(counts, PUNTER, 5, game)
    assert got == pytest.approx([float(x) for x in punter_values(counts, game, 5)], abs=1e-12)


@pytest.mark.parametrize("counts", SHOES)
@pytest.mark.parametrize(
    ("game", "total", "thirds", "stakes"),
    [
        (Game.CHEMIN_DE_FER, 3, (9, NOT_LIVE), (500, 0)),  # the optional cells
        (Game.CHEMIN_DE_FER, 5, (4, NOT_LIVE), (200, 0)),
        (Game.BACCARAT_BANQUE, 4, (2, STOOD), (300, 100)),  # two live hands, weighted by their stakes
        (Game.BACCARAT_BANQUE, 6, (STOOD, 7), (0, 0)),  # no stakes logged: equal weights
        (Game.BACCARAT_BANQUE, 5, (NOT_LIVE, 5), (100, 900)),  # the first hand on a natural
    ],
)
def test_a_banker_equals_the_plain_enumeration(counts, game, total, thirds, stakes):
    got = _compiled(counts, BANKER, total, game, thirds, stakes)
    plain = banker_values(counts, game, total, [None if t == NOT_LIVE else t for t in thirds], stakes, BANK_WIN)
    assert got == pytest.approx([float(x) for x in plain], abs=1e-12)


def _shoe(coups, game, bets=()):
    """One 8-deck shoe's rows (player, banker[, player2]) and its bets (round, seat, bet, amount, player, side)."""
    rounds = pl.DataFrame(
        {
            "table_id": "T1",
            "shoe_id": "S1",
            "round_no": pl.Series(range(1, len(coups) + 1), dtype=pl.Int32),
            "started_at": [START + dt.timedelta(minutes=i) for i in range(len(coups))],
            "game": game,
            "decks": pl.Series([8] * len(coups), dtype=pl.Int8),
            "bank_holder": "3",
            "outcome": "B",
            "player_cards": [coup[0] for coup in coups],
            "banker_cards": [coup[1] for coup in coups],
            "player2_cards": pl.Series([coup[2] if len(coup) > 2 else None for coup in coups], dtype=pl.String),
        }
    )
    columns = ("round_no", "seat", "bet", "amount", "player_id", "side")
    wagers = pl.DataFrame([dict(zip(columns, bet, strict=True)) for bet in bets], orient="row") if bets else None
    if wagers is None:
        wagers = pl.DataFrame(schema=dict.fromkeys(columns, pl.String))
    wagers = wagers.with_columns(
        table_id=pl.lit("T1"), shoe_id=pl.lit("S1"), round_no=pl.col("round_no").cast(pl.Int32),
        amount=pl.col("amount").cast(pl.Decimal(18, 4)), side=pl.col("side").cast(pl.Int8),
    )  # fmt: skip
    return rounds, wagers


def _left(*hands):
    """An 8-deck shoe's cards by value less those of `hands` (tokens)."""
    counts = list(Composition.full(8).values)
    for hand in hands:
        for token in hand.split():
            counts[0 if token[0] in "TJQK" else 1 if token[0] == "A" else int(token[0])] -= 1
    return counts


def test_a_chemin_de_fer_shoe_has_a_row_per_free_choice():
    coups = [
        ("2H 3D 9C", "3S KD"),  # the punter draws on 5; the banker on 3 stands against a 9 (optional)
        ("9H KC", "2D 3C"),  # a natural: no choice
        ("KH 7C", "4D AC 2S"),  # the punter stands on 7, the banker draws on 5: the rules decide
        ("AH 3C 4D", "2C 3H 5D"),  # the banker on 5 draws against a 4 (optional)
    ]
    bets = [
        (1, "1", "player", 100, "PL1", None), (1, "2", "player", 300, "PL2", None),
        (1, "3", "banker", 400, "PL9", None), (4, "1", "player", 50, "PL1", None), (4, "3", "banker", 50, "PL9", None),
    ]  # fmt: skip
    rated = decisions(*_shoe(coups, "chemin_de_fer", bets))
    assert rated.columns == list(COLUMNS)
    assert rated.select("round_no", "decider", "total", "facing", "choice").rows() == [
        (1, "banker", 3, "9", "stand"),
        (1, "punter", 5, None, "draw"),
        (4, "banker", 5, "4", "draw"),
    ]
    punter = rated.row(1, named=True)
    plain = punter_values(_left("2H 3D"), Game.CHEMIN_DE_FER, 5)
    assert (punter["ev_draw"], punter["ev_stand"]) == pytest.approx([float(x) for x in plain], abs=1e-12)
    assert (punter["player_id"], punter["stake"], punter["cards"], punter["hand"]) == ("PL2", Decimal(400), "2H 3D", 1)
    # the banker at coup 4 saw the earlier coups, his own two cards and the punter's third
    banker = rated.row(2, named=True)
    seen = _left(*coups[0], *coups[1], *coups[2], "2C 3H", "4D")
    plain = banker_values(seen, Game.CHEMIN_DE_FER, 5, [4], [50], BANK_WIN)
    assert (banker["ev_draw"], banker["ev_stand"]) == pytest.approx([float(x) for x in plain], abs=1e-12)
    assert (banker["player_id"], banker["bank_holder"], banker["tenure"]) == ("PL9", "3", 1)  # the bank won throughout
    for row in rated.iter_rows(named=True):
        best = max(row["ev_draw"], row["ev_stand"])
        made = row["ev_draw"] if row["choice"] == "draw" else row["ev_stand"]
        assert row["cost"] == pytest.approx(best - made, abs=1e-12) and row["cost"] >= 0
        assert row["better"] == ("draw" if row["ev_draw"] > row["ev_stand"] else "stand")
    assert abs(float(rated["cost_money"][1]) - punter["cost"] * 400) <= 5e-5
    # the equilibrium at each information set (8 decks, the house's 5 % on the bank's wins), and the house
    solved = chemin_de_fer(8, Fraction(1, 20), Model.B3)
    assert rated["equilibrium_draw"].to_list() == [solved.banker[3, 0, 9], solved.punter[2, 3], solved.banker[2, 3, 4]]
    assert rated["house_draw"].to_list() == [1.0, 1.0, 1.0]  # Punto Banco's banker draws on 3 v 9 and 5 v 4


def test_a_banque_banker_sees_a_natural_turned_over():
    coups = [("2H 3D", "AH 2S 4C", "KC 9D")]  # hand 1 stands on 5, hand 2 has a natural, the banker draws on 3
    bets = [(1, "1", "player", 200, "PL1", 1), (1, "2", "player", 500, "PL2", 2)]
    rated = decisions(*_shoe(coups, "baccarat_banque", bets))
    assert rated.select("decider", "hand", "facing", "choice", "stake").rows() == [
        ("banker", None, "stood / natural", "draw", Decimal(200)),
        ("punter", 1, None, "stand", Decimal(200)),
    ]
    plain = banker_values(_left("AH 2S", "KC 9D"), Game.BACCARAT_BANQUE, 3, [STOOD, None], [200, 500], BANK_WIN)
    assert tuple(rated.row(0)[15:17]) == pytest.approx([float(x) for x in plain], abs=1e-12)
    # the punter saw the other hand's natural too
    plain = punter_values(_left("2H 3D", "KC 9D"), Game.BACCARAT_BANQUE, 5)
    assert tuple(rated.row(1)[15:17]) == pytest.approx([float(x) for x in plain], abs=1e-12)
    # theta = 200 / 700 rounds to 3/10; the banker (on 3) saw hand 1 stand and hand 2's natural
    solved = baccarat_banque(Fraction(3, 10))
    assert rated["equilibrium_draw"].to_list() == [
        solved.banker[3, SHOWN_STOOD, SHOWN_NATURAL],
        solved.punters[0, 2, 3],
    ]
    # the house answers the larger stake, hand 2, whose natural settles it: the banker stands
    assert rated["house_draw"].to_list() == [0.0, 1.0]


@pytest.mark.parametrize(
    ("stakes", "steps"),
    [((0, 0), 5), ((35, 65), 4), ((25, 75), 2), ((1, 999), 1), ((999, 1), 9), ((200, 500), 3), ((15, 85), 2)],
)
def test_theta_rounds_on_the_solvers_grid(stakes, steps):
    assert theta_steps(np.array([stakes])).tolist() == [steps]
    if sum(stakes):
        assert rounded_theta(Fraction(stakes[0], sum(stakes))) == Fraction(steps, 10)


def _free_choices(rounds: pl.DataFrame) -> set:
    """The free choices of the coups, read plainly from their cards and the tableau."""
    value = lambda token: 0 if token[0] in "TJQK" else 1 if token[0] == "A" else int(token[0])  # noqa: E731
    found = set()
    for row in rounds.iter_rows(named=True):
        game = Game(row["game"])
        hands = [[value(t) for t in (row[h] or "").split()] for h in ("player_cards", "banker_cards", "player2_cards")]
        player, banker, second = hands
        key = (row["table_id"], row["shoe_id"], row["round_no"])
        bt, pt = sum(banker[:2]) % 10, sum(player[:2]) % 10
        if bt >= 8:
            continue
        sides = [(1, player)] + ([(2, second)] if game is Game.BACCARAT_BANQUE else [])
        live = [(side, hand) for side, hand in sides if sum(hand[:2]) % 10 < 8]
        if game is Game.CHEMIN_DE_FER and pt >= 8:
            continue
        for side, hand in live:
            if tableau(game, Hand.PLAYER, sum(hand[:2]) % 10) is Draw.OPTIONAL:
                found.add((*key, "punter", side))
        third = (live[0][1][2] if len(live[0][1]) == 3 else None) if live else None
        if live and tableau(game, Hand.BANKER, bt, third) is Draw.OPTIONAL:
            found.add((*key, "banker", None))
    return found


@pytest.fixture(scope="module")
def choice_warehouse(tmp_path_factory) -> Path:
    """A small warehouse of its own: Chemin de Fer and Baccarat Banque dealt, ingested and built."""
    from models.metrics.build import build
    from models.simulate.config import Simulation
    from models.simulate.run import write_simulation
    from models.warehouse.ingest import ingest

    folder = tmp_path_factory.mktemp("choices")
    sim = Simulation(shoes=6, tables=2, shoes_per_day=2, games=(Game.CHEMIN_DE_FER, Game.BACCARAT_BANQUE),
                     start=dt.date(2026, 11, 1), seed=5)  # fmt: skip
    write_simulation(sim, folder / "landing")
    ingest(folder / "banco.duckdb", [folder / "landing"])
    build(folder / "banco.duckdb")
    return folder / "banco.duckdb"


def test_the_built_mart_has_a_row_per_free_choice_and_no_negative_cost(choice_warehouse):
    with duckdb.connect(str(choice_warehouse), read_only=True) as con:
        rounds = con.sql("SELECT * FROM core.rounds").pl()
        rated = con.sql("SELECT * FROM marts.decisions").pl()
        summary = con.sql("SELECT * FROM marts.decision_summary").pl()
    assert set(rated["game"]) == {"chemin_de_fer", "baccarat_banque"}
    assert set(rated["decider"]) == {"punter", "banker"}
    keys = set(rated.select("table_id", "shoe_id", "round_no", "decider", "hand").rows())
    assert keys == _free_choices(rounds) and len(keys) == rated.height
    assert rated["cost"].null_count() == 0 and (rated["cost"] >= 0).all()
    assert (rated["cost_money"] >= 0).all() and rated["equilibrium_draw"].null_count() == 0
    assert rated.filter(pl.col("choice") != pl.col("better"))["cost"].min() > 0
    # the sums: every decision once, by punter or by bank tenure
    assert summary["decisions"].sum() == rated.height
    assert summary["deviations"].sum() == (rated["cost"] > 0).sum()
    assert summary["cost_money"].sum() == rated["cost_money"].sum()
    assert summary.filter(pl.col("decider") == "banker")["tenure"].null_count() == 0


def _plain_equilibrium(row: dict, stakes: dict) -> float:
    """The equilibrium's draw at a rated row, looked up one row at a time from its cards and what it faced."""
    value = lambda token: 0 if token[0] in "TJQK" else 1 if token[0] == "A" else int(token[0])  # noqa: E731
    a, b = (value(token) for token in row["cards"].split())
    if row["game"] == "chemin_de_fer":
        solved = chemin_de_fer(row["decks"], Fraction(1, 20), Model.B3)
        if row["decider"] == "punter":
            return solved.punter[a, b]
        return solved.banker[a, b, STOOD if row["facing"] == "stood" else int(row["facing"])]
    one, two = (stakes.get((row["table_id"], row["shoe_id"], row["round_no"], side), 0) for side in (1, 2))
    solved = baccarat_banque(Fraction(one) / Fraction(one + two) if one + two else Fraction(1, 2))
    if row["decider"] == "punter":
        return solved.punters[row["hand"] - 1, a, b]
    code = {"stood": SHOWN_STOOD, "natural": SHOWN_NATURAL}
    first, second = (code[shown] if shown in code else int(shown) for shown in row["facing"].split(" / "))
    return solved.banker[row["total"], first, second]


def test_the_built_mart_holds_the_equilibrium_of_each_information_set(choice_warehouse):
    with duckdb.connect(str(choice_warehouse), read_only=True) as con:
        rated = con.sql("SELECT * FROM marts.decisions").pl()
        bets = con.sql(
            "SELECT table_id, shoe_id, round_no, coalesce(side, 1) AS side, sum(amount) AS stake FROM core.bets "
            "WHERE bet = 'player' GROUP BY ALL"
        ).pl()
        styles = con.sql("SELECT * FROM marts.decision_styles").pl()
    stakes = {key[:4]: key[4] for key in bets.rows()}
    plain = [_plain_equilibrium(row, stakes) for row in rated.iter_rows(named=True)]
    assert rated["equilibrium_draw"].to_list() == plain
    # the simulator's bankers play the house's policy: house_draw says what each did
    bankers = rated.filter(pl.col("decider") == "banker")
    assert bankers.height and bankers["house_draw"].is_in([0.0, 1.0]).all()
    assert ((bankers["choice"] == "draw") == (bankers["house_draw"] == 1.0)).all()
    # every decision naming a player is in one player's style row
    assert styles["decisions"].sum() == rated["player_id"].count()
    assert styles["cost_money"].sum() == rated.filter(pl.col("player_id").is_not_null())["cost_money"].sum()


def test_the_summary_sums_by_punter_and_by_tenure():
    coups = [("2H 3D 9C", "3S KD"), ("4H AD 2C", "5C KD"), ("TH 5C 2D", "QS 7D")]
    bets = [(r, "1", "player", 100, "PL1", None) for r in (1, 2, 3)] + [
        (r, "3", "banker", 100, "PL9", None) for r in (1, 2, 3)
    ]
    rated = decisions(*_shoe(coups, "chemin_de_fer", bets))
    summary = decision_summary(rated)
    assert summary.select("decider", "player_id", "tenure", "decisions").rows() == [
        ("banker", "PL9", 1, 1),
        ("punter", "PL1", None, 3),
    ]
    assert summary["cost_money"].sum() == rated["cost_money"].sum()
