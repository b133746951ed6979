"""A benchmark run on an earlier revision and on the working tree, one after the other on the same
machine, and the two tables printed side by side: how a change's figures are compared.

Run as `python -m benchmarks.side_by_side NAME REVISION` (what `banco bench NAME --against REVISION` does)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.report import RESULTS

ROOT = Path(__file__).resolve().parents[1]


def run_in(tree: Path, name: str) -> dict:
    """Run benchmarks/bench_NAME.py of `tree` in a process of its own; its saved results."""
    subprocess.run(
        [sys.executable, "-m", f"benchmarks.bench_{name}"],
        cwd=tree,
        env={**_environ(), "PYTHONPATH": str(tree)},
        check=True,
    )
    return json.loads((tree / "benchmarks" / "results" / f"{name}.json").read_text())


def _environ() -> dict:
    return {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}


def compare(name: str, revision: str) -> Path:
    """Benchmark `name` at `revision` (a git worktree in a temporary folder), then here; prints
    both and saves them as benchmarks/results/NAME.against.json."""
    with tempfile.TemporaryDirectory(prefix="banco-bench-") as tmp:
        tree = Path(tmp) / "tree"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), revision], check=True)
        try:
            (tree / "data").mkdir(exist_ok=True)
            before = run_in(tree, name)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False)
    after = run_in(ROOT, name)
    rows = {_key(row): row for row in before["rows"]}
    print(f"\n{after['title']}: {revision} beside the working tree")
    print(f"{'case':<50}{revision[:12]:>14}{'now':>12}  unit")
    for row in after["rows"]:
        old = rows.get(_key(row), {}).get("measured", float("nan"))
        print(f"{row['case']:<50}{old:>14.4g}{row['measured']:>12.4g}  {row['unit']}")
    saved = RESULTS / f"{name}.against.json"
    saved.write_text(json.dumps({"revision": revision, "before": before, "after": after}, indent=2))
    print(f"saved {saved}")
    return saved


def _key(row: dict) -> str:
    """What matches a row across revisions: its key where it has one (its case names a size the data
    decides, or repeats another's), else its case."""
    return row.get("key") or row["case"]


if __name__ == "__main__":
    compare(sys.argv[1], sys.argv[2])
