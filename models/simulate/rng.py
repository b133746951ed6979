"""Counter-based random streams for the compiled kernels: xoshiro256** seeded by SplitMix64.

Every (seed, shoe, purpose) triple gets its own stream, so a shoe comes out the same however the
work is split. Bounded draws use Lemire's multiply-shift method with rejection (unbiased).
`models/simulate/reference.py` implements the same generator in plain Python.
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

MASK32 = uint64(0xFFFFFFFF)
GOLDEN = uint64(0x9E3779B97F4A7C15)
MIX1 = uint64(0xBF58476D1CE4E5B9)
MIX2 = uint64(0x94D049BB133111EB)
#: Stream purposes: per shoe the cards (shuffle and mixed drawing choices), the population's bets and
#: the pace; per gaming day the seating (who comes, when, where and for how long).
CARDS, POPULATION, PACE, SEATING = 0, 1, 2, 3


@njit(inline="always", cache=True)
def _rotl(x, k):
    return (x << uint64(k)) | (x >> uint64(64 - k))


@njit(inline="always", cache=True)
def splitmix64(x):
    z = x + GOLDEN
    z = (z ^ (z >> uint64(30))) * MIX1
    z = (z ^ (z >> uint64(27))) * MIX2
    return z ^ (z >> uint64(31))


@njit(cache=True)
def seed_stream(state, seed, shoe, purpose):
    """Fill `state` (uint64[4]) with the stream of (seed, shoe, purpose)."""
    x = splitmix64(splitmix64(splitmix64(uint64(seed)) ^ uint64(shoe)) ^ uint64(purpose))
    for i in range(4):
        x = splitmix64(x)
        state[i] = x


@njit(inline="always", cache=True)
def next_u64(s):
    result = _rotl(s[1] * uint64(5), 7) * uint64(9)
    t = s[1] << uint64(17)
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], 45)
    return result


@njit(inline="always", cache=True)
def bounded(s, n):
    """A uniform integer in [0, n), n < 2**32 (Lemire, 2019)."""
    bound = uint64(n)
    m = (next_u64(s) >> uint64(32)) * bound
    low = m & MASK32
    if low < bound:
        threshold = (MASK32 + uint64(1) - bound) % bound
        while low < threshold:
            m = (next_u64(s) >> uint64(32)) * bound
            low = m & MASK32
    return np.int64(m >> uint64(32))


@njit(inline="always", cache=True)
def uniform(s):
    """A uniform float in [0, 1) with 53 random bits."""
    return np.float64(next_u64(s) >> uint64(11)) * (1.0 / 9007199254740992.0)


@njit(inline="always", cache=True)
def exponential(s):
    """An exponential draw of mean 1."""
    return -np.log(1.0 - uniform(s))


@njit(inline="always", cache=True)
def normal(s):
    """A standard normal draw (Box-Muller, one of the pair)."""
    return np.sqrt(-2.0 * np.log(1.0 - uniform(s))) * np.cos(2.0 * np.pi * uniform(s))
