"""The money marts' sums per dealer's stint, taken in one compiled pass over the wagers.

`commission_sums` and `table_day_sums` (money.py) join every wager to its coup and group thirty
million rows on five keys. Here each wager finds its coup by number (coups.py), and one pass adds
it to its cell: the coup's stint (gaming day, dealer, table), game and decks, and the wager's bet.
Money is summed exactly, as whole units of the decimal's last place; any input the pass cannot
vouch for (a null amount, a value past 64 bits, a bet or game it does not know, a wager of another
game than its coup) returns None, and the caller takes the general path.
"""

from __future__ import annotations

import itertools

import numpy as np
import polars as pl
from numba import njit

from models.game.games import Game
from models.game.paytable import DEFAULT_PAYTABLE, MAIN_BETS, REDUCED_WINS, PayTable
from models.logs.arrow_text import label_codes
from models.metrics.coups import SHOE, Coups, changes
from models.metrics.money import Rounding, cagnotte, reduced_win
from models.metrics.theory import outcome_rates
from models.money_units import MONEY_SCALE, MONEY_SUM, MONEY_UNIT, THEO_SCALE, decimal_series, words

STINT = ["gaming_day", "dealer_id", "table_id"]
GAMES = tuple(game.value for game in Game)
#: Per cell, whole units: amount, house_net, commission collected, theo; then for wagers on a coup
#: Banker won: the count, the amount, the amount on a Super 6 or EZ Baccarat reduced win (REDUCED_WINS).
SUMS = ("amount", "house_net", "collected", "theo", "won", "won_amount", "super6_amount", "ez_amount")
#: Bits of a coup's flags: Banker won; a win its game pays less than even money.
WON, REDUCED = 1, 2
#: The pass's verdicts.
OK, CANNOT = 0, 1


def stint_sums(
    bets: pl.DataFrame,
    coups: Coups,
    variance: pl.DataFrame,
    rounding: Rounding,
    table: PayTable = DEFAULT_PAYTABLE,
) -> tuple[pl.LazyFrame, pl.LazyFrame] | None:
    """`commission_sums` and `table_day_sums` per stint (STINT) and game, from core.bets and the
    numbered coups (None where the pass cannot vouch for the input)."""
    bet_labels = tuple(variance["bet"].unique(maintain_order=True))
    rounds = coups.rows
    cells, coup_cell = _cells(rounds)
    coup_game = label_codes(rounds["game"], GAMES, -1, -1)
    if coup_game.min(initial=0) < 0:
        return None
    reduced = pl.any_horizontal(reduced_win(game) for game in REDUCED_WINS)
    flags = rounds.select(
        (pl.col("outcome") == "B").cast(pl.Int8) * WON + reduced.fill_null(False).cast(pl.Int8) * REDUCED
    ).to_series()
    shape = (cells.height * len(bet_labels),)
    counts, sums = np.zeros(shape, np.int64), np.zeros((*shape, len(SUMS)), np.int64)
    squares, magnitude = np.zeros(shape, np.float64), np.zeros(1, np.float64)
    if any(bets[name].null_count() for name in ("amount", "house_net", "commission", "theo")):
        return None
    collected = "commission" if rounding.policy == "exact" else "collected"
    placed = bets if collected == "commission" else bets.with_columns(collected=rounding.apply(pl.col("commission")))
    starts, bounds = _heads(placed, coups)
    games = (GAMES.index(Game.SUPER6), GAMES.index(Game.EZ_BACCARAT))
    coup_flags = flags.to_numpy()
    done, stretch = 0, 0
    for chunk in _chunks(placed.select("round_no", "game", "bet", "amount", "house_net", collected, "theo")):
        n = chunk.height
        verdict = _add_wagers(
            starts[done : done + n],
            bounds,
            stretch,
            chunk["round_no"].to_numpy(),
            label_codes(chunk["game"], GAMES, -1, -1),
            label_codes(chunk["bet"], bet_labels, -1, -1),
            *(words(chunk[name]) for name in ("amount", "house_net", collected, "theo")),
            coups.at,
            coup_cell,
            coup_game,
            coup_flags,
            *games,
            len(bet_labels),
            counts,
            sums,
            squares,
            magnitude,
        )
        stretch += int(np.count_nonzero(starts[done : done + n]))
        done += n
        if verdict != OK or magnitude[0] >= 2.0**62:
            return None
    return _frames(cells, bet_labels, counts, sums, squares, variance, table)


def _cells(rounds: pl.DataFrame) -> tuple[pl.DataFrame, np.ndarray]:
    """The coups' cells (stint, game, decks), one row each, and each coup's cell (int32)."""
    keys = [*STINT, "game", "decks"]
    starts = changes(*(rounds[name] for name in keys))
    heads = rounds[np.flatnonzero(starts)].select(keys)
    cells = heads.unique(maintain_order=True).with_columns(_cell=pl.int_range(pl.len(), dtype=pl.Int32))
    of_head = heads.join(cells, on=keys, how="left", maintain_order="left", nulls_equal=True)["_cell"]
    return cells, of_head.to_numpy()[np.cumsum(starts) - 1]


def _heads(bets: pl.DataFrame, coups: Coups) -> tuple[np.ndarray, np.ndarray]:
    """Where the wagers' stretches of one shoe start (bool per wager; found chunk by chunk, with no
    copy of the text), and per stretch its shoe's base number, first and last round (int64 (h, 3);
    no round at all where no coup has the shoe)."""
    starts = np.concatenate([changes(*chunk.get_columns()) for chunk in _chunks(bets.select(SHOE))])
    heads = bets[np.flatnonzero(starts)].select(SHOE)
    known = heads.join(coups.shoes, on=SHOE, how="left", maintain_order="left")
    bounds = known.select(pl.col("base").fill_null(0), pl.col("lo").fill_null(1), pl.col("hi").fill_null(0))
    return starts, bounds.to_numpy().astype(np.int64)


def _chunks(frame: pl.DataFrame) -> list[pl.DataFrame]:
    """The frame's stretches of rows as stored (each column in one piece): read without a copy."""
    if len(set(frame.n_chunks("all"))) != 1:
        frame = frame.rechunk()
    if frame.n_chunks() == 1:
        return [frame]
    bounds = np.cumsum([0, *(len(piece) for piece in frame.get_columns()[0].get_chunks())])
    return [frame.slice(int(a), int(b - a)).rechunk() for a, b in itertools.pairwise(bounds)]


@njit(cache=True, nogil=True, inline="always")
def _add(sums, cell, j, column, i, magnitude) -> bool:
    """Add wager i's value of `column` to sums[cell, j]; False where it does not fit 64 bits."""
    value = column[i, 0]
    if column[i, 1] != (value >> 63):
        return False
    sums[cell, j] += value
    magnitude[0] += abs(value)
    return True


@njit(cache=True, nogil=True)
def _add_wagers(
    starts, bounds, stretch, round_no, game, bet, amount, house_net, collected, theo,
    coup_at, coup_cell, coup_game, coup_flags, super6, ez, n_bets, counts, sums, squares, magnitude,
):  # fmt: skip
    """Add one chunk of wagers to the cells' sums; OK or CANNOT.

    Per wager (n,): starts bool, where a stretch of one shoe starts (the chunk's first wager at
    least); round_no int32; game, bet int8 codes (-1: unknown); amount, house_net, collected, theo
    int64 (n, 2), int128 words (lo, hi) in units. bounds int64 (stretches, 3): per stretch its
    shoe's base number, first and last round (lo > hi: no such shoe); stretch: the row in bounds of
    the chunk's first stretch. Per coup: coup_cell int32, coup_game and coup_flags int8; coup_at
    int32, the coup of each number (-1: none). Out, per cell and bet (cells * n_bets): counts int64,
    sums int64 (., 8) as SUMS, squares float64 (amounts squared, in money); magnitude float64 (1,),
    the sum of |units| so far."""
    h = stretch - 1
    for i in range(round_no.shape[0]):
        if starts[i]:
            h += 1
        base, lo, hi = bounds[h, 0], bounds[h, 1], bounds[h, 2]
        r = round_no[i]
        if r < lo or r > hi:
            continue
        coup = coup_at[base + r]
        if coup < 0:
            continue
        if game[i] < 0 or bet[i] < 0 or game[i] != coup_game[coup]:
            return CANNOT
        cell = coup_cell[coup] * n_bets + bet[i]
        counts[cell] += 1
        if not (_add(sums, cell, 0, amount, i, magnitude) and _add(sums, cell, 1, house_net, i, magnitude)):
            return CANNOT
        if not (_add(sums, cell, 2, collected, i, magnitude) and _add(sums, cell, 3, theo, i, magnitude)):
            return CANNOT
        flags = coup_flags[coup]
        if flags & WON:
            value = amount[i, 0]
            sums[cell, 4] += 1
            sums[cell, 5] += value
            if game[i] == super6 and flags & REDUCED:
                sums[cell, 6] += value
            if game[i] == ez and flags & REDUCED:
                sums[cell, 7] += value
        money = amount[i, 0] / MONEY_UNIT
        squares[cell] += money * money
    return OK


def _frames(cells, bet_labels, counts, sums, squares, variance, table) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """The pass's cells as `commission_sums` and `table_day_sums` would give them."""
    used = np.flatnonzero(counts)
    scales = {
        "amount": MONEY_SCALE,
        "house_net": MONEY_SCALE,
        "collected": MONEY_SCALE,
        "theo": THEO_SCALE,
        "won_amount": MONEY_SCALE,
        "super6_amount": MONEY_SCALE,
        "ez_amount": MONEY_SCALE,
    }
    found = pl.DataFrame(
        {
            "_cell": (used // len(bet_labels)).astype(np.int32),
            "bet": pl.Series(bet_labels).gather(used % len(bet_labels)),
            "_count": counts[used],
            "_won": sums[used, SUMS.index("won")],
            "_square": squares[used],
            **{f"_{name}": decimal_series(sums[used, SUMS.index(name)], scale) for name, scale in scales.items()},
        }
    ).join(cells, on="_cell")
    banker = found.filter(pl.col("bet") == "banker")
    rates = outcome_rates(table).select("game", "decks", "p_banker")
    levy = cagnotte()
    fees = banker.join(rates, on=["game", "decks"], how="left").select(
        *STINT,
        "game",
        banker_handle="_amount",
        banker_wagers=pl.col("_count").cast(pl.UInt32),
        banker_won=pl.col("_won").cast(pl.UInt32),
        banker_won_amount="_won_amount",
        commission=pl.when(~levy).then(pl.col("_collected")).otherwise(_zero()),
        cagnotte=pl.when(levy).then(pl.col("_collected")).otherwise(_zero()),
        super6_reduction=pl.col("_super6_amount") * pl.lit(table.reduction(Game.SUPER6)),
        ez_reduction=pl.col("_ez_amount") * pl.lit(table.reduction(Game.EZ_BACCARAT)),
        expected_commission=pl.col("_amount").cast(pl.Float64) * pl.col("p_banker") * float(table.commission),
    )
    side = ~pl.col("bet").is_in(MAIN_BETS)
    money = (
        found.join(variance, on=["game", "decks", "bet"], how="left")
        .group_by(*STINT, "game")
        .agg(
            wagers=pl.col("_count").sum().cast(pl.UInt32),
            handle=pl.col("_amount").sum(),
            **{f"handle_{bet}": pl.col("_amount").filter(pl.col("bet") == bet).sum() for bet in MAIN_BETS},
            handle_side=pl.col("_amount").filter(side).sum(),
            house_win=pl.col("_house_net").sum(),
            theo=pl.col("_theo").sum(),
            win_variance=(pl.col("_square") * pl.col("house_variance")).sum(),
        )
    )
    return fees.lazy(), money.lazy()


def _zero() -> pl.Expr:
    return pl.lit(0).cast(MONEY_SUM)
