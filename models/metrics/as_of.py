"""The marts as of an earlier commit of the warehouse, built by the project's own build in a scratch
warehouse whose tables are those of the commit (travel.py), and a month's report read from them as
`banco report` reads it from the serving file: a report made again."""

from __future__ import annotations

import datetime as dt
import tempfile
from pathlib import Path

from models.metrics.build import build_on
from models.metrics.config import MartConfig
from models.metrics.days import coups_by_day
from models.progress import Progress, quiet
from models.reports import monthly
from models.reports.manifest import Manifest
from models.reports.rules import month_end
from models.warehouse import travel
from models.warehouse.store import WarehouseError


def report_at(
    db: Path,
    commit: travel.Commit,
    config: MartConfig,
    month: dt.date,
    rules: tuple[str, ...],
    property_name: str,
    progress: Progress = quiet,
) -> monthly.Report:
    """The report of `month` from the marts `config` reckons over the tables at `commit`: the gaming
    days up to the month's end (no figure of a day looks at a later one), built in a temporary folder
    (`progress` told the build's stages)."""
    with tempfile.TemporaryDirectory(prefix="banco-report-") as folder, travel.scratch(db, commit, Path(folder)) as con:
        end = month_end(month)
        days = [day for day in coups_by_day(con, config.day)["gaming_day"].to_list() if day <= end]
        if not days:
            raise WarehouseError(f"{commit.describe()} holds no coups up to {end}: no report of {month:%Y-%m}")
        build_on(con, config, commit, days=days, db=db, progress=progress)
        params = monthly.window(month)
        statistical = con.sql(monthly.STATISTICAL, params=params).pl()
        shifts = con.sql(monthly.SHIFTS, params=params).pl()
    return monthly.report(statistical, shifts, month, rules, property_name, as_of=commit.committed_at)


def config_of(manifest: Manifest) -> MartConfig:
    """The settings a manifest says the marts were reckoned by; a one-line ValueError when unreadable."""
    try:
        return MartConfig.from_recorded(manifest.settings["marts"])
    except (KeyError, TypeError, ValueError, ArithmeticError) as error:
        raise ValueError(f"the manifest's settings of the marts are not readable: {error!r}") from None
