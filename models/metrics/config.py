"""How the marts are reckoned: the part of the project's settings (models/settings.py) a build uses,
with the commission's rounding and the pay table its caller picks."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from models.game.paytable import DEFAULT_PAYTABLE, PayTable
from models.gaming_day import GamingDay
from models.metrics.money import Rounding
from models.reports.rules import RULES
from models.settings import DEFAULTS, Settings


@dataclass(frozen=True)
class MartConfig:
    """How the marts are reckoned: the gaming day, commission rounding, the pay table; a rating's
    session gap (minutes), the comp reinvestment rate on theo, and dealer pace's break (minutes);
    surveillance's false-discovery rate and the table limits its Zender rule compares stakes with;
    the count room's tolerance (None: one chip of a shift's smallest denomination) and the
    regulators' rules whose flags make an investigation."""

    day: GamingDay = DEFAULTS.gaming_day
    rounding: Rounding = field(default_factory=Rounding)
    paytable: PayTable = DEFAULT_PAYTABLE
    session_gap: float = DEFAULTS.session_gap_minutes
    comp_rate: Decimal = DEFAULTS.comp_rate
    pace_break_minutes: float = DEFAULTS.pace_break_minutes
    surveillance_fdr: float = DEFAULTS.surveillance_fdr
    max_bet: Decimal = DEFAULTS.max_bet
    side_max: Decimal = DEFAULTS.side_max
    count_tolerance: Decimal | None = DEFAULTS.count_tolerance
    report_rules: tuple[str, ...] = DEFAULTS.report_rules

    @classmethod
    def from_settings(cls, settings: Settings, **chosen) -> MartConfig:
        """The marts' part of the project's settings; `chosen`: what the caller picks beside them
        (the commission's `rounding`, the `paytable`)."""
        return cls(
            day=settings.gaming_day,
            session_gap=settings.session_gap_minutes,
            comp_rate=settings.comp_rate,
            pace_break_minutes=settings.pace_break_minutes,
            surveillance_fdr=settings.surveillance_fdr,
            max_bet=settings.max_bet,
            side_max=settings.side_max,
            count_tolerance=settings.count_tolerance,
            report_rules=settings.report_rules,
            **chosen,
        )

    def recorded(self) -> dict[str, Any]:
        """Every setting as JSON values (amounts as text, exactly), named as models/settings.py names
        them, for a report's manifest; `from_recorded` reads them back."""
        return {
            "timezone": self.day.timezone,
            "day_start_hour": self.day.start_hour,
            "rounding": self.rounding.policy,
            "rounding_unit": str(self.rounding.unit),
            "paytable": {name: _text(value) for name, value in asdict(self.paytable).items()},
            "session_gap_minutes": self.session_gap,
            "comp_rate": str(self.comp_rate),
            "pace_break_minutes": self.pace_break_minutes,
            "surveillance_fdr": self.surveillance_fdr,
            "max_bet": str(self.max_bet),
            "side_max": str(self.side_max),
            "count_tolerance": None if self.count_tolerance is None else str(self.count_tolerance),
            "report_rules": list(self.report_rules),
        }

    @classmethod
    def from_recorded(cls, recorded: dict[str, Any]) -> MartConfig:
        """The settings `recorded` wrote (a KeyError or ValueError for what it did not write)."""
        table = {
            name: tuple(Decimal(v) for v in value) if isinstance(value, list) else Decimal(value)
            for name, value in recorded["paytable"].items()
        }
        tolerance = recorded["count_tolerance"]
        return cls(
            day=GamingDay(recorded["timezone"], int(recorded["day_start_hour"])),
            rounding=Rounding(recorded["rounding"], Decimal(recorded["rounding_unit"])),
            paytable=PayTable(**table),
            session_gap=float(recorded["session_gap_minutes"]),
            comp_rate=Decimal(recorded["comp_rate"]),
            pace_break_minutes=float(recorded["pace_break_minutes"]),
            surveillance_fdr=float(recorded["surveillance_fdr"]),
            max_bet=Decimal(recorded["max_bet"]),
            side_max=Decimal(recorded["side_max"]),
            count_tolerance=None if tolerance is None else Decimal(tolerance),
            report_rules=tuple(recorded["report_rules"]),
        )

    def __post_init__(self) -> None:
        if not self.session_gap > 0:
            raise ValueError(f"the session gap is a positive number of minutes, got {self.session_gap}")
        try:
            object.__setattr__(self, "comp_rate", Decimal(str(self.comp_rate)))
        except InvalidOperation:
            raise ValueError(f"the comp rate is a number from 0 to 1, got {self.comp_rate!r}") from None
        if not 0 <= self.comp_rate <= 1:
            raise ValueError(f"the comp rate is a share of theo from 0 to 1, got {self.comp_rate}")
        if not self.pace_break_minutes > 0:
            raise ValueError(f"the pace break is a positive number of minutes, got {self.pace_break_minutes}")
        if not 0 < self.surveillance_fdr < 1:
            raise ValueError(f"the surveillance false-discovery rate is between 0 and 1, got {self.surveillance_fdr}")
        for name in ("max_bet", "side_max"):
            try:
                object.__setattr__(self, name, Decimal(str(getattr(self, name))))
            except InvalidOperation:
                raise ValueError(f"the table's {name} is an amount, got {getattr(self, name)!r}") from None
            if not getattr(self, name) > 0:
                raise ValueError(f"the table's {name} is a positive amount, got {getattr(self, name)}")
        if self.count_tolerance is not None:
            try:
                object.__setattr__(self, "count_tolerance", Decimal(str(self.count_tolerance)))
            except InvalidOperation:
                raise ValueError(f"the count tolerance is an amount, got {self.count_tolerance!r}") from None
            if not (self.count_tolerance.is_finite() and self.count_tolerance >= 0):
                raise ValueError(f"the count tolerance is an amount of 0 or more, got {self.count_tolerance}")
        object.__setattr__(self, "report_rules", tuple(self.report_rules))
        if unknown := sorted(set(self.report_rules) - set(RULES)):
            raise ValueError(f"the report's rules are {', '.join(RULES)}, got {', '.join(unknown)}")


def _text(value: Decimal | tuple[Decimal, ...]) -> str | list[str]:
    return [str(v) for v in value] if isinstance(value, tuple) else str(value)
