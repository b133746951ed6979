"""Player ratings and the side bets' cells, taken in one compiled pass over the wagers.

A rating is a player's continuous play at one table on one gaming day (and game): the coups of
each table's day are walked in time order, and a player's wager there starts a new rating when
their previous wager at that table is more than the session gap earlier. Each wager finds its coup
by row (`coup_rows`), so nothing joins or sorts thirty million wagers; money is summed exactly, as
whole units of the decimal's last place.
"""

from __future__ import annotations

import datetime as dt
import itertools
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import polars as pl
from numba import njit

from models.game.paytable import BETS
from models.logs.arrow_text import label_codes
from models.metrics.coups import SHOE, Coups, changes
from models.money_units import MONEY_SCALE, MONEY_UNIT, THEO_SCALE, decimal_series, low_units

#: Where a rating's coups are: a new table, gaming day or game is a new rating.
CELL = ["gaming_day", "table_id", "game"]
COUP_KEY = [*SHOE, "round_no"]
#: The bets on the main hands (handle_main); every other bet, the tie included, is a side bet.
MAIN_HANDS = ("banker", "player")
#: The bets by code: in name order, so that cells in code order are in the marts' order.
LABELS = tuple(sorted(BETS))


@dataclass(frozen=True)
class Rated:
    """The pass's sums: one row per rating (`sessions`), per player, gaming day and bet
    (`player_bets`), and per table, gaming day, game and side bet (`side_bets`)."""

    sessions: pl.DataFrame
    player_bets: pl.DataFrame
    side_bets: pl.DataFrame


def coup_rows(bets: pl.DataFrame, coups: Coups) -> np.ndarray:
    """Each wager's row in `coups.rows` (int32; -1 where no coup has its key), found by the coups'
    numbers: the wagers' stretches of one shoe are matched to shoes by name, the rest is arithmetic."""
    keys = bets.select(SHOE)
    if len(set(keys.n_chunks("all"))) != 1:
        keys = keys.rechunk()
    # chunk by chunk, as stored: no copy of the text
    bounds = np.cumsum([0, *(len(piece) for piece in keys.get_columns()[0].get_chunks())])
    starts = np.concatenate(
        [np.zeros(0, np.bool_)]
        + [changes(*keys.slice(int(a), int(b - a)).rechunk().get_columns()) for a, b in itertools.pairwise(bounds)]
    )
    heads = keys[np.flatnonzero(starts)].join(coups.shoes, on=SHOE, how="left", maintain_order="left")
    shoe = heads.select(pl.col("base").fill_null(0), pl.col("lo").fill_null(1), pl.col("hi").fill_null(0))
    stretch = (np.cumsum(starts) - 1).astype(np.int64)
    return _rows_by_number(shoe.to_numpy().astype(np.int64), stretch, bets["round_no"].to_numpy(), coups.at)


def joined_coup_rows(bets: pl.DataFrame, rows: pl.DataFrame) -> np.ndarray:
    """`coup_rows` by a join on the coup's key, for coups `number` could not number (a key twice:
    the first row of it)."""
    keyed = rows.select(COUP_KEY).with_row_index("_row").unique(COUP_KEY, keep="first")
    found = bets.select(COUP_KEY).join(keyed, on=COUP_KEY, how="left", maintain_order="left")["_row"]
    return found.cast(pl.Int64).fill_null(-1).to_numpy().astype(np.int32)


@njit(cache=True, nogil=True)
def _rows_by_number(shoe, stretch, round_no, at):
    """shoe int64 (stretches, 3): base, lo, hi; per wager its stretch and round; at: row per number."""
    out = np.full(round_no.shape[0], -1, np.int32)
    for i in range(round_no.shape[0]):
        base, lo, hi = shoe[stretch[i], 0], shoe[stretch[i], 1], shoe[stretch[i], 2]
        r = round_no[i]
        if lo <= r <= hi:
            out[i] = at[base + r]
    return out


def group_codes(frame: pl.DataFrame, keys: list[str]) -> tuple[pl.DataFrame, np.ndarray]:
    """The distinct `keys` of `frame` in key order (one row each, `_code` its row number) and each
    row's code (int32), found where the keys change from the row before: rows of one group mostly
    sit together."""
    starts = changes(*(frame[name] for name in keys))
    heads = frame[np.flatnonzero(starts)].select(keys)
    groups = heads.unique().sort(keys).with_columns(_code=pl.int_range(pl.len(), dtype=pl.Int32))
    of_head = heads.join(groups, on=keys, how="left", maintain_order="left", nulls_equal=True)["_code"]
    return groups, of_head.to_numpy()[np.cumsum(starts) - 1]


def rate(
    rows: pl.DataFrame, wager_coups: np.ndarray, bets: pl.DataFrame, variance: pl.DataFrame, gap: dt.timedelta
) -> Rated:
    """The ratings and side-bet cells of `bets` (player_id, bet, amount, house_net, theo) whose coups
    are `rows` (table_id, shoe_id, started_at, gaming_day, game, decks) at `wager_coups` (coup_rows).
    `variance`: game, decks, bet -> house_variance per unit staked; `gap`: the session gap."""
    # the wagers' codes and units are read on a thread of their own while the coups are ordered
    # (compiled passes and Polars both let go of Python's lock)
    with ThreadPoolExecutor(1) as reader:
        wager_side = reader.submit(_wager_codes, bets)
        rows = rows.rechunk()
        cells, coup_cell = group_codes(rows, CELL)
        _, coup_shoe = group_codes(rows, SHOE)
        kinds, coup_kind = group_codes(rows, ["game", "decks"])
        time = rows["started_at"].dt.epoch("us").to_numpy().astype(np.int64)
        order, cell_starts = _coup_order(coup_cell, time, cells.height)
        lengths = _coup_lengths(order, cell_starts, coup_shoe, time)
        wager_at, coup_wagers = _wagers_by_coup(wager_coups, rows.height)
        bet, player_code, named, units = wager_side.result()
    n_players = int(player_code.max(initial=-1)) + 1
    gap_us = int(gap / dt.timedelta(microseconds=1))
    walk = (order, wager_at, coup_wagers, player_code, time, coup_cell, gap_us, n_players)
    count = _sessions(*walk, np.zeros(0, np.int32), np.zeros((0, 6), np.int64))
    wager_session, facts = np.full(bets.height, -1, np.int32), np.zeros((count, 6), np.int64)
    _sessions(*walk, wager_session, facts)
    # facts: player, cell, first and last coup's start (us), decisions, the rating's number in its cell
    sessions = pl.concat(
        [
            cells.drop("_code").gather(pl.Series(facts[:, 1])),
            pl.DataFrame(
                {
                    "_player": facts[:, 0],
                    "_cell": facts[:, 1],
                    "_first": facts[:, 2],
                    "_last": facts[:, 3],
                    "decisions": facts[:, 4],
                    "session": facts[:, 5].astype(np.int32),
                }
            ),
        ],
        how="horizontal",
    ).join(named, on="_player", how="left", maintain_order="left")
    # the players' days in the mart's order (day, player): their cells come out in it
    days, session_day = group_codes(sessions.select("gaming_day", "player_id"), ["gaming_day", "player_id"])
    per_unit = _variance_table(kinds, variance)
    main = np.array([name in MAIN_HANDS for name in LABELS])
    n_bets = len(LABELS)
    session_sums = np.zeros((count, 6), np.int64)  # wagers, handle, max bet, main, house win, theo
    session_squares = np.zeros(count, np.float64)
    player_bets = np.zeros((days.height * n_bets, 4), np.int64)  # wagers, handle, house win, theo
    player_squares = np.zeros(days.height * n_bets, np.float64)
    side_bets = np.zeros((cells.height * n_bets, 4), np.int64)
    side_squares = np.zeros(cells.height * n_bets, np.float64)
    _add_wagers(
        wager_coups, wager_session, bet, *units, coup_cell, coup_kind, per_unit, session_day, main, n_bets,
        session_sums, session_squares, player_bets, player_squares, side_bets, side_squares,
    )  # fmt: skip
    return Rated(
        sessions=_session_frame(sessions, lengths, session_sums, session_squares, rows.schema["started_at"]),
        player_bets=_cells_frame(days, player_bets, player_squares, n_bets),
        side_bets=_cells_frame(cells, side_bets, side_squares, n_bets),
    )


def _wager_codes(bets: pl.DataFrame) -> tuple[np.ndarray, np.ndarray, pl.DataFrame, list[np.ndarray]]:
    """Per wager: its bet's index in LABELS, its player's code (with the players' ids by code), and
    its amount, house_net and theo in units."""
    bet = label_codes(bets["bet"], LABELS, -1, -1)
    if bet.min(initial=0) < 0:
        unknown = sorted(set(bets["bet"].filter(pl.Series(bet < 0)).unique().to_list()))
        raise ValueError(f"core.bets holds bets no pay table knows: {', '.join(map(str, unknown))}")
    player_code, named = _player_codes(bets["player_id"])
    return bet, player_code, named, [low_units(bets[name]) for name in ("amount", "house_net", "theo")]


def _player_codes(player_id: pl.Series) -> tuple[np.ndarray, pl.DataFrame]:
    """Each wager's player as a code (int64, -1 for unrated play), and the players' ids by code."""
    player = player_id if player_id.dtype == pl.Categorical else player_id.cast(pl.Categorical)
    codes = player.to_physical().cast(pl.Int64).fill_null(-1).to_numpy()
    # each player's first wager names them: found in one pass, not by hashing the ids again
    first = _first_of_each(codes, int(codes.max(initial=-1)) + 1)
    present = np.flatnonzero(first >= 0)
    names = player.gather(pl.Series(first[present])).cast(pl.String)
    return codes, pl.DataFrame({"_player": present.astype(np.int64), "player_id": names})


@njit(cache=True, nogil=True)
def _first_of_each(codes, n):
    """Per code 0..n-1: the row it first appears in (-1: never)."""
    first = np.full(n, -1, np.int64)
    for i in range(codes.shape[0]):
        c = codes[i]
        if c >= 0 and first[c] < 0:
            first[c] = i
    return first


def _session_frame(
    sessions: pl.DataFrame, lengths: np.ndarray, sums: np.ndarray, squares: np.ndarray, zone: pl.DataType
) -> pl.DataFrame:
    """The ratings' rows: their facts from the walk, times (`zone`: started_at's type), and sums."""
    length = pl.Series(lengths).gather(sessions["_cell"]).to_numpy()
    sessions = sessions.with_columns(
        started_at=pl.Series(sessions["_first"]).cast(pl.Datetime("us")).dt.replace_time_zone("UTC"),
        ended_at=pl.Series(sessions["_last"] + length).cast(pl.Datetime("us")).dt.replace_time_zone("UTC"),
        minutes=pl.Series((sessions["_last"].to_numpy() + length - sessions["_first"].to_numpy()) / 60e6),
        wagers=pl.Series(sums[:, 0]),
        handle=decimal_series(sums[:, 1], MONEY_SCALE),
        max_bet=decimal_series(sums[:, 2], MONEY_SCALE),
        handle_main=decimal_series(sums[:, 3], MONEY_SCALE),
        handle_side=decimal_series(sums[:, 1] - sums[:, 3], MONEY_SCALE),
        house_win=decimal_series(sums[:, 4], MONEY_SCALE),
        theo=decimal_series(sums[:, 5], THEO_SCALE),
        win_variance=pl.Series(squares),
    )
    return sessions.cast({"started_at": zone, "ended_at": zone}).drop("_player", "_cell", "_first", "_last")


def _variance_table(kinds: pl.DataFrame, variance: pl.DataFrame) -> np.ndarray:
    """Per (game, decks) code and bet: the house's variance per unit staked (0 where none is known)."""
    known = kinds.join(variance.cast({"decks": kinds.schema["decks"]}), on=["game", "decks"], how="inner")
    table = np.zeros((kinds.height, len(LABELS)), np.float64)
    bet = label_codes(known["bet"], LABELS, -1, -1)
    keep = bet >= 0
    table[known["_code"].to_numpy()[keep], bet[keep]] = known["house_variance"].fill_null(0).to_numpy()[keep]
    return table


def _cells_frame(groups: pl.DataFrame, sums: np.ndarray, squares: np.ndarray, n_bets: int) -> pl.DataFrame:
    """The cells (group code x bet) with any wager, as rows in code order: the group's columns, bet
    and sums."""
    used = np.flatnonzero(sums[:, 0])
    found = pl.DataFrame(
        {
            "bet": pl.Series(LABELS).gather(used % n_bets),
            "wagers": sums[used, 0],
            "handle": decimal_series(sums[used, 1], MONEY_SCALE),
            "house_win": decimal_series(sums[used, 2], MONEY_SCALE),
            "theo": decimal_series(sums[used, 3], THEO_SCALE),
            "win_variance": squares[used],
        }
    )
    return pl.concat([groups.drop("_code").gather(pl.Series(used // n_bets)), found], how="horizontal")


@njit(cache=True, nogil=True)
def _coup_order(coup_cell, time, n_cells):
    """The coups' rows cell by cell, in time order within each (int64), and where each cell starts."""
    starts = np.zeros(n_cells + 1, np.int64)
    for c in coup_cell:
        starts[c + 1] += 1
    starts = np.cumsum(starts)
    fill = starts[:-1].copy()
    order = np.empty(coup_cell.shape[0], np.int64)
    for i in range(coup_cell.shape[0]):
        order[fill[coup_cell[i]]] = i
        fill[coup_cell[i]] += 1
    for c in range(n_cells):
        a, b = starts[c], starts[c + 1]
        segment = order[a:b].copy()
        order[a:b] = segment[np.argsort(time[segment], kind="mergesort")]
    return order, starts


@njit(cache=True, nogil=True)
def _coup_lengths(order, starts, coup_shoe, time):
    """Per cell: the median gap (us) between consecutive coups of one shoe; 0 where there is none."""
    lengths = np.zeros(starts.shape[0] - 1, np.int64)
    for c in range(starts.shape[0] - 1):
        a, b = starts[c], starts[c + 1]
        gaps = np.empty(max(b - a - 1, 0), np.int64)
        k = 0
        for j in range(a + 1, b):
            if coup_shoe[order[j]] == coup_shoe[order[j - 1]]:
                gaps[k] = time[order[j]] - time[order[j - 1]]
                k += 1
        if k:
            lengths[c] = int(np.round(np.median(gaps[:k])))
    return lengths


@njit(cache=True, nogil=True)
def _wagers_by_coup(wager_coups, n_coups):
    """The wagers' indices coup by coup (int64), and where each coup's start (n_coups + 1)."""
    starts = np.zeros(n_coups + 1, np.int64)
    for c in wager_coups:
        if c >= 0:
            starts[c + 1] += 1
    starts = np.cumsum(starts)
    fill = starts[:-1].copy()
    at = np.empty(starts[-1], np.int64)
    for i in range(wager_coups.shape[0]):
        c = wager_coups[i]
        if c >= 0:
            at[fill[c]] = i
            fill[c] += 1
    return at, starts


@njit(cache=True, nogil=True)
def _sessions(order, wager_at, coup_wagers, player, time, coup_cell, gap, n_players, wager_session, facts):
    """Walk the coups cell by cell in time order; a rated wager starts a rating where its player's
    last wager is in another cell or more than `gap` (us) earlier. Returns the ratings' count; with
    room given, also each wager's rating (wager_session) and per rating (facts, int64 (., 5)): its
    player, cell, first and last coup's start, decisions (the coups wagered on) and its number
    among the player's ratings in the cell, from 1."""
    store = facts.shape[0] > 0
    last_cell = np.full(n_players, -1, np.int64)
    last_time = np.zeros(n_players, np.int64)
    last_coup = np.full(n_players, -1, np.int64)
    current = np.full(n_players, -1, np.int64)
    number = np.zeros(n_players, np.int64)
    count = 0
    for k in range(order.shape[0]):
        coup = order[k]
        cell, t = coup_cell[coup], time[coup]
        for j in range(coup_wagers[coup], coup_wagers[coup + 1]):
            w = wager_at[j]
            p = player[w]
            if p < 0:
                continue
            if last_cell[p] != cell or t - last_time[p] > gap:
                current[p] = count
                number[p] = number[p] + 1 if last_cell[p] == cell else 1
                if store:
                    facts[count, 0], facts[count, 1], facts[count, 2] = p, cell, t
                    facts[count, 5] = number[p]
                count += 1
            s = current[p]
            if store:
                wager_session[w] = s
                facts[s, 3] = t
                if last_coup[p] != coup or last_cell[p] != cell:
                    facts[s, 4] += 1
            last_cell[p], last_time[p], last_coup[p] = cell, t, coup
    return count


@njit(cache=True, nogil=True)
def _add_wagers(
    wager_coups, wager_session, bet, amount, house_net, theo, coup_cell, coup_kind, per_unit, session_day, main,
    n_bets, session_sums, session_squares, player_bets, player_squares, side_bets, side_squares,
):  # fmt: skip
    """Add each wager to its rating's sums (wagers, handle, max bet, main handle, house win, theo;
    amounts squared x variance per unit), its player-day and bet's, and, for a side bet, its cell's."""
    for i in range(bet.shape[0]):
        coup = wager_coups[i]
        if coup < 0:
            continue
        b = bet[i]
        money = amount[i] / MONEY_UNIT
        square = money * money * per_unit[coup_kind[coup], b]
        s = wager_session[i]
        if s >= 0:
            session_sums[s, 0] += 1
            session_sums[s, 1] += amount[i]
            session_sums[s, 2] = max(session_sums[s, 2], amount[i])
            if main[b]:
                session_sums[s, 3] += amount[i]
            session_sums[s, 4] += house_net[i]
            session_sums[s, 5] += theo[i]
            session_squares[s] += square
            cell = session_day[s] * n_bets + b
            player_bets[cell, 0] += 1
            player_bets[cell, 1] += amount[i]
            player_bets[cell, 2] += house_net[i]
            player_bets[cell, 3] += theo[i]
            player_squares[cell] += square
        if not main[b] and b >= 0:
            cell = coup_cell[coup] * n_bets + b
            side_bets[cell, 0] += 1
            side_bets[cell, 1] += amount[i]
            side_bets[cell, 2] += house_net[i]
            side_bets[cell, 3] += theo[i]
            side_squares[cell] += square
