"""The betting population: the pool within its configured distributions, sessions seated as people sit,
and the kernel betting only for the players the day's seating has at the table."""

import hashlib
import math

import numpy as np
import polars as pl
import pytest

from models.game.games import Game
from models.simulate.config import Population, Simulation
from models.simulate.engine import Crowd, simulate
from models.simulate.frames import day_opening
from models.simulate.players import POOL_SCHEMA, draw_players, mean_daily_chance, pool_size
from models.simulate.run import PLAYERS_FOLDER, write_simulation
from models.simulate.seating import SHORTEST_SESSION, plan_day
from models.warehouse.ingest import expand

PEOPLE = Population()
#: A large pool, so that its statistics are tight.
POOL_SIM = Simulation(shoes=1, seed=3, population=Population(player_pool=40_000))
#: Sixty days of ten tables: enough visits to count.
DAYS_SIM = Simulation(shoes=60 * 10 * 8, seed=8, tables=10, shoes_per_day=8)


@pytest.fixture(scope="module")
def pool():
    return draw_players(POOL_SIM)


@pytest.fixture(scope="module")
def sixty_days():
    crowd = Crowd(DAYS_SIM)
    plans = pl.concat([plan_day(DAYS_SIM, crowd.players, day).frame() for day in range(DAYS_SIM.days)])
    return crowd.players, plans.with_columns(seconds=pl.col("end") - pl.col("start"))


def _within(value, expected, tolerance):
    assert abs(value - expected) <= tolerance, (value, expected, tolerance)


def test_home_units_are_log_normal_within_the_limits_and_in_chips(pool):
    units = pool.unit_cents / 100
    assert units.min() >= float(PEOPLE.min_bet) and units.max() <= float(PEOPLE.max_bet)
    step = np.where(units < 100, 25, np.where(units < 1000, 100, 500))
    assert (units % step == 0).all()  # a chip's multiple: 25s, then 100s, then 500s
    # the quartiles of a log-normal of median 100 and sigma 1 are 51 and 196, rounded to chips
    assert np.median(units) == 100
    _within(np.quantile(units, 0.25), 50, 0.1)
    _within(np.quantile(units, 0.75), 200, 0.1)
    at_minimum = (units == 25).mean()  # every draw under 37.50 rounds to the minimum
    _within(at_minimum, 0.5 * (1 + math.erf(math.log(0.375) / math.sqrt(2))), 0.01)


def test_styles_spread_around_the_main_mix(pool):
    shares = pool.shares
    assert np.allclose(shares.sum(axis=1), 1.0)
    for column, bet in enumerate(("banker", "player", "tie")):
        mix = PEOPLE.main_mix[bet]
        _within(shares[:, column].mean(), mix, 0.005)
        # a Dirichlet share's spread: sqrt(p (1 - p) / (concentration + 1))
        _within(shares[:, column].std(), math.sqrt(mix * (1 - mix) / (PEOPLE.style_concentration + 1)), 0.005)


def test_side_bet_rates_many_never_a_few_often(pool):
    _within((pool.side_rate == 0).mean(), PEOPLE.side_never, 0.01)
    _within(pool.side_rate.mean(), sum(PEOPLE.side_mix.values()), 0.005)
    assert np.quantile(pool.side_rate, 0.95) > 3 * pool.side_rate.mean()  # a few bet sides often


def test_session_means_and_visits_are_as_configured(pool):
    minutes = pool.session_seconds / 60
    _within(np.median(minutes), PEOPLE.session_median_minutes, 1.5)
    _within(np.log(minutes).std(), PEOPLE.session_sigma, 0.01)
    _within(pool.regular.mean(), PEOPLE.regular_share, 0.004)
    assert (pool.daily_chance[pool.regular] == PEOPLE.regular_visit_chance).all()
    _within(pool.daily_chance[~pool.regular].mean() * 30, PEOPLE.occasional_visits, 0.05)
    _within(pool.daily_chance.mean(), mean_daily_chance(PEOPLE), 0.002)


def test_the_pool_is_sized_to_fill_the_seats(sixty_days):
    players, plans = sixty_days
    assert len(players) == pool_size(DAYS_SIM) > 1000
    seat_seconds = DAYS_SIM.days * DAYS_SIM.tables * PEOPLE.seats * DAYS_SIM.open_seconds
    _within(plans["seconds"].sum() / seat_seconds, PEOPLE.seat_occupancy, 0.08)


def test_nobody_sits_at_two_places_at_once(sixty_days):
    _, plans = sixty_days
    for by in (["day", "player"], ["day", "table", "seat"]):
        ordered = plans.sort(*by, "start")
        previous_end = pl.col("end").shift(1).over(by)
        assert ordered.filter(pl.col("start") < previous_end).height == 0, by
    # a player who moves plays at another table than the one they just left
    moves = plans.sort("day", "player", "start").with_columns(before=pl.col("table").shift(1).over("day", "player"))
    assert moves.filter(pl.col("before") == pl.col("table")).height == 0
    assert moves["before"].is_not_null().mean() > 0.1  # and some do move


def test_session_lengths_spread_around_each_players_mean(sixty_days):
    players, plans = sixty_days
    ratio = np.log(plans["seconds"].to_numpy() / players.session_seconds[plans["player"].to_numpy()])
    spread = PEOPLE.session_spread
    unclipped = plans["seconds"].to_numpy() > SHORTEST_SESSION
    _within(ratio[unclipped].mean(), -(spread**2) / 2, 0.03)  # a player's sessions keep their mean
    _within(ratio[unclipped].std(), spread, 0.03)
    minutes = plans["seconds"] / 60
    assert 40 < minutes.median() < 70 and 0.05 < (minutes > 120).mean() < 0.2  # tens of minutes to hours


def test_regulars_come_most_days_and_the_others_a_few_times_a_month(sixty_days):
    players, plans = sixty_days
    visits = np.zeros(len(players))
    counted = plans.group_by("player").agg(pl.col("day").n_unique())
    visits[counted["player"].to_numpy()] = counted["day"].to_numpy()
    days = DAYS_SIM.days
    regulars = visits[players.regular]
    # a few arrivals find every seat taken for too long and go: the visits fall short by a little
    assert PEOPLE.regular_visit_chance * days * 0.9 < regulars.mean() <= PEOPLE.regular_visit_chance * days * 1.02
    occasional = visits[~players.regular]
    assert PEOPLE.occasional_visits * 2 * 0.9 < occasional.mean() <= PEOPLE.occasional_visits * 2 * 1.05
    assert np.median(regulars) > days / 2 > np.quantile(occasional, 0.99)


def test_the_plan_depends_on_the_seed_and_the_day_alone():
    crowd = Crowd(DAYS_SIM)
    again = plan_day(DAYS_SIM, draw_players(DAYS_SIM), 5)
    assert crowd.plan(5).frame().equals(again.frame())
    assert not crowd.plan(5).frame().equals(crowd.plan(6).frame().with_columns(day=pl.lit(5, pl.Int32)))


HOUSE_GAMES = ["punto_banco", "super6", "ez_baccarat"]
MIXED = Simulation(shoes=3 * 6 * 6, seed=13, games=tuple(Game), tables=6, shoes_per_day=6, timezone="Europe/Paris")


@pytest.fixture(scope="module")
def mixed():
    chunks = list(simulate(MIXED))
    rounds = pl.concat([chunk.rounds for chunk in chunks])
    bets = pl.concat([chunk.bets for chunk in chunks])
    crowd = Crowd(MIXED)
    plans = pl.concat([crowd.plan(day).frame() for day in range(MIXED.days)])
    return crowd.players, _timed(rounds), bets, plans


def _timed(rounds):
    """Each coup's day index, table number and seconds since its day opened, as the seating counts them."""
    day = (
        pl.col("started_at").dt.offset_by(f"-{MIXED.day_start_hour}h").dt.date() - pl.lit(MIXED.start)
    ).dt.total_days()
    rounds = rounds.with_columns(day=day.cast(pl.Int32), table=(pl.col("table_id").str.slice(1).cast(pl.Int32) - 1))
    openings = pl.DataFrame({"day": range(MIXED.days), "opening": [day_opening(MIXED, d) for d in range(MIXED.days)]})
    return rounds.join(openings.cast({"day": pl.Int32}), on="day").with_columns(
        t=pl.col("started_at").dt.epoch("us") / 1e6 - pl.col("opening")
    )


def _seated(coups, plans, seat):
    """Each coup (day, table, t) with the player the plan seats at `seat` then (null when empty)."""
    at_seat = plans.filter(pl.col("seat") == seat).sort("start")
    found = coups.sort("t").join_asof(
        at_seat, left_on="t", right_on="start", by=["day", "table"], strategy="backward", check_sortedness=False
    )
    return found.with_columns(pl.when(pl.col("t") < pl.col("end")).then(pl.col("player")).alias("player"))


def test_every_wager_is_a_seated_players(mixed):
    _, rounds, bets, plans = mixed
    wagers = bets.join(rounds, on=["table_id", "shoe_id", "round_no"]).with_columns(
        seat_no=pl.col("seat").cast(pl.Int8) - 1, player_no=pl.col("player_id").str.slice(2).cast(pl.Int32)
    )
    for seat in range(MIXED.population.seats):
        at_seat = _seated(wagers.filter(pl.col("seat_no") == seat), plans, seat)
        assert (at_seat["player"] == at_seat["player_no"]).all(), seat
    # seated players bet most coups: about bet_probability of the coups they sit through are wagered on
    house = rounds.filter(pl.col("game") == "punto_banco")
    seated = pl.concat([_seated(house, plans, seat).filter(pl.col("player").is_not_null()) for seat in range(7)])
    main = wagers.filter(pl.col("game") == "punto_banco", pl.col("bet").is_in(["banker", "player", "tie"]))
    _within(main.height / seated.height, MIXED.population.bet_probability, 0.03)


def test_stakes_are_the_home_unit_swung_and_bets_follow_the_style(mixed):
    players, rounds, bets, _ = mixed
    house = bets.join(rounds.filter(pl.col("game").is_in(HOUSE_GAMES)), on=["table_id", "shoe_id", "round_no"])
    main = house.filter(pl.col("bet").is_in(["banker", "player", "tie"])).with_columns(
        player_no=pl.col("player_id").str.slice(2).cast(pl.Int32), cents=(pl.col("amount") * 100).cast(pl.Int64)
    )
    unit = players.unit_cents[main["player_no"].to_numpy()]
    low, high = int(MIXED.population.min_bet * 100), int(MIXED.population.max_bet * 100)
    allowed = [np.clip((unit * swing) // low * low, low, high) for swing in (0.5, 1.0, 2.0)]
    cents = main["cents"].to_numpy()
    assert ((cents == allowed[0]) | (cents == allowed[1]) | (cents == allowed[2])).all()
    # each player backs Banker as often as their own style says, not the population's mix: the mean
    # squared z of their Banker counts is about 1 (with the mix alone it would be several times that)
    by_player = main.group_by("player_no").agg(pl.len(), banker=(pl.col("bet") == "banker").sum())
    many = by_player.filter(pl.col("len") >= 50)
    assert many.height >= 30
    n, observed = many["len"].to_numpy(), many["banker"].to_numpy()
    for share, low_z, high_z in ((players.shares[many["player_no"].to_numpy(), 0], 0.6, 1.5), (0.5, 2.0, np.inf)):
        z = (observed - n * share) / np.sqrt(n * share * (1 - share))
        assert low_z < (z**2).mean() < high_z


def test_the_bank_is_held_by_a_seated_player(mixed):
    _, rounds, bets, plans = mixed
    for game in ("chemin_de_fer", "banco"):
        coups = rounds.filter(pl.col("game") == game).with_columns(seat_no=pl.col("bank_holder").cast(pl.Int8) - 1)
        anyone = pl.concat(
            [_seated(coups, plans, seat).select("table_id", "shoe_id", "round_no", "player") for seat in range(7)]
        )
        occupied = anyone.group_by("table_id", "shoe_id", "round_no").agg(pl.col("player").is_not_null().any())
        holder = pl.concat(
            [_seated(coups.filter(pl.col("seat_no") == seat), plans, seat) for seat in range(MIXED.population.seats)]
        ).join(occupied, on=["table_id", "shoe_id", "round_no"], suffix="_any")
        with_players = holder.filter(pl.col("player_any"))
        assert with_players.height > 0.5 * coups.height
        assert with_players["player"].is_not_null().all(), game  # whenever anyone sits, a seated player holds it
    banks = bets.join(rounds.filter(pl.col("game") == "chemin_de_fer"), on=["table_id", "shoe_id", "round_no"])
    assert (banks.filter(pl.col("bet") == "banker").select(pl.col("seat") == pl.col("bank_holder")).to_series()).all()


def _occupied(coups, plans):
    """Each coup with `seated`: per seat, whether the plan has a player there then."""
    key = ["table_id", "shoe_id", "round_no"]
    flags = coups.select(*key)
    for seat in range(MIXED.population.seats):
        at_seat = _seated(coups, plans, seat).select(*key, pl.col("player").is_not_null().alias(f"s{seat}"))
        flags = flags.join(at_seat, on=key)
    return coups.join(
        flags.select(*key, seated=pl.concat_list(f"s{seat}" for seat in range(MIXED.population.seats))), on=key
    )


@pytest.mark.parametrize(
    ("game", "rule"),
    [("punto_banco", ["P"]), ("chemin_de_fer", ["P", "B"]), ("banco", ["P", "B"]), ("baccarat_banque", [])],
)
def test_the_bank_passes_by_the_games_rule_or_when_its_holder_leaves(mixed, game, rule):
    """While its holder stays, the bank passes by the rule only (Chemin de Fer's may be withdrawn on a
    Banker win); a bank whose holder has left passes on."""
    _, rounds, _, plans = mixed
    coups = _occupied(rounds.filter(pl.col("game") == game), plans).sort("table_id", "shoe_id", "round_no")
    holder = pl.col("bank_holder").cast(pl.Int32) - 1
    pairs = coups.with_columns(
        next_holder=pl.col("bank_holder").shift(-1).over("table_id", "shoe_id"),
        stays=pl.col("seated").shift(-1).over("table_id", "shoe_id").list.get(holder),
        anyone_next=pl.col("seated").shift(-1).over("table_id", "shoe_id").list.any(),
    ).filter(pl.col("next_holder").is_not_null())
    passed = pl.col("bank_holder") != pl.col("next_holder")
    assert pairs.filter(passed, pl.col("stays"), ~pl.col("outcome").is_in(rule)).height == 0
    left = pairs.filter(~pl.col("stays"), pl.col("anyone_next"))
    assert left.filter(~passed).height == 0  # nobody holds the bank of an empty seat while others sit
    if game == "punto_banco":  # the shoe passes on nearly every Player win (not with one player alone)
        wins = pairs.filter(pl.col("stays"), pl.col("outcome") == "P")
        assert wins.filter(passed).height > 0.8 * wins.height


def test_the_cards_of_a_seed_are_the_cards_dealt_before_the_population_changed():
    """The seating changed the betting streams only: these are the cards and outcomes the simulator
    dealt for this run before it (every game whose draws do not depend on the stakes)."""
    sim = Simulation(shoes=60, seed=5, games=tuple(Game), tables=6, shoes_per_day=5, timezone="Europe/Paris")
    rounds = pl.concat([chunk.rounds for chunk in simulate(sim)])
    # baccarat_banque's banker draws against the side staked more: its cards follow the bets
    dealt = rounds.filter(pl.col("game") != "baccarat_banque").sort("table_id", "shoe_id", "round_no")
    columns = ("table_id", "shoe_id", "round_no", "player_cards", "banker_cards", "outcome")
    text = "\n".join("|".join(map(str, row)) for row in dealt.select(columns).iter_rows())
    assert dealt.height == 4047
    assert (
        hashlib.sha256(text.encode()).hexdigest() == "5aa36251a7421062671b721e8cbef509bfcf2792d26ccc044b6c0c8603f71357"
    )


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_the_pool_is_written_beside_the_logs_as_ground_truth(tmp_path, fmt):
    sim = Simulation(shoes=4, seed=6, tables=2, shoes_per_day=2)
    summary = write_simulation(sim, tmp_path, fmt)
    assert summary.players == tmp_path / PLAYERS_FOLDER / f"players_seed6.{fmt}"
    truth = draw_players(sim).frame()
    written = pl.read_parquet(summary.players) if fmt == "parquet" else pl.read_csv(summary.players, schema=POOL_SCHEMA)
    assert written.equals(truth)
    assert truth["visitor"].value_counts().height == 2 and truth["home_unit"].min() >= sim.population.min_bet
    bets = pl.concat(pl.read_parquet(path) if fmt == "parquet" else pl.read_csv(path, infer_schema=False)
                     for path in tmp_path.glob(f"bets_*.{fmt}"))  # fmt: skip
    assert set(bets["player_id"]) <= set(truth["player_id"])
    assert summary.players not in expand([tmp_path])  # the ingester passes over it
    assert write_simulation(Simulation(shoes=1, bets=False), tmp_path / "no_bets").players is None
