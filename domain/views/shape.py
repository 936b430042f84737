"""The views computed from a projection: what a spectator sees, and what one seat sees."""
from typing import Literal

from zioncheck.contracts.commands import AbandonGame, EndPause, ReleaseWindow, TurnTimeout
from zioncheck.contracts.views import Contract, PublicView, SeatView
from zioncheck.domain.claims import held
from zioncheck.domain.hands import describe
from zioncheck.domain.legal import legal_moves
from zioncheck.domain.presets import ZIONCHECK, Ruleset
from zioncheck.domain.views.projection import Projection

Due = Literal["", "turn", "claim", "pause", "abandon"]
DUE: dict[type, Due] = {TurnTimeout: "turn", ReleaseWindow: "claim", EndPause: "pause", AbandonGame: "abandon"}


def public_view(projection: Projection) -> PublicView:
    """The game with every hand reduced to its size and the stock to its count."""
    g = projection.game
    dealt = bool(projection.deals)  # a game started at a later hand names it only once dealt
    in_play = not g.hand_over
    due = projection.deadline
    return PublicView(
        game_id=g.game_id, seq=projection.seq, applied=projection.applied, players=g.players, decks=g.decks,
        hand=g.hand if dealt else 0, contract=_contract(g.rules, g.hand) if dealt else None, dealer=g.dealer,
        hand_over=g.hand_over, turn=g.turn if in_play else None, drawn=in_play and g.drawn,
        hand_sizes=[len(h) for h in g.hands] or [0] * g.players,
        table=[m.shown for m in g.table],
        discard=list(g.discard), stock=len(g.stock), down=list(g.down) or [False] * g.players,
        discarder=g.top_discarder, window_open=in_play and g.window_open,
        claims=list(g.claims) if in_play and g.window_open else [], last_claims=projection.last_claims,
        scores=list(projection.scores), totals=list(g.totals), game_over=g.game_over,
        winners=list(g.winners), deals=list(projection.deals), seats=list(g.seats),
        idle=[seat for seat, away in enumerate(g.idle) if away], abandoned=g.abandoned,
        due=DUE[type(due.command)] if due else "", due_at=projection.due_at if due else None,
        held=in_play and held(g), ready=[seat for seat, ready in enumerate(g.ready) if ready],
        revealed=[list(cards) for cards in g.hands] if g.hand_over and g.scores is not None else [],
        game=g.rules.preset, hands=g.rules.hands, contracts=_contracts(g.rules), public=g.public,
        reshuffles=g.reshuffles, bot_seconds=g.limits.bot_seconds, limits=g.limits,
    )


def seat_view(projection: Projection, seat: int, public: PublicView | None = None) -> SeatView:
    """The public view, this seat's own cards and its own refusals: never another seat's, never the stock.
    `public`: the projection's public view, when the caller has made it already (every seat's is the same)."""
    g = projection.game
    cards = list(g.hands[seat]) if g.hands else []
    refusals = list(projection.refusals[seat]) if seat < len(projection.refusals) else []
    return SeatView(seq=projection.seq, seat=seat, cards=cards, refusals=refusals,
                    public=public_view(projection) if public is None else public, moves=legal_moves(g, seat))


def _contract(rules: Ruleset, hand: int) -> Contract | None:
    c = rules.contract(hand)
    return Contract(sets=c.sets, runs=c.runs, dealt=c.dealt, text=describe(c), whole=c.whole) if c else None


def _contracts(rules: Ruleset) -> list[Contract]:
    """R7, R24.1: every hand's contract, in order (empty for Zioncheck's six, which every face knows)."""
    if rules.preset == "zioncheck" and rules.contracts == ZIONCHECK.contracts:
        return []
    return every_contract(rules)


def every_contract(rules: Ruleset) -> list[Contract]:
    """R7, R24.1: every hand's contract in a game of `rules`, in order, Zioncheck's six too."""
    return [c for hand in range(1, rules.hands + 1) if (c := _contract(rules, hand))]
