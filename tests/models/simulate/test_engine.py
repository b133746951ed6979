"""Simulated round logs: the data contract, reproducibility, the population's rules, payouts."""

import datetime as dt
import random
from decimal import Decimal

import polars as pl
import pytest

from models.contract import BET_SCHEMA, ROUND_SCHEMA
from models.game.cards import parse_hand
from models.game.coup import score
from models.game.games import Game
from models.game.paytable import DEFAULT_PAYTABLE, settle
from models.simulate.config import Population, Simulation
from models.simulate.engine import simulate

ALL_GAMES = tuple(Game)


def run(sim, **kwargs):
    chunks = list(simulate(sim, **kwargs))
    rounds = pl.concat([chunk.rounds for chunk in chunks]).sort("table_id", "shoe_id", "round_no")
    bets = pl.concat([chunk.bets for chunk in chunks]).sort("table_id", "shoe_id", "round_no", "seat", "bet", "amount")
    return rounds, bets


@pytest.fixture(scope="module")
def mixed():
    sim = Simulation(shoes=60, seed=5, games=ALL_GAMES, tables=6, shoes_per_day=5, timezone="Europe/Paris")
    return sim, *run(sim)


def test_frames_follow_the_data_contract(mixed):
    _, rounds, bets = mixed
    assert rounds.schema == pl.Schema({**ROUND_SCHEMA, "started_at": pl.Datetime("us", "Europe/Paris")})
    assert bets.schema == pl.Schema(BET_SCHEMA)
    assert set(rounds["game"]) == {game.value for game in Game}
    assert rounds["outcome"].is_in(["B", "P", "T"]).all()
    assert rounds.filter(pl.col("game") == "baccarat_banque")["player2_cards"].is_not_null().all()
    assert rounds.filter(pl.col("game") != "baccarat_banque")["player2_cards"].is_null().all()
    assert rounds.select("table_id", "shoe_id", "round_no").is_unique().all()
    assert (bets["amount"] > 0).all()
    assert bets.join(rounds, on=["table_id", "shoe_id", "round_no"], how="anti").height == 0


def test_every_outcome_agrees_with_its_cards(mixed):
    _, rounds, _ = mixed
    for player, banker, outcome in rounds.select("player_cards", "banker_cards", "outcome").iter_rows():
        assert score(parse_hand(player), parse_hand(banker)).outcome == outcome


def test_time_runs_forward_within_each_table_day(mixed):
    sim, rounds, _ = mixed
    local = rounds.with_columns(day=pl.col("started_at").dt.date())
    per_table = local.sort("table_id", "started_at")
    assert per_table.group_by("table_id").agg(pl.col("shoe_id").is_sorted()).get_column("shoe_id").all()
    opening = dt.time(sim.day_start_hour)
    assert (local["started_at"].dt.time() >= opening).all()  # every coup after the day opened
    gaps = per_table.group_by("table_id", "shoe_id").agg(pl.col("started_at").diff().dt.total_seconds().max())
    assert gaps["started_at"].max() <= 1.4 * sim.coup_seconds + 1


def test_dealers_rotate_per_shift(mixed):
    _, rounds, _ = mixed
    by_table = rounds.group_by("table_id").agg(pl.col("dealer_id").n_unique())
    assert (by_table["dealer_id"] >= 2).all()
    # at any moment a dealer works at one table only
    shifts = rounds.with_columns(hour=pl.col("started_at").dt.truncate("1h"))
    assert shifts.group_by("hour", "dealer_id").agg(pl.col("table_id").n_unique())["table_id"].max() == 1


def test_same_seed_same_output_however_the_work_is_split():
    sim = Simulation(shoes=45, seed=9, games=(Game.PUNTO_BANCO, Game.CHEMIN_DE_FER), tables=3, shoes_per_day=4)
    whole = run(sim, chunk_coups=10_000_000)
    by_day = [run(sim, days=range(day, day + 1)) for day in range(sim.days)]
    small_chunks = run(sim, chunk_coups=1)
    for part in (small_chunks, tuple(pl.concat(parts) for parts in zip(*by_day, strict=True))):
        assert whole[0].equals(part[0].sort("table_id", "shoe_id", "round_no"))
        assert whole[1].equals(part[1].sort("table_id", "shoe_id", "round_no", "seat", "bet", "amount"))
    other_seed = run(Simulation(shoes=45, seed=10, games=sim.games, tables=3, shoes_per_day=4))
    assert not whole[0].equals(other_seed[0])


def _coup(row):
    return score(parse_hand(row["player_cards"]), parse_hand(row["banker_cards"]))


def test_payouts_are_what_the_settlement_function_says(mixed):
    sim, rounds, bets = mixed
    joined = bets.join(rounds, on=["table_id", "shoe_id", "round_no"])
    sample = random.Random(1).sample(list(joined.iter_rows(named=True)), 2000)
    for row in sample:
        hand = row["player2_cards"] if row["side"] == 2 else row["player_cards"]
        coup = score(parse_hand(hand), parse_hand(row["banker_cards"]))
        expected = -settle(Game(row["game"]), sim.paytable, row["bet"], row["amount"], coup).house_net
        assert row["payout"] == expected, row


def test_chemin_de_fer_bank_rides_and_is_covered_by_the_punters(mixed):
    _, rounds, bets = mixed
    chemin = bets.join(rounds.filter(pl.col("game") == "chemin_de_fer"), on=["table_id", "shoe_id", "round_no"])
    per_coup = chemin.group_by("table_id", "shoe_id", "round_no").agg(
        bank=pl.col("amount").filter(pl.col("bet") == "banker").sum(),
        punters=pl.col("amount").filter(pl.col("bet") == "player").sum(),
        holder_bets=(pl.col("seat") == pl.col("bank_holder")).filter(pl.col("bet") == "player").sum(),
    )
    assert (per_coup["bank"] == per_coup["punters"]).all()
    assert (per_coup["holder_bets"] == 0).all()
    assert set(chemin["bet"]) == {"banker", "player"}
    assert per_coup["bank"].max() > Population().chemin_initial_bank  # a winning bank rode


def test_about_three_wagers_a_coup_with_every_bet_type(mixed):
    _, rounds, bets = mixed
    house = rounds.filter(pl.col("game").is_in(["punto_banco", "super6", "ez_baccarat"]))
    house_bets = bets.join(house, on=["table_id", "shoe_id", "round_no"], how="semi")
    assert 2.5 < house_bets.height / house.height < 3.6
    assert house_bets["bet"].n_unique() == 17
    limits = Population()
    main = house_bets.filter(pl.col("bet").is_in(["banker", "player", "tie"]))
    assert main["amount"].min() >= limits.min_bet and main["amount"].max() <= limits.max_bet


def test_rounds_only():
    sim = Simulation(shoes=3, bets=False)
    (chunk,) = simulate(sim)
    assert chunk.bets is None and chunk.rounds.height > 100


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"shoes": 0}, "shoes must be at least 1"),
        ({"shoes": 1, "decks": 9}, "decks"),
        ({"shoes": 1, "timezone": "Mars/Olympus"}, "time zone"),
        ({"shoes": 1, "shoes_per_day": 30}, "hours"),
        ({"shoes": 1, "population": None}, None),
    ],
)
def test_configuration_errors(kwargs, message):
    if message is None:
        with pytest.raises(ValueError, match="seats"):
            Population(seats=15)
        return
    with pytest.raises(ValueError, match=message):
        Simulation(**kwargs)


def test_decimal_money():
    sim = Simulation(shoes=2, population=Population(min_bet=Decimal("2.50"), max_bet=Decimal(100)))
    (chunk,) = simulate(sim)
    assert chunk.bets["amount"].dtype == pl.Decimal(18, 2)
    assert isinstance(chunk.bets["payout"][0], Decimal)
    assert DEFAULT_PAYTABLE.commission == Decimal("0.05")
