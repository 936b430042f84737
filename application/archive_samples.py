"""Archived games made in process, with no server: bot games played as `zioncheck simulate` plays
them, each command and log batch kept as the streams would have stored it, and the whole made into a
GameRecord (application/archive.py). What the history tests and benches archive, list and export.

The same arguments give the same record, byte for byte: the seeds follow from `seed` and the game's
id, and the store times are made up, `STEP` apart from `started_at`.
"""
from collections.abc import Sequence

import msgspec

from zioncheck.application.archive import make_record
from zioncheck.application.seeds import Dealer, seeded
from zioncheck.application.simulation import game_rng, play_hand
from zioncheck.application.turns import InProcessTable
from zioncheck.bots import Bot, make_bot
from zioncheck.contracts.archive import GameRecord, StoredBatch, StoredCommand
from zioncheck.contracts.commands import (
    DEALER,
    DEFAULT_RULES,
    PERSON,
    PLAY,
    TIMER,
    AbandonGame,
    Command,
    DealerCommand,
    Limits,
    Rules,
    StartGame,
    TimerCommand,
    TurnTimeout,
)
from zioncheck.contracts.events import AnyEvent, GameEnded, GameStarted, HandEnded, PauseEnded
from zioncheck.contracts.log import Batch, encode
from zioncheck.contracts.scores import Standings
from zioncheck.domain import standings as scoring

STEP = 2_000_000_000            # two seconds between commands, in nanoseconds
STORED = 1_000_000              # a batch is stored a millisecond after its command
MARCH_2026 = 1_772_323_200 * 1_000_000_000   # 2026-03-01T00:00:00Z, in nanoseconds
# What the table puts on a game's `hand` subject (HAND_BOUNDARIES in services/bus/log_store.py): the rest are moves.
HAND_BOUNDARIES = (GameStarted, HandEnded, PauseEnded, GameEnded)
DEFAULT_TENANT = "platform"     # whose games keep their bare ids (game_key in services/bus/topology.py)


class RecordingTable(InProcessTable):
    """The in-process table, keeping each command as its partition's stream would store it and each
    batch of events as the game's log would."""

    def __init__(self, dealer: Dealer, started_at: int, first_command: int = 1, first_batch: int = 1):
        super().__init__(dealer=dealer)
        self.started_at = started_at
        self.commands: list[StoredCommand] = []
        self.batches: list[StoredBatch] = []
        self.first_command, self.first_batch = first_command, first_batch
        self._at = started_at

    def handle(self, command: Command, cause: int | None = None) -> list[AnyEvent]:
        seq = self.first_command + len(self.commands)
        self._at = self.started_at + len(self.commands) * STEP
        self.commands.append(StoredCommand(seq=seq, origin=origin(command), at=self._at, data=encode(command)))
        return super().handle(command, seq)

    def record(self, events: list[AnyEvent], cause: int) -> list[AnyEvent]:
        batch = Batch(cause=cause, events=events)
        kind = "hand" if any(isinstance(event, HAND_BOUNDARIES) for event in events) else "move"
        self.batches.append(StoredBatch(seq=self.first_batch + len(self.batches), kind=kind,
                                        at=self._at + STORED, data=encode(batch)))
        return super().record(events, cause)


def origin(command: Command) -> str:
    """Which subject of the commands stream a command comes on: the dealer's, the server's timers', or play."""
    if isinstance(command, DealerCommand):
        return DEALER
    return TIMER if isinstance(command, TimerCommand) else PLAY


def play_recorded(game: str, bots: Sequence[str] = ("greedy", "random", "greedy", "random"), seed: str = "history",
                  started_at: int = MARCH_2026, abandon_after: int | None = None,
                  rules: Rules = DEFAULT_RULES) -> RecordingTable:
    """A bot game (each seat named for its bot) of `rules` (R24) played to its end. With `abandon_after` n,
    seat 0 is a person's (its bot plays for it) who leaves in hand n + 1: its turns run out until a bot
    keeps the seat (R19, R20), and the game is abandoned (R21) in that hand."""
    rng = game_rng(seed, game)
    players = [make_bot(name, rng) for name in bots]
    dealer = Dealer(seeded(seed, game))
    table = RecordingTable(dealer, started_at)
    seats = list(bots) if abandon_after is None else [PERSON, *bots[1:]]
    # A person at the table holds discards for a claim and pauses between hands (R22, R23): not here.
    table.handle(StartGame(game_id=game, players=len(bots), seats=seats, rules=rules,
                           limits=Limits(claim_seconds=0, pause_seconds=0)))
    while not table.state.game_over:
        table.handle(dealer.deal(table.state))
        if abandon_after is not None and table.state.hand > abandon_after:
            _leave(table, players)
            table.handle(dealer.reveal(table.state.hand))   # the dealer reveals an abandoned hand's seed all the same
            break
        play_hand(table, players, rng)
        table.handle(dealer.reveal(table.state.hand))
    return table


def _leave(table: RecordingTable, players: list[Bot]) -> None:
    """Seat 0's person is gone: its turns time out (a bot plays each) until a bot keeps the seat, and
    the game, with nobody left at it, is abandoned in the hand."""
    while not table.state.idle[0]:
        state = table.state
        if state.turn == 0:
            table.handle(TurnTimeout(hand=state.hand, turn=state.turn_no))
        else:
            table.handle(players[state.turn].move(state, state.turn))
    table.handle(AbandonGame(presence=table.state.presence))


def standings_of(table: RecordingTable) -> bytes:
    """The game's zc_standings value at its end, as the scoring service folds it (R15-R17, R21)."""
    found: Standings | None = None
    for entry in table.log:
        found, _ = scoring.apply(found, entry.event)
    assert found is not None, "a recorded game starts with GameStarted"
    return msgspec.json.encode(msgspec.structs.replace(found, log_seq=table.batches[-1].seq))


def sample_record(game: str, tenant: str = DEFAULT_TENANT, key: str | None = None,
                  bots: Sequence[str] = ("greedy", "random", "greedy", "random"), seed: str = "history",
                  started_at: int = MARCH_2026, abandon_after: int | None = None,
                  rules: Rules = DEFAULT_RULES) -> GameRecord:
    """One archived bot game of `tenant`'s (see play_recorded), as the archiver records it."""
    table = play_recorded(game, bots, seed, started_at, abandon_after, rules)
    return make_record(tenant=tenant, game=game, key=key or (game if tenant == DEFAULT_TENANT else f"{tenant}={game}"),
                       commands=table.commands, batches=table.batches, standings=standings_of(table))


def sample_season(games: int, tenant: str = DEFAULT_TENANT, seed: str = "history", started_at: int = MARCH_2026,
                  apart: int = 3_600 * 1_000_000_000, abandon_every: int = 0) -> list[GameRecord]:
    """`games` bot games of one tenant, one starting every `apart` nanoseconds from `started_at`, the
    seats' bots and their number varying from game to game; with `abandon_every` n, every n-th game is
    abandoned after its second hand."""
    line_ups = [("greedy", "random", "greedy", "random"), ("greedy", "greedy", "random"), ("random", "greedy")]
    records = []
    for i in range(games):
        abandoned = bool(abandon_every) and (i + 1) % abandon_every == 0
        records.append(sample_record(f"{seed}-{i:05d}", tenant, bots=line_ups[i % len(line_ups)], seed=seed,
                                     started_at=started_at + i * apart, abandon_after=2 if abandoned else None))
    return records
