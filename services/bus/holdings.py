"""What a tenant's games hold of the parts every tenant shares, as the server counts it.

The feed (stream ZC_FEED) and the views (bucket zc_views) keep every game of every tenant, in play and
over, until the archiver removes a finished game once its retention has run. What a tenant reads there
names it as a token of its own (zc.feed.<tenant>.<game>, $KV.zc_views.<tenant>.<game>.<view>), so the
server counts a tenant's part by a subject filter, in one answer (log_store.subject_counts): how many
feed batches its games hold, and how many views. No message is read. The intake holds each tenant to
its share of them (StoreLimits.tenant_share; services/intake).
"""
from nats.js import JetStreamContext

from zioncheck.services.bus.log_store import subject_counts
from zioncheck.services.bus.topology import FEED, VIEWS, feed_subject, game_key, kv_stream, kv_subject, view_keys


async def feed_batches(js: JetStreamContext, tenant: str) -> int:
    """How many feed batches the games of `tenant` hold in the feed."""
    return sum((await subject_counts(js, FEED, feed_subject(game_key(tenant, "*")))).values())


async def views(js: JetStreamContext, tenant: str) -> int:
    """How many views (keys) the games of `tenant` hold in the views bucket: each game's public view, each
    seat's and each bot seat's."""
    return len(await subject_counts(js, kv_stream(VIEWS), kv_subject(VIEWS, view_keys(game_key(tenant, "*")))))
