"""What a simulation is asked for: shoes, tables, days, and the betting population."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

from models.game.games import Game
from models.game.paytable import DEFAULT_PAYTABLE, EGALITE_BETS, SIDE_BETS, PayTable
from models.game.shoe import MAX_DECKS
from models.game.tableau import DEFAULT_POLICY, DrawPolicy
from models.gametheory.strategy import SOLUTIONS
from models.gaming_day import GamingDay
from models.settings import DEFAULTS
from models.simulate.advantage import ADVANTAGE_KINDS
from models.simulate.strategies import Draws, TablePlay, draws

MAX_SEATS = 14
#: `banco simulate`'s ceilings: past them one run would hold more than 4 GB or take more than a minute on
#: two busy cores (measured in docs/simulator.md#ceilings). The model itself deals any size.
MAX_SHOES = 50_000  # 500 tables of 14 seats, every game, CSV, every fault: 26 s, 3.2 GB, 2 GB of files
#: With advantage players, fewer: a perfect player works out the side bets' exact edges at every coup.
MAX_ADVANTAGE_SHOES = 3_000
MAX_TABLES = 500  # the player pool and every day's seating grow with tables x seats
DEFAULT_MAIN_MIX = {"banker": 0.50, "player": 0.40, "tie": 0.10}
DEFAULT_SIDE_MIX = {
    "player_pair": 0.04,
    "banker_pair": 0.04,
    "dragon7": 0.03,
    "panda8": 0.03,
    **dict.fromkeys(EGALITE_BETS, 0.004),
}


@dataclass(frozen=True)
class Population:
    """Who comes to the tables and how they bet (docs/simulator.md gives the reason for each default)."""

    seats: int = 7
    bet_probability: float = 0.8  # chance a seated player bets on a coup: most coups, a few sat out
    main_mix: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_MAIN_MIX))
    side_mix: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_SIDE_MIX))
    min_bet: Decimal = Decimal(25)
    max_bet: Decimal = DEFAULTS.max_bet  # the house's limits
    side_min: Decimal = Decimal(5)
    side_max: Decimal = DEFAULTS.side_max
    coups_per_hour: float = 70.0  # pace; each coup's duration jitters between 0.6x and 1.4x
    shuffle_minutes: float = 8.0
    chemin_initial_bank: Decimal = Decimal(500)
    chemin_withdraw: float = 0.1  # chance a winning chemin_de_fer banker withdraws the bank
    # the players, drawn once from the run's seed (models/simulate/players.py)
    player_pool: int | None = None  # None: as many as fill `seat_occupancy` of the seats
    home_bet_median: Decimal = Decimal(100)  # a player's usual stake, log-normal across players
    home_bet_sigma: float = 1.0
    style_concentration: float = 20.0  # Dirichlet around `main_mix`: higher, players bet more alike
    side_never: float = 0.6  # share of players who never bet a side bet
    session_median_minutes: float = 60.0  # a player's mean session, log-normal across players
    session_sigma: float = 0.5  # its spread across players
    session_spread: float = 0.5  # the spread of one player's sessions around their mean
    regular_share: float = 0.05  # players who come most days
    regular_visit_chance: float = 0.6  # a regular's chance to come on a given day
    occasional_visits: float = 2.0  # the other players' mean visits in 30 days
    # the seating of a day (models/simulate/seating.py)
    seat_occupancy: float = 0.5  # share of seat time taken, which sizes the pool when it is None
    move_chance: float = 0.3  # chance a player leaving a table moves to another one after a break
    break_minutes: float = 10.0  # mean break before moving tables
    seat_gap_minutes: float = 3.0  # mean time a seat stays empty between two sessions
    max_wait_minutes: float = 20.0  # a player finding every seat taken waits this long, then goes
    # advantage players (models/simulate/advantage.py): their share of the pool, 0 = none, and their kinds
    advantage_share: float = 0.0
    advantage_mix: dict[str, float] = field(default_factory=lambda: dict.fromkeys(ADVANTAGE_KINDS, 1.0))
    # strategy players (advantage.STRATEGY_KINDS): this many of each kind, 0 = none
    strategy_players: int = 0

    def __post_init__(self) -> None:
        if not 1 <= self.seats <= MAX_SEATS:
            raise ValueError(f"seats must be 1 to {MAX_SEATS}, got {self.seats}")
        for name in (
            "bet_probability",
            "chemin_withdraw",
            "side_never",
            "regular_share",
            "regular_visit_chance",
            "seat_occupancy",
            "move_chance",
        ):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be a probability, got {getattr(self, name)}")
        if self.move_chance >= 1.0 or self.seat_occupancy <= 0.0:
            raise ValueError("move_chance must be below 1 and seat_occupancy above 0")
        if set(self.main_mix) - {"banker", "player", "tie"} or sum(self.main_mix.values()) <= 0:
            raise ValueError("the main bet mix weighs banker, player and tie")
        if any(share < 0 for share in (*self.main_mix.values(), *self.side_mix.values())):
            raise ValueError("bet mixes weigh each bet 0 or more")
        if set(self.side_mix) - set(SIDE_BETS + EGALITE_BETS):
            raise ValueError(f"unknown side bets: {sorted(set(self.side_mix) - set(SIDE_BETS + EGALITE_BETS))}")
        if sum(self.side_mix.values()) >= 1.0 - self.side_never:
            raise ValueError("the side bets' mix must sum below the share of players who bet them")
        if not Decimal(0) < self.min_bet <= self.max_bet or not Decimal(0) < self.side_min <= self.side_max:
            raise ValueError("table limits need 0 < min <= max")
        if self.coups_per_hour <= 0:
            raise ValueError("the pace must be positive")
        if self.player_pool is not None and self.player_pool < 1:
            raise ValueError(f"player_pool must be at least 1, got {self.player_pool}")
        for name in ("home_bet_sigma", "session_sigma", "session_spread", "break_minutes", "seat_gap_minutes"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be 0 or more, got {getattr(self, name)}")
        if self.home_bet_median <= 0 or self.session_median_minutes <= 0 or self.style_concentration <= 0:
            raise ValueError("home_bet_median, session_median_minutes and style_concentration must be positive")
        if self.occasional_visits < 0 or self.occasional_visits > 30 or self.max_wait_minutes < 0:
            raise ValueError("occasional_visits is 0 to 30 a month and max_wait_minutes 0 or more")
        self._check_advantage()
        if self.strategy_players < 0:
            raise ValueError(f"strategy_players must be 0 or more, got {self.strategy_players}")

    def _check_advantage(self) -> None:
        if not 0.0 <= self.advantage_share <= 1.0:
            raise ValueError(f"advantage_share must be a share of the pool from 0 to 1, got {self.advantage_share}")
        unknown = sorted(set(self.advantage_mix) - set(ADVANTAGE_KINDS))
        if unknown:
            raise ValueError(f"unknown advantage player kinds {unknown}: the kinds are {', '.join(ADVANTAGE_KINDS)}")
        if any(not weight >= 0 for weight in self.advantage_mix.values()):
            raise ValueError("the advantage mix weighs each kind 0 or more")
        if self.advantage_share > 0 and sum(self.advantage_mix.values()) <= 0:
            raise ValueError("advantage players need a kind: the advantage mix must weigh one above 0")


@dataclass(frozen=True)
class Simulation:
    """A run of the simulator: `shoes` shoes dealt across `tables` tables, day after day."""

    shoes: int
    seed: int = 0
    decks: int = 8
    games: tuple[Game, ...] = (Game.PUNTO_BANCO,)
    tables: int = 4
    start: dt.date = dt.date(2026, 11, 1)
    shoes_per_day: int = 10  # per table
    timezone: str = DEFAULTS.gaming_day.timezone
    day_start_hour: int = DEFAULTS.gaming_day.start_hour  # the gaming day opens at this local hour
    shift_hours: float = 8.0  # dealers rotate between tables at every shift
    dealers_per_table: int = 3
    bets: bool = True
    population: Population = field(default_factory=Population)
    paytable: PayTable = DEFAULT_PAYTABLE
    policy: DrawPolicy = DEFAULT_POLICY
    # the free cells played by the solved game instead of `policy` (models/simulate/strategies.py)
    punter_equilibrium: bool = False
    banker_equilibrium: bool = False
    banque_solution: str = SOLUTIONS[0]

    def __post_init__(self) -> None:
        self.play  # noqa: B018 - a known Baccarat Banque solution
        if self.shoes < 1:
            raise ValueError(f"shoes must be at least 1, got {self.shoes}")
        if not 1 <= self.decks <= MAX_DECKS:
            raise ValueError(f"decks must be a whole number from 1 to {MAX_DECKS}, got {self.decks}")
        if self.tables < 1 or self.shoes_per_day < 1 or self.dealers_per_table < 1:
            raise ValueError("tables, shoes per day and dealers per table must be at least 1")
        if not 0 <= self.seed < 2**63:
            raise ValueError("the seed is a whole number from 0 to 2**63 - 1")
        if not self.games:
            raise ValueError("name at least one game")
        GamingDay(self.timezone, self.day_start_hour)  # a known zone, a start hour 0 to 23
        if self.shoes_per_day * self.expected_shoe_seconds > 22 * 3600:
            hours = self.shoes_per_day * self.expected_shoe_seconds / 3600
            raise ValueError(
                f"{self.shoes_per_day} shoes a day at this pace take about {hours:.1f} hours: "
                "deal fewer shoes per day or raise the pace"
            )

    @property
    def days(self) -> int:
        return -(-self.shoes // (self.tables * self.shoes_per_day))

    @property
    def coup_seconds(self) -> float:
        return 3600.0 / self.population.coups_per_hour

    @property
    def expected_shoe_seconds(self) -> float:
        """About how long a shoe takes: its coups at the pace, and the shuffle before it."""
        coups = (52 * self.decks - 16 - 6) / 4.94 + 1
        return coups * self.coup_seconds + 60 * self.population.shuffle_minutes

    @property
    def open_seconds(self) -> float:
        """About how long a table deals each gaming day: its shoes one after the other."""
        return self.shoes_per_day * self.expected_shoe_seconds

    @property
    def play(self) -> TablePlay:
        """How the tables play the free cells."""
        return TablePlay(self.policy, self.punter_equilibrium, self.banker_equilibrium, self.banque_solution)

    def draws(self, game: Game) -> Draws:
        """What the dealing kernel reads for `game`: the table's play and the strategy players'."""
        commission = Fraction(self.paytable.commission)
        return draws(game, self.play, self.decks, commission, self.population.strategy_players > 0)

    def game_of_table(self, table: int) -> Game:
        return self.games[table % len(self.games)]

    def locate(self, shoe: int) -> tuple[int, int, int]:
        """(day, table, shoe of the day) of a global shoe number (or of each in an array of them)."""
        per_day = self.tables * self.shoes_per_day
        day, rest = divmod(shoe, per_day)
        table, k = divmod(rest, self.shoes_per_day)
        return day, table, k
