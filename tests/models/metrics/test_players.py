"""Player ratings on coups and wagers written by hand, each figure worked out by hand beside it."""

import datetime as dt
from decimal import Decimal

import duckdb
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from models.game.paytable import DEFAULT_PAYTABLE
from models.gaming_day import GamingDay, gaming_day
from models.metrics.players import player_bets, player_day, player_sessions, players, players_of_totals, players_sql
from models.metrics.ratings import joined_coup_rows, rate
from models.metrics.side_bets import side_bets
from models.warehouse import settlement

NOON = dt.datetime(2026, 11, 2, 12, 0, tzinfo=dt.UTC)
DAY = dt.date(2026, 11, 2)


def expectation() -> pl.DataFrame:
    """The exact expectation of every bet (cached by settlement; computed when a test first asks)."""
    return settlement.house_expectation(DEFAULT_PAYTABLE)


def variance() -> pl.DataFrame:
    return expectation().select("game", "decks", "bet", "house_variance").with_columns(pl.col("decks").cast(pl.Int8))


def at(minutes: float) -> dt.datetime:
    return NOON + dt.timedelta(minutes=minutes)


def edge(bet: str, game: str = "punto_banco", decks: int = 8) -> Decimal:
    """The bet's exact house edge from the settlement module (as the ingest's theo uses it)."""
    row = expectation().filter(game=game, decks=decks, bet=bet)
    return Decimal(repr(row["edge"].item()))


def per_unit(bet: str, game: str = "punto_banco", decks: int = 8) -> float:
    return expectation().filter(game=game, decks=decks, bet=bet)["house_variance"].item()


def theo(amount: str, bet: str) -> Decimal:
    return (Decimal(amount) * edge(bet)).quantize(Decimal("0.000001"))


def coups(*rows: tuple[str, str, int, dt.datetime]) -> pl.DataFrame:
    """Coups (table, shoe, round, start) of 8-deck punto banco, with their gaming day (06:00 UTC)."""
    frame = pl.DataFrame(rows, schema=["table_id", "shoe_id", "round_no", "started_at"], orient="row")
    return frame.with_columns(
        pl.col("round_no").cast(pl.Int32),
        pl.col("started_at").cast(pl.Datetime("us", "UTC")),
        game=pl.lit("punto_banco"),
        decks=pl.lit(8, pl.Int8),
    ).with_columns(gaming_day(pl.col("started_at"), GamingDay()))


def wagers(*rows: tuple) -> pl.DataFrame:
    """Wagers (table, shoe, round, player, bet, amount, house_net); theo is amount x the exact edge."""
    frame = pl.DataFrame(
        [(*row[:6], row[6], theo(row[5], row[4])) for row in rows],
        schema=["table_id", "shoe_id", "round_no", "player_id", "bet", "amount", "house_net", "theo"],
        orient="row",
    )
    return frame.with_columns(
        pl.col("round_no").cast(pl.Int32),
        pl.col("amount", "house_net").cast(pl.Decimal(18, 4)),
        pl.col("theo").cast(pl.Decimal(18, 6)),
    )


def marts(rounds: pl.DataFrame, bets: pl.DataFrame, gap: float = 30, comp_rate: str = "0") -> dict[str, pl.DataFrame]:
    """The rating marts as the build makes them from these coups and wagers."""
    rated = rate(rounds, joined_coup_rows(bets, rounds), bets, variance(), dt.timedelta(minutes=gap))
    sessions = player_sessions(rated)
    return {
        "sessions": sessions,
        "day": player_day(sessions, Decimal(comp_rate)),
        "bets": player_bets(rated.player_bets),
        "side": side_bets(rated.side_bets),
        "players": players(sessions.lazy(), Decimal(comp_rate)),
    }


def test_a_pause_longer_than_the_gap_starts_a_new_rating_and_one_of_exactly_the_gap_does_not():
    # coups a minute apart in one shoe, then 40 minutes later, then exactly 30 minutes after that
    rounds = coups(
        ("T1", "S1", 1, at(0)),
        ("T1", "S1", 2, at(1)),
        ("T1", "S1", 3, at(2)),
        ("T1", "S1", 4, at(42)),
        ("T1", "S1", 5, at(72)),
        ("T1", "S1", 6, at(73)),
    )
    bets = wagers(
        ("T1", "S1", 1, "P1", "banker", "100", "-95"),
        ("T1", "S1", 2, "P1", "player", "50", "50"),
        ("T1", "S1", 4, "P1", "banker", "20", "20"),
        ("T1", "S1", 5, "P1", "banker", "30", "-28.5"),
    )
    got = marts(rounds, bets)["sessions"]
    assert got["session"].to_list() == [1, 2]
    # a coup's typical length at T1 that day: the gaps 1, 1, 40, 30, 1 minutes, median 1
    assert got["started_at"].to_list() == [at(0), at(42)]
    assert got["ended_at"].to_list() == [at(1 + 1), at(72 + 1)]
    assert got["minutes"].to_list() == [2.0, 31.0]
    assert got["decisions"].to_list() == [2, 2]
    assert got["handle"].to_list() == [Decimal("150"), Decimal("50")]
    assert got["average_bet"].to_list() == [Decimal("75"), Decimal("25")]
    assert got["max_bet"].to_list() == [Decimal("100"), Decimal("30")]
    assert got["house_win"].to_list() == [Decimal("-45"), Decimal("-8.5")]
    assert got["theo"].to_list() == [
        theo("100", "banker") + theo("50", "player"),
        theo("20", "banker") + theo("30", "banker"),
    ]
    first_hour = float(theo("100", "banker") + theo("50", "player")) / (2 / 60)
    assert got["theo_per_hour"][0] == pytest.approx(first_hour, rel=1e-12)
    # a longer gap joins the two
    assert marts(rounds, bets, gap=45)["sessions"]["session"].to_list() == [1]


def test_another_table_is_another_rating_and_the_day_counts_both():
    rounds = coups(("T1", "S1", 1, at(0)), ("T1", "S1", 2, at(2)), ("T2", "S7", 1, at(5)), ("T2", "S7", 2, at(8)))
    bets = wagers(
        ("T1", "S1", 1, "P1", "banker", "10", "-9.5"),
        ("T1", "S1", 2, "P1", "banker", "10", "10"),
        ("T2", "S7", 1, "P1", "player", "40", "-40"),
        ("T2", "S7", 2, "P2", "player", "5", "5"),
    )
    got = marts(rounds, bets)
    sessions = got["sessions"].filter(player_id="P1")
    assert sessions.select("table_id", "session", "decisions", "minutes").rows() == [
        ("T1", 1, 2, 4.0),
        ("T2", 1, 1, 3.0),
    ]
    day = got["day"].filter(player_id="P1").row(0, named=True)
    assert (day["sessions"], day["tables"], day["decisions"], day["wagers"]) == (2, 2, 3, 3)
    assert day["minutes"] == 7.0  # 4 at T1 (0 to 2, plus its coups' 2 minutes), 3 at T2 (one coup at 5, of 3)
    assert day["handle"] == Decimal("60") and day["average_bet"] == Decimal("20") and day["max_bet"] == Decimal("40")
    assert day["house_win"] == Decimal("-39.5")
    assert day["theo"] == 2 * theo("10", "banker") + theo("40", "player")


def test_a_tie_that_pushes_a_banker_wager_is_a_decision():
    rounds = coups(("T1", "S1", 1, at(0)), ("T1", "S1", 2, at(1)))
    # coup 2 is a tie: the Banker wager pushes (house_net 0), the tie wager on it loses for the house
    bets = wagers(
        ("T1", "S1", 1, "P1", "banker", "100", "100"),
        ("T1", "S1", 2, "P1", "banker", "100", "0"),
        ("T1", "S1", 2, "P1", "tie", "10", "-80"),
    )
    got = marts(rounds, bets)["sessions"].row(0, named=True)
    assert (got["decisions"], got["wagers"]) == (2, 3)
    assert got["handle"] == Decimal("210") and got["average_bet"] == Decimal("105")
    assert got["handle_main"] == Decimal("200") and got["handle_side"] == Decimal("10")
    assert got["house_win"] == Decimal("20")


def test_side_bet_theo_is_the_amount_times_the_exact_edge_and_unrated_wagers_count():
    rounds = coups(("T1", "S1", 1, at(0)), ("T1", "S1", 2, at(1)))
    bets = wagers(
        ("T1", "S1", 1, "P1", "dragon7", "25", "25"),
        ("T1", "S1", 2, None, "dragon7", "15", "-600"),
        ("T1", "S1", 2, "P1", "player_pair", "10", "10"),
        ("T1", "S1", 2, "P1", "banker", "50", "50"),
    )
    got = marts(rounds, bets)
    side = {row["bet"]: row for row in got["side"].iter_rows(named=True)}
    assert side.keys() == {"dragon7", "player_pair"}  # the Banker wager is no side bet
    dragon = side["dragon7"]
    assert dragon["wagers"] == 2 and dragon["handle"] == Decimal("40") and dragon["house_win"] == Decimal("-575")
    assert dragon["theo"] == theo("25", "dragon7") + theo("15", "dragon7")
    assert float(dragon["theo"]) == pytest.approx(40 * float(edge("dragon7")), abs=1e-6)
    assert dragon["hold_pct"] == pytest.approx(-575 / 40 * 100)
    variance = (25**2 + 15**2) * per_unit("dragon7")
    assert dragon["win_variance"] == pytest.approx(variance, rel=1e-12)
    assert dragon["win_vs_theo_z"] == pytest.approx((-575 - float(dragon["theo"])) / variance**0.5, rel=1e-12)
    # the rating holds the rated wagers only; its bets by type hold each
    rating = got["sessions"].row(0, named=True)
    assert rating["handle"] == Decimal("85") and rating["handle_side"] == Decimal("35")
    assert got["bets"].select("bet", "wagers", "handle").rows() == [
        ("banker", 1, Decimal("50")),
        ("dragon7", 1, Decimal("25")),
        ("player_pair", 1, Decimal("10")),
    ]


def test_a_players_day_sums_their_ratings_exactly():
    rounds = coups(
        *(("T1", "S1", n, at(n)) for n in range(1, 4)),
        *(("T1", "S1", n, at(60 + n)) for n in range(4, 6)),
        ("T2", "S2", 1, at(3)),
        ("T2", "S2", 2, at(4)),
    )
    bets = wagers(
        ("T1", "S1", 1, "P1", "banker", "12.50", "-11.875"),
        ("T1", "S1", 3, "P1", "player", "7.25", "7.25"),
        ("T1", "S1", 4, "P1", "banker", "33.33", "33.33"),
        ("T1", "S1", 5, "P1", "tie", "1.01", "-8.08"),
        ("T2", "S2", 2, "P1", "banker_pair", "5", "5"),
    )
    got = marts(rounds, bets, comp_rate="0.25")
    sessions, day = got["sessions"], got["day"].row(0, named=True)
    assert sessions.height == 3 and day["sessions"] == 3 and day["tables"] == 2
    for name in ("decisions", "wagers", "handle", "handle_main", "handle_side", "house_win", "theo"):
        assert day[name] == sessions[name].sum(), name
    assert day["max_bet"] == Decimal("33.33")
    assert day["handle"] == Decimal("59.09") and day["house_win"] == Decimal("25.625")
    assert day["comp_value"] == (day["theo"] * Decimal("0.25")).quantize(Decimal("0.000001"))
    assert day["win_variance"] == pytest.approx(sessions["win_variance"].sum(), rel=1e-12)
    assert got["bets"]["handle"].sum() == day["handle"]


def test_the_gaming_days_end_closes_a_rating_and_players_total_every_day():
    day_two = dt.datetime(2026, 11, 3, 5, 50, tzinfo=dt.UTC)  # ten minutes before gaming day 3 November opens
    rounds = coups(
        ("T1", "S1", 1, at(0)),
        ("T1", "S1", 2, at(1)),
        ("T1", "S9", 1, day_two),
        ("T1", "S9", 2, day_two + dt.timedelta(minutes=15)),
        ("T3", "S4", 1, day_two + dt.timedelta(days=2)),
    )
    bets = wagers(
        ("T1", "S1", 1, "P1", "banker", "10", "10"),
        ("T1", "S1", 2, "P2", "player", "10", "-10"),
        ("T1", "S9", 1, "P1", "banker", "20", "20"),
        ("T1", "S9", 2, "P1", "banker", "30", "-28.5"),
        ("T3", "S4", 1, "P1", "player", "40", "40"),
    )
    got = marts(rounds, bets, comp_rate="0.1")
    ratings = got["sessions"].filter(player_id="P1")
    assert ratings["gaming_day"].to_list() == [DAY, DAY, dt.date(2026, 11, 3), dt.date(2026, 11, 4)]
    assert ratings["session"].to_list() == [1, 2, 1, 1]  # 05:50 and 06:05 are one table's two days
    p1 = got["players"].filter(player_id="P1").row(0, named=True)
    assert (p1["first_visit"], p1["last_visit"], p1["visits"], p1["sessions"], p1["tables"]) == (
        DAY,
        dt.date(2026, 11, 4),
        3,
        4,
        2,
    )
    assert p1["handle"] == Decimal("100") and p1["average_bet"] == Decimal("25") and p1["max_bet"] == Decimal("40")
    assert p1["house_win"] == Decimal("41.5")
    assert p1["theo"] == theo("10", "banker") + theo("20", "banker") + theo("30", "banker") + theo("40", "player")
    assert p1["comp_value"] == (p1["theo"] * Decimal("0.1")).quantize(Decimal("0.000001"))
    assert p1["minutes"] == pytest.approx(ratings["minutes"].sum())
    assert got["players"]["player_id"].to_list() == ["P1", "P2"]
    # a coup alone at its table that day has no typical length: its rating lasts no time, so no theo per hour
    last = ratings.row(-1, named=True)
    assert last["minutes"] == 0.0 and last["theo_per_hour"] is None


def test_no_rated_wager_gives_empty_marts_with_their_columns():
    rounds = coups(("T1", "S1", 1, at(0)))
    bets = wagers(("T1", "S1", 1, None, "banker", "10", "10"))
    got = marts(rounds, bets)
    assert got["sessions"].height == 0 and got["day"].height == 0 and got["players"].height == 0
    assert got["side"].height == 0 and got["bets"].height == 0
    assert "win_vs_theo_z" in got["sessions"].columns and "comp_value" in got["day"].columns


def test_the_worked_example_of_docs_metrics():
    """docs/metrics.md's example, figure for figure."""
    times = (0, 1, 2, 42, 72, 73)
    rounds = coups(*(("T1", "S1", n, at(minutes)) for n, minutes in enumerate(times, start=1)))
    bets = wagers(
        ("T1", "S1", 1, "P1", "banker", "100", "-95"),
        ("T1", "S1", 2, "P1", "player", "50", "50"),
        ("T1", "S1", 4, "P1", "banker", "20", "20"),
        ("T1", "S1", 5, "P1", "banker", "30", "0"),
        ("T1", "S1", 5, "P1", "tie", "5", "-40"),
    )
    got = marts(rounds, bets, comp_rate="0.25")
    columns = ["started_at", "ended_at", "minutes", "decisions", "wagers", "handle", "handle_main", "handle_side"]
    assert got["sessions"].select(columns).rows() == [
        (at(0), at(2), 2.0, 2, 2, Decimal("150"), Decimal("150"), Decimal("0")),
        (at(42), at(73), 31.0, 2, 3, Decimal("55"), Decimal("50"), Decimal("5")),
    ]
    money = ["average_bet", "max_bet", "house_win", "theo"]
    assert got["sessions"].select(money).rows() == [
        (Decimal("75"), Decimal("100"), Decimal("-45"), Decimal("1.675447")),
        (Decimal("27.5"), Decimal("30"), Decimal("-20"), Decimal("1.246934")),
    ]
    floats = got["sessions"].select("theo_per_hour", "win_variance", "win_vs_theo_z").rows()
    assert floats == [
        (pytest.approx(50.26341), pytest.approx(10861.9174, rel=1e-8), pytest.approx(-0.447853, abs=1e-6)),
        (pytest.approx(2.413421, rel=1e-6), pytest.approx(1292.37968, rel=1e-8), pytest.approx(-0.591019, abs=1e-6)),
    ]
    day = got["day"].row(0, named=True)
    assert (day["minutes"], day["decisions"], day["wagers"], day["handle"]) == (33.0, 4, 5, Decimal("205"))
    assert (day["average_bet"], day["house_win"], day["theo"]) == (
        Decimal("51.25"),
        Decimal("-65"),
        Decimal("2.922381"),
    )
    assert day["comp_value"] == Decimal("0.730595")
    assert day["win_vs_theo_z"] == pytest.approx(-0.616095, abs=1e-6)
    tie = got["side"].filter(bet="tie").row(0, named=True)
    assert (tie["wagers"], tie["handle"], tie["house_win"], tie["theo"]) == (1, 5, Decimal("-40"), Decimal("0.717981"))
    assert tie["hold_pct"] == -800.0 and tie["win_vs_theo_z"] == pytest.approx(-3.083677, abs=1e-6)


def test_players_totalled_in_the_database_are_the_players_totalled_in_polars():
    """A day's build totals every stored rating in DuckDB: the same rows, types and figures."""
    rounds = coups(
        *(("T1", "S1", n, at(3 * n)) for n in range(1, 5)), ("T2", "S2", 1, at(200)), ("T2", "S2", 2, at(201))
    )
    bets = wagers(
        ("T1", "S1", 1, "P1", "banker", "10", "10"),
        ("T1", "S1", 2, "P2", "player", "7.5", "-7.5"),
        ("T1", "S1", 4, "P1", "tie", "2", "-16"),
        ("T2", "S2", 2, "P1", "banker", "30", "-28.5"),
    )
    sessions = marts(rounds, bets)["sessions"]
    con = duckdb.connect()
    try:
        con.register("ratings", sessions)
        totals = con.sql(players_sql("ratings")).pl()
    finally:
        con.close()
    expected = players(sessions.lazy(), Decimal("0.2"))
    assert_frame_equal(players_of_totals(totals, Decimal("0.2")), expected, check_exact=False, rel_tol=1e-12)
    assert expected["sessions"].to_list() == [2, 1] and expected["tables"].to_list() == [2, 1]
