"""R24: the rummy family's games as rules a table reads: Zioncheck, Contract rummy, Liverpool rummy.

A game's rules come with its start (StartGame.rules, carried in GameStarted): a preset and house options
over it. `ruleset_of` turns them into a `Ruleset`, the one thing the domain asks about hands, contracts,
decks, jokers, card values, the first turn, claims, going out and jokers on the table; a log that names no
rules is Zioncheck.
"""
from functools import lru_cache
from typing import Literal, get_args

import msgspec

from zioncheck.contracts.commands import Buys, HandRule, JokerSwaps, Rules
from zioncheck.domain.hands import CONTRACTS, Contract
from zioncheck.domain.refusal import Refused

Jokers = Literal["two_a_deck", "one_fewer_than_decks"]


class Ruleset(msgspec.Struct, frozen=True):
    """A game's rules, resolved from its preset and house options (R24)."""
    preset: str
    contracts: tuple[Contract, ...]   # hand n's is contracts[n - 1] (R7, R24.1)
    third_deck_from: int = 6          # R1, R24.2: the players from which a third deck is shuffled in
    jokers: Jokers = "two_a_deck"     # R1, R24.2: how many jokers the decks bring
    joker_count: int | None = None    # a house's own number of jokers, all decks together
    pips: bool = False                # R3, R24.3: 2 to 10 score their face value, not 5 and 10
    upcard: bool = False              # R24.4: the deal turns the stock's top card up to start the pile
    first_twice: bool = True          # R11: the first player plays two turns (none where an upcard starts the pile)
    penalty_card: bool = False        # R24.5: a won claim takes the stock's top card too
    # Fields from here on are named in a state's hash only where a house option sets them otherwise than
    # its preset does (`hashed`), so that a game's hash is what it was before they were read.
    buys: Buys = "nearest"            # R11a, R24.5: which claim wins the discard
    buy_when_down: bool = True        # R11a, R24.9: a seat that has gone down may still take or claim the discard
    out_by_laying_off: bool = False   # R15, R24.10: laying off one's last card goes out, with no discard
    joker_swaps: JokerSwaps = "take"  # R14, R24.11: a run's joker is taken by its card, or moved to an end by it

    @property
    def hands(self) -> int:
        """R7, R24.1: how many hands a game has."""
        return len(self.contracts)

    def contract(self, hand: int) -> Contract | None:
        return self.contracts[hand - 1] if 1 <= hand <= len(self.contracts) else None

    def decks_for(self, players: int) -> int:
        """R1, R24.2: two decks, a third from `third_deck_from` players, a fourth from 9, then one more for
        every three more players."""
        if players < 2:
            raise ValueError(f"a game needs at least 2 players, not {players}")
        if players < 9:
            return 2 if players < self.third_deck_from else 3
        return 4 + (players - 9) // 3

    def jokers_for(self, decks: int) -> int:
        """R1, R24.2: the jokers shuffled in with `decks` decks."""
        if self.joker_count is not None:
            return self.joker_count
        return 2 * decks if self.jokers == "two_a_deck" else max(decks - 1, 0)


ZIONCHECK = Ruleset(preset="zioncheck", contracts=tuple(CONTRACTS[hand] for hand in sorted(CONTRACTS)))

# R24.1: Contract rummy's and Liverpool rummy's seven deals: ten cards in the first four, twelve after.
_SEVEN = (Contract(10, 2, 0), Contract(10, 1, 1), Contract(10, 0, 2), Contract(10, 3, 0),
          Contract(12, 2, 1), Contract(12, 1, 2), Contract(12, 0, 3))

# R24.5: both buy as the sources say, the first call taking the card. R24.9: Liverpool takes nothing from the pile
# once down (Weekend America). R24.10, R24.11: Contract goes out by laying off, and moves jokers (Parlett).
CONTRACT_RUMMY = Ruleset(preset="contract", contracts=_SEVEN, third_deck_from=5, jokers="one_fewer_than_decks",
                         pips=True, upcard=True, first_twice=False, penalty_card=True, buys="first",
                         out_by_laying_off=True, joker_swaps="move")
LIVERPOOL = Ruleset(preset="liverpool", contracts=_SEVEN[:-1] + (Contract(12, 0, 3, whole=True),), third_deck_from=5,
                    pips=True, upcard=True, first_twice=False, penalty_card=True, buys="first", buy_when_down=False)

PRESET_RULES: dict[str, Ruleset] = {r.preset: r for r in (ZIONCHECK, CONTRACT_RUMMY, LIVERPOOL)}

# House options' bounds (decided): what the searches for a contract (domain/finder.py) answer quickly.
MAX_HANDS = 12
MAX_DEALT = 20
MAX_SETS, MAX_RUNS, MAX_MELDS = 4, 3, 4
MAX_JOKERS_A_DECK = 4


def ruleset_of(rules: Rules | msgspec.UnsetType) -> Ruleset:
    """R24: the Ruleset a game's rules name; no rules at all (a log from before them) is Zioncheck."""
    if isinstance(rules, msgspec.UnsetType):
        return ZIONCHECK
    return _ruleset_of(rules)


# The house options a Rules may set over its preset's own reading, each a Ruleset field of the same name.
HOUSE_OPTIONS = ("buys", "buy_when_down", "out_by_laying_off", "joker_swaps")
OPTION_VALUES: dict[str, tuple[object, ...]] = {
    "buys": get_args(Buys), "buy_when_down": (True, False), "out_by_laying_off": (True, False),
    "joker_swaps": get_args(JokerSwaps), "last_whole": (True, False)}


@lru_cache(maxsize=64)
def _ruleset_of(rules: Rules) -> Ruleset:
    base = PRESET_RULES.get(rules.preset, ZIONCHECK)
    contracts = tuple(Contract(h.dealt, h.sets, h.runs, h.whole) for h in rules.hands) or base.contracts
    if rules.last_whole is not None:   # R24.6: the last hand laid whole, or played as any other
        contracts = contracts[:-1] + (contracts[-1]._replace(whole=rules.last_whole),)
    options = {name: getattr(rules, name) for name in HOUSE_OPTIONS if getattr(rules, name) is not None}
    return msgspec.structs.replace(base, contracts=contracts, joker_count=rules.jokers, **options)


def hashed(rules: Ruleset) -> dict[str, object]:
    """R24: the rules as a state's hash names them: every field, but for those read since presets were first
    hashed (HOUSE_OPTIONS) where they are the preset's own, so that a game's hash stays what it was."""
    named: dict[str, object] = msgspec.to_builtins(rules)
    preset = PRESET_RULES.get(rules.preset, ZIONCHECK)
    for name in HOUSE_OPTIONS:
        if getattr(rules, name) == getattr(preset, name):
            del named[name]
    return named


def check_rules(rules: Rules, decks: int | None) -> None:
    """R24: a preset the table knows, and house options within bounds for a game of `decks` decks (None: as
    for one deck); `bad_command` otherwise."""
    if rules.preset not in PRESET_RULES:
        raise Refused("bad_command", f"no game called {rules.preset!r}: {', '.join(PRESET_RULES)} (R24)")
    for name, allowed in OPTION_VALUES.items():   # the wire's decoder checks them; a Rules made in process not
        if getattr(rules, name) not in (None, *allowed):
            raise Refused("bad_command", f"{name} is one of {', '.join(map(str, allowed))}, not "
                                         f"{getattr(rules, name)!r} (R24.7)")
    if not 1 <= len(rules.hands) <= MAX_HANDS and rules.hands:
        raise Refused("bad_command", f"a game has 1 to {MAX_HANDS} hands, not {len(rules.hands)} (R24)")
    for number, hand in enumerate(rules.hands, 1):
        _check_hand(number, hand)
    if rules.last_whole is not None:   # R24.6: the last hand, laid whole or not, still deals enough cards
        last = ruleset_of(rules).contracts[-1]
        _check_hand(len(ruleset_of(rules).contracts), HandRule(dealt=last.dealt, sets=last.sets, runs=last.runs,
                                                               whole=last.whole))
    if rules.jokers is not None and not 0 <= rules.jokers <= MAX_JOKERS_A_DECK * (decks or 1):
        raise Refused("bad_command", f"{rules.jokers} jokers: a game has 0 to {MAX_JOKERS_A_DECK} a deck (R24)")


def _check_hand(number: int, hand: HandRule) -> None:
    where = f"hand {number}"
    if not (0 <= hand.sets <= MAX_SETS and 0 <= hand.runs <= MAX_RUNS and 1 <= hand.sets + hand.runs <= MAX_MELDS):
        raise Refused("bad_command", f"{where}: a contract has 0 to {MAX_SETS} sets and 0 to {MAX_RUNS} runs, "
                                     f"1 to {MAX_MELDS} melds in all (R24)")
    least = 3 * hand.sets + 4 * hand.runs - hand.whole   # the draw brings one card more than the deal
    if not least <= hand.dealt <= MAX_DEALT:
        raise Refused("bad_command", f"{where}: deal {least} to {MAX_DEALT} cards for that contract, "
                                     f"not {hand.dealt} (R24)")
