"""The roads of a hand-worked shoe, cell by cell."""

from models.metrics.roads import bead_plate, big_road_columns, derived, place, roads

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
