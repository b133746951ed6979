"""The warehouse resource every asset, check, schedule and sensor uses, and the settings it is made of."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

import dagster as dg

from models.gaming_day import GamingDay
from models.settings import DEFAULTS, Settings
from models.warehouse.store import current, read

if TYPE_CHECKING:
    from models.metrics.config import MartConfig

#: The settings the code location was loaded with: the environment is read once, here.
SETTINGS = Settings.from_env()


class Warehouse(dg.ConfigurableResource):
    """The DuckDB warehouse, the landing folder it is fed from, how gaming days are reckoned, and
    the marts' settings for player ratings, dealer pace and surveillance (by default the project's,
    models/settings.py; amounts and rates as text, so they stay exact)."""

    db: str
    landing: str
    timezone: str = DEFAULTS.gaming_day.timezone
    day_start_hour: int = DEFAULTS.gaming_day.start_hour
    session_gap_minutes: float = DEFAULTS.session_gap_minutes
    comp_rate: str = str(DEFAULTS.comp_rate)
    pace_break_minutes: float = DEFAULTS.pace_break_minutes
    surveillance_fdr: float = DEFAULTS.surveillance_fdr
    max_bet: str = str(DEFAULTS.max_bet)
    side_max: str = str(DEFAULTS.side_max)
    count_tolerance: str = ""  # empty: the smallest chip's (DEFAULTS.count_tolerance, None)
    report_rules: str = ",".join(DEFAULTS.report_rules)  # a comma list

    @classmethod
    def from_settings(cls, settings: Settings) -> Warehouse:
        return cls(
            db=str(settings.db),
            landing=str(settings.landing),
            timezone=settings.gaming_day.timezone,
            day_start_hour=settings.gaming_day.start_hour,
            session_gap_minutes=settings.session_gap_minutes,
            comp_rate=str(settings.comp_rate),
            pace_break_minutes=settings.pace_break_minutes,
            surveillance_fdr=settings.surveillance_fdr,
            max_bet=str(settings.max_bet),
            side_max=str(settings.side_max),
            count_tolerance="" if settings.count_tolerance is None else str(settings.count_tolerance),
            report_rules=",".join(settings.report_rules),
        )

    @property
    def db_path(self) -> Path:
        return Path(self.db)

    @property
    def landing_path(self) -> Path:
        return Path(self.landing)

    @property
    def gaming_day(self) -> GamingDay:
        return GamingDay(self.timezone, self.day_start_hour)

    @property
    def mart_config(self) -> MartConfig:
        from models.metrics.config import MartConfig
        from models.reports.rules import parse_rules

        return MartConfig(
            day=self.gaming_day,
            session_gap=self.session_gap_minutes,
            comp_rate=Decimal(self.comp_rate),
            pace_break_minutes=self.pace_break_minutes,
            surveillance_fdr=self.surveillance_fdr,
            max_bet=Decimal(self.max_bet),
            side_max=Decimal(self.side_max),
            count_tolerance=Decimal(self.count_tolerance) if self.count_tolerance else None,
            report_rules=parse_rules(self.report_rules),
        )

    @contextmanager
    def snapshot(self) -> Iterator:
        """A short-lived read-only connection to the serving snapshot."""
        con = read(self.db_path)
        try:
            yield con
        finally:
            con.close()

    @contextmanager
    def latest(self) -> Iterator:
        """A connection whose views read the tables at the warehouse's latest commit, on any machine
        (the serving snapshot is the serving host's)."""
        with current(self.db_path) as con:
            yield con
