"""Who may see a game its start did not make public (StartGame.public): a platform key of the game's tenant, and
the game's seat tokens. To anyone else the gateway answers as for a game never stored (reads.py)."""
import contextlib
from collections.abc import Mapping

from zioncheck.services.bus.topology import tenant_of
from zioncheck.services.gateway.keys import HEADER, Keyring
from zioncheck.services.gateway.tokens import TokenRefused, verify


def sees_private(keys: Keyring, secret: bytes, headers: Mapping[str, str], game: str, token: str | None) -> bool:
    """Whether the asker may see the game though its start did not make it public: it sends a platform key of the
    game's tenant (a key the gateway does not know is refused: KeyRefused, 401), or a seat token of this game (one
    refused counts for nothing: the asker is then anyone)."""
    presented = headers.get(HEADER)
    if presented is not None and keys.match(presented).tenant == tenant_of(game)[0]:
        return True
    if token:
        with contextlib.suppress(TokenRefused):
            verify(secret, token, game)
            return True
    return False
