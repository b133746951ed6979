"""Figures for people, one style everywhere: the dashboard, the reports and the terminal's tables.

Money to the cent with thousands separators in the warehouse's currency (`Settings.currency`); a
negative amount with a leading minus sign; percents to fixed decimals by kind (hold and edges 2,
shares 1); p- and q-values to two significant digits, "< 0.0001" below that; a missing value as an
em dash. Names for columns, games and bets are words; SQL the user writes keeps its own names.
"""

from __future__ import annotations

from decimal import Decimal

#: What a missing value (a null, None) shows as.
MISSING = "—"
#: Decimals a percent carries, by what it measures: a hold or an edge (house or player), a rate or
#: probability whose second decimal matters (a tie rate of 9.52 % against 9.55 %), a share of a whole.
PERCENT_DIGITS = {"hold": 2, "edge": 2, "rate": 2, "share": 1}
#: Below this a p- or q-value reads as "< 0.0001": no test here is that precise.
SMALLEST_P = 0.0001


def money(value: Decimal | float | None, currency: str | None = None, *, signed: bool = False) -> str:
    """`-1,234.50` (`+1,234.50` when `signed`, for a change), or `EUR -1,234.50` when `currency` is given."""
    if value is None:
        return MISSING
    figure = f"{value:+,.2f}" if signed else f"{value:,.2f}"
    return f"{currency} {figure}" if currency else figure


def percent(fraction: float | Decimal | None, kind: str = "edge") -> str:
    """A fraction as a percent to `PERCENT_DIGITS[kind]` decimals: 0.01234 is "1.23 %"."""
    if fraction is None:
        return MISSING
    return f"{float(fraction) * 100:.{PERCENT_DIGITS[kind]}f} %"


def points(difference: float | None, kind: str = "edge") -> str:
    """A difference of two fractions in percentage points, signed: 0.0012 is "+0.12 pts"."""
    if difference is None:
        return MISSING
    return f"{float(difference) * 100:+.{PERCENT_DIGITS[kind]}f} pts"


def p_value(p: float | None) -> str:
    """A p- or q-value to two significant digits ("0.0012", "0.43"), "< 0.0001" below that."""
    if p is None:
        return MISSING
    if p < SMALLEST_P:
        return f"< {SMALLEST_P}"
    return f"{float(f'{p:.2g}'):f}".rstrip("0").rstrip(".") or "0"


def count(value: int | None) -> str:
    return MISSING if value is None else f"{value:,}"


def number(value: float | None, digits: int = 2) -> str:
    return MISSING if value is None else f"{value:,.{digits}f}"


def money_title(name: str, currency: str) -> str:
    """A money column's or axis' title: "Drop (EUR)"."""
    return f"{name} ({currency})"


#: Games, bets and statuses by their names where the code has only an identifier.
NAMES = {
    "punto_banco": "Punto Banco",
    "super6": "Super 6",
    "ez_baccarat": "EZ Baccarat",
    "chemin_de_fer": "Chemin de Fer",
    "baccarat_banque": "Baccarat Banque",
    "banco": "Banco",
    "player_pair": "Player pair",
    "banker_pair": "Banker pair",
    "dragon7": "Dragon 7",
    "panda8": "Panda 8",
    "edge_timing": "Edge timing",
    "zender": "Zender's pattern",
}


def name(identifier: str | None) -> str:
    """A game's, bet's or status's name: `NAMES`, else the identifier in words ("bad_amount": "Bad amount")."""
    if identifier is None:
        return MISSING
    if identifier.startswith("egalite_"):  # the égalité bets, one per tie total
        return f"Égalité {identifier.removeprefix('egalite_')}"
    return NAMES.get(identifier) or identifier.replace("_", " ").capitalize()


#: How a column's figures read: money, a count, a percent of one of `PERCENT_DIGITS`' kinds (the column
#: holds fractions), "points" (already in percent, as hold_pct), "p" (p- and q-values), "number" to 2
#: decimals, "number1" to 1, "name" (identifiers shown by `name`), "text".
KINDS = ("money", "count", *PERCENT_DIGITS, "points", "p", "number", "number1", "name", "text")
#: Columns whose header is not their name in words, or whose kind their type does not tell: (words, kind).
#: Any other column reads as its name in words; a Decimal column as money, an integer one as a count.
COLUMNS: dict[str, tuple[str, str]] = {
    # who and what
    "game": ("Game", "name"), "bet": ("Bet", "name"), "best_bet": ("Best bet", "name"),
    "status": ("Status", "name"), "reason": ("Reason", "name"), "rule": ("Rule", "name"), "kind": ("Kind", "name"),
    "scope": ("Scope", "name"), "reconciliation": ("Reconciliation", "name"), "ended_by": ("Ended by", "name"),
    "table_id": ("Table", "text"), "dealer_id": ("Dealer", "text"), "player_id": ("Player", "text"),
    "shoe_id": ("Shoe", "text"), "shift_id": ("Shift", "text"), "round_no": ("Coup", "count"),
    # holds, edges, rates and shares (fractions)
    "win_over_handle": ("Hold", "hold"), "theo_over_handle": ("Theo hold", "hold"),
    "house_edge": ("House edge", "edge"), "full_shoe_edge": ("Full-shoe edge", "edge"),
    "player_edge": ("Player edge", "edge"), "best_edge": ("Best edge", "edge"),
    "banker_rate": ("Banker wins", "rate"), "player_rate": ("Player wins", "rate"), "tie_rate": ("Tie rate", "rate"),
    "expected_rate": ("Expected rate", "rate"), "ci_low": ("95 % CI low", "rate"),
    "ci_high": ("95 % CI high", "rate"), "pass_rate": ("Pass rate", "rate"),
    "expected_pass_rate": ("Expected pass rate", "rate"), "win_rate": ("Win rate", "rate"),
    "expected": ("Expected", "share"), "share": ("Share", "share"), "exact": ("Exact", "share"),
    "back_test": ("Back-test", "share"), "advantage_share": ("At an advantage", "share"),
    "expected_advantage_share": ("Expected at an advantage", "share"),
    # already in percent
    "hold_pct": ("Hold", "points"), "theo_hold_pct": ("Theo hold", "points"), "ytd_hold_pct": ("YTD hold", "points"),
    "mtd_hold_pct": ("MTD hold", "points"), "quarantined_handle_pct": ("Quarantined handle", "points"),
    "md_base_hold_pct": ("MD base hold", "points"), "md_ci_low": ("MD 95 % CI low", "points"),
    "md_ci_high": ("MD 95 % CI high", "points"), "ks_base_hold_pct": ("KS base hold", "points"),
    "oh_rolling_hold_pct": ("OH 30-day hold", "points"), "oh_lifetime_hold_pct": ("OH lifetime hold", "points"),
    # statistics
    "p_value": ("p-value", "p"), "q_value": ("q-value", "p"), "p": ("p-value", "p"),
    # marts.tenure_fit's q is no q-value: the chance a bank keeps a decided coup (1 − q ends it)
    "q": ("Bank keeps, q", "rate"),
    "z": ("z", "number"), "win_vs_theo_z": ("z", "number"), "chi2": ("χ²", "number"),
    "edge_rank_correlation": ("Edge rank correlation", "number"), "std_dev": ("Standard deviation", "number"),
    "pace_vs_median": ("Pace vs median", "number"), "growth": ("Growth", "number"),
    "expected_passes": ("Expected passes", "number1"), "expected_ties": ("Expected ties", "number1"),
    "coups_per_hour": ("Coups per hour", "number1"), "house_median": ("House median (coups per hour)", "number1"),
    "hours": ("Hours", "number1"), "minutes": ("Minutes", "number1"), "theo_per_hour": ("Theo per hour", "money"),
    # money whose column the warehouse keeps as a double
    "expected_commission": ("Expected commission", "money"), "edge_worth": ("Edge worth", "money"),
    "median_bank_max": ("Median bank max", "money"), "dof": ("Degrees of freedom", "count"),
    "super6_reduction": ("Super 6 reduction", "money"), "ez_reduction": ("EZ Baccarat reduction", "money"),
    # the report's investigations: a figure against its base and interval, in percent or percentage points
    "figure": ("Figure", "number"), "base": ("Base", "number"), "low": ("Low", "number"), "high": ("High", "number"),
    "ytd_drop": ("YTD drop", "money"), "ytd_win": ("YTD win", "money"), "mtd_drop": ("MTD drop", "money"),
    "mtd_win": ("MTD win", "money"), "oh_days_flagged": ("OH days flagged", "count"),
    "md_flag": ("MD flag", "text"), "ks_flag": ("KS flag", "text"), "oh_flag": ("OH flag", "text"),
}  # fmt: skip


def kind(column: str, default: str = "text") -> str:
    """How `column`'s figures read (`KINDS`): `COLUMNS`' word, else `default` (what its type tells)."""
    return COLUMNS[column][1] if column in COLUMNS else default


def header(column: str, currency: str, as_kind: str | None = None) -> str:
    """A column's header in words, with the unit of its kind (`as_kind`, else `kind(column)`): "Drop (EUR)",
    "Hold (%)", "Theo per hour (EUR)"."""
    words = COLUMNS[column][0] if column in COLUMNS else name(column)
    shown = as_kind or kind(column)
    if shown == "money":
        return money_title(words, currency)
    if shown in PERCENT_DIGITS or shown == "points":
        return f"{words} (%)"
    return words
