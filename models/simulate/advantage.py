"""Advantage players: their kinds, the counts they keep and when they bet (docs/simulator.md, sources).

The compiled kernel (models/simulate/kernels.py) plays them; this module holds the named constants it
is handed and a plain-Python twin of the counters' true count for the tests. A counter sees every
card dealt in the coups of the shoe so far; the burned cards are unseen, so they count as left.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from models.game.cards import RANKS

ADVANTAGE_KINDS = ("dragon7_counter", "panda8_counter", "perfect_player", "wonger")
#: Players who play the free draws their own way (strategies.py), regulars of the games with them who
#: take the Player hand there (seating.py, kernels.py); elsewhere they bet as anyone.
STRATEGY_KINDS = ("draws_on_5", "stands_on_5", "equilibrium_player")
KINDS = ("ordinary", *ADVANTAGE_KINDS, *STRATEGY_KINDS)
ORDINARY, DRAGON7_COUNTER, PANDA8_COUNTER, PERFECT_PLAYER, WONGER, DRAWS_ON_5, STANDS_ON_5, EQUILIBRIUM_PLAYER = range(
    len(KINDS)
)

#: Eliot Jacobson's Dragon 7 count, tags for A, 2, ..., 9, T (ten-value cards: T, J, Q, K).
DRAGON7_TAGS = (0, 0, 0, -1, -1, -1, -1, 2, 2, 0)
#: The Panda 8 count Jacobson simulates (Shackleford's, Wizard of Odds), tags for A, 2, ..., 9, T.
PANDA8_TAGS = (1, 1, -2, -2, -2, -1, -1, -2, 4, 1)
#: True counts at which each bet turns in the player's favour: bet when the true count reaches them.
DRAGON7_THRESHOLD = 4
PANDA8_THRESHOLD = 11
#: The wonger bets only once this share of the shoe's cards is left (Zender: the shoe's last part).
WONGER_LAST_PART = 0.2

#: Rows of the kernel's tags array, and slots of its thresholds array.
DRAGON7_ROW, PANDA8_ROW = 0, 1
DRAGON7_AT, PANDA8_AT, WONGER_PART = range(3)


def rank_tags(tags: tuple[int, ...]) -> np.ndarray:
    """A count's tags for the 13 ranks A..K (the sources give A..9 and one tag for the ten-values)."""
    return np.array([*tags[:9], *(tags[9],) * 4], np.int64)


def kernel_counts() -> tuple[np.ndarray, np.ndarray]:
    """(tags by count row and rank, thresholds by slot) as deal_table_days reads them."""
    tags = np.stack([rank_tags(DRAGON7_TAGS), rank_tags(PANDA8_TAGS)])
    thresholds = np.array([DRAGON7_THRESHOLD, PANDA8_THRESHOLD, WONGER_LAST_PART], np.float64)
    return tags, thresholds


def running_count(tags: tuple[int, ...], ranks_seen: Iterable[str]) -> int:
    """The running count of the cards seen, given by rank letter (A23456789TJQK)."""
    by_rank = rank_tags(tags)
    return int(sum(by_rank[RANKS.index(rank)] for rank in ranks_seen))


def true_count(tags: tuple[int, ...], ranks_seen: Iterable[str], decks: int) -> float:
    """Running count per deck left: the cards not yet seen, burned ones included, over 52."""
    seen = list(ranks_seen)
    return running_count(tags, seen) * 52 / (decks * 52 - len(seen))


def reaches(running: int, cards_left: int, threshold: float) -> bool:
    """True count >= threshold, compared without division as the kernel does (running x 52 against
    threshold x cards left), so that the twin and the kernel agree to the last card."""
    return running * 52 >= threshold * cards_left


def in_last_part(cards_left: int, shoe_cards: int, part: float = WONGER_LAST_PART) -> bool:
    """Whether the shoe is in its last `part` of cards (the wonger's window)."""
    return cards_left <= part * shoe_cards
