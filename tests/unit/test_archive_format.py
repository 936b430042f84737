"""An archive says what it holds and proves it: `verify` finds every way a file can differ from the one
the house signed (contracts/archive.py, application/archive.py)."""
import itertools

import msgspec
import pytest

from zioncheck.application.archive import (
    Damaged,
    NotOver,
    make_record,
    new_signing_key,
    pack,
    public_key_of,
    seal,
    unpack,
    verify,
)
from zioncheck.application.replay import fold_log, state_hash
from zioncheck.application.simulation import play_game
from zioncheck.contracts.archive import MARK, Archive, GameRecord, Seed, StoredBatch, StoredCommand
from zioncheck.contracts.log import Batch, encode, entries_of

KEY, PUBLIC = new_signing_key()
START = 1_780_000_000_000_000_000


def played(game: str = "g1", bots: tuple[str, ...] = ("greedy", "greedy")) -> GameRecord:
    """A whole game played in process, stored as the streams would hold it."""
    table = play_game(list(bots), seed=7, game_id=game)
    batches = [Batch(cause=cause, events=[e.event for e in group])
               for cause, group in itertools.groupby(table.log, key=lambda e: e.cause)]
    stored = [StoredBatch(seq=10 + 3 * n, kind="move", at=START + n * 1_000_000, data=encode(b))
              for n, b in enumerate(batches)]
    commands = [StoredCommand(seq=n + 1, origin="play", at=START + n, data=b'{"type":"discard"}')
                for n in range(len(batches))]
    return make_record(tenant="platform", game=game, key=game, commands=commands, batches=stored,
                       standings=b'{"game_id":"g1","players":2,"over":true}')


RECORD = played()
FILE = pack(RECORD, KEY)


def repacked(change) -> bytes:
    """The file with its content changed by `change(archive) -> archive`, packed again as a forger would."""
    return seal(change(unpack(FILE)))


def whats(problems) -> list[str]:
    return [p.what for p in problems]


def test_an_archive_written_by_the_house_verifies_with_its_public_key_alone():
    assert verify(FILE, PUBLIC) == []


def test_packing_the_same_game_twice_gives_the_same_bytes():
    assert pack(played(), KEY) == FILE


def test_the_manifest_tells_the_game_without_replaying_it():
    manifest = RECORD.manifest
    table = play_game(["greedy", "greedy"], seed=7, game_id="g1")
    assert manifest.outcome == "finished" and manifest.hands == 6
    assert manifest.winners == list(table.state.winners) and manifest.totals == list(table.state.totals)
    assert manifest.state_hash == state_hash(fold_log(table.log))
    assert manifest.events == len(table.log) and manifest.batches == len(RECORD.batches)
    assert manifest.started_at == START and manifest.seats == ["person", "person"]
    assert manifest.rules == "zioncheck"   # R24: the game played, named in every new manifest


def test_r7_every_hand_dealt_has_its_seed_beside_its_commitment():
    assert [s.hand for s in RECORD.seeds] == [1, 2, 3, 4, 5, 6]
    assert all(len(s.commitment) == 64 and len(s.seed) > 0 for s in RECORD.seeds)


def test_a_game_still_in_play_makes_no_record():
    first_hand = [b for b in RECORD.batches[:5]]
    with pytest.raises(NotOver):
        make_record(tenant="platform", game="g1", key="g1", commands=[], batches=first_hand, standings=b"")


def test_a_flipped_byte_in_the_file_is_told_as_damage():
    data = bytearray(FILE)
    data[len(data) // 2] ^= 0x01
    assert whats(verify(bytes(data), PUBLIC)) == ["unreadable"]


def test_a_file_that_is_no_archive_is_told_so():
    problems = verify(b"{\"not\": \"an archive\"}", PUBLIC)
    assert whats(problems) == ["unreadable"] and "mark" in problems[0].detail
    with pytest.raises(Damaged):
        unpack(b"")


def test_a_changed_batch_is_found_where_it_stands():
    target = RECORD.batches[40]
    changed = target.data.replace(b'"seat":0', b'"seat":1', 1)
    assert changed != target.data

    def swap(archive: Archive) -> Archive:
        batches = list(archive.record.batches)
        batches[40] = msgspec.structs.replace(target, data=changed)
        return msgspec.structs.replace(archive, record=msgspec.structs.replace(archive.record, batches=batches))
    problems = verify(repacked(swap), PUBLIC)
    assert ("batch_changed", target.seq) in [(p.what, p.seq) for p in problems]
    assert "bad_signature" not in whats(problems)   # the signature still covers the chain: the batch is what changed


def dropped(index: int):
    def drop(archive: Archive) -> Archive:
        batches = archive.record.batches
        return msgspec.structs.replace(archive, record=msgspec.structs.replace(
            archive.record, batches=batches[:index] + batches[index + 1:] if index >= 0 else batches[:index]))
    return drop


def test_a_dropped_batch_is_told_missing_where_it_was():
    problems = verify(repacked(dropped(30)), PUBLIC)
    assert [(p.what, p.seq) for p in problems] == [("batch_missing", RECORD.batches[31].seq)]


def test_the_last_batch_dropped_is_told_missing_at_the_end():
    problems = verify(repacked(dropped(-1)), PUBLIC)
    assert ("batch_missing", RECORD.batches[-2].seq + 1) in [(p.what, p.seq) for p in problems]


def test_a_batch_dropped_with_its_mark_is_missing_and_the_marks_are_not_those_signed():
    def drop(archive: Archive) -> Archive:
        marks = archive.marks[:30 * MARK] + archive.marks[31 * MARK:]
        return msgspec.structs.replace(dropped(30)(archive), marks=marks)
    assert {"batch_missing", "marks_changed"} <= set(whats(verify(repacked(drop), PUBLIC)))


def test_two_batches_swapped_are_told_out_of_order():
    def swap(archive: Archive) -> Archive:
        batches = list(archive.record.batches)
        batches[20], batches[21] = batches[21], batches[20]
        return msgspec.structs.replace(archive, record=msgspec.structs.replace(archive.record, batches=batches))
    problems = verify(repacked(swap), PUBLIC)
    assert ("batches_reordered", RECORD.batches[20].seq) in [(p.what, p.seq) for p in problems]


def test_r7_a_swapped_seed_is_told_with_its_hand():
    other = "00" * 32

    def swap(archive: Archive) -> Archive:
        seeds = [Seed(hand=s.hand, seed=other if s.hand == 3 else s.seed, commitment=s.commitment)
                 for s in archive.record.seeds]
        return msgspec.structs.replace(archive, record=msgspec.structs.replace(archive.record, seeds=seeds))
    problems = verify(repacked(swap), PUBLIC)
    assert ("seed_mismatch", 3) in [(p.what, p.hand) for p in problems]
    assert "seeds_changed" in whats(problems)


def test_another_keys_archive_is_told_as_such():
    other_key, other_public = new_signing_key()
    problems = verify(pack(RECORD, other_key), PUBLIC)
    assert whats(problems) == ["other_key"] and problems[0].detail == other_public


def test_a_changed_manifest_breaks_the_signature():
    def lie(archive: Archive) -> Archive:
        manifest = msgspec.structs.replace(archive.record.manifest, winners=[1 - archive.record.manifest.winners[0]])
        return msgspec.structs.replace(archive, record=msgspec.structs.replace(archive.record, manifest=manifest))
    assert "bad_signature" in whats(verify(repacked(lie), PUBLIC))


def test_a_game_whose_fold_is_not_the_manifests_is_told_so():
    def lie(archive: Archive) -> Archive:
        manifest = msgspec.structs.replace(archive.record.manifest, state_hash="0" * 64)
        return msgspec.structs.replace(archive, record=msgspec.structs.replace(archive.record, manifest=manifest))
    assert {"bad_signature", "state_hash"} <= set(whats(verify(repacked(lie), PUBLIC)))


def test_changed_standings_and_commands_are_told_apart():
    def lie(archive: Archive) -> Archive:
        record = archive.record
        return msgspec.structs.replace(archive, record=msgspec.structs.replace(
            record, standings=b"{}", commands=record.commands[1:]))
    assert {"standings_changed", "commands_changed"} <= set(whats(verify(repacked(lie), PUBLIC)))


def test_the_public_key_is_the_signing_keys():
    assert public_key_of(KEY) == PUBLIC and len(PUBLIC) == 64


def test_an_archive_is_a_fraction_of_the_games_json():
    raw = sum(len(b.data) for b in RECORD.batches)
    assert len(FILE) * 4 < raw


def test_replaying_an_archive_gives_the_live_games_hash():
    from zioncheck.application.archive import entries_of_record
    assert state_hash(fold_log(entries_of_record(unpack(FILE).record))) == RECORD.manifest.state_hash
    assert entries_of_record(unpack(FILE).record) == entries_of([msgspec.json.decode(b.data, type=Batch)
                                                                 for b in RECORD.batches])
