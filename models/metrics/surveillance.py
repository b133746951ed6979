"""Surveillance: each rating's wagers against the exact edge of every bet before each coup.

A rating's present coups are the coups with edges (marts.coup_edges) at its table from its first to
its last wagered coup; its cells are (present coup, bet type it wagered) pairs with the stake there
(0 where none) and the player's edge. The test of "bets at an advantage" weighs each side bet's
positive edge (rating_blocks.py) and moves each coup's stakes, together, to other present coups
(permutation.py). A flag is a player's day: Benjamini-Hochberg over the day's tested players.
Zender's pattern is a shoe the player first bets in its last cards, at or near the table's limit. The
player-day and the flags are taken from the sessions alone, so a sharded build combines its shards'
session rows first and derives them.
"""

from __future__ import annotations

import hashlib
from decimal import Decimal

import numpy as np
import polars as pl
from scipy import stats

from models import display
from models.game.paytable import BETS, MAIN_BETS
from models.metrics.permutation import sequential_p_values
from models.metrics.rating_blocks import pair_counts, rating_blocks
from models.metrics.ratings import MAIN_HANDS
from models.metrics.ties import q_values
from models.money_units import MONEY
from models.settings import DEFAULTS

KEY = ["player_id", "table_id", "gaming_day", "session"]
COUP = ["table_id", "shoe_id", "round_no"]
EDGES = tuple(f"edge_{bet}" for bet in BETS)
#: As marts.player_sessions' handle_side: every bet but the main hands is a side bet, the tie included.
SESSION_COLUMNS = (
    "player_id", "table_id", "gaming_day", "session", "started_at", "ended_at", "coups_present", "wagers",
    "side_wagers", "advantage_wagers", "advantage_share", "expected_advantage_share", "edge_rank_correlation",
    "amount", "edge_won", "expected_edge_won", "advantage_won", "expected_advantage_won", "house_win", "permutations",
    "p_value", "zender_shoes", "zender_won",
)  # fmt: skip
#: The sums a player's day totals from their sessions (the shares are taken again from them).
SUMS = (
    "coups_present", "wagers", "side_wagers", "advantage_wagers", "amount", "edge_won", "expected_edge_won",
    "advantage_won", "expected_advantage_won", "house_win", "permutations", "zender_shoes", "zender_won",
)  # fmt: skip
DAY_COLUMNS = (
    "player_id", "gaming_day", "tables", "sessions", "tested_sessions", "coups_present", "wagers", "side_wagers",
    "advantage_wagers", "advantage_share", "expected_advantage_share", "amount", "edge_won", "expected_edge_won",
    "advantage_won", "expected_advantage_won", "house_win", "permutations", "zender_shoes", "zender_won", "p_value",
    "q_value",
)  # fmt: skip
#: What a flag shows of its session or player-day (zender_won and expected_edge_won for the detail only).
EVIDENCE = (
    "p_value", "q_value", "edge_won", "wagers", "advantage_wagers", "advantage_share", "expected_advantage_share",
    "house_win", "zender_shoes", "advantage_won", "expected_advantage_won", "zender_won", "expected_edge_won",
)  # fmt: skip
#: The flags' evidence in one type whichever row it comes from.
FLAG_TYPES = {
    "p_value": pl.Float64, "q_value": pl.Float64, "edge_won": MONEY, "wagers": pl.Int64, "advantage_wagers": pl.Int64,
    "advantage_share": pl.Float64, "expected_advantage_share": pl.Float64, "house_win": MONEY,
    "zender_shoes": pl.Int32, "advantage_won": MONEY, "expected_advantage_won": MONEY, "zender_won": MONEY,
    "expected_edge_won": MONEY,
}  # fmt: skip
FLAG_COLUMNS = (
    "gaming_day", "player_id", "rule", "scope", "table_id", "session", "p_value", "q_value", "edge_won", "wagers",
    "advantage_wagers", "advantage_share", "expected_advantage_share", "house_win", "zender_shoes", "advantage_won",
    "expected_advantage_won", "detail",
)  # fmt: skip


def player_edge() -> pl.Expr:
    """The bettor's edge on the wager's bet at its coup: minus the coup's house edge of that bet."""
    chosen = pl.when(pl.col("bet") == BETS[0]).then(pl.col(EDGES[0]))
    for bet, column in zip(BETS[1:], EDGES[1:], strict=True):
        chosen = chosen.when(pl.col("bet") == bet).then(pl.col(column))
    return (-chosen).alias("player_edge")


def wager_edges(bets: pl.DataFrame, edges: pl.DataFrame) -> pl.DataFrame:
    """Each wager (core.bets' columns, in their order) with `player_edge` and `advantage`
    (player_edge > 0); both null for a wager on a coup without an edges row."""
    keyed = edges.select(*COUP, *EDGES).cast({name: bets.schema[name] for name in COUP})
    return (
        bets.join(keyed, on=COUP, how="left", maintain_order="left")
        .with_columns(player_edge())
        .select(*bets.columns, "player_edge", advantage=pl.col("player_edge") > 0)
    )


def wager_edges_sql(bets_table: str, edges_table: str) -> str:
    """`wager_edges` as one SELECT over the stored tables (for the view marts.wager_edges)."""
    cases = " ".join(f"WHEN '{bet}' THEN e.{column}" for bet, column in zip(BETS, EDGES, strict=True))
    joined = (
        f"SELECT b.*, -(CASE b.bet {cases} END) AS player_edge FROM {bets_table} AS b "
        f"LEFT JOIN {edges_table} AS e "
        "ON b.table_id = e.table_id AND b.shoe_id = e.shoe_id AND b.round_no = e.round_no"
    )
    return f"SELECT *, player_edge > 0 AS advantage FROM ({joined})"


def surveillance_sessions(
    bets: pl.DataFrame,
    rounds: pl.DataFrame,
    sessions: pl.DataFrame,
    edges: pl.DataFrame,
    *,
    max_bet: Decimal = DEFAULTS.max_bet,
    side_max: Decimal = DEFAULTS.side_max,
    near_max: float = 0.9,
    late_share: float = 0.2,
    h: int = 20,
    max_permutations: int = 100_000,
) -> pl.DataFrame:
    """marts.surveillance_sessions: one row per rating with a wager on a coup that has edges; its
    counts and money are those of such wagers (house_win too: marts.player_sessions has them all).

    `bets`: core.bets rows (table_id, shoe_id, round_no, bet, amount, house_net, player_id);
    `rounds`: the coups (table_id, shoe_id, round_no, started_at); `sessions`: their ratings
    (marts.player_sessions: player_id, table_id, gaming_day, session, started_at, ended_at);
    `edges`: marts.coup_edges. A wager belongs to its player's latest rating at the table started
    by its coup. Zender's pattern: the player's first wager in a shoe at its last `late_share` of
    cards, and a wager there of at least `near_max` of the limit (`max_bet` for banker, player and
    tie, `side_max` for the side bets); `h` and `max_permutations` stop the permutation test."""
    if not 0 < near_max <= 1 or not 0 < late_share < 1:
        raise ValueError(f"near_max is in (0, 1] and late_share in (0, 1), got {near_max} and {late_share}")
    coups = _coups(edges, rounds)
    edge_table = _edge_table(coups)
    placed = _attributed(bets, rounds, sessions, coups, edge_table)
    on_edges = placed.filter(pl.col("_coup").is_not_null())
    present = _present(placed, coups)
    weights, tested = _tested_in_slices(on_edges, present, edge_table, sessions, h, max_permutations)
    sums = on_edges.group_by("_rating").agg(
        wagers=pl.len(),
        side_wagers=(~pl.col("bet").is_in(MAIN_HANDS)).sum(),
        advantage_wagers=(pl.col("player_edge") > 0).sum(),
        amount=pl.col("amount").sum(),
        edge_won=(pl.col("amount").cast(pl.Float64) * pl.col("player_edge")).fill_null(0).sum(),
        house_win=pl.col("house_net").sum(),
    )
    zender = _zender(placed, coups, max_bet, side_max, near_max, late_share)
    return (
        _ratings(sessions)
        .join(sums, on="_rating", how="inner")
        .join(present.select("_rating", "coups_present"), on="_rating", how="left")
        .join(weights, on="_rating", how="left")
        .join(tested, on="_rating", how="left")
        .join(zender, on="_rating", how="left")
        .with_columns(
            advantage_share=pl.col("advantage_wagers") / pl.col("wagers"),
            expected_advantage_share=pl.col("expected_advantage_wagers") / pl.col("wagers"),
            amount=pl.col("amount").cast(MONEY),
            edge_won=pl.col("edge_won").round(4).cast(MONEY),
            expected_edge_won=pl.col("expected_edge_won").fill_null(0).round(4).cast(MONEY),
            **{name: pl.col(name).fill_null(0).round(4).cast(MONEY) for name in ADVANTAGE_WON},
            house_win=pl.col("house_win").fill_null(0).cast(MONEY),
            zender_shoes=pl.col("zender_shoes").fill_null(0).cast(pl.Int16),
            zender_won=pl.col("zender_won").fill_null(0).cast(MONEY),
            permutations=pl.col("permutations").cast(pl.Int32),
            **{name: pl.col(name).cast(pl.Int64) for name in ("coups_present", "wagers", "side_wagers")},
            advantage_wagers=pl.col("advantage_wagers").cast(pl.Int64),
        )
        .select(SESSION_COLUMNS)
        .sort("gaming_day", "table_id", "player_id", "session")
    )


#: The test's statistic and its mean at random timing (0 for a rating with no side bet).
ADVANTAGE_WON = ("advantage_won", "expected_advantage_won")

#: Coups whose tables' ratings `surveillance_by_tables` surveys at a time.
COUPS_AT_A_TIME = 1_000_000


def surveillance_by_tables(
    bets: pl.DataFrame, rounds: pl.DataFrame, sessions: pl.DataFrame, edges: pl.DataFrame, **options
) -> pl.DataFrame:
    """`surveillance_sessions` over groups of whole tables of about COUPS_AT_A_TIME coups each, one
    group at a time (a rating is one table's, so the rows are the same): a full rebuild's wagers are
    joined to their coups and ratings a group at a time, within memory."""
    per_table = rounds.group_by("table_id").len().sort("table_id")
    group = (per_table["len"].cum_sum() - 1) // COUPS_AT_A_TIME
    if group.max() is None or group.max() == 0:
        return surveillance_sessions(bets, rounds, sessions, edges, **options)
    parts = []
    for _, tables in per_table.with_columns(group=group).group_by("group", maintain_order=True):
        at = pl.col("table_id").is_in(tables["table_id"].implode())
        parts.append(
            surveillance_sessions(bets.filter(at), rounds.filter(at), sessions.filter(at), edges.filter(at), **options)
        )
    return pl.concat(parts, how="vertical").sort("gaming_day", "table_id", "player_id", "session")


def _ratings(sessions: pl.DataFrame) -> pl.DataFrame:
    """The ratings' keys and times, numbered (`_rating`), ids as text."""
    return sessions.select(
        pl.col("player_id", "table_id").cast(pl.String), "gaming_day", "session", "started_at", "ended_at"
    ).with_row_index("_rating")


def _coup_key() -> tuple[pl.Expr, pl.Expr]:
    """A coup's key in one type whatever the source's: ids as text, round as Int64."""
    return pl.col("table_id", "shoe_id").cast(pl.String), pl.col("round_no").cast(pl.Int64)


def _coups(edges: pl.DataFrame, rounds: pl.DataFrame) -> pl.DataFrame:
    """The coups with edges, with their start, numbered (`_coup`) table by table in time order."""
    return (
        edges.select(*_coup_key(), "decks", "cards_left", *EDGES)
        .join(rounds.select(*_coup_key(), "started_at"), on=COUP, how="inner")
        .sort("table_id", "started_at", "shoe_id", "round_no")
        .with_row_index("_coup")
    )


def _attributed(
    bets: pl.DataFrame, rounds: pl.DataFrame, sessions: pl.DataFrame, coups: pl.DataFrame, edge_table: np.ndarray
) -> pl.DataFrame:
    """The rated wagers with their coup's start, rating (`_rating`), coup with edges (`_coup`, null
    for none), bet's index in BETS (`_bet`) and player edge (from `edge_table`, `_edge_table`)."""
    times = rounds.select(*_coup_key(), "started_at")
    ratings = (
        _ratings(sessions)
        .select("player_id", "table_id", "_rating", _start="started_at", _end="ended_at")
        .sort("_start")
    )
    codes = {bet: index for index, bet in enumerate(BETS)}
    wagers = (
        bets.filter(pl.col("player_id").is_not_null())
        .select(
            *_coup_key(),
            pl.col("player_id", "bet").cast(pl.String),
            "amount",
            "house_net",
        )
        .join(times, on=COUP, how="inner")
        .sort("started_at")
    )
    attributed = wagers.join_asof(
        ratings,
        left_on="started_at",
        right_on="_start",
        by=["player_id", "table_id"],
        strategy="backward",
        check_sortedness=False,  # sorted by time as a whole, so within each group too
    ).filter(pl.col("_rating").is_not_null() & (pl.col("started_at") <= pl.col("_end")))
    placed = (
        attributed.join(coups.select(*COUP, "_coup"), on=COUP, how="left")
        .with_columns(_bet=pl.col("bet").replace_strict(codes, default=None, return_dtype=pl.Int64))
        .drop("_start", "_end")
    )
    # each wager's edge gathered from the coups' table by (coup, bet): a join of every bet's column
    # would hold them all for every wager
    coup, bet = (placed[name].fill_null(-1).to_numpy() for name in ("_coup", "_bet"))
    known = (coup >= 0) & (bet >= 0)
    edge = np.full(placed.height, np.nan)
    edge[known] = edge_table[coup[known], bet[known]]
    return placed.with_columns(player_edge=pl.Series(edge, dtype=pl.Float64, nan_to_null=True))


def _present(placed: pl.DataFrame, coups: pl.DataFrame) -> pl.DataFrame:
    """Per rating: its present coups, `_lo` to `_hi` of the numbered coups (`coups_present` of them)."""
    spans = placed.group_by("_rating").agg(
        pl.col("table_id").first(), _first=pl.col("started_at").min(), _last=pl.col("started_at").max()
    )
    at = coups.select("table_id", "started_at", "_coup").sort("started_at")

    def nearest(frame: pl.DataFrame, time: str, name: str, strategy: str) -> pl.DataFrame:
        """Each row's coup with edges at its table nearest `time`, forward or backward, as `name`."""
        return frame.sort(time).join_asof(
            at.rename({"_coup": name}), left_on=time, right_on="started_at", by="table_id", strategy=strategy,
            check_sortedness=False,
        )  # fmt: skip

    both = nearest(nearest(spans, "_first", "_lo", "forward"), "_last", "_hi", "backward")
    return both.filter(pl.col("_lo") <= pl.col("_hi")).select(
        "_rating", "_lo", "_hi", coups_present=pl.col("_hi") - pl.col("_lo") + 1
    )


def _edge_table(coups: pl.DataFrame) -> np.ndarray:
    """The player's edge of every bet at every coup with edges: float64 (coups, BETS), NaN where unknown."""
    return -coups.select(EDGES).cast(pl.Float64).to_numpy()


def _blocks(
    on_edges: pl.DataFrame, present: pl.DataFrame, edge_table: np.ndarray
) -> tuple[pl.DataFrame, pl.DataFrame, dict[str, np.ndarray]]:
    """Each rating's block: its present coups (rows) by the bet types it wagered whose edge is known
    somewhere there (columns), with the stakes placed (rating_blocks.py); per rating the advantage
    wagers expected if its timing were unrelated to the shoe (`expected_advantage_wagers`); and the
    blocks as `sequential_p_values` takes them. Per tested rating: whether it bet a side bet
    (`_side`), what its stakes win at random timing (`expected_edge_won`), what its side bets' stakes
    take of an advantage at random timing (`expected_advantage_won`) and the rank correlation of stake
    with edge over its cells of known edge (`edge_rank_correlation`). A rating with no such
    column has no block (it is not tested)."""
    pairs = (
        on_edges.group_by("_rating", "_bet")
        .agg(_wagers=pl.len())
        .join(present, on="_rating", how="inner")
        .sort("_rating", "_bet")
    )
    favoured, known = pair_counts(edge_table, pairs["_lo"].to_numpy(), pairs["coups_present"].to_numpy(),
                                  pairs["_bet"].to_numpy())  # fmt: skip
    pairs = pairs.with_columns(_favoured=pl.Series(favoured, dtype=pl.Int64), _known=pl.Series(known, dtype=pl.Int64))
    # per bet type, the share of the present coups where it favoured the player, times its wagers
    weights = pairs.group_by("_rating").agg(
        expected_advantage_wagers=(pl.col("_favoured") / pl.col("coups_present") * pl.col("_wagers")).sum()
    )
    columns = pairs.filter(pl.col("_known") > 0).with_columns(
        _column=pl.int_range(pl.len(), dtype=pl.Int64).over("_rating")
    )
    tests = columns.group_by("_rating", maintain_order=True).agg(
        pl.col("_lo", "coups_present").first(), _width=pl.len(), _bets=pl.col("_bet")
    )
    n, width = tests["coups_present"].to_numpy().astype(np.int64), tests["_width"].to_numpy().astype(np.int64)
    blocks = np.r_[0, np.cumsum(n * width)]
    staked = (
        on_edges.group_by("_rating", "_bet", "_coup")
        .agg(stake=pl.col("amount").cast(pl.Float64).sum())
        .join(columns.select("_rating", "_bet", "_lo", "_column"), on=["_rating", "_bet"], how="inner")
        .join(tests.select("_rating").with_row_index("_test"), on="_rating", how="inner")
        .select("_test", "stake", "_column", _row=pl.col("_coup").cast(pl.Int64) - pl.col("_lo"))
        .sort("_test", "_row", "_column")
    )
    test = staked["_test"].to_numpy().astype(np.int64)
    # the test weighs only the bets a count can beat: Banker's and Player's edges stay near -1 % and
    # only add noise (their stakes still move with their coup)
    main = np.isin(np.arange(len(BETS)), [BETS.index(bet) for bet in MAIN_HANDS])
    bets = columns["_bet"].to_numpy().astype(np.int64)
    arrays = {
        "blocks": blocks,
        "widths": width,
        "stakes": staked["stake"].to_numpy(),
        "rows": staked["_row"].to_numpy(),
        "columns": staked["_column"].to_numpy(),
        "entries": np.searchsorted(test, np.arange(tests.height + 1)),
    }
    laid = rating_blocks(
        edge_table, tests["_lo"].to_numpy(), n, width, bets, main, blocks, arrays["entries"], arrays["rows"],
        arrays["columns"], arrays["stakes"],
    )  # fmt: skip
    arrays["edges"] = laid.edges
    sided = ~pl.col("_bet").is_in(np.flatnonzero(main).tolist())
    side = columns.group_by("_rating", maintain_order=True).agg(_side=sided.any())
    found = tests.select("_rating").with_columns(
        expected_edge_won=pl.Series(laid.expected, dtype=pl.Float64),
        expected_advantage_won=pl.Series(laid.expected_advantage, dtype=pl.Float64),
        edge_rank_correlation=pl.Series(laid.rho, dtype=pl.Float64).fill_nan(None),
    )
    return found.join(side, on="_rating", how="left", maintain_order="left"), weights, arrays


#: Ratings whose blocks are built and tested at a time: a block holds every (present coup, bet type)
#: cell of its ratings (their arrays took about a gigabyte for a million coups' ratings), so a slice
#: at a time keeps a ten-million-coup rebuild within memory.
SLICE_RATINGS = 10_000


def _tested_in_slices(
    on_edges: pl.DataFrame, present: pl.DataFrame, edge_table: np.ndarray, sessions: pl.DataFrame, h: int,
    max_permutations: int,
) -> tuple[pl.DataFrame, pl.DataFrame]:  # fmt: skip
    """`_blocks` and `_tested` over `SLICE_RATINGS` ratings at a time: (expected advantage wagers,
    tests) per rating, as over all of them at once."""
    ratings = present["_rating"].unique().sort()
    weights, tested = [], []
    for first in range(0, max(ratings.len(), 1), SLICE_RATINGS):
        chosen = ratings.slice(first, SLICE_RATINGS)
        part = pl.col("_rating").is_in(chosen.implode())
        tests, weighed, arrays = _blocks(on_edges.filter(part), present.filter(part), edge_table)
        weights.append(weighed)
        tested.append(_tested(tests, arrays, sessions, h, max_permutations))
    return pl.concat(weights, how="vertical"), pl.concat(tested, how="vertical")


def _tested(
    tests: pl.DataFrame, arrays: dict[str, np.ndarray], sessions: pl.DataFrame, h: int, max_permutations: int
) -> pl.DataFrame:
    """Per tested rating (`tests`, from `_blocks`): its permutations, the test's statistic (what its side
    bets' stakes took of an advantage, `advantage_won`) and p-value beside."""
    keys = _ratings(sessions).select(KEY)[tests["_rating"]]
    seeds = np.array([rating_seed(*row) for row in keys.iter_rows()], np.uint64)
    found = sequential_p_values(**arrays, seeds=seeds, h=h, max_permutations=max_permutations)
    side = pl.col("_side")  # a rating that bet no side bet is not tested
    return (
        tests.with_columns(
            permutations=pl.Series(found.permutations, dtype=pl.Int64),
            p_value=pl.Series(found.p_value, dtype=pl.Float64),
            advantage_won=pl.Series(found.observed, dtype=pl.Float64),
        )
        .with_columns(pl.when(side).then(pl.col("permutations", "p_value", *ADVANTAGE_WON)))
        .drop("_side")
    )


def rating_seed(player_id: str, table_id: str, gaming_day, session: int) -> int:
    """The permutation stream's seed of a rating: a hash of its key (a rebuild draws the same)."""
    text = f"{player_id}\x1f{table_id}\x1f{gaming_day}\x1f{session}".encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "little")


def _zender(
    placed: pl.DataFrame, coups: pl.DataFrame, max_bet: Decimal, side_max: Decimal, near_max: float, late_share: float
) -> pl.DataFrame:
    """Per rating: the shoes matching Zender's pattern (`zender_shoes`; a shoe counts for the rating
    of its first wager there) and what the house lost on their wagers at or near the limit."""
    share = Decimal(str(near_max))
    limit = (
        pl.when(pl.col("bet").is_in(MAIN_BETS))
        .then(pl.lit(share * Decimal(max_bet)).cast(pl.Decimal(38, 6)))
        .otherwise(pl.lit(share * Decimal(side_max)).cast(pl.Decimal(38, 6)))
    )
    near = pl.col("amount") >= limit
    shoes = (
        placed.sort("round_no", maintain_order=True)
        .group_by("player_id", "table_id", "shoe_id")
        .agg(
            _rating=pl.col("_rating").first(),
            round_no=pl.col("round_no").first(),
            _near=near.any(),
            _lost=(-pl.col("house_net")).filter(near).sum(),
        )
        .join(coups.select(*COUP, "decks", "cards_left"), on=COUP, how="inner")
        # the first wager came only in the shoe's last cards (the ones before it were sat out)
        .filter(pl.col("_near") & (pl.col("cards_left") <= late_share * 52 * pl.col("decks").cast(pl.Float64)))
    )
    return shoes.group_by("_rating").agg(zender_shoes=pl.len(), zender_won=pl.col("_lost").sum())


def _q_by_day() -> pl.Expr:
    return pl.col("p_value").map_batches(q_values, return_dtype=pl.Float64).over("gaming_day").alias("q_value")


def fisher_p_values(statistic: np.ndarray, tested: np.ndarray) -> np.ndarray:
    """Fisher's combination: P(chi-squared with 2k degrees of freedom >= -2 sum log p) for k tested
    p-values (NaN where k = 0)."""
    out = np.full(len(statistic), np.nan)
    some = tested > 0
    out[some] = stats.chi2.sf(statistic[some], 2 * tested[some])
    return out


def surveillance_player_day(sessions: pl.DataFrame) -> pl.DataFrame:
    """marts.surveillance_player_day from the day's surveillance sessions (all tables): per player
    and gaming day their sums, the shares taken again from them, Fisher's combination of the
    sessions' p-values and its Benjamini-Hochberg q-value over the day's tested players."""
    days = (
        sessions.group_by("player_id", "gaming_day")
        .agg(
            tables=pl.col("table_id").n_unique().cast(pl.Int64),
            sessions=pl.len().cast(pl.Int64),
            tested_sessions=pl.col("p_value").count().cast(pl.Int64),
            _expected=(pl.col("expected_advantage_share") * pl.col("wagers")).sum(),
            _fisher=(-2 * pl.col("p_value").log()).sum(),
            **{name: pl.col(name).sum() for name in SUMS},
        )
        .sort("gaming_day", "player_id")
    )
    combined = fisher_p_values(days["_fisher"].to_numpy(), days["tested_sessions"].to_numpy())
    return (
        days.with_columns(
            pl.Series("p_value", combined).fill_nan(None),
            advantage_share=pl.col("advantage_wagers") / pl.col("wagers"),
            expected_advantage_share=pl.col("_expected") / pl.col("wagers"),
            **{
                name: pl.col(name).cast(MONEY)
                for name in ("amount", "edge_won", "expected_edge_won", *ADVANTAGE_WON, "house_win", "zender_won")
            },
            **{
                name: pl.col(name).cast(pl.Int64)
                for name in ("coups_present", "wagers", "side_wagers", "advantage_wagers", "permutations")
            },
            zender_shoes=pl.col("zender_shoes").cast(pl.Int32),
        )
        .with_columns(_q_by_day())
        .select(DAY_COLUMNS)
    )


def surveillance_flags(
    sessions: pl.DataFrame, player_day: pl.DataFrame, fdr: float = DEFAULTS.surveillance_fdr, zender_shoes: int = 1
) -> pl.DataFrame:
    """marts.surveillance_flags: the player-days whose q-value (Benjamini-Hochberg over the gaming
    day's tested players) is at most `fdr` (rule 'edge_timing'), each followed by its sessions whose
    own p-value is at most the day's largest flagged one (where in the day, with the day's q); and the
    player-days with at least `zender_shoes` shoes of Zender's pattern (rule 'zender').

    The player-days are the one family the false-discovery rate is kept over: testing the sessions as
    a second family (BH apart) let the flags of the two add up to more false leads than `fdr`."""
    if not 0 < fdr < 1 or zender_shoes < 1:
        raise ValueError(f"the flags need 0 < fdr < 1 and zender_shoes >= 1, got {fdr} and {zender_shoes}")
    flagged = player_day.filter(pl.col("q_value") <= fdr)
    cut = flagged.group_by("gaming_day").agg(_cut=pl.col("p_value").max())
    named = flagged.select("player_id", "gaming_day", "q_value").join(cut, on="gaming_day")
    within = sessions.join(named, on=["player_id", "gaming_day"], how="inner")
    timed = within.filter(pl.col("p_value") <= pl.col("_cut"))
    by_session = timed.select(*_rule("edge_timing", "session"), "table_id", "session", *EVIDENCE)
    # a player-day's flag names no table or rating
    blank = (pl.lit(None, pl.String).alias("table_id"), pl.lit(None, sessions.schema["session"]).alias("session"))
    by_day = flagged.select(*_rule("edge_timing", "player_day"), *blank, *EVIDENCE)
    untested = (pl.lit(None, pl.Float64).alias("p_value"), pl.lit(None, pl.Float64).alias("q_value"))
    zender = player_day.filter(pl.col("zender_shoes") >= zender_shoes).select(
        *_rule("zender", "player_day"), *blank, *untested, *EVIDENCE[2:]
    )
    flags = pl.concat([frame.cast(FLAG_TYPES) for frame in (by_session, by_day, zender)], how="vertical").sort(
        "gaming_day", "player_id", "rule", "scope", "table_id", "session", nulls_last=False
    )
    reasons = pl.Series("detail", [_detail(flag) for flag in flags.iter_rows(named=True)], dtype=pl.String)
    return flags.with_columns(reasons).select(FLAG_COLUMNS)


def _rule(rule: str, scope: str) -> tuple[pl.Expr, ...]:
    """A flag's first columns: its day, player, rule and scope."""
    return pl.col("gaming_day"), pl.col("player_id"), pl.lit(rule).alias("rule"), pl.lit(scope).alias("scope")


def _detail(flag: dict) -> str:
    """A flag's reason in one line."""
    if flag["rule"] == "zender":
        shoes = f"{flag['zender_shoes']} shoe{'s' if flag['zender_shoes'] != 1 else ''}"
        won = flag["zender_won"]
        result = f"the house lost {display.money(won)}" if won >= 0 else f"the house won {display.money(-won)}"
        return f"{shoes} sat out, then bet at or near the table maximum in the last cards; {result} on those wagers"
    return (
        f"{flag['advantage_wagers']} of {flag['wagers']} wagers at an advantage "
        f"({display.percent(flag['expected_advantage_share'], 'share')} expected at random timing); their side bets "
        f"took an advantage worth {display.money(flag['advantage_won'])} where random timing takes "
        f"{display.money(flag['expected_advantage_won'])} on average and reaches as much with chance "
        f"{_stated('p', flag['p_value'])} ({_stated('q', flag['q_value'])} over the day's players); edge won "
        f"{display.money(flag['edge_won'])}"
    )


def _stated(name: str, p: float) -> str:
    """ "p = 0.0012", or "p < 0.0001" (display.p_value)."""
    shown = display.p_value(p)
    return f"{name} {shown}" if shown.startswith("<") else f"{name} = {shown}"
