"""The compiled proof that a batch holds no natural key twice, against a plain twin."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from models.warehouse.duplicates import _in_round_order
from models.warehouse.staging import with_shoe_key


def in_round_order_naively(shoes: list[str], rounds: list[int]) -> bool:
    """Each shoe's rows together, its rounds rising, as a person would check it."""
    finished, current, last = set(), None, None
    for shoe, round_no in zip(shoes, rounds, strict=True):
        if shoe == current:
            if round_no <= last:
                return False
        else:
            if shoe in finished:
                return False
            if current is not None:
                finished.add(current)
            current = shoe
        last = round_no
    return bool(shoes)


def batch(shoes: list[str], rounds: list[int]) -> pl.DataFrame:
    frame = pl.DataFrame(
        {"table_id": "T1", "shoe_id": shoes, "round_no": rounds}, schema_overrides={"round_no": pl.Int32}
    )
    return with_shoe_key(frame)


@pytest.mark.parametrize("seed", range(200))
def test_the_compiled_check_agrees_with_the_plain_one_and_proves_every_key_unique(seed):
    rng = np.random.default_rng(seed)
    shoes = [f"S{s}" for s in np.repeat(rng.integers(0, 4, size=rng.integers(1, 6)), rng.integers(1, 6))]
    rounds = [int(r) for r in rng.integers(1, 12, size=len(shoes))]
    if seed % 2:  # half in true round order, where the fast answer must be yes
        order = sorted(range(len(shoes)), key=lambda i: (shoes[i], rounds[i]))
        shoes, rounds = [shoes[i] for i in order], [rounds[i] + i for i in order]
    frame = batch(shoes, rounds)
    fast = _in_round_order(frame)
    assert fast == in_round_order_naively(shoes, rounds)
    if fast:
        assert frame.select("shoe_id", "round_no").is_unique().all()


def test_a_shoe_that_comes_back_or_a_round_met_again_is_not_in_order():
    assert _in_round_order(batch(["A", "A", "B", "B"], [1, 2, 1, 2]))
    assert not _in_round_order(batch(["A", "B", "A"], [1, 1, 2]))
    assert not _in_round_order(batch(["A", "A"], [2, 2]))
    assert not _in_round_order(batch([], []))
