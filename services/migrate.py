"""Moving a store of the layout before partitions (one ZC_COMMANDS on zc.cmd.<game>.<origin>, one
ZC_LOG on zc.log.<game>.<kind>) into the partition streams: `zioncheck migrate`.

Each game's commands are copied, in order, into its partition's commands stream, and its log
batches appended to its partition's log through the log store's guarded append, each batch's
`cause` renumbered to its command's new sequence: the table, reading the game's log, finds every
copied command applied and goes on with the next. The services' consumers on the partition
streams are made to start after the copies, so no service handles a moved game's history again
(no second deal, no second score); but the archiver's, which reads every game's end from the start, so
that the moved games are archived too. The old streams stay as they were, to be removed by the
operator once the moved games are checked (`zioncheck games`, `zioncheck replay`). Standings name
the log sequence they were folded up to; that is renumbered too.

It runs with the services stopped, before they first start on the partitioned layout: it refuses
when a partition stream holds anything already.

A store made before archives has log streams (and a scores stream) that deny purges, a seal the
server never lifts: the archiver could archive their games but never take them out of the hot
streams. `unseal` makes each such stream again without the seal, the same messages at the same
sequences (copied aside into a stream sourcing it, the stream made again, copied back in order
with their headers, but the append guard's, Nats-Expected-*, checked when each was first stored),
and the services' consumers on it made again where they were; but the archiver's, which reads
every game's end again, finds each archived and schedules its removal. Only a stream whose
sequences run unbroken from 1 is made again: a log stream's always do, as nothing in it is ever
removed; the new store times are those of the copy.

A store made before the views and the feed went off the synced path has them synced at every write, and
a stream's persist mode is never changed: `derived_off_the_synced_path` removes the stream and makes it
again, empty, off it; `zioncheck migrate` then writes every game's views (and feed) again from its log.

A store written before tenants names a game by its id alone where a tenant reads it: its feed on
zc.feed.<game>, its standings at <game>, its views at <game>.public. Every such game is the default
tenant's (topology.DEFAULT_TENANT), whose names carry the tenant's token: `before_tenants` finds
them and copies the standings to their new key; `zioncheck migrate` then writes their views and feed
again from their logs, and purges the old feed. The old views and standings keys are left unread.
"""
import asyncio
import contextlib
from collections.abc import Callable

import msgspec
from msgspec.structs import replace
from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy, StreamConfig, StreamSource
from nats.js.errors import KeyNotFoundError, KeyWrongLastSequenceError, NotFoundError

from zioncheck.contracts.log import Batch, decode_batch, encode
from zioncheck.contracts.scores import Standings
from zioncheck.services.bus import log_store
from zioncheck.services.bus.consumers import (
    consumer_config,
    create_consumer,
    create_pinned_consumer,
    pulled_consumer_config,
)
from zioncheck.services.bus.topology import (
    COMMANDS,
    DERIVED,
    FEED,
    LOG,
    STANDINGS,
    commands_stream,
    derived_stream_config,
    ensure_topology,
    kv_stream,
    kv_subject,
    layout,
    log_stream,
    off_the_synced_path,
    origin_of,
    standings_key,
    stored_command_subject,
    stream_configs,
)


class MigrationRefused(Exception):
    """The store cannot be moved as it is (said in one line)."""


async def _room_for(js: JetStreamContext, stream: str, commands: list) -> None:
    """Refuse before a game's commands are copied into a partition's commands stream that they would take
    past its byte limit: it discards old (message schedules require it), so it would push out the first
    games moved (subject, headers and the store's record taken at 128 bytes a command at most)."""
    info = await js.stream_info(stream)
    needs = sum(len(msg.data or b"") + len(msg.subject) + 128 for msg in commands)
    if info.config.max_bytes and info.config.max_bytes > 0 and info.state.bytes + needs > info.config.max_bytes:
        raise MigrationRefused(f"{stream} would pass its byte limit ({info.config.max_bytes:,}) and push out commands "
                               f"moved already: raise ZIONCHECK_STORE_GIB, remove the partition streams and migrate "
                               f"again ({COMMANDS} keeps every command)")


async def old_games(js: JetStreamContext) -> dict[str, int]:
    """The games the old log stream holds, and their batches (empty when there is no old stream)."""
    return log_store.per_game(await log_store.subject_counts(js, LOG, "zc.log.*.*"))


async def _stored(js: JetStreamContext, stream: str, subject: str) -> list:
    """Every message of `stream` on `subject`, oldest first (an ordered consumer: no request a message)."""
    try:
        last = await js.get_msg(stream, subject=subject)
    except NotFoundError:
        return []
    found = []
    sub = await js.subscribe(subject, stream=stream, ordered_consumer=True, deliver_policy=DeliverPolicy.ALL)
    try:
        while not found or found[-1].metadata.sequence.stream < last.seq:
            found.append(await sub.next_msg(timeout=10))
    finally:
        await sub.unsubscribe()
    return found


async def migrate(js: JetStreamContext, say: Callable[[str], None] = lambda line: None) -> int:
    """Move every game of the old streams; returns how many were moved."""
    games = await old_games(js)
    if not games:
        say(f"nothing to move: no {LOG} stream of the layout before partitions")
        return 0
    await ensure_topology(js, say=say)
    where = await layout(js)
    for p in range(where.partitions):
        for stream in (commands_stream(p), log_stream(p)):
            held = (await js.stream_info(stream)).state.messages
            if held:
                raise MigrationRefused(f"{stream} holds {held} message(s) already: move the old store into fresh "
                                       f"partition streams, before the services first start on them")
    for game in games:
        p = where.of(game)
        renumbered: dict[int, int] = {}
        commands = await _stored(js, COMMANDS, f"zc.cmd.{game}.*")
        await _room_for(js, commands_stream(p), commands)
        for msg in commands:
            ack = await js.publish(stored_command_subject(p, game, origin_of(msg.subject)), msg.data,
                                   stream=commands_stream(p))
            renumbered[msg.metadata.sequence.stream] = ack.seq
        logged = log_store.LoggedGame(game=game, partition=p)
        moved: dict[int, int] = {}   # each batch's old log sequence -> its new one
        for msg in await _stored(js, LOG, f"zc.log.{game}.*"):
            batch = decode_batch(msg.data)
            await log_store.append(js, logged, Batch(cause=renumbered[batch.cause], events=batch.events))
            moved[msg.metadata.sequence.stream] = logged.last_seq
        await _standings_renumbered(js, game, moved)
        say(f"moved {game}: {len(renumbered)} commands and {logged.batches} batches into partition {p}")
    await _consumers_after_the_copies(js, where.partitions)
    say(f"moved {len(games)} game(s); {COMMANDS} and {LOG} are left as they were, for the operator to remove")
    return len(games)


async def before_tenants(js: JetStreamContext, say: Callable[[str], None] = lambda line: None) -> list[str]:
    """The games whose feed was written before tenants (their views and feed are to be written again),
    with their standings copied to the key a tenant reads."""
    games = sorted({subject.split(".")[2] for subject in await log_store.subject_counts(js, FEED, "zc.feed.*")})
    kv = await js.key_value(STANDINGS)
    for subject in await log_store.subject_counts(js, kv_stream(STANDINGS), kv_subject(STANDINGS, "*")):
        game = subject.rsplit(".", 1)[1]
        try:
            await kv.create(standings_key(game), (await kv.get(game)).value)
        except (KeyNotFoundError, KeyWrongLastSequenceError):   # gone meanwhile, or copied already
            continue
        say(f"{game}: standings at {standings_key(game)}")
    return games


async def _standings_renumbered(js: JetStreamContext, game: str, moved: dict[int, int]) -> None:
    """The game's standings name the log sequence they were folded up to (scoring skips a fold that is not
    past it): renumbered to the moved log, so the next hand end is scored."""
    kv = await js.key_value(STANDINGS)
    try:
        standings = msgspec.json.decode((await kv.get(standings_key(game))).value, type=Standings)
    except KeyNotFoundError:
        return
    if standings.log_seq in moved:
        await kv.put(standings_key(game), encode(replace(standings, log_seq=moved[standings.log_seq])))


async def _consumers_after_the_copies(js: JetStreamContext, partitions: int) -> None:
    """Each service's durable consumer on each partition stream, starting after the moved messages."""
    from zioncheck.services.wiring import SPECS  # the services' own declarations of what they take
    for p in range(partitions):
        for spec in SPECS:
            for takes in spec.takes:
                if takes.stream is None or takes.kind == "stored":   # the archiver's read from the start:
                    continue                                          # the moved games are archived too
                stream = takes.stream(p)
                start = (await js.stream_info(stream)).state.last_seq + 1
                try:  # made by a start of the services on the empty streams: made again, after the copies
                    await js.delete_consumer(stream, takes.group)
                except NotFoundError:
                    pass
                if takes.kind == "commands":
                    if error := await create_pinned_consumer(js._nc, stream, takes.group, takes.subject(p),
                                                             deliver_policy="by_start_sequence", opt_start_seq=start):
                        raise MigrationRefused(f"consumer {takes.group} on {stream}: {error}")
                    continue
                if takes.together:   # the projector's, which acks nothing
                    if error := await create_consumer(js._nc, stream,
                                                      pulled_consumer_config(takes.group, takes.subject(p), start)):
                        raise MigrationRefused(f"consumer {takes.group} on {stream}: {error}")
                    continue
                base = consumer_config(ack_wait=takes.ack_wait)
                await js.add_consumer(stream, ConsumerConfig(
                    durable_name=takes.group, filter_subject=takes.subject(p), ack_policy=AckPolicy.EXPLICIT,
                    ack_wait=base.ack_wait, max_ack_pending=base.max_ack_pending, max_deliver=base.max_deliver,
                    deliver_policy=DeliverPolicy.BY_START_SEQUENCE, opt_start_seq=start))


async def unseal(js: JetStreamContext, say: Callable[[str], None] = lambda line: None) -> list[str]:
    """Make every stream that denies purges, and should not now, again without the seal (see the module's
    docstring); the streams made again."""
    wanted = {config.name: config for config in stream_configs(partitions=(await layout(js)).partitions)}
    done = []
    for name, config in wanted.items():
        try:
            current = (await js.stream_info(name)).config
        except NotFoundError:
            continue
        if current.deny_purge and not config.deny_purge:
            await _made_again(js, name, current, say)
            done.append(name)
    return done


async def _made_again(js: JetStreamContext, name: str, current: StreamConfig, say: Callable[[str], None]) -> None:
    state = (await js.stream_info(name)).state
    if state.messages and (state.first_seq != 1 or state.messages != state.last_seq):
        raise MigrationRefused(f"{name} holds {state.messages} messages from sequence {state.first_seq} to "
                               f"{state.last_seq}: its sequences cannot be kept, so it is left denying purges")
    where = {c.name: (c.config.filter_subject, (c.ack_floor.stream_seq or 0) if c.ack_floor else 0,
                      c.config.ack_policy)
             for c in await _consumers(js, name) if c.config.durable_name}
    aside = f"{name}_UNSEAL"
    with contextlib.suppress(NotFoundError):
        await js.delete_stream(aside)   # left by a copy that was stopped: made again from the start
    await js.add_stream(StreamConfig(name=aside, sources=[StreamSource(name=name)], storage=current.storage,
                                     num_replicas=current.num_replicas))
    while (await js.stream_info(aside)).state.messages < state.messages:
        await asyncio.sleep(0.1)
    say(f"{name}: {state.messages} messages copied aside into {aside}")
    await js.delete_stream(name)
    await js.add_stream(config=current.evolve(deny_purge=False))
    copied = 0
    for msg in await _stored(js, aside, ">") if state.messages else []:
        # its own headers, but the copy's source and the atomic batch it was stored in (sent again, they
        # would open a batch that is never committed)
        headers = {k: v for k, v in (msg.headers or {}).items()
                   if not k.startswith(("Nats-Stream-Source", "Nats-Batch-"))}
        ack = await js.publish(msg.subject, msg.data, headers=headers or None)   # its headers only, as stored
        copied += 1
        if ack.seq != msg.metadata.sequence.stream:
            raise MigrationRefused(f"{name}: message {msg.metadata.sequence.stream} came back at {ack.seq}; "
                                   f"{aside} keeps every message")
    for durable, (subject, floor, acks) in where.items():
        if durable in _from_the_start():   # the archiver's: every game's end again, to remove those archived
            floor = 0
        if acks == AckPolicy.NONE:   # the projector's
            if error := await create_consumer(js._nc, name, pulled_consumer_config(durable, subject, floor + 1)):
                raise MigrationRefused(f"consumer {durable} on {name}: {error}")
            continue
        base = consumer_config()
        await js.add_consumer(name, ConsumerConfig(
            durable_name=durable, filter_subject=subject, ack_policy=AckPolicy.EXPLICIT, ack_wait=base.ack_wait,
            max_ack_pending=base.max_ack_pending, max_deliver=base.max_deliver,
            deliver_policy=DeliverPolicy.BY_START_SEQUENCE, opt_start_seq=floor + 1))
    await js.delete_stream(aside)
    say(f"{name}: made again without denying purges: {copied} messages at their sequences, "
        f"{len(where)} consumers where they were")


async def derived_off_the_synced_path(js: JetStreamContext,
                                      say: Callable[[str], None] = lambda line: None) -> list[str]:
    """The views and the feed made again off the synced path where a store has them synced (see the
    module's docstring); the streams made again."""
    done = []
    for name in DERIVED:
        try:
            current = (await js.stream_info(name)).config
        except NotFoundError:
            continue
        if off_the_synced_path(current):
            continue
        await js.delete_stream(name)
        await js.add_stream(config=derived_stream_config(name, current.num_replicas or 1))
        say(f"{name}: made again off the synced path")
        done.append(name)
    return done


def _from_the_start() -> set[str]:
    """The durables that read a stream from its start (the archiver's: each finished game's end)."""
    from zioncheck.services.wiring import SPECS
    return {takes.group for spec in SPECS for takes in spec.takes if takes.kind == "stored"}


async def _consumers(js: JetStreamContext, stream: str) -> list:
    try:
        return await js.consumers_info(stream)
    except NotFoundError:
        return []

