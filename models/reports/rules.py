"""The regulators' investigation rules a report applies (BANCO_REPORT_RULES): their names, citations and
what each asks to be explained."""

from __future__ import annotations

import datetime as dt

#: Every rule, in the order a report lists them.
RULES = ("maryland", "kansas", "ohio")
DEFAULT_RULES = ("maryland",)
#: How a report names each rule.
TITLES = {
    "maryland": "Maryland (COMAR 36.05.03.25)",
    "kansas": "Kansas (K.A.R. 112-108-51)",
    "ohio": "Ohio (OAC 3772-10-08)",
}
#: Short names for narrow columns (the PDF's).
SHORT = {"maryland": "MD", "kansas": "KS", "ohio": "OH"}
#: The percentage points beyond which Kansas's and Ohio's rules flag (the marts' flags say where; these
#: only draw the interval a report states beside them).
KANSAS_POINTS = 3.0
OHIO_POINTS = 4.0


def parse_rules(text: str) -> tuple[str, ...]:
    """A comma list of rule names (any case, spaces ignored), in RULES' order; a one-line ValueError
    for an unknown name or none at all."""
    names = {name.strip().lower() for name in text.split(",") if name.strip()}
    unknown = sorted(names - set(RULES))
    if unknown or not names:
        raise ValueError(
            f"BANCO_REPORT_RULES is a comma list of {', '.join(RULES)}, got {text!r}"
            + (f" ({', '.join(unknown)} unknown)" if unknown else "")
        )
    return tuple(rule for rule in RULES if rule in names)


#: The months a report can name: no casino's logs are older, and a month's end must be a date.
FIRST_MONTH, LAST_MONTH = dt.date(2000, 1, 1), dt.date(9998, 12, 1)


def parse_month(text: str) -> dt.date:
    """The first day of the month `text` names (YYYY-MM, ASCII digits, FIRST_MONTH to LAST_MONTH); a
    one-line ValueError otherwise."""
    try:
        year, month = text.strip().split("-")
        if len(year) != 4 or len(month) != 2 or not (year + month).isascii():
            raise ValueError
        first = dt.date(int(year), int(month), 1)
    except ValueError:
        raise ValueError(f"not a month (YYYY-MM, e.g. 2026-11): {text!r}") from None
    if not FIRST_MONTH <= first <= LAST_MONTH:
        raise ValueError(f"no report covers {text.strip()}: months run from {FIRST_MONTH:%Y-%m} to {LAST_MONTH:%Y-%m}")
    return first


def month_end(month: dt.date) -> dt.date:
    """The last day of the month that starts on `month`."""
    following = (month.replace(day=28) + dt.timedelta(days=4)).replace(day=1)
    return following - dt.timedelta(days=1)
