"""The vocabulary has no gaps: every command has its decider, every event its evolver and its place in
the feed (or a mark that it stays private), and every R18 reason a sentence for people.

A command, event or reason added to contracts/ fails here, naming what it still lacks.
"""
from collections.abc import Iterable
from typing import get_args

from zioncheck.contracts.commands import AnyCommand
from zioncheck.contracts.events import AnyEvent
from zioncheck.contracts.feed import FeedItem
from zioncheck.contracts.log import tag_of
from zioncheck.contracts.reasons import REASONS, SENTENCES
from zioncheck.domain.decide import DECIDERS
from zioncheck.domain.evolve import EVOLVERS
from zioncheck.domain.views.redact import PRIVATE, PUBLIC

COMMANDS = get_args(AnyCommand)
EVENTS = get_args(AnyEvent)


def names(types: Iterable[type]) -> str:
    return ", ".join(kind.__name__ for kind in types)


def test_the_unions_are_read_whole():
    """The checks below see every member of the unions, nested ones included."""
    assert len(COMMANDS) == 16 and all(isinstance(kind, type) for kind in COMMANDS)
    assert len(EVENTS) == 24 and all(isinstance(kind, type) for kind in EVENTS)


def test_every_command_has_a_decider():
    missing = [kind for kind in COMMANDS if kind not in DECIDERS]
    assert not missing, f"no decider in domain.decide.DECIDERS for {names(missing)}"


def test_every_decider_is_for_a_command_of_the_union():
    stray = [kind for kind in DECIDERS if kind not in COMMANDS]
    assert not stray, f"domain.decide.DECIDERS decides {names(stray)}, not in contracts.commands.AnyCommand"


def test_every_event_has_an_evolver():
    missing = [kind for kind in EVENTS if kind not in EVOLVERS]
    assert not missing, f"no evolver in domain.evolve.EVOLVERS for {names(missing)}"


def test_every_evolver_is_for_an_event_of_the_union():
    stray = [kind for kind in EVOLVERS if kind not in EVENTS]
    assert not stray, f"domain.evolve.EVOLVERS applies {names(stray)}, not in contracts.events.AnyEvent"


def test_every_event_is_public_or_marked_private():
    missing = [kind for kind in EVENTS if kind not in PUBLIC and kind not in PRIVATE]
    assert not missing, (f"{names(missing)}: neither redacted for the feed (domain.views.redact.PUBLIC) "
                         f"nor marked private (domain.views.redact.PRIVATE)")
    both = [kind for kind in EVENTS if kind in PUBLIC and kind in PRIVATE]
    assert not both, f"{names(both)}: both public and private in domain.views.redact"


def test_every_public_event_has_a_feed_class_of_its_tag():
    feed_tags = {tag_of(item) for item in get_args(FeedItem)}
    missing = [kind for kind in EVENTS if kind in PUBLIC and tag_of(kind) not in feed_tags]
    assert not missing, f"no class in contracts.feed.FeedItem with the tag of {names(missing)}"


def test_every_reason_has_a_sentence():
    missing = [reason for reason in REASONS if not SENTENCES.get(reason, "").strip()]
    assert not missing, f"no sentence in contracts.reasons.SENTENCES for {', '.join(missing)}"


def test_every_sentence_is_for_a_reason():
    stray = [reason for reason in SENTENCES if reason not in REASONS]
    assert not stray, f"contracts.reasons.SENTENCES explains {', '.join(stray)}, not in contracts.reasons.Reason"


def test_every_sentence_is_short_and_reads_before_a_detail():
    """Lower case, no full stop, a few words: `not your turn: it is seat 2's turn, not seat 0's`."""
    odd = [f"{reason}: {sentence!r}" for reason, sentence in SENTENCES.items()
           if sentence != sentence.strip() or sentence[0].isupper() or sentence.endswith(".") or len(sentence) > 50]
    assert not odd, "sentences that would not read well before a detail:\n" + "\n".join(odd)
