"""The scoreboard roads of a shoe: bead plate, big road and the three derived roads.

Each road is a list of cells `(column, row, mark, ties)` ready to draw on a grid six rows high.
The derived roads (big eye boy, small road, cockroach pig) read the big road's columns with the
standard comparison rules, looking back 1, 2 and 3 columns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

ROWS = 6
RED, BLUE = "R", "B"
Cell = tuple[int, int, str, int]  # column, row, mark, ties on it


@dataclass(frozen=True)
class Roads:
    bead_plate: list[Cell]
    big_road: list[Cell]
    big_eye_boy: list[Cell]
    small_road: list[Cell]
    cockroach_pig: list[Cell]


def bead_plate(outcomes: Sequence[str]) -> list[Cell]:
    """Every coup in order, ties included, down columns of six."""
    return [(i // ROWS, i % ROWS, outcome, 0) for i, outcome in enumerate(outcomes)]


def place(marks: Sequence[tuple[str, int]]) -> list[Cell]:
    """Lay marks out as a big road: a new column when the mark changes, down to the sixth row or
    the first occupied cell, then right along that row (the dragon tail)."""
    cells: list[Cell] = []
    occupied: set[tuple[int, int]] = set()
    start_column, column, row, turned, previous = -1, 0, 0, False, None
    for mark, ties in marks:
        if mark != previous:
            start_column += 1
            while (start_column, 0) in occupied:  # a tail that turned on the top row
                start_column += 1
            column, row, turned = start_column, 0, False
        elif not turned and row + 1 < ROWS and (column, row + 1) not in occupied:
            row += 1
        else:
            turned, column = True, column + 1
        occupied.add((column, row))
        cells.append((column, row, mark, ties))
        previous = mark
    return cells


def big_road_columns(outcomes: Sequence[str]) -> list[list[tuple[str, int]]]:
    """The big road's logical columns: runs of Banker or Player, each mark with the ties after it
    (ties before the first decision sit on the first mark)."""
    columns: list[list[tuple[str, int]]] = []
    leading_ties = 0
    for outcome in outcomes:
        if outcome == "T":
            if columns:
                mark, ties = columns[-1][-1]
                columns[-1][-1] = (mark, ties + 1)
            else:
                leading_ties += 1
            continue
        if not columns or columns[-1][0][0] != outcome:
            columns.append([])
        columns[-1].append((outcome, leading_ties))
        leading_ties = 0
    return columns


def derived(columns: list[list[tuple[str, int]]], back: int) -> list[str]:
    """Red/blue marks of a derived road looking `back` columns (1 big eye boy, 2 small road, 3
    cockroach pig): a new column is red when the two columns before it are as long as each other;
    a mark further down is red unless the column `back` to the left ends exactly one row above."""
    marks = []
    for c, column in enumerate(columns):
        for r in range(len(column)):
            if c < back or (c == back and r == 0):
                continue  # the road starts at column back+1 row 2, or column back+2 row 1
            if r == 0:
                same = len(columns[c - 1]) == len(columns[c - 1 - back])
                marks.append(RED if same else BLUE)
            else:
                marks.append(BLUE if len(columns[c - back]) == r else RED)
    return marks


def roads(outcomes: Sequence[str]) -> Roads:
    """All five roads of a shoe from its outcomes ('B', 'P', 'T') in order."""
    columns = big_road_columns(outcomes)
    flat = [mark for column in columns for mark in column]
    return Roads(
        bead_plate=bead_plate(outcomes),
        big_road=place(flat),
        big_eye_boy=place([(mark, 0) for mark in derived(columns, 1)]),
        small_road=place([(mark, 0) for mark in derived(columns, 2)]),
        cockroach_pig=place([(mark, 0) for mark in derived(columns, 3)]),
    )


#: The derived roads by name, with how many columns back each looks.
DERIVED = {"big_eye_boy": 1, "small_road": 2, "cockroach_pig": 3}


def ask(outcomes: Sequence[str]) -> dict[str, dict[str, str | None]]:
    """The ask cells (問路): the mark each derived road would add if the next coup were Banker, and if
    it were Player, found by appending the coup and recomputing the road (None: no mark added yet).
    A tie adds no mark to a derived road, so after a tie the cells are those of the last decision."""
    before = big_road_columns(outcomes)
    cells: dict[str, dict[str, str | None]] = {name: {} for name in DERIVED}
    for side in ("B", "P"):
        after = big_road_columns([*outcomes, side])
        for name, back in DERIVED.items():
            old, new = derived(before, back), derived(after, back)
            cells[name][side] = new[-1] if len(new) > len(old) else None
    return cells
