"""Whole games between bots, in process: what `zioncheck simulate` plays."""
import math
import random
from collections.abc import Callable

from zioncheck.application.seeds import Dealer, seeded
from zioncheck.application.turns import InProcessTable
from zioncheck.bots import Bot, make_bot
from zioncheck.bots.base import least_useful
from zioncheck.contracts.commands import DEFAULT_RULES, Command, Discard, DrawStock, GoDown, LayOff, Rules, StartGame
from zioncheck.contracts.events import AnyEvent, Discarded, HandEnded
from zioncheck.contracts.log import Entry
from zioncheck.domain import GameState, decide
from zioncheck.domain.legal import legal_moves
from zioncheck.domain.refusal import refusal_of

# A hand in which no seat ever goes out and the pile never runs dry could go on
# for ever between bots that never go down; a simulation gives up on it instead.
MAX_COMMANDS_PER_HAND = 20_000


class GameStalled(RuntimeError):
    pass


def game_rng(seed: int | str, game_id: str) -> random.Random:
    return random.Random(f"{seed}/{game_id}/bots")


def play_game(bot_names: list[str], seed: int | str, game_id: str, rules: Rules = DEFAULT_RULES,
              make: Callable[[str, random.Random], Bot] = make_bot) -> InProcessTable:
    """One whole game of `rules` (R24; six hands of Zioncheck unless they say otherwise); the same seed,
    bots, id and rules give the same log, byte for byte. `make` builds each seat's bot from its name and the
    game's generator (a bench wraps or replaces the house's bots so)."""
    rng = game_rng(seed, game_id)
    bots = [make(name, rng) for name in bot_names]
    dealer = Dealer(seeded(seed, game_id))
    table = InProcessTable(dealer=dealer)
    table.handle(StartGame(game_id=game_id, players=len(bots), rules=rules))
    while not table.state.game_over:
        table.handle(dealer.deal(table.state))
        play_hand(table, bots, rng)
        table.handle(dealer.reveal(table.state.hand))
    return table


def play_hand(table: InProcessTable, bots: list[Bot], rng: random.Random) -> None:
    """The bots play the hand in play to its end, each seat's turn and the others' claims and swaps."""
    for _ in range(MAX_COMMANDS_PER_HAND):
        state = table.state
        if state.hand_over:
            return
        seat = state.turn
        events = _send(table, _in_turn(state, seat, bots[seat].move(state, seat)))
        if any(isinstance(e, Discarded) for e in events) and not table.state.hand_over:
            _out_of_turn(table, bots, rng, discarder=seat)
    raise GameStalled(f"hand {table.state.hand} of {table.state.game_id} ran past {MAX_COMMANDS_PER_HAND} commands")


def _out_of_turn(table: InProcessTable, bots: list[Bot], rng: random.Random, discarder: int) -> None:
    """After a discard the other seats may claim it (R11a) or swap jokers (R14), in random order."""
    seats = [s for s in range(len(bots)) if s not in (discarder, table.state.turn)]
    rng.shuffle(seats)
    for seat in seats:
        for command in bots[seat].out_of_turn(table.state, seat):
            if _unread(table.state, command) is None:
                _send(table, command)


# The refusals of rules the house's bots do not read yet: a seat that has gone down takes no discard (R24.9),
# a run's joker stays on the table (R24.11). A bot's move refused for one of them is not sent: out of turn it
# is left out, in turn the seat plays the move `_in_turn` finds instead. Any other refusal is the bot's fault.
UNREAD = ("down_cannot_take", "joker_stays")


def _unread(state: GameState, command: Command) -> str | None:
    """The reason of UNREAD the rules would refuse `command` for, if any (decide is pure: nothing is sent)."""
    if state.rules.buy_when_down and state.rules.joker_swaps == "take":
        return None   # a game that gives neither reason (Zioncheck's): nothing to screen
    rejected = refusal_of(decide(state, command))
    return rejected.reason if rejected is not None and rejected.reason in UNREAD else None


def _in_turn(state: GameState, seat: int, command: Command) -> Command:
    """The bot's move, or where the rules refuse it for a reason of UNREAD, one they take: a draw from the
    stock before the turn's draw; after it, going down, else the first lay-off, else shedding a card."""
    if _unread(state, command) is None:
        return command
    if not state.drawn:
        return DrawStock(seat=seat)
    moves = legal_moves(state, seat)
    if moves.go_down:
        return GoDown(seat=seat, melds=moves.go_down)
    if moves.lay_off:
        move = moves.lay_off[0]
        return LayOff(seat=seat, target=(move.owner, move.index), card=move.card, end=move.end)
    return Discard(seat=seat, card=least_useful(state.hands[seat]))


def _send(table: InProcessTable, command: Command) -> list[AnyEvent]:
    events = table.handle(command)
    if rejected := refusal_of(events):
        raise AssertionError(f"bot move refused: {command} -> {rejected.reason}: {rejected.detail}")
    return events


def hand_results(log: list[Entry]) -> list[HandEnded]:
    return [e.event for e in log if isinstance(e.event, HandEnded)]


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson's score interval of a win rate, `wins` of `games` (95% for the default z): the rates the
    games cannot tell apart from the one measured. A shared win may count as a fraction."""
    if games <= 0:
        return 0.0, 1.0
    rate = wins / games
    middle = (rate + z * z / (2 * games)) / (1 + z * z / games)
    half = z / (1 + z * z / games) * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games * games))
    return max(0.0, middle - half), min(1.0, middle + half)
