"""The count room's differences attributed (docs/metrics.md, Count room): what moved at the table that
the accepted wagers miss, as the logs tell it.

A quarantined coup was still dealt: its wagers were paid or taken, so the count holds them while the
wagers' win does not. What the house took on each is read from its logged payout (the chips the table
paid), else from its coup's cards or logged outcome through the pay table, else it is bounded by its
stake. A bet quarantined for a payout the pay table does not give was paid wrongly: the pay table's
figure is explained, what it paid beyond is a mispay, a finding that is never explained away.
"""

from __future__ import annotations

import polars as pl

from models import display
from models.game.paytable import PayTable
from models.gaming_day import GamingDay, gaming_day
from models.logs.checks import check_rounds
from models.money_units import MONEY
from models.warehouse import settlement

COUP = ("table_id", "shoe_id", "round_no")
#: Quarantine reasons of a row whose coup stands accepted under another row: no coup of its own.
DUPLICATES = ("conflicting_duplicate", "duplicate")
#: The reasons a coup is quarantined for once its cards were read whole and found to follow the tableau:
#: its cards are believed (they contradict its outcome column, or a shoe's count). Any other coup is
#: settled by its logged outcome: a card of it is unreadable, or logged against the tableau.
BY_CARDS = ("outcome_mismatch", "shoe_overdrawn")
#: Quarantined coups: the coup's key, when it was dealt (null where the log does not say), and why.
COUP_SCHEMA = {
    "table_id": pl.String, "shoe_id": pl.String, "round_no": pl.Int32,
    "started_at": pl.Datetime("us", "UTC"), "reason": pl.String,
}  # fmt: skip
#: Quarantined wagers: what the house took on each (null: unknown, `stake` bounds it), what the table
#: paid beyond the pay table (a mispay), and what told us (`basis`: payout, cards, outcome or null).
_WAGER_FIELDS = {"dealt": pl.Boolean, "stake": MONEY, "take": MONEY, "mispaid": MONEY, "basis": pl.String}
WAGER_SCHEMA = COUP_SCHEMA | _WAGER_FIELDS


def read_coups(raw_rounds: pl.DataFrame) -> pl.DataFrame:
    """quarantine.rounds' rows read back (`raw_rounds`: reason and the round's input fields as text,
    as the log gave them): each coup's key, time, reason and the facts its wagers are settled by; a
    duplicate's row is none (its coup stands accepted)."""
    raw_rounds = raw_rounds.filter(~pl.col("reason").is_in(DUPLICATES))
    if raw_rounds.height == 0:
        return pl.DataFrame(schema=COUP_SCHEMA | {"_facts": pl.Struct({})})
    fields = raw_rounds.drop("reason").with_columns(_line=pl.int_range(pl.len(), dtype=pl.Int64))
    checked = check_rounds(fields).sort("_line")
    by_outcome = ~raw_rounds["reason"].is_in(BY_CARDS)
    checked = checked.with_columns(
        has_cards=pl.when(by_outcome).then(False).otherwise(pl.col("has_cards")),
        outcome=pl.when(by_outcome).then(pl.col("logged_outcome")).otherwise(pl.col("outcome")),
    )
    return checked.select(
        *(pl.col(name).cast(dtype) for name, dtype in COUP_SCHEMA.items() if name != "reason"),
        reason=raw_rounds["reason"],
        _facts=pl.struct(*settlement.SETTLED_BY),
    )


def quarantined_wagers(
    coups: pl.DataFrame, bets: pl.DataFrame, accepted: pl.DataFrame, table: PayTable
) -> pl.DataFrame:
    """Each quarantined wager (`bets`: key, reason, bet, side, amount, payout) with what the house took
    on it; `coups`: `read_coups`; `accepted`: the accepted coups of those bets (key, started_at and the
    columns of settlement.SETTLED_BY) within the times read. An orphan wager on a coup neither holds was
    never dealt (`dealt` false)."""
    if bets.height == 0:
        return pl.DataFrame(schema=WAGER_SCHEMA)
    facts = pl.concat(
        [
            accepted.select(*COUP, "started_at", _facts=pl.struct(*settlement.SETTLED_BY)),
            coups.select(*COUP, "started_at", "_facts"),
        ],
        how="vertical_relaxed",
    ).unique(list(COUP), keep="first", maintain_order=True)
    placed = (
        bets.filter(~pl.col("reason").is_in(DUPLICATES))
        .join(facts, on=list(COUP), how="left")
        # a bet quarantined for itself stands on an accepted coup: one `accepted` lacks lies outside the
        # times read; only an orphan has no coup at all
        .filter(pl.col("_facts").is_not_null() | (pl.col("reason") == "orphan_bet"))
        .with_columns(dealt=pl.col("_facts").is_not_null(), _line=pl.int_range(pl.len(), dtype=pl.Int64))
    )
    dealt = placed.filter("dealt").unnest("_facts")
    priced, _ = settlement.settle(dealt.with_columns(payout=pl.lit(None, MONEY)), table)
    player_banked = pl.col("game").is_in(settlement.PLAYER_BANKED)
    by_net = settlement.by_net(table).rename({"commission_unit": "_levy"})
    paid = (
        dealt.select("_line", "game", "bet", "amount", "payout")
        # a stake of nothing (quarantined for its amount) pays nothing a unit
        .with_columns(
            net_unit=pl.when(pl.col("amount") > 0).then(pl.col("payout") / pl.col("amount")).cast(MONEY, strict=False)
        )
        .join(by_net, on=["game", "bet", "net_unit"], how="left")
        .select(
            "_line",
            _paid=pl.when(player_banked).then((pl.col("_levy") * pl.col("amount")).cast(MONEY, strict=False))
            .otherwise(-pl.col("payout")),
            _banked=~player_banked,
        )
    )  # fmt: skip
    mispay = pl.col("reason") == "payout_mismatch"
    worked = (
        placed.join(paid, on="_line", how="left")
        .join(priced.select("_line", _priced="house_net", _cards="has_cards"), on="_line", how="left")
        .with_columns(
            take=pl.when(mispay).then(pl.col("_priced")).otherwise(pl.coalesce("_paid", "_priced")),
            # what the table paid beyond the pay table; a player-banked table's tray pays none of it
            mispaid=pl.when(mispay & pl.col("_banked")).then(pl.col("_priced") - pl.col("_paid")),
            basis=pl.when(mispay | pl.col("_paid").is_null())
            .then(pl.when(pl.col("_priced").is_not_null()).then(pl.when("_cards").then(pl.lit("cards")).otherwise(
                pl.lit("outcome"))))
            .otherwise(pl.lit("payout")),
        )
    )  # fmt: skip
    return worked.select(
        *(pl.col(name).cast(dtype) for name, dtype in COUP_SCHEMA.items()),
        "dealt",
        stake=pl.col("amount").cast(MONEY),
        take=pl.col("take").cast(MONEY),
        mispaid=pl.col("mispaid").fill_null(0).cast(MONEY),
        basis="basis",
    )


def placeable(located: pl.DataFrame, coups: pl.DataFrame, wagers: pl.DataFrame) -> pl.DataFrame:
    """The quarantined coups (`read_coups`) and wagers (`quarantined_wagers`) as rows to place in
    shifts: key, started_at, reason and `_wager` (null for a coup); a coup the log gives no time takes
    that of its shoe's accepted coup dealt just before it (`located`: key, started_at)."""
    keyed = pl.concat(
        [
            coups.select(*COUP, "started_at", "reason", _wager=pl.lit(None, pl.Struct(_WAGER_FIELDS))),
            wagers.select(*COUP, "started_at", "reason", _wager=pl.struct(*_WAGER_FIELDS)),
        ],
        how="vertical_relaxed",
    )
    near = located.select(*COUP, _near="started_at").sort("round_no")
    return (
        keyed.sort("round_no")
        .join_asof(near, on="round_no", by=["table_id", "shoe_id"], strategy="backward", check_sortedness=False)
        .with_columns(started_at=pl.coalesce("started_at", "_near"))
        .drop("_near")
    )


def by_shift(placed: pl.DataFrame, located: pl.DataFrame) -> pl.DataFrame:
    """Per (table_id, shift_id): its quarantined coups and their reasons, what the house took on the
    quarantined wagers of coups dealt, the stake of those it cannot tell, mispays, wagers on coups never
    dealt, and the coups missing from the log; `placed`: `placeable`'s rows with their shift_id;
    `located`: the accepted coups (key, shift_id)."""
    quarantined = placed.filter(pl.col("_wager").is_null()).unique([*COUP, "shift_id"])
    coups_of = (
        quarantined.group_by("table_id", "shift_id", "reason")
        .agg(n=pl.len())
        .sort("n", "reason", descending=[True, False])
        .group_by("table_id", "shift_id", maintain_order=True)
        .agg(
            quarantined_coups=pl.col("n").sum().cast(pl.UInt32),
            quarantined_reasons=pl.format("{} {}", "reason", "n").str.join(", "),
        )
    )
    bets = placed.filter(pl.col("_wager").is_not_null()).unnest("_wager")
    dealt = pl.col("dealt")
    wagers_of = bets.group_by("table_id", "shift_id").agg(
        quarantined_win=pl.col("take").filter(dealt).sum(),
        quarantined_handle=pl.col("stake").filter(dealt).sum(),
        quarantined_stake=pl.col("stake").filter(dealt & pl.col("take").is_null()).sum(),
        mispaid=pl.col("mispaid").sum(),
        mispaid_wagers=(pl.col("mispaid") != 0).sum().cast(pl.UInt32),
        wagers_not_dealt=(~dealt).sum().cast(pl.UInt32),
    )
    counts = ("quarantined_coups", "mispaid_wagers", "wagers_not_dealt", "missing_coups")
    return (
        coups_of.join(wagers_of, on=["table_id", "shift_id"], how="full", coalesce=True)
        .join(_missing(located, quarantined), on=["table_id", "shift_id"], how="full", coalesce=True)
        .with_columns(
            pl.col(counts).fill_null(0),
            pl.col("quarantined_win", "quarantined_handle", "quarantined_stake", "mispaid").fill_null(0).cast(MONEY),
        )
    )


def _missing(located: pl.DataFrame, quarantined: pl.DataFrame) -> pl.DataFrame:
    """Per shift: the round numbers a shoe skips between its first and last coup there, the log
    holding neither an accepted nor a quarantined row of them (a coup dealt and never logged)."""
    logged = pl.concat([located.select(*COUP, "shift_id"), quarantined.select(*COUP, "shift_id")])
    return (
        logged.group_by("table_id", "shift_id", "shoe_id")
        .agg(_span=pl.col("round_no").max() - pl.col("round_no").min() + 1, _seen=pl.col("round_no").n_unique())
        .group_by("table_id", "shift_id")
        .agg(missing_coups=(pl.col("_span") - pl.col("_seen")).sum().cast(pl.UInt32))
    )


def by_table_day(coups: pl.DataFrame, wagers: pl.DataFrame, shoe_days: pl.DataFrame, day: GamingDay) -> pl.DataFrame:
    """Per table_id and gaming_day: its quarantined coups and the stake of the wagers on them and of the
    bets quarantined on its accepted coups (`quarantined_handle`), from `read_coups` and
    `quarantined_wagers`; a coup's day is its shoe's (`shoe_days`: table_id, shoe_id, gaming_day), else
    that of its own time."""
    rows = pl.concat(
        [
            coups.select(*COUP, "started_at", _coup=pl.lit(True), _stake=pl.lit(0, MONEY)),
            wagers.filter("dealt").select(*COUP, "started_at", _coup=pl.lit(False), _stake="stake"),
        ],
        how="vertical_relaxed",
    )
    shoes = shoe_days.select("table_id", "shoe_id", _shoe_day="gaming_day").unique(["table_id", "shoe_id"])
    dated = (
        rows.join(shoes, on=["table_id", "shoe_id"], how="left")
        .with_columns(gaming_day(pl.col("started_at"), day).alias("_own_day"))
        .with_columns(gaming_day=pl.coalesce("_shoe_day", "_own_day"))
        .filter(pl.col("gaming_day").is_not_null())
    )
    return dated.group_by("table_id", "gaming_day").agg(
        quarantined_coups=pl.struct(COUP).filter("_coup").n_unique().cast(pl.UInt32),
        quarantined_handle=pl.col("_stake").sum().cast(MONEY),
    )


#: The columns of a table-shift `in_words` reads.
WORDED = (
    "overlapping", "win", "tolerance", "unexplained", "quarantined_coups", "quarantined_reasons", "quarantined_handle",
    "quarantined_win", "quarantined_stake", "mispaid", "mispaid_wagers", "missing_coups", "wagers_not_dealt",
)  # fmt: skip


def _amount(value) -> str:
    return display.money(value)


def _reasons(reasons: str) -> str:
    """The reasons ("tableau_violation 1, bad_card 2") by their names: "Tableau violation 1, Bad card 2"."""
    return ", ".join(
        f"{display.name(reason)} {n}" for reason, n in (part.rsplit(" ", 1) for part in reasons.split(", "))
    )


def _many(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def in_words(shift: dict) -> str | None:
    """What a table-shift's difference is made of, as a reviewer reads it (None: nothing to say)."""
    said = []
    if shift["overlapping"]:
        said.append("overlaps an earlier shift of its table: its coups stay with that one")
    if shift["quarantined_coups"]:
        coups = f"{_many(shift['quarantined_coups'], 'quarantined coup')} ({_reasons(shift['quarantined_reasons'])})"
        their = "its" if shift["quarantined_coups"] == 1 else "their"
        if shift["quarantined_handle"]:
            said.append(f"{coups}: the house took {_amount(shift['quarantined_win'])} on {their} wagers")
        else:
            said.append(f"{coups}, no wager on {'it' if their == 'its' else 'them'}")
    if shift["quarantined_stake"]:
        said.append(f"{_amount(shift['quarantined_stake'])} staked on wagers whose result no log tells")
    if shift["mispaid"]:
        paid = _many(shift["mispaid_wagers"], "wager")
        said.append(f"mispay: {paid} paid {_amount(shift['mispaid'])} beyond the pay table, as logged")
    if shift["missing_coups"]:
        said.append(f"{_many(shift['missing_coups'], 'coup')} missing from the log")
    if shift["wagers_not_dealt"]:
        said.append(f"{_many(shift['wagers_not_dealt'], 'wager')} on coups never dealt, not counted")
    unexplained = shift["unexplained"]
    if shift["win"] is not None and unexplained is not None and abs(unexplained) > shift["tolerance"]:
        side = "short of" if unexplained < 0 else "over"
        said.append(f"the count is {_amount(abs(unexplained))} {side} what the logs explain")
    return "; ".join(said) or None
