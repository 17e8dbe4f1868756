"""Confidence intervals and ratings for the arena.

* :func:`wilson_interval` — Wilson score interval of a win rate (``scipy.stats.binomtest``).
* :func:`mean_interval` — mean of bounded per-game values (game points) with a Wilson score
  interval for a bounded mean.
* :func:`elo_log_likelihood`, :func:`elo_score`, :func:`elo_information` — the one Elo model of the
  package (``P(win) = 1 / (1 + exp(-gap))``, gap in natural units): its log-likelihood and the first and
  second derivatives, used by the ladder's fit (:func:`agents.evaluation.ladder.fit_rating`) and the arena's.
* :func:`bradley_terry_ratings` — Elo-scale Bradley–Terry ratings fitted to all games jointly
  (``choix``) with a weak prior, intervals from the normal approximation of the posterior."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from statistics import NormalDist

import numpy as np

from ..extras import require

#: two-sided 95% confidence
CONFIDENCE = 0.95
#: Elo points per natural-log unit of Bradley–Terry strength (400 / ln 10): 400 points = 10:1 odds
ELO_PER_NATURAL_UNIT = 400 / math.log(10)
#: the prior of the ratings: each agent of every pair gets this many virtual wins against the other
#: (Laplace's rule of succession), so a 10-0 record rates as 11:1 odds, not infinite ones
PRIOR_WINS = 1.0


def elo_log_likelihood(gap: np.ndarray | float, wins: np.ndarray | float, losses: np.ndarray | float) -> float:
    """Log-likelihood of ``wins`` and ``losses`` of a player ``gap`` natural units (Elo /
    :data:`ELO_PER_NATURAL_UNIT`) stronger than its opponent, summed over the entries of equal-shaped arrays
    (or scalars): ``wins * log P(win) + losses * log P(loss)``, ``P(win) = 1 / (1 + exp(-gap))``, computed
    without overflow for any finite gap."""
    gap = np.asarray(gap, dtype=float)
    return -float(np.sum(wins * np.logaddexp(0.0, -gap) + losses * np.logaddexp(0.0, gap)))


def elo_score(gap: np.ndarray | float, wins: np.ndarray | float, losses: np.ndarray | float) -> np.ndarray:
    """The derivative of :func:`elo_log_likelihood` with respect to each ``gap`` (entry by entry):
    ``wins * P(loss) - losses * P(win)``; zero where the expected wins equal ``wins``."""
    win = elo_win_probability(gap)
    return wins * (1.0 - win) - losses * win


def elo_information(gap: np.ndarray | float, games: np.ndarray | float) -> np.ndarray:
    """Fisher information of :func:`elo_log_likelihood` at each ``gap`` for ``games`` games (minus its second
    derivative): ``games * P(win) * P(loss)``, in 1 / natural units squared."""
    win = elo_win_probability(gap)
    return games * win * (1.0 - win)


def elo_win_probability(gap: np.ndarray | float) -> np.ndarray:
    """``P(win) = 1 / (1 + exp(-gap))`` (written out, not scipy's ``expit``, whose last bit differs: the
    arena's ratings stay byte-identical to earlier runs)."""
    return 1 / (1 + np.exp(-np.asarray(gap, dtype=float)))


def wilson_interval(successes: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval ``(low, high)`` of ``successes`` of ``n >= 1`` trials (scipy's ``binomtest``).
    ``ValueError`` unless ``0 <= successes <= n``."""
    binomtest = require("scipy.stats", "agents.evaluation.stats").binomtest
    ci = binomtest(successes, n=n).proportion_ci(confidence_level=confidence, method="wilson")
    return (float(ci.low), float(ci.high))


def mean_interval(
    values: Sequence[float], low: float, high: float, confidence: float = CONFIDENCE
) -> tuple[float, float, float]:
    """``(mean, lo, hi)`` of values in ``low..high`` (e.g. game points 0..3): the Wilson interval of the
    mean rescaled to 0..1 with the largest variance ``p(1 - p)``, so conservative and never a point."""
    n, width = len(values), high - low
    mean = math.fsum(values) / n
    p = (mean - low) / width
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    center = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    # rounding leaves center - half near 1e-17 at p = 0 (the high end just below 1 at p = 1): clamp to the edge
    lo = 0.0 if p <= 0 else center - half
    hi = 1.0 if p >= 1 else center + half
    return (mean, low + width * lo, low + width * hi)


def bradley_terry_ratings(
    names: Sequence[str], results: Iterable[tuple[str, str]], confidence: float = CONFIDENCE
) -> dict[str, dict]:
    """Elo-scale Bradley–Terry ratings of ``names`` fitted to all ``(winner, loser)`` games jointly.

    ``P(i beats j) = 1 / (1 + 10 ** ((elo_j - elo_i) / 400))`` (:func:`elo_log_likelihood` over all pairs);
    the posterior mode (``choix``) under :data:`PRIOR_WINS` virtual wins each way per pair (finite for unbeaten
    agents), centred on the pool's mean (pool Elo: only differences mean anything), interval ``elo ± z·sd``
    from the Laplace approximation (:func:`elo_information`). Returns ``{name: {"elo", "low", "high",
    "games"}}``."""
    choix = require("choix", "agents.evaluation.stats")
    names = list(names)
    index = {n: i for i, n in enumerate(names)}
    k = len(names)
    wins = np.zeros((k, k))
    for winner, loser in results:
        wins[index[winner], index[loser]] += 1
    counts = wins + PRIOR_WINS * (1 - np.eye(k))
    theta = choix.ilsr_pairwise_dense(counts)
    theta -= theta.mean()
    # Hessian of the negative log-likelihood: a graph Laplacian with weights n_ij p_ij (1 - p_ij)
    weight = elo_information(theta[:, None] - theta[None, :], counts + counts.T)
    hessian = np.diag(weight.sum(1)) - weight
    # its pseudo-inverse is the covariance of the centred strengths (the null space is the common shift)
    sd = np.sqrt(np.diag(np.linalg.pinv(hessian)))
    elo = ELO_PER_NATURAL_UNIT * theta
    half = NormalDist().inv_cdf(0.5 + confidence / 2) * ELO_PER_NATURAL_UNIT * sd
    low, high, played = elo - half, elo + half, (wins + wins.T).sum(1)
    return {
        n: {"elo": float(elo[i]), "low": float(low[i]), "high": float(high[i]), "games": int(played[i])}
        for n, i in index.items()
    }
