"""Advantage players: the counters' true count, their wagers recounted from the written logs' cards,
the perfect player's side bets against the exact engine, the labels, and nothing changed when off."""

import hashlib

import numpy as np
import polars as pl
import pytest

from models.game.cards import RANKS, parse_hand
from models.game.games import Game
from models.game.shoe import Composition
from models.odds.exact import exact_odds
from models.simulate import advantage
from models.simulate.advantage import (
    DRAGON7_TAGS,
    DRAGON7_THRESHOLD,
    PANDA8_TAGS,
    PANDA8_THRESHOLD,
    in_last_part,
    reaches,
    running_count,
    true_count,
)
from models.simulate.config import Population, Simulation
from models.simulate.engine import Crowd, simulate
from models.simulate.frames import day_opening
from models.simulate.players import POOL_SCHEMA, draw_players
from models.simulate.run import PLAYERS_FOLDER, write_simulation

SIDE_BETS = ("player_pair", "banker_pair", "dragon7", "panda8", *(f"egalite_{total}" for total in range(10)))
KEY = ["table_id", "shoe_id", "round_no"]
#: Two days of three house-banked games and Chemin de Fer, a third of the pool advantage players.
SIM = Simulation(
    shoes=2 * 4 * 6,
    seed=21,
    games=(Game.PUNTO_BANCO, Game.EZ_BACCARAT, Game.SUPER6, Game.CHEMIN_DE_FER),
    tables=4,
    shoes_per_day=6,
    population=Population(advantage_share=0.3),
)


def test_the_true_count_against_a_hand_count():
    ranks = "894K72A8"  # Dragon 7: +2 +2 -1 0 -1 0 0 +2; Panda 8: -2 +4 -2 +1 -1 +1 +1 -2
    assert running_count(DRAGON7_TAGS, ranks) == 4
    assert running_count(PANDA8_TAGS, ranks) == 0
    assert true_count(DRAGON7_TAGS, ranks, decks=1) == pytest.approx(4 * 52 / 44)  # 44 cards left
    assert true_count(DRAGON7_TAGS, ranks[:3], decks=8) == pytest.approx(3 * 52 / 413)
    assert running_count(DRAGON7_TAGS, "TJQK") == 0 and running_count(PANDA8_TAGS, "TJQK") == 4
    assert reaches(4, 44, 4) and reaches(4, 52, 4) and not reaches(4, 53, 4)  # TC 4 exactly reaches 4
    assert in_last_part(83, 416) and not in_last_part(84, 416)
    # both counts are balanced: a whole shoe counts to 0
    assert running_count(DRAGON7_TAGS, RANKS * 32) == running_count(PANDA8_TAGS, RANKS * 32) == 0


@pytest.fixture(scope="module")
def dealt():
    chunks = list(simulate(SIM))
    rounds = pl.concat([chunk.rounds for chunk in chunks])
    bets = pl.concat([chunk.bets for chunk in chunks])
    crowd = Crowd(SIM)
    plans = pl.concat([crowd.plan(day).frame() for day in range(SIM.days)])
    truth = crowd.players.frame()
    coups = _recounted(
        _seated(_timed(rounds), plans).filter(pl.col("game").is_in(["punto_banco", "ez_baccarat", "super6"]))
    )
    wagers = bets.join(truth.select("player_id", "kind"), on="player_id")
    return coups, wagers, truth


def _timed(rounds):
    """Each coup's day index, table number and seconds since its day opened, as the seating counts them."""
    day = (pl.col("started_at").dt.offset_by(f"-{SIM.day_start_hour}h").dt.date() - pl.lit(SIM.start)).dt.total_days()
    rounds = rounds.with_columns(day=day.cast(pl.Int32), table=pl.col("table_id").str.slice(1).cast(pl.Int32) - 1)
    openings = pl.DataFrame({"day": range(SIM.days), "opening": [day_opening(SIM, d) for d in range(SIM.days)]})
    return rounds.join(openings.cast({"day": pl.Int32}), on="day").with_columns(
        t=pl.col("started_at").dt.epoch("us") / 1e6 - pl.col("opening")
    )


def _seated(coups, plans):
    """Each coup with `seated`: the player numbers the day's plan has at the table then."""
    sat = coups.select(*KEY, "day", "table", "t").join(plans, on=["day", "table"])
    sat = sat.filter(pl.col("start") <= pl.col("t"), pl.col("t") < pl.col("end"))
    labels = sat.group_by(KEY).agg(seated=pl.format("PL{}", pl.col("player").cast(pl.String).str.zfill(5)))
    return coups.join(labels, on=KEY, how="left").with_columns(pl.col("seated").fill_null([]))


def _recounted(coups):
    """Per coup the cards dealt in its shoe before it (the logged hands' tokens), both running counts
    and the cards left: what a counter knows when the coup is bet."""
    rows = []
    for _, shoe in coups.sort(KEY).group_by("table_id", "shoe_id", maintain_order=True):
        seen = []
        for coup in shoe.iter_rows(named=True):
            ranks = [token[0] for token in seen]
            rows.append(
                {
                    **{name: coup[name] for name in KEY},
                    "seen": list(seen),
                    "dragon7_rc": running_count(DRAGON7_TAGS, ranks),
                    "panda8_rc": running_count(PANDA8_TAGS, ranks),
                    "left": coup["decks"] * 52 - len(seen),
                }
            )
            seen += [token for hand in ("player_cards", "banker_cards") for token in coup[hand].split()]
    return coups.join(pl.DataFrame(rows), on=KEY)


def _wagers_of(wagers, kind, bet):
    return {
        tuple(row)
        for row in wagers.filter(pl.col("kind") == kind, pl.col("bet") == bet).select(*KEY, "player_id").iter_rows()
    }


def _expected(coups, kind, truth, rich):
    """(coup, player) for every coup where `rich` holds and a player of `kind` is seated."""
    of_kind = set(truth.filter(pl.col("kind") == kind)["player_id"])
    return {
        (row["table_id"], row["shoe_id"], row["round_no"], who)
        for row in coups.iter_rows(named=True)
        if rich(row)
        for who in row["seated"]
        if who in of_kind
    }


@pytest.mark.parametrize(
    ("kind", "bet", "rc", "threshold"),
    [
        ("dragon7_counter", "dragon7", "dragon7_rc", DRAGON7_THRESHOLD),
        ("panda8_counter", "panda8", "panda8_rc", PANDA8_THRESHOLD),
    ],
)
def test_a_counter_bets_exactly_when_the_true_count_reaches_the_threshold(dealt, kind, bet, rc, threshold):
    coups, wagers, truth = dealt
    placed = _wagers_of(wagers, kind, bet)
    expected = _expected(coups, kind, truth, lambda row: reaches(row[rc], row["left"], threshold))
    assert len(expected) >= 5, "the run must give the counters something to bet"
    assert placed == expected
    at_max = wagers.filter(pl.col("kind") == kind, pl.col("bet") == bet)["amount"]
    assert (at_max == SIM.population.side_max).all()
    # no other side bet, and the main game as anyone's
    assert wagers.filter(pl.col("kind") == kind, pl.col("bet").is_in(SIDE_BETS), pl.col("bet") != bet).height == 0
    assert wagers.filter(pl.col("kind") == kind, pl.col("bet").is_in(["banker", "player"])).height > 20


def test_the_wonger_bets_only_rich_late_shoes_at_the_maximum(dealt):
    coups, wagers, truth = dealt
    house = wagers.join(coups.select(KEY), on=KEY)
    of_wonger = house.filter(pl.col("kind") == "wonger")
    assert of_wonger["bet"].unique().to_list() == ["dragon7"]
    assert (of_wonger["amount"] == SIM.population.side_max).all()

    def rich_and_late(row):
        return in_last_part(row["left"], row["decks"] * 52) and reaches(
            row["dragon7_rc"], row["left"], DRAGON7_THRESHOLD
        )

    expected = _expected(coups, "wonger", truth, rich_and_late)
    assert len(expected) >= 3
    assert _wagers_of(wagers, "wonger", "dragon7") == expected


def _side_edges(coup):
    """Each side bet's player edge (minus the house edge) for the composition rebuilt from the log."""
    composition = Composition.after(coup["decks"], parse_hand(" ".join(coup["seen"])))
    odds = exact_odds(composition, Game(coup["game"])).bets()
    return {bet: -odds[bet].edge for bet in SIDE_BETS}


def test_the_perfect_player_bets_the_positive_side_bets(dealt):
    coups, wagers, truth = dealt
    perfect = set(truth.filter(pl.col("kind") == "perfect_player")["player_id"])
    sides = wagers.filter(pl.col("kind") == "perfect_player", pl.col("bet").is_in(SIDE_BETS))
    by_coup = {}
    for row in sides.iter_rows(named=True):
        by_coup.setdefault((row["table_id"], row["shoe_id"], row["round_no"], row["player_id"]), set()).add(row["bet"])
    present = coups.filter(pl.col("seated").list.eval(pl.element().is_in(list(perfect))).list.any())
    favourable = 0
    for coup in present.iter_rows(named=True):
        edges = _side_edges(coup)
        positive = sorted((bet for bet in SIDE_BETS if edges[bet] > 1e-12), key=lambda bet: -edges[bet])
        favourable += bool(positive)
        for who in set(coup["seated"]) & perfect:
            placed = by_coup.pop((coup["table_id"], coup["shoe_id"], coup["round_no"], who), set())
            assert all(edges[bet] > 0 for bet in placed), (coup["round_no"], placed, edges)
            # the best positive ones, as many as a seat places (ties in edge, as the two pairs, either way)
            assert len(placed) == min(len(positive), 2)
            assert sorted(edges[bet] for bet in placed) == pytest.approx(sorted(edges[bet] for bet in positive[:2]))
    assert favourable >= 3, "the run must give the perfect player something to bet"
    assert not by_coup, "side wagers at coups the recount does not find the player at"
    assert (sides["amount"] == SIM.population.side_max).all()


def test_advantage_players_at_other_tables_play_as_ordinary_ones(dealt):
    _, wagers, _ = dealt
    chemin = wagers.filter(pl.col("table_id") == "T04", pl.col("kind") != "ordinary")  # table 4 deals chemin_de_fer
    assert chemin.height > 0 and chemin["bet"].is_in(["banker", "player"]).all()


def test_off_by_default_every_card_bet_and_time_is_as_before():
    """The fingerprint of a seed's rounds and bets (all games) taken before advantage players came."""
    sim = Simulation(shoes=60, seed=5, games=tuple(Game), tables=6, shoes_per_day=5, timezone="Europe/Paris")
    assert sim.population.advantage_share == 0.0
    chunks = list(simulate(sim))
    rounds = pl.concat([chunk.rounds for chunk in chunks]).sort(KEY)
    bets = pl.concat([chunk.bets for chunk in chunks]).sort(*KEY, "seat", "bet")
    digests = {
        name: hashlib.sha256(frame.write_csv().encode()).hexdigest()
        for name, frame in (("rounds", rounds), ("bets", bets))
    }
    assert (rounds.height, bets.height) == (4586, 11627)
    # retaken when Banque naturals came to be settled against the banker's two cards (3 outcomes, 1 payout)
    assert digests == {
        "rounds": "aa506cc304580d28f4a4c580db79fa7a217eabcbc8a35a50284f90eae731f0e3",
        "bets": "816e926c6d1e6d42191ea5a261cfd185b85b34dd1cb404aa0a0869f560415418",
    }


def test_the_pool_file_labels_each_players_kind(tmp_path):
    summary = write_simulation(SIM, tmp_path)
    assert summary.players == tmp_path / PLAYERS_FOLDER / f"players_seed{SIM.seed}.parquet"
    written = pl.read_parquet(summary.players)
    assert written.schema == pl.Schema(POOL_SCHEMA)
    players = draw_players(SIM)
    assert written["kind"].to_list() == [advantage.KINDS[code] for code in players.kind]
    counts = written["kind"].value_counts()
    assert set(counts["kind"]) == {"ordinary", *advantage.ADVANTAGE_KINDS}  # no strategy players asked for
    assert 0.25 < (written["kind"] != "ordinary").mean() < 0.35
    assert (written.filter(pl.col("kind") != "ordinary")["side_rate"] == 0).all()


def test_ordinary_players_keep_their_habits_when_the_share_changes():
    off = draw_players(Simulation(shoes=1, seed=4)).frame()
    on = draw_players(Simulation(shoes=1, seed=4, population=Population(advantage_share=0.2))).frame()
    assert (off["kind"] == "ordinary").all()
    assert 0.15 < (on["kind"] != "ordinary").mean() < 0.25
    visits = ("side_rate", "visitor", "visits_a_month")  # an advantage player bets sides by count and comes most days
    habits = [name for name in POOL_SCHEMA if name != "kind" and name not in visits]
    assert on.select(habits).equals(off.select(habits))
    ordinary = on["kind"] == "ordinary"
    for name in visits:
        assert on.filter(ordinary)[name].equals(off.filter(ordinary)[name])
    assert (on.filter(~ordinary)["visitor"] == "regular").all()  # advantage players come most days
    only_dragon = draw_players(
        Simulation(shoes=1, seed=4, population=Population(advantage_share=0.2, advantage_mix={"dragon7_counter": 1}))
    ).frame()
    assert set(only_dragon["kind"]) == {"ordinary", "dragon7_counter"}
    assert np.array_equal(only_dragon["kind"] == "ordinary", ordinary)  # the same players are picked


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"advantage_share": 1.5}, "advantage_share must be a share of the pool from 0 to 1"),
        ({"advantage_share": -0.1}, "advantage_share must be a share"),
        ({"advantage_mix": {"card_counter": 1.0}}, "unknown advantage player kinds ['card_counter']"),
        ({"advantage_mix": {"wonger": -1.0}}, "weighs each kind 0 or more"),
        ({"advantage_mix": {"wonger": float("nan")}}, "weighs each kind 0 or more"),
        ({"advantage_share": 0.1, "advantage_mix": {"wonger": 0.0}}, "must weigh one above 0"),
    ],
)
def test_bad_advantage_settings_are_refused_with_a_clear_error(settings, message):
    with pytest.raises(ValueError, match=None) as error:
        Population(**settings)
    assert message in str(error.value) and "\n" not in str(error.value)
