"""Small statistics helpers for the arena: confidence intervals and ratings.

* :func:`wilson_interval` — the Wilson score interval of a win rate (binomial).
* :func:`mean_interval` — mean and normal-approximation interval of per-game values
  (game points); with the arena's sample sizes (hundreds of games) the Student t
  quantile equals the normal one to two decimals.
* :func:`bradley_terry_ratings` — Elo-scale Bradley–Terry ratings fitted to all games
  jointly (``choix``), with bootstrap intervals.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from statistics import NormalDist

#: two-sided 95% confidence
CONFIDENCE = 0.95
#: Elo points per natural-log unit of Bradley–Terry strength (400 / ln 10): 400 points = 10:1 odds
ELO_PER_NATURAL_UNIT = 400 / math.log(10)
#: ridge on the Bradley–Terry strengths (choix ``alpha``): keeps an unbeaten agent's rating finite,
#: changes a 60:40 pair of 2,000 games by well under an Elo point
BT_ALPHA = 0.01
#: bootstrap resamples for the rating intervals
BOOTSTRAP = 1000


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


def bradley_terry_ratings(names: Sequence[str], results: Iterable[tuple[str, str]], bootstrap: int = BOOTSTRAP,
                          seed: int = 0, confidence: float = CONFIDENCE) -> dict[str, dict]:
    """Elo-scale Bradley–Terry ratings of ``names``, fitted to all ``(winner, loser)`` games jointly.

    The model: ``P(i beats j) = 1 / (1 + 10 ** ((elo_j - elo_i) / 400))``. The
    maximum-likelihood strengths come from ``choix.ilsr_pairwise_dense`` (with a
    tiny ridge ``BT_ALPHA`` so that an agent that won every game keeps a finite
    rating); ratings are centred on 0, so only differences mean something. The
    order of the games does not matter (unlike sequential updates such as Elo or
    OpenSkill game by game), so a pair's rating difference follows its
    head-to-head record. Intervals: percentile bootstrap (``bootstrap``
    resamples of each pair's games with replacement, a ``numpy`` generator seeded
    by ``seed``). Returns for each name ``{"elo", "low", "high", "games"}``.
    Raises ``ValueError`` for an unknown name in ``results``, repeated names,
    ``bootstrap < 0`` or fewer than two names.
    """
    import choix
    import numpy as np

    names = list(names)
    if len(names) < 2 or len(set(names)) != len(names):
        raise ValueError(f"ratings need at least two distinct names, got {names}")
    if type(bootstrap) is not int or bootstrap < 0:
        raise ValueError(f"bootstrap must be an int >= 0, got {bootstrap!r}")
    index = {n: i for i, n in enumerate(names)}
    k = len(names)
    wins = np.zeros((k, k))
    for winner, loser in results:
        if winner not in index or loser not in index or winner == loser:
            raise ValueError(f"a game between {winner!r} and {loser!r}: both must be distinct names of {names}")
        wins[index[winner], index[loser]] += 1

    def fit(w):
        return ELO_PER_NATURAL_UNIT * choix.ilsr_pairwise_dense(w, alpha=BT_ALPHA)

    elo = fit(wins)
    low, high = elo.copy(), elo.copy()
    if bootstrap:
        rng = np.random.default_rng(seed)
        games = wins + wins.T
        share = np.divide(wins, games, out=np.zeros_like(wins), where=games > 0)
        upper = np.triu_indices(k, 1)
        samples = np.empty((bootstrap, k))
        for b in range(bootstrap):
            w = np.zeros((k, k))
            w[upper] = rng.binomial(games[upper].astype(np.int64), share[upper])
            w.T[upper] = games[upper] - w[upper]
            samples[b] = fit(w)
        tail = (1 - confidence) / 2 * 100
        low, high = np.percentile(samples, [tail, 100 - tail], axis=0)
    played = (wins + wins.T).sum(1)
    return {n: {"elo": float(elo[i]), "low": float(low[i]), "high": float(high[i]), "games": int(played[i])}
            for n, i in index.items()}
