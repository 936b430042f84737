"""Commit-reveal dealing: a hand's deal and reshuffles follow from one secret seed.

The order is derived by a Fisher-Yates shuffle driven by SHA-256 in counter mode,
so anyone with the revealed seed can re-derive it in any language. Pure: the seed
itself comes from outside (a CSPRNG in the dealer service).
"""
import hashlib
from collections.abc import Callable

SEED_HEX = 64   # a seed as the dealer makes it: 32 bytes from a CSPRNG, in lowercase hex


def well_formed(seed_hex: str) -> bool:
    """Whether `seed_hex` is a seed as the dealer makes them (SEED_HEX lowercase hex digits): anything else
    in its bucket is not one of its seeds, and no deal or reshuffle may follow from it."""
    return len(seed_hex) == SEED_HEX and all(c in "0123456789abcdef" for c in seed_hex)


def commitment(seed_hex: str) -> str:
    """The SHA-256 of the seed's bytes, published before the hand is played."""
    return hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest()


def permutation(seed_hex: str, label: str, n: int) -> list[int]:
    """A permutation of range(n), fixed by the seed and a label ("deal", "reshuffle-1", ...)."""
    order = list(range(n))
    draws = _uniform(bytes.fromhex(seed_hex) + label.encode())
    for i in range(n - 1, 0, -1):
        j = draws(i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def _uniform(key: bytes) -> Callable[[int], int]:
    """randbelow(bound) by rejection sampling over 64-bit SHA-256 counter blocks."""
    counter = 0

    def below(bound: int) -> int:
        nonlocal counter
        limit = (1 << 64) - (1 << 64) % bound
        while True:
            block = hashlib.sha256(key + counter.to_bytes(8, "big")).digest()
            counter += 1
            value = int.from_bytes(block[:8], "big")
            if value < limit:
                return value % bound

    return below
