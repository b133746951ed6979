"""The information models of Chemin de Fer: what each side sees of its own two cards.

A1: an endless shoe, each side sees its total (Kemeny and Snell 1957). B2: d decks without
replacement, Banker sees his two-card composition, Player his total (Downton and Lockwood 1975).
B3: both see their compositions (Ethier and Gamez 2013). B2 and B3 with an endless shoe are the
papers' d = infinity.
"""

from __future__ import annotations

from enum import StrEnum

#: Two-card compositions as (low value, high value), 0 for a ten or face card.
COMPOSITIONS = tuple((low, high) for low in range(10) for high in range(low, 10))
#: Column of a Banker information set when Player stood (columns 0..9 are his third card).
STOOD = 10
COLUMNS = 11


class Model(StrEnum):
    A1 = "A1"
    B2 = "B2"
    B3 = "B3"

    @classmethod
    def parse(cls, name: str) -> Model:
        try:
            return cls(name.strip().upper())
        except ValueError:
            raise ValueError(f"unknown model {name!r}: choose one of A1, B2, B3") from None

    @property
    def banker_sees_composition(self) -> bool:
        return self is not Model.A1

    @property
    def player_sees_composition(self) -> bool:
        return self is Model.B3


def total(composition: tuple[int, int]) -> int:
    return sum(composition) % 10


def banker_rows(model: Model) -> tuple[tuple[int, int] | int, ...]:
    """Banker's two-card information, naturals excluded: totals 0..7 (A1) or the 44 compositions."""
    if not model.banker_sees_composition:
        return tuple(range(8))
    return tuple(sorted((c for c in COMPOSITIONS if total(c) <= 7), key=lambda c: (total(c), c)))


def player_sets(model: Model) -> tuple[tuple[int, int] | int, ...]:
    """Player's information sets with a choice: total 5, or (B3) its five compositions."""
    if not model.player_sees_composition:
        return (5,)
    return tuple(c for c in COMPOSITIONS if total(c) == 5)


def label(information: tuple[int, int] | int) -> str:
    """'5' for a total, '0+5' for a composition (0 standing for a ten or face card)."""
    return str(information) if isinstance(information, int) else f"{information[0]}+{information[1]}"
