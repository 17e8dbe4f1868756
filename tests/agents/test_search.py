"""SearchAgent (agents/search.py, spec ``search``): legal, reproducible choices, the exact action where
the solver knows it, the search's counts, and its parameter checks."""

from __future__ import annotations

import random

import pytest

from agents import make_agent, solver
from agents.pimc import PIMCAgent
from agents.search import SearchAgent
from schnapsen_env import VARIANTS, GameState, Rules

#: a small iteration budget keeps the tests fast
SMALL = 30
#: the agent searches once the face-down talon is this short (random moves before: full deals solve slowly)
SEARCH_TALON = 5


def _states(rules: Rules, games: int, seed: int):
    """Every decision state of ``games`` random games (the mover has more than one legal action)."""
    rng = random.Random(seed)
    for game in range(games):
        s = GameState.from_seed(rules, seed=seed + game)
        while not s.is_terminal:
            if len(s.legal_actions()) > 1:
                yield s.clone()
            s.apply(rng.choice(s.legal_actions()))


@pytest.mark.parametrize("variant", VARIANTS)
def test_legal_actions_over_random_play(variant):
    agent = SearchAgent(iterations=SMALL, seed=1)
    for s in _states(Rules.preset(variant), 2, 0):
        if s.talon_size <= SEARCH_TALON:
            assert agent.act(s.information_set(s.current_player)) in s.legal_actions()


@pytest.mark.parametrize("expand", ["one", "all"])
def test_same_seed_same_search(expand):
    s = next(x for x in _states(Rules(), 5, 3) if 0 < x.talon_size <= SEARCH_TALON and x.lead_card >= 0)
    info = s.information_set(s.current_player)
    runs = [SearchAgent(iterations=SMALL, seed=9, expand=expand).root_edges(info) for _ in range(2)]
    assert {a: (e.visits, e.reward) for a, e in runs[0].items()} == {
        a: (e.visits, e.reward) for a, e in runs[1].items()
    }


def test_every_iteration_passes_one_root_action():
    """expand="one" adds one visit to one root action per iteration; "all" first values every root action once
    (one visit each), then each later iteration passes one."""
    s = next(x for x in _states(Rules(), 5, 4) if 0 < x.talon_size <= SEARCH_TALON and x.lead_card < 0)
    info = s.information_set(s.current_player)
    one = SearchAgent(iterations=SMALL, seed=2, expand="one").root_edges(info)
    assert sum(e.visits for e in one.values()) == SMALL
    every = SearchAgent(iterations=SMALL, seed=2, expand="all").root_edges(info)
    assert set(every) == set(info.legal_actions)
    assert sum(e.visits for e in every.values()) == SMALL - 1 + len(info.legal_actions)


def test_plays_the_action_that_wins_in_every_world():
    """Where exactly one action wins in every consistent world (all enumerated) and every other action
    loses in most, the search plays it."""
    pimc = PIMCAgent(samples=10_000, lead_inference=1.0)
    found = 0
    for s in _states(Rules(), 40, 11):
        info = s.information_set(s.current_player)
        if s.talon_size == 0 or s.talon_size > 3 or solver.is_perfect_information(info):
            continue
        stats = pimc.action_stats(info)
        winners = [a for a, (win, _) in stats.items() if win == 1.0]
        if len(winners) == 1 and all(win < 0.5 for a, (win, _) in stats.items() if a != winners[0]):
            assert SearchAgent(iterations=200, seed=found).act(info) == winners[0]
            found += 1
    assert found >= 3


def test_plays_the_solvers_action_once_nothing_is_hidden():
    agent = SearchAgent(iterations=1, seed=0)
    checked = 0
    for s in _states(Rules(), 6, 21):
        info = s.information_set(s.current_player)
        if solver.is_perfect_information(info):
            assert agent.act(info) == solver.perfect_information_action(info)
            checked += 1
    assert checked >= 10


@pytest.mark.parametrize(
    "spec", ["search:iterations=0", "search:exploration=-1", "search:expand=some", "search:objective=x"]
)
def test_bad_option_is_refused(spec):
    with pytest.raises(ValueError):
        make_agent(spec)
