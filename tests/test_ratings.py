"""Arena ratings agree with the games: Bradley–Terry fitted to all games jointly.

The first build updated OpenSkill ratings game by game in pair order, so the
last pairs played weighed most: PPO beat the heuristic 60.7% in 2,000 games,
yet the ratings put the heuristic above it. A joint maximum-likelihood fit does
not depend on the order of the games.
"""

import math
import random

import pytest

from agents.arena import format_table, round_robin
from agents.stats import ELO_PER_NATURAL_UNIT, bradley_terry_ratings


def games(a: str, b: str, n: int, a_wins: int) -> list:
    return [(a, b)] * a_wins + [(b, a)] * (n - a_wins)


def constructed_tournament() -> list:
    """The issue's case, pair by pair: ppo 60.7% over heuristic first, then both against weaker agents."""
    return (games("ppo", "heuristic", 2000, 1214)
            + games("ppo", "random", 2000, 1810)
            + games("heuristic", "random", 2000, 1750)
            + games("ppo", "pimc", 2000, 700)
            + games("heuristic", "pimc", 2000, 690)
            + games("pimc", "random", 2000, 1900))


def test_a_clear_head_to_head_result_is_never_ranked_the_other_way():
    results = constructed_tournament()
    ratings = bradley_terry_ratings(["random", "heuristic", "ppo", "pimc"], results, bootstrap=200)
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
    assert bradley_terry_ratings(names, results, bootstrap=50) == bradley_terry_ratings(names, shuffled, bootstrap=50)


def test_two_agents_get_the_logit_of_their_win_rate():
    # 607 : 393 -> Elo difference 400 * log10(607 / 393) = 75.5 (the ridge moves it by < 0.1)
    r = bradley_terry_ratings(["a", "b"], games("a", "b", 1000, 607), bootstrap=0)
    diff = r["a"]["elo"] - r["b"]["elo"]
    assert diff == pytest.approx(400 * math.log10(607 / 393), abs=0.1)
    assert r["a"]["elo"] == pytest.approx(-r["b"]["elo"])  # centred on 0
    assert r["a"]["games"] == r["b"]["games"] == 1000
    assert abs(ELO_PER_NATURAL_UNIT - 173.7178) < 1e-4


def test_bootstrap_interval_holds_the_estimate_and_is_seeded():
    results = games("a", "b", 400, 240) + games("b", "c", 400, 260) + games("a", "c", 400, 300)
    r1 = bradley_terry_ratings(["a", "b", "c"], results, bootstrap=300, seed=4)
    assert r1 == bradley_terry_ratings(["a", "b", "c"], results, bootstrap=300, seed=4)
    assert r1 != bradley_terry_ratings(["a", "b", "c"], results, bootstrap=300, seed=5)
    for r in r1.values():
        assert r["low"] < r["elo"] < r["high"]
        # 400 games a pair: the interval is tens of Elo points wide, not hundreds
        assert 10 < r["high"] - r["low"] < 120


def test_an_unbeaten_agent_keeps_a_finite_rating():
    r = bradley_terry_ratings(["a", "b"], games("a", "b", 50, 50), bootstrap=20)
    assert math.isfinite(r["a"]["elo"]) and r["a"]["elo"] > 300


@pytest.mark.parametrize("names,results,kwargs,message", [
    (["a"], [], {}, "at least two distinct names"),
    (["a", "a"], [], {}, "at least two distinct names"),
    (["a", "b"], [("a", "x")], {}, "both must be distinct names"),
    (["a", "b"], [("a", "a")], {}, "both must be distinct names"),
    (["a", "b"], [("a", "b")], {"bootstrap": -1}, "bootstrap must be an int >= 0"),
    (["a", "b"], [("a", "b")], {"bootstrap": 1.5}, "bootstrap must be an int >= 0"),
])
def test_bad_rating_input(names, results, kwargs, message):
    with pytest.raises(ValueError, match=message):
        bradley_terry_ratings(names, results, **kwargs)


def test_round_robin_ratings_follow_the_pairs():
    report = round_robin(["random", "heuristic"], games=40, seed=3)
    pair = report["pairs"][0]
    r = report["ratings"]
    assert (r["heuristic"]["elo"] > r["random"]["elo"]) == (pair["wins"][1] > pair["wins"][0])
    assert r["heuristic"]["games"] == 40
    assert "Bradley-Terry" in report["rating_model"]
    table = format_table(report)
    assert "heuristic" in table.splitlines()[-2] and "(40 games)" in table
