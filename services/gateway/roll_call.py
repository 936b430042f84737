"""Which house services answer, as far as the gateway's own login can tell.

`zioncheck serve gateway` says it at start, one line a service, and a game the gateway is asked to open
while a service it needs is away is refused in words (503 `service_unavailable`, NotServed) rather than
left to wait for an answer that never comes.

How each is told, with what the gateway's login may ask (services/bus/access.py):
- the intake and the records service answer NATS's Services API discovery, `$SRV.PING.<group>`;
- the table, the dealer, scoring, the projector and the archiver answer no request, but each instance
  keeps pulls waiting on its durable consumer (the table's on each partition's commands, the others'
  on each partition's log, as services/wiring.py declares them): the consumer's info counts them
  (`num_waiting`), and a service that stopped or died leaves none. One busy with all the messages it may
  hold at once has none waiting, but holds messages delivered and not yet acknowledged (`num_ack_pending`),
  which a dead one keeps only until the server delivers them again;
- the bots service reads its seats' views as the server republishes them, and nothing the gateway
  may see tells whether it runs: its answer is None, "cannot tell".

A service that answers is believed for `remembered` seconds; one that does not is looked at again for
`within` seconds before it is said to be away, since a consumer's pulls come and go as it works.
"""
import asyncio
import contextlib
import json
import time
from collections.abc import Callable, Iterable

import nats.errors
from nats.aio.client import Client

from zioncheck.services.bus.topology import INTAKE_GROUP, RECORDS_GROUP, commands_stream, layout, log_stream
from zioncheck.services.wiring import BY_NAME, SERVICES

PINGED = {"intake": INTAKE_GROUP, "records": RECORDS_GROUP}
UNSEEN = ("bots",)
# Without any of these a game the gateway opens never starts, is never dealt, or is never shown.
TO_PLAY = ("intake", "table", "dealer", "projector")
# What a person misses while each is away, said where a game cannot start for it.
MISSED = {"intake": "nothing anyone sends is taken", "table": "no command is decided",
          "dealer": "no hand is dealt", "projector": "no view is written, so the pages show nothing"}


class NotServed(Exception):
    """A game cannot start: a service it needs does not answer. The message says which, and how to start it."""

    def __init__(self, missing: list[str]):
        self.missing = missing
        names = " or ".join(missing) if len(missing) < 3 else ", ".join(missing[:-1]) + f" or {missing[-1]}"
        them = "it" if len(missing) == 1 else "them"
        why = "; ".join(MISSED[name] for name in missing if name in MISSED)
        super().__init__(f"no {names} service answers, so the game cannot start ({why}): start {them} with "
                         f"`zioncheck serve {' '.join(missing)}` on the gateway's NATS, or every service with "
                         "`zioncheck serve`")


def pulled_from(name: str) -> tuple[Callable[[int], str], str] | None:
    """The stream (by partition) and durable consumer whose waiting pulls tell that `name` runs, or None."""
    for takes in BY_NAME[name].takes:
        if takes.kind == "commands":
            return takes.stream or commands_stream, takes.group
        if takes.kind in ("log", "stored"):
            return takes.stream or log_stream, takes.group
    return None


class RollCall:
    def __init__(self, nc: Client, within: float = 2.0, remembered: float = 5.0, ask_within: float = 0.5):
        self.nc, self.within, self.remembered, self.ask_within = nc, within, remembered, ask_within
        self.seen: dict[str, float] = {}   # when each service was last seen answering

    async def answering(self, names: Iterable[str] = SERVICES) -> dict[str, bool | None]:
        """Each name: True when it answers, False when it did not within `within` seconds, None when the
        gateway cannot tell (the bots)."""
        names = list(names)
        found: dict[str, bool | None] = {name: None for name in names if name in UNSEEN}
        now = time.monotonic()
        found |= {name: True for name in names if now - self.seen.get(name, -self.remembered) < self.remembered}
        waiting = [name for name in names if name not in found]
        deadline = now + self.within
        while waiting:
            answers = await asyncio.gather(*(self._answers(name) for name in waiting))
            for name, answered in zip(waiting, answers, strict=True):
                if answered:
                    self.seen[name] = time.monotonic()
                    found[name] = True
            waiting = [name for name in waiting if name not in found]
            if waiting and time.monotonic() >= deadline:
                found |= dict.fromkeys(waiting, False)
                break
            if waiting:
                await asyncio.sleep(0.2)
        return {name: found[name] for name in names}

    async def check_can_play(self) -> None:
        """NotServed, naming them, unless every service a game needs to be played answers."""
        missing = [name for name, answers in (await self.answering(TO_PLAY)).items() if answers is False]
        if missing:
            raise NotServed(missing)

    async def _answers(self, name: str) -> bool:
        if name in PINGED:
            try:
                await self.nc.request(f"$SRV.PING.{PINGED[name]}", b"", timeout=self.ask_within)
                return True
            except (nats.errors.NoRespondersError, nats.errors.TimeoutError):
                return False
        pulled = pulled_from(name)
        if pulled is None:
            return False
        stream, durable = pulled
        partitions = (await layout(self.nc.jetstream())).partitions
        waiting = await asyncio.gather(*(self._waiting(stream(p), durable) for p in range(partitions)))
        return any(waiting)

    async def _waiting(self, stream: str, durable: str) -> bool:
        """Whether any instance keeps a pull waiting on the consumer, or works what it was delivered (False when
        the consumer is not there at all)."""
        with contextlib.suppress(nats.errors.Error, ValueError):
            reply = await self.nc.request(f"$JS.API.CONSUMER.INFO.{stream}.{durable}", b"", timeout=self.ask_within)
            info = json.loads(reply.data)
            return int(info.get("num_waiting", 0)) > 0 or int(info.get("num_ack_pending", 0)) > 0
        return False
