"""The games of the family and what distinguishes them."""

from __future__ import annotations

from enum import StrEnum


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


GAMES = tuple(Game)
