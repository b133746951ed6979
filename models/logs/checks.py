"""Row checks of docs/round-log-format.md, in its order: fields, types, cards, hand sizes, tableau, outcome.

`check_rounds`, `check_bets` and `check_events` take a batch as read (text or typed columns, `_line`), and return it
with the typed, enriched columns and `reason`/`detail` (null when the row is good). The first failure
is a row's reason. Duplicates, shoe reconciliation and the shifts' checks come after, in
`models/warehouse/steps.py`.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from models.contract import (
    AMOUNT_DIGITS,
    BET_INPUT_COLUMNS,
    EARLIEST,
    EVENT_DIGITS,
    EVENT_INPUT_COLUMNS,
    EVENT_KINDS,
    EVENT_SCHEMA,
    MONEY,
    PAYOUT_DIGITS,
    ROUND_INPUT_COLUMNS,
    ROUND_NO_MAX,
    TEXT_LIMITS,
    latest,
)
from models.game.games import Game
from models.game.outcome import OUTCOMES, hand_outcome_expr, settled_on_natural_expr
from models.game.paytable import BETS
from models.logs import arrow_text, denominations, hands, rules, sweep
from models.logs.arrow_text import SATURATED
from models.logs.instants import instants
from models.logs.parquet import NOT_UTF8
from models.logs.rules import tableau_detail
from models.money_units import decimal128

GAMES = [game.value for game in Game]
ISO_INSTANT = "%Y-%m-%dT%H:%M:%S%.f%z"
#: An ISO 8601 time with seconds and an offset, nothing around it: it parses as it is.
FULL_INSTANT = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?[+-][0-9]{2}:[0-9]{2}$"
#: Seconds of 60: a leap second, which the warehouse's instants (and Polars, which reads it as the
#: next minute's first second) have no room for.
LEAP_SECOND = r"[T ][0-9]{2}:[0-9]{2}:60(\.[0-9]*)?([zZ+-]|$)"
#: Whole-number columns, read as they are where their file types them as integers (Parquet): their
#: values are never blank, and text would be parsed straight back.
WHOLE_NUMBERS = ("round_no", "decks", "side")
#: Time columns, read as they are where their file types them as timestamps (Parquet).
TIMES = ("started_at", "recorded_at")


def money_faults(money: pl.Decimal = MONEY, digits: int | None = None) -> tuple[str, ...]:
    """Why an amount's text is no amount of `money` kept exactly, with at most `digits` before the
    point (all `money` holds when None), in the order they are told."""
    digits = money.precision - money.scale if digits is None else digits
    return (
        "is not a decimal",
        "is not positive",
        f"is too large (at most {digits} digits before the point)",
        f"has more than {money.scale} decimal places",
    )


#: A table event's amount: the contract's, to the cent.
EVENT_MONEY = EVENT_SCHEMA["amount"]
#: Events whose amount is a count (the tray's inventory, the drop box's): zero is one. The others
#: (slips and markers) move money and must be above zero.
COUNTED_EVENTS = ("opener", "closer", "drop")
#: The games that deal a second Player hand (player2_cards).
SECOND_HAND = [game.value for game in Game if game.second_player_hand]


def _with_all_columns(frame: pl.DataFrame, columns: tuple[str, ...]) -> pl.DataFrame:
    missing = [pl.lit(None, pl.String).alias(name) for name in columns if name not in frame.columns]
    return frame.with_columns(missing) if missing else frame


def _text(name: str) -> pl.Expr:
    """A column as trimmed text, empty as null."""
    text = pl.col(name).cast(pl.String).str.strip_chars()
    return pl.when(text.str.len_chars() > 0).then(text)


def _instant(frame: pl.DataFrame, name: str) -> pl.Expr:
    """ISO 8601 text (an offset honoured, a naive time read as UTC) or a timestamp, as a UTC instant;
    null for a leap second, which Polars would read as the next minute's first second."""
    dtype = frame.schema[name]
    if isinstance(dtype, pl.Datetime):
        column = pl.col(name).dt.cast_time_unit("us")  # ns or ms sources compare equal to text ones
        return column.dt.convert_time_zone("UTC") if dtype.time_zone else column.dt.replace_time_zone("UTC")
    # `:60` in a time that parses is its seconds (a leap second): minutes or an offset of 60 do not
    # parse anyway. A literal search is much cheaper than `LEAP_SECOND` (docs/benchmarks-history.md).
    leap = pl.col(name).cast(pl.String).str.contains(":60", literal=True)
    if (
        dtype == pl.String
        and frame.select(pl.col(name).str.contains(FULL_INSTANT).or_(pl.col(name).is_null()).all()).item()
    ):
        # The usual case: every time already has seconds and an offset, which the repairs below
        # leave unchanged, so one parse gives the same instants at a third of the cost.
        parsed = pl.col(name).str.to_datetime(ISO_INSTANT, strict=False, time_zone="UTC", time_unit="us")
        return pl.when(~leap).then(parsed)
    text = _text(name).str.replace(r"[zZ]$", "+00:00").str.replace(r"^(\S+) (\S+)$", "${1}T${2}")
    text = text.str.replace(r"T([0-9]{2}:[0-9]{2})([+-]|$)", "T${1}:00${2}")  # minutes without seconds
    with_offset = pl.when(text.str.contains(r"[+-][0-9]{2}:?[0-9]{2}$")).then(text).otherwise(text + "+00:00")
    parsed = with_offset.str.to_datetime(ISO_INSTANT, strict=False, time_zone="UTC", time_unit="us")
    return pl.when(~leap).then(parsed)


def _given(frame: pl.DataFrame, name: str) -> pl.Expr:
    """An input column as given: its typed values for an integer column of a whole number or a time
    column of `started_at`, else trimmed text."""
    dtype = frame.schema[name]
    if (name in WHOLE_NUMBERS and dtype.is_integer()) or (name in TIMES and isinstance(dtype, pl.Datetime)):
        return pl.col(name)
    return _text(name)


def _int64(column: pl.Expr | pl.Series, dtype: pl.DataType) -> pl.Expr | pl.Series:
    """An integer column as Int64, a UInt64 past its range as `SATURATED` (a strict cast would fail
    the whole file)."""
    return (column.clip(upper_bound=SATURATED) if dtype == pl.UInt64 else column).cast(pl.Int64)


def _whole(frame: pl.DataFrame, name: str) -> pl.Expr:
    """A whole number as Int64, from an integer column, a float column holding a whole value (`3.0`),
    or the text in `_{name}`: a decimal (`arrow_text.decimals`) with no places (`12`, `12.0`), read
    from its digits, never through a float; null for anything else. One past Int64 is `SATURATED`."""
    dtype = frame.schema[name]
    if dtype.is_integer():
        return _int64(pl.col(name), dtype)
    if dtype.is_float():
        number = pl.col(name)
        whole = number.is_finite() & (number == number.floor())
        return pl.when(whole).then(number.clip(-SATURATED, SATURATED).cast(pl.Int64, strict=False))  # NaN: null
    read, _, places, units = arrow_text.decimals(frame[f"_{name}"], scale=0)
    return pl.lit(pl.Series(units).set(pl.Series(~read | (places > 0)), None))


Check = tuple[str, list[tuple[pl.Expr, pl.Expr]]]  # reason, [(failed, detail), ...] in order


def _judge(frame: pl.DataFrame, checks: list[Check]) -> pl.DataFrame:
    """Add `reason` (the first check that fails) and `detail`; details are formatted for the
    failing rows only, which are few."""
    reason, detail = pl.lit(None, pl.String), pl.lit(None, pl.String)
    for name, failures in reversed(checks):
        for failed, text in reversed(failures):
            reason = pl.when(failed).then(pl.lit(name)).otherwise(reason)
            detail = pl.when(failed).then(text).otherwise(detail)
    frame = frame.with_columns(reason=reason)
    if frame["reason"].null_count() == frame.height:  # the usual case: nothing to explain
        return frame.with_columns(detail=pl.lit(None, pl.String))
    good = frame.filter(pl.col("reason").is_null()).with_columns(detail=pl.lit(None, pl.String))
    bad = frame.filter(pl.col("reason").is_not_null()).with_columns(detail=detail)
    return pl.concat([good, bad]).sort("_line")  # rows keep their order


def _not_utf8(frame: pl.DataFrame, names: tuple[str, ...]) -> list[tuple[pl.Expr, pl.Expr]]:
    """Values the file held as bytes that are not UTF-8 text (named in `NOT_UTF8` by the reader,
    which wrote them with escapes: `\\xff`)."""
    if NOT_UTF8 not in frame.columns:
        return []
    return [
        (pl.col(NOT_UTF8).list.contains(name), pl.format("{} {} is not UTF-8 text", pl.lit(name), pl.col(f"_{name}")))
        for name in names
    ]


def _leap_second(frame: pl.DataFrame, name: str = "started_at") -> list[tuple[pl.Expr, pl.Expr]]:
    """A time written with 60 seconds, which no instant of the warehouse's is."""
    if isinstance(frame.schema[name], pl.Datetime):
        return []
    leap = pl.col(f"_{name}").cast(pl.String).str.contains(LEAP_SECOND)
    detail = f"{name} {{}} is a leap second (second 60), not a time the warehouse can store"
    return [(leap, pl.format(detail, f"_{name}"))]


def _missing(*names: str) -> list[tuple[pl.Expr, pl.Expr]]:
    return [(pl.col(f"_{name}").is_null(), pl.lit(f"{name} is missing")) for name in names]


def _bad_type(name: str, valid: pl.Expr, what: str) -> tuple[pl.Expr, pl.Expr]:
    given = pl.col(f"_{name}")
    return given.is_not_null() & ~valid.fill_null(False), pl.format(
        "{} {} is not {}", pl.lit(name), given, pl.lit(what)
    )


def _plausible(instant: pl.Expr) -> pl.Expr:
    """Whether an instant lies in the contract's window: from EARLIEST to a day past the ingest."""
    return instant.is_between(pl.lit(EARLIEST), pl.lit(latest()))


def _implausible(name: str, instant: str) -> tuple[pl.Expr, pl.Expr]:
    """A time that parses but that no casino's log carries: before 2000, or past the ingest's morrow."""
    window = f"between {EARLIEST:%Y-%m-%d} and a day past the ingest ({latest():%Y-%m-%dT%H:%MZ})"
    return pl.col(instant).is_not_null() & ~_plausible(pl.col(instant)), pl.format(
        "{} {} is not {}", pl.lit(name), pl.col(f"_{name}"), pl.lit(window)
    )


def _too_long(frame: pl.DataFrame, names: tuple[str, ...]) -> list[tuple[pl.Expr, pl.Expr]]:
    """Free text past its column's limit (TEXT_LIMITS), told by its length, never quoted whole."""
    return [
        (
            pl.col(f"_{name}").cast(pl.String).str.len_chars() > TEXT_LIMITS[name],
            pl.format(
                "{} is {} characters long (at most {})",
                pl.lit(name),
                pl.col(f"_{name}").cast(pl.String).str.len_chars(),
                pl.lit(TEXT_LIMITS[name]),
            ),
        )
        for name in names
        if name in TEXT_LIMITS and name in frame.columns
    ]


def _bad_round_no() -> list[tuple[pl.Expr, pl.Expr]]:
    """A round number below 1, or past what the warehouse's INTEGER holds."""
    too_large = pl.format(f"round_no {{}} is too large (at most {ROUND_NO_MAX})", "_round_no")
    return [
        _bad_type("round_no", pl.col("round_no") >= 1, "a whole number >= 1"),
        (pl.col("round_no") > ROUND_NO_MAX, too_large),
    ]


def _money(
    frame: pl.DataFrame, name: str, digits: int, positive: bool = False, money: pl.Decimal = MONEY
) -> tuple[pl.Series, pl.Series]:
    """The text in `_{name}` as `{name}`, `money` read from its digits (never through a float; null
    where `money` cannot hold it exactly or it has more than `digits` before the point), and
    `_{name}_fault`, the index of the first of `money_faults` it has (-1 for none; `positive`: one
    at or below zero has the second)."""
    given = frame[f"_{name}"]
    read, whole, places, units = arrow_text.decimals(given, scale=money.scale)
    too_large, too_fine = whole > digits, places > money.scale
    fault = np.full(len(given), -1, np.int8)  # the last one set is the first told
    fault[too_fine], fault[too_large] = 3, 2
    if positive:  # `-0.00001` has no units, yet is below zero
        negative = given.str.starts_with("-").fill_null(False).to_numpy()
        fault[read & (negative | ((units == 0) & ~too_fine))] = 1
    fault[~read & arrow_text.present(given)] = 0
    exact = read & ~too_large & ~too_fine
    money = decimal128(units, money.scale, precision=money.precision, valid=exact)
    return pl.Series(name, money), pl.Series(f"_{name}_fault", fault)


def _inexact_money(
    name: str, digits: int, positive: bool = False, money: pl.Decimal = MONEY
) -> list[tuple[pl.Expr, pl.Expr]]:
    """Where the text in `_{name}` is no amount the warehouse keeps exactly (see `_money`): not a
    decimal (`1e3` and `NaN` are not), not positive where it must be, past its bound of `digits`
    before the point, or finer than `money`'s places, which a cast would round without a word."""
    fault = pl.col(f"_{name}_fault")
    return [
        (fault == j, pl.format("{} {} {}", pl.lit(name), pl.col(f"_{name}"), pl.lit(what)))
        for j, what in enumerate(money_faults(money, digits))
        if positive or j != 1
    ]


def _total(prefix: str, cards: int) -> pl.Expr:
    """The hand's total over its first `cards` cards; null for a hand not logged."""
    total = pl.sum_horizontal(pl.col(f"{prefix}{i}_value") for i in range(cards)) % 10
    return pl.when(pl.col(f"{prefix}0_value").is_not_null()).then(total)


def check_rounds(batch: pl.DataFrame) -> pl.DataFrame:
    """Typed, enriched rounds with `reason` and `detail` for the rows that fail a check: plain rows
    through the compiled sweep, the others through every check in order."""
    frame = _with_all_columns(batch, ROUND_INPUT_COLUMNS)
    plain, swept = _swept_rounds(frame)
    if plain.all():
        return swept
    checked = _check_rounds_fully(frame.filter(~pl.Series(plain))).select(swept.columns)
    return pl.concat([swept.filter(pl.Series(plain)), checked]).sort("_line")


#: The game a row without one plays (the sweep codes outcomes as indexes of OUTCOMES).
PUNTO_BANCO = rules.GAMES.index(Game.PUNTO_BANCO)


def _number(frame: pl.DataFrame, name: str) -> pl.Series:
    """A typed whole number as it is, or text of a decimal with no places read as one, as the full
    checks read it (else null)."""
    dtype = frame.schema[name]
    if dtype == pl.String:
        read, _, places, units = arrow_text.decimals(frame[name], scale=0)
        return pl.Series(f"_{name}", units).set(pl.Series(~read | (places > 0)), None)
    if dtype.is_integer():
        return _int64(frame[name], dtype).alias(f"_{name}")
    return pl.repeat(None, frame.height, dtype=pl.Int64, eager=True).alias(f"_{name}")


def _sweep_inputs(frame: pl.DataFrame) -> pl.DataFrame:
    """The columns the sweep takes as numbers: game and logged outcome codes, round, decks, time."""
    games = tuple(game.value for game in rules.GAMES)
    codes = pl.DataFrame(
        {
            "_game": arrow_text.label_codes(frame["game"], games, absent=PUNTO_BANCO, unknown=-1),
            "_logged": arrow_text.label_codes(frame["outcome"], OUTCOMES, absent=-1, unknown=-2),
        }
    ).with_columns(_number(frame, "round_no"), _number(frame, "decks"))
    if frame.schema["started_at"] != pl.String:
        return codes.with_columns(frame.select(_started=_instant(frame, "started_at")))
    micros, timed = instants(frame["started_at"])  # ISO text: read at machine speed where plain
    started = pl.Series("_started", micros).cast(pl.Datetime("us", "UTC")).set(~pl.Series(timed), None)
    return codes.with_columns(started)


def _plain_fields(frame: pl.DataFrame, inputs: pl.DataFrame) -> np.ndarray:
    """Per row: every field but the hands and the outcome needs neither trimming nor repair."""
    plain = arrow_text.plain_text(frame["table_id"]) & arrow_text.plain_text(frame["shoe_id"])
    if NOT_UTF8 in frame.columns:  # bytes that were not UTF-8 text: the full checks name them
        plain &= frame[NOT_UTF8].is_null().to_numpy()
    for name in ("dealer_id", "bank_holder"):
        plain &= arrow_text.plain_text(frame[name]) | ~arrow_text.present(frame[name])
    for name in ("table_id", "shoe_id", "dealer_id", "bank_holder"):  # the full checks tell a long one
        plain &= (frame[name].cast(pl.String).str.len_bytes() <= TEXT_LIMITS[name]).fill_null(True).to_numpy()
    decks_given = pl.Series(arrow_text.present(frame["decks"]))
    valid = inputs.select(
        pl.col("_round_no").is_between(1, ROUND_NO_MAX).fill_null(False)
        & pl.col("_started").is_not_null()
        & _plausible(pl.col("_started"))
        & (decks_given.not_() | pl.col("_decks").is_between(1, 8).fill_null(False))
    )
    return plain & valid.to_series().to_numpy()


def _swept_rounds(frame: pl.DataFrame) -> tuple[np.ndarray, pl.DataFrame]:
    """(which rows are plain, the checked columns of every row: right for the plain ones)."""
    inputs = _sweep_inputs(frame)
    plain, cards, facts = sweep.sweep(
        *(arrow_text.views(frame[name]) for name in hands.HAND_COLUMNS),
        *(arrow_text.present(frame[name]) for name in hands.HAND_COLUMNS),
        arrow_text.small_ints(inputs["_game"]),
        rules.GAMES.index(Game.BACCARAT_BANQUE),
        arrow_text.small_ints(inputs["_logged"]),
        sweep.bad_cases(),
    )
    swept = pl.DataFrame(
        {f"_{name}": facts[j] for j, name in enumerate(sweep.FACTS)}
        | {name: cards[j] for j, name in enumerate(hands.SLOT_COLUMNS)}
    )
    return plain & _plain_fields(frame, inputs), _swept_columns(pl.concat([frame, inputs, swept], how="horizontal"))


def _swept_columns(frame: pl.DataFrame) -> pl.DataFrame:
    """The checked columns, as the full checks give them, from the input and the sweep's output."""
    known = lambda name: pl.when(pl.col(name) >= 0).then(pl.col(name))  # noqa: E731 (-1: null)
    fact = lambda name: known(f"_{name}")  # noqa: E731
    outcome = lambda name: pl.lit(pl.Series(OUTCOMES)).gather(fact(name))  # noqa: E731 (a code's text)
    return frame.select(
        *(pl.col(name).cast(pl.String) for name in ("table_id", "shoe_id")),
        pl.col("_round_no").alias("round_no"),
        started_at=pl.col("_started"),
        **{name: pl.col(name).cast(pl.String) for name in hands.HAND_COLUMNS},
        game=pl.col("game").cast(pl.String).fill_null(Game.PUNTO_BANCO.value),
        decks=pl.col("_decks").fill_null(8),
        dealer_id=pl.col("dealer_id").cast(pl.String),
        bank_holder=pl.col("bank_holder").cast(pl.String),
        logged_outcome=pl.col("outcome").cast(pl.String),
        outcome=outcome("outcome"),
        outcome2=outcome("outcome2"),
        **{name: fact(name) for name in ("player_total", "banker_total", "player2_total")},
        player_third=known("p2_value"),
        banker_third=known("b2_value"),
        **{name: fact(name).cast(pl.Boolean) for name in ("natural", "player_pair", "banker_pair")},
        has_cards=pl.col("player_cards").is_not_null() | pl.col("banker_cards").is_not_null(),
        cards_used=pl.sum_horizontal("_player_count", "_banker_count", "_player2_count").cast(pl.UInt32, strict=False),
        **{name: known(name) for name in hands.SLOT_COLUMNS},
        _line=pl.col("_line"),
        reason=pl.lit(None, pl.String),
        detail=pl.lit(None, pl.String),
    )


def _check_rounds_fully(frame: pl.DataFrame) -> pl.DataFrame:
    """Every check of docs/round-log-format.md in order, for rows the sweep could not vouch for."""
    given = {f"_{name}": _given(frame, name) for name in ROUND_INPUT_COLUMNS}
    frame = frame.with_columns(**given, _started=_instant(frame, "started_at"))
    frame = frame.with_columns(
        round_no=_whole(frame, "round_no"),
        decks=pl.when(pl.col("_decks").is_null()).then(8).otherwise(_whole(frame, "decks")),
        game=pl.col("_game").str.to_lowercase().fill_null("punto_banco"),
        logged_outcome=pl.col("_outcome").str.to_uppercase(),
    ).with_columns(has_cards=pl.col("_player_cards").is_not_null() | pl.col("_banker_cards").is_not_null())
    for prefix, hand in (("p", "player"), ("b", "banker"), ("q", "player2")):
        frame = hands.decode(frame, f"_{hand}_cards", prefix, f"{hand}_count", f"_{hand}_canonical")
    frame = frame.with_columns(
        player_two=_total("p", 2).cast(pl.Int8),
        banker_two=_total("b", 2).cast(pl.Int8),
        player2_two=_total("q", 2).cast(pl.Int8),
        player_total=_total("p", 3).cast(pl.Int8),
        banker_total=_total("b", 3).cast(pl.Int8),
        player2_total=_total("q", 3).cast(pl.Int8),
        player_third=pl.col("p2_value"),
        banker_third=pl.col("b2_value"),
    )
    frame = frame.with_columns(
        tableau_detail=tableau_detail(
            pl.col("game"), pl.col("player_two"), pl.col("p2_value"), pl.col("banker_two"), pl.col("banker_count") == 3
        ),
        _t2=pl.when(pl.col("player2_count") > 0).then(
            tableau_detail(
                pl.col("game"), pl.col("player2_two"), pl.col("q2_value"), pl.col("banker_two"), pl.lit(False)
            )
        ),
    )
    # each hand against the banker total it meets: a natural (Banque) against his first two cards
    computed, computed2 = (
        hand_outcome_expr(
            pl.col(f"{hand}_total"), pl.col(f"{hand}_count") == 3, pl.col("banker_two"), pl.col("banker_total")
        )
        for hand in ("player", "player2")
    )
    hands_given = pl.col("has_cards")
    needs_cards = pl.col("_outcome").is_null()
    checks: list[Check] = [
        (
            "missing_field",
            [
                *_missing("table_id", "shoe_id", "round_no", "started_at"),
                (needs_cards & pl.col("_player_cards").is_null(), pl.lit("player_cards is missing")),
                (needs_cards & pl.col("_banker_cards").is_null(), pl.lit("banker_cards is missing")),
                (
                    hands_given & (pl.col("_player_cards").is_null() | pl.col("_banker_cards").is_null()),
                    pl.lit("only one hand is logged"),
                ),
                (
                    pl.col("game").is_in(SECOND_HAND) & hands_given & pl.col("_player2_cards").is_null(),
                    pl.lit("player2_cards is missing (baccarat_banque deals two player hands)"),
                ),
            ],
        ),
        (
            "bad_type",
            [
                *_not_utf8(frame, ROUND_INPUT_COLUMNS),
                *_bad_round_no(),
                *_leap_second(frame),
                _bad_type("started_at", pl.col("_started").is_not_null(), "an ISO 8601 time"),
                _implausible("started_at", "_started"),
                *_too_long(frame, ROUND_INPUT_COLUMNS),
                _bad_type("decks", pl.col("decks").is_between(1, 8), "1 to 8"),
                _bad_type("game", pl.col("game").is_in(GAMES), "a known game"),
                _bad_type("outcome", pl.col("logged_outcome").is_in(["B", "P", "T"]), "B, P or T"),
                (
                    pl.col("_player2_cards").is_not_null() & ~pl.col("game").is_in(SECOND_HAND),
                    pl.lit("player2_cards is for baccarat_banque only"),
                ),
            ],
        ),
        (
            "bad_card",
            [
                (
                    pl.col(f"__{hand}_canonical_bad").is_not_null(),
                    pl.format("bad card token '{}' in {}_cards", pl.col(f"__{hand}_canonical_bad"), pl.lit(hand)),
                )
                for hand in ("player", "banker", "player2")
            ],
        ),
        (
            "bad_hand_size",
            [
                (
                    ~pl.col(f"{hand}_count").is_between(2, 3),
                    pl.format("{}_cards holds {} cards (2 or 3 expected)", pl.lit(hand), pl.col(f"{hand}_count")),
                )
                for hand in ("player", "banker", "player2")
            ],
        ),
        (
            "tableau_violation",
            [
                (pl.col("tableau_detail").is_not_null(), pl.col("tableau_detail")),
                (pl.col("_t2").is_not_null(), pl.format("second hand: {}", pl.col("_t2"))),
            ],
        ),
        (
            "outcome_mismatch",
            [
                (
                    hands_given & pl.col("logged_outcome").is_not_null() & (pl.col("logged_outcome") != computed),
                    pl.format(
                        "outcome says {} but the cards give {} (player {}, banker {}{})",
                        pl.col("logged_outcome"),
                        computed,
                        pl.col("player_total"),
                        pl.col("banker_total"),
                        pl.when(
                            settled_on_natural_expr(pl.col("player_total"), pl.col("player_count") == 3)
                            & (pl.col("banker_count") == 3)
                        )
                        .then(pl.format("; a natural meets the banker's first two cards, {}", pl.col("banker_two")))
                        .otherwise(pl.lit("")),
                    ),
                )
            ],
        ),
    ]
    frame = _judge(frame, checks)
    pair = [
        pl.when(pl.col(f"{p}0_value") != pl.col(f"{p}1_value"))
        .then(False)
        .when(pl.col(f"{p}0_rank").is_not_null() & pl.col(f"{p}1_rank").is_not_null())
        .then(pl.col(f"{p}0_rank") == pl.col(f"{p}1_rank"))
        .alias(name)
        for p, name in (("p", "player_pair"), ("b", "banker_pair"))
    ]
    return frame.with_columns(
        *pair,
        started_at=pl.col("_started"),
        outcome=pl.when(hands_given).then(computed).otherwise(pl.col("logged_outcome")),
        outcome2=pl.when(pl.col("player2_count") > 0).then(computed2),
        natural=pl.when(hands_given).then(
            (pl.col("player_count") == 2)
            & (pl.col("banker_count") == 2)
            & (pl.max_horizontal("player_two", "banker_two") >= 8)
        ),
        cards_used=pl.col("player_count").fill_null(0)
        + pl.col("banker_count").fill_null(0)
        + pl.col("player2_count").fill_null(0),
        player_cards=pl.col("_player_canonical"),
        banker_cards=pl.col("_banker_canonical"),
        player2_cards=pl.col("_player2_canonical"),
        table_id=pl.col("_table_id"),
        shoe_id=pl.col("_shoe_id"),
        dealer_id=pl.col("_dealer_id"),
        bank_holder=pl.col("_bank_holder"),
    )


def check_bets(batch: pl.DataFrame) -> pl.DataFrame:
    """Typed bets with `reason` and `detail` for the rows that fail a check of their own."""
    frame = _with_all_columns(batch, BET_INPUT_COLUMNS)
    frame = frame.with_columns(**{f"_{name}": _given(frame, name) for name in BET_INPUT_COLUMNS})
    frame = frame.with_columns(
        *_money(frame, "amount", AMOUNT_DIGITS, positive=True),
        *_money(frame, "payout", PAYOUT_DIGITS),
        round_no=_whole(frame, "round_no"),
        bet=pl.col("_bet").str.to_lowercase(),
        side=_whole(frame, "side").cast(pl.Int8, strict=False),
    )
    checks: list[Check] = [
        ("missing_field", _missing("table_id", "shoe_id", "round_no", "seat", "bet", "amount")),
        (
            "bad_type",
            [
                *_not_utf8(frame, BET_INPUT_COLUMNS),
                *_bad_round_no(),
                *_too_long(frame, BET_INPUT_COLUMNS),
                *_inexact_money("payout", PAYOUT_DIGITS),
                _bad_type("side", pl.col("side").is_in([1, 2]), "1 or 2"),
            ],
        ),
        ("unknown_bet", [(~pl.col("bet").is_in(BETS), pl.format("unknown bet '{}'", pl.col("_bet")))]),
        ("bad_amount", _inexact_money("amount", AMOUNT_DIGITS, positive=True)),
    ]
    frame = _judge(frame, checks)
    return frame.with_columns(
        table_id=pl.col("_table_id"),
        shoe_id=pl.col("_shoe_id"),
        seat=pl.col("_seat"),
        player_id=pl.col("_player_id"),
    )


def check_events(batch: pl.DataFrame) -> pl.DataFrame:
    """Typed table events with `reason` and `detail` for the rows that fail a check of their own:
    fields, types, the event, its amount, its denominations. The shifts' checks come after."""
    frame = _with_all_columns(batch, EVENT_INPUT_COLUMNS)
    frame = frame.with_columns(**{f"_{name}": _given(frame, name) for name in EVENT_INPUT_COLUMNS})
    frame = frame.with_columns(
        *_money(frame, "amount", EVENT_DIGITS, money=EVENT_MONEY),
        _recorded=_instant(frame, "recorded_at"),
        event=pl.col("_event").str.to_lowercase(),
    )
    frame = denominations.checked(frame, "_denominations", "amount")
    counted = pl.col("event").is_in(COUNTED_EVENTS)
    sign = [
        (counted & (pl.col("amount") < 0), pl.format("amount {} is negative ({}: 0 or more)", "_amount", "event")),
        (~counted & (pl.col("amount") <= 0), pl.format("amount {} is not positive ({}: above 0)", "_amount", "event")),
    ]
    checks: list[Check] = [
        ("missing_field", _missing("table_id", "shift_id", "event_id", "event", "recorded_at", "amount")),
        (
            "bad_type",
            [
                *_not_utf8(frame, EVENT_INPUT_COLUMNS),
                *_leap_second(frame, "recorded_at"),
                _bad_type("recorded_at", pl.col("_recorded").is_not_null(), "an ISO 8601 time"),
                _implausible("recorded_at", "_recorded"),
                *_too_long(frame, EVENT_INPUT_COLUMNS),
            ],
        ),
        (
            "unknown_event",
            [(~pl.col("event").is_in(EVENT_KINDS), pl.format("unknown event '{}'", pl.col("_event")))],
        ),
        ("bad_amount", [*_inexact_money("amount", EVENT_DIGITS, money=EVENT_MONEY), *sign]),
        ("bad_denominations", [(pl.col("_denominations_fault").is_not_null(), pl.col("_denominations_fault"))]),
    ]
    frame = _judge(frame, checks)
    return frame.with_columns(
        table_id=pl.col("_table_id"),
        shift_id=pl.col("_shift_id"),
        event_id=pl.col("_event_id"),
        recorded_at=pl.col("_recorded"),
        denominations=pl.col("_denominations_normal"),
        player_id=pl.col("_player_id"),
        employee_id=pl.col("_employee_id"),
    )
