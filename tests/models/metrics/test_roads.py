"""The roads of a hand-worked shoe, cell by cell."""

import random

import pytest

from models.metrics.roads import DERIVED, ask, bead_plate, big_road_columns, derived, place, roads

SHOE = list("BBBPPBTBPPPPPPPB")


def test_bead_plate_fills_columns_of_six_with_ties():
    cells = bead_plate(SHOE)
    assert cells[:7] == [(0, 0, "B", 0), (0, 1, "B", 0), (0, 2, "B", 0), (0, 3, "P", 0), (0, 4, "P", 0),
                         (0, 5, "B", 0), (1, 0, "T", 0)]  # fmt: skip
    assert len(cells) == 16 and cells[-1] == (2, 3, "B", 0)


def test_big_road_marks_ties_and_turns_into_a_dragon_tail():
    cells = roads(SHOE).big_road
    assert cells == [
        (0, 0, "B", 0), (0, 1, "B", 0), (0, 2, "B", 0),
        (1, 0, "P", 0), (1, 1, "P", 0),
        (2, 0, "B", 1), (2, 1, "B", 0),  # the tie sits on the Banker before it
        (3, 0, "P", 0), (3, 1, "P", 0), (3, 2, "P", 0), (3, 3, "P", 0), (3, 4, "P", 0), (3, 5, "P", 0),
        (4, 5, "P", 0),  # the seventh Player turns right along the bottom row
        (4, 0, "B", 0),
    ]  # fmt: skip


def test_a_blocked_tail_turns_early():
    # a long Player column whose tail runs under the next columns, then a long Banker column that
    # meets that tail and turns right above it
    marks = [("P", 0)] * 8 + [("B", 0)] * 7
    cells = place(marks)
    assert cells[6:8] == [(1, 5, "P", 0), (2, 5, "P", 0)]
    assert cells[8:] == [(1, 0, "B", 0), (1, 1, "B", 0), (1, 2, "B", 0), (1, 3, "B", 0), (1, 4, "B", 0),
                         (2, 4, "B", 0), (3, 4, "B", 0)]  # fmt: skip


def test_leading_ties_sit_on_the_first_decision():
    assert big_road_columns(list("TTBP"))[0] == [("B", 2)]


def test_derived_roads_by_hand():
    columns = big_road_columns(SHOE)
    assert "".join(derived(columns, 1)) == "RBRRRBRRRRB"
    assert "".join(derived(columns, 2)) == "RBRBRRRRB"
    assert "".join(derived(columns, 3)) == "RRBRRRB"


def test_derived_roads_are_laid_out_like_the_big_road():
    road = roads(SHOE).big_eye_boy
    assert road[:4] == [(0, 0, "R", 0), (1, 0, "B", 0), (2, 0, "R", 0), (2, 1, "R", 0)]


def grid(outcomes: str, width: int) -> list[str]:
    """The big road drawn as text rows, as PyBaccarat's scoreboard prints it."""
    rows = [[" "] * width for _ in range(6)]
    for column, row, mark, _ in roads(outcomes).big_road:
        rows[row][column] = mark
    return ["".join(row).rstrip() for row in rows]


def test_big_road_standard_placement_of_a_tail_under_a_tail():
    # checked by hand against PyBaccarat's test_91176_slide (fulkgl/PyBaccarat, tests/test_scoreboard.py):
    # nine Players tail along the bottom, seven Bankers meet that tail and turn at row 5, seven Players
    # then meet the Bankers' tail and turn at row 4
    assert grid("PPPPPPPPPBPBBBBBBBPPPPPPP", 8) == ["PBPBP", "P  BP", "P  BP", "P  BPPPP", "P  BBB", "PPPP"]


# Hand-checked cases in the standard convention (logical big-road columns, ties ignored), from the
# peers' fixtures where they hold it: (shoe so far, road, the mark a Banker would add, a Player's).
# zliu53468-ai/BBB: BPB red, BPP blue, BBPP red on the big eye boy; BPBP starts the small road only.
# chan9310299-hub/CASINO-PRO-AI-V8 (its tie-free cases): PBPBBB small road RBR, BBPPBPBPBPBP cockroach BBRRRR.
ASK_CASES = [
    ("BP", "big_eye_boy", "R", "B"),
    ("BBP", "big_eye_boy", "B", "R"),
    ("BPB", "small_road", "B", "R"),
    ("BPB", "cockroach_pig", None, None),
    ("PBPBB", "small_road", "R", "B"),
    ("BBPPB", "cockroach_pig", None, None),
    ("BBPPBP", "cockroach_pig", "B", "R"),
    ("B", "big_eye_boy", None, None),
    ("", "big_eye_boy", None, None),
]


@pytest.mark.parametrize(("shoe", "road", "banker", "player"), ASK_CASES)
def test_ask_cells_by_hand(shoe, road, banker, player):
    assert ask(shoe)[road] == {"B": banker, "P": player}


def test_ask_cells_are_the_mark_the_next_coup_adds_on_random_shoes():
    rng = random.Random(22)
    for _ in range(60):
        shoe = rng.choices("BPT", weights=(46, 45, 9), k=rng.randrange(0, 90))
        for cut in range(len(shoe) + 1):
            cells, before = ask(shoe[:cut]), big_road_columns(shoe[:cut])
            for name, back in DERIVED.items():
                for side in "BP":
                    marks, after = derived(before, back), derived(big_road_columns([*shoe[:cut], side]), back)
                    assert after[: len(marks)] == marks  # a coup only ever adds a mark at the end
                    assert cells[name][side] == (after[-1] if len(after) > len(marks) else None)
                banker, player = cells[name]["B"], cells[name]["P"]
                # a road adds a mark for both sides or for neither, and never the same mark
                assert (banker is None) == (player is None) and (banker is None or banker != player)


def test_a_tie_adds_no_mark_so_asking_after_it_is_asking_after_the_last_decision():
    # CASINO-PRO-AI-V8 marks its big eye boy on the tie of PBT; the standard road, and ours, does not
    assert "".join(derived(big_road_columns("PBT"), 1)) == ""
    assert ask("PBT") == ask("PB") and ask("BTPTT") == ask("BP") and ask("TT") == ask("")
    assert [derived(big_road_columns("BTPB"), k) for k in (1, 2, 3)] == [["R"], [], []]  # as BPB: zliu53468-ai/BBB
