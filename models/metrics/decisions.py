"""Every discretionary decision of the Chemin de Fer and Baccarat Banque logs, rated exactly.

The cards show each choice the rules leave free: a punter's draw or stand on 5, and the banker's
optional draws (every draw of the Banque's banker). Each is rated by `models.odds.decisions` from what
its decider could see: the shoe before the coup (as marts.coup_edges reckons it) less his own two
cards and the cards shown (a Player hand's third card, a natural turned over). The opponent plays the
tableau under the project's drawing policy (`DEFAULT_POLICY`): a Banque banker answering a punter
draws as Punto Banco against that punter's hand; a banker reads a punter's draw or stand as that
policy would have made it. docs/metrics.md tells the columns.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import polars as pl

from models.game.coup import Coup
from models.game.games import Game
from models.game.paytable import DEFAULT_PAYTABLE, PayTable, bet_result
from models.game.tableau import DEFAULT_POLICY, Draw, DrawPolicy, Hand, draw_table, tableau
from models.gaming_day import GamingDay, gaming_day
from models.logs.hands import VALUES
from models.metrics.coup_edges import compositions
from models.metrics.decision_draws import equilibrium_draws, house_draws
from models.metrics.streaks import coup_tenures
from models.money_units import MONEY, MONEY_SUM
from models.odds.decisions import BANKER, NOT_LIVE, PUNTER, STOOD, decision_values

SHOE = ["table_id", "shoe_id"]
#: The games whose logs hold free choices.
GAMES = (Game.CHEMIN_DE_FER.value, Game.BACCARAT_BANQUE.value)
HANDS = ("player_cards", "banker_cards", "player2_cards")
DECIDERS = ("punter", "banker")
CHOICES = ("stand", "draw")
COLUMNS = (
    "gaming_day", "table_id", "shoe_id", "round_no", "game", "decks", "decider", "hand", "player_id",
    "bank_holder", "tenure", "total", "cards", "facing", "choice", "ev_draw", "ev_stand", "better", "cost",
    "stake", "cost_money", "equilibrium_draw", "house_draw",
)  # fmt: skip
#: How the mart is sorted (a coup's banker before its punters), and its sums.
ORDER = ("gaming_day", "table_id", "shoe_id", "round_no", "decider", "hand")
SUMMARY_ORDER = ("gaming_day", "table_id", "game", "decider", "player_id", "shoe_id", "tenure")
#: A cost below this is rounding: the two choices are worth the same.
_SAME = 1e-12
_DAY = GamingDay()


def decisions(
    rounds: pl.DataFrame,
    bets: pl.DataFrame,
    paytable: PayTable = DEFAULT_PAYTABLE,
    day: GamingDay = _DAY,
    policy: DrawPolicy = DEFAULT_POLICY,
) -> pl.DataFrame:
    """One row per discretionary decision of a Chemin de Fer or Baccarat Banque coup whose shoe's
    cards before it are known (coup_edges' rule): COLUMNS, sorted by gaming_day, table, shoe, round.

    `rounds`: table_id, shoe_id, round_no, game, decks, bank_holder, outcome, the three hands
    (player2_cards may be absent) and `shoe_day`, else `gaming_day`, else `started_at`. `bets`:
    table_id, shoe_id, round_no, bet, amount, player_id and `side` (absent: one Player hand).
    """
    found = choices(rounds, bets, day)
    return _empty() if found.height == 0 else _rated(found, paytable, policy)


def choices(rounds: pl.DataFrame, bets: pl.DataFrame, day: GamingDay = _DAY) -> pl.DataFrame:
    """The decisions of `decisions`, unrated: each coup's row with `_decider` (PUNTER, BANKER), `hand`,
    `total`, `_drew`, what the decider saw (`_counts`: the cards by value; `_thirds`: for a banker,
    each hand's third card, STOOD or NOT_LIVE), each hand's stake and punter, and the bank's player."""
    coups = _in_shoe_order(rounds.filter(pl.col("game").cast(pl.String).is_in(GAMES)), day)
    both = pl.when(pl.col("player2_cards").is_null()).then(pl.col("player_cards"))
    seen = coups.with_columns(
        player_cards=both.otherwise(pl.concat_str("player_cards", "player2_cards", separator=" "))
    )
    kept, left, _ = compositions(seen)
    found = _found(coups.filter(pl.Series(kept)), left)
    return found.join(_stakes(bets), on=[*SHOE, "round_no"], how="left", maintain_order="left")


def _in_shoe_order(rounds: pl.DataFrame, day: GamingDay) -> pl.DataFrame:
    """The rounds with their shoe's gaming day and each coup's bank tenure, in shoe order."""
    if "player2_cards" not in rounds.columns:
        rounds = rounds.with_columns(player2_cards=pl.lit(None, pl.String))
    if "shoe_day" not in rounds.columns:
        days = pl.col("gaming_day") if "gaming_day" in rounds.columns else gaming_day(pl.col("started_at"), day)
        rounds = rounds.with_columns(shoe_day=days.min().over(SHOE))
    columns = [*SHOE, "round_no", "shoe_day", "game", "decks", "bank_holder", "outcome", *HANDS]
    ordered = rounds.select(columns).with_columns(pl.col("game").cast(pl.String)).sort("shoe_day", *SHOE, "round_no")
    tenures = coup_tenures(ordered.lazy(), in_order=True).collect()
    return ordered.with_columns(tenures["tenure"])


def _values(coups: pl.DataFrame, hand: str) -> np.ndarray:
    """int (n, 3): the point values of a hand's cards in dealing order, -1 where none."""
    tokens = pl.col(hand).fill_null("").str.split(" ")
    card = {
        str(k): tokens.list.get(k, null_on_oob=True)
        .str.slice(0, 1)
        .replace_strict(VALUES, default=-1, return_dtype=pl.Int64)
        for k in range(3)
    }
    return coups.select(**card).fill_null(-1).to_numpy().astype(np.int64).reshape(-1, 3)


def _optional(game: Game) -> tuple[np.ndarray, np.ndarray]:
    """The tableau's free cells: the punter's by total (10,), the banker's by total and third card or STOOD (10, 11)."""
    punter = np.array([tableau(game, Hand.PLAYER, t) is Draw.OPTIONAL for t in range(10)])
    banker = np.array(
        [
            [tableau(game, Hand.BANKER, t, None if x == STOOD else x) is Draw.OPTIONAL for x in range(11)]
            for t in range(10)
        ]
    )
    return punter, banker


def _found(coups: pl.DataFrame, left: np.ndarray) -> pl.DataFrame:
    """The decisions of the coups (with `left`, the cards before each): one row each, with what its
    decider saw (`_counts`, `_thirds`) for the rating."""
    p, b, q = (_values(coups, hand) for hand in HANDS)
    banque = (coups["game"] == Game.BACCARAT_BANQUE.value).to_numpy()
    dealt = (p[:, 1] >= 0) & (b[:, 1] >= 0) & (~banque | (q[:, 1] >= 0))
    pt, bt, qt = ((h[:, 0] + h[:, 1]) % 10 for h in (p, b, q))
    natural = (pt >= 8) | (bt >= 8)
    live1 = dealt & (bt < 8) & np.where(banque, pt < 8, ~natural)
    live2 = dealt & (bt < 8) & banque & (qt < 8)
    third1 = np.where(p[:, 2] >= 0, p[:, 2], STOOD)
    third2 = np.where(q[:, 2] >= 0, q[:, 2], STOOD)
    cdf_punter, cdf_banker = _optional(Game.CHEMIN_DE_FER)
    banque_punter, banque_banker = _optional(Game.BACCARAT_BANQUE)
    first_third = np.where(live1, third1, third2)
    banker_free = np.where(banque, banque_banker[bt, first_third], cdf_banker[bt, first_third])
    parts = []
    # a punter: his own two cards out, and what the other hand showed before he chose
    for side, live, own, total in ((1, live1, p, pt), (2, live2, q, qt)):
        optional = np.where(banque, banque_punter[total], cdf_punter[total])
        rows = np.flatnonzero(live & optional)
        counts = left[rows].copy()
        _take(counts, own[rows, :2])
        other, other_total = (q, qt) if side == 1 else (p, pt)
        shown = banque[rows] & (other_total[rows] >= 8)
        _take(counts, np.where(shown[:, None], other[rows, :2], -1))
        if side == 2:  # hand 1 drew before hand 2 chose
            _take(counts, p[rows, 2:3])
        thirds = np.full((len(rows), 2), NOT_LIVE)
        parts.append((rows, PUNTER, side, total[rows], own[rows, 2] >= 0, counts, thirds))
    rows = np.flatnonzero((live1 | live2) & banker_free)
    counts = left[rows].copy()
    _take(counts, b[rows, :2])
    for hand, total, live in ((p, pt, live1), (q, qt, live2)):
        shown = np.where((total[rows] >= 8)[:, None], hand[rows, :2], -1)  # a natural turned over
        _take(counts, shown)
        _take(counts, np.where(live[rows], hand[rows, 2], -1)[:, None])
    thirds = np.stack([np.where(live1[rows], third1[rows], NOT_LIVE), np.where(live2[rows], third2[rows], NOT_LIVE)], 1)
    parts.append((rows, BANKER, 0, bt[rows], b[rows, 2] >= 0, counts, thirds))
    return _frame(coups, parts)


def _take(counts: np.ndarray, cards: np.ndarray) -> None:
    """Take each row's cards (point values, -1 for none) out of its counts."""
    rows, k = np.nonzero(cards >= 0)
    np.add.at(counts, (rows, cards[rows, k]), -1)


def _frame(coups: pl.DataFrame, parts: list) -> pl.DataFrame:
    """The decisions found (`parts`: rows, decider, side, total, drew, counts, thirds), one frame in shoe order."""
    index = np.concatenate([rows for rows, *_ in parts])
    column = {
        "_decider": np.concatenate([np.full(len(rows), who) for rows, who, *_ in parts]),
        "hand": np.concatenate([np.full(len(rows), hand) for rows, _, hand, *_ in parts]),
        "total": np.concatenate([part[3] for part in parts]),
        "_drew": np.concatenate([part[4] for part in parts]),
    }
    counts = np.concatenate([part[5] for part in parts])
    thirds = np.concatenate([part[6] for part in parts])
    order = np.lexsort((column["_decider"], index))
    index, counts, thirds = index[order], counts[order], thirds[order]
    column = {name: values[order] for name, values in column.items()}
    own = (
        pl.when(pl.col("_decider") == BANKER)
        .then(pl.col("banker_cards"))
        .when(pl.col("hand") == 2)
        .then(pl.col("player2_cards"))
        .otherwise(pl.col("player_cards"))
    )
    facing = pl.concat_str([_facing(hand) for hand in (0, 1)], separator=" / ", ignore_nulls=True)
    return (
        coups[index]
        .with_columns(
            _decider=pl.Series(column["_decider"], dtype=pl.Int8),
            hand=pl.Series(column["hand"], dtype=pl.Int8),
            total=pl.Series(column["total"], dtype=pl.Int8),
            _drew=pl.Series(column["_drew"]),
            _counts=pl.Series(counts, dtype=pl.Array(pl.Int64, 10)),
            _thirds=pl.Series(thirds, dtype=pl.Array(pl.Int64, 2)),
        )
        .with_columns(
            cards=own.str.split(" ").list.head(2).list.join(" "),
            facing=pl.when(pl.col("_decider") == BANKER).then(facing),
            hand=pl.when(pl.col("_decider") == PUNTER).then(pl.col("hand")),
        )
    )


def _facing(hand: int) -> pl.Expr:
    """What a banker saw of a Player hand: its third card's value, `stood`, or `natural` (the Banque's
    hand settled on a natural); nothing for Chemin de Fer's absent second hand."""
    third = pl.col("_thirds").arr.get(hand)
    natural = (
        pl.lit("natural")
        if hand == 0
        else pl.when(pl.col("game") == Game.BACCARAT_BANQUE.value).then(pl.lit("natural"))
    )
    shown = pl.when(third == STOOD).then(pl.lit("stood")).when(third != NOT_LIVE).then(third.cast(pl.String))
    return shown.otherwise(natural)


def _stakes(bets: pl.DataFrame) -> pl.DataFrame:
    """Per coup: each Player hand's stake and its punter (the largest stake on it, the first logged
    of equals), and the bank's player (Chemin de Fer's `banker` wager)."""
    side = pl.col("side").fill_null(1) if "side" in bets.columns else pl.lit(1)
    keys = [*SHOE, "round_no"]
    wagers = bets.select(*keys, "bet", "amount", pl.col("player_id").cast(pl.String), side=side.cast(pl.Int8))
    hands = (
        wagers.filter(pl.col("bet") == "player")
        .group_by(*keys, "side", maintain_order=True)
        .agg(stake=pl.col("amount").sum(), punter=pl.col("player_id").sort_by("amount", descending=True).first())
    )
    one, two = (hands.filter(pl.col("side") == s).drop("side") for s in (1, 2))
    bank = wagers.filter(pl.col("bet") == "banker").group_by(keys).agg(bank_player=pl.col("player_id").first())
    return (
        one.rename({"stake": "stake1", "punter": "punter1"})
        .join(two.rename({"stake": "stake2", "punter": "punter2"}), on=keys, how="full", coalesce=True)
        .join(bank, on=keys, how="full", coalesce=True)
    )


def _rated(found: pl.DataFrame, paytable: PayTable, policy: DrawPolicy) -> pl.DataFrame:
    """The decisions with the worth of each choice, the better one, and the cost of the one made."""
    values = np.full((found.height, 2), np.nan)
    games = found["game"].to_numpy()
    counts = found["_counts"].to_numpy()
    thirds = found["_thirds"].to_numpy()
    stakes = found.select(pl.col("stake1", "stake2").cast(pl.Float64).fill_null(0.0)).to_numpy()
    for name in GAMES:
        rows = np.flatnonzero(games == name)
        if len(rows):
            game = Game(name)
            table = draw_table(game, policy)
            bank_win = float(bet_result(game, paytable, "banker", Coup(player_total=0, banker_total=9)).net)
            values[rows] = decision_values(
                counts[rows], found["_decider"].to_numpy()[rows], found["total"].to_numpy()[rows], thirds[rows],
                stakes[rows], table.player, table.banker, bank_win,
            )  # fmt: skip
    punter = pl.col("_decider") == PUNTER
    live = lambda hand: pl.col("_thirds").arr.get(hand) != NOT_LIVE  # noqa: E731
    stake = pl.when(punter & (pl.col("hand") == 2)).then(pl.col("stake2")).when(punter).then(pl.col("stake1"))
    both = pl.when(pl.col("stake1").is_not_null() | pl.col("stake2").is_not_null()).then(
        pl.sum_horizontal(pl.when(live(0)).then(pl.col("stake1")), pl.when(live(1)).then(pl.col("stake2")))
    )
    draw, stand = pl.col("ev_draw"), pl.col("ev_stand")
    chosen = pl.when(pl.col("_drew")).then(draw).otherwise(stand)
    cost = (pl.max_horizontal(draw, stand) - chosen).clip(lower_bound=0.0)
    return (
        found.with_columns(
            ev_draw=pl.Series(values[:, 0], nan_to_null=True), ev_stand=pl.Series(values[:, 1], nan_to_null=True)
        )
        .with_columns(
            gaming_day=pl.col("shoe_day"),
            round_no=pl.col("round_no").cast(pl.Int32),
            decks=pl.col("decks").cast(pl.Int8),
            decider=pl.col("_decider").replace_strict(dict(enumerate(DECIDERS)), return_dtype=pl.String),
            player_id=pl.when(punter & (pl.col("hand") == 2))
            .then(pl.col("punter2"))
            .when(punter)
            .then(pl.col("punter1"))
            .otherwise(pl.col("bank_player")),
            choice=pl.col("_drew").replace_strict(dict(enumerate(CHOICES)), return_dtype=pl.String),
            better=pl.when(draw - stand > _SAME)
            .then(pl.lit("draw"))
            .when(stand - draw > _SAME)
            .then(pl.lit("stand"))
            .when(draw.is_not_null())
            .then(pl.col("_drew").replace_strict(dict(enumerate(CHOICES)), return_dtype=pl.String)),
            cost=pl.when(cost > _SAME).then(cost).otherwise(0.0 * cost),
            stake=pl.when(punter).then(stake).otherwise(both).cast(MONEY),
            equilibrium_draw=pl.Series(equilibrium_draws(found, _commission(paytable)), nan_to_null=True),
            house_draw=pl.Series(house_draws(found, policy), nan_to_null=True),
        )
        .with_columns(cost_money=(pl.col("stake").cast(pl.Float64) * pl.col("cost")).round(4).cast(MONEY))
        .select(COLUMNS)
        .sort(ORDER)
    )


def _commission(paytable: PayTable) -> Fraction:
    """The house's levy on a Chemin de Fer bank's wins, as the solved game takes it."""
    win = bet_result(Game.CHEMIN_DE_FER, paytable, "banker", Coup(player_total=0, banker_total=9)).net
    return 1 - Fraction(win)


def decision_summary(rated: pl.DataFrame) -> pl.DataFrame:
    """marts.decision_summary: per punter's day at a table, and per bank tenure (its shoe, tenure,
    seat and player), the decisions rated, those that left the better choice (`deviations`), and their
    expected cost per unit summed (`cost`) and in money (`cost_money`), beside the stake decided on."""
    punter = pl.col("decider") == "punter"
    keys = ("gaming_day", "table_id", "game", "decider", "player_id", "shoe_id", "tenure", "bank_holder")
    return (
        rated.with_columns(
            shoe_id=pl.when(~punter).then(pl.col("shoe_id")),
            tenure=pl.when(~punter).then(pl.col("tenure")),
            bank_holder=pl.when(~punter).then(pl.col("bank_holder")),
            # a tenure's player is whoever its rows name (a Banque bank places no wager)
            player_id=pl.when(punter)
            .then(pl.col("player_id"))
            .otherwise(pl.col("player_id").drop_nulls().first().over("table_id", "shoe_id", "tenure", "decider")),
        )
        .group_by(keys)
        .agg(
            decisions=pl.len().cast(pl.UInt32),
            deviations=(pl.col("cost") > 0).sum().cast(pl.UInt32),
            cost=pl.col("cost").sum(),
            stake=pl.col("stake").sum().cast(MONEY_SUM),
            cost_money=pl.col("cost_money").sum().cast(MONEY_SUM),
        )
        .sort(SUMMARY_ORDER)
    )


def _empty() -> pl.DataFrame:
    """No decisions: the mart's columns and types."""
    types = {
        "gaming_day": pl.Date, "table_id": pl.String, "shoe_id": pl.String, "round_no": pl.Int32,
        "game": pl.String, "decks": pl.Int8, "decider": pl.String, "hand": pl.Int8, "player_id": pl.String,
        "bank_holder": pl.String, "tenure": pl.Int32, "total": pl.Int8, "cards": pl.String, "facing": pl.String,
        "choice": pl.String, "ev_draw": pl.Float64, "ev_stand": pl.Float64, "better": pl.String,
        "cost": pl.Float64, "stake": MONEY, "cost_money": MONEY, "equilibrium_draw": pl.Float64,
        "house_draw": pl.Float64,
    }  # fmt: skip
    return pl.DataFrame(schema={name: types[name] for name in COLUMNS})
