"""Arena ratings agree with the games: Bradley–Terry fitted to all games jointly, with a weak prior."""

import math
from statistics import NormalDist
import random

import pytest

from agents.evaluation.arena import format_table, round_robin
from agents.evaluation.stats import CONFIDENCE, ELO_PER_NATURAL_UNIT, bradley_terry_ratings


def games(a: str, b: str, n: int, a_wins: int) -> list:
    return [(a, b)] * a_wins + [(b, a)] * (n - a_wins)


def constructed_tournament() -> list:
    """The issue's case, pair by pair: ppo 60.7% over heuristic first, then both against weaker agents."""
    return (
        games("ppo", "heuristic", 2000, 1214)
        + games("ppo", "random", 2000, 1810)
        + games("heuristic", "random", 2000, 1750)
        + games("ppo", "pimc", 2000, 700)
        + games("heuristic", "pimc", 2000, 690)
        + games("pimc", "random", 2000, 1900)
    )


def test_a_clear_head_to_head_result_is_never_ranked_the_other_way():
    results = constructed_tournament()
    ratings = bradley_terry_ratings(["random", "heuristic", "ppo", "pimc"], results)
    order = sorted(ratings, key=lambda n: -ratings[n]["elo"])
    assert order == ["pimc", "ppo", "heuristic", "random"]
    # every pair: the head-to-head winner is rated higher
    pairs = {}
    for w, lo in results:
        key = tuple(sorted((w, lo)))
        pairs.setdefault(key, [0, 0])[0 if w == key[0] else 1] += 1
    for (x, y), (wx, wy) in pairs.items():
        assert (ratings[x]["elo"] > ratings[y]["elo"]) == (wx > wy), (x, y, wx, wy)


def test_ratings_do_not_depend_on_the_order_of_the_games():
    results = constructed_tournament()
    shuffled = results[:]
    random.Random(1).shuffle(shuffled)
    names = ["random", "heuristic", "ppo", "pimc"]
    assert bradley_terry_ratings(names, results) == bradley_terry_ratings(names, shuffled)


def two_agent_interval(a_wins: int, n: int) -> tuple[float, float]:
    """Hand value for two agents: with one virtual win each way the Elo difference is the logit of
    (a_wins + 1) : (n - a_wins + 1); each agent holds half of it, and half of its standard deviation
    1 / sqrt((n + 2) p (1 - p))."""
    p = (a_wins + 1) / (n + 2)
    elo = 200 * math.log10(p / (1 - p))
    half = NormalDist().inv_cdf(0.5 + CONFIDENCE / 2) * ELO_PER_NATURAL_UNIT / 2 / math.sqrt((n + 2) * p * (1 - p))
    return elo, half


def test_two_agents_get_the_logit_of_their_win_rate():
    r = bradley_terry_ratings(["a", "b"], games("a", "b", 1000, 607))
    elo, half = two_agent_interval(607, 1000)
    assert r["a"]["elo"] == pytest.approx(elo) and r["b"]["elo"] == pytest.approx(-elo)  # centred on 0
    assert (r["a"]["low"], r["a"]["high"]) == pytest.approx((elo - half, elo + half))
    assert 2 * elo == pytest.approx(400 * math.log10(607 / 393), abs=0.2)  # the prior barely moves 1,000 games
    assert r["a"]["games"] == r["b"]["games"] == 1000
    assert abs(ELO_PER_NATURAL_UNIT - 173.7178) < 1e-4


def test_a_perfect_record_gets_a_finite_rating_and_a_real_interval():
    r = bradley_terry_ratings(["a", "b"], games("a", "b", 10, 10))
    elo, half = two_agent_interval(10, 10)  # 11:1 odds: +208 Elo, +-178
    assert r["a"]["elo"] == pytest.approx(elo) == pytest.approx(208.28, abs=0.01)
    assert (r["a"]["low"], r["a"]["high"]) == pytest.approx((elo - half, elo + half))
    assert half == pytest.approx(177.8, abs=0.1)


def test_intervals_of_three_agents_hold_the_estimate():
    results = games("a", "b", 400, 240) + games("b", "c", 400, 260) + games("a", "c", 400, 300)
    for r in bradley_terry_ratings(["a", "b", "c"], results).values():
        assert r["low"] < r["elo"] < r["high"]
        # 400 games a pair: the interval is tens of Elo points wide, not hundreds
        assert 10 < r["high"] - r["low"] < 120


def test_round_robin_ratings_follow_the_pairs():
    report = round_robin(["random", "heuristic"], games=40, seed=3)
    pair = report["pairs"][0]
    r = report["ratings"]
    assert (r["heuristic"]["elo"] > r["random"]["elo"]) == (pair["wins"][1] > pair["wins"][0])
    assert r["heuristic"]["games"] == 40
    assert "Bradley-Terry" in report["rating_model"]
    table = format_table(report)
    assert "heuristic" in table and "(40 games)" in table
