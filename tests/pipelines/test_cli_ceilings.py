"""Every size argument of `banco` has a ceiling: at it the command accepts the argument, past it the
command refuses in one line with exit status 2 (the measurements: docs/systems.md and docs/simulator.md).

Acceptance at a ceiling is checked by parsing alone where running there takes seconds to a minute
(--coups, --shoes, --demo-days), by a run where it is cheap (--max-states, --tables, --shards)."""

import argparse

import pytest

from models.settings import DEFAULTS
from models.simulate.config import MAX_ADVANTAGE_SHOES, MAX_SHOES, MAX_TABLES
from models.systems import lab
from models.warehouse.shards import MAX_SHARDS
from pipelines.cli import build_parser
from pipelines.commands import simulate
from pipelines.commands.arguments import MAX_DEMO_DAYS
from tests.pipelines.test_cli_ingest import banco

SYSTEM = ("systems", "--system", "flat", "--bet", "banker")
SIMULATE = ("simulate", "--out", "never-written")
#: (the command's words, the argument, its ceiling)
CEILINGS = [
    (SYSTEM, "--coups", lab.MAX_COUPS),
    (SYSTEM, "--shoes", lab.MAX_SHOES),
    (SYSTEM, "--max-states", lab.MAX_STATES_CEILING),
    (("simulate", "--shoes", "1", "--out", "never-written"), "--tables", MAX_TABLES),
    (("simulate", "--shoes", "1", "--out", "never-written"), "--shards", MAX_SHARDS),
    (SIMULATE, "--shoes", MAX_SHOES),
    (("up",), "--demo-days", MAX_DEMO_DAYS),
    (("cluster", "up"), "--demo-days", MAX_DEMO_DAYS),
    (("cluster", "up"), "--shards", MAX_SHARDS),
]
NAMES = [f"{words[0]} {flag}" for words, flag, _ in CEILINGS]


def parse(*words) -> argparse.Namespace:
    return build_parser(DEFAULTS).parse_args(list(words))


def refused_in_one_line(result, *fragments: str) -> None:
    assert result.returncode == 2, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in result.stderr


@pytest.mark.parametrize(("words", "flag", "ceiling"), CEILINGS, ids=NAMES)
def test_the_ceiling_is_accepted(words, flag, ceiling):
    parsed = parse(*words, flag, str(ceiling))
    assert getattr(parsed, flag.lstrip("-").replace("-", "_")) == ceiling


@pytest.mark.parametrize(("words", "flag", "ceiling"), CEILINGS, ids=NAMES)
def test_past_the_ceiling_is_refused_in_one_line(words, flag, ceiling):
    result = banco(*words, flag, str(ceiling + 1))
    refused_in_one_line(result, f"argument {flag}: at most {ceiling:,}", "ceiling", f"got {ceiling + 1:,}")


def test_advantage_players_have_a_lower_ceiling_on_shoes(tmp_path):
    simulate.check_ceilings(parse(*SIMULATE, "--shoes", str(MAX_ADVANTAGE_SHOES), "--advantage-share", "1"))
    simulate.check_ceilings(parse(*SIMULATE, "--shoes", str(MAX_SHOES)))  # none: the plain ceiling
    out = tmp_path / "out"
    result = banco("simulate", "--shoes", str(MAX_ADVANTAGE_SHOES + 1), "--advantage-share", "0.01", "--out", str(out))
    refused_in_one_line(result, f"at most {MAX_ADVANTAGE_SHOES:,} with advantage players")
    assert not out.exists()


def test_the_exact_chain_runs_at_its_ceiling_on_live_pairs():
    result = banco(*SYSTEM, "--max-states", str(lab.MAX_STATES_CEILING), "--coups", "30")
    assert result.returncode == 0, result.stderr
    assert "expected result" in result.stdout


def test_the_simulator_runs_at_its_ceilings_on_tables_and_shards(tmp_path):
    result = banco("simulate", "--shoes", "2", "--no-bets", "--no-table-events", "--tables", str(MAX_TABLES),
                   "--shards", str(MAX_SHARDS), "--out", str(tmp_path))  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "simulated 2 shoes" in result.stdout


def test_amounts_past_the_chains_whole_ticks_are_refused_in_one_line():
    result = banco(*SYSTEM, "--bankroll", "1e30")
    refused_in_one_line(result, "too large for these settings", "64-bit", "--shoes N")
