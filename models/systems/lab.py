"""The systems lab: one question (a system, a bet, the limits, a game) answered exactly and back-tested on
shoes, as plain data and one chart; what `banco systems` and the dashboard's Systems lab page show."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Any

import altair as alt
import polars as pl

from models.display import money_title
from models.game.games import Game
from models.game.paytable import DEFAULT_PAYTABLE
from models.game.shoe import Composition
from models.odds.exact import exact_odds
from models.odds.summary import odds_summary
from models.progress import Progress, quiet
from models.systems import calibration
from models.systems import exact as exacts
from models.systems.patterns import PATTERNS
from models.systems.rules import SYSTEMS, Limits, Table

#: The bets a system may back, as the command and the page name them, and the outcome each backs.
BETS = {"banker": "B", "player": "P", "tie": "T"}
#: A session's result in bands, worst first; a band a setting does not apply to is left out.
RUIN, STOP, DOWN, EVEN, UP, GOAL = "lost the bankroll", "hit the stop-loss", "down", "even", "up", "reached the goal"
BANDS = (RUIN, STOP, DOWN, EVEN, UP, GOAL)
#: The serving snapshot's shoes of one game and deck count, each as its outcomes in order.
WAREHOUSE_SHOES = (
    "SELECT table_id, shoe_id, list(outcome ORDER BY round_no) AS outcomes FROM core.rounds "
    "WHERE game = $game AND decks = $decks{where} GROUP BY table_id, shoe_id ORDER BY table_id, shoe_id"
)
#: The exact chain's cap on live (state, result) pairs (models/systems/exact.py; about 0.7 GB at most).
MAX_STATES = 4_000_000
#: What a question may ask for, so it holds under 4 GB and answers or refuses within a minute on two busy
#: cores (measured in docs/systems.md#ceilings); `banco systems` refuses more in one line.
MAX_STATES_CEILING = 8_000_000  # live pairs: a pattern follower holds 2 GB at 8 million
MAX_COUPS = 100_000  # a session's length: each coup of the walk costs about 50 us even with no live pair
MAX_SHOES = 2_000  # shoes to back-test on: a pattern follower plays about 5 ms a shoe
#: Bins the chart sorts the results into (a Martingale's session has thousands of distinct results).
CHART_BINS = 60


@dataclass(frozen=True)
class Question:
    """What the lab is asked: a system backing a bet under limits, at a game and deck count."""

    system: str
    bet: str = "banker"
    limits: Limits = field(default_factory=Limits)
    game: Game = Game.PUNTO_BANCO
    decks: int = 8

    def __post_init__(self) -> None:
        if self.system not in SYSTEMS:
            raise ValueError(f"unknown system {self.system!r}: choose one of {', '.join(SYSTEMS)}")
        if self.bet not in BETS:
            raise ValueError(f"unknown bet {self.bet!r}: choose banker, player or tie")
        if self.bet == "tie" and self.system in PATTERNS:
            raise ValueError(
                f"{self.system} backs the side its pattern calls, Banker or Player: a tie bet makes no sense with it"
            )

    @property
    def follower(self) -> bool:
        """Whether the system follows a pattern (it picks its side; calibration applies)."""
        return self.system in PATTERNS


@lru_cache(maxsize=64)
def odds(game: Game, decks: int) -> dict[str, Any]:
    """The exact odds and edges of a full shoe (the independent-coup model's probabilities)."""
    return odds_summary(exact_odds(Composition.full(decks), game), DEFAULT_PAYTABLE)


def exact(question: Question, max_states: int | None = None):
    """The exact distribution of the session's result on a full shoe's exact odds (models/systems/exact.py);
    `exacts.TooLarge` past `max_states` (default MAX_STATES) live (state, result) pairs, or past the
    chain's other caps."""
    return exact_walks(question, max_states)[question.limits.coups]


def exact_walks(
    question: Question, max_states: int | None = None, lengths: Iterable[int] = (), progress: Progress = quiet
) -> dict[int, Any]:
    """`exact` at the session's length and at each of `lengths` (shoes of a back-test shorter than the
    session, for `backtested`), from one walk of the chain: {coups: Exact}; `progress` told the coups walked."""
    return exacts.session_distributions(
        question.system,
        question.bet,
        question.limits,
        horizons={question.limits.coups, *lengths},
        game=question.game,
        decks=question.decks,
        max_states=MAX_STATES if max_states is None else max_states,
        progress=progress,
    )


def too_large(error: exacts.TooLarge) -> str:
    """One line for a question whose exact chain is too large."""
    return f"the exact distribution is too large for these settings ({error.system} {error.reason})"


def exact_or_note(question: Question, max_states: int | None = None) -> tuple[Any, str | None]:
    """The exact answer and None, or None and why it is omitted (the chain is too large): a back-test
    still answers the question."""
    try:
        return exact(question, max_states), None
    except exacts.TooLarge as error:
        return None, omitted(error)


def omitted(error: exacts.TooLarge) -> str:
    """The note beside a back-test shown without its exact column."""
    return f"{too_large(error)}: the exact column is omitted"


def band(result: Decimal | float, limits: Limits) -> str:
    """The band of one session's result: why it stopped (rules.Table.ended), else its sign."""
    ended = Table.of(limits).ended(Fraction(Decimal(str(result))))
    if ended is not None:
        return {"goal": GOAL, "stop-loss": STOP, "ruin": RUIN}[ended]
    return DOWN if result < 0 else UP if result > 0 else EVEN


def bands_of(limits: Limits) -> tuple[str, ...]:
    """The bands that apply under `limits`: no ruin without a bankroll, no goal without one."""
    absent = {RUIN: limits.bankroll is None, STOP: limits.stop_loss is None, GOAL: limits.goal is None}
    return tuple(name for name in BANDS if not absent.get(name, False))


def _bander(limits: Limits):
    """`band` for many results: the limits' thresholds once, compared exactly (as Decimal)."""
    goal, stop, bankroll, least = limits.goal, limits.stop_loss, limits.bankroll, limits.min_bet

    def band_of(value: Decimal) -> str:
        if goal is not None and value >= goal:
            return GOAL
        if stop is not None and value <= -stop:
            return STOP
        if bankroll is not None and bankroll + value < least:
            return RUIN
        return DOWN if value < 0 else UP if value > 0 else EVEN

    return band_of


def exact_bands(distribution: Mapping[Any, float], limits: Limits) -> dict[str, float]:
    """The probability of each band, from the distribution of the result (value -> probability)."""
    shares = dict.fromkeys(bands_of(limits), 0.0)
    band_of = _bander(limits)
    for value, probability in distribution.items():
        shares[band_of(value if isinstance(value, Decimal) else Decimal(str(value)))] += float(probability)
    return shares


def sampled_bands(results: Iterable, limits: Limits) -> dict[str, float]:
    """The share of sessions in each band."""
    counts = dict.fromkeys(bands_of(limits), 0)
    band_of = _bander(limits)
    for value in results:
        counts[band_of(Decimal(str(value)))] += 1
    total = sum(counts.values())
    return {name: (count / total if total else math.nan) for name, count in counts.items()}


def simulated_shoes(shoes: int, seed: int, game: Game, decks: int, progress: Progress = quiet) -> list[list[str]]:
    """`shoes` shoes dealt by the simulator (outcomes only, reproducible from `seed`); `progress` told
    the shoes dealt, a chunk at a time."""
    from models.simulate.config import Simulation
    from models.simulate.engine import simulate
    from models.simulate.run import DEALING

    sim = Simulation(shoes=shoes, seed=seed, decks=decks, games=(game,), tables=1, shoes_per_day=10, bets=False)
    chunks, dealt = [], 0
    progress(DEALING, 0, shoes)
    for chunk in simulate(sim):
        chunks.append(pl.from_arrow(chunk.rounds_table))
        dealt += chunk.shoes
        progress(DEALING, dealt, shoes)
    return outcomes_by_shoe(pl.concat(chunks))


def outcomes_by_shoe(rounds: pl.DataFrame) -> list[list[str]]:
    """Rounds (table_id, shoe_id, round_no, outcome) as each shoe's outcomes in order."""
    shoes = (
        rounds.select(pl.col("table_id", "shoe_id").cast(pl.String), "round_no", pl.col("outcome").cast(pl.String))
        .sort("table_id", "shoe_id", "round_no")
        .group_by("table_id", "shoe_id", maintain_order=True)
        .agg("outcome")
    )
    return shoes["outcome"].to_list()


def _number(value) -> float | None:
    return None if value is None else float(value)


def summary(
    question: Question,
    result,
    tested: pl.DataFrame | None = None,
    source: str | None = None,
    note: str | None = None,
    walks: Mapping[int, Any] | None = None,
) -> dict:
    """The question, its exact answer and (when given) the back-test's, as plain JSON-able data; `result`
    None (`exact` null) with `note` saying why when the chain was too large; `walks` from `exact_walks`
    spare the back-test a second walk."""
    o = odds(question.game, question.decks)
    limits = question.limits
    out: dict[str, Any] = {
        "system": question.system,
        "bet": question.bet,
        "game": question.game.value,
        "decks": question.decks,
        "limits": {
            name: (str(value) if isinstance(value, Decimal) else value) for name, value in _limits(limits).items()
        },
        "p": {"banker": o["p_banker"], "player": o["p_player"], "tie": o["p_tie"]},
        "exact": None if result is None else figures(result, question),
    }
    if result is None:
        out["exact_omitted"] = note or "the exact distribution is omitted"
    if tested is not None:
        out["backtest"] = backtested(tested, result, question, source, walks)
    return out


def _limits(limits: Limits) -> dict[str, Any]:
    names = ("unit", "bankroll", "goal", "stop_loss", "max_bet", "min_bet", "coups")
    return {name: getattr(limits, name) for name in names}


def figures(result, question: Question) -> dict[str, Any]:
    """The exact answer's key figures: the bands, the expectations and the edge x action identity."""
    limits = question.limits
    wagered = float(result.expected_wagered)
    loss = -float(result.expected_result)
    return {
        "bands": exact_bands(result.distribution, question.limits),
        "expected_result": float(result.expected_result),
        "expected_bets": float(result.expected_bets),
        "expected_wagered": wagered,
        "house_edge": float(result.edge),
        "expected_loss": loss,
        # no goal set: no chance of reaching one to speak of; no bankroll or stop-loss: no ruin
        "p_goal": None if limits.goal is None else _number(result.p_goal),
        "risk_of_ruin": None if limits.bankroll is None and limits.stop_loss is None else _number(result.risk_of_ruin),
        "distribution": [
            {"result": float(value), "probability": float(p)} for value, p in sorted(result.distribution.items())
        ],
    }


def backtested(
    tested: pl.DataFrame, result, question: Question, source: str | None, walks: Mapping[int, Any] | None = None
) -> dict[str, Any]:
    """The back-test's sessions summed: bands beside the exact ones, with each share's z (for shoes shorter
    than the session, from `walks` when they hold those lengths)."""
    shares = sampled_bands(tested["result"].to_list(), question.limits)
    n = tested.height
    lengths = tested["coups"].to_list()
    shorter = bool(n) and min(lengths) < question.limits.coups
    if result is None:
        expected = {}
    elif shorter:  # shoes shorter than the session: exact for each shoe's own length, mixed as they come
        expected = exact_bands(_mixture(question, lengths, walks), question.limits)
    else:
        expected = exact_bands(result.distribution, question.limits)
    rows = []
    for name, share in shares.items():
        p = expected.get(name)
        spread = math.sqrt(p * (1 - p) / n) if n and p is not None else math.nan
        z = (share - p) / spread if p is not None and spread else None
        rows.append({"band": name, "share": share, "exact": p, "z": z})
    return {
        "source": source,
        "sessions": n,
        # the exact column beside the back-test: the session as long as each shoe where shoes are shorter
        "exact_lengths": "each shoe's own" if shorter and result is not None else "the session's",
        "bands": rows,
        "mean_result": float(tested["result"].cast(pl.Float64).mean()) if n else None,
        "mean_bets": float(tested["bets"].mean()) if n else None,
        "mean_wagered": float(tested["wagered"].cast(pl.Float64).mean()) if n else None,
    }


def _mixture(question: Question, lengths: Sequence[int], walks: Mapping[int, Any] | None = None) -> dict[float, float]:
    """The exact distribution of a session as long as each shoe (backtest.exact_mixture), from one walk:
    `walks` when they hold every length, else a walk of its own."""
    from models.systems import backtest as backtests  # written beside this module

    if walks is None or not set(lengths) <= set(walks):
        walks = exacts.session_distributions(
            question.system, question.bet, question.limits, horizons=set(lengths), game=question.game,
            decks=question.decks, max_states=MAX_STATES,
        )  # fmt: skip
    return backtests.exact_mixture(walks, lengths)


def run_backtest(question: Question, shoes: Sequence[Sequence[str]], progress: Progress = quiet) -> pl.DataFrame:
    """One session per shoe over its first `limits.coups` coups, as long as the exact session
    (models/systems/backtest.py); `progress` told the sessions played."""
    from models.systems import backtest as backtests  # written beside this module

    coups = question.limits.coups
    played = [list(shoe)[:coups] for shoe in shoes]
    return backtests.backtest(question.system, question.bet, question.limits, played, question.game, progress=progress)


def with_limits(question: Question, **changes) -> Question:
    return replace(question, limits=replace(question.limits, **changes))


def chart(data: dict, title: str, currency: str = "EUR") -> alt.LayerChart | alt.Chart:
    """The session result's distribution (a summary's `exact`, and its `backtest` when there is one): exact
    probabilities in bins as bars, the back-test's shares as points; results in `currency`."""
    exact_rows = pl.DataFrame(
        (data["exact"] or {}).get("distribution", []), schema={"result": pl.Float64, "probability": pl.Float64}
    )
    results = data.get("backtest_results")
    spread = exact_rows["result"] if exact_rows.height or not results else pl.Series(results, dtype=pl.Float64)
    low, high = (spread.min(), spread.max()) if len(spread) else (0.0, 0.0)
    width = max((high - low) / CHART_BINS, 1e-9) if len(spread) else 1.0

    def binned(frame: pl.DataFrame, weight: pl.Expr, series: str) -> pl.DataFrame:
        start = ((pl.col("result") - low) / width).floor().clip(0, CHART_BINS - 1) * width + low
        return (
            frame.group_by(start.alias("from"))
            .agg(weight.alias("probability"))
            .with_columns(to=pl.col("from") + width, series=pl.lit(series))
            .sort("from")
        )

    bars = binned(exact_rows, pl.col("probability").sum(), "exact")
    layers = [
        alt.Chart(bars)
        .mark_bar(color="#5d6d7e", opacity=0.8)
        .encode(
            x=alt.X("from:Q", title=money_title("Session result", currency), axis=alt.Axis(format=",.0f")),
            x2="to:Q",
            y=alt.Y("probability:Q", axis=alt.Axis(format=".1%"), title="Probability of the session (%)"),
            tooltip=[
                alt.Tooltip("from:Q", format=",.2f"),
                alt.Tooltip("to:Q", format=",.2f"),
                alt.Tooltip("probability:Q", format=".3%"),
            ],
        )
    ]
    if results:
        sessions = pl.DataFrame({"result": results}, schema={"result": pl.Float64})
        # a session's share counted per bin: a literal summed in a group is one value, not one per row
        points = binned(sessions, pl.len() / sessions.height, "back-test").with_columns(
            middle=pl.col("from") + width / 2
        )
        layers.append(
            alt.Chart(points)
            .mark_point(color="#c0392b", filled=True, size=40)
            .encode(x="middle:Q", y="probability:Q", tooltip=[alt.Tooltip("probability:Q", format=".3%")])
        )
    return alt.layer(*layers, title=title).properties(width=640, height=300)


def calibrate(shoes: Sequence[Sequence[str]], game: Game, decks: int) -> pl.DataFrame:
    """Every pattern's "prediction" against what it won on these shoes of `game` and `decks`, at their exact
    odds (models/systems/calibration.py)."""
    o = odds(game, decks)
    return calibration.calibration(shoes, o["p_banker"], o["p_player"])
