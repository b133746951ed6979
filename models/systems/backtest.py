"""Back-tests: a betting system over real or simulated shoes, coup by coup, one session per shoe.

The shoes' outcomes come from their real cards, so whatever the cards' composition did is in the
results; `against_exact` sets the sessions beside the exact independent-coup distribution for the
same shoe lengths, with a chi-square test that they agree within sampling error.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

import numpy as np
import polars as pl
from scipy import stats

from models.game.cells import CELL_OUTCOMES
from models.game.games import Game
from models.game.paytable import BETS, DEFAULT_PAYTABLE, PayTable, settlement_grid
from models.money_units import MONEY, as_money
from models.progress import Progress, quiet
from models.systems.exact import Exact, session_distributions
from models.systems.rules import BET_NAMES, Limits, System, Table, play, settle, side_letter, system_of

#: The stage progress is told of, every so many sessions.
PLAYING, TOLD_EVERY = "playing a session per shoe", 100
SCHEMA = {
    "table_id": pl.String,
    "shoe_id": pl.String,
    "coups": pl.Int64,
    "played": pl.Int64,
    "bets": pl.Int64,
    "wagered": MONEY,
    "result": MONEY,
    "end": pl.String,
}


def _nets(game: Game, table: PayTable) -> dict[tuple[str, str], Fraction]:
    """Net per unit of a bet on each side for each outcome, from the one pay table; a one-line error
    for a game whose nets need the cards' totals as well (the back-test reads outcomes)."""
    net, _ = settlement_grid(game, table)
    nets = {}
    for side in "BPT":
        row = BETS.index(BET_NAMES[side])
        for outcome in "BPT":
            values = set(net[row, outcome == CELL_OUTCOMES, 0].tolist())
            if len(values) != 1:
                raise ValueError(
                    f"{game.value}: a {BET_NAMES[side]} bet's net needs the cards' totals; back-test another game"
                )
            nets[(side, outcome)] = Fraction(values.pop())
    return nets


def shoes_of(rounds: pl.DataFrame) -> list[tuple[str, str, list[str]]]:
    """(table_id, shoe_id, outcomes in round order) per shoe of a rounds frame."""
    missing = {"table_id", "shoe_id", "round_no", "outcome"} - set(rounds.columns)
    if missing:
        raise ValueError(f"the rounds need columns {', '.join(sorted(missing))}")
    grouped = (
        rounds.select(pl.col("table_id", "shoe_id").cast(pl.String), "round_no", pl.col("outcome").cast(pl.String))
        .sort("table_id", "shoe_id", "round_no")
        .group_by("table_id", "shoe_id", maintain_order=True)
        .agg("outcome")
    )
    return [(t, s, list(o)) for t, s, o in grouped.iter_rows()]


def session(
    system: System, bet: str, table: Table, outcomes: Sequence[str], nets
) -> tuple[int, int, Fraction, Fraction, str]:
    """One session over one shoe: coups played, bets, amount wagered, result, why it ended."""
    state, result, wagered, bets = system.start(), Fraction(0), Fraction(0), 0
    end = table.ended(result)
    played = 0
    for outcome in outcomes:
        if end:
            break
        if outcome not in "BPT" or not outcome:
            raise ValueError(f"an outcome is B, P or T, got {outcome!r}")
        side, amount, capped = play(system, state, bet, table, result)
        net = None
        if side is not None:
            net = nets[(side, outcome)]
            bets += 1
            wagered += amount
            result += amount * net
        state = settle(system, state, outcome, net, capped)
        played += 1
        end = table.ended(result)
    return played, bets, wagered, result, end or "shoe end"


def backtest(
    system: str | System,
    bet: str,
    limits: Limits,
    shoes: pl.DataFrame | Sequence[Sequence[str]],
    game: Game = Game.PUNTO_BANCO,
    paytable: PayTable = DEFAULT_PAYTABLE,
    progress: Progress = quiet,
) -> pl.DataFrame:
    """One session per shoe (a fresh start, to the goal, stop-loss, ruin or the shoe's end): `shoes`
    a rounds frame (table_id, shoe_id, round_no, outcome) or a list of outcome sequences. Money is
    Decimal; `limits.coups` does not apply (a session is a shoe). `progress` is told the sessions played."""
    system, side = system_of(system), side_letter(bet)
    if isinstance(shoes, pl.DataFrame):
        named = shoes_of(shoes)
    else:
        named = [(None, str(i), list(outcomes)) for i, outcomes in enumerate(shoes)]
    table, nets = Table.of(limits), _nets(game, paytable)
    rows = []
    for table_id, shoe_id, outcomes in named:
        if len(rows) % TOLD_EVERY == 0:
            progress(PLAYING, len(rows), len(named))
        played, bets, wagered, result, end = session(system, side, table, outcomes, nets)
        rows.append((table_id, shoe_id, len(outcomes), played, bets, as_money(wagered), as_money(result), end))
    progress(PLAYING, len(rows), len(named))
    return pl.DataFrame(rows, schema=SCHEMA, orient="row")


def summary(sessions: pl.DataFrame) -> dict[str, object]:
    """Sessions, mean result, bets and amount wagered, the realised edge, and the share of each end."""
    n = sessions.height
    wagered = sum(sessions["wagered"].to_list(), Decimal(0))
    result = sum(sessions["result"].to_list(), Decimal(0))
    ends = Counter(sessions["end"].to_list())
    return {
        "sessions": n,
        "mean_result": result / n if n else None,
        "mean_bets": sessions["bets"].mean() if n else None,
        "mean_wagered": wagered / n if n else None,
        "edge": float(-result / wagered) if wagered else None,
        "ends": {end: count / n for end, count in sorted(ends.items())},
    }


@dataclass(frozen=True)
class Agreement:
    """The back-test's results binned beside the exact mixture over the shoes' lengths."""

    table: pl.DataFrame  # bin, low, high, observed, expected
    chi2: float
    dof: int
    p_value: float
    exact_mean: float
    sampled_mean: float


def exact_mixture(exacts: dict[int, Exact], lengths: Sequence[int]) -> dict[float, float]:
    """The result's distribution when the session length is drawn as the shoes' lengths are."""
    counts, n = Counter(lengths), len(lengths)
    mixture: dict[float, float] = Counter()
    for length, count in counts.items():
        for value, p in exacts[length].distribution.items():
            mixture[float(value)] += float(p) * count / n
    return dict(sorted(mixture.items()))


def against_exact(
    system: str | System,
    bet: str,
    limits: Limits,
    sessions: pl.DataFrame,
    game: Game = Game.PUNTO_BANCO,
    decks: int = 8,
    min_expected: float = 5.0,
) -> Agreement:
    """Chi-square test of the back-test's results against the exact distribution for the same shoe
    lengths (each session as long as its shoe), bins of adjacent values merged until each expects at
    least `min_expected` sessions."""
    lengths = sessions["coups"].to_list()
    exacts = session_distributions(system, bet, limits, horizons=set(lengths), game=game, decks=decks)
    mixture = exact_mixture(exacts, lengths)
    n = len(lengths)
    bins: list[list[float]] = []  # low, high, probability
    current = None
    for value, p in mixture.items():
        current = current or [value, value, 0.0]
        current[1], current[2] = value, current[2] + p
        if current[2] * n >= min_expected:
            bins.append(current)
            current = None
    if current is not None:  # the last values join the bin before them
        if bins:
            bins[-1][1], bins[-1][2] = current[1], bins[-1][2] + current[2]
        else:
            bins.append(current)
    sampled = np.array([float(r) for r in sessions["result"].to_list()])
    highs = np.array([high for _, high, _ in bins])
    index = np.minimum(np.searchsorted(highs, sampled - 1e-9), len(bins) - 1)
    observed = np.bincount(index, minlength=len(bins)).astype(float)
    expected = np.array([p for _, _, p in bins])
    expected = expected / expected.sum() * n
    chi2, p_value = stats.chisquare(observed, expected) if len(bins) > 1 else (0.0, 1.0)
    edges = [(low, high) for low, high, _ in bins]
    frame = pl.DataFrame(
        {
            "low": [lo for lo, _ in edges],
            "high": [hi for _, hi in edges],
            "observed": observed,
            "expected": expected,
        }
    )
    exact_mean = float(sum(v * p for v, p in mixture.items()))
    return Agreement(frame, float(chi2), len(bins) - 1, float(p_value), exact_mean, float(sampled.mean()))
