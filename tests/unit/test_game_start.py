"""What a game's start writes into its log beside the rules: who plays its bot seats, and whether anyone may
watch it. Both are the starter's to say (StartGame), and the log is where every service reads them."""
from zioncheck.contracts.commands import SERVICE, STARTER, StartGame
from zioncheck.contracts.events import GameStarted
from zioncheck.contracts.log import Batch, decode_event, encode
from zioncheck.domain import GameState, decide, fold
from zioncheck.domain.views import project, public_view

# A three-seat start as every log held it before a start could make a game public: a private game's still is.
PRIVATE_START = (b'{"type":"game_started","game_id":"g","players":3,"decks":2,"dealer":0,"first_hand":1,'
                 b'"stacked":false,"seats":[],"limits":{"turn_seconds":60,"idle_turns":2,"abandon_seconds":600,'
                 b'"bot_seconds":0.0,"claim_seconds":3.0,"pause_seconds":10},"bots_by":"service","v":1}')


def started(command: StartGame) -> GameStarted:
    [event] = decide(GameState(), command)
    assert isinstance(event, GameStarted), event
    return event


def test_a_start_whose_starter_plays_the_bots_logs_that_the_starter_plays_them():
    event = started(StartGame(game_id="g", players=2, seats=["person", "greedy"], bots_by=STARTER))
    assert event.bots_by == STARTER
    assert decode_event(encode(event)).bots_by == STARTER   # what the bots service reads back from the log


def test_a_start_that_names_nobody_leaves_the_bots_to_the_bots_service():
    assert started(StartGame(game_id="g", players=2, seats=["person", "greedy"])).bots_by == SERVICE


def test_a_public_start_logs_a_public_game_and_its_public_view_says_so():
    event = started(StartGame(game_id="g", players=3, public=True))
    assert decode_event(encode(event)).public is True
    assert public_view(project([Batch(cause=1, events=[event])])).public


def test_a_start_that_says_nothing_is_private_and_logged_byte_for_byte_as_before():
    event = started(StartGame(game_id="g", players=3))
    assert encode(event) == PRIVATE_START
    assert not fold(GameState(), [decode_event(PRIVATE_START)]).public
    assert not public_view(project([Batch(cause=1, events=[decode_event(PRIVATE_START)])])).public
