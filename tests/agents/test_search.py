"""SearchAgent (agents/players/search.py, spec ``search``, run by the compiled core): legal and reproducible choices, the
exact action where the solver knows it, a move that wins in every world, the worlds drawn at their exact weights,
the iteration and time budgets, Ctrl-C, and its parameter checks. Behaviour, not a second implementation: the
search owns its generator (agents/players/csrc/worlds.c)."""

from __future__ import annotations

import math
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from itertools import combinations

import pytest
from scipy.stats import chi2

from agents import make_agent
from agents.players import solver
from agents.players.pimc import MAX_SAMPLES, PIMCAgent, inference_weight
from agents.players.search import SearchAgent, most_visited
from schnapsen_env import VARIANTS, GameState, Rules

pytestmark = pytest.mark.skipif(not solver.core_available(), reason="the compiled core is not built")

#: a small iteration budget keeps the tests fast
SMALL = 30
#: the agent searches once the face-down talon is this short (random moves before: full deals solve slowly)
SEARCH_TALON = 5
#: the significance of the frequency tests (at a fixed seed: they pass or fail the same way every run)
SIGNIFICANCE = 0.001


def decision_states(rules: Rules, games: int, seed: int):
    """Every decision state of ``games`` random games (the mover has more than one legal action)."""
    rng = random.Random(seed)
    for game in range(games):
        s = GameState.from_seed(rules, seed=seed + game)
        while not s.is_terminal:
            if len(s.legal_actions()) > 1:
                yield s.clone()
            s.apply(rng.choice(s.legal_actions()))


def _info(state: GameState):
    return state.information_set(state.current_player)


@pytest.mark.parametrize("leaf", ["exact", "rollout"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_legal_actions_over_random_play(variant, leaf):
    agent = SearchAgent(iterations=SMALL, seed=1, leaf=leaf)
    checked = 0
    for s in decision_states(Rules.preset(variant), 4, 0):
        if s.talon_size <= SEARCH_TALON:
            assert agent.act(_info(s)) in s.legal_actions()
            checked += 1
    assert checked >= 4


@pytest.mark.parametrize("leaf", ["exact", "rollout"])
@pytest.mark.parametrize("expand", ["one", "all"])
def test_same_seed_same_search(expand, leaf):
    s = next(x for x in decision_states(Rules(), 5, 3) if 0 < x.talon_size <= SEARCH_TALON and x.lead_card >= 0)
    runs = [SearchAgent(iterations=SMALL, seed=9, expand=expand, leaf=leaf).root_edges(_info(s)) for _ in range(2)]
    assert runs[0] == runs[1]
    assert sum(edge.visits for edge in runs[0]) >= SMALL


def test_same_seed_same_moves_over_a_game():
    """Two agents of one seed choose the same moves over whole games (the generator is seeded from ``rng``)."""
    agents = [SearchAgent(iterations=200, seed=4, leaf="rollout") for _ in range(2)]
    moves = [[], []]
    for s in decision_states(Rules(), 2, 17):
        for agent, chosen in zip(agents, moves):
            chosen.append(agent.act(_info(s)))
    assert moves[0] == moves[1]
    assert len(moves[0]) >= 20


def test_every_iteration_passes_one_root_action():
    """expand="one" adds one visit to one root action per iteration; "all" first values every root action once
    (one visit each), then each later iteration passes one."""
    s = next(x for x in decision_states(Rules(), 5, 4) if 0 < x.talon_size <= SEARCH_TALON and x.lead_card < 0)
    info = _info(s)
    one = SearchAgent(iterations=SMALL, seed=2, expand="one").root_edges(info)
    assert sum(edge.visits for edge in one) == SMALL
    every = SearchAgent(iterations=SMALL, seed=2, expand="all").root_edges(info)
    assert {edge.action for edge in every} == set(info.legal_actions)
    assert sum(edge.visits for edge in every) == SMALL - 1 + len(info.legal_actions)


def _solved_positions(count: int) -> list:
    """``(info, the winning action)`` of ``count`` positions where exactly one action wins in every consistent
    world (PIMC enumerates them all) and every other action loses in most."""
    pimc = PIMCAgent(samples=10_000, lead_inference=1.0)
    found = []
    for s in decision_states(Rules(), 60, 11):
        info = _info(s)
        if s.talon_size == 0 or s.talon_size > 3 or solver.is_perfect_information(info):
            continue
        stats = pimc.action_stats(info)
        winners = [action for action, (win, _) in stats.items() if win == 1.0]
        if len(winners) == 1 and all(win < 0.5 for action, (win, _) in stats.items() if action != winners[0]):
            found.append((info, winners[0]))
        if len(found) == count:
            return found
    raise AssertionError(f"only {len(found)} solved positions in the games")


def test_plays_the_action_that_wins_in_every_world_at_every_budget():
    """A move that wins in every world is found, and more iterations never lose it."""
    for index, (info, winner) in enumerate(_solved_positions(4)):
        for iterations in (100, 400, 1600):
            assert SearchAgent(iterations=iterations, seed=index).act(info) == winner


def test_plays_the_solvers_action_once_nothing_is_hidden():
    agent = SearchAgent(iterations=1, seed=0)
    checked = 0
    for s in decision_states(Rules(), 6, 21):
        info = _info(s)
        if solver.is_perfect_information(info):
            assert agent.act(info) == solver.perfect_information_action(info)
            checked += 1
    assert checked >= 10


def test_stop_when_decided_keeps_the_move():
    """``until_decided`` stops before the last iteration with the move of the full search."""
    s = next(x for x in decision_states(Rules(), 20, 5) if x.closed_by < 0 and 0 < x.talon_size <= SEARCH_TALON)
    info = _info(s)
    iterations = 400
    full = most_visited(SearchAgent(iterations=iterations, seed=6).root_edges(info))
    edges = SearchAgent(iterations=iterations, seed=6).root_edges(info, until_decided=True)
    assert most_visited(edges) == full
    assert sum(edge.visits for edge in edges) < iterations


def test_search_past_the_old_world_cap():
    """More iterations than the 2^17 - 1 worlds the core once took in one call: every iteration runs (expand
    "all": the first visits every root action)."""
    state = next(s for s in decision_states(Rules(), 5, 3) if 0 < s.talon_size <= 2 and s.closed_by < 0)
    info = _info(state)
    iterations = 2**17 + 1
    edges = SearchAgent(iterations=iterations, seed=0, leaf="rollout").root_edges(info)
    assert sum(edge.visits for edge in edges) == iterations - 1 + len(info.legal_actions)


# ------------------------------------------------------------------ the worlds, at their exact weights
def _world_count(spec) -> int:
    """How many worlds are consistent with a WorldSpec (talon orders counted while they matter)."""
    talon = spec.unseen.bit_count() - spec.need
    order = spec.order_matters and talon > 1
    return math.comb(len(spec.candidates), spec.need) * (math.factorial(talon) if order else 1)


def _chi_square_p(observed: Counter, expected: dict) -> float:
    """The p-value of Pearson's chi-square test of ``observed`` counts against ``expected`` probabilities."""
    total = sum(observed.values())
    statistic = sum((observed[key] - total * share) ** 2 / (total * share) for key, share in expected.items())
    return float(chi2.sf(statistic, len(expected) - 1))


def _spec_where(predicate, iterations: int, lead_inference: float, games: int = 40):
    """``(info, WorldSpec)`` of the first hidden-information decision whose spec satisfies ``predicate``."""
    for s in decision_states(Rules(), games, 31):
        info = _info(s)
        if solver.is_perfect_information(info):
            continue
        spec = SearchAgent(iterations=iterations, lead_inference=lead_inference).world_spec(info)
        if predicate(spec):
            return info, spec
    raise AssertionError("no decision in the games has such worlds")


def test_enumerated_worlds_are_drawn_at_their_inference_weights():
    """Few worlds, weighed by the opponent's skipped exchange or marriage: each iteration draws a world with
    probability its weight over the total (agents.players.pimc.inference_weight)."""
    iterations = 60_000
    info, spec = _spec_where(
        lambda spec: spec.inferences and not spec.order_matters and 3 <= _world_count(spec) <= 30,
        iterations,
        lead_inference=0.2,
    )
    hands, _ = solver.compiled_core().sample_worlds(spec, 12345)
    assert len(hands) == iterations
    weights = {}
    for chosen in combinations(spec.candidates, spec.need):
        hand = spec.opponent_known | sum(1 << card for card in chosen)
        weights[hand] = inference_weight(list(spec.inferences), hand, spec.violation_weight)
    assert len(set(weights.values())) > 1, "the weights must differ for the test to mean something"
    total = sum(weights.values())
    expected = {hand: weight / total for hand, weight in weights.items() if weight > 0}
    observed = Counter(hands)
    assert set(observed) == set(expected)
    assert _chi_square_p(observed, expected) > SIGNIFICANCE


def test_sampled_hands_are_uniform_and_talons_shuffled():
    """Many worlds, no inference: MAX_SAMPLES distinct hands drawn uniformly, each talon in a uniform order."""
    info, spec = _spec_where(
        lambda spec: not spec.inferences and spec.order_matters and _world_count(spec) > MAX_SAMPLES,
        MAX_SAMPLES,
        lead_inference=1.0,
    )
    hands, talons = solver.compiled_core().sample_worlds(spec, 777)
    assert len(hands) == MAX_SAMPLES
    hand_count = math.comb(len(spec.candidates), spec.need)
    expected = {
        spec.opponent_known | sum(1 << card for card in chosen): 1 / hand_count
        for chosen in combinations(spec.candidates, spec.need)
    }
    assert _chi_square_p(Counter(hands), expected) > SIGNIFICANCE
    for hand, talon in zip(hands, talons):
        assert hand & ~(spec.opponent_known | spec.unseen) == 0
        assert sorted(talon) == [card for card in range(24) if spec.unseen >> card & 1 and not hand >> card & 1]
    first_cards = Counter(talon[0] for talon in talons)
    assert len(first_cards) > 1
    assert max(first_cards.values()) < 0.5 * MAX_SAMPLES


@pytest.mark.parametrize(
    "field, value",
    [
        ("candidates", (3, 1)),
        ("samples", 41),
        ("violation_weight", 1.5),
        ("need", 20),
        ("inferences", ((1,),)),
    ],
)
def test_bad_world_spec_is_refused(field, value):
    s = next(x for x in decision_states(Rules(), 5, 3) if 0 < x.talon_size <= SEARCH_TALON)
    spec = SearchAgent(iterations=40, seed=0).world_spec(_info(s))._replace(**{field: value})
    with pytest.raises((ValueError, TypeError), match=field if field != "inferences" else "led"):
        solver.compiled_core().sample_worlds(spec, 0)


# ------------------------------------------------------------------ time, Ctrl-C, options
def test_time_budget_stops_the_search_within_its_budget():
    """``ms`` on a full deal stops after a few of the many iterations allowed (each solves a whole deal), within
    the budget plus about one iteration."""
    s = GameState.from_seed(Rules(), seed=8)
    info = _info(s)
    start = time.perf_counter()
    SearchAgent(iterations=1, seed=0).root_edges(info)
    one_iteration = time.perf_counter() - start
    budget_ms = 50
    start = time.perf_counter()
    edges = SearchAgent(iterations=2000, ms=budget_ms, seed=0).root_edges(info)
    elapsed = time.perf_counter() - start
    visits = sum(edge.visits for edge in edges)
    assert len(info.legal_actions) <= visits < 1000
    # one iteration's time twice over, and a margin for a loaded machine
    assert elapsed < budget_ms / 1000 + 2 * one_iteration + 0.5


CTRL_C_SCRIPT = """
import sys
from agents.players.search import SearchAgent
from schnapsen_env import GameState, Rules
s = GameState.from_seed(Rules(), seed=8)
agent = SearchAgent(iterations=1_000_000, seed=0, leaf="rollout")
print("searching", flush=True)
try:
    agent.root_edges(s.information_set(s.current_player))
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(3)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")
def test_ctrl_c_stops_a_long_search():
    """SIGINT during a 1,000,000-iteration search raises KeyboardInterrupt within a second."""
    child = subprocess.Popen(
        [sys.executable, "-c", CTRL_C_SCRIPT],
        stdout=subprocess.PIPE,
        text=True,
        cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
    )
    try:
        assert child.stdout.readline().strip() == "searching"
        time.sleep(0.5)
        child.send_signal(signal.SIGINT)
        sent = time.perf_counter()
        assert child.wait(timeout=30) == 3
        assert time.perf_counter() - sent < 1.0
        assert child.stdout.read().strip() == "interrupted"
    finally:
        child.kill()


@pytest.mark.parametrize(
    "spec",
    [
        "search:iterations=0",
        "search:iterations=1000001",
        "search:exploration=-1",
        "search:expand=some",
        "search:objective=x",
        "search:ms=0",
        "search:core=false",
        "search:leaf=random",
    ],
)
def test_bad_option_is_refused(spec):
    with pytest.raises(ValueError):
        make_agent(spec)


def test_without_the_core_the_agent_names_the_fix(monkeypatch):
    monkeypatch.setattr(solver, "_core", None)
    with pytest.raises(ImportError, match="needs the compiled core"):
        SearchAgent()
