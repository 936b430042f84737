"""The HTTP side's own messages: what a platform or browser sends the gateway and gets back.

Data only, like contracts/: the game's commands, views and feed are contracts' own
Structs and go over HTTP unchanged; these wrap them.
"""
from typing import Annotated, Literal

import msgspec

from zioncheck.contracts.commands import BOT_LEVELS, DEFAULT_RULES, Limits, Rules
from zioncheck.contracts.feed import FeedBatch, FeedItem
from zioncheck.contracts.views import Contract, PublicView, SeatView
from zioncheck.domain.dealing import MAX_DELAY_SECONDS, MAX_PLAYERS, MIN_PLAYERS

# Who sits in a seat: a person or one of the house's bots by name (contracts.commands BOT_NAMES).
Player = Literal["person", "greedy", "random", "strong", "expert"]
# What a new game may name for a seat: a player, or a bot by its level (BOT_LEVELS): easy is the random
# bot, normal the greedy one, hard the strong one; the expert bot, above them, by its name. The gateway seats
# the level's bot, and says its name.
Choice = Literal["person", "greedy", "random", "strong", "expert", "easy", "normal", "hard"]


class NewGame(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """POST /games: who sits where. `seats[i]` is "person", or the bot that plays seat i by its name or its
    level ("easy", "normal" or "hard": the random, greedy or strong bot).

    `pace` is the seconds each bot waits before a move of its turn, so people can follow it;
    `turn_seconds` how long a person's turn may take before a bot plays it (R19); `idle_turns` how
    many such turns in a row make the seat's person away (R20); `abandon_seconds` how long a game with
    every person away waits (R21); `claim_seconds` how long a discard a person may claim waits before a
    bot draws (R22); `pause_seconds` the pause after a hand (R23). `rules` is the game played (R24: a
    preset, "zioncheck", "contract" or "liverpool", and house options); `decks` overrides the preset's
    number of decks for the players (R1, R24.2). `public` (the default): the gateway lists the game and anyone may
    watch it; false, only a platform key of its tenant and its seats' tokens see it (StartGame.public).
    `delay_seconds`: its spectators watch it that many seconds behind its seats (StartGame.delay_seconds), for a
    game played before an audience; 0, the default, is live.
    """
    players: Annotated[int, msgspec.Meta(extra_json_schema={"minimum": MIN_PLAYERS, "maximum": MAX_PLAYERS})]
    seats: list[Choice]
    dealer: int = 0
    pace: Annotated[float, msgspec.Meta(ge=0, le=10)] = 0.5
    turn_seconds: Annotated[int, msgspec.Meta(ge=5, le=3600)] = 60
    idle_turns: Annotated[int, msgspec.Meta(ge=1, le=20)] = 2
    abandon_seconds: Annotated[int, msgspec.Meta(ge=60, le=7 * 24 * 3600)] = 600
    claim_seconds: Annotated[float, msgspec.Meta(ge=0, le=30)] = 3.0
    pause_seconds: Annotated[int, msgspec.Meta(ge=0, le=120)] = 10
    rules: Rules = DEFAULT_RULES
    decks: Annotated[int, msgspec.Meta(ge=1, le=32)] | None = None
    public: bool = True
    delay_seconds: Annotated[int, msgspec.Meta(ge=0, le=MAX_DELAY_SECONDS)] = 0


def seated(new: NewGame) -> NewGame:
    """The new game with each seat named by a level given the name of the bot that plays it."""
    return msgspec.structs.replace(new, seats=[BOT_LEVELS.get(seat, seat) for seat in new.seats])


def limits_of(new: NewGame) -> Limits:
    """The clock a new game's start sets (R19-R23): its person's turns, claims, pauses and absences, the bots' pace."""
    return Limits(turn_seconds=new.turn_seconds, bot_seconds=new.pace, idle_turns=new.idle_turns,
                  abandon_seconds=new.abandon_seconds, claim_seconds=new.claim_seconds,
                  pause_seconds=new.pause_seconds)


class SeatTicket(msgspec.Struct, frozen=True):
    """One seat of a new game; a person's seat comes with the token that acts for it, and `link`, the seat's
    page with that token after `#` (it admits that seat only)."""
    seat: int
    player: Player
    token: str | None = None
    link: str | None = None


class GameCreated(msgspec.Struct, frozen=True):
    game_id: str
    players: int
    seats: list[SeatTicket]
    expires: int        # when the tokens expire, in seconds since the epoch
    watch: str          # the page that shows the game live


class LobbySeat(msgspec.Struct, frozen=True, kw_only=True):
    """One seat of a lobby: who plays it, whether its person has opened their link, and (to the host) that link.

    A link is the seat's page with the seat's token after `#`: it admits that seat and nothing else.
    """
    seat: int
    player: Player
    joined: bool = False
    link: str | None = None


class LobbyState(msgspec.Struct, frozen=True, kw_only=True):
    """POST /lobbies, GET /lobbies/{id}: a game whose seats are set, waiting for its host to start it.

    The seats' links and `host` (the host's own link, which shows them and starts the game)
    are given to the host only; a seat's token sees who has joined, and `you` is its seat.
    `game` is the game it will play (R24: a preset), `contracts` every hand's contract in order
    (R7, R24.1) and `limits` its clock (R19-R23), so whoever is asked to sit down knows the game.
    """
    game_id: str
    players: int
    seats: list[LobbySeat] = []
    started: bool = False
    expires: int            # when its links expire, in seconds since the epoch
    host: str | None = None
    you: int | None = None
    watch: str              # the page that shows the game live once it starts
    game: str = "zioncheck"
    contracts: list[Contract] = []
    limits: Limits = Limits()


class Outcome(msgspec.Struct, frozen=True, kw_only=True):
    """What one command did (R18). `seq` is its number in the commands stream.

    Accepted: `events` is the public side of the events it caused (as the feed shows
    them) and `drew` the card the seat drew from the stock, if it did. Refused:
    `reason` and `detail` say why; nothing changed, but the refusal is in the log.
    `said` is the refusal for a person: the reason's sentence and the detail, in the
    language the request's Accept-Language prefers of en, ru and es (English otherwise).
    """
    game_id: str
    seq: int
    accepted: bool
    events: list[FeedItem] = []
    drew: str | None = None
    reason: str | None = None
    detail: str | None = None
    said: str | None = None


GameStatus = Literal["waiting", "in_play", "between_hands", "over", "abandoned"]


# GET /games?limit=N lists the N games changed last: LIST_DEFAULT unless asked, never more than LIST_MAX.
LIST_DEFAULT, LIST_MAX = 100, 1000


class GameSummary(msgspec.Struct, frozen=True, kw_only=True):
    """GET /games: one game whose public view the projector has written.

    `status` is `in_play` (`turn` is to play), `between_hands`, `over`, or `abandoned` (R21: over
    with no person left; `totals` are the hands played); `waiting`, with the fields past `batches`
    empty, for a view that cannot be read. `idle` are the seats a bot keeps while their persons are
    away (R20).
    """
    game_id: str
    batches: int                     # log batches, one per command the game took, as its public view has seen
    seq: int = 0                     # log batches its public view has folded
    status: GameStatus = "waiting"
    players: int = 0
    hand: int = 0
    turn: int | None = None
    game_over: bool = False
    abandoned: bool = False
    idle: list[int] = []
    totals: list[int] = []
    winners: list[int] = []
    updated: float | None = None     # when the view last changed, seconds since the epoch
    public: bool = False             # anyone may watch it; false: a game of the asking key's tenant, listed to it only


class ReplayStep(msgspec.Struct, frozen=True):
    """GET /games/{id}/replay?step=N: a finished game's public view after its first N log batches.

    `feed` is the public side of batch N (None at step 0 or for a batch with nothing public).
    `hands` maps each hand dealt to the step that dealt it: where a replay jumps to see that hand.
    `cards` is every seat's hand after batch N, face up: a finished game hides nothing (its log, every
    card in it, is served too), so its replay shows each hand as the table saw it.
    """
    game_id: str
    step: int
    steps: int
    view: PublicView
    feed: FeedBatch | None = None
    hands: dict[int, int] = {}
    cards: list[list[str]] = []


ArchiveStatus = Literal["verified", "not_intact", "not_archived", "unchecked"]


class ArchiveFinding(msgspec.Struct, frozen=True, kw_only=True):
    """One thing that fails in an archive, as `zioncheck verify` tells it (application.archive.Problem): `what`
    fails, and where (`seq`, a batch's log sequence; `hand`, a hand's number; `detail`, more)."""
    what: str
    seq: int = 0
    hand: int = 0
    detail: str = ""


class ArchiveCheck(msgspec.Struct, frozen=True, kw_only=True):
    """GET /games/{id}/signature: a finished game's archive, checked by the gateway with the house's public key.

    `status` is `verified` (the archive is intact and the house signed it), `not_intact` (`findings` names what
    fails, as `zioncheck verify` tells it), `not_archived` (the archiver has not written it yet: it does once the game
    has settled) or `unchecked` (archived, but this gateway holds no house key to check it with). `key` is the
    house's public key it was checked with, `signed_by` the key the archive names, `state_hash` the hash of the
    game its manifest names, `size` its bytes; GET /games/{id}/archive gives the file, which `zioncheck verify`
    checks anywhere.
    """
    game_id: str
    status: ArchiveStatus
    key: str | None = None
    signed_by: str | None = None
    findings: list[ArchiveFinding] = []
    state_hash: str | None = None
    size: int | None = None


# GET /games/{id}/feed answers at most FEED_PAGE feed batches a request; a page asks again from `next`.
FEED_PAGE = 250


class FeedPage(msgspec.Struct, frozen=True, kw_only=True):
    """GET /games/{id}/feed?from=N: a game's feed batches, oldest first, from where the last page ended.

    A page has at most 250 batches; `more` says another page may follow, asked for with `from=next`.
    A batch's `seq` is its log batch's number; a page holds only batches whose seq is past `from`, each
    seq once, and `next` is the seq of its last batch (`from` itself when it has none).
    """
    game_id: str
    batches: list[FeedBatch]
    next: int
    more: bool


# A chat line holds at most CHAT_LENGTH characters (after its spaces are tidied).
CHAT_LENGTH = 200


class ChatSay(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """POST /games/{id}/chat: one line for the game's chat. Who says it is the token's seat: the body
    names no one (a body with another field is refused)."""
    text: str


class ChatLine(msgspec.Struct, frozen=True, kw_only=True):
    """One line of a game's chat, as the gateway passes it on: `seat` is the seat whose token sent it,
    set by the gateway; `text` is plain text, to be shown as text (never as HTML). `id` tells a line
    seen twice (after a reconnect) from a new one; `at` is when the gateway took it, in seconds since
    the epoch. Never stored: a line lives in the pages that heard it and in the gateways' memory of
    each game's last few lines."""
    id: str
    game_id: str
    seat: int
    text: str
    at: float


class Problem(msgspec.Struct, frozen=True):
    """Every 4xx and 5xx: a code a program can test and a sentence a person can read."""
    error: str
    detail: str


class PublicUpdate(msgspec.Struct, frozen=True, tag_field="kind", tag="view"):
    """On /public/ws: the newest public view. Keep the one with the highest `seq`."""
    view: PublicView


class SeatUpdate(msgspec.Struct, frozen=True, tag_field="kind", tag="view"):
    """On /view/ws: the newest view of the token's seat."""
    view: SeatView


class FeedUpdate(msgspec.Struct, frozen=True, tag_field="kind", tag="feed"):
    """On /public/ws: one feed batch, in order; a batch whose seq the client has seen is a repeat."""
    batch: FeedBatch


class Clock(msgspec.Struct, frozen=True, tag_field="kind", tag="clock"):
    """On both streams, first: the gateway's clock (`now`, seconds since the epoch), by which a page counts
    down to a view's deadline (`due_at`) whatever its own clock says. `behind`: the seconds this stream runs
    behind the game (a spectator of a game whose start set `delay_seconds`; 0 live), and `now` is then the
    gateway's clock less them, so a countdown reads as it did when its view was made."""
    now: float
    behind: float = 0


class ChatUpdate(msgspec.Struct, frozen=True, tag_field="kind", tag="chat"):
    """On /public/ws: a line of the game's chat; on joining, the game's last few lines first. A line
    whose `id` the client has seen is a repeat."""
    line: ChatLine


class Pong(msgspec.Struct, frozen=True, tag_field="kind", tag="pong"):
    """The answer to a client's {"type": "ping"}, the only frame a client may send."""


PublicMessage = PublicUpdate | FeedUpdate | ChatUpdate | Clock | Pong
SeatMessage = SeatUpdate | Clock | Pong
