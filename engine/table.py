"""A table in process: one game's state and log, fed commands one at a time.

This is the application layer the scenario oracle, the simulator and the table
service share: decide, evolve, record, and ask the dealer when R16 needs a reshuffle.
"""
from contracts.commands import Command
from contracts.events import AnyEvent
from contracts.log import Entry
from domain import GameState, decide, evolve
from engine.dealer import Dealer
from engine.intake import stock_empty


class Table:
    def __init__(self, dealer: Dealer | None = None, state: GameState | None = None):
        self.dealer = dealer
        self.state = state or GameState()
        self.log: list[Entry] = []

    def handle(self, command: Command, cause: int | None = None) -> list[AnyEvent]:
        """Apply one command; returns the events it produced (a Rejected when refused)."""
        cause = len(self.log) if cause is None else cause
        events = decide(self.state, command)
        if stock_empty(events) and self.dealer is not None:
            reshuffled = self.record(decide(self.state, self.dealer.reshuffle(self.state)), cause)
            return reshuffled + self.record(decide(self.state, command), cause)
        return self.record(events, cause)

    def record(self, events: list[AnyEvent], cause: int) -> list[AnyEvent]:
        for event in events:
            self.state = evolve(self.state, event)
            self.log.append(Entry(seq=len(self.log) + 1, cause=cause, event=event))
        return events

