"""What a page's Altair charts plot, read off an AppTest run: each mark with its title, encoding and data."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

import polars as pl
from polars.testing import assert_frame_equal
from streamlit.testing.v1 import AppTest

#: Keys under which a Vega-Lite spec nests the specs it composes.
NESTED = ("layer", "hconcat", "vconcat", "concat", "spec")


@dataclass(frozen=True)
class Layer:
    """One mark of a chart: the title it is shown under, its mark type, its encoding and the data it reads;
    `style` holds the mark's own properties (shape, filled, ...), `chart` the chart's place on the page."""

    title: str | None
    mark: str
    encoding: dict[str, Any]
    data: pl.DataFrame
    style: dict[str, Any] = field(default_factory=dict)
    chart: int = 0

    def field(self, channel: str) -> str:
        """The column a channel (x, y, color, ...) plots."""
        return self.encoding[channel]["field"]


def layers(at: AppTest) -> list[Layer]:
    """Every mark of every Vega-Lite chart on the page, in the order drawn; a layer inherits its parents'
    title, data and encoding as Vega-Lite does."""
    found: list[Layer] = []
    for chart, element in enumerate(at.get("vega_lite_chart")):
        datasets = {named.name: pl.read_ipc_stream(named.data.data) for named in element.proto.datasets}
        drawn: list[Layer] = []
        _walk(json.loads(element.proto.spec), datasets, None, None, {}, drawn)
        found += [replace(each, chart=chart) for each in drawn]
    return found


def _walk(spec: dict, datasets: dict, title: str | None, data: str | None, encoding: dict, found: list) -> None:
    own = spec.get("title")
    title = (own.get("text") if isinstance(own, dict) else own) or title
    data = (spec.get("data") or {}).get("name", data)
    encoding = {**encoding, **spec.get("encoding", {})}
    if "mark" in spec:
        style = spec["mark"] if isinstance(spec["mark"], dict) else {"type": spec["mark"]}
        found.append(Layer(title, style["type"], encoding, datasets[data], style))
    for key in NESTED:
        for child in spec[key] if isinstance(spec.get(key), list) else [spec[key]] if key in spec else []:
            _walk(child, datasets, title, data, encoding, found)


def layer(found: list[Layer], mark: str, title: str | None = None, **fields: str) -> Layer:
    """The one layer drawn as `mark` (under `title` when given) whose channels plot the given columns
    (e.g. y="tie_rate")."""
    matches = [
        each
        for each in found
        if each.mark == mark
        and (title is None or each.title == title)
        and all(each.encoding.get(channel, {}).get("field") == name for channel, name in fields.items())
    ]
    assert len(matches) == 1, f"{len(matches)} {mark} layers {title!r} {fields} among {describe(found)}"
    return matches[0]


def describe(found: list[Layer]) -> list[tuple]:
    fields = [{k: v.get("field") for k, v in each.encoding.items() if isinstance(v, dict)} for each in found]
    return [(each.title, each.mark, named) for each, named in zip(found, fields, strict=True)]


def assert_plots(shown: pl.DataFrame, expected: pl.DataFrame, rel: float = 1e-9) -> None:
    """`shown` (a layer's data) holds exactly `expected`'s rows in `expected`'s columns, in any order;
    numbers compared as floats, within `rel` (NaN as null: a ratio of nothing is missing either way)."""
    columns = expected.columns
    as_float = [name for name, dtype in expected.schema.items() if dtype.is_numeric()]

    def plain(frame: pl.DataFrame) -> pl.DataFrame:
        floats = pl.col(as_float).cast(pl.Float64)
        return frame.select(columns).with_columns(floats.fill_nan(None)).sort(columns, nulls_last=True)

    assert_frame_equal(plain(shown), plain(expected), check_dtypes=False, rel_tol=rel, abs_tol=1e-12)
