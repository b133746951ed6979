"""`banco games solve` as a user runs it: the installed console script in a subprocess."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BANCO = shutil.which("banco") or str(Path(sys.executable).with_name("banco"))


def banco(*args):
    return subprocess.run([BANCO, *args], capture_output=True, text=True, timeout=120)


def test_json_has_kemeny_and_snells_solution():
    result = banco("games", "solve", "--game", "chemin_de_fer", "--model", "A1", "--json")
    assert result.returncode == 0, result.stderr
    solved = json.loads(result.stdout)
    assert solved["player"] == [{"hand": "5", "total": 5, "draw": 9 / 11, "exact": "9/11"}]
    assert solved["mixed"]["banker"] == [{"hand": "6", "column": "stood", "draw": 859 / 2288, "exact": "859/2288"}]
    assert solved["decks"] == "inf" and solved["equilibria_found"] == 1
    assert solved["player_value"] == pytest.approx(-0.0128, abs=5e-5)


def test_tables_a_player_could_carry():
    result = banco("games", "solve", "--model", "B3", "--decks", "8", "--commission", "0.05")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "model B3 · 8 decks · commission 0.05" in out
    assert "1+4   draw with p = " in out and "2+3   stand" in out
    assert "  0+6" in out and "stood" in out and "Player's expectation -0.0128" in out


def test_baccarat_banque_at_even_stakes_draws_on_5_as_kemeny_and_snell():
    result = banco("games", "solve", "--game", "baccarat_banque", "--theta", "1/2", "--json")
    assert result.returncode == 0, result.stderr
    solved = json.loads(result.stdout)
    assert solved["game"] == "baccarat_banque" and solved["theta"] == "1/2"
    assert set(solved["solutions"]) >= {"nash"} and "project_default" in solved
    shown = banco("games", "solve", "--game", "baccarat_banque")  # theta 1/2 by default, as tables
    assert "Player 1 draws on 5 with probability 9/11" in shown.stdout and "banker 4:" in shown.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--model", "A1", "--decks", "6"], "model A1 deals from an endless shoe"),
        (["--model", "B4"], "invalid choice: 'B4'"),
        (["--decks", "9"], "at most 8"),
        (["--commission", "0.2"], "commission must be from 0 to 0.1"),
        (["--commission", "x"], "not a number"),
        (["--game", "banco"], "invalid choice: 'banco'"),
        (["--game", "baccarat_banque", "--theta", "1"], "strictly between 0 and 1"),
        (["--game", "baccarat_banque", "--theta", "1/0"], "not a share"),
    ],
)
def test_mistakes_are_one_line(args, message):
    result = banco("games", "solve", *args)
    assert result.returncode == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
