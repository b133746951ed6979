"""Progress bars on a terminal for the long commands, and nothing in a pipe or under --json.

Rich is imported only when a bar is drawn, so `banco --help` stays light. The bars go to stderr and
vanish when the step ends (transient); what a command prints on stdout is unchanged: printed while a
bar is up on a terminal, it goes to the terminal above the bar.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from models.progress import Progress, quiet

__all__ = ["Progress", "bars", "shown"]


def shown(json: bool = False) -> bool:
    """Whether to draw progress: stderr is a terminal and the output is not for a machine."""
    return not json and sys.stderr.isatty()


@contextmanager
def bars(json: bool = False) -> Iterator[Progress]:
    """A `Progress` that draws each stage as a bar on stderr while the block runs (the stage before
    it hidden), when `shown(json)`; else `quiet`."""
    if not shown(json):
        yield quiet
        return
    from rich.console import Console
    from rich.progress import BarColumn, SpinnerColumn, TaskProgressColumn, TextColumn, TimeElapsedColumn
    from rich.progress import Progress as Bars

    columns = (
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        TaskProgressColumn(),  # the percentage, none for a stage of unknown length
        TextColumn("{task.fields[count]}"),
        TimeElapsedColumn(),
        TextColumn("{task.fields[detail]}"),
    )
    # stdout is drawn through the bar's console only when it shares the terminal: in a pipe, untouched
    redirect = sys.stdout.isatty()
    with Bars(*columns, console=Console(stderr=True), transient=True, redirect_stdout=redirect) as drawn:
        tasks: dict[str, object] = {}

        def report(stage: str, done: float, total: float | None = None, detail: str = "") -> None:
            count = "" if total is None else f"{done:,.0f}/{total:,.0f}"
            if stage not in tasks:
                for task in tasks.values():
                    drawn.update(task, visible=False)
                tasks[stage] = drawn.add_task(stage, total=total, completed=done, detail=detail, count=count)
            drawn.update(tasks[stage], completed=done, total=total, detail=detail, count=count)

        yield report
