"""The gaming day: the reporting date, which starts at a configurable local hour."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

if TYPE_CHECKING:
    import polars as pl


@dataclass(frozen=True)
class GamingDay:
    """A gaming day starts at `start_hour` local time in `timezone` (default 06:00 UTC)."""

    timezone: str = "UTC"
    start_hour: int = 6

    def __post_init__(self) -> None:
        if not 0 <= self.start_hour <= 23:
            raise ValueError(f"the gaming day start hour is 0 to 23, got {self.start_hour}")
        try:
            ZoneInfo(self.timezone)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"unknown time zone {self.timezone!r}") from None

    def bounds(self, first: dt.date, last: dt.date) -> tuple[dt.datetime, dt.datetime]:
        """The UTC instants from the opening of gaming day `first` to the close of gaming day `last`."""
        zone, opens = ZoneInfo(self.timezone), dt.time(self.start_hour)
        since = dt.datetime.combine(first, opens, tzinfo=zone)
        until = dt.datetime.combine(last + dt.timedelta(days=1), opens, tzinfo=zone)
        return since.astimezone(dt.UTC), until.astimezone(dt.UTC)

    def of(self, instant: dt.datetime) -> dt.date:
        """The gaming day of one instant (aware), as `gaming_day` reckons a column of them."""
        local = instant.astimezone(ZoneInfo(self.timezone))
        return (local - dt.timedelta(hours=self.start_hour)).date()


def gaming_day(started_at: pl.Expr, day: GamingDay = GamingDay()) -> pl.Expr:
    """The gaming day of an instant: its local date, counting hours before the start as the day before."""
    import polars as pl  # here, not above: the settings read GamingDay and the command line starts without Polars

    local = started_at.dt.convert_time_zone(day.timezone)
    return (local - pl.duration(hours=day.start_hour)).dt.date().alias("gaming_day")


def shoe_day() -> pl.Expr:
    """The gaming day a shoe belongs to: that of its first coup (needs `gaming_day`)."""
    import polars as pl

    return pl.col("gaming_day").min().over("table_id", "shoe_id").alias("shoe_day")
