"""Independent random streams from one user seed.

Every random source (deals, seats, opponents, agents, arena, training) takes its generator from the
user's seed through this module, one stream per name, never the same seed twice (a seat drawn from
one and a deck shuffled by the other would be correlated). A stream is
``random.Random("SEED/name/...")`` (seeded through SHA-512 of the string: independent and stable
across platforms). The deal stream of a seed is ``random.Random(seed)``, so ``reset(seed=s)`` deals
``GameState.from_seed(rules, s)``.
"""

from __future__ import annotations

import random

#: width of the seeds handed to agents and other generators (fits a signed 64-bit int)
SEED_BITS = 63
#: names of the streams the environments and CLIs derive from a user seed (one name, one stream)
SEAT_STREAM = "seat"  #: the learner's seat (Gymnasium view, seat="random")
OPPONENT_STREAM = "opponent"  #: the seeds of the opponent agent (Gymnasium view, play CLI)


def stream(seed: int, *name: str | int) -> random.Random:
    """``random.Random("seed/name...")``: stream ``name`` (str or int parts) of ``seed`` (int >= 0),
    independent of other names and of ``random.Random(seed)`` (the deal stream)."""
    return random.Random("/".join(map(str, (seed, *name))))


def derive_seed(seed: int, *name: str | int) -> int:
    """A ``SEED_BITS``-bit seed for stream ``name`` of ``seed`` (to seed an agent or a torch
    generator)."""
    return stream(seed, *name).getrandbits(SEED_BITS)
