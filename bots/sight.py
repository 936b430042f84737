"""What one seat may know of a game: its own cards and what the table shows, never a hidden card.

Every bot decides from a `Sight` alone (bots/base.py, `Bot.decide` and `Bot.react`). The bots service
makes it from the seat's own view (`sight_of_view`: a SeatView, what the projector writes for that seat
and the server lets the bots' login read, docs/security.md); a table held in this process (the simulator,
the table's stand-in for a timed-out turn) makes it from the game state (`sight_of`), copying the seat's
own cards and the public table and keeping of every other hand only its size and of the stock only its
count. Either way a card another seat holds, or the stock's order, is not in it to be read, and the two
give the same sight of the same moment (tests/test_bot_sight.py). Both carry the seat's legal moves (the view's
`moves`, domain/legal.py), so that a bot plays whatever the game's rules allow and nothing they refuse, and the
game's preset (R24), whose reading of the rules a bot may plan by.
"""
from collections import Counter

import msgspec

from zioncheck.contracts.views import SeatMoves, SeatView, TableMeld
from zioncheck.domain.cards import JOKER, NATURALS
from zioncheck.domain.hands import CONTRACTS, Contract
from zioncheck.domain.legal import legal_moves
from zioncheck.domain.melds import run_start
from zioncheck.domain.state import GameState, PlacedMeld


class Sight(msgspec.Struct, frozen=True):
    """One seat's knowledge at one moment (R9-R15): its cards, the others' sizes, the table and the pile."""
    seat: int
    players: int
    decks: int
    hand_no: int
    contract: Contract                   # the hand's contract, as the game's rules set it (R7, R24.1)
    jokers: int                          # the jokers the game's decks hold (R1, R24.2)
    cards: tuple[str, ...]               # the seat's own hand
    hand_sizes: tuple[int, ...]          # every seat's number of cards, its own included
    table: tuple[PlacedMeld, ...]
    discard: tuple[str, ...]             # bottom first, top last
    discarder: int | None                # who threw the pile's top card; None if it was dealt there (R10)
    down: tuple[bool, ...]
    turn: int
    drawn: bool
    window_open: bool
    stock: int                           # cards left in the stock, never which
    reshuffles: int
    totals: tuple[int, ...]
    game: str = "zioncheck"              # R24: the game played, by its preset's name, as the views name it
    moves: SeatMoves = SeatMoves()       # what the seat may do now, each a move the table accepts (domain/legal.py)

    @property
    def top(self) -> str | None:
        return self.discard[-1] if self.discard else None

    @property
    def top_discarder(self) -> int | None:
        return self.discarder if self.discard else None

    def can_take(self) -> bool:
        """R10: the pile has a card this seat did not throw."""
        return bool(self.discard) and self.top_discarder != self.seat

    def unseen(self) -> Counter[str]:
        """The copies of each card this seat has not seen: in the stock or another seat's hand, for all it knows."""
        left: Counter[str] = Counter({card: self.decks for card in NATURALS})
        left[JOKER] = self.jokers
        left.subtract(self.cards)
        left.subtract(self.discard)
        for meld in self.table:
            left.subtract(meld.cards)
        return left


def sight_of(state: GameState, seat: int) -> Sight:
    """What `seat` knows of `state`: its own cards and the public table; of the other hands their sizes."""
    return Sight(
        seat=seat, players=state.players, decks=state.decks, hand_no=state.hand, contract=state.contract,
        jokers=state.rules.jokers_for(state.decks), cards=state.hands[seat],
        hand_sizes=tuple(len(hand) for hand in state.hands), table=state.table, discard=state.discard,
        discarder=state.top_discarder, down=state.down, turn=state.turn, drawn=state.drawn,
        window_open=state.window_open, stock=len(state.stock), reshuffles=state.reshuffles, totals=state.totals,
        game=state.rules.preset, moves=legal_moves(state, seat))


def sight_of_view(view: SeatView) -> Sight:
    """What a seat knows from its own view (contracts/views.py): the same as `sight_of` the game at that moment
    gives. The jokers in play are not in the view as a number, but every card of the decks is somewhere it
    counts (the hands' sizes, the stock, the pile, the table), and the naturals are `decks` of each."""
    public = view.public
    table = tuple(_placed(meld) for meld in public.table)
    cards_seen = sum(public.hand_sizes) + public.stock + len(public.discard) + sum(len(m.cards) for m in table)
    shown = public.contract or (public.contracts[0] if public.contracts else None)
    contract = (Contract(dealt=shown.dealt, sets=shown.sets, runs=shown.runs, whole=shown.whole) if shown
                else CONTRACTS[1])   # before the first deal, Zioncheck's first hand (nothing to decide then)
    return Sight(
        seat=view.seat, players=public.players, decks=public.decks, hand_no=public.hand, contract=contract,
        jokers=max(cards_seen - public.decks * len(NATURALS), 0), cards=tuple(view.cards),
        hand_sizes=tuple(public.hand_sizes), table=table, discard=tuple(public.discard),
        discarder=public.discarder, down=tuple(public.down),
        turn=-1 if public.turn is None else public.turn,   # no hand in play: nobody's turn
        drawn=public.drawn, window_open=public.window_open, stock=public.stock, reshuffles=public.reshuffles,
        totals=tuple(public.totals), game=public.game, moves=view.moves)


def _placed(meld: TableMeld) -> PlacedMeld:
    """A meld as the view shows it, as the table holds it: a run's first value is its first natural's less
    its place (R5, R6)."""
    cards = tuple(meld.cards)
    return PlacedMeld(owner=meld.owner, index=meld.index, kind=meld.kind, cards=cards,
                      low=run_start(cards) if meld.kind == "run" else 0)
