"""A table newly pinned resets its partition's consumer (services/bus/consumers.py): the messages it took
before the reset come a second time, and each such second copy is skipped once, nothing else."""
from zioncheck.services.bus.consumers import Echoes


def test_the_second_copies_a_reset_brings_are_skipped_once_and_held_commands_are_not():
    echoes = Echoes()
    echoes.reset_at(10)                   # the first delivery with the new pin
    assert [echoes.echo(seq) for seq in (11, 12)] == [False, False]   # the rest of that pull
    # the reset's deliveries: from the ack floor (7, 8, 9 held by the instance before), then the copies
    assert [echoes.echo(seq) for seq in (8, 9, 10, 11, 12, 13)] == [False, False, True, True, True, False]
    assert [echoes.echo(seq) for seq in (10, 11, 12)] == [False, False, False], "a later delivery is handled"


def test_without_a_reset_nothing_is_skipped():
    echoes = Echoes()
    assert not any(echoes.echo(seq) for seq in (1, 2, 2, 3))
    echoes.reset_at(5)
    echoes.forget()                       # the reset failed: nothing comes twice
    assert not echoes.echo(5)
