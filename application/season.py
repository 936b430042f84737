"""A season of archived games as four tables, column by column: what `zioncheck export --parquet`
writes, one Parquet file a table (docs/history.md has each column's meaning and questions asked of them).

    games   one row a game: who sat, when, how it ended, its totals and counts
    hands   one row a hand: its dealer, who went out, its turns, moves, claims and reshuffles
    moves   one row a move a seat made (a draw, a claim, a going down, a discard, ...), in log order
    scores  one row a seat a hand: its points, its running total, whether it went out or was stuck

Every row names its game by `tenant` and `game` (the id the tenant gave it), and the rules it was played
by (`rules`, R24: a hand, a score or a win means another thing in each game of the family). Pure: a
GameRecord in, rows out; the log's batches are folded with the rules (domain.evolve) to know each move's
hand and turn.
"""
from dataclasses import dataclass

import msgspec

from zioncheck.contracts.archive import GameRecord
from zioncheck.contracts.events import (
    ClaimFailed,
    ClaimWon,
    DiscardClaimed,
    Discarded,
    DiscardTaken,
    GameAbandoned,
    GameStarted,
    HandDealt,
    HandEnded,
    JokerSwapped,
    LaidOff,
    StockDrawn,
    StockExhausted,
    StockReshuffled,
    TurnTimedOut,
    WentDown,
)
from zioncheck.contracts.log import decode_batch, tag_of
from zioncheck.domain import GameState, evolve

Kind = str   # "string", "int32", "int64", "bool", "timestamp" (ns, UTC), "list<int32>", "list<string>"


@dataclass(frozen=True)
class Column:
    name: str
    kind: Kind


def _columns(spec: str) -> tuple[Column, ...]:
    return tuple(Column(*item.split(":")) for item in spec.split())


# The tables' columns, in order. docs/history.md describes each; tests/test_history_doc.py holds the two together.
TABLES: dict[str, tuple[Column, ...]] = {
    "games": _columns(
        "tenant:string game:string rules:string house_options:string key:string players:int32 seats:list<string> "
        "started_at:timestamp ended_at:timestamp hands:int32 outcome:string winners:list<int32> totals:list<int32> "
        "commands:int32 batches:int32 events:int32 moves:int32 claims:int32 reshuffles:int32 state_hash:string"),
    "hands": _columns(
        "tenant:string game:string rules:string hand:int32 dealer:int32 started_at:timestamp ended_at:timestamp "
        "finished:bool winner:int32 turns:int32 moves:int32 claims:int32 claims_won:int32 swaps:int32 "
        "reshuffles:int32 stuck:list<int32> scores:list<int32>"),
    "moves": _columns(
        "tenant:string game:string rules:string hand:int32 turn:int32 seat:int32 player:string kind:string "
        "cards:list<string> meld_owner:int32 meld:int32 out_of_turn:bool timed_out:bool command:int64 batch:int64 "
        "at:timestamp"),
    "scores": _columns(
        "tenant:string game:string rules:string hand:int32 seat:int32 player:string score:int32 total:int32 "
        "went_out:bool stuck:bool"),
}

# The events that are a seat's move, and what each is called in `moves.kind` (its tag on the wire).
Move = (StockDrawn | DiscardTaken | StockExhausted | DiscardClaimed | ClaimWon | ClaimFailed | WentDown | LaidOff
        | JokerSwapped | Discarded | TurnTimedOut)


class Season:
    """The four tables of the games added so far, as columns (lists by column name)."""

    def __init__(self) -> None:
        self.tables: dict[str, dict[str, list]] = {}
        self.games = 0
        self.take()

    def take(self) -> dict[str, dict[str, list]]:
        """The rows gathered so far, table by table, and a fresh start: a writer takes them a few games at a time."""
        taken = self.tables
        self.tables = {table: {column.name: [] for column in columns} for table, columns in TABLES.items()}
        self.games = 0
        return taken

    def rows(self, table: str) -> int:
        return len(self.tables[table]["game"])

    def add(self, record: GameRecord) -> None:
        """One archived game's rows in every table; none of them if its log cannot be read or folded
        (the error is raised: msgspec's for a batch that is no log batch, another for events out of order)."""
        for table, values in _Game(record).fold():
            for name, column in self.tables[table].items():
                column.append(values.get(name))
        self.games += 1


@dataclass
class _Hand:
    """The hands row of the hand in play, as far as the log has gone."""
    hand: int
    dealer: int
    started_at: int
    first_turn: int = 0          # GameState.turn_no at the hand's first turn
    moves: int = 0
    claims: int = 0
    claims_won: int = 0
    swaps: int = 0
    reshuffles: int = 0


class _Game:
    """One game's rows, gathered as its log is folded."""

    def __init__(self, record: GameRecord):
        self.record, self.manifest = record, record.manifest
        self.rows: list[tuple[str, dict[str, object]]] = []
        self.names = list(self.manifest.seats)
        self.rules = "zioncheck"              # R24: a log whose start names no rules is Zioncheck's
        self.house_options: str | None = None
        self.hand: _Hand | None = None
        self.moves = self.claims = self.reshuffles = 0

    def fold(self) -> list[tuple[str, dict[str, object]]]:
        """The game's rows, each with its table's name."""
        state = GameState()
        for stored in self.record.batches:
            batch = decode_batch(stored.data)
            stand_in = next((e.seat for e in batch.events if isinstance(e, TurnTimedOut)), None)
            for event in batch.events:
                if isinstance(event, GameStarted):
                    self._started(event)
                if isinstance(event, HandEnded):
                    self._hand_ended(state, event, stored.at)
                elif isinstance(event, Move):
                    self._move(state, event, stored.at, batch.cause, stored.seq, stand_in)
                elif isinstance(event, StockReshuffled) and self.hand is not None:
                    self.hand.reshuffles += 1
                    self.reshuffles += 1
                elif isinstance(event, GameAbandoned) and not event.mid_hand:
                    self.hand = None
                state = evolve(state, event)
                if isinstance(event, HandDealt):
                    self.hand = _Hand(event.hand, event.dealer, stored.at, first_turn=state.turn_no)
        if self.hand is not None:   # the hand the game was abandoned in (R21): not scored
            self._hand_row(self.hand, state, self.manifest.ended_at, {"finished": False})
        m = self.manifest
        self._row("games", house_options=self.house_options, key=m.key, players=m.players, seats=list(m.seats),
                  started_at=m.started_at, ended_at=m.ended_at, hands=m.hands, outcome=m.outcome,
                  winners=list(m.winners), totals=list(m.totals), commands=m.commands, batches=m.batches,
                  events=m.events, moves=self.moves, claims=self.claims, reshuffles=self.reshuffles,
                  state_hash=m.state_hash)
        return self.rows

    def _started(self, event: GameStarted) -> None:
        """R24: the game's rules, by its preset's name, and its house options as JSON (None when it set none)."""
        if isinstance(event.rules, msgspec.UnsetType):
            return
        self.rules = event.rules.preset
        options = msgspec.json.encode(msgspec.structs.replace(event.rules, preset="zioncheck"))
        self.house_options = None if options == b"{}" else options.decode()

    def _move(self, state: GameState, event: Move, at: int, command: int, batch: int, stand_in: int | None) -> None:
        if self.hand is None:
            return
        self.hand.moves += 1
        self.moves += 1
        if isinstance(event, DiscardClaimed):
            self.hand.claims += 1
            self.claims += 1
        elif isinstance(event, ClaimWon):
            self.hand.claims_won += 1
        elif isinstance(event, JokerSwapped):
            self.hand.swaps += 1
        if isinstance(event, WentDown):
            cards = [card for laid in event.melds for card in laid.cards]
        else:
            card = getattr(event, "card", None)
            cards = [card] if card else []
        owner, meld = (event.owner, event.index) if isinstance(event, LaidOff | JokerSwapped) else (None, None)
        self._row("moves", hand=state.hand, turn=state.turn_no - self.hand.first_turn + 1, seat=event.seat,
                  player=self._name(event.seat), kind=tag_of(event), cards=cards, meld_owner=owner, meld=meld,
                  out_of_turn=event.seat != state.turn, timed_out=stand_in == event.seat, command=command,
                  batch=batch, at=at)

    def _hand_ended(self, state: GameState, event: HandEnded, at: int) -> None:
        for seat, score in enumerate(event.scores):
            self._row("scores", hand=event.hand, seat=seat, player=self._name(seat), score=score,
                      total=event.totals[seat], went_out=event.winner == seat, stuck=seat in event.stuck)
        if self.hand is not None:
            self._hand_row(self.hand, state, at, {"finished": True, "winner": event.winner,
                                                  "stuck": list(event.stuck), "scores": list(event.scores)})
        self.hand = None

    def _hand_row(self, hand: _Hand, state: GameState, ended_at: int, end: dict[str, object]) -> None:
        row = {name: value for name, value in vars(hand).items() if name != "first_turn"}
        self._row("hands", **row, ended_at=ended_at, turns=state.turn_no - hand.first_turn + 1, **end)

    def _row(self, table: str, **values: object) -> None:
        self.rows.append((table, {"tenant": self.manifest.tenant, "game": self.manifest.game, "rules": self.rules,
                                  **values}))

    def _name(self, seat: int) -> str:
        return self.names[seat] if seat < len(self.names) else "person"
