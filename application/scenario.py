"""The rules oracle: play one hand from a stacked deal (format: docs/scenarios.md)."""
import msgspec

from zioncheck.application.seeds import Dealer
from zioncheck.application.turns import InProcessTable
from zioncheck.contracts.commands import DEFAULT_RULES, Rules
from zioncheck.contracts.events import AnyEvent, GameStarted, HandDealt
from zioncheck.domain import GameState, fold
from zioncheck.domain.cards import canonical
from zioncheck.domain.dealing import first_dealer_of
from zioncheck.domain.presets import ZIONCHECK, check_rules, ruleset_of
from zioncheck.domain.refusal import Refused, refusal_of


class ScenarioError(ValueError):
    """The scenario file itself is malformed (exit 2), as opposed to a refused command."""


class Scenario(msgspec.Struct):
    players: int
    hands: list[list[str]]
    stock: list[str]
    commands: list[msgspec.Raw]
    hand: int = 1
    dealer: int | None = None
    discard: list[str] = []
    seed: int = 0
    rules: Rules = DEFAULT_RULES   # R24: the game played; Zioncheck unless named

    @property
    def hand_dealer(self) -> int:
        """The seat that deals the hand: the last one unless the scenario names one, so seat 0 plays first (R8)."""
        return self.players - 1 if self.dealer is None else self.dealer

    @property
    def first_dealer(self) -> int:
        """Hand 1's dealer in the game that leads to the stacked deal (R8)."""
        return first_dealer_of(self.hand_dealer, self.hand, self.players)


def load(data: bytes) -> Scenario:
    try:
        scenario = msgspec.json.decode(data, type=Scenario)
    except (msgspec.ValidationError, msgspec.DecodeError) as error:
        raise ScenarioError(f"not a scenario: {error}") from None
    _check(scenario)
    return scenario


def _check(s: Scenario) -> None:
    if s.players < 2:
        raise ScenarioError(f"players must be at least 2, not {s.players}")
    try:
        check_rules(s.rules, None)
    except Refused as refusal:
        raise ScenarioError(refusal.detail) from None
    hands = ruleset_of(s.rules).hands
    if not 1 <= s.hand <= hands:
        raise ScenarioError(f"hand must be 1..{hands}, not {s.hand}")
    if len(s.hands) != s.players or not all(s.hands):
        raise ScenarioError(f"hands must give at least one card to each of {s.players} seats")
    if s.dealer is not None and not 0 <= s.dealer < s.players:
        raise ScenarioError(f"dealer must be a seat 0..{s.players - 1}, not {s.dealer}")
    if not 0 <= s.seed < 2**256:
        raise ScenarioError(f"seed must be an integer from 0 to 2**256 - 1, not {s.seed}")
    piles = [(f"hands[{i}]", h) for i, h in enumerate(s.hands)] + [("stock", s.stock), ("discard", s.discard)]
    for where, cards in piles:
        bad = [c for c in cards if canonical(c) is None]
        if bad:
            raise ScenarioError(f"{where} holds {bad[0]!r}, which is not a card (R2)")


def given(s: Scenario) -> GameState:
    """The stacked deal as the events that would have led to it."""
    deal = HandDealt(hand=s.hand, dealer=s.hand_dealer, hands=[_cards(h) for h in s.hands], stock=_cards(s.stock),
                     discard=_cards(s.discard))
    rules = ruleset_of(s.rules)
    started = GameStarted(game_id="scenario", players=s.players, decks=rules.decks_for(s.players),
                          dealer=s.first_dealer, first_hand=s.hand, stacked=True,
                          rules=s.rules if rules != ZIONCHECK else msgspec.UNSET)
    return fold(GameState(), [started, deal])


def _cards(texts: list[str]) -> list[str]:
    """The cards in canonical form (R2); _check has made sure each text is a card."""
    return [card for card in map(canonical, texts) if card is not None]


def run(s: Scenario) -> dict:
    table = InProcessTable(dealer=Dealer(lambda hand: f"{s.seed:064x}"), state=given(s))
    results = []
    for index, raw in enumerate(s.commands):
        results.append(result(index, table.handle_bytes(bytes(raw), cause=index)))
    return {"results": results, "state": view(table.state)}


def result(index: int, events: list[AnyEvent]) -> dict:
    if rejected := refusal_of(events):
        return {"index": index, "accepted": False, "reason": rejected.reason, "detail": rejected.detail}
    return {"index": index, "accepted": True, "events": msgspec.to_builtins(events)}


def view(state: GameState) -> dict:
    """The state block of docs/scenarios.md."""
    return {
        "hand": state.hand,
        "turn": state.turn,
        "drawn": state.drawn,
        "hands": [list(h) for h in state.hands],
        "table": [{"owner": m.owner, "index": m.index, "kind": m.kind, "cards": list(m.cards)} for m in state.table],
        "discard": list(state.discard),
        "stock_count": len(state.stock),
        "down": [seat for seat, down in enumerate(state.down) if down],
        "over": state.hand_over,
        "winner": state.winner,
        "scores": list(state.scores) if state.scores is not None else None,
        "stuck": list(state.stuck),
    }
