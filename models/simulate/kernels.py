"""Compiled shoe loops: an outcomes-only tally, and full shoes with cards, bets, pace and bank holders.

Each shoe draws from its own streams (`rng.seed_stream(seed, shoe, purpose)`): the cards stream
shuffles and plays mixed drawing choices, the population stream places bets, the pace stream times
the coups. A table-day's shoes are dealt in sequence, so each coup knows its time into the day and
who the day's seating (models/simulate/seating.py) has at the table then; table-days are dealt in
parallel (numba `prange`) into fixed per-shoe slots. At house-banked tables advantage players
(models/simulate/advantage.py) bet their side bets from the cards dealt so far in the shoe.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from models.game.bank import compiled_bank_passes
from models.game.cells import compiled_cell_index
from models.game.games import BankPassing
from models.game.outcome import BANKER_WINS, compiled_outcome_code
from models.odds.kernel import outcome_weights
from models.simulate.advantage import (
    DRAGON7_AT,
    DRAGON7_COUNTER,
    DRAGON7_ROW,
    DRAWS_ON_5,
    ORDINARY,
    PANDA8_AT,
    PANDA8_COUNTER,
    PANDA8_ROW,
    PERFECT_PLAYER,
    WONGER,
    WONGER_PART,
)
from models.simulate.dealing import (
    B1,
    CARD_SLOTS,
    CARD_VALUE,
    CUT_CARD_FROM_BACK,
    NO_CARD,
    P1,
    Q1,
    banker_faced,
    deal_coup,
    start_shoe,
)
from models.simulate.rng import CARDS, PACE, POPULATION, bounded, seed_stream, uniform
from models.simulate.strategies import PLAYS_EQUILIBRIUM

# How each game moves the bank (`Game.passing`), as the plain ints the kernel compiles in.
HOUSE_BANK, CHEMIN_DE_FER = int(BankPassing.HOUSE), int(BankPassing.CHEMIN_DE_FER)
BANQUE, ROTATING = int(BankPassing.BANQUE), int(BankPassing.ROTATING)
# Bet codes are indexes into models.game.paytable.BETS.
BANKER_BET, PLAYER_BET, TIE_BET, FIRST_SIDE_BET, PLAYER_PAIR_BET, BANKER_PAIR_BET = 0, 1, 2, 3, 3, 4
DRAGON7_BET, PANDA8_BET = 5, 6
RANK_COUNT = 13
SIDE_BETS = 14
MAX_SIDE_BETS_PER_SEAT = 2
BETS_PER_SEAT = 1 + MAX_SIDE_BETS_PER_SEAT
# Slots of the population parameters array.
(
    SEATS,
    BET_PROBABILITY,
    MIN_BET,
    MAX_BET,
    SIDE_MIN,
    SIDE_MAX,
    COUP_SECONDS,
    SHUFFLE_SECONDS,
    INITIAL_BANK,
    WITHDRAW,
    LEVY_PERCENT,
    SIDE_CUMULATIVE,
) = range(12)
# Columns of the players' habits array (players.Players.kernel_arrays).
HABIT_BANKER, HABIT_BANKER_OR_PLAYER, HABIT_SIDE_RATE = range(3)
POPULATION_SIZE = SIDE_CUMULATIVE + SIDE_BETS

SIDE_STAKES = np.array([1, 1, 1, 2, 2], np.int64)  # side-bet stakes, in table minimums
STAKE_SWING = np.array([1.0, 1.0, 1.0, 0.5, 2.0])


@njit(inline="always", cache=True)
def _last_coup(pos, cut, last):
    """True once the cut card has come out: before this coup's first card, or during the last."""
    return last or pos >= cut


@njit(parallel=True, cache=True)
def count_outcomes(seed, first_shoe, n_shoes, template, punter_draw, banker_draw, three_hands):
    """Banker, Player, Tie counts and cards dealt per shoe, cards never leaving the kernel.

    punter_draw (2, 10, 10) and banker_draw (10, 10, 12, 12): `strategies.Draws.fixed()`."""
    counts = np.zeros((n_shoes, 4), np.int64)
    n = template.shape[0]
    cut = n - CUT_CARD_FROM_BACK
    need = 9 if three_hands else 6
    for i in prange(n_shoes):
        state = np.empty(4, np.uint64)
        seed_stream(state, seed, first_shoe + i, CARDS)
        deck = np.empty(n, np.int16)
        row = np.empty(CARD_SLOTS, np.int16)
        pos = start_shoe(state, deck, template)
        first_card = pos
        last = False
        while pos + need <= n:
            last = _last_coup(pos, cut, last)
            pos, player, banker, _ = deal_coup(
                state, deck, pos, punter_draw[0], punter_draw[1], banker_draw, three_hands, 1, row
            )
            counts[i, compiled_outcome_code(player, banker_faced(row, P1, player, banker)[0])] += 1
            if last:
                break
            last = pos > cut
        counts[i, 3] = pos - first_card
    return counts


@njit(inline="always", cache=True)
def _next_seat(occupied, seat):
    """The next occupied seat counter-clockwise (seat numbers ascending, wrapping)."""
    seats = occupied.shape[0]
    for step in range(1, seats + 1):
        candidate = (seat + step) % seats
        if occupied[candidate]:
            return candidate
    return seat


@njit(inline="always", cache=True)
def _style(kind):
    """A player's punter style (strategies: 0 the table's play, then advantage.STRATEGY_KINDS in order)."""
    return kind - DRAWS_ON_5 + 1 if kind >= DRAWS_ON_5 else 0


@njit(inline="always", cache=True)
def _claimants(occupied, player, kinds, seat_of_bank, three_hands, claim):
    """Each Player hand's claimant: the first seated strategy player from the bank's right (seat
    numbers ascending from the holder's), the holder aside. claim[0] the seat claiming side 1's hand
    (or the only one), claim[1] side 2's; -1 where none sits."""
    seats = occupied.shape[0]
    claim[0], claim[1] = -1, -1
    for step in range(1, seats):
        seat = (seat_of_bank + step) % seats
        if occupied[seat] and kinds[player[seat]] >= DRAWS_ON_5:
            hand = seat % 2 if three_hands else 0  # the seat's `side` less 1, as deal_table_days places it
            if claim[hand] < 0:
                claim[hand] = seat


@njit(inline="always", cache=True)
def _theta_slot(large, small, slots):
    """The theta grid slot (1/2, 6/10, ... 9/10) of the larger stake's share; 1/2 when nobody bet."""
    if slots == 1 or large + small == 0:
        return 0
    return min(max(np.int64(np.rint(10.0 * large / (large + small))) - 5, 0), slots - 1)


@njit(inline="always", cache=True)
def _round_to(cents, unit):
    return max(unit, (cents // unit) * unit)


@njit(inline="always", cache=True)
def _stake(state, unit, pop):
    amount = np.int64(unit * STAKE_SWING[bounded(state, STAKE_SWING.shape[0])])
    return min(max(_round_to(amount, np.int64(pop[MIN_BET])), np.int64(pop[MIN_BET])), np.int64(pop[MAX_BET]))


@njit(inline="always", cache=True)
def _main_bet(people, habits, who):
    """Banker, Player or Tie, by the player's style (one draw of the people stream)."""
    r = uniform(people)
    if r < habits[who, HABIT_BANKER]:
        return BANKER_BET
    if r < habits[who, HABIT_BANKER_OR_PLAYER]:
        return PLAYER_BET
    return TIE_BET


@njit(inline="always", cache=True)
def _settle(net_units, code, cell, pairs):
    """Net result for the bettor per cent staked, in the grid's units."""
    pair = 0
    if code == PLAYER_PAIR_BET:
        pair = pairs & 1
    elif code == BANKER_PAIR_BET:
        pair = (pairs >> 1) & 1
    return net_units[code, cell, pair]


@njit(inline="always", cache=True)
def _running_count(tags, row, seen):
    """A count's running count over the ranks seen so far in the shoe."""
    count = np.int64(0)
    for rank in range(RANK_COUNT):
        count += tags[row, rank] * seen[rank]
    return count


@njit(cache=True)
def _side_edges(full, seen, player_draw, banker_draw, net_units, out):
    """Each side bet's exact expectation for the bettor (grid units per unit staked) from the cards
    left: out[s] for bet FIRST_SIDE_BET + s. Pairs from the rank counts, the rest from the cells."""
    values = np.zeros(10, np.int64)
    same_rank, left = 0.0, 0.0
    for rank in range(RANK_COUNT):
        count = full[rank] - seen[rank]
        values[CARD_VALUE[4 * rank]] += count
        same_rank += count * (count - 1.0)
        left += count
    cells = outcome_weights(values, player_draw, banker_draw).ravel()
    total = cells.sum()
    pair = same_rank / (left * (left - 1.0))  # the first two cards of a hand share a rank
    for s in range(SIDE_BETS):
        code = FIRST_SIDE_BET + s
        if code in (PLAYER_PAIR_BET, BANKER_PAIR_BET):
            out[s] = pair * net_units[code, 0, 1] + (1.0 - pair) * net_units[code, 0, 0]
        else:
            mean = 0.0
            for cell in range(cells.shape[0]):
                mean += net_units[code, cell, 0] * cells[cell]
            out[s] = mean / total


@njit(inline="always", cache=True)
def _place(bets, i, b, k, seat, code, cents, who):
    """Write one wager (on the first Player hand) into bet slot b of shoe i; returns the next slot."""
    bets[0][i, b] = k
    bets[1][i, b] = seat
    bets[2][i, b] = code
    bets[3][i, b] = cents
    bets[4][i, b] = who
    bets[5][i, b] = 0
    return b + 1


#: Per-bet slots: round index, seat, bet code, amount in cents, player number, side, payout.
BET_DTYPES = (np.int16, np.int8, np.int8, np.int64, np.int32, np.int8, np.int64)


def slots(n_shoes: int, max_coups: int, seats: int) -> tuple[tuple, tuple]:
    """Fixed per-shoe slots for `deal_shoes` to fill: per-coup arrays and per-bet arrays.

    Allocated once per run and reused for every batch: fresh pages cost a page fault each.
    """
    max_bets = max_coups * seats * BETS_PER_SEAT
    coups = (
        np.empty((n_shoes, max_coups, CARD_SLOTS), np.int16),
        np.empty((n_shoes, max_coups), np.int8),
        np.empty((n_shoes, max_coups), np.float64),
        np.empty((n_shoes, max_coups), np.int8),
    )
    bets = tuple(np.empty((n_shoes, max_bets), dtype) for dtype in BET_DTYPES)
    return coups, bets


@njit(inline="always", cache=True)
def _seat_players(t, stop, cursor, sess_player, sess_start, sess_end, occupied, player):
    """Who sits at each seat at time t (sessions are per seat in time order and t only grows);
    returns when the next seat changes hands, so that until then nothing needs looking at."""
    change = np.inf
    for seat in range(occupied.shape[0]):
        c = cursor[seat]
        while c < stop[seat] and sess_end[c] <= t:
            c += 1
        cursor[seat] = c
        occupied[seat] = c < stop[seat] and sess_start[c] <= t
        if occupied[seat]:
            player[seat] = sess_player[c]
            change = min(change, sess_end[c])
        elif c < stop[seat]:
            change = min(change, sess_start[c])
    return change


@njit(parallel=True, cache=True, nogil=True)
def deal_table_days(
    seed,
    shoes,
    group_first,
    template,
    edge_player,
    edge_banker,
    punter_draw,
    banker_draw,
    bank_kind,
    three_hands,
    pop,
    net_units,
    units,
    habits,
    kinds,
    seat_first,
    sessions,
    tags,
    thresholds,
    coups,
    bets,
):
    """Deal every shoe in `shoes` with the players seated then into the first len(shoes) of `slots()`.

    The shoes come in table-days: group g is shoes[group_first[g]:group_first[g + 1]], one table's
    shoes of one day in order. `seat_first[g]` (seats + 1 offsets) picks each seat's sessions out of
    `sessions` = (player, start, end seconds from the day's opening), in time order. `units` and
    `habits` and `kinds` are the pool's (players.Players.kernel_arrays). `bank_kind` is the game's
    `BankPassing` code, `three_hands` whether it deals a second Player hand; `net_units[bet, cell,
    pair]` is the settlement grid (models.game.paytable) in integer units. `tags` and `thresholds`
    are the advantage players' counts (advantage.kernel_counts). `edge_player` and `edge_banker` are
    the table's play by total (tableau.draw_table) for the exact side-bet edges; `punter_draw` and
    `banker_draw` what the dealing reads (strategies.Draws): the punter of a Player hand, its largest
    stake (the first placed of equals), plays his own style, and so does the bank's holder.
    Fills per-coup slots (cards, outcome against the first Player hand, seconds from the shoe's
    start, bank holder seat) and per-bet slots (round index, seat, bet code, amount in cents, player
    number, side, payout in cents x grid units); returns the number of coups and bets each shoe
    used. Slots past those counts are garbage.
    """
    n_shoes = shoes.shape[0]
    seats = np.int64(pop[SEATS])
    need = 9 if three_hands else 6
    n = template.shape[0]
    cut = n - CUT_CARD_FROM_BACK
    sess_player, sess_start, sess_end = sessions

    cards, outcomes, seconds, holder = coups
    bet_round, bet_seat, bet_code, bet_cents, bet_player, bet_side, bet_payout = bets
    n_coups = np.zeros(n_shoes, np.int64)
    n_bets = np.zeros(n_shoes, np.int64)
    full = np.zeros(RANK_COUNT, np.int64)  # the shoe's cards by rank before any is dealt
    for card in template:
        full[card // 4] += 1
    side_max = np.int64(pop[SIDE_MAX])

    for g in prange(group_first.shape[0] - 1):
        cursor = seat_first[g, :seats].copy()
        stop = seat_first[g, 1:].copy()
        occupied = np.zeros(seats, np.bool_)
        player = np.zeros(seats, np.int32)
        deck_state = np.empty(4, np.uint64)
        people = np.empty(4, np.uint64)
        pace = np.empty(4, np.uint64)
        deck = np.empty(n, np.int16)
        seen = np.zeros(RANK_COUNT, np.int64)  # ranks dealt in the shoe's coups so far (burned unseen)
        edges = np.empty(SIDE_BETS)
        claim = np.empty(2, np.int64)  # each Player hand's claimant seat (strategy players), and stake
        claim_cents = np.zeros(2, np.int64)
        day_clock = 0.0  # the shoe's start, in seconds from the day's opening (as frames derives it)
        change = -np.inf  # when a seat next changes hands
        for i in range(group_first[g], group_first[g + 1]):
            seed_stream(deck_state, seed, shoes[i], CARDS)
            seed_stream(people, seed, shoes[i], POPULATION)
            seed_stream(pace, seed, shoes[i], PACE)
            seat_of_bank = bounded(people, seats)
            bank_size = np.int64(pop[INITIAL_BANK])
            clock = pop[SHUFFLE_SECONDS]

            pos = start_shoe(deck_state, deck, template)
            seen[:] = 0
            seen_cards = 0
            last = False
            k = 0
            b = 0
            while pos + need <= n:
                last = _last_coup(pos, cut, last)
                clock += pop[COUP_SECONDS] * (0.6 + 0.4 * (uniform(pace) + uniform(pace)))
                seconds[i, k] = clock
                if day_clock + clock >= change:
                    change = _seat_players(
                        day_clock + clock, stop, cursor, sess_player, sess_start, sess_end, occupied, player
                    )
                if k == 0 or not occupied[seat_of_bank]:
                    # the shoe starts at a random seat; a bank whose holder has left passes on
                    seat_of_bank = _next_seat(occupied, seat_of_bank)
                    bank_size = np.int64(pop[INITIAL_BANK])
                holder[i, k] = seat_of_bank
                stake_right, stake_left = np.int64(0), np.int64(0)  # baccarat_banque's two sides
                top_right, top_left = np.int64(0), np.int64(0)  # the largest stake on each hand, and whose
                punter_right, punter_left = -1, -1
                covered = np.int64(0)
                first_bet = b
                edges_known = False
                claim[0], claim[1] = -1, -1
                if bank_kind in (CHEMIN_DE_FER, BANQUE):
                    # a strategy player takes the hand: he calls it first (in Chemin de Fer the bank's
                    # first share is his, "banco" when he covers it all) and nobody stakes as much on it
                    _claimants(occupied, player, kinds, seat_of_bank, three_hands, claim)
                    for hand in range(2):
                        if claim[hand] >= 0:
                            claim_cents[hand] = _stake(people, units[player[claim[hand]]], pop)
                            if bank_kind == CHEMIN_DE_FER:
                                claim_cents[hand] = min(claim_cents[hand], bank_size)
                                covered += claim_cents[hand]
                for seat in range(seats):
                    if not occupied[seat]:
                        continue
                    plays = uniform(people) < pop[BET_PROBABILITY]
                    who = player[seat]
                    if ORDINARY < kinds[who] < DRAWS_ON_5 and bank_kind == HOUSE_BANK:
                        # an advantage player: the main game as anyone (the wonger not at all), side bets by count
                        kind = kinds[who]
                        if plays and kind != WONGER:
                            code = _main_bet(people, habits, who)
                            b = _place(bets, i, b, k, seat, code, _stake(people, units[who], pop), who)
                        left = n - seen_cards
                        if kind in (DRAGON7_COUNTER, WONGER):
                            rich = _running_count(tags, DRAGON7_ROW, seen) * 52 >= thresholds[DRAGON7_AT] * left
                            if rich and (kind == DRAGON7_COUNTER or left <= thresholds[WONGER_PART] * n):
                                b = _place(bets, i, b, k, seat, DRAGON7_BET, side_max, who)
                        elif kind == PANDA8_COUNTER:
                            if _running_count(tags, PANDA8_ROW, seen) * 52 >= thresholds[PANDA8_AT] * left:
                                b = _place(bets, i, b, k, seat, PANDA8_BET, side_max, who)
                        elif kind == PERFECT_PLAYER:
                            if not edges_known:
                                _side_edges(full, seen, edge_player, edge_banker, net_units, edges)
                                edges_known = True
                            # the best positive side bets, as many as a seat places
                            order = np.argsort(-edges)
                            for j in range(MAX_SIDE_BETS_PER_SEAT):
                                if edges[order[j]] <= 0.0:
                                    break
                                b = _place(bets, i, b, k, seat, FIRST_SIDE_BET + order[j], side_max, who)
                        continue
                    hand = seat % 2 if three_hands else 0
                    if seat == claim[hand]:
                        amount, code = claim_cents[hand], PLAYER_BET  # he plays every coup he claims
                    elif not plays:
                        continue
                    elif bank_kind in (CHEMIN_DE_FER, ROTATING):
                        if seat == seat_of_bank:
                            continue
                        amount = _stake(people, units[who], pop)
                        code = PLAYER_BET
                        if bank_kind == CHEMIN_DE_FER:
                            amount = min(amount, bank_size - covered)
                            if amount <= 0:
                                continue
                            covered += amount
                        else:
                            share = habits[who, HABIT_BANKER] / max(habits[who, HABIT_BANKER_OR_PLAYER], 1e-12)
                            if uniform(people) < share:
                                code = BANKER_BET
                    else:
                        code = _main_bet(people, habits, who)
                        if bank_kind == BANQUE:
                            code = PLAYER_BET
                        amount = _stake(people, units[who], pop)
                    if claim[hand] >= 0 and seat != claim[hand] and code == PLAYER_BET:
                        # below the claimant's stake, in whole minimums; in Chemin de Fer from what is left
                        over = min(amount, claim_cents[hand] - np.int64(pop[MIN_BET]))
                        if over <= 0:
                            continue
                        if bank_kind == CHEMIN_DE_FER:
                            covered -= amount - over
                        amount = over
                    side = 0
                    if three_hands:
                        side = 1 + (seat % 2)  # odd seats (1, 3, ...) on the right table
                        if side == 1:
                            stake_right += amount
                        else:
                            stake_left += amount
                    if code == PLAYER_BET:
                        if side == 2:
                            if amount > top_left:
                                top_left, punter_left = amount, who
                        elif amount > top_right:
                            top_right, punter_right = amount, who
                    bet_round[i, b] = k
                    bet_seat[i, b] = seat
                    bet_code[i, b] = code
                    bet_cents[i, b] = amount
                    bet_player[i, b] = who
                    bet_side[i, b] = side
                    b += 1
                    if bank_kind != HOUSE_BANK:
                        continue
                    previous = -1
                    for _ in range(MAX_SIDE_BETS_PER_SEAT):
                        if uniform(people) >= habits[who, HABIT_SIDE_RATE]:
                            break
                        pick = uniform(people)
                        s = 0
                        while s < SIDE_BETS - 1 and pick >= pop[SIDE_CUMULATIVE + s]:
                            s += 1
                        if s == previous:  # one wager per bet type and seat in a coup
                            break
                        previous = s
                        side_unit = np.int64(pop[SIDE_MIN]) * SIDE_STAKES[bounded(people, SIDE_STAKES.shape[0])]
                        bet_round[i, b] = k
                        bet_seat[i, b] = seat
                        bet_code[i, b] = FIRST_SIDE_BET + s
                        bet_cents[i, b] = min(side_unit, np.int64(pop[SIDE_MAX]))
                        bet_player[i, b] = who
                        bet_side[i, b] = 0
                        b += 1
                if bank_kind == CHEMIN_DE_FER and covered > 0:
                    # the bank's own wager is what the punters covered
                    bet_round[i, b] = k
                    bet_seat[i, b] = seat_of_bank
                    bet_code[i, b] = BANKER_BET
                    bet_cents[i, b] = covered
                    bet_player[i, b] = player[seat_of_bank]
                    bet_side[i, b] = 0
                    b += 1
                side = 2 if stake_left > stake_right else 1
                slot = _theta_slot(max(stake_left, stake_right), min(stake_left, stake_right), punter_draw.shape[1])
                style_right = _style(kinds[punter_right]) if punter_right >= 0 else 0
                style_left = _style(kinds[punter_left]) if punter_left >= 0 else 0
                role_right = 0 if side == 1 else 1
                bank_style = 1 if _style(kinds[player[seat_of_bank]]) == PLAYS_EQUILIBRIUM else 0
                row = cards[i, k]
                pos, player_total, banker_total, second_total = deal_coup(
                    deck_state,
                    deck,
                    pos,
                    punter_draw[style_right, slot, role_right],
                    punter_draw[style_left, slot, 1 - role_right],
                    banker_draw[bank_style, slot],
                    three_hands,
                    side,
                    row,
                )
                faced, faced_drew = banker_faced(row, P1, player_total, banker_total)
                faced2, faced2_drew = banker_faced(row, Q1, second_total, banker_total)
                result = compiled_outcome_code(player_total, faced)
                outcomes[i, k] = result
                for slot in range(CARD_SLOTS):
                    if row[slot] != NO_CARD:
                        seen[row[slot] // 4] += 1
                        seen_cards += 1

                # settle this coup's wagers from the grid, each hand against the banker it met
                cell = compiled_cell_index(player_total, faced, 1 if row[P1 + 2] != NO_CARD else 0, faced_drew)
                cell2 = compiled_cell_index(second_total, faced2, 1 if row[Q1 + 2] != NO_CARD else 0, faced2_drew)
                pairs = (1 if row[P1] // 4 == row[P1 + 1] // 4 else 0) + (2 if row[B1] // 4 == row[B1 + 1] // 4 else 0)
                for j in range(first_bet, b):
                    on = cell2 if bet_side[i, j] == 2 else cell
                    bet_payout[i, j] = bet_cents[i, j] * _settle(net_units, bet_code[i, j], on, pairs)

                if compiled_bank_passes(bank_kind, result):
                    seat_of_bank = _next_seat(occupied, seat_of_bank)
                    if bank_kind == CHEMIN_DE_FER:
                        bank_size = np.int64(pop[INITIAL_BANK])
                elif bank_kind == CHEMIN_DE_FER and result == BANKER_WINS:
                    # the bank rides: it grows by its win, less the house's levy
                    bank_size += covered - np.int64(covered * pop[LEVY_PERCENT]) // 100
                    if uniform(people) < pop[WITHDRAW]:  # the holder withdraws: a choice, not the rule
                        seat_of_bank = _next_seat(occupied, seat_of_bank)
                        bank_size = np.int64(pop[INITIAL_BANK])
                k += 1
                if last:
                    break
                last = pos > cut
            n_coups[i] = k
            n_bets[i] = b
            day_clock += seconds[i, k - 1] + pop[COUP_SECONDS]
    return n_coups, n_bets


@njit(parallel=True, cache=True, nogil=True)
def dense_coups(cards, outcomes, seconds, holder, counts, starts):
    """Every shoe i's first counts[i] coup slots, packed from starts[i] on, in one pass.

    Returns per coup: shoe index, round number (from 1), seconds, outcome, bank holder, cards.
    """
    total = counts.sum()
    shoe = np.empty(total, np.int32)
    round_no = np.empty(total, np.int32)
    out_seconds = np.empty(total, np.float64)
    out_outcomes = np.empty(total, np.int8)
    out_holder = np.empty(total, np.int8)
    out_cards = np.empty((total, cards.shape[2]), np.int16)
    for i in prange(counts.shape[0]):
        for k in range(counts[i]):
            j = starts[i] + k
            shoe[j] = i
            round_no[j] = k + 1
            out_seconds[j] = seconds[i, k]
            out_outcomes[j] = outcomes[i, k]
            out_holder[j] = holder[i, k]
            for slot in range(cards.shape[2]):
                out_cards[j, slot] = cards[i, k, slot]
    return shoe, round_no, out_seconds, out_outcomes, out_holder, out_cards


@njit(parallel=True, cache=True, nogil=True)
def dense_bets(bets, counts, starts):
    """Every shoe i's first counts[i] bet slots, packed from starts[i] on, in one pass.

    Returns per bet: shoe index, round number (from 1), seat, bet code, cents, player, side, payout.
    """
    bet_round, bet_seat, bet_code, bet_cents, bet_player, bet_side, bet_payout = bets
    total = counts.sum()
    shoe = np.empty(total, np.int32)
    round_no = np.empty(total, np.int32)
    seat = np.empty(total, np.int8)
    code = np.empty(total, np.int8)
    cents = np.empty(total, np.int64)
    player = np.empty(total, np.int32)
    side = np.empty(total, np.int8)
    payout = np.empty(total, np.int64)
    for i in prange(counts.shape[0]):
        for b in range(counts[i]):
            j = starts[i] + b
            shoe[j] = i
            round_no[j] = bet_round[i, b] + 1
            seat[j] = bet_seat[i, b]
            code[j] = bet_code[i, b]
            cents[j] = bet_cents[i, b]
            player[j] = bet_player[i, b]
            side[j] = bet_side[i, b]
            payout[j] = bet_payout[i, b]
    return shoe, round_no, seat, code, cents, player, side, payout


TOKEN_BYTES = np.array([[ord(rank), ord(suit)] for rank in "A23456789TJQK" for suit in "CDHS"], np.uint8)


@njit(parallel=True, cache=True, nogil=True)
def hand_text(cards, first):
    """Arrow string buffers (offsets, bytes) of the hands in cards[:, first:first + 3]: '9H 3S 4D'."""
    n = cards.shape[0]
    lengths = np.empty(n, np.int32)
    for i in prange(n):
        k = 0
        for slot in range(first, first + 3):
            if cards[i, slot] >= 0:
                k += 1
        lengths[i] = 3 * k - 1 if k > 0 else 0
    offsets = np.empty(n + 1, np.int32)
    offsets[0] = 0
    for i in range(n):
        offsets[i + 1] = offsets[i] + lengths[i]
    data = np.empty(offsets[n], np.uint8)
    for i in prange(n):
        at = offsets[i]
        for slot in range(first, first + 3):
            code = cards[i, slot]
            if code >= 0:
                if at > offsets[i]:
                    data[at] = 32  # a space between tokens
                    at += 1
                data[at] = TOKEN_BYTES[code, 0]
                data[at + 1] = TOKEN_BYTES[code, 1]
                at += 2
    return offsets, data
