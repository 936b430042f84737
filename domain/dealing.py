"""Starting a game and dealing its hands: R1 decks, R7 sizes, R8 the deal, R16 reshuffles."""
import msgspec

from zioncheck.contracts.commands import Deal, Reshuffle, RevealSeed, StartGame
from zioncheck.contracts.events import AnyEvent, GameStarted, HandDealt, SeedRevealed, StockReshuffled
from zioncheck.domain import fairness
from zioncheck.domain.cards import NATURALS
from zioncheck.domain.drawing import reshuffle_due
from zioncheck.domain.gates import card
from zioncheck.domain.presets import ZIONCHECK, check_rules, ruleset_of
from zioncheck.domain.refusal import Refused
from zioncheck.domain.seats import left_of_dealer, seat_after
from zioncheck.domain.state import GameState, dealt_index
from zioncheck.domain.timers import check_limits, check_seats


def dealer_of(first_dealer: int, hand: int, players: int) -> int:
    """R8: hand 1's dealer is configured; each next dealer sits to the previous one's left."""
    return seat_after(first_dealer, hand - 1, players)


def first_dealer_of(dealer: int, hand: int, players: int) -> int:
    """R8: the seat that dealt hand 1, when `dealer` deals hand `hand` (the game a stacked deal implies)."""
    return seat_after(dealer, 1 - hand, players)


def deal_out(deck: list[str], players: int, dealer: int, per_seat: int) -> tuple[list[list[str]], list[str]]:
    """R8: one card at a time from the first player (dealer's left); the rest is the stock."""
    hands: list[list[str]] = [[] for _ in range(players)]
    first = left_of_dealer(dealer, players)
    for i in range(per_seat * players):
        hands[seat_after(first, i, players)].append(deck[i])
    return hands, deck[per_seat * players:]


# R1: a game needs two players; (decided) the rules set no upper bound, and a table this size is
# already a crowd. Every face that opens a game (the command line, the gateway) refuses outside this.
MIN_PLAYERS = 2
MAX_PLAYERS = 64
MAX_DELAY_SECONDS = 900   # a spectator delay (StartGame.delay_seconds) of up to a quarter of an hour


def start_game(state: GameState, command: StartGame) -> list[AnyEvent]:
    if state.started:
        raise Refused("bad_command", f"game {state.game_id} has already started")
    if not MIN_PLAYERS <= command.players <= MAX_PLAYERS:
        raise Refused("bad_command", f"a game seats {MIN_PLAYERS} to {MAX_PLAYERS} players, not {command.players} (R1)")
    if not 0 <= command.dealer < command.players:
        raise Refused("bad_command", f"no seat {command.dealer} to deal at a table of {command.players}")
    rules = ruleset_of(command.rules)
    decks = rules.decks_for(command.players) if command.decks is None else command.decks
    check_rules(command.rules, decks)
    if not 1 <= command.first_hand <= rules.hands:
        raise Refused("bad_command", f"first_hand must be 1..{rules.hands}, not {command.first_hand}")
    biggest = max(range(1, rules.hands + 1), key=lambda hand: rules.contracts[hand - 1].dealt)
    needed = rules.contracts[biggest - 1].dealt * command.players + rules.upcard
    if decks * len(NATURALS) + rules.jokers_for(decks) < needed:  # R1, R24.2: the pack deals the biggest hand
        raise Refused("bad_command", f"{decks} decks cannot deal hand {biggest} to {command.players} players")
    check_seats(command.seats, command.players)
    check_limits(command.limits)
    if not 0 <= command.delay_seconds <= MAX_DELAY_SECONDS:
        raise Refused("bad_command", f"delay_seconds must be 0 to {MAX_DELAY_SECONDS}, not {command.delay_seconds}")
    # R24: Zioncheck's rules are left out of the event, so its log is what it always was; so is a game's
    # being public, unless it is, and its spectators' delay, unless it has one.
    named = command.rules if rules != ZIONCHECK else msgspec.UNSET
    return [GameStarted(game_id=command.game_id, players=command.players, decks=decks, dealer=command.dealer,
                        first_hand=command.first_hand, stacked=command.stacked, seats=list(command.seats),
                        limits=command.limits, bots_by=command.bots_by, rules=named,
                        public=True if command.public else msgspec.UNSET,
                        delay_seconds=command.delay_seconds or msgspec.UNSET)]


def _between_hands(state: GameState) -> None:
    if not state.started:
        raise Refused("bad_command", "no game has started")
    if state.game_over:
        raise Refused("game_over", "the game is over")


def deal(state: GameState, command: Deal) -> list[AnyEvent]:
    _between_hands(state)
    if not state.hand_over or command.hand != state.hand + 1 or command.hand > state.rules.hands:
        raise Refused("bad_command", f"hand {command.hand} cannot be dealt now (hand {state.hand} is the last dealt)")
    if len(command.hands) != state.players or not all(command.hands):
        raise Refused("bad_command", f"a deal needs a non-empty hand for each of {state.players} seats")
    hands = [[card(c) for c in hand] for hand in command.hands]
    stock = [card(c) for c in command.stock]
    discard = [card(c) for c in command.discard]
    dealer = dealer_of(state.first_dealer, command.hand, state.players)
    return [HandDealt(hand=command.hand, dealer=dealer, hands=hands, stock=stock,
                      discard=discard, commitment=command.commitment)]


def reshuffle(state: GameState, command: Reshuffle) -> list[AnyEvent]:
    """R16: only for the hand in play, only on an empty stock, only a true permutation."""
    _between_hands(state)
    below = len(state.discard) - 1
    if state.hand_over or command.hand != state.hand or not reshuffle_due(state):
        raise Refused("bad_command", "no reshuffle is due")
    if sorted(command.order) != list(range(below)):
        raise Refused("bad_command", f"a reshuffle order must be a permutation of 0..{below - 1}")
    return [StockReshuffled(hand=command.hand, order=command.order)]


def reveal_seed(state: GameState, command: RevealSeed) -> list[AnyEvent]:
    hand = command.hand
    if not 1 <= hand <= state.hand or (hand == state.hand and not state.hand_over):
        raise Refused("bad_command", f"hand {hand}'s seed can be revealed only once it has ended")
    index = dealt_index(state, hand)
    if index is None:
        raise Refused("bad_command", f"hand {hand} was not dealt at this table (its game started later)")
    if state.seeds[index]:
        raise Refused("bad_command", f"hand {hand}'s seed is already revealed")
    promised = state.commitments[index]
    try:
        matches = fairness.commitment(command.seed) == promised
    except ValueError:
        matches = False
    if promised and not matches:
        raise Refused("bad_command", f"that seed does not match hand {hand}'s commitment {promised}")
    return [SeedRevealed(hand=hand, seed=command.seed)]

