"""Cards: notation (R2), values (R3) and decks (R1)."""
from collections.abc import Iterable

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("C", "D", "H", "S")
JOKER = "JK"
DECK_SIZE = 54  # R1: 52 naturals and 2 jokers

# R5: an ace is 1 low or 14 high; every other rank has one value.
RANK_VALUE = {rank: i + 1 for i, rank in enumerate(RANKS)}
NATURALS = tuple(rank + suit for suit in SUITS for rank in RANKS)
_CANONICAL = {card: card for card in NATURALS} | {JOKER: JOKER}


def canonical(text: object) -> str | None:
    """R2: the canonical spelling of a card (`t`/`T` for 10, any case), or None."""
    if not isinstance(text, str):
        return None
    if text in _CANONICAL:  # already canonical, as every card a bot sends is
        return text
    upper = text.strip().upper()
    if upper.startswith("T"):
        upper = "10" + upper[1:]
    return _CANONICAL.get(upper)


def rank(card: str) -> str:
    return card[:-1]


def suit(card: str) -> str:
    return card[-1]


def is_joker(card: str) -> bool:
    return card == JOKER


def card_at(value: int, suit_: str) -> str:
    """The natural card a run position of `value` (1..14) in `suit_` stands for."""
    return RANKS[(value - 1) % 13] + suit_


def points(card: str, pips: bool = False) -> int:
    """R3: A and JK 15; 10, J, Q, K 10; 2..9 5. R24.3 (`pips`): 2..10 their face value."""
    if card == JOKER or card[0] == "A":
        return 15
    if card[:-1] in ("J", "Q", "K"):
        return 10
    return int(card[:-1]) if pips else 10 if card[0] == "1" else 5


def hand_points(cards: Iterable[str], pips: bool = False) -> int:
    return sum(points(card, pips) for card in cards)


def decks_for(players: int) -> int:
    """R1: 2-5 players 2 decks, 6-8 3, 9-11 4, then one more per 3 players."""
    if players < 2:
        raise ValueError(f"a game needs at least 2 players, not {players}")
    return 2 + max(0, players - 3) // 3


def full_decks(decks: int, jokers: int | None = None) -> list[str]:
    """R1: `decks` times the 52 naturals and 2 jokers, in a fixed order. R24.2: with another number of
    jokers, each deck brings two while they last, and any more come after the last deck."""
    if jokers is None or jokers == 2 * decks:
        return [card for _ in range(decks) for card in (*NATURALS, JOKER, JOKER)]
    cards: list[str] = []
    for deck in range(decks):
        cards += [*NATURALS, *[JOKER] * max(0, min(2, jokers - 2 * deck))]
    return cards + [JOKER] * max(0, jokers - 2 * decks)
