"""An attacker's connection: a login of some role, every error the server sends it kept."""
import asyncio

import nats
from nats.aio.client import Client

from zioncheck.services.bus.access import Access

REFUSED = 0.5   # seconds to wait for an answer the server never sends to a refused request


class Attacker:
    def __init__(self, nc: Client, errors: list[str]):
        self.nc, self.errors = nc, errors
        self.js = nc.jetstream(timeout=REFUSED)

    @classmethod
    async def login(cls, access: Access, user: str) -> "Attacker":
        errors: list[str] = []

        async def heard(error: Exception) -> None:
            errors.append(str(error))

        options = access.connect_options(user) | {"error_cb": heard, "max_reconnect_attempts": 0}
        return cls(await nats.connect(**options), errors)

    async def refused(self, what: str) -> bool:
        """Whether the server said no to `what` (a subject) in a permissions violation."""
        for _ in range(20):
            # nats-py reports the server's -ERR in lower case
            if any("permissions violation" in e.lower() and what.lower() in e.lower() for e in self.errors):
                return True
            await asyncio.sleep(0.05)
        return False

    async def close(self) -> None:
        await self.nc.close()


def matches(pattern: str, subject: str) -> bool:
    """NATS subject matching, as the server checks a right: `*` one token, `>` one or more at the end."""
    want, have = pattern.split("."), subject.split(".")
    for index, token in enumerate(want):
        if token == ">":
            return len(have) > index
        if index >= len(have) or (token != "*" and token != have[index]):
            return False
    return len(want) == len(have)
