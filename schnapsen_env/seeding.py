"""Independent random streams from one user seed.

Every random source of the project (deals, the learner's seat, the opponent,
agents, arena deals, training) takes its generator from the user's seed
through this module, one stream per *name*, never by handing the same seed
to two generators. Two ``random.Random(seed)`` built from the same seed
produce the same numbers: a seat drawn from one and a deck shuffled by the
other are then correlated, and the seat tells something about a hidden card
(this happened once in the Gymnasium view).

A stream is keyed by a string: ``random.Random("SEED/name/...")`` (Python
seeds a ``Random`` from a string through SHA-512 of its bytes, so streams
with different keys are independent, and the derivation is stable across
runs, platforms and Python versions >= 3.2).

The deal stream of a seed is the exception by design: it is
``random.Random(seed)`` itself, so the first deal of ``reset(seed=s)`` is the
deal of ``GameState.from_seed(rules, s)`` and the two can be compared move for
move. Every other stream is keyed by name and so independent of it.

This module imports only the standard library.
"""

from __future__ import annotations

import random

from .cards import brief_repr

#: width of the seeds handed to agents and other generators (fits a signed 64-bit int)
SEED_BITS = 63
#: names of the streams the environments and CLIs derive from a user seed (one name, one stream)
SEAT_STREAM = "seat"  #: the learner's seat (Gymnasium view, seat="random")
OPPONENT_STREAM = "opponent"  #: the seeds of the opponent agent (Gymnasium view, play CLI)


def _key(seed: int, parts: tuple) -> str:
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {brief_repr(seed)}")
    for p in parts:
        if not isinstance(p, (str, int)) or isinstance(p, bool):
            raise ValueError(f"a stream name part must be a str or an int, got {brief_repr(p)}")
    return "/".join(map(_text, (seed, *parts)))


#: ints longer than this (bits) are written in hex in a stream key: Python refuses to print ints of
#: more than 4,300 decimal digits (about 14,284 bits), and every seed must give a stream
_DECIMAL_BITS = 14_000


def _text(part: str | int) -> str:
    if isinstance(part, int) and part.bit_length() > _DECIMAL_BITS:
        return f"0x{part:x}"
    return str(part)


def stream(seed: int, *name: str | int) -> random.Random:
    """The generator of stream ``name`` of ``seed``: ``random.Random("seed/name...")``.

    ``stream(7, "seat")`` and ``stream(7, "opponent")`` are independent of each
    other and of ``random.Random(7)`` (the deal stream). Raises ``ValueError``
    for a seed that is not a non-negative int or a name part that is not a str
    or an int.
    """
    if not name:
        raise ValueError("a stream needs a name (the deal stream is random.Random(seed) itself)")
    return random.Random(_key(seed, name))


def derive_seed(seed: int, *name: str | int) -> int:
    """A ``SEED_BITS``-bit seed for stream ``name`` of ``seed`` (to seed an agent or a torch generator)."""
    return stream(seed, *name).getrandbits(SEED_BITS)
