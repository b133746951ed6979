"""The exact house edge of every bet before every coup of a house-banked shoe, from the cards logged.

A coup's composition is the full shoe less every card logged in the shoe's earlier coups (burned
cards are unseen, so they count as left, as a counter sees them). Ranks are known while every card
seen so far had one (a value-only `0` does not), and the pair bets' edges need them.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import polars as pl

from models.game.games import Banker, Game
from models.game.paytable import BETS, DEFAULT_PAYTABLE, PayTable
from models.game.shoe import MAX_DECKS, Composition
from models.gaming_day import GamingDay, gaming_day
from models.logs.hands import RANK_INDEX, VALUES
from models.odds.batch import RANK_COLUMNS, UNKNOWN_RANKS, VALUE_COLUMNS, house_edges

SHOE = ["table_id", "shoe_id"]
#: The games the house banks: their tables offer the side bets.
HOUSE_GAMES = tuple(game.value for game in Game if game.banker is Banker.HOUSE)
EDGE_COLUMNS = tuple(f"edge_{bet}" for bet in BETS)
COLUMNS = (
    "table_id", "shoe_id", "round_no", "gaming_day", "game", "decks", "cards_seen", "cards_left",
    *EDGE_COLUMNS, "best_bet", "best_edge",
)  # fmt: skip
#: About the rows (whole shoes) read and handed to the exact engine at a time.
BATCH_ROWS = 1 << 17
#: Cards in a full shoe of d decks (row d), by point value and by rank.
_FULL_VALUES = np.array([[0] * VALUE_COLUMNS] + [Composition.full(d).values for d in range(1, MAX_DECKS + 1)])
_FULL_RANKS = np.array([[0] * RANK_COLUMNS] + [Composition.full(d).ranks for d in range(1, MAX_DECKS + 1)])
_NO_RANK = -1
_DAY = GamingDay()


def coup_edges(
    rounds: pl.DataFrame, paytable: PayTable = DEFAULT_PAYTABLE, day: GamingDay = _DAY, batch_rows: int = BATCH_ROWS
) -> pl.DataFrame:
    """One row per coup of a house-banked shoe whose composition before it is known: COLUMNS.

    `rounds` needs table_id, shoe_id, round_no, game, decks, player_cards and banker_cards (the
    warehouse's canonical tokens, space separated; null for a coup without cards), and the shoe's
    gaming day as `shoe_day`, else `gaming_day` (its shoe's first is taken), else `started_at`
    (its gaming day under `day`). A shoe's coups are known from round 1 on, up to its first coup
    without cards (included: the cards before it are known), its first gap in round numbers, or
    its first composition that cannot exist (more of a card seen than the shoe holds), excluded.
    Sorted by gaming_day, table_id, shoe_id, round_no. Shoes are read about `batch_rows` rows at a time.
    """
    shoes = _in_shoe_order(rounds.filter(pl.col("game").is_in(HOUSE_GAMES)), day)
    # whole shoes a batch at a time: the cards' parsing and the compositions stay a batch's size
    bounds = np.append(np.flatnonzero(_shoe_starts(shoes)), shoes.height)  # each shoe's first row, and the end
    cuts = np.unique(np.append(bounds[np.searchsorted(bounds, np.arange(0, shoes.height, batch_rows))], shoes.height))
    batches = [_batch_edges(shoes.slice(lo, hi - lo), paytable) for lo, hi in pairwise(cuts)]
    return pl.concat(batches) if batches else _batch_edges(shoes, paytable)


def _batch_edges(shoes: pl.DataFrame, paytable: PayTable) -> pl.DataFrame:
    """`coup_edges` of whole shoes in shoe order."""
    kept, values, ranks = compositions(shoes)
    games = shoes["game"].cast(pl.Enum(HOUSE_GAMES)).to_physical().to_numpy()[kept]
    edges = np.full((len(games), len(BETS)), np.nan)
    for code, name in enumerate(HOUSE_GAMES):
        rows = np.flatnonzero(games == code)
        if len(rows):  # a game the batch does not hold costs nothing
            edges[rows] = house_edges(values[rows], ranks[rows], Game(name), paytable)
    best = np.where(np.isnan(edges), np.inf, edges).argmin(axis=1)
    best_edge = edges[np.arange(len(best)), best]
    cards_left = pl.Series(values.sum(axis=1), dtype=pl.Int16)
    return shoes.filter(pl.Series(kept)).select(
        *SHOE,
        pl.col("round_no").cast(pl.Int32),
        pl.col("shoe_day").alias("gaming_day"),
        "game",
        pl.col("decks").cast(pl.Int8),
        cards_seen=pl.col("decks").cast(pl.Int16) * 52 - cards_left,
        cards_left=cards_left,
        **{name: pl.Series(edges[:, i], nan_to_null=True) for i, name in enumerate(EDGE_COLUMNS)},
        best_bet=pl.when(pl.Series(~np.isnan(best_edge))).then(
            pl.Series(best, dtype=pl.UInt8).replace_strict(dict(enumerate(BETS)), return_dtype=pl.String)
        ),
        best_edge=pl.Series(-best_edge, nan_to_null=True),
    )


def compositions(shoes: pl.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each shoe's sequence of compositions: per row of `shoes` (in shoe order, `_in_shoe_order`)
    whether the cards left before it are known (bool (n,)), and for those rows the cards left by
    value (int (kept, VALUE_COLUMNS)) and by rank (int (kept, RANK_COLUMNS), UNKNOWN_RANKS where not
    every card seen had a rank)."""
    n = shoes.height
    starts = _shoe_starts(shoes)
    heads = np.flatnonzero(starts)
    segment = np.cumsum(starts) - 1
    values, ranks, unranked, has_cards = _dealt(shoes)
    decks = shoes["decks"].to_numpy().astype(np.int64)
    if n and not (decks.min() >= 1 and decks.max() <= MAX_DECKS):
        raise ValueError(f"decks must be a whole number from 1 to {MAX_DECKS}")
    values_left = _FULL_VALUES[decks] - _before(values, heads, segment)
    ranks_left = _FULL_RANKS[decks] - _before(ranks, heads, segment)
    ranked = _before(unranked, heads, segment) == 0
    impossible = (values_left < 0).any(axis=1) | ((ranks_left < 0).any(axis=1) & ranked)
    ranks_left[~ranked] = UNKNOWN_RANKS
    position = np.arange(n) - heads[segment] + 1
    after_cardless = np.zeros(n, bool)
    after_cardless[1:] = ~has_cards[:-1] & ~starts[1:]
    breaks = (shoes["round_no"].to_numpy() != position) | after_cardless | impossible
    kept = _through(breaks.astype(np.int32), heads, segment) == 0
    return kept, values_left[kept], ranks_left[kept]


def _in_shoe_order(rounds: pl.DataFrame, day: GamingDay) -> pl.DataFrame:
    """The rounds with their shoe's gaming day (`shoe_day`), sorted by it, table, shoe and round."""
    if "shoe_day" not in rounds.columns:
        days = pl.col("gaming_day") if "gaming_day" in rounds.columns else gaming_day(pl.col("started_at"), day)
        rounds = rounds.with_columns(shoe_day=days.min().over(SHOE))
    columns = [*SHOE, "round_no", "shoe_day", "game", "decks", "player_cards", "banker_cards"]
    return rounds.select(columns).sort("shoe_day", *SHOE, "round_no")


def _shoe_starts(shoes: pl.DataFrame) -> np.ndarray:
    """Per row of the sorted rounds: the first of its shoe."""
    changed = pl.any_horizontal(pl.col(name).ne_missing(pl.col(name).shift()) for name in SHOE)
    return shoes.select(changed.fill_null(True)).to_series().to_numpy().astype(bool)


def _dealt(shoes: pl.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per coup: the cards it dealt by value (n, VALUE_COLUMNS) and by rank (n, RANK_COLUMNS), how
    many had no rank, and whether it has cards at all."""
    n = shoes.height
    hands = pl.concat_list(pl.col(hand).fill_null("").str.split(" ") for hand in ("player_cards", "banker_cards"))
    tokens = (
        shoes.select(row=pl.int_range(pl.len(), dtype=pl.Int64), token=hands)
        .explode("token")
        .filter(pl.col("token") != "")
        .select(
            "row",
            "token",
            value=pl.col("token").str.slice(0, 1).replace_strict(VALUES, default=None, return_dtype=pl.Int64),
            rank=pl.col("token").str.slice(0, 1).replace_strict(RANK_INDEX, default=_NO_RANK, return_dtype=pl.Int64),
        )
    )
    unread = tokens.filter(pl.col("value").is_null())
    if unread.height:
        raise ValueError(f"cannot read the card {unread['token'][0]!r}: a hand is canonical tokens such as 9H, K or 0")
    row, value, rank = (tokens[name].to_numpy() for name in ("row", "value", "rank"))
    ranked = rank != _NO_RANK
    values = np.bincount(row * VALUE_COLUMNS + value, minlength=n * VALUE_COLUMNS).reshape(n, VALUE_COLUMNS)
    ranks = np.bincount(row[ranked] * RANK_COLUMNS + rank[ranked], minlength=n * RANK_COLUMNS)
    unranked = np.bincount(row[~ranked], minlength=n)
    has_cards = shoes.select(pl.col("player_cards").is_not_null() & pl.col("banker_cards").is_not_null())
    return values, ranks.reshape(n, RANK_COLUMNS), unranked, has_cards.to_series().to_numpy()


def _before(dealt: np.ndarray, heads: np.ndarray, segment: np.ndarray) -> np.ndarray:
    """Per row: the sum of `dealt` over the earlier rows of its shoe."""
    return _through(dealt, heads, segment) - dealt


def _through(dealt: np.ndarray, heads: np.ndarray, segment: np.ndarray) -> np.ndarray:
    """Per row: the sum of `dealt` over its shoe's rows up to and including it."""
    total = np.cumsum(dealt, axis=0, dtype=np.int32)
    if not len(total):
        return total
    at_head = total[heads] - dealt[heads]
    return total - at_head[segment]
