"""The games of the family and what distinguishes them: who banks, how the bank passes, the hands."""

from __future__ import annotations

from enum import IntEnum, StrEnum


class Banker(StrEnum):
    """Who banks the game: the house, or a player (the house then takes only its commission)."""

    HOUSE = "house"
    PLAYER = "player"


class BankPassing(IntEnum):
    """How the bank (the shoe) moves between seats; the values are the simulator kernel's codes."""

    HOUSE = 0  # the house keeps the bank; the shoe passes to the next seat on a Player win
    CHEMIN_DE_FER = 1  # the holder keeps it while it wins (and may withdraw), loses it on a Player win
    BANQUE = 2  # one banker holds it for the whole shoe
    ROTATING = 3  # to the next seat after every decided coup


class Game(StrEnum):
    PUNTO_BANCO = "punto_banco"
    SUPER6 = "super6"
    EZ_BACCARAT = "ez_baccarat"
    CHEMIN_DE_FER = "chemin_de_fer"
    BACCARAT_BANQUE = "baccarat_banque"
    BANCO = "banco"

    @classmethod
    def parse(cls, name: str) -> Game:
        try:
            return cls(name.strip().lower())
        except ValueError:
            choices = ", ".join(game.value for game in cls)
            raise ValueError(f"unknown game {name!r}: choose one of {choices}") from None

    @property
    def punter_has_choice(self) -> bool:
        """Chemin de Fer rules for the Player hand: a free choice on 5."""
        return self in (Game.CHEMIN_DE_FER, Game.BACCARAT_BANQUE)

    @property
    def passing(self) -> BankPassing:
        return _PASSING[self]

    @property
    def passes_by_rule(self) -> bool:
        """Whether the bank passes by a fixed rule, not by who wins (banco after every decided coup,
        baccarat_banque never): a tenure's length there is no streak."""
        return self.passing in (BankPassing.ROTATING, BankPassing.BANQUE)

    @property
    def banker(self) -> Banker:
        return Banker.HOUSE if self.passing is BankPassing.HOUSE else Banker.PLAYER

    @property
    def player_banked(self) -> bool:
        return self.banker is Banker.PLAYER

    @property
    def second_player_hand(self) -> bool:
        """Baccarat Banque deals two Player hands, one a side of the table, against one Banker hand."""
        return self is Game.BACCARAT_BANQUE


_PASSING = {
    Game.PUNTO_BANCO: BankPassing.HOUSE,
    Game.SUPER6: BankPassing.HOUSE,
    Game.EZ_BACCARAT: BankPassing.HOUSE,
    Game.CHEMIN_DE_FER: BankPassing.CHEMIN_DE_FER,
    Game.BACCARAT_BANQUE: BankPassing.BANQUE,
    Game.BANCO: BankPassing.ROTATING,
}
GAMES = tuple(Game)
