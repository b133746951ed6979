"""`python3 dev.py screenshots` (`python -m dashboards.screenshots`): run on the tests' warehouse, in a real
headless Chromium, it writes one whole-page PNG per page, 1440 px wide, small enough for the docs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from dashboards import screenshots
from dashboards.pages import PAGES

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_command_writes_a_png_of_every_page(warehouse, tmp_path):
    out = tmp_path / "images"
    done = subprocess.run(
        [sys.executable, "-m", "dashboards.screenshots", "--db", str(warehouse), "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert sorted(path.name for path in out.iterdir()) == sorted(f"{Path(name).stem}.png" for name, _, _ in PAGES)
    for path in out.iterdir():
        with Image.open(path) as image:
            assert image.format == "PNG" and image.width == screenshots.WIDTH, path.name
            assert image.height >= 900, path.name  # the whole page, not a window's worth cut at the fold
            assert len(image.getcolors(screenshots.COLOURS) or ()) > 8, path.name  # a page drawn, not a blank
        assert 10_000 < path.stat().st_size < 400_000, path.name


def test_a_missing_warehouse_is_one_line_naming_the_command(tmp_path, capsys):
    assert screenshots.main(["--db", str(tmp_path / "none.duckdb"), "--out", str(tmp_path / "images")]) == 2
    assert "run `banco up`" in capsys.readouterr().err
    assert not (tmp_path / "images").exists()
