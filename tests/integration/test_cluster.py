"""A 3-node JetStream cluster with replicated streams and logins: the services work across it
unchanged, a node without the route login cannot join, and, with its nodes in containers, bot
games ride out a node killed and another frozen."""
import asyncio
import random
import subprocess
import time
import uuid
from pathlib import Path

import nats.errors
import pytest
from nats.js.errors import NoStreamResponseError, NotFoundError, ServiceUnavailableError
from nats_backends import chosen, containers_in_use, start_cluster

from over_nats import new_game, one_table_writes
from removed_games import finished_game, game_in_play, until_gone
from zioncheck.application.replay import fold_log, state_hash
from zioncheck.application.scenario import load, run
from zioncheck.bots import make_bot
from zioncheck.cli.scenario_over_nats import play
from zioncheck.client import Follower, GameClient
from zioncheck.contracts.commands import PLAY, StartGame
from zioncheck.contracts.events import GameEnded, GameStarted
from zioncheck.contracts.log import Batch, encode, entries_of
from zioncheck.domain.audit import audit
from zioncheck.services.archiver.service import built
from zioncheck.services.bots.seats import play_seats
from zioncheck.services.bus.access import Access, connect, make_credentials, routes_block
from zioncheck.services.bus.embedded import config_text, free_port, server_binary
from zioncheck.services.bus.log_store import read_batches, read_stored
from zioncheck.services.bus.topology import (
    STANDINGS,
    commands_stream,
    kv_stream,
    layout,
    log_stream,
    log_subject,
    stored_command_subject,
    stream_configs,
)
from zioncheck.services.observability import READS_BEHIND
from zioncheck.services.wiring import SERVICES, Services, Settings

EXAMPLE = Path(__file__).parent.parent / "scenarios" / "example.json"
NO_LEADER_YET = (nats.errors.TimeoutError, nats.errors.NoRespondersError, NoStreamResponseError,
                 ServiceUnavailableError)
ROUTE_PASSWORD = "route-secret-for-tests"


def node_config(i: int, ports: list[int], routes: list[int], store: Path, credentials: Path) -> str:
    """A node as deploy/cluster/*.conf makes one: the roles' users, and routes that must log in."""
    route_auth = routes_block(ROUTE_PASSWORD, [f"127.0.0.1:{r}" for r in routes])
    return f"server_name: n{i}\n" + config_text(ports[i], store / f"n{i}", True, credentials, extra=(
        f'cluster {{\n  name: zc-test\n  listen: "127.0.0.1:{routes[i]}"\n{route_auth}}}\n'), replicas=3)


@pytest.fixture
def nodes(tmp_path):
    """Three nodes on the chosen backend; `.access` logs in to them, `.routes` are their route ports."""
    credentials = tmp_path / "credentials"
    make_credentials(credentials)
    seen = {}

    def config(i, ports, routes, folder):
        seen["routes"] = routes
        return node_config(i, ports, routes, folder, credentials)

    running = start_cluster(tmp_path, config)
    running.access, running.routes = Access(tuple(node.url for node in running.nodes), credentials), seen["routes"]
    yield running
    running.stop()


@pytest.fixture
def cluster(nodes):
    return nodes


async def started(access: Access) -> Services:
    seen: set[str] = set()
    for _ in range(100):  # the cluster needs a moment to elect a JetStream meta leader
        try:
            return await Services().start(SERVICES, access, replicas=3)
        except Exception as error:  # noqa: BLE001 - not ready yet
            seen.add(repr(error)[:300])
            await asyncio.sleep(0.2)
    pytest.fail(f"the cluster never accepted the streams: {sorted(seen)}")


@pytest.mark.long   # a scenario's whole game on three nodes: `make test-long`
async def test_a_scenario_plays_the_same_on_a_three_node_cluster_with_three_replicas(cluster):
    services = await started(cluster.access)
    try:
        scenario = load(EXAMPLE.read_bytes())
        assert await play(scenario, cluster.access, services) == run(scenario)
    finally:
        await services.stop()
    # Services started again without --replicas leave every stream's replicas as they are.
    again = await Services().start(SERVICES, cluster.access)
    await again.stop()
    nc = await connect(cluster.access, "operator")
    try:
        for config in stream_configs(partitions=(await layout(nc.jetstream())).partitions):
            assert (await nc.jetstream().stream_info(config.name)).config.num_replicas == 3, config.name
    finally:
        await nc.close()


async def test_a_replica_behind_the_leader_is_asked_again_and_no_read_stops_short_of_what_it_knows(cluster):
    """Read your writes on three replicas: right after each append is acked, a reader on each node reads
    the game's log at least up to it. Direct gets are answered by any replica, the reader's own node's
    first; one that has not stored the append yet answers short, is counted, and is asked again. A
    follower stopped while a burst is acked (SIGSTOP, or a frozen container) is sure to be behind."""
    services = await started(cluster.access)   # the streams, with three replicas
    await services.stop()
    writer = await connect(cluster.access, "operator")
    readers = [await connect(Access((node.url,), cluster.access.credentials), "operator") for node in cluster.nodes]
    try:
        where, game = await layout(writer.jetstream()), new_game()
        stream, subject = where.log_stream(game), where.log_subject(game)
        before, caught, seq = READS_BEHIND._value.get(), 0, 0
        leader = int((await writer.jetstream().stream_info(stream)).cluster.leader.removeprefix("n"))
        behind = next(i for i in range(len(cluster.nodes)) if i != leader)
        for burst in range(20):
            # The leader and the other follower make the quorum that acks each append while this follower
            # stands still; the moment it runs again, its reader asks it for what it has not stored yet.
            previous = seq
            cluster.nodes[behind].pause()
            try:
                for n in range(100):   # through the leader's node: the writer's own node may be the one stopped
                    seq = (await readers[leader].jetstream().publish(where.log_subject(game, "move"),
                                                            encode(Batch(cause=burst * 100 + n, events=[])))).seq
            finally:
                cluster.nodes[behind].unpause()
            for reader in (readers[behind], *readers):
                found, last = await read_stored(reader.jetstream(), stream, subject, after=previous, at_least=seq)
                assert last == seq and found[-1][0] == seq, f"a read stopped at {last}, short of {seq}"
            caught = READS_BEHIND._value.get() - before
            if caught >= 1:
                break
        assert caught >= 1, "no replica was ever behind: the rule was not put to the test"
    finally:
        for nc in (writer, *readers):
            await nc.close()


async def test_a_node_without_the_route_login_cannot_join_the_cluster(cluster, tmp_path):
    """The routes carry every game's cards: a node must log in to join them."""
    port, route = free_port(), free_port()
    conf = tmp_path / "intruder.conf"
    peers = ", ".join(f'"nats-route://127.0.0.1:{r}"' for r in cluster.routes)
    conf.write_text(f'server_name: intruder\nlisten: "127.0.0.1:{port}"\n'
                    f'cluster {{\n  name: zc-test\n  listen: "127.0.0.1:{route}"\n  routes: [{peers}]\n}}\n')
    log = tmp_path / "intruder.log"
    node = subprocess.Popen([server_binary(), "-c", str(conf), "-l", str(log)])
    try:
        time.sleep(2)
    finally:
        node.terminate()
        node.wait()
    assert "Route Error 'Authorization Violation'" in log.read_text()


class ResendingClient(GameClient):
    """A platform that resends a command whose ack did not come, under the same message id:
    the commands stream drops a second copy of one it stored, and acks it with the first's sequence."""

    async def send(self, game, command, as_dealer=False, msg_id=None) -> int:
        msg_id = msg_id or uuid.uuid4().hex
        for _ in range(40):
            try:
                return await super().send(game, command, as_dealer, msg_id)
            except NO_LEADER_YET:
                await asyncio.sleep(0.5)  # no stream leader to answer: the cluster is electing one
        return await super().send(game, command, as_dealer, msg_id)


async def leader_of(client: GameClient, stream: str) -> int:
    """Which node leads the stream now (node_config names node i `n<i>`)."""
    return int((await client.js.stream_info(stream)).cluster.leader.removeprefix("n"))


async def moved_on(games: list[Follower], batches: int) -> None:
    """Every game has `batches` more batches in its log than now, or is over."""
    marks = [len(f.batches) for f in games]
    for follower, mark in zip(games, marks, strict=True):
        await follower.wait_until(lambda f, mark=mark: len(f.batches) >= mark + batches or f.state.game_over,
                                  timeout=120)


@pytest.mark.long   # whole games through a kill and a freeze: over a minute
@pytest.mark.skipif(not containers_in_use(), reason=f"needs NATS in containers, and here: {chosen().describe()}")
async def test_bot_games_finish_with_nothing_lost_when_a_node_is_killed_and_another_frozen(nodes):
    """Four games of four bots: mid-game the node leading the logs gets SIGKILL, and once play has
    gone on without it, the node leading the commands is frozen for 5 s (no quorum) and thawed.
    Every game still finishes, its log exactly what one table given the same commands writes."""
    services = await started(nodes.access)
    client = await ResendingClient.connect(nodes.access, "operator")
    plays = []
    try:
        games, where = [], await layout(client.js)
        for index in range(4):
            game = new_game()
            while where.of(game) != 0:   # all in partition 0, whose leaders the faults hit: none runs ahead
                game = new_game()
            follower = await client.follow(game)
            await client.send(game, StartGame(game_id=game, players=4))
            rng = random.Random(index)
            games.append(follower)
            plays.append(asyncio.create_task(
                play_seats(client, follower, {s: make_bot("greedy", rng) for s in range(4)}, rng)))
        for follower in games:
            await follower.wait_until(lambda f: f.state.hand >= 2, timeout=120)

        killed = await leader_of(client, log_stream(0))     # kill -9 the node leading partition 0's log
        nodes.nodes[killed].kill()
        await moved_on(games, 20)                 # two nodes left: a new leader, and play goes on
        frozen = await leader_of(client, commands_stream(0))
        frozen = frozen if frozen != killed else (killed + 1) % 3
        assert not any(f.state.game_over for f in games), "the games ended before the faults"
        nodes.nodes[frozen].pause()               # one node left: no quorum, every append waits
        await asyncio.sleep(5)
        nodes.nodes[frozen].unpause()
        await asyncio.wait_for(asyncio.gather(*plays), timeout=300)

        for follower in games:
            await follower.wait_until(lambda f: all(f.state.seeds), timeout=60)
            stored = [batch for _, batch in await read_batches(client.js, follower.game)]
            assert stored == follower.batches, f"{follower.game}: the live log differs from the stored one"
            causes = [batch.cause for batch in stored]
            assert causes == sorted(set(causes)), f"{follower.game}: a command was applied twice or out of order"
            finished = fold_log(entries_of(stored))
            assert finished.game_over and finished.hand == 6, f"{follower.game} did not finish"
            assert state_hash(finished) == state_hash(follower.state)
            assert audit(entries_of(stored)).problems == []
            standings = await client.final_standings(follower.game, timeout=60)
            assert standings is not None and len(standings.hands) == 6, f"{follower.game}: a hand not scored"
            assert [e for b in stored for e in b.events] == await one_table_writes(client, follower.game), (
                f"{follower.game}: an event lost or doubled")
    finally:
        for task in plays:
            task.cancel()
        await client.close()
        await services.stop()


@pytest.mark.long
async def test_partitions_lead_from_every_node_and_their_games_finish_when_one_node_is_killed(nodes):
    """Each partition's streams have a leader of their own; the operator's start spreads those leaders
    over the nodes, so a cluster adds appends in parallel, not only safety. Mid-game the node leading
    partition 0's log gets SIGKILL; the games of every partition finish, nothing lost or doubled."""
    services = await started(nodes.access)
    client = await ResendingClient.connect(nodes.access, "operator")
    plays = []
    try:
        where = await layout(client.js)
        streams = where.commands_streams() + where.log_streams()
        for _ in range(50):  # the leaders asked to step down for their preferred node have moved
            leaders = {stream: await leader_of(client, stream) for stream in streams}
            if max(list(leaders.values()).count(node) for node in range(3)) <= -(-len(streams) // 3):
                break
            await asyncio.sleep(0.1)
        assert max(list(leaders.values()).count(node) for node in range(3)) <= -(-len(streams) // 3), leaders
        games = []
        while {where.of(f.game) for f in games} != set(range(where.partitions)) or len(games) < 2:
            game = new_game()
            follower = await client.follow(game)
            await client.send(game, StartGame(game_id=game, players=3, first_hand=4))   # three hands
            rng = random.Random(len(games))
            games.append(follower)
            plays.append(asyncio.create_task(
                play_seats(client, follower, {s: make_bot("greedy", rng) for s in range(3)}, rng)))
        for follower in games:
            await follower.wait_until(lambda f: f.state.hand >= 5 or f.state.game_over, timeout=120)
        nodes.nodes[leaders[log_stream(0)]].kill()
        await asyncio.wait_for(asyncio.gather(*plays), timeout=300)
        for follower in games:
            await follower.wait_until(lambda f: all(f.state.seeds), timeout=60)
            stored = [batch for _, batch in await read_batches(client.js, follower.game)]
            assert stored == follower.batches and follower.state.game_over
            assert [e for b in stored for e in b.events] == await one_table_writes(client, follower.game), (
                f"{follower.game}: an event lost or doubled")
    finally:
        for task in plays:
            task.cancel()
        await client.close()
        await services.stop()


@pytest.mark.long   # three nodes killed with -9 and started again, twice: `make test-long`
async def test_a_removed_game_never_comes_back_when_every_node_and_then_one_is_killed(nodes, tmp_path):
    """Games removed by their retention on three nodes, beside one in play: every node killed with -9 and started
    again, then the one leading the standings. No node gives a platform a view or standings of a removed game
    again (each platform connection asks through its own node), and no hot stream or bucket holds anything of it:
    what a replica brings back, the archiver takes out again (docs/history.md, "Removed for good")."""
    for _ in range(100):  # the cluster needs a moment to elect a JetStream meta leader
        try:
            services = await Services().start(SERVICES, nodes.access, replicas=3, settings=Settings(retention=1))
            break
        except Exception:  # noqa: BLE001 - not ready yet
            await asyncio.sleep(0.2)
    else:
        pytest.fail("the cluster never accepted the streams")
    operator = await GameClient.connect(nodes.access, "operator")
    platforms = [await connect(Access((node.url,), nodes.access.credentials), "platform") for node in nodes.nodes]
    try:
        await game_in_play(operator)
        games = [await finished_game(operator) for _ in range(2)]
        await until_gone(games, operator, platforms, 120, "the games were never removed whole")
        standings = await leader_of(operator, kv_stream(STANDINGS))
        for victims in ([0, 1, 2], [standings]):
            for i in victims:
                nodes.nodes[i].kill()
            for i in victims:
                nodes.nodes[i] = chosen().node(tmp_path / f"n{i}.conf", nodes.nodes[i].port, tmp_path,
                                               log=tmp_path / f"n{i}.log")
            await until_gone(games, operator, platforms, 120, f"after nodes {victims} were killed, the removed "
                                                                 f"games came back")
    finally:
        for nc in platforms:
            await nc.close()
        await operator.close()
        await services.stop()


async def test_the_archiver_archives_a_game_whose_end_a_replica_behind_has_not_stored(cluster):
    """The archiver learns of a game's end from its consumer, which the log's leader serves; it then reads the game
    again to decide (is it over? is it indexed?), and a replica that has not stored the end yet would answer "in
    play": the end acked, the game never archived. Here the archiver's own node is stopped (SIGSTOP) while the end
    and a burst after it are stored, and the archiver is asked the moment the node runs again: it reads from the
    leader, and archives every game. A direct get through that node, sent beside it, shows the node behind."""
    services = await started(cluster.access)   # the streams, with three replicas
    await services.stop()
    writer = await connect(cluster.access, "operator")
    try:
        where = await layout(writer.jetstream())
        leaders = {p: await leader_of(GameClient(writer), log_stream(p)) for p in range(where.partitions)}
        p = 0
        behind = next(i for i in range(len(cluster.nodes)) if i != leaders[p])
        via_leader = await connect(Access((cluster.nodes[leaders[p]].url,), cluster.access.credentials), "operator")
        on_behind = Access((cluster.nodes[behind].url,), cluster.access.credentials)
        archiver_nc, looker = await connect(on_behind, "archiver"), await connect(on_behind, "operator")
        archiver = built(archiver_nc.jetstream(), cluster.access.credentials, None, 3600)
        js, stale, archived = via_leader.jetstream(), 0, 0
        try:
            for attempt in range(30):
                game = new_game()
                while where.of(game) != p:
                    game = new_game()
                start = StartGame(game_id=game, players=2, stacked=True)
                cause = (await js.publish(stored_command_subject(p, game, PLAY), encode(start))).seq
                await js.publish(log_subject(p, game, "hand"), encode(Batch(cause=cause, events=[GameStarted(
                    game_id=game, players=2, decks=1, dealer=0, stacked=True)])))
                cluster.nodes[behind].pause()
                try:   # the leader and the other node make the quorum: the end, and a burst of another game's after it
                    await js.publish(log_subject(p, game, "hand"), encode(Batch(cause=cause, events=[GameEnded(
                        totals=[0, 0], winners=[0, 1])])))
                    for n in range(200):
                        await js.publish(log_subject(p, f"other-{attempt}", "move"), encode(Batch(cause=n, events=[])))
                    # the read the archiver made before: a direct get, answered by its own node first; sent while
                    # the node is frozen, so that it waits in the node's socket beside the leader's catch-up
                    looking = asyncio.ensure_future(looker.jetstream().get_msg(
                        log_stream(p), subject=log_subject(p, game, "hand"), direct=True))
                    await asyncio.sleep(0.05)
                finally:
                    cluster.nodes[behind].unpause()
                asking = asyncio.ensure_future(archiver.archive(game, patient=False))
                try:
                    stale += b"game_ended" not in ((await looking).data or b"")
                except NotFoundError:
                    stale += 1
                done = await asking
                assert done is not None, f"attempt {attempt}: the archiver took the game's end for gone"
                assert done[0].record.manifest.outcome == "finished" and not done[1]
                archived += 1
                if stale >= 3:
                    break
        finally:
            for nc in (via_leader, archiver_nc, looker):
                await nc.close()
        assert stale, f"the archiver's node was never behind in {archived} games: the read was not put to the test"
    finally:
        await writer.close()
