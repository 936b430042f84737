"""R15, R17, R21, R23: the scoring service folds a delivered hand boundary with the boundaries it holds
only where the hands it names show none is missing between them (domain/standings.py, following);
anything else is read from the log."""
from itertools import groupby

from zioncheck.application.simulation import play_game
from zioncheck.contracts import events as ev
from zioncheck.contracts.log import Batch
from zioncheck.domain.standings import following, of_boundaries
from zioncheck.services.bus.log_store import HAND_BOUNDARIES


def boundaries_of(game_id: str, seed: int = 3) -> list[tuple[int, Batch]]:
    """A whole greedy game's hand boundaries, each at its place in the game's log."""
    table = play_game(["greedy", "greedy", "greedy"], seed, game_id)
    batches = [Batch(cause=cause, events=[entry.event for entry in entries])
               for cause, entries in groupby(table.log, key=lambda entry: entry.cause)]
    return [(place, batch) for place, batch in enumerate(batches, 1)
            if any(isinstance(event, HAND_BOUNDARIES) for event in batch.events)]


def started(first_hand: int = 1) -> tuple[int, Batch]:
    return 1, Batch(cause=1, events=[ev.GameStarted(game_id="g", players=2, decks=2, dealer=0, first_hand=first_hand)])


def hand_ended(seq: int, hand: int) -> tuple[int, Batch]:
    return seq, Batch(cause=seq, events=[ev.HandEnded(hand=hand, winner=0, scores=[0, 5], stuck=[], totals=[0, 5])])


def test_r17_every_boundary_of_a_whole_game_follows_the_ones_before_it_and_folds_to_the_same_standings():
    boundaries = boundaries_of("whole")
    assert sum(isinstance(e, ev.HandEnded) for _, b in boundaries for e in b.events) == 6
    held: list[tuple[int, Batch]] = []
    for count, (seq, batch) in enumerate(boundaries, 1):
        held = following(held, seq, batch)
        assert held == boundaries[:count]
    assert of_boundaries(held) == of_boundaries(boundaries)
    assert of_boundaries(held)[0].over


def test_r15_a_boundary_after_a_missing_hand_end_is_read_from_the_log():
    boundaries = boundaries_of("gap")
    for missing in range(1, len(boundaries) - 1):   # every hand end but the last, left out in turn
        held = boundaries[:missing] + boundaries[missing + 1:-1]
        assert following(held, *boundaries[-1]) is None, f"boundary {missing} missing, yet folded"


def test_r17_a_boundary_delivered_again_or_before_any_start_is_read_from_the_log():
    boundaries = boundaries_of("again")
    assert following(boundaries[:3], *boundaries[1]) is None      # delivered again after a later one
    assert following(boundaries[:3], *boundaries[2]) is None      # the last held, delivered again
    assert following([], *boundaries[2]) is None                  # nothing held: the process started anew
    assert following(boundaries[1:3], *boundaries[3]) is None     # what is held lacks the start


def test_a_start_begins_the_boundaries_anew_whatever_is_held():
    """A game id used again once its first game left the hot streams starts from its own start."""
    old = boundaries_of("old")
    assert following(old, 9, started()[1]) == [(9, started()[1])]


def test_r17_a_game_started_at_a_later_hand_counts_its_hands_from_there():
    held = [started(first_hand=4)]
    held = following(held, *hand_ended(20, 4))
    assert held is not None and len(held) == 2
    assert following(held, *hand_ended(40, 6)) is None            # hand 5's end is missing
    assert following(held, *hand_ended(40, 5)) == [*held, hand_ended(40, 5)]


def test_r23_a_pause_follows_the_end_of_its_own_hand_only():
    held = [started(), hand_ended(20, 1)]
    pause = Batch(cause=21, events=[ev.PauseEnded(hand=1, why="timer")])
    assert following(held, 21, pause) == [*held, (21, pause)]
    later = Batch(cause=41, events=[ev.PauseEnded(hand=2, why="ready")])
    assert following(held, 41, later) is None                     # hand 2's end is missing


def test_r21_an_abandoned_game_follows_the_hands_it_ended_after():
    held = [started(), hand_ended(20, 1)]
    mid_hand = Batch(cause=30, events=[ev.GameAbandoned(hand=2, mid_hand=True), ev.GameEnded(totals=[0, 5],
                                                                                              winners=[0])])
    between = Batch(cause=30, events=[ev.GameAbandoned(hand=1), ev.GameEnded(totals=[0, 5], winners=[0])])
    assert following(held, 30, mid_hand) == [*held, (30, mid_hand)]
    assert following(held, 30, between) == [*held, (30, between)]
    assert following(held[:1], 30, mid_hand) is None              # hand 1's end is missing
    standings, _ = of_boundaries(following(held, 30, mid_hand))
    assert standings.abandoned and standings.over and standings.hands == [[0, 5]]


def test_a_boundary_naming_no_hand_is_read_from_the_log():
    held = [started(), hand_ended(20, 1)]
    assert following(held, 30, Batch(cause=30, events=[ev.GameEnded(totals=[0, 5], winners=[0])])) is None
