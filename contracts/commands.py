"""Commands: what players and the dealer ask the table to do.

The wire form is JSON with a `type` tag; the seven player commands are those of
docs/scenarios.md. Cards travel as strings and are checked by the rules (R2), so a
malformed card is a rejection (`bad_command`), not a decode error.
"""
from typing import Final, Literal

import msgspec

End = Literal["low", "high"]

# Who a command comes from: the last token of its subject, zc.cmd.<game>.<origin>. NATS lets only
# platforms, the gateway and bots publish `play` commands, and only the dealer `dealer` ones.
# Nobody publishes `timer` ones: the server itself stores them when a deadline the table
# scheduled comes (R19, services/bus/topology.py schedule_subject).
PLAY, DEALER, TIMER = "play", "dealer", "timer"
Origin = Literal["play", "dealer", "timer"]
ORIGINS: tuple[str, ...] = (PLAY, DEALER, TIMER)

# Who sits in a seat (StartGame.seats): a person, or one of the house's bots by name.
PERSON = "person"
BOT_NAMES: tuple[str, ...] = ("greedy", "random", "strong", "expert")
# The levels people pick a bot by, each the name of the bot that plays it: easy, normal and hard.
BOT_LEVELS: Final[dict[str, str]] = {"easy": "random", "normal": "greedy", "hard": "strong"}
# Who plays a game's bot seats (StartGame.bots_by): the house's bots service, or the program that
# started the game (`zioncheck run` and `play` seat their own bots). Only that one sits down.
BotsBy = Literal["service", "starter"]
SERVICE: Final[BotsBy] = "service"
STARTER: Final[BotsBy] = "starter"

# Bounds checked before a command is decoded: no real command comes near them.
MAX_COMMAND_BYTES = 16 * 1024
MAX_COMMAND_DEPTH = 8     # nesting of JSON arrays and objects (a deal's hands are 3 deep)


class Command(msgspec.Struct, tag_field="type", frozen=True, kw_only=True):
    """Base of every command."""


# --- the game's own lifecycle -------------------------------------------------

class Limits(msgspec.Struct, frozen=True, kw_only=True):
    """A game's clock (R19-R23): how long a turn may take, when a seat counts as gone, how long a
    discard waits for a person's claim before a bot draws, and the pause between hands.

    The bounds are in domain/timers.py (LIMIT_BOUNDS); a start outside them is refused.
    """
    turn_seconds: int = 60       # R19: a turn's deadline; then a bot plays that turn
    idle_turns: int = 2          # R20: turns in a row timed out before a bot keeps the seat
    abandon_seconds: int = 600   # R21: how long a game with no person left waits for one
    bot_seconds: float = 0.0     # the house bots' pause before each move (a pace to watch them by)
    claim_seconds: float = 3.0   # R22: a discard a person may claim waits this long before a bot draws
    pause_seconds: int = 10      # R23: the pause after a hand, unless every person says ready sooner


# The rummy family's games a table plays (docs/rules.md R24): Zioncheck, and its cousins as presets.
ZIONCHECK = "zioncheck"
Preset = Literal["zioncheck", "contract", "liverpool"]
PRESETS: tuple[str, ...] = ("zioncheck", "contract", "liverpool")
# R24.5: which claim wins a discard: the first in the commands stream, or the nearest seat after the discarder (R11a).
Buys = Literal["first", "nearest"]
# R14, R24.11: a natural card laid in a run's joker's place takes the joker into its hand, or moves it to an end.
JokerSwaps = Literal["take", "move"]


class HandRule(msgspec.Struct, frozen=True, kw_only=True):
    """One hand of a game (R7, R24): the cards dealt to each seat and the contract, `sets` sets and `runs`
    runs. `whole`: the contract is laid with every card at once, which goes out with no discard (R24.6)."""
    dealt: int
    sets: int
    runs: int
    whole: bool = False


class Rules(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """The game a table plays (R24): a preset of the rummy family and house options over it.

    `hands`, when given, replaces the preset's hands and their contracts, in order; `jokers` the
    jokers shuffled in with the decks (all of them, not per deck). The number of decks is StartGame's
    `decks`. The bounds are in domain/presets.py; a start outside them is refused.

    The rest, each left out (None) to play the preset's own reading: `buys`, which claim wins a discard
    (R24.5); `buy_when_down`, whether a seat that has gone down may still take or claim the discard (R24.9);
    `out_by_laying_off`, whether laying off one's last card goes out (R24.10); `joker_swaps`, whether a
    natural card laid in a run's joker's place takes the joker or moves it to an end (R14, R24.11);
    `last_whole`, whether the last hand is laid whole, going out with no discard (R24.6).
    """
    preset: Preset = "zioncheck"
    hands: tuple[HandRule, ...] = ()
    jokers: int | None = None
    buys: Buys | None = None
    buy_when_down: bool | None = None
    out_by_laying_off: bool | None = None
    joker_swaps: JokerSwaps | None = None
    last_whole: bool | None = None


DEFAULT_RULES = Rules()   # Zioncheck, as it always was


class StartGame(Command, tag="start_game", frozen=True):
    """Opens a game. `decks` overrides R1's count; `dealer` is hand 1's dealer (R8).

    `first_hand` > 1 starts a game at a later contract (scenarios, practice);
    `stacked` means the caller deals every hand, not the dealer service.
    `seats` names who sits in each seat, PERSON or a bot of BOT_NAMES; empty, every seat is a
    person's. `bots_by` says who plays the bot seats: the house's bots service, or the program that
    starts the game (nothing else sits down). `limits` is the game's clock (R19-R23). `public`: anyone
    may watch the game, and the gateway lists it; left false, the game is its tenant's and its seats'
    alone, and the gateway shows it to nobody else. `delay_seconds`: the gateway shows the game to its
    spectators that many seconds after it happens (its seats and its tenant see it live), for a game
    played before an audience; no rule reads it.
    """
    game_id: str
    players: int
    dealer: int = 0
    decks: int | None = None
    first_hand: int = 1
    stacked: bool = False
    seats: list[str] = []
    limits: Limits = msgspec.field(default_factory=Limits)
    bots_by: BotsBy = SERVICE
    rules: Rules = msgspec.field(default_factory=Rules)
    public: bool = False
    delay_seconds: int = 0


class Deal(Command, tag="deal", frozen=True):
    """The dealer's deal of one hand (R8): cards already dealt out from a shuffle.

    `commitment` is the SHA-256 of the hand's secret seed, revealed after the hand.
    """
    hand: int
    hands: list[list[str]]
    stock: list[str]
    discard: list[str] = []
    commitment: str = ""


class Reshuffle(Command, tag="reshuffle", frozen=True):
    """R16: the dealer's order for the discard pile below its top card.

    `order[i]` is the pile index (bottom first) of the card that becomes the
    i-th card of the new stock, top first.
    """
    hand: int
    order: list[int]


class RevealSeed(Command, tag="reveal_seed", frozen=True):
    """The dealer reveals a finished hand's seed, so anyone can check its deal."""
    hand: int
    seed: str


# --- the server's timers (origin `timer` only) ----------------------------------------

class TurnTimeout(Command, tag="turn_timeout", frozen=True):
    """R19: the deadline of turn number `turn` (GameState.turn_no) of hand `hand` passed.

    A turn that is already over refuses it (`timer_stale`), so a late or repeated timer
    changes nothing.
    """
    hand: int
    turn: int


class AbandonGame(Command, tag="abandon_game", frozen=True):
    """R21: the game has had no person at it for its `abandon_seconds`, counted from the
    seats' presence change number `presence` (GameState.presence)."""
    presence: int


class ReleaseWindow(Command, tag="release_window", frozen=True):
    """R22: the claim window of turn `turn` of hand `hand` has been held for people its
    `claim_seconds`: a bot may draw now."""
    hand: int
    turn: int


class EndPause(Command, tag="end_pause", frozen=True):
    """R23: the pause after hand `hand` ran its `pause_seconds`: the next hand may be dealt."""
    hand: int


# --- a seat's moves (docs/scenarios.md) --------------------------------------------

class DrawStock(Command, tag="draw_stock", frozen=True):
    """R9, R10: draw the top card of the stock."""
    seat: int


class TakeDiscard(Command, tag="take_discard", frozen=True):
    """R10: take the top discard as this turn's draw."""
    seat: int


class ClaimDiscard(Command, tag="claim_discard", frozen=True):
    """R11a: an out-of-turn claim on the top discard."""
    seat: int


class GoDown(Command, tag="go_down", frozen=True):
    """R12: lay the hand's contract; runs are given ascending."""
    seat: int
    melds: list[list[str]]


class LayOff(Command, tag="lay_off", frozen=True):
    """R13: add one card to a meld on the table; `target` is [owner_seat, meld_index]."""
    seat: int
    target: tuple[int, int]
    card: str
    end: End | None = None


class SwapJoker(Command, tag="swap_joker", frozen=True):
    """R14: replace a joker in a run with the natural card it stands for."""
    seat: int
    target: tuple[int, int]
    card: str


class Discard(Command, tag="discard", frozen=True):
    """R9, R15: discard one card, ending the turn."""
    seat: int
    card: str


class Ready(Command, tag="ready", frozen=True):
    """R23: the seat's person has seen the hand's end and is ready for the next one."""
    seat: int


SeatCommand = DrawStock | TakeDiscard | ClaimDiscard | GoDown | LayOff | SwapJoker | Discard | Ready
DealerCommand = Deal | Reshuffle | RevealSeed
TimerCommand = TurnTimeout | AbandonGame | ReleaseWindow | EndPause
AnyCommand = StartGame | DealerCommand | TimerCommand | SeatCommand
