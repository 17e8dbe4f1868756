"""The one Elo model of agents.evaluation.stats: its log-likelihood, score and information, shared by the ladder's fit
and the arena's Bradley-Terry ratings."""

import math

import numpy as np
import pytest

from agents.evaluation.stats import (
    ELO_PER_NATURAL_UNIT,
    PRIOR_WINS,
    bradley_terry_ratings,
    elo_information,
    elo_log_likelihood,
    elo_score,
)


def test_elo_log_likelihood_is_the_binomial_log_likelihood_of_the_elo_win_chance():
    """400 Elo above: 10:1 odds, so 30 wins and 3 losses have log-likelihood 30 log(10/11) + 3 log(1/11)."""
    gap = 400 / ELO_PER_NATURAL_UNIT
    assert elo_log_likelihood(gap, 30, 3) == pytest.approx(30 * math.log(10 / 11) + 3 * math.log(1 / 11))


def test_elo_log_likelihood_stays_finite_far_from_the_opponent():
    assert elo_log_likelihood(np.array([-50.0, 50.0]), np.array([0, 5]), np.array([5, 0])) == pytest.approx(
        0, abs=1e-18
    )
    assert elo_log_likelihood(800.0, 0, 1) == pytest.approx(-800.0)


def test_elo_score_and_information_are_the_log_likelihoods_derivatives():
    gap = np.array([-1.2, 0.3, 2.0])
    wins = np.array([3.0, 10.0, 40.0])
    losses = np.array([9.0, 7.0, 2.0])
    step = 1e-6
    for i in range(3):
        shifted = gap.copy()
        shifted[i] += step
        numeric = (elo_log_likelihood(shifted, wins, losses) - elo_log_likelihood(gap, wins, losses)) / step
        assert elo_score(gap, wins, losses)[i] == pytest.approx(numeric, rel=1e-4)
        second = (elo_score(shifted, wins, losses)[i] - elo_score(gap, wins, losses)[i]) / step
        assert elo_information(gap, wins + losses)[i] == pytest.approx(-second, rel=1e-4)


def test_bradley_terry_ratings_maximise_the_shared_log_likelihood():
    """The arena's joint fit (choix) is a stationary point of elo_log_likelihood over every pair, with the
    prior's virtual wins: the score of each agent sums to 0."""
    names = ["a", "b", "c"]
    wins = {("a", "b"): 240, ("b", "a"): 160, ("b", "c"): 260, ("c", "b"): 140, ("a", "c"): 300, ("c", "a"): 100}
    results = [pair for pair, count in wins.items() for _ in range(count)]
    ratings = bradley_terry_ratings(names, results)
    strength = {name: ratings[name]["elo"] / ELO_PER_NATURAL_UNIT for name in names}
    for name in names:
        others = [other for other in names if other != name]
        gaps = np.array([strength[name] - strength[other] for other in others])
        won = np.array([wins[(name, other)] + PRIOR_WINS for other in others])
        lost = np.array([wins[(other, name)] + PRIOR_WINS for other in others])
        assert float(np.sum(elo_score(gaps, won, lost))) == pytest.approx(0.0, abs=1e-4)
