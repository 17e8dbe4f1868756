"""SearchAgent (agents/search.py, spec ``search``): legal, reproducible choices, the exact action where
the solver knows it, the search's counts, the compiled loop's parity with the Python reference loop, the time
budget, and its parameter checks."""

from __future__ import annotations

import math
import random

import pytest

from agents import make_agent, solver
from schnapsen_env.actions import CLOSE
from agents.pimc import PIMCAgent
from agents.pimc import MAX_SAMPLES
from agents.search import SearchAgent, _rollout_action, most_visited
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


@pytest.mark.parametrize("leaf", ["exact", "rollout"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_legal_actions_over_random_play(variant, leaf):
    agent = SearchAgent(iterations=SMALL, seed=1, leaf=leaf)
    for s in _states(Rules.preset(variant), 2, 0):
        if s.talon_size <= SEARCH_TALON:
            assert agent.act(s.information_set(s.current_player)) in s.legal_actions()


@pytest.mark.parametrize("leaf", ["exact", "rollout"])
@pytest.mark.parametrize("expand", ["one", "all"])
def test_same_seed_same_search(expand, leaf):
    s = next(x for x in _states(Rules(), 5, 3) if 0 < x.talon_size <= SEARCH_TALON and x.lead_card >= 0)
    info = s.information_set(s.current_player)
    runs = [SearchAgent(iterations=SMALL, seed=9, expand=expand, leaf=leaf).root_edges(info) for _ in range(2)]
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


#: decision kinds the parity tests cover: a predicate on a talon-open state, by name
PARITY_KINDS = {
    "lead": lambda s: s.lead_card < 0,
    "follow": lambda s: s.lead_card >= 0,
    "close": lambda s: CLOSE in s.legal_actions(),
}
#: iterations of a parity search: enough for nodes below the root to be revisited (UCB1, new hands, untried
#: actions drawn at random)
PARITY_ITERATIONS = 120


def _parity_state(variant: str, kind: str) -> GameState:
    """The first talon-open decision of ``kind`` (:data:`PARITY_KINDS`) in random games of ``variant``, with
    a short talon (the leaves solve fast)."""
    wanted = PARITY_KINDS[kind]
    return next(
        s
        for s in _states(Rules.preset(variant), 20, 5)
        if s.closed_by < 0 and 0 < s.talon_size <= SEARCH_TALON and wanted(s)
    )


def _root_rows(edges: dict) -> list:
    """``[(action, visits, reward, available)]`` of root edges, in their order."""
    return [(a, e.visits, e.reward, e.available) for a, e in edges.items()]


@pytest.mark.skipif(not solver.core_available(), reason="the compiled core is not built")
@pytest.mark.parametrize("variant", ["schnapsen", "sechsundsechzig", "schnapsen-sharp"])
@pytest.mark.parametrize("kind", list(PARITY_KINDS))
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"expand": "one"},
        {"objective": "points", "opponent_closes": True, "exploration": 0.3},
        {"leaf": "rollout"},
        {"leaf": "rollout", "expand": "one", "objective": "points"},
    ],
    ids=["default", "expand-one", "points-closes", "rollout", "rollout-one-points"],
)
def test_compiled_loop_matches_python_loop(variant, kind, options):
    """Same worlds, same random numbers: the same root counts and rewards (bit for bit), the same move, and
    the generator left in the same state."""
    state = _parity_state(variant, kind)
    info = state.information_set(state.current_player)
    compiled = SearchAgent(iterations=PARITY_ITERATIONS, seed=3, core=True, **options)
    reference = SearchAgent(iterations=PARITY_ITERATIONS, seed=3, core=False, **options)
    assert _root_rows(compiled.root_edges(info)) == _root_rows(reference.root_edges(info))
    assert compiled.rng.getstate() == reference.rng.getstate()
    assert compiled.act(info) == reference.act(info)


@pytest.mark.skipif(not solver.core_available(), reason="the compiled core is not built")
def test_compiled_loop_matches_python_loop_on_a_full_deal():
    """The first decision of a Schnapsen deal (the whole talon face down, every leaf a long solve; a
    Sechsundsechzig deal takes a minute)."""
    state = GameState.from_seed(Rules(), seed=12)
    info = state.information_set(state.current_player)
    runs = [SearchAgent(iterations=PARITY_ITERATIONS, seed=5, core=core).root_edges(info) for core in (True, False)]
    assert _root_rows(runs[0]) == _root_rows(runs[1])


@pytest.mark.skipif(not solver.core_available(), reason="the compiled core is not built")
def test_compiled_rollout_leaves_match_python_on_a_full_deal():
    """``leaf="rollout"`` from the first decision of a deal of each variant (long rollouts, short solves)."""
    for variant in ("schnapsen", "sechsundsechzig"):
        state = GameState.from_seed(Rules.preset(variant), seed=12)
        info = state.information_set(state.current_player)
        runs = [
            SearchAgent(iterations=PARITY_ITERATIONS, seed=5, core=core, leaf="rollout").root_edges(info)
            for core in (True, False)
        ]
        assert _root_rows(runs[0]) == _root_rows(runs[1])


def _world_count(spec) -> int:
    """How many worlds are consistent with a WorldSpec (talon orders counted while they matter)."""
    talon = spec.unseen.bit_count() - spec.need
    order = spec.order_matters and talon > 1
    return math.comb(len(spec.candidates), spec.need) * (math.factorial(talon) if order else 1)


def _world_kind(spec) -> tuple:
    """``(how the worlds of a WorldSpec are drawn, whether lead inferences weigh them, whether the talon is
    closed)``; how: "enumerated" (all, one per iteration), "enumerated, resampled" (all, fewer than the
    iterations: drawn from by weight), "sampled" or "sampled, resampled" (more than agents.pimc.MAX_SAMPLES
    iterations)."""
    count = _world_count(spec)
    how = "enumerated" if count <= spec.samples else "sampled"
    if min(count, spec.samples) < spec.iterations:
        how += ", resampled"
    return how, bool(spec.inferences), not spec.order_matters


def _compiled_worlds(agent: SearchAgent, info) -> tuple:
    """``(worlds, generator state after)`` of the compiled core's draw for ``agent`` from ``info``."""
    version, twister, gauss_next = agent.rng.getstate()
    hands, talons, twister = solver._core.sample_worlds(agent.world_spec(info), twister)
    return list(zip(hands, talons)), (version, twister, gauss_next)


#: iterations and lead_inference of the world comparisons, taken in turn: enumerated and sampled worlds, one
#: or many per iteration, weighed by lead inferences or not (0: only worlds without a contradiction)
WORLD_CASES = [(1, 0.1), (40, 1.0), (2000, 0.1), (40, 0.0), (2000, 1.0), (300, 0.5)]


@pytest.mark.skipif(not solver.core_available(), reason="the compiled core is not built")
@pytest.mark.parametrize("variant", ["schnapsen", "sechsundsechzig"])
def test_compiled_worlds_match_python_worlds(variant):
    """The core draws the worlds SearchAgent.worlds draws, in the same order, leaving the generator in the same
    state, on every hidden-information decision of random games (talon open and closed, opponent on lead or
    not), in every way of drawing them."""
    kinds = set()
    states = [s for s in _states(Rules.preset(variant), 6, 31) if not solver.is_perfect_information(s)]
    for index, state in enumerate(states):
        info = state.information_set(state.current_player)
        iterations, lead_inference = WORLD_CASES[index % len(WORLD_CASES)]
        count = _world_count(SearchAgent(iterations=iterations).world_spec(info))
        # as many iterations as worlds too: all of them once each (unweighed)
        for tried in {iterations, count} if count <= MAX_SAMPLES else {iterations}:
            python = SearchAgent(iterations=tried, seed=index, lead_inference=lead_inference, core=False)
            compiled = SearchAgent(iterations=tried, seed=index, lead_inference=lead_inference)
            assert _compiled_worlds(compiled, info) == (python.worlds(info), python.rng.getstate())
            kinds.add(_world_kind(compiled.world_spec(info)))
    for how in ("enumerated", "enumerated, resampled", "sampled"):
        assert {(how, weighed, closed) for weighed in (False, True) for closed in (False, True)} <= kinds


@pytest.mark.skipif(not solver.core_available(), reason="the compiled core is not built")
def test_compiled_worlds_match_python_worlds_past_max_samples():
    """More iterations than agents.pimc.MAX_SAMPLES: MAX_SAMPLES worlds drawn by rejection, then drawn from for
    every iteration."""
    iterations = MAX_SAMPLES + 1
    state = next(
        s
        for s in _states(Rules(), 6, 32)
        if _world_kind(SearchAgent(iterations=iterations).world_spec(s.information_set(s.current_player)))
        == ("sampled, resampled", True, False)
    )
    info = state.information_set(state.current_player)
    python = SearchAgent(iterations=iterations, seed=1, core=False)
    assert _compiled_worlds(SearchAgent(iterations=iterations, seed=1), info) == (
        python.worlds(info),
        python.rng.getstate(),
    )


@pytest.mark.skipif(not solver.core_available(), reason="the compiled core is not built")
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
    state = _parity_state("schnapsen", "lead")
    info = state.information_set(state.current_player)
    agent = SearchAgent(iterations=40, seed=0)
    spec = agent.world_spec(info)._replace(**{field: value})
    with pytest.raises((ValueError, TypeError), match=field if field != "inferences" else "led"):
        solver._core.sample_worlds(spec, agent.rng.getstate()[1])


@pytest.mark.skipif(not solver.core_available(), reason="the compiled core is not built")
def test_compiled_search_past_the_old_world_cap():
    """More iterations than the 2^17 - 1 worlds the core once took in one call: every iteration runs (expand
    "all": the first visits every root action)."""
    state = next(s for s in _states(Rules(), 5, 3) if 0 < s.talon_size <= 2 and s.closed_by < 0)
    info = state.information_set(state.current_player)
    iterations = 2**17 + 1
    edges = SearchAgent(iterations=iterations, seed=0, leaf="rollout").root_edges(info)
    assert sum(edge.visits for edge in edges.values()) == iterations - 1 + len(info.legal_actions)


@pytest.mark.parametrize("variant", VARIANTS)
def test_rollout_policy_plays_legal_moves_and_never_closes(variant):
    checked = 0
    for s in _states(Rules.preset(variant), 3, 7):
        if s.talon_open:
            action = _rollout_action(s)
            assert action in s.legal_actions()
            assert action != CLOSE
            checked += 1
    assert checked >= 10


@pytest.mark.skipif(not solver.core_available(), reason="the compiled core is not built")
def test_stop_when_decided_keeps_the_move():
    """``until_decided`` stops both loops at the same iteration, before the last, with the move of the full
    search."""
    state = _parity_state("schnapsen", "lead")
    info = state.information_set(state.current_player)
    iterations = 400
    full = most_visited(SearchAgent(iterations=iterations, seed=6).root_edges(info))
    rows = {}
    for core in (True, False):
        edges = SearchAgent(iterations=iterations, seed=6, core=core).root_edges(info, until_decided=True)
        assert most_visited(edges) == full
        rows[core] = _root_rows(edges)
    assert rows[True] == rows[False]
    assert sum(visits for _, visits, _, _ in rows[True]) < iterations


def test_python_loop_without_the_core(monkeypatch):
    """Without the compiled core the agent runs the Python loop: the counts the core would give."""
    state = _parity_state("schnapsen", "follow")
    info = state.information_set(state.current_player)
    expected = _root_rows(SearchAgent(iterations=SMALL, seed=4, core=True).root_edges(info))
    monkeypatch.setattr(solver, "_core", None)
    monkeypatch.setattr(solver, "_warned", True)  # the fallback's warning: tested in test_solver.py
    assert _root_rows(SearchAgent(iterations=SMALL, seed=4).root_edges(info)) == expected


@pytest.mark.parametrize("core", [True, False])
def test_time_budget_stops_the_search(core):
    """``ms=1`` on a full deal stops after a few of the many iterations allowed (each solves a whole deal)."""
    s = GameState.from_seed(Rules(), seed=8)
    info = s.information_set(s.current_player)
    iterations = 2000
    edges = SearchAgent(iterations=iterations, ms=1, seed=0, core=core).root_edges(info)
    visits = sum(e.visits for e in edges.values())
    assert len(info.legal_actions) <= visits < iterations // 2


@pytest.mark.parametrize(
    "spec",
    [
        "search:iterations=0",
        "search:iterations=1000001",
        "search:exploration=-1",
        "search:expand=some",
        "search:objective=x",
        "search:ms=0",
        "search:core=maybe",
        "search:leaf=random",
    ],
)
def test_bad_option_is_refused(spec):
    with pytest.raises(ValueError):
        make_agent(spec)
