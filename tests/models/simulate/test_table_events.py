"""The simulator's table events: the count room's identity on a clean month, faults labelled where
they fall, buy-ins before play, a tray that never runs dry, and rows the contract accepts."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import polars as pl
import pytest

from models.contract import EVENT_SCHEMA, MONEY, NATURAL_KEY
from models.game.games import Game
from models.logs.checks import check_rounds
from models.simulate.config import Simulation
from models.simulate.count import denominations
from models.simulate.run import write_simulation
from models.warehouse.settlement import SETTLED_BY, settle

SIM = Simulation(shoes=6 * 7 * 30, tables=6, shoes_per_day=7, games=tuple(Game), seed=21)
KEY = list(NATURAL_KEY)
CENT = Decimal("0.01")


def _month(folder: Path, rate: float = 0.0, chunk_coups: int | None = None) -> dict[str, pl.DataFrame]:
    extra = {"chunk_coups": chunk_coups} if chunk_coups else {}
    write_simulation(SIM, folder, count_fault_rate=rate, **extra)
    read = lambda pattern: pl.read_parquet(sorted(folder.glob(pattern)))  # noqa: E731
    labels = sorted((folder / "_faults").glob("count_faults_*"))
    return {
        "rounds": read("rounds_*.parquet"),
        "bets": read("bets_*.parquet"),
        "events": read("table_events_*.parquet"),
        "labels": pl.read_parquet(labels) if labels else None,
    }


def _house_net(rounds: pl.DataFrame, bets: pl.DataFrame) -> pl.DataFrame:
    """core.bets.house_net as the ingest computes it: the checked rounds' facts, then `settle`."""
    facts = check_rounds(rounds.with_row_index("_line")).select(*KEY, *SETTLED_BY, "started_at")
    accepted, mismatched = settle(bets.with_row_index("_line").join(facts, on=KEY, how="left"), SIM.paytable)
    assert mismatched.height == 0
    return accepted.select("table_id", "started_at", "house_net", "payout", "game")


def _shifts(events: pl.DataFrame, wagers: pl.DataFrame) -> pl.DataFrame:
    """Per table-shift: the count's win and the wagers' win (coups from the opener to the closer)."""
    amount = lambda kind: pl.col("amount").filter(pl.col("event") == kind).sum()  # noqa: E731
    when = lambda kind: pl.col("recorded_at").filter(pl.col("event") == kind).first()  # noqa: E731
    shifts = events.group_by("table_id", "shift_id").agg(
        opened=when("opener"),
        closed=when("closer"),
        win=amount("drop") + amount("marker") - amount("marker_payment") + amount("credit") - amount("fill")
        + amount("closer") - amount("opener"),
    )  # fmt: skip
    coups = wagers.join(shifts, on="table_id").filter(
        (pl.col("opened") <= pl.col("started_at")) & (pl.col("started_at") < pl.col("closed"))
    )
    won = coups.group_by("table_id", "shift_id").agg(wagers_win=pl.col("house_net").sum())
    return (
        shifts.join(won, on=["table_id", "shift_id"], how="left")
        .with_columns(pl.col("wagers_win").fill_null(0).cast(MONEY))
        .with_columns(difference=(pl.col("win") - pl.col("wagers_win")).cast(MONEY))
    )


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> dict[str, pl.DataFrame]:
    month = _month(tmp_path_factory.mktemp("clean"))
    month["wagers"] = _house_net(month["rounds"], month["bets"])
    return month


@pytest.fixture(scope="module")
def faulted(tmp_path_factory, clean) -> dict[str, pl.DataFrame]:
    month = _month(tmp_path_factory.mktemp("faulted"), rate=0.2)
    month["wagers"] = clean["wagers"]
    return month


@pytest.mark.slow
def test_count_win_equals_wagers_win_for_every_shift(clean):
    shifts = _shifts(clean["events"], clean["wagers"])
    assert shifts.height > 6 * 30 * 1.5  # most table-days deal into a second shift
    # the count holds cents; a shift whose wagers net to fractions of a cent (a chemin de fer bank that
    # rode, its cagnotte 5% of an amount in cents) is within the cent, every other one exact
    whole = shifts.filter((pl.col("wagers_win") * 100 % 1) == 0)
    assert whole["difference"].to_list() == [0] * whole.height
    assert shifts["difference"].abs().max() < CENT
    chemin = {f"T{t + 1:02d}" for t in range(SIM.tables) if SIM.game_of_table(t) is Game.CHEMIN_DE_FER}
    assert set(shifts.join(whole, on=["table_id", "shift_id"], how="anti")["table_id"]) <= chemin
    # every coup falls in a shift, so the count sees the whole month's wagers
    assert shifts["wagers_win"].sum() == clean["wagers"]["house_net"].sum()


def test_house_banked_tables_win_what_the_wagers_lose(clean):
    # the house's win on a player-banked table is its cagnotte only, on a house-banked one the wagers
    wagers = clean["wagers"]
    banked = wagers.filter(pl.col("game").is_in([g.value for g in Game if not g.player_banked]))
    assert (banked["house_net"] == -banked["payout"]).all()


def test_each_fault_label_is_the_difference_at_its_shift_and_nowhere_else(faulted):
    shifts = _shifts(faulted["events"], faulted["wagers"])
    labels = faulted["labels"]
    assert set(labels["kind"]) == {"short_fill", "missing_credit_slip", "walked_chips", "overpaid_wager"}
    assert (labels["amount"] < 0).all()
    joined = shifts.join(labels, on=["table_id", "shift_id"], how="left")
    hit = joined.filter(pl.col("kind").is_not_null())
    assert hit.height == labels.height
    assert ((hit["difference"] - hit["amount"]).abs() < CENT).all()
    assert (joined.filter(pl.col("kind").is_null())["difference"].abs() < CENT).all()


def test_faulted_shifts_do_not_depend_on_the_split(faulted, tmp_path):
    small = _month(tmp_path, rate=0.2, chunk_coups=5_000)
    assert small["labels"].sort("table_id", "shift_id").equals(faulted["labels"].sort("table_id", "shift_id"))
    order = ["table_id", "event_id"]
    assert small["events"].sort(order).equals(faulted["events"].sort(order))


def test_buy_ins_come_before_play_with_markers_and_payments(clean):
    events = clean["events"]
    # a marker is signed at most seconds before its player's next wager at the table
    markers = events.filter(pl.col("event") == "marker").sort("recorded_at")
    bets = clean["bets"].join(clean["rounds"].select(*KEY, "started_at"), on=KEY).sort("started_at")
    nxt = markers.join_asof(
        bets, left_on="recorded_at", right_on="started_at", by=["table_id", "player_id"], strategy="forward"
    )
    assert nxt["started_at"].null_count() == 0
    assert ((nxt["started_at"] - nxt["recorded_at"]).dt.total_seconds() <= 10).all()
    assert events.filter(pl.col("event").is_in(["opener", "closer", "drop"]))["amount"].min() >= 0
    openers = events.filter(pl.col("event") == "opener").sort("recorded_at").group_by("table_id").first()
    assert (openers["amount"] == Decimal(100_000)).all()  # an imprest tray: par at the first opening
    assert events.filter(pl.col("event") == "marker").height > 0
    assert events.filter(pl.col("event") == "marker_payment").height > 0


def test_fills_come_in_time(clean):
    # the kernel's tray at every moment (after the buy-ins, mid-coup, after it): never below 0
    from models.simulate.cage import Purses
    from models.simulate.count import table_events
    from models.simulate.engine import simulate
    from models.simulate.players import draw_players

    purses = Purses.of(draw_players(SIM), SIM.seed)
    for chunk in simulate(SIM, days=range(3)):
        counted = table_events(SIM, chunk.rounds_table, chunk.bets_table, chunk.days[0], purses, 0.5)
        assert Decimal(0) <= counted.lowest_tray < Decimal(100_000)


def test_events_are_what_the_contract_takes(clean):
    events = clean["events"]
    assert dict(events.schema) == EVENT_SCHEMA
    assert set(events["event"]) == {"opener", "closer", "fill", "credit", "drop", "marker", "marker_payment"}
    assert events.select("table_id", "event_id").is_unique().all()
    counts = events.filter(pl.col("denominations").is_not_null())
    for amount, chips in counts.select("amount", "denominations").iter_rows():
        total = sum(Decimal(d) * int(n) for d, n in (token.split("x") for token in chips.split()))
        assert total == amount
    one_each = events.group_by("table_id", "shift_id").agg(
        [(pl.col("event") == kind).sum().alias(kind) for kind in ("opener", "closer", "drop")]
    )
    assert (one_each.select("opener", "closer", "drop") == 1).to_numpy().all()
    # the small chips stocked first: a tray keeps change for commissions and side bets
    assert denominations(123_456_78) == "5000x9 1000x42 500x40 100x103 25x201 5x201 1x101 0.25x103 0.01x3"
