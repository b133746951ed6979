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
#: Decimals a percent carries, by what it measures.
PERCENT_DIGITS = {"hold": 2, "edge": 2, "share": 1}
#: Below this a p- or q-value reads as "< 0.0001": no test here is that precise.
SMALLEST_P = 0.0001
#: The minus sign every negative figure carries (a hyphen-minus: it copies into a spreadsheet as a number).
MINUS = "-"


def money(value: Decimal | float | None, currency: str | None = None) -> str:
    """`-1,234.50`, or `EUR -1,234.50` when `currency` is given (a figure standing alone)."""
    if value is None:
        return MISSING
    figure = f"{value:,.2f}"
    return f"{currency} {figure}" if currency else figure


def percent(fraction: float | Decimal | None, kind: str = "edge") -> str:
    """A fraction as a percent to `PERCENT_DIGITS[kind]` decimals: 0.01234 is "1.23 %"."""
    if fraction is None:
        return MISSING
    return f"{float(fraction) * 100:.{PERCENT_DIGITS[kind]}f} %"


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
}


def name(identifier: str | None) -> str:
    """A game's, bet's or status's name: `NAMES`, else the identifier in words ("bad_amount": "Bad amount")."""
    if identifier is None:
        return MISSING
    return NAMES.get(identifier) or identifier.replace("_", " ").capitalize()
