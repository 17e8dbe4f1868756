"""The batched opponents (agents/players/batched.py): BatchedHeuristic chooses exactly HeuristicAgent's action
at every decision point on every preset and option mix; BatchedRandom plays legal, reproducible,
uniform actions."""

import pytest

torch = pytest.importorskip("torch")

from agents.players.batched import BatchedHeuristic, BatchedRandom  # noqa: E402
from agents.players.heuristic import HeuristicAgent  # noqa: E402
from schnapsen_env.actions import CLOSE, DECLARE, EXCHANGE, MARRIAGE_BASE  # noqa: E402
from schnapsen_env.engine import GameState  # noqa: E402
from schnapsen_env.rules import PRESETS, Rules  # noqa: E402
from schnapsen_env.vector.engine import VectorGames  # noqa: E402

CONFIGS = {name: Rules.preset(name) for name in PRESETS}
CONFIGS.update(
    {
        "manual-declare": Rules(declare="manual"),
        "hidden-eyes": Rules(show_eyes=False),
        "next-trick-hidden": Rules(marriage_credit="next_trick", show_eyes=False),
        "no-closing-24": Rules(deck=24, allow_closing=False, show_eyes=False, declare="manual"),
        "sharp-24-next-trick": Rules.preset("schnapsen-sharp", deck=24, marriage_credit="next_trick"),
    }
)
NUM_GAMES = 400


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    """Batches of a few hundred games are too small for intra-op threads (on a shared machine they
    only contend); one thread keeps the module fast and its timing steady."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _play(rules, n, seed, check):
    """Play ``n`` games (deals of seeds seed..seed+n-1) in a VectorGames and in scalar GameStates side by
    side. Games i % 3 == 0: both seats random; 1: both seats BatchedHeuristic; 2: heuristic against random.
    ``check(states, heuristic_actions)`` runs at every step. Returns the heuristic's chosen actions."""
    games = VectorGames(rules, n)
    seeds = list(range(seed, seed + n))
    games.reset_from_seeds(seeds)
    states = [GameState.from_seed(rules, s) for s in seeds]
    heur, rand = BatchedHeuristic(rules), BatchedRandom(seed)
    mode = torch.arange(n) % 3
    chosen = []
    while not bool(games.over.all()):
        h = heur.act(games)
        r = rand.act(games)
        check(states, h.tolist())
        random_move = (mode == 0) | ((mode == 2) & (games.current_player == 1))
        actions = torch.where(random_move, r, h)
        chosen.extend(a for a, s in zip(h.tolist(), states) if s.outcome is None)
        games.step(actions)
        for s, a in zip(states, actions.tolist()):
            if s.outcome is None:
                s.apply(a)
    assert all(s.outcome is not None for s in states)
    return chosen


@pytest.mark.parametrize("name", list(CONFIGS))
def test_heuristic_matches_scalar_agent(name):
    rules = CONFIGS[name]
    scalar = HeuristicAgent()
    mismatches = []

    def check(states, actions):
        for i, (s, a) in enumerate(zip(states, actions)):
            if s.outcome is None:
                expected = scalar.act(s.information_set(s.current_player))
                if a != expected:
                    mismatches.append((i, s.history, expected, a))
            else:
                assert a == 0

    chosen = _play(rules, NUM_GAMES, 1000, check)
    assert not mismatches, mismatches[:3]
    # the special rules were exercised
    kinds = set(chosen)
    assert EXCHANGE in kinds
    assert any(MARRIAGE_BASE <= a < EXCHANGE for a in kinds)
    assert (CLOSE in kinds) == rules.allow_closing
    assert (DECLARE in kinds) == rules.manual_declare


def test_random_legal_and_reproducible():
    rules = Rules.preset("schnapsen-sharp")
    n = 64

    def run(seed, generator=None):
        games = VectorGames(rules, n)
        games.reset_from_seeds(range(n))
        agent = BatchedRandom(seed)
        out = []
        while not bool(games.over.all()):
            mask = games.legal_mask()
            a = agent.act(games, generator=generator)
            assert a.dtype == torch.int64 and a.shape == (n,)
            in_play = ~games.over
            assert bool(mask[torch.arange(n), a][in_play].all())
            assert bool((a[~in_play] == 0).all())
            out.append(a)
            games.step(a)
        return torch.cat(out)

    assert torch.equal(run(5), run(5))
    assert not torch.equal(run(5), run(6))
    g1, g2 = torch.Generator().manual_seed(9), torch.Generator().manual_seed(9)
    assert torch.equal(run(None, g1), run(None, g2))


def test_random_uniform():
    rules = Rules(declare="manual")
    n = 6000
    games = VectorGames(rules, n)
    games.reset_from_seeds([7] * n)  # the same deal everywhere
    legal = torch.nonzero(games.legal_mask()[0]).squeeze(1).tolist()
    assert len(legal) >= 5
    a = BatchedRandom(123).act(games)
    counts = torch.bincount(a, minlength=31).double()
    assert counts.sum() == n and float(counts[[x for x in range(31) if x not in legal]].sum()) == 0
    expected = n / len(legal)
    chi2 = float(((counts[legal] - expected) ** 2 / expected).sum())
    assert chi2 < 25.0  # far above the 99.9% quantile for up to 7 degrees of freedom (24.3)


def test_random_reset():
    games = VectorGames(Rules(), 256)
    games.reset_from_seeds(range(256))
    agent = BatchedRandom(11)
    first = agent.act(games)
    assert not torch.equal(agent.act(games), first)  # the generator moves on
    agent.reset()
    assert torch.equal(agent.act(games), first)  # back to the construction seed
    agent.reset(12)
    assert torch.equal(agent.act(games), BatchedRandom(12).act(games))


# ---------------------------------------------------------------------- the batched policy


def _policy_positions(rules, n, seed):
    """Yield ``(games, states)`` at every step of ``n`` games of random legal play (VectorGames and the
    scalar GameStates side by side)."""
    games = VectorGames(rules, n)
    seeds = list(range(seed, seed + n))
    games.reset_from_seeds(seeds)
    states = [GameState.from_seed(rules, s) for s in seeds]
    rand = BatchedRandom(seed)
    while not bool(games.over.all()):
        yield games, states
        actions = rand.act(games)
        games.step(actions)
        for s, a in zip(states, actions.tolist()):
            if s.outcome is None:
                s.apply(a)


@pytest.mark.parametrize("name", ["schnapsen", "sechsundsechzig"])
def test_policy_matches_scalar_ppo_agent(name):
    """Greedy BatchedPolicy = PPOAgent.act on the information set of the player to move, at every
    decision of 150 games (the shipped network; under other rules it warns, as the scalar agent)."""
    import warnings

    from agents.players.neural import PPOAgent

    from agents import make_batched_agent

    rules = Rules.preset(name)
    scalar = PPOAgent()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        batched = make_batched_agent("ppo", rules=rules)
        assert type(batched).__name__ == "BatchedPolicy"
        compared = 0
        for games, states in _policy_positions(rules, 150, 77):
            rows = torch.arange(games.n) % 2 == 0  # only the rows asked for are decided
            got = batched.act(games, rows).tolist()
            for i, s in enumerate(states):
                if s.outcome is None and i % 2 == 0:
                    assert got[i] == scalar.act(s.information_set(s.current_player)), (i, s.history)
                    compared += 1
                else:
                    assert got[i] == 0
    assert compared > 1000


def test_policy_sampling_is_seeded_and_legal():
    from agents import make_batched_agent

    rules = Rules()
    runs = []
    for _ in range(2):
        agent = make_batched_agent("ppo:sample=true,seed=5", rules=rules)
        acts = []
        for games, _ in _policy_positions(rules, 60, 3):
            a = agent.act(games)
            legal = games.legal_mask()
            playing = games.current_player >= 0
            assert bool(legal[playing].gather(1, a[playing].unsqueeze(1)).all())
            acts.append(a)
        runs.append(torch.cat(acts))
    assert torch.equal(runs[0], runs[1])
    other = make_batched_agent("ppo:sample=true,seed=6", rules=rules)
    games = next(_policy_positions(rules, 60, 3))[0]
    first = make_batched_agent("ppo:sample=true,seed=5", rules=rules)
    assert not torch.equal(first.act(games), other.act(games))  # 60 sampled first moves differ somewhere
    state = first.get_state()
    a1 = first.act(games)
    first.set_state(state)
    assert torch.equal(first.act(games), a1)


def test_a_scalar_agent_is_read_as_the_env_reads_an_action():
    import numpy

    from agents.players.base import Agent, NotAnAction
    from agents.players.batched import ScalarAgents

    class Returns(Agent):
        def __init__(self, move):
            self.move = move

        def act(self, info):
            return self.move(info)

    games = VectorGames(Rules(), 4)
    games.reset_from_seeds(range(4))
    first_legal = [int(row.nonzero()[0]) for row in games.legal_mask()]
    as_numpy = ScalarAgents(Returns(lambda info: numpy.int64(info.legal_actions[0])))
    assert as_numpy.act(games).tolist() == first_legal
    as_tensor = ScalarAgents(Returns(lambda info: torch.tensor(info.legal_actions[0])))
    assert as_tensor.act(games).tolist() == first_legal
    as_float = ScalarAgents(Returns(lambda info: float(info.legal_actions[0]) + 0.7))
    with pytest.raises(NotAnAction):
        as_float.act(games)
