"""`banco odds` as a user runs it: the installed console script in a subprocess."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BANCO = shutil.which("banco") or str(Path(sys.executable).with_name("banco"))


def banco(*args):
    return subprocess.run([BANCO, *args], capture_output=True, text=True, timeout=120)


def test_json_has_the_eight_deck_figures():
    result = banco("odds", "--decks", "8", "--game", "punto_banco", "--json")
    assert result.returncode == 0, result.stderr
    odds = json.loads(result.stdout)
    assert odds["p_banker"] == pytest.approx(0.458597423, abs=1e-9)
    assert odds["p_player"] == pytest.approx(0.446246609, abs=1e-9)
    assert odds["p_tie"] == pytest.approx(0.095155968, abs=1e-9)
    assert len(odds["p_tie_by_total"]) == 10
    assert sum(odds["p_tie_by_total"]) == pytest.approx(odds["p_tie"], abs=1e-15)
    assert odds["edge"]["banker"] == pytest.approx(0.010579058, abs=1e-9)
    assert set(odds["edge"]) >= {"banker", "player", "tie", "player_pair", "dragon7", "egalite_9"}


@pytest.mark.slow
def test_pay_table_options():
    result = banco("odds", "--commission", "0.04", "--tie-pays", "9", "--json")
    odds = json.loads(result.stdout)
    assert odds["edge"]["banker"] == pytest.approx(0.005993084, abs=1e-9)
    assert odds["edge"]["tie"] == pytest.approx(0.048440320, abs=1e-9)
    super6 = json.loads(banco("odds", "--game", "super6", "--json").stdout)
    assert super6["edge"]["banker"] == pytest.approx(0.014581045, abs=1e-9)


def test_mid_shoe_odds_from_seen_cards():
    odds = json.loads(banco("odds", "--decks", "1", "--seen", "AH 2S 3D 4C", "--json").stdout)
    assert odds["cards"] == 48


def test_readable_table():
    result = banco("odds", "--decks", "6", "--game", "ez_baccarat")
    assert result.returncode == 0
    assert "no commission" in result.stdout
    assert "dragon7" in result.stdout and "Banker wins" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["odds", "--decks", "9"], "decks must be a whole number from 1 to 8"),
        (["odds", "--decks", "x"], "invalid int value"),
        (["odds", "--game", "bunco"], "unknown game 'bunco'"),
        (["odds", "--commission", "abc"], "not a number"),
        (["odds", "--commission", "2"], "commission must be a fraction"),
        (["odds", "--seen", "ZZ"], "bad card token 'ZZ'"),
        (["odds", "--decks", "1", "--seen", "AS 9H AS"], "AS seen 2 times, but a 1-deck shoe holds 1"),
        (["odds", "--punter-on-5", "sometimes"], "use draw, stand, mixed"),
        (["nonsense"], "invalid choice"),
    ],
)
def test_bad_arguments_give_one_line_and_non_zero_exit(args, message):
    result = banco(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_odds_asked_again_are_read_back_as_they_were_worked_out(tmp_path, monkeypatch, capsys):
    """The kept summary (beside the compiled kernels; here NUMBA_CACHE_DIR, a folder of the user's choosing)
    prints what working it out prints, is what a second run reads, and is keyed by every argument."""
    from pipelines.cli import main

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert main(["odds", "--decks", "6", "--json"]) == 0
    worked_out = capsys.readouterr().out
    (kept,) = (tmp_path / "odds").iterdir()
    assert main(["odds", "--decks", "6", "--json"]) == 0
    assert capsys.readouterr().out == worked_out
    doctored = json.loads(kept.read_text()) | {"p_banker": 0.5}
    kept.write_text(json.dumps(doctored))
    assert main(["odds", "--decks", "6", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["p_banker"] == 0.5
    assert main(["odds", "--decks", "6", "--json", "--tie-pays", "9"]) == 0
    assert json.loads(capsys.readouterr().out)["p_banker"] == json.loads(worked_out)["p_banker"]
    assert len(list((tmp_path / "odds").iterdir())) == 2
