"""`banco bench --quick`'s plumbing on hand-made figures: the verdicts, the printed table, what is recorded,
and that benchmarks/expected.json has a figure for every case of every benchmark. No timing is asserted."""

from __future__ import annotations

import json

import pytest

from benchmarks import quick
from benchmarks.quick import TOLERANCE, Figure, change, entry, factor, table, verdict


def time_(value: float, spread: float = 0.0) -> Figure:
    return Figure("full rebuild", "full rebuild, 24,988 coups", value, "s", False, "<= 20", spread)


def rate(value: float, spread: float = 0.0) -> Figure:
    return Figure("a month", "a month, 5,019 coups", value, "coups/s", True, ">= 20,000", spread)


def recorded(value: float, spread: float = 0.0) -> dict:
    return {"figure": value, "spread": spread}


@pytest.mark.parametrize(
    ("figure", "then", "expected"),
    [
        (time_(1.0), None, "new"),
        (time_(1.0), recorded(1.0), "ok"),
        (time_(1.2), recorded(1.0), "ok"),  # 20 % slower: within the tolerance
        (time_(1.3), recorded(1.0), "behind"),  # 30 % slower
        (time_(0.7), recorded(1.0), "ahead"),
        (time_(1.3, spread=0.4), recorded(1.0), "ok"),  # its repeats spread wider than 30 %
        (time_(1.3), recorded(1.0, spread=0.4), "ok"),  # and so did the recorded run's
        (time_(1.5, spread=0.4), recorded(1.0), "behind"),
        (rate(7_000), recorded(10_000), "behind"),  # a rate 30 % lower: 1.43 times worse
        (rate(8_500), recorded(10_000), "ok"),
        (rate(14_000), recorded(10_000), "ahead"),
        (time_(0.5), recorded(0.0), "behind"),  # from nothing to something
        (time_(0.0), recorded(0.0), "ok"),
    ],
)
def test_a_figure_is_behind_only_beyond_the_noise(figure, then, expected):
    assert verdict(figure, then) == expected


def test_worse_is_the_same_factor_whichever_way_is_better():
    assert factor(time_(2.0), recorded(1.0)) == pytest.approx(2.0)
    assert factor(rate(5_000), recorded(10_000)) == pytest.approx(2.0)
    assert change(rate(20_000), recorded(10_000)) == "2.00x better"
    assert change(time_(1.5), recorded(1.0)) == "1.50x worse"
    assert change(time_(1.0), recorded(1.0)) == "same"


def test_the_tolerance_is_the_least_noise_and_a_wider_spread_replaces_it():
    assert quick.noise(time_(1.0, spread=0.1), recorded(1.0, spread=0.05)) == TOLERANCE
    assert quick.noise(time_(1.0, spread=0.6), recorded(1.0, spread=0.3)) == 0.6


def test_the_table_shows_each_figure_its_expected_one_target_and_verdict_and_what_is_no_longer_measured():
    figures = [time_(1.3), rate(10_000)]
    was = {"cases": {"full rebuild": {"figure": 1.0, "unit": "s"}, "gone": {"figure": 3.0, "unit": "s"}}}
    header, slow, fast, gone = table(figures, was)
    assert header.split()[:3] == ["case", "measured", "expected"]
    assert "1.3 s" in slow and "1 s" in slow and "1.30x worse" in slow and "<= 20" in slow
    assert slow.endswith("behind")
    assert "10,000 coups/s" in fast and fast.endswith("new")
    assert "gone" in gone and "not measured" in gone


def test_a_record_keeps_unit_direction_target_date_and_commit():
    kept = entry([time_(1.23456, spread=0.1234), rate(9_876.54)], {"seconds": 12.34, "load": [1.0, 2.0]}, "abc1234")
    assert kept["commit"] == "abc1234" and kept["load"] == [1.0, 2.0] and kept["recorded"].endswith("UTC")
    assert kept["cases"]["full rebuild"] == {
        "case": "full rebuild, 24,988 coups", "figure": 1.235, "unit": "s", "better": "lower", "target": "<= 20",
        "spread": 0.123,
    }  # fmt: skip
    assert kept["cases"]["a month"]["better"] == "higher"


def test_expected_json_has_every_benchmark_and_what_each_figure_needs():
    expected = json.loads(quick.EXPECTED.read_text())
    assert sorted(expected["benchmarks"]) == quick.names()
    for name, run in expected["benchmarks"].items():
        assert run["commit"] and run["recorded"], name
        assert run["cases"], name
        for key, case in run["cases"].items():
            assert {"case", "figure", "unit", "better", "target", "spread"} <= set(case), (name, key)
            assert case["better"] in ("higher", "lower"), (name, key)


@pytest.mark.slow
def test_a_quick_run_of_a_real_benchmark_gives_its_figures():
    """The odds benchmark at its quick size in a process of its own, as `banco bench --quick odds` runs it."""
    figures, measured = quick.run("odds")
    cases = json.loads(quick.EXPECTED.read_text())["benchmarks"]["odds"]["cases"]
    assert [figure.key for figure in figures] == list(cases)
    assert all(figure.value > 0 and figure.unit == "ms" for figure in figures)
    assert measured["seconds"] > 0 and len(measured["load"]) == 2
