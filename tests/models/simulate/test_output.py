"""The buffer-built output: each column equal to the one built row by row, and Parquet files that read
back as exactly the frames dealt, with the contract's types."""

import datetime as dt
from decimal import Decimal

import duckdb
import numpy as np
import polars as pl
import pytest

from models.contract import BET_SCHEMA, ROUND_SCHEMA
from models.game.cards import format_hand
from models.game.games import Game
from models.game.paytable import BETS
from models.simulate.config import Simulation
from models.simulate.dealing import NO_CARD
from models.simulate.engine import _batches, _chunks, deal_batch, simulate
from models.simulate.frames import Labels, as_frame, bets_table, net_units, rounds_table
from models.simulate.kernels import hand_text
from models.simulate.reference import card_of
from models.simulate.run import write_simulation

KEY = ["table_id", "shoe_id", "round_no"]
SIM = Simulation(
    shoes=36,
    seed=21,
    games=(Game.BACCARAT_BANQUE, Game.PUNTO_BANCO, Game.CHEMIN_DE_FER),
    tables=3,
    shoes_per_day=4,
    timezone="Europe/Paris",
)


def test_hand_text_equals_the_hands_formatted_one_by_one():
    rng = np.random.default_rng(4)
    cards = rng.integers(0, 52, size=(5000, 9)).astype(np.int16)
    cards[rng.random((5000, 9)) < 0.4] = NO_CARD  # every pattern of missing cards, empty hands too
    for first in (0, 3, 6):
        offsets, data = hand_text(cards, first)
        text = [bytes(data[offsets[i] : offsets[i + 1]]).decode() for i in range(len(cards))]
        expected = [format_hand(card_of(code) for code in row[first : first + 3] if code != NO_CARD) for row in cards]
        assert text == expected


def _by_row(sim, batch, dealt):
    """The rounds' and bets' identifier and money columns built the plain way, one row at a time."""
    _, places = net_units(batch.game, sim.paytable)
    shoe_of = [(int(day), int(table), int(k)) for day, table, k in zip(batch.day, batch.table, batch.k, strict=True)]

    def ids(shoe):
        day, table, k = shoe_of[shoe]
        return f"T{table + 1:02d}", f"{sim.start + dt.timedelta(days=day):%Y%m%d}-{k + 1:02d}"

    rounds = {
        "ids": [ids(shoe) for shoe in dealt.shoe],
        "bank_holder": [str(seat + 1) for seat in dealt.holder],
        "outcome": ["BPT"[outcome] for outcome in dealt.outcomes],
        "game": [batch.game.value] * len(dealt.shoe),
    }
    bets = {
        "ids": [ids(shoe) for shoe in dealt.bet_shoe],
        "seat": [str(seat + 1) for seat in dealt.bet_seat],
        "bet": [BETS[code] for code in dealt.bet_code],
        "player_id": [f"PL{player:05d}" for player in dealt.bet_player],
        "amount": [Decimal(int(cents)).scaleb(-2) for cents in dealt.bet_cents],
        "payout": [Decimal(int(units)).scaleb(-2 - places) for units in dealt.bet_payout],
        "side": [None if side == 0 else int(side) for side in dealt.bet_side],
    }
    return rounds, bets


@pytest.mark.parametrize("game", [Game.BACCARAT_BANQUE, Game.CHEMIN_DE_FER])
def test_dictionary_and_decimal_columns_equal_the_ones_built_row_by_row(game):
    sim = Simulation(shoes=30, seed=8, games=(game,), tables=2, shoes_per_day=4)
    (chunk,) = _chunks(sim, None, 10**9)
    labels = Labels.of(sim, chunk[0][0], chunk[-1][0])
    for batch in _batches(sim, chunk):
        dealt = deal_batch(sim, batch)
        rounds = as_frame(rounds_table(sim, batch, dealt, labels))
        bets = as_frame(bets_table(sim, batch, dealt, labels))
        expected_rounds, expected_bets = _by_row(sim, batch, dealt)
        assert list(zip(rounds["table_id"], rounds["shoe_id"], strict=True)) == expected_rounds["ids"]
        for name in ("bank_holder", "outcome", "game"):
            assert rounds[name].to_list() == expected_rounds[name]
        assert list(zip(bets["table_id"], bets["shoe_id"], strict=True)) == expected_bets["ids"]
        for name in ("seat", "bet", "player_id", "amount", "payout", "side"):
            assert bets[name].to_list() == expected_bets[name], name


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    out = tmp_path_factory.mktemp("logs")
    summary = write_simulation(SIM, out, chunk_coups=600)
    chunks = list(simulate(SIM, chunk_coups=600))
    return out, summary, chunks


def test_parquet_files_read_back_as_the_frames_dealt(written):
    out, summary, chunks = written
    assert len(chunks) > 2 and summary.coups == sum(chunk.rounds.height for chunk in chunks)
    assert summary.shoes == SIM.shoes
    for kind, schema in (("rounds", ROUND_SCHEMA), ("bets", BET_SCHEMA)):
        files = sorted(out.glob(f"{kind}_*.parquet"))
        assert len(files) == len(chunks)
        for path, chunk in zip(files, chunks, strict=True):
            frame = pl.read_parquet(path)
            expected = getattr(chunk, kind)
            assert frame.schema == expected.schema
            assert frame.equals(expected)
        contract = {**schema, "started_at": pl.Datetime("us", SIM.timezone)} if kind == "rounds" else schema
        assert pl.read_parquet(files[0]).schema == pl.Schema(contract)  # text, not categories


def test_duckdb_reads_the_files_with_the_contract_types(written):
    out, _, chunks = written
    rounds = duckdb.sql(f"select * from read_parquet('{out}/rounds_*.parquet')")
    types = dict(zip(rounds.columns, map(str, rounds.types), strict=True))
    assert types["table_id"] == "VARCHAR" and types["player2_cards"] == "VARCHAR"
    assert types["started_at"] == "TIMESTAMP WITH TIME ZONE"
    bets = duckdb.sql(f"select amount, payout from read_parquet('{out}/bets_*.parquet')")
    assert list(map(str, bets.types)) == ["DECIMAL(18,2)", "DECIMAL(18,4)"]
    (total,) = duckdb.sql(f"select sum(payout) from read_parquet('{out}/bets_*.parquet')").fetchall()[0]
    assert total == sum(chunk.bets["payout"].sum() for chunk in chunks)
