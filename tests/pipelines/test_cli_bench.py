"""`banco bench`'s arguments: mistakes are one line and exit 2 before any benchmark starts."""

from __future__ import annotations

import pytest

from pipelines.cli import main


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["bench", "nosuch"], "unknown benchmark nosuch: choose from cli, dashboard, decisions, edges, ingest, marts"),
        (["bench", "odds", "--record"], "--record and --strict go with --quick"),
        (["bench", "--strict"], "--record and --strict go with --quick"),
        (["bench", "odds", "--quick", "--against", "HEAD"], "choose one"),
    ],
)
def test_a_mistake_is_one_line_and_exit_2(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("banco: error: ") and message in err and err.count("\n") == 1
