"""The tableau checked cell by cell against rules.md, written out here independently as grids."""

import random

import pytest

from models.game.cards import parse_hand
from models.game.coup import deal_coup, tableau_violation
from models.game.games import Game
from models.game.tableau import DEFAULT_POLICY, Draw, DrawPolicy, Hand, draw_table, tableau

D, S, OPT = Draw.DRAW, Draw.STAND, Draw.OPTIONAL

# Rows: banker total 0..7. Columns: player's third card 0..9, then "player stood".
PUNTO_BANCO_BANKER = {
    0: "DDDDDDDDDD D",
    1: "DDDDDDDDDD D",
    2: "DDDDDDDDDD D",
    3: "DDDDDDDDSD D",
    4: "SSDDDDDDSS D",
    5: "SSSSDDDDSS D",
    6: "SSSSSSDDSS S",
    7: "SSSSSSSSSS S",
}
CHEMIN_DE_FER_BANKER = {
    0: "DDDDDDDDDD D",
    1: "DDDDDDDDDD D",
    2: "DDDDDDDDDD D",
    3: "DDDDDDDDSO D",
    4: "SSDDDDDDSS D",
    5: "SSSSODDDSS D",
    6: "SSSSSSDDSS S",
    7: "SSSSSSSSSS S",
}
PUNTO_BANCO_PLAYER = "DDDDDDSS"
CHEMIN_DE_FER_PLAYER = "DDDDDOSS"
CODES = {"D": D, "S": S, "O": OPT}
PUNTO_BANCO_FAMILY = [Game.PUNTO_BANCO, Game.SUPER6, Game.EZ_BACCARAT, Game.BANCO]


def _cells(grid):
    for total, row in grid.items():
        thirds, stood = row.split()
        for third, code in enumerate(thirds):
            yield total, third, CODES[code]
        yield total, None, CODES[stood]


@pytest.mark.parametrize("game", PUNTO_BANCO_FAMILY)
def test_punto_banco_banker_every_cell(game):
    for total, third, expected in _cells(PUNTO_BANCO_BANKER):
        assert tableau(game, Hand.BANKER, total, third) is expected, (total, third)


def test_chemin_de_fer_banker_every_cell():
    for total, third, expected in _cells(CHEMIN_DE_FER_BANKER):
        assert tableau(Game.CHEMIN_DE_FER, Hand.BANKER, total, third) is expected, (total, third)


@pytest.mark.parametrize(
    ("game", "row"),
    [(game, PUNTO_BANCO_PLAYER) for game in PUNTO_BANCO_FAMILY]
    + [(Game.CHEMIN_DE_FER, CHEMIN_DE_FER_PLAYER), (Game.BACCARAT_BANQUE, CHEMIN_DE_FER_PLAYER)],
)
def test_player_every_total(game, row):
    for total, code in enumerate(row):
        assert tableau(game, Hand.PLAYER, total) is CODES[code]


def test_banque_banker_has_free_choice_everywhere():
    for total in range(8):
        for third in [*range(10), None]:
            assert tableau(Game.BACCARAT_BANQUE, Hand.BANKER, total, third) is OPT


@pytest.mark.parametrize("game", list(Game))
def test_naturals_stand(game):
    for hand in Hand:
        for total in (8, 9):
            assert tableau(game, hand, total, None) is S


def test_default_policy_plays_optional_cells_as_punto_banco():
    pb = draw_table(Game.PUNTO_BANCO)
    for game in (Game.CHEMIN_DE_FER, Game.BACCARAT_BANQUE):
        table = draw_table(game, DEFAULT_POLICY)
        assert (table.player == pb.player).all()
        assert (table.banker == pb.banker).all()


def test_policies_set_only_optional_cells():
    table = draw_table(Game.CHEMIN_DE_FER, DrawPolicy(punter_on_5=0.5, banker_optional=0.0))
    assert table.player[5] == 0.5
    assert table.banker[3, 9] == 0.0 and table.banker[5, 4] == 0.0
    assert table.banker[3, 7] == 1.0 and table.banker[3, 8] == 0.0


@pytest.mark.parametrize("bad", [-0.1, 1.5])
def test_policy_must_be_a_probability(bad):
    with pytest.raises(ValueError, match="probability"):
        DrawPolicy(punter_on_5=bad)


def _values(text):
    return [card.value for card in parse_hand(text)]


@pytest.mark.parametrize(
    ("game", "player", "banker", "detail"),
    [
        (Game.PUNTO_BANCO, "2H 3S 5D", "3C 3D 4S", "banker drew on 6 against a player third card of 5"),
        (Game.PUNTO_BANCO, "2H 3S 6D", "3C 3D 2S", None),
        (Game.PUNTO_BANCO, "2H 4S", "4C 2D", None),
        (Game.PUNTO_BANCO, "2H 2S", "4C 3D", "player stood on 4"),
        (Game.PUNTO_BANCO, "2H 3S 2D", "KC 7D", None),
        (Game.PUNTO_BANCO, "3H 3S", "KC 4D 9S", None),
        (Game.PUNTO_BANCO, "3H 4S 2D", "KC 4D", "player drew on 7"),
        (Game.PUNTO_BANCO, "3H 2S", "KC 4D", "player stood on 5"),
        (Game.PUNTO_BANCO, "4H 4S 2D", "KC 4D", "player drew on 8 after a natural"),
        (Game.PUNTO_BANCO, "4H 2S", "KC 9D", None),
        (Game.PUNTO_BANCO, "3H 3S", "2C 2D", "banker stood on 4 when the player stood"),
        (Game.PUNTO_BANCO, "3H 3S", "2C 3D 9S", None),
        (Game.PUNTO_BANCO, "2H 2S 8C", "2C AD 5S", "banker drew on 3 against a player third card of 8"),
        (Game.CHEMIN_DE_FER, "2H 3S", "KC 7D", None),  # punter's free choice on 5
        (Game.CHEMIN_DE_FER, "2H 3S 9C", "2C AD", None),  # banker's optional 3 against 9
        (Game.CHEMIN_DE_FER, "2H 3S 9C", "2C AD 5S", None),
        (Game.BACCARAT_BANQUE, "2H 3S 9C", "KC 7D 5S", None),  # free choice: even 7 may draw
    ],
)
def test_tableau_violation_details(game, player, banker, detail):
    assert tableau_violation(game, _values(player), _values(banker)) == detail


def test_deal_coup_follows_the_tableau_on_every_random_deal():
    rng = random.Random(7)
    for game in Game:
        deck = [value for value in (*range(1, 10), 0, 0, 0, 0) for _ in range(32)]
        rng.shuffle(deck)
        cards = iter(parse_hand(" ".join(str(v) for v in deck)))
        for _ in range(60):
            player, banker = deal_coup(cards.__next__, game, DrawPolicy(0.5, 0.5), rng)
            assert 2 <= len(player) <= 3 and 2 <= len(banker) <= 3
            assert tableau_violation(game, [c.value for c in player], [c.value for c in banker]) is None


def test_deal_coup_deals_in_table_order():
    cards = iter(parse_hand("2H 3S 4D 5C 9H 8D"))
    player, banker = deal_coup(lambda: next(cards), Game.PUNTO_BANCO)
    # P 2,4 = 6 stands; B 3,5 = 8 natural
    assert [str(c) for c in player] == ["2H", "4D"]
    assert [str(c) for c in banker] == ["3S", "5C"]


def test_mixed_policy_needs_a_generator():
    cards = iter(parse_hand("2H 3S 3D 2C 9H 8D"))
    with pytest.raises(ValueError, match="random generator"):
        deal_coup(lambda: next(cards), Game.CHEMIN_DE_FER, DrawPolicy(punter_on_5=0.5))
