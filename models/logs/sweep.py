"""Plain rows at machine speed: one compiled pass over the hands as Arrow holds them.

Nearly every row of a real log is plain: canonical card tokens (`AH KD 5C`, `K Q`, `0 5`), two or
three cards a hand, draws by the tableau, an outcome that agrees with the cards. `sweep` reads such
hands straight from Arrow's string views and gives each row's cards, totals and outcomes, and marks
the rows it cannot vouch for; those go through the full checks of `models/logs/checks.py`, which
name the reason. The tableau is the lookup built from the one rules function (`rules.violations`),
the card codes are those of `hands`; tests hold the two paths to the same result on every row.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from models.game.outcome import compiled_outcome_code, compiled_settled_on_natural
from models.logs import hands
from models.logs.arrow_text import length
from models.logs.rules import AXES, NO_THIRD, violations

MAX_CARDS = hands.MAX_CARDS
#: Columns of `sweep`'s facts, -1 where null: totals of the three hands, the outcome of each player
#: hand against the banker total it meets (0 B, 1 P, 2 T; `settled_on_natural`), natural, and each
#: first hand's pair (0 no, 1 yes).
FACTS = ("player_total", "banker_total", "player2_total", "outcome", "outcome2", "natural",
         "player_pair", "banker_pair", "player_count", "banker_count", "player2_count")  # fmt: skip


def _byte_table(mapping: dict[str, int]) -> np.ndarray:
    """A lookup by byte: the mapping's value, or -1."""
    table = np.full(256, -1, np.int8)
    for symbol, value in mapping.items():
        table[ord(symbol)] = value
    return table


#: By first byte of a canonical token: point value, rank index; by second byte: suit index.
VALUE_OF = _byte_table(hands.VALUES)
RANK_OF = _byte_table(hands.RANK_INDEX)
SUIT_OF = _byte_table(hands.SUIT_INDEX)
SPACE = ord(" ")


@njit(cache=True, inline="always")
def _read_hand(view, cards, row, first_slot, value_of, rank_of, suit_of) -> int:
    """Parse a canonical hand from its view into `cards[slot*3 + (value, rank, suit), row]`; the
    number of cards, or -1 when the text is not canonical tokens one space apart."""
    size = length(view)
    if size == 0 or size > 12:
        return -1  # a canonical hand of three cards has at most 8 bytes
    count, pos = 0, 4
    end = 4 + size
    while pos < end:
        if count == MAX_CARDS:
            return -1
        value = value_of[view[pos]]
        if value < 0:
            return -1
        slot = (first_slot + count) * 3
        cards[slot, row] = value
        cards[slot + 1, row] = rank_of[view[pos]]
        pos += 1
        if pos < end and view[pos] != SPACE:
            suit = suit_of[view[pos]]
            if suit < 0 or view[pos - 1] == 48 or view[pos - 1] == 49:  # `0` and `1` take no suit
                return -1
            cards[slot + 2, row] = suit
            pos += 1
        count += 1
        if pos < end:
            if view[pos] != SPACE or pos + 1 == end:
                return -1
            pos += 1
    return count


@njit(cache=True, inline="always")
def _total(cards, row, first_slot, count) -> int:
    total = 0
    for k in range(count):
        total += cards[(first_slot + k) * 3, row]
    return total % 10


@njit(cache=True, inline="always")
def _pair(cards, row, first_slot) -> int:
    """1 or 0 when the first two cards' ranks tell; 0 when their values differ; else -1 (unknown)."""
    a, b = first_slot * 3, (first_slot + 1) * 3
    if cards[a, row] != cards[b, row]:
        return 0
    if cards[a + 1, row] < 0 or cards[b + 1, row] < 0:
        return -1
    return 1 if cards[a + 1, row] == cards[b + 1, row] else 0


@njit(cache=True, inline="always")
def _breaks_tableau(bad_case, game, player_two, third, banker_two, banker_drew) -> bool:
    """The lookup of `bad_cases` at one case: the player's two-card total and third card
    (`NO_THIRD` when it stood), the banker's two-card total and whether it drew."""
    return bad_case[(((game * AXES[1] + player_two) * AXES[2] + third) * AXES[3] + banker_two) * AXES[4] + banker_drew]


@njit(cache=True)
def sweep(player, banker, player2, has_player, has_banker, has_player2, game, banque, logged, bad_case):
    """Per row: `plain` (the row's hands and outcome are vouched for), the cards (value, rank, suit
    for nine slots: player, banker, second player; -1 where none) and the facts (`FACTS`), each a row
    of the arrays returned.

    `game` is each row's game index (-1: not plain), `banque` the index of baccarat_banque,
    `logged` the logged outcome (0 B, 1 P, 2 T, -1 none, -2 not plain), `bad_case` the tableau
    lookup (True where the draws break it).
    """
    n = player.shape[0]
    plain = np.zeros(n, np.bool_)
    cards = np.full((27, n), -1, np.int8)
    facts = np.full((len(FACTS), n), -1, np.int8)
    for i in range(n):
        g, said = game[i], logged[i]
        if g < 0 or said == -2:
            continue
        if not has_player[i] and not has_banker[i]:  # outcome only
            plain[i] = said >= 0 and not has_player2[i]
            facts[3, i] = said
            facts[8:11, i] = 0
            continue
        if not (has_player[i] and has_banker[i]) or has_player2[i] != (g == banque):
            continue
        pc = _read_hand(player[i], cards, i, 0, VALUE_OF, RANK_OF, SUIT_OF)
        bc = _read_hand(banker[i], cards, i, 3, VALUE_OF, RANK_OF, SUIT_OF)
        qc = _read_hand(player2[i], cards, i, 6, VALUE_OF, RANK_OF, SUIT_OF) if has_player2[i] else 0
        if pc < 2 or bc < 2 or (has_player2[i] and qc < 2):
            continue
        player_two, banker_two = _total(cards, i, 0, 2), _total(cards, i, 3, 2)
        third = cards[6, i] if pc == 3 else NO_THIRD
        if _breaks_tableau(bad_case, g, player_two, third, banker_two, bc == 3):
            continue
        p, b = _total(cards, i, 0, pc), _total(cards, i, 3, bc)
        outcome = compiled_outcome_code(p, banker_two if compiled_settled_on_natural(p, pc == 3) else b)
        if said >= 0 and said != outcome:
            continue
        if qc:
            third2 = cards[24, i] if qc == 3 else NO_THIRD
            if _breaks_tableau(bad_case, g, _total(cards, i, 6, 2), third2, banker_two, False):  # banker judged once
                continue
            q = _total(cards, i, 6, qc)
            facts[2, i] = q
            facts[4, i] = compiled_outcome_code(q, banker_two if compiled_settled_on_natural(q, qc == 3) else b)
        plain[i] = True
        facts[0, i], facts[1, i], facts[3, i] = p, b, outcome
        facts[5, i] = pc == 2 and bc == 2 and max(player_two, banker_two) >= 8
        facts[6, i], facts[7, i] = _pair(cards, i, 0), _pair(cards, i, 3)
        facts[8, i], facts[9, i], facts[10, i] = pc, bc, qc
    return plain, cards, facts


def bad_cases() -> np.ndarray:
    """The tableau lookup as booleans: True for every case whose draws break the tableau."""
    return violations().is_not_null().to_numpy()
