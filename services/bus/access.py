"""Who may say and read what on the bus: one NATS user per role, its subject permissions.

Authority comes from the credentials a connection logs in with and the subjects its
user may publish or subscribe to, never from a header or a field a client sets. The
server enforces every line of `PERMISSIONS`; the same table generates the embedded
server's configuration and the files a deployment includes (`zioncheck credentials --deploy`,
`deploy/README.md`); `docs/security.md` explains it.

The house's logins share the house's account (HOUSE), which holds every stream and bucket; each tenant's
platform logins and spectators are an account of their own (tenant_account), with no JetStream, which sees
the house only through what the house exports to it alone (tenant_imports: its requests as services, its
live subjects as streams), and which the server holds to the tenant's limits (TenantLimits). The server
publishes a request's answer on whatever reply subject the sender named, in the sender's account: so no
reply a tenant names can reach a house stream.

    role        may publish                          may read
    table       the log, refusals, reshuffle asks,   commands, the log, the register of games
                games' deadlines (zc.timer.*), the   in play
                register of games in play (ZC_OPEN)
    dealer      dealer commands, its seed bucket     hand boundaries of the log, its seeds
    scoring     scores, standings                    hand boundaries of the log
    projector   the feed, views                      the log, the register of games in play
    archiver    the archive bucket, the history      the commands and the log (hand boundaries),
                index and records of removals,       the archive bucket, the index, removals due,
                games' removals, purges of finished  the table's progress through the commands
                games (their seeds and marks too)
    intake      seat commands into their stream,     requests on zc.in.* (the only door for commands),
                games it lets start into the         the register of games in play
                register of games in play
    records     answers only                         requests on zc.records.* (tenants' archived
                                                     games), the history index, the archive bucket
    gateway     requests to the intake and to the    the log (outcomes, bots), views, feed, standings,
                records service, games' chat; the    games' chat
                roll call (their Services API pings,
                the tables' consumers' info)
    bots        requests to the intake               the views of the seats the bots service plays
                                                     (<game>.bot.<n>), never the log nor another seat's
    platform    requests to the intake and to the    views, feed, scores, standings, refusals:
                records service, for its tenant      by direct get and on what the server republishes;
                                                     its archived games, through the records service
    spectator   nothing                              the feed, public views, scores, standings: likewise
    operator    everything                           everything (topology, rebuilds, audits)

No client writes a stream. Platforms, the gateway and the bots hand commands to the intake
(services/intake), a house service that checks them and stores them with headers it sets
itself; a stream honours what a publish carries (rollup, msg-id, schedule and expected-*
headers), so only house services publish on a subject a stream captures. Readers that are
not house services make no consumers: a consumer's delivery subject and acks are what the
server would publish on their behalf, so they read by direct get and follow the subjects the
server republishes to (zc.view.>, zc.public.*, zc.live.>). House services ack their own
durable consumers only.

Hidden cards live in the log and in seat views; seeds live only in the dealer's bucket
until the dealer reveals them in the log after the hand. No role but the operator may
create, change, purge or delete a stream (but the table, which purges a game from the register
of games in play once it is over, and the archiver, which purges a finished game from the hot streams
once its archive is written, checked and indexed), and nobody may publish on `zc.live.>` or on
`zc.cmd.*.timer`: only the server itself republishes there what the log stored, and stores
there the timeouts the table scheduled. A game's chat (`zc.chat.*.*`, core NATS, never stored) is
the gateway's alone both ways: the gateway names each line's seat from the seat's token, so no
other login can say a line as a seat, nor hear one.
"""
import json
import os
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import nats
import structlog
from nats.aio.client import Client

from zioncheck.application.archive import new_signing_key, public_key_of
from zioncheck.services.bus import headers
from zioncheck.services.bus.publish import fail_pending, write_together
from zioncheck.services.bus.topology import (
    ANY_GAME,
    BOT_VIEWS,
    CHAT_SUBJECTS,
    DEFAULT_TENANT,
    FEED,
    HISTORY,
    HISTORY_SUBJECTS,
    INTAKE_GROUP,
    INTAKE_SUBJECTS,
    OPEN,
    OPEN_SUBJECTS,
    PARTITIONS_ASK,
    PARTITIONS_TOLD,
    RECORDS_GROUP,
    RECORDS_SUBJECTS,
    REMOVAL_SUBJECTS,
    REMOVALS,
    REMOVED_SUBJECTS,
    RESHUFFLE,
    SCHEDULE_SUBJECTS,
    SCORES,
    SEEDS,
    STANDINGS,
    TABLES_HERE,
    VIEWS,
    StoreLimits,
    archive_stream,
    archive_subjects,
    commands_stream,
    feed_subject,
    game_key,
    intake_subject,
    kv_stream,
    kv_subject,
    log_stream,
    log_subject,
    public_feed_subject,
    public_view_key,
    records_subject,
    rejected_subject,
    score_subject,
    standings_key,
    valid_game_id,
    view_keys,
    view_live_subject,
)

log = structlog.get_logger("bus")
headers.install()  # every service connects through here: each parses its messages' headers the faster way
ROLES = ("operator", "table", "dealer", "scoring", "projector", "archiver", "intake", "records", "gateway",
         "bots", "platform", "spectator")
# The house's account: every service and every stream and bucket (its name is where a store keeps them,
# jetstream/ZIONCHECK/). Each tenant is an account of its own (tenant_account) that sees the house only
# through what the house exports to it alone and it imports: one account is one trust domain, as the
# server acts on whatever a publish in it carries, reply subjects included (docs/security.md, "Accounts").
ACCOUNT = HOUSE = "ZIONCHECK"
TENANT_ACCOUNT_PREFIX = "TENANT_"


def tenant_account(tenant: str) -> str:
    """The account of a tenant's platform logins and spectators."""
    return f"{TENANT_ACCOUNT_PREFIX}{tenant}"


def _gets(stream: str) -> list[str]:
    """The JetStream API calls that read a stream by message: its info and gets. A get sends nothing
    anywhere but to the asker's own inbox."""
    api = "$JS.API"
    return [f"{api}.STREAM.INFO.{stream}", f"{api}.STREAM.MSG.GET.{stream}", f"{api}.DIRECT.GET.{stream}",
            f"{api}.DIRECT.GET.{stream}.>"]


def _reads(stream: str) -> list[str]:
    """A house service's reads: gets, and ephemeral consumers (the server ties those to their
    subscription and removes them when it goes). Those never ack: the acks a role may send are
    its own durables' (_durable)."""
    api = "$JS.API"
    return _gets(stream) + [f"{api}.CONSUMER.CREATE.{stream}", f"{api}.CONSUMER.INFO.{stream}.*"]


def _durable(stream: str, name: str) -> list[str]:
    """A service's own durable consumer on a stream: making it, reading its state, pulling from it,
    handing its pin over (a pinned group), and delivering again what is not acked yet (a reset to the ack
    floor: services/bus/consumers.py, `reset`). No role but the operator may delete a consumer, nor
    make a durable one of another name."""
    api = "$JS.API"
    return [f"{api}.CONSUMER.CREATE.{stream}.{name}", f"{api}.CONSUMER.CREATE.{stream}.{name}.>",
            f"{api}.CONSUMER.DURABLE.CREATE.{stream}.{name}", f"{api}.CONSUMER.MSG.NEXT.{stream}.{name}",
            f"{api}.CONSUMER.UNPIN.{stream}.{name}", f"{api}.CONSUMER.RESET.{stream}.{name}",
            f"$JS.ACK.{stream}.{name}.>"]


def _kv_writes(bucket: str) -> list[str]:
    return [kv_subject(bucket, ">")]


def _purge(stream: str) -> str:
    """A purge of `stream`: of everything or of one subject's messages; only the operator, the table (the register
    of games in play) and the archiver (what a finished game left in the hot streams) have one."""
    return f"$JS.API.STREAM.PURGE.{stream}"


def _purged_by_the_archiver(partitions: int) -> list[str]:
    """The streams a finished game leaves once its retention has run, and the archiver's own: the archive bucket
    (an object written again takes its old chunks away) and its removals."""
    return [*(commands_stream(p) for p in range(partitions)), *(log_stream(p) for p in range(partitions)), FEED,
            SCORES, kv_stream(VIEWS), kv_stream(STANDINGS), OPEN, kv_stream(SEEDS), archive_stream(), REMOVALS]


# What of a finished game the archiver counts, by subject, once it is removed (whatever came back of it after a
# server's restart: services/archiver, recheck): the streams' info alone, never a message (a seed least of all).
_COUNTED_BY_THE_ARCHIVER = (FEED, SCORES, kv_stream(VIEWS), kv_stream(STANDINGS), OPEN, kv_stream(SEEDS))


# Every JetStream client may ask which stream holds a subject and read its account's limits.
_JS_COMMON = ["$JS.API.INFO", "$JS.API.STREAM.NAMES"]
# The flow control of the ephemeral (ordered) consumers a house service reads with.
_FLOW_CONTROL = "$JS.FC.>"
# Commands as their partition's stream stores them: the intake alone stores `play` ones, the
# dealer alone `dealer` ones, the server alone `timer` ones.
SEAT_COMMANDS, DEALER_COMMANDS = "zc.cmd.*.*.play", "zc.cmd.*.*.dealer"
# The intake's requests (topology.INTAKE_SUBJECTS) and the Services API's discovery subjects
# ($SRV.PING, $SRV.INFO and $SRV.STATS: all services, by name, by instance).
def _discovery(group: str) -> list[str]:
    """Where NATS's Services API asks a service of `group` who it is and how it does."""
    return ["$SRV.*", f"$SRV.*.{group}", f"$SRV.*.{group}.*"]


def _asks_partitions(partitions: int) -> tuple[list[str], list[str]]:
    """Whoever reads a game's log asks the server for P once (topology.layout): zc.partitions, which the
    account maps to zc.partitions.<P>. The right names that one answer, so no login can publish
    another P to those asking."""
    return [f"{PARTITIONS_ASK}.{partitions}"], [PARTITIONS_ASK, PARTITIONS_TOLD]


@dataclass(frozen=True)
class Permissions:
    publish: tuple[str, ...]
    subscribe: tuple[str, ...]
    responds: bool = False   # may answer requests sent to it (on the asker's reply subject only)


def _role(publish: list[str], subscribe: list[str] = (), reads: list[str] = (), responds: bool = False,
          durables: list[tuple[str, str]] = (), partitions: int = 0, gets: list[str] = ()) -> Permissions:
    """A role's rights: `reads` (house services) may also make ephemeral consumers, `gets` only get."""
    api = [subject for stream in reads for subject in _reads(stream)]
    api += [subject for stream in gets for subject in _gets(stream)]
    api += [subject for durable in durables for subject in _durable(*durable)]
    api += [_FLOW_CONTROL] if reads or durables else []
    asks = _asks_partitions(partitions) if partitions else ([], [])
    return Permissions(tuple(publish + asks[0] + api + _JS_COMMON), tuple(list(subscribe) + asks[1]), responds)


def permissions(partitions: int) -> dict[str, "Permissions"]:
    """Every role's rights when games are spread over `partitions` partitions: the streams of each
    partition are named one by one (a stream name is one token of an API subject, never a pattern)."""
    ps = range(partitions)
    logs, commands = [log_stream(p) for p in ps], [commands_stream(p) for p in ps]
    log_writes = [log_subject(p, "*", "*") for p in ps]
    return {
        "operator": Permissions(publish=(">",), subscribe=(">",)),
        "table": _role([*log_writes, rejected_subject(ANY_GAME), RESHUFFLE, SCHEDULE_SUBJECTS, TABLES_HERE,
                        OPEN_SUBJECTS, _purge(OPEN)],
                       subscribe=[TABLES_HERE], reads=[*commands, *logs, OPEN], responds=True,
                       durables=[(c, "zc-tables") for c in commands], partitions=partitions),
        "dealer": _role([DEALER_COMMANDS, *_kv_writes(SEEDS)], subscribe=[RESHUFFLE],
                        reads=[*logs, kv_stream(SEEDS)], responds=True,
                        durables=[(lg, "zc-dealer") for lg in logs], partitions=partitions),
        "scoring": _role([score_subject(ANY_GAME), *_kv_writes(STANDINGS)], reads=[*logs, kv_stream(STANDINGS)],
                         durables=[(lg, "zc-scoring") for lg in logs], partitions=partitions),
        # The views go out live on their subjects (zc.view.<key>), which no other login may publish on.
        "projector": _role([feed_subject(ANY_GAME), *_kv_writes(VIEWS), view_live_subject(">")],
                           reads=[*logs, FEED, kv_stream(VIEWS), OPEN],
                           durables=[(lg, "zc-projector") for lg in logs], partitions=partitions),
        "archiver": _role([*archive_subjects(), HISTORY_SUBJECTS, REMOVED_SUBJECTS, REMOVAL_SUBJECTS,
                           *[_purge(stream) for stream in _purged_by_the_archiver(partitions)],
                           *[f"$JS.API.STREAM.INFO.{stream}" for stream in _COUNTED_BY_THE_ARCHIVER],
                           *[f"$JS.API.CONSUMER.INFO.{c}.zc-tables" for c in commands],
                           *[f"$JS.API.CONSUMER.INFO.{s}.zc-archiver" for s in (*logs, REMOVALS)]],
                          reads=[archive_stream()], gets=[*commands, *logs, HISTORY, REMOVALS],
                          durables=[(s, "zc-archiver") for s in (*logs, REMOVALS)], partitions=partitions),
        # Stream info of what the intake counts before it stores: how full each commands stream is, and how
        # many feed batches and views a tenant holds (a count of subjects; no message is read).
        "intake": _role([SEAT_COMMANDS, OPEN_SUBJECTS,
                         *[f"$JS.API.STREAM.INFO.{s}" for s in (*commands, FEED, kv_stream(VIEWS))]],
                        subscribe=[INTAKE_SUBJECTS, *_discovery(INTAKE_GROUP)],
                        responds=True, gets=[OPEN], partitions=partitions),
        "records": _role([], subscribe=[RECORDS_SUBJECTS, *_discovery(RECORDS_GROUP)], responds=True,
                         gets=[HISTORY], reads=[archive_stream()], partitions=partitions),
        # The roll call (services/gateway/roll_call.py): the Services API's ping of the intake and the records
        # service, and the info of the tables' consumers, whose waiting pulls say a table runs.
        "gateway": _role([INTAKE_SUBJECTS, CHAT_SUBJECTS, RECORDS_SUBJECTS, f"$SRV.PING.{INTAKE_GROUP}",
                          f"$SRV.PING.{RECORDS_GROUP}", *[f"$JS.API.CONSUMER.INFO.{c}.zc-tables" for c in commands]],
                         subscribe=["zc.live.>", "zc.rejected.>", view_live_subject(">"), CHAT_SUBJECTS],
                         reads=[*logs, FEED, SCORES, kv_stream(VIEWS), kv_stream(STANDINGS)], partitions=partitions),
        # The bots see what their seats see, and nothing of the log: the views of the seats the bots service
        # plays (keys <t>.<g>.bot.<n>), by a direct get naming the key and as the server republishes them, and
        # the views bucket's info, to list those keys after a restart (keys only, never a view).
        "bots": _role([INTAKE_SUBJECTS, f"$JS.API.STREAM.INFO.{kv_stream(VIEWS)}",
                       _last_of(kv_stream(VIEWS), kv_subject(VIEWS, BOT_VIEWS))],
                      subscribe=[view_live_subject(BOT_VIEWS)], partitions=partitions),
    } | {role: tenant_rights(role, DEFAULT_TENANT) for role in TENANT_ROLES}


# The roles that belong to a tenant: what they send and read is that tenant's alone.
TENANT_ROLES = ("platform", "spectator")


def _last_of(stream: str, subject: str) -> str:
    """A direct get of the last message on `subject` (a pattern): the server takes the subject from the
    API subject alone and refuses a body that names another, so the right names exactly what is read."""
    return f"$JS.API.DIRECT.GET.{stream}.{subject}"


def tenant_rights(role: str, tenant: str) -> Permissions:
    """A platform's or a spectator's rights, for one tenant: each subject and key names the tenant as a
    token of its own (topology.game_key), so the server itself keeps every tenant to its own games.
    Readers outside the house make no consumer (its delivery subject and acks would be the server
    publishing for them) and no stream info (it lists a stream's subjects, every tenant's games): they
    get by subject and follow what the server republishes."""
    games = game_key(tenant, "*")
    public = [_last_of(FEED, feed_subject(games)), _last_of(SCORES, score_subject(games)),
              _last_of(kv_stream(STANDINGS), kv_subject(STANDINGS, standings_key(games)))]
    if role == "platform":
        views = view_keys(games)   # the public view's key and every seat's
        return Permissions((intake_subject(games), *public, _last_of(kv_stream(VIEWS), kv_subject(VIEWS, views)),
                            records_subject(tenant, ">")),
                           (rejected_subject(games), view_live_subject(views), public_feed_subject(games)))
    if role == "spectator":   # public views by key only: a seat's key is never named
        return Permissions((*public, _last_of(kv_stream(VIEWS), kv_subject(VIEWS, public_view_key(games)))),
                           (view_live_subject(public_view_key(games)), public_feed_subject(games)))
    raise ValueError(f"{role!r} belongs to no tenant (tenant roles: {', '.join(TENANT_ROLES)})")


def rights_of(credential: "Credential", partitions: int) -> Permissions:
    """A login's rights: its role's, for its tenant when the role has one."""
    if credential.role in TENANT_ROLES:
        return tenant_rights(credential.role, credential.tenant or DEFAULT_TENANT)
    return permissions(partitions)[credential.role]


# P on this machine when the deploy says nothing: measured with `python -m bench partitions`
# (docs/scaling.md).
DEFAULT_PARTITIONS = 4
PERMISSIONS: dict[str, Permissions] = permissions(DEFAULT_PARTITIONS)  # the roles; rights per P: permissions()


def mappings_block(partitions: int) -> str:
    """The account's subject mapping: the question zc.partitions into its answer zc.partitions.<P>.
    (The intake and the dealer put each command in its game's partition, topology.partition_of.)"""
    if partitions < 1:
        raise ValueError(f"partitions must be at least 1, not {partitions}")
    return f"    mappings: {{\n      \"{PARTITIONS_ASK}\": \"{PARTITIONS_ASK}.{partitions}\"\n    }}\n"


INBOXES = "_INBOX_"   # what every login's inbox starts with; no stream captures a subject of it
# What the server names the reply subject of a request that came through an account's service import: its
# answer goes back to the asker's own account, never into the house's streams.
SERVICE_REPLIES = "_R_."


def inbox_prefix(user: str) -> str:
    """Each user's replies come to its own inbox subjects, which no other user may subscribe to."""
    return f"{INBOXES}{user}"


@dataclass(frozen=True)
class Credential:
    user: str
    password: str
    role: str
    tenant: str = ""   # a platform's or a spectator's tenant (a platform login is a tenant of its own name)


def make_credentials(folder: Path, roles=ROLES) -> dict[str, Credential]:
    """The credentials in `folder` (one `<user>.json` a user, mode 0600), made for missing roles, and
    the house's archive key beside them."""
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    signing_key(folder)
    found = read_credentials(folder)
    for role in roles:
        if role not in found:
            found[role] = add_user(folder, role, role)
    return found


def add_user(folder: Path, user: str, role: str, tenant: str | None = None) -> Credential:
    """A new user of `role`, with a fresh random password. A platform login is of the tenant given, by
    default a tenant of its own name (a second platform is a second tenant); a spectator watches one
    tenant's games (`tenant`, by default the default tenant's). A tenant's logins share its account."""
    if role not in PERMISSIONS:
        raise ValueError(f"unknown role {role!r} (choose from {', '.join(ROLES)})")
    if not valid_game_id(user):
        raise ValueError(f"bad user name {user!r}: letters, digits, - and _, at most 64")
    if tenant is not None and (role not in TENANT_ROLES or not valid_game_id(tenant)):
        raise ValueError(f"a tenant is given to a platform or a spectator only, as letters, digits, - and _ "
                         f"(not {tenant!r}); the other roles are the house's")
    tenant = _tenant_of(role, user, tenant)
    credential = Credential(user=user, password=secrets.token_urlsafe(24), role=role, tenant=tenant)
    path = folder / f"{user}.json"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as out:
        json.dump({"user": user, "password": credential.password, "role": role}
                  | ({"tenant": tenant} if tenant else {}), out)
    return credential


def _tenant_of(role: str, user: str, tenant: str | None) -> str:
    """A login's tenant: a platform's is the one given, else a tenant of its own name; a spectator watches the
    one given (by default the default tenant); other roles are the house's and belong to none."""
    return (tenant or user) if role == "platform" else (tenant or DEFAULT_TENANT) if role == "spectator" else ""


SIGNING_KEY = "archive-signing.key"   # the house's ed25519 key that signs each game's archive (hex, mode 0600)
PUBLIC_KEY = "archive-public.key"     # its public key (hex): all `zioncheck verify` needs, anywhere


def signing_key(folder: Path) -> bytes:
    """The house's archive signing key in the credentials `folder`, made there when missing; only the
    archiver reads it. Its public key is written beside it."""
    path = folder / SIGNING_KEY
    if not path.exists():
        private, public = new_signing_key()
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:   # another process made it first: theirs is the key
            return signing_key(folder)
        with os.fdopen(fd, "w") as out:
            out.write(private.hex() + "\n")
        (folder / PUBLIC_KEY).write_text(public + "\n")
    return bytes.fromhex(path.read_text().strip())


def public_key(folder: Path) -> str:
    """The house's archive public key (hex), from its file, or from the signing key when only it is there."""
    path = folder / PUBLIC_KEY
    return path.read_text().strip() if path.exists() else public_key_of(signing_key(folder))


def read_credentials(folder: Path) -> dict[str, Credential]:
    found = {}
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        if path.name == TENANT_LIMITS_FILE:
            continue
        data = json.loads(path.read_text())
        found[data["user"]] = Credential(data["user"], data["password"], data["role"],
                                         _tenant_of(data["role"], data["user"], data.get("tenant")))
    return found


def _quoted(items) -> str:
    return "[" + ", ".join(json.dumps(item) for item in items) + "]"


def user_block(credential: Credential, partitions: int = DEFAULT_PARTITIONS, checked: bool = True) -> str:
    """One user of the account, as nats-server configuration (`checked=False`: with no permissions at all,
    only for measuring what they cost)."""
    if not checked:
        return f"      {{user: {json.dumps(credential.user)}, password: {json.dumps(credential.password)}}}"
    rights = rights_of(credential, partitions)
    subscribe = (*rights.subscribe, f"{inbox_prefix(credential.user)}.>")
    responses = "\n        allow_responses: {max: 1, expires: \"30s\"}" if rights.responds else ""
    return (f"      {{user: {json.dumps(credential.user)}, password: {json.dumps(credential.password)}\n"
            f"       permissions: {{\n"
            f"        publish: {{allow: {_quoted(rights.publish)}}}\n"
            f"        subscribe: {{allow: {_quoted(sorted(set(subscribe)))}}}{responses}\n"
            f"       }}}}")


def tenant_imports(tenant: str) -> Permissions:
    """What the house exports to `tenant`'s account alone, and that account imports: the requests it may
    make (publish: the intake, the records service, direct gets of its games' views, feed, scores and
    standings), each answered back into the tenant's own account, and the live subjects it may follow
    (subscribe). The most any login of the tenant may do: its platform's rights, named for the tenant."""
    return tenant_rights("platform", tenant)


def _offered(tenant: str) -> list[tuple[str, str]]:
    """What the house exports to the tenant and it imports, each as (kind, subject): its requests are
    services, its live subjects streams."""
    imports = tenant_imports(tenant)
    return [*(("service", subject) for subject in imports.publish), *(("stream", s) for s in imports.subscribe)]


@dataclass(frozen=True)
class TenantLimits:
    """What the server holds one tenant's account to, whatever its logins do: connections at once (all its
    logins together), subscriptions at once on one connection (so connections x subscriptions in all: a
    platform follows its games with wildcards, docs/integration.md), and the bytes of one message it
    publishes. A subscription past the limit is refused; a publish past `payload`
    closes its connection, with the server's reason; the intake refuses a command past its 16 KiB long
    before (MAX_COMMAND_BYTES), with its own."""
    connections: int = 64
    subscriptions: int = 512
    payload: int = 64 * 1024

    def block(self) -> str:
        return (f"limits: {{max_connections: {self.connections}, max_subscriptions: {self.subscriptions}, "
                f"max_payload: {self.payload}}}")


TENANT_LIMITS_FILE = "tenant-limits.json"   # beside the logins: each tenant's TenantLimits where not the default


def read_tenant_limits(folder: Path) -> dict[str, TenantLimits]:
    """The tenants whose limits were set (`zioncheck credentials --tenant T --max-connections N ...`)."""
    path = folder / TENANT_LIMITS_FILE
    if not path.exists():
        return {}
    return {tenant: TenantLimits(**given) for tenant, given in json.loads(path.read_text()).items()}


def set_tenant_limits(folder: Path, tenant: str, **given: int | None) -> TenantLimits:
    """Set some of a tenant's limits (the others stay as they were, or the defaults); returns them all."""
    if not valid_game_id(tenant):
        raise ValueError(f"bad tenant {tenant!r}: letters, digits, - and _, at most 64")
    if any(value is not None and value < 1 for value in given.values()):
        raise ValueError("a tenant's limits are whole numbers from 1")
    every = read_tenant_limits(folder)
    limits = replace(every.get(tenant, TenantLimits()), **{k: v for k, v in given.items() if v is not None})
    every[tenant] = limits
    write_private(folder / TENANT_LIMITS_FILE,
                  json.dumps({name: asdict(value) for name, value in sorted(every.items())}, indent=1) + "\n")
    return limits


def _house_account(users: list[str], tenants: list[str], partitions: int, replicas: int) -> str:
    """The house: JetStream, the partition mapping, the house's users, and per tenant what it exports to that
    tenant's account alone. The account's storage is capped at the store's limits (topology.StoreLimits): a
    full store refuses and keeps all; its memory, at the views' and the feed's limits (held in memory when
    replicated). The server counts each replica's bytes against it, so the cap is the limits times the
    `replicas` the streams have."""
    limits = StoreLimits.configured()
    store = limits.total_bytes * replicas
    memory = (limits.bytes_of(VIEWS) + limits.bytes_of(FEED)) * replicas   # topology.DERIVED
    exports = []
    for tenant in tenants:
        to = _quoted([tenant_account(tenant)])
        exports += [f"      {{{kind}: {json.dumps(subject)}, accounts: {to}}}" for kind, subject in _offered(tenant)]
    return (f"  {HOUSE}: {{\n    jetstream: {{max_file: {store}, max_mem: {memory}}}\n"
            + mappings_block(partitions)
            + "    users: [\n" + "\n".join(users) + "\n    ]\n"
            + ("    exports: [\n" + "\n".join(exports) + "\n    ]\n" if exports else "") + "  }\n")


def _tenant_account(tenant: str, users: list[str], limits: TenantLimits) -> str:
    """A tenant's account: its logins, no JetStream, the server's limits, and the house's exports to it."""
    imports = _offered(tenant)
    house = json.dumps(HOUSE)
    lines = [f"      {{{kind}: {{account: {house}, subject: {json.dumps(subject)}}}}}" for kind, subject in imports]
    return (f"  {json.dumps(tenant_account(tenant))}: {{\n    {limits.block()}\n"
            + "    users: [\n" + "\n".join(users) + "\n    ]\n"
            + "    imports: [\n" + "\n".join(lines) + "\n    ]\n  }\n")


def accounts_block(credentials: list[Credential], partitions: int = DEFAULT_PARTITIONS, checked: bool = True,
                   replicas: int = 1, limits: dict[str, TenantLimits] | None = None) -> str:
    """The `accounts` section: the house's account, with JetStream, its partition mapping and every house
    login; and an account for each tenant that has a login, with its platform logins and spectators, the
    limits the server holds it to (`limits`, else TenantLimits()), and what it imports from the house."""
    house = [user_block(c, partitions, checked) for c in credentials if c.role not in TENANT_ROLES]
    tenants = sorted({c.tenant for c in credentials if c.role in TENANT_ROLES})
    text = _house_account(house, tenants, partitions, replicas)
    for tenant in tenants:
        users = [user_block(c, partitions, checked) for c in credentials
                 if c.role in TENANT_ROLES and c.tenant == tenant]
        text += _tenant_account(tenant, users, (limits or {}).get(tenant, TenantLimits()))
    return "accounts: {\n" + text + "}\n"


ROUTE_USER = "route"


def routes_block(password: str, routes: list[str]) -> str:
    """A cluster's route authentication: the login other nodes use, and the routes with it."""
    urls = [f"nats-route://{ROUTE_USER}:{password}@{route}" for route in routes]
    return (f"authorization {{user: {json.dumps(ROUTE_USER)}, password: {json.dumps(password)}}}\n"
            f"routes: {_quoted(urls)}\n")


def write_server_files(folder: Path, routes: list[str], partitions: int = DEFAULT_PARTITIONS,
                       replicas: int = 1) -> list[Path]:
    """The files a deployment's server configs include, from the logins in `folder`/credentials:
    accounts.conf (users and permissions) and routes.conf (cluster route authentication)."""
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    credentials = make_credentials(folder / "credentials")
    route_file = folder / "route-password"
    if not route_file.exists():
        write_private(route_file, secrets.token_urlsafe(24))
    written = [write_private(folder / "accounts.conf",
                             accounts_block(list(credentials.values()), partitions, replicas=replicas,
                                            limits=read_tenant_limits(folder / "credentials"))),
               write_private(folder / "routes.conf", routes_block(route_file.read_text().strip(), routes))]
    return written


def write_private(path: Path, text: str) -> Path:
    """A file only its owner may read: it holds passwords."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(text)
    os.chmod(path, 0o600)
    return path


class NoLogin(PermissionError):
    """The credentials folder holds no login for a user a process must log in as."""

    def __init__(self, user: str, folder: Path):
        super().__init__(f"no credentials for {user!r} in {folder} (zioncheck credentials lists and adds them)")
        self.user, self.folder = user, folder


@dataclass(frozen=True)
class Access:
    """Where the bus is and which credentials to log in with: everything a connection needs."""
    servers: tuple[str, ...]
    credentials: Path

    def login(self, user: str) -> Credential:
        found = read_credentials(self.credentials).get(user)
        if found is None:
            raise NoLogin(user, self.credentials)
        return found

    def users(self) -> dict[str, Credential]:
        return read_credentials(self.credentials)

    def connect_options(self, user: str) -> dict:
        """Keyword arguments for nats.connect / NatsBroker: servers, login, own inbox, name."""
        credential = self.login(user)
        return dict(servers=list(self.servers), user=credential.user, password=credential.password,
                    inbox_prefix=inbox_prefix(credential.user), name=f"zioncheck-{credential.user}",
                    error_cb=_told, reconnect_time_wait=RECONNECT_SECONDS, max_reconnect_attempts=-1)


# A lost server is asked for again this often, for as long as it takes: a service that gave up would
# stand idle after the server came back (nats-py's defaults are every 2 s, 60 times). With a server
# back in half a second, play goes on within RECONNECT_SECONDS of its taking writes.
RECONNECT_SECONDS = 0.25


async def _told(error: Exception) -> None:
    """What the connection reports (a lost server, a refused subject): one line, no traceback."""
    log.warning("nats_error", error=str(error)[:300])


async def connect(access: Access, user: str, **options) -> Client:
    """A NATS connection logged in as `user`, writing what a turn publishes at once (write_together), whose
    requests waiting for an answer fail at once when the connection is lost (fail_when_lost), so a sender
    sends again as soon as the server is back rather than at its timeout."""
    nc = await nats.connect(**(access.connect_options(user) | options))
    fail_when_lost(nc)
    write_together(nc)
    return nc


def fail_when_lost(nc: Client) -> None:
    """Each time the connection is lost, fail its requests waiting for an answer at once (fail_pending),
    before what was asked for at connect: nats-py lets them wait out their timeouts. The services'
    connections (FastStream's) and the clients' alike."""
    told = nc._disconnected_cb   # nats-py keeps the callback given at connect here

    async def lost() -> None:
        fail_pending(nc)
        if told is not None:
            await told()
    nc._disconnected_cb = lost


def server_id(nc: Client) -> str | None:
    """The id of the server the connection is on: a server started again has a new one."""
    return (getattr(nc, "_server_info", None) or {}).get("server_id")


def when_reconnected(nc: Client, then: Callable[[], Awaitable[None]]) -> None:
    """Await `then` each time the connection comes back, after what was asked for at connect."""
    told = nc._reconnected_cb   # nats-py keeps the callback given at connect here

    async def reconnected() -> None:
        if told is not None:
            await told()
        await then()
    nc._reconnected_cb = reconnected
