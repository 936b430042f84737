"""The attacks' shared fixture: logging in as any role."""
import pytest
from attacker import Attacker


@pytest.fixture
async def login(nats_server):
    """Log in as a role (`await login("platform")`); every login made is closed after the test."""
    made = []

    async def as_user(user: str) -> Attacker:
        made.append(await Attacker.login(nats_server.access, user))
        return made[-1]

    yield as_user
    for attacker in made:
        await attacker.close()
