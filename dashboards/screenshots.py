"""The docs' screenshots, taken anew: `python3 dev.py screenshots` serves the dashboard on a warehouse (the demo
month of `banco up` unless --db names another), opens every page in headless Chromium 1440 px wide and
writes the whole page to docs/images/NAME.png (--out for another folder)."""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from dashboards.browser import chromium, free_port, running, settled
from dashboards.pages import PAGES
from models.access import users
from models.settings import DEFAULT_DB

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "images"
WIDTH = 1440
ERRORS = '[data-testid="stException"], [data-testid="stAlertContentError"]'
#: A page holds few colours: kept to this many, its PNG shrinks to 40 % (Surveillance: 600 to 240 KB), same to the eye.
COLOURS = 256


@contextlib.contextmanager
def served(db: Path) -> Iterator[str]:
    """`banco dashboard` on `db`, on a free loopback port and without sign-in whatever this shell configures
    (no users file, and a folder without secrets.toml as its home and working folder): its URL."""
    port = free_port()
    argv = [sys.executable, "-m", "pipelines.cli", "dashboard", "--db", str(db.resolve()), "--port", str(port)]
    env = {key: value for key, value in os.environ.items() if key != users.SETTING}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))  # this checkout's code
    with tempfile.TemporaryDirectory(prefix="banco-screenshots-") as folder:
        env["HOME"] = folder
        with running(argv, env, port, Path(folder) / "server.log", cwd=Path(folder)) as (url, _):
            yield url


def whole(page, path: Path) -> None:
    """The whole page as a PNG at `path`: the window made as tall as the page first (Streamlit scrolls its
    main block inside the window, so a full-page screenshot alone stops at the window's bottom)."""
    height = page.evaluate("document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    page.set_viewport_size({"width": page.viewport_size["width"], "height": height})
    settled(page)
    page.wait_for_timeout(1_000)  # the charts redraw for the new size once the run is over
    from PIL import Image  # Streamlit's own dependency

    shot = Image.open(io.BytesIO(page.screenshot(full_page=True)))
    shot.convert("RGB").quantize(COLOURS, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)


def take(db: Path, out: Path, width: int = WIDTH) -> list[Path]:
    """A PNG of every page of the dashboard on `db`, `width` px wide, written to `out`: their paths."""
    if not db.exists():
        raise FileNotFoundError(f"no warehouse at {db}: run `banco up` (or give --db)")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with served(db) as url, chromium() as browser:
        page = browser.new_page(viewport={"width": width, "height": 900})
        for index, (name, title, _) in enumerate(PAGES):
            stem = name.removesuffix(".py")
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(f"{url}/{stem if index else ''}")  # the first page is the default, at /
            page.wait_for_selector(f"h1:has-text('{title}')", timeout=60_000)
            settled(page)
            if page.locator(ERRORS).count():
                raise RuntimeError(f"{title} shows an error: {page.locator(ERRORS).first.inner_text()}")
            whole(page, out / f"{stem}.png")
            written.append(out / f"{stem}.png")
        page.close()
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="dev.py screenshots", description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, default=ROOT / DEFAULT_DB, help="warehouse file (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=OUT, help="folder for the PNGs (default: %(default)s)")
    args = parser.parse_args(argv)
    try:
        for path in take(args.db, args.out):
            print(f"{path} ({path.stat().st_size // 1024} KB)")
    except (FileNotFoundError, RuntimeError) as error:
        print(f"screenshots: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
