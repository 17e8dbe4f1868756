"""Small statistics helpers for the arena: confidence intervals and ratings.

* :func:`wilson_interval` — the Wilson score interval of a win rate (binomial).
* :func:`mean_interval` — mean and normal-approximation interval of per-game values
  (game points); with the arena's sample sizes (hundreds of games) the Student t
  quantile equals the normal one to two decimals.
* :func:`plackett_luce_ratings` — OpenSkill Plackett–Luce ratings from game results.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from statistics import NormalDist

#: two-sided 95% confidence
CONFIDENCE = 0.95
#: rating interval half-width in standard deviations: rating = mu ± RATING_SIGMAS * sigma
RATING_SIGMAS = 2


def z_value(confidence: float = CONFIDENCE) -> float:
    """The standard normal quantile for a two-sided interval (1.959964 for 95%)."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson_interval(successes: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval ``(low, high)`` for ``successes`` out of ``n`` trials.

    ``center = (p + z²/2n) / (1 + z²/n)``, ``half = z·sqrt(p(1-p)/n + z²/4n²) / (1 + z²/n)``
    with ``p = successes / n``. Raises ``ValueError`` unless ``0 <= successes <= n`` and ``n >= 1``.
    """
    if type(n) is not int or n < 1:
        raise ValueError(f"n must be an int >= 1, got {n!r}")
    if type(successes) is not int or not 0 <= successes <= n:
        raise ValueError(f"successes must be an int in 0..{n}, got {successes!r}")
    z = z_value(confidence)
    p = successes / n
    denom = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, center - half), min(1.0, center + half))


def mean_interval(values: Sequence[float], confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """``(mean, low, high)``: the mean and ``mean ± z·s/√n`` (``s`` the sample standard deviation).

    With one value the interval is the value itself. Raises ``ValueError`` for no values.
    """
    n = len(values)
    if n == 0:
        raise ValueError("mean_interval needs at least one value")
    mean = math.fsum(values) / n
    if n == 1:
        return (mean, mean, mean)
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = z_value(confidence) * math.sqrt(var / n)
    return (mean, mean - half, mean + half)


def plackett_luce_ratings(names: Sequence[str], results: Iterable[tuple[str, str]]) -> dict[str, dict]:
    """OpenSkill Plackett–Luce ratings of ``names`` from ``(winner, loser)`` results, in order.

    Every player starts at mu=25, sigma=25/3 (OpenSkill defaults). Returns for each
    name ``{"mu", "sigma", "low", "high", "ordinal"}`` where the rating interval is
    ``mu ± 2·sigma`` and ``ordinal = mu - 3·sigma`` (a conservative score). Raises
    ``ImportError`` naming the package when ``openskill`` is missing.
    """
    try:
        from openskill.models import PlackettLuce
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("ratings need the 'openskill' package: pip install openskill") from e
    model = PlackettLuce()
    ratings = {n: model.rating(name=n) for n in names}
    for winner, loser in results:
        (w,), (lo,) = model.rate([[ratings[winner]], [ratings[loser]]], ranks=[0, 1])
        ratings[winner], ratings[loser] = w, lo
    return {
        n: {"mu": r.mu, "sigma": r.sigma, "low": r.mu - RATING_SIGMAS * r.sigma,
            "high": r.mu + RATING_SIGMAS * r.sigma, "ordinal": r.mu - 3 * r.sigma}
        for n, r in ratings.items()
    }
