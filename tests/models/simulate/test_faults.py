"""Fault injection: every labelled fault is really what its label says."""

from collections import Counter

import polars as pl
import pytest

from models.game.cards import CardError, parse_hand
from models.game.coup import score, tableau_violation
from models.game.games import Game
from models.simulate.config import Simulation
from models.simulate.engine import simulate
from models.simulate.faults import FAULTS, inject
from models.simulate.run import write_simulation

KEY = ["table_id", "shoe_id", "round_no"]


@pytest.fixture(scope="module")
def faulty():
    sim = Simulation(shoes=80, seed=3, games=(Game.PUNTO_BANCO, Game.CHEMIN_DE_FER, Game.BANCO), tables=3)
    (chunk,) = simulate(sim, chunk_coups=10_000_000)
    rounds, bets, labels = inject(chunk.rounds, chunk.bets, 0.03, seed=3)
    return chunk, rounds, bets, labels


def test_faults_come_at_about_the_rate_asked(faulty):
    chunk, _, _, labels = faulty
    assert set(labels["kind"]) == set(FAULTS)
    assert 0.015 * chunk.rounds.height < labels.height < 0.045 * chunk.rounds.height
    assert (labels["expected"] == labels["kind"].replace_strict(FAULTS)).all()


def _rows(rounds, labels, kind):
    return rounds.join(labels.filter(pl.col("kind") == kind), on=KEY, how="semi")


def test_wrong_draws_break_the_tableau(faulty):
    _, rounds, _, labels = faulty
    rows = _rows(rounds, labels, "wrong_draw")
    assert rows.height > 0
    for game, player, banker in rows.select("game", "player_cards", "banker_cards").iter_rows():
        values = [c.value for c in parse_hand(player)], [c.value for c in parse_hand(banker)]
        assert tableau_violation(Game(game), *values)


def test_wrong_outcomes_contradict_the_cards(faulty):
    _, rounds, _, labels = faulty
    rows = _rows(rounds, labels, "wrong_outcome")
    for player, banker, outcome in rows.select("player_cards", "banker_cards", "outcome").iter_rows():
        assert score(parse_hand(player), parse_hand(banker)).outcome != outcome


def test_malformed_cards_do_not_parse(faulty):
    _, rounds, _, labels = faulty
    for player in _rows(rounds, labels, "malformed_card")["player_cards"]:
        with pytest.raises(CardError):
            parse_hand(player)


def test_overdrawn_shoes_take_a_card_the_shoe_no_longer_holds(faulty):
    _, rounds, _, labels = faulty
    marked = labels.filter(pl.col("kind") == "overdrawn_shoe")
    assert marked.height > 0
    clean_rows = rounds.join(labels.filter(pl.col("kind") != "overdrawn_shoe"), on=KEY, how="anti")
    for table, shoe, round_no in marked.select(KEY).iter_rows():
        shoe_rows = clean_rows.filter(pl.col("table_id") == table, pl.col("shoe_id") == shoe)
        assert round_no == shoe_rows["round_no"].max()  # logged after the shoe's last coup
        before = Counter()
        for player, banker in (
            shoe_rows.filter(pl.col("round_no") < round_no).select("player_cards", "banker_cards").iter_rows()
        ):
            before.update((player + " " + banker).split())
        extra = shoe_rows.filter(pl.col("round_no") == round_no).row(0, named=True)
        cards = (extra["player_cards"] + " " + extra["banker_cards"]).split()
        assert any(before[card] + cards.count(card) > extra["decks"] for card in cards)


def test_duplicates_exact_and_conflicting(faulty):
    _, rounds, _, labels = faulty
    counts = rounds.group_by(KEY).len().filter(pl.col("len") > 1)
    marked = labels.filter(pl.col("kind").is_in(["exact_duplicate", "conflicting_duplicate"]))
    assert counts.height == marked.height
    exact = _rows(rounds, labels, "exact_duplicate")
    assert exact.unique().height == exact.height // 2
    conflicting = _rows(rounds, labels, "conflicting_duplicate")
    assert conflicting.unique().height == conflicting.height


def test_orphan_bets_name_no_round(faulty):
    _, rounds, bets, labels = faulty
    orphans = bets.join(rounds, on=KEY, how="anti")
    assert (
        orphans.select(KEY)
        .unique()
        .sort(KEY)
        .equals(labels.filter(pl.col("kind") == "orphan_bet").select(KEY).sort(KEY))
    )


def test_no_faults_at_rate_zero_and_inputs_untouched(faulty):
    chunk, *_ = faulty
    rounds, bets, labels = inject(chunk.rounds, chunk.bets, 0.0, seed=3)
    assert rounds is chunk.rounds and bets is chunk.bets and labels.height == 0
    with pytest.raises(ValueError, match="at most 1"):
        inject(chunk.rounds, chunk.bets, 1.5, seed=3)


def test_the_same_seed_injects_the_same_rows_in_the_same_order(tmp_path):
    """Same seed, same files, faults and all: row order too (joins keep their left side's order)."""
    written = []
    for run in ("first", "second"):
        write_simulation(Simulation(shoes=30, tables=3, seed=9), tmp_path / run, misdeal_rate=0.05)
        written.append({path.name: pl.read_parquet(path) for path in sorted((tmp_path / run).rglob("*.parquet"))})
    assert written[0].keys() == written[1].keys()
    for name, frame in written[0].items():
        assert frame.equals(written[1][name]), name
