"""Solver labels at scale: the shared table per deal (agents.players.solver.DealTable), the label generator
(agents.evaluation.labels) and pretraining on the labels (agents.training.pretrain)."""

from __future__ import annotations

import random

import numpy as np
import pytest

torch = pytest.importorskip("torch")  # the [train] extra; absent in the lower-bounds CI job

from agents.evaluation import labels  # noqa: E402
from agents.players import solver  # noqa: E402
from agents.players.neural import ActorCritic, load_model, masked_log_probs  # noqa: E402
from agents.training import pretrain, train  # noqa: E402
from agents.training.config import load_config  # noqa: E402
from schnapsen_env import VARIANTS, GameState, Rules  # noqa: E402
from schnapsen_env.actions import NUM_ACTIONS  # noqa: E402
from schnapsen_env.observation import OBS_SIZE  # noqa: E402

needs_core = pytest.mark.skipif(not solver.core_available(), reason="compiled core not built")
AGENTS = ("heuristic", "random")
#: random-play games per variant in the parity test (the 24-card deals take much longer to solve)
DEALS, DEALS_24 = 25, 2


def trajectory(rules: Rules, seed: int) -> list:
    """Every decision state of a random-play game of deal ``seed``."""
    rng, s, out = random.Random(seed), GameState.from_seed(rules, seed), []
    while not s.is_terminal:
        out.append(s.clone())
        s.apply(rng.choice(s.legal_actions()))
    return out


@needs_core
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("closers", [(0, 1), (0,)])
def test_shared_table_equals_fresh_solves_at_every_state(variant, closers):
    rules, table = Rules.preset(variant), solver.DealTable(closers)
    for seed in range(DEALS_24 if rules.deck == 24 else DEALS):
        for s in trajectory(rules, seed):
            assert table.action_values(s) == solver.action_values(s, closers)


@needs_core
def test_shared_table_survives_other_searches_in_between():
    """Another deal's search between two states of a deal starts a new table: the values stay exact."""
    rules, table = Rules(), solver.DealTable()
    a, b = trajectory(rules, 1), trajectory(rules, 2)
    for x, y in zip(a, b):
        assert table.action_values(x) == solver.action_values(x)
        solver.solve(y)  # a search of another deal
        assert table.action_values(y) == solver.action_values(y)  # another deal in the same table


def test_shared_table_equals_python_search_in_the_endgame():
    rules, table = Rules(), solver.DealTable()
    for seed in range(10):
        for s in trajectory(rules, seed):
            if s.trump_card < 0 and s.closed_by < 0:  # talon exhausted: cheap for the pure-Python search
                assert table.action_values(s) == solver.action_values_python(s)


def test_labels_are_the_action_values_of_the_true_state():
    rules = Rules()
    arrays = labels.generate(6, AGENTS, explore=0.2, share=0.7, seed=3, workers=1)
    states = [(d, s.clone()) for d in range(6) for s in labels.deal_states(d, 3, AGENTS, 0.2, 0.7, rules)]
    assert len(states) == len(arrays["labels"]) > 0
    for i, (d, s) in enumerate(states):
        values = solver.action_values(s)
        expected = np.zeros(len(arrays["labels"][i]), np.float32)
        expected[list(values)] = list(values.values())
        assert arrays["deal"][i] == d
        assert np.array_equal(arrays["labels"][i], expected)
        assert np.flatnonzero(arrays["action_mask"][i]).tolist() == s.legal_actions()
        assert np.array_equal(arrays["observation"][i], labels.observer_for(rules).fill_state(s, s.current_player))


def test_same_seed_same_arrays_with_one_and_two_workers():
    one = labels.generate(40, AGENTS, explore=0.15, share=0.5, seed=7, workers=1)
    two = labels.generate(40, AGENTS, explore=0.15, share=0.5, seed=7, workers=2)
    other = labels.generate(40, AGENTS, explore=0.15, share=0.5, seed=8, workers=1)
    assert {k: v.dtype for k, v in one.items()} == {k: np.dtype(t) for k, (t, _) in labels.FIELDS.items()}
    for k in one:
        assert np.array_equal(one[k], two[k]), k
    assert not np.array_equal(one["labels"][:50], other["labels"][:50])


RAISES = """
from agents.players.base import Agent


class Raises(Agent):
    def act(self, info):
        raise KeyError("no such card")
"""


def test_an_agent_that_raises_in_a_worker_is_one_line_and_leaves_an_earlier_file(tmp_path, capsys):
    (tmp_path / "raises.py").write_text(RAISES)
    out = tmp_path / "labels.npz"
    out.write_bytes(b"earlier")
    argv = ["--games", "2", "--agents", f"{tmp_path / 'raises.py'}:Raises", "--workers", "2", "--out", str(out)]
    assert labels.main(argv) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "python -m agents.evaluation.labels: error: labels of deals 0-1: KeyError: 'no such card'"
    )
    assert out.read_bytes() == b"earlier"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["labels.npz", "raises.py"]


def test_labels_of_fewer_than_one_game_are_refused():
    with pytest.raises(ValueError, match="games must be >= 1, got 0"):
        labels.generate(0, AGENTS, workers=1)


def test_targets_uniform_over_the_best_actions():
    lab = np.array([[2, -1, 2, 0, 1], [-2, -1, 0, 0, -3]], np.float32)
    mask = np.array([[1, 1, 1, 0, 1], [1, 1, 0, 0, 1]], bool)
    policy, value = labels.targets(lab, mask, "points")
    assert policy.tolist() == [[0.5, 0, 0.5, 0, 0], [0, 1, 0, 0, 0]]
    assert value.tolist() == [2, -1]
    policy, value = labels.targets(lab, mask, "win")
    assert policy.tolist() == [[0.5, 0, 0.5, 0, 0], [0, 1, 0, 0, 0]]  # win first, then the most points
    assert value.tolist() == [1, -1]


@needs_core
def test_teacher_labels_are_visit_shares_and_exact_where_nothing_is_hidden():
    arrays = labels.generate(3, AGENTS, seed=2, workers=1, teacher="search:iterations=60")
    policy, value, mask = arrays["policy"], arrays["value"], arrays["action_mask"]
    assert np.allclose(policy.sum(1), 1) and not policy[~mask].any()
    exact_policy, exact_value = labels.targets(arrays["labels"], mask, "win")
    searched = (policy != exact_policy).any(1)
    assert 0 < searched.sum() < len(policy)  # talon-open states searched, the rest exact
    assert np.array_equal(value[~searched], exact_value[~searched])
    assert (np.abs(value) <= 1).all() and len(np.unique(value[searched])) > 2  # win shares, not signs
    again = labels.generate(3, AGENTS, seed=2, workers=1, teacher="search:iterations=60")
    assert all(np.array_equal(arrays[k], again[k]) for k in arrays)
    with pytest.raises(ValueError, match="teacher 'heuristic' gives no move distribution"):
        labels.generate(1, AGENTS, workers=1, teacher="heuristic")


def test_pretrain_clones_soft_labels_into_a_given_network(tmp_path):
    rng = np.random.default_rng(0)
    n = 64
    mask = rng.random((n, NUM_ACTIONS)) < 0.3
    mask[:, 0] = True
    policy = np.where(mask, rng.random((n, NUM_ACTIONS)), 0).astype(np.float32)
    arrays = {
        "observation": rng.random((n, OBS_SIZE), dtype=np.float32),
        "action_mask": mask,
        "labels": np.zeros((n, NUM_ACTIONS), np.float32),  # unused: the soft targets win
        "policy": policy / policy.sum(1, keepdims=True),
        "value": rng.uniform(-1, 1, n).astype(np.float32),
    }
    torch.manual_seed(0)
    net = ActorCritic(OBS_SIZE, [32, 32])

    def cross_entropy(model):
        with torch.no_grad():
            logp = masked_log_probs(model(torch.from_numpy(arrays["observation"]))[0], torch.from_numpy(mask))
        return -(torch.from_numpy(arrays["policy"]) * logp.masked_fill(~torch.from_numpy(mask), 0)).sum(1).mean()

    target = torch.from_numpy(arrays["policy"])
    entropy = -(target * target.clamp_min(1e-12).log()).sum(1).mean()  # the least cross-entropy there is
    before = cross_entropy(net) - entropy  # KL(target || network)
    model, losses = pretrain.pretrain(arrays, epochs=200, batch=32, lr=1e-2, init=net)
    assert model is net and losses[-1] < losses[0]
    assert cross_entropy(model) - entropy < 0.5 * before


def test_pretrain_writes_a_checkpoint_train_and_agents_load(tmp_path):
    path = tmp_path / "labels.npz"
    np.savez(path, **labels.generate(8, AGENTS, explore=0.15, seed=0, workers=1))
    out = tmp_path / "init.pt"
    argv = [str(path), "--out", str(out), "--hidden", "32", "32", "--epochs", "30", "--seed", "1"]
    assert pretrain.main(argv) == 0
    model, ckpt = load_model(out)
    assert model.hidden == [32, 32] and ckpt["pretrain"]["states"] > 0
    losses = ckpt["pretrain"]["losses"]
    assert losses[-1] < losses[0]
    pretrain.main([*argv[:2], str(tmp_path / "again.pt"), *argv[3:]])  # same seed: same weights
    again, _ = load_model(tmp_path / "again.pt")
    assert all(torch.equal(a, b) for a, b in zip(model.state_dict().values(), again.state_dict().values()))
    more = tmp_path / "more.pt"  # --init: on from these weights, their widths
    assert pretrain.main([str(path), "--out", str(more), "--init", str(out), "--epochs", "1"]) == 0
    assert load_model(more)[0].hidden == [32, 32]
    cfg = load_config("configs/default.yaml", [f"model.init={out}", "model.hidden=[32, 32]"])
    weights = train.initial_weights(cfg)
    assert all(torch.equal(weights[k], v) for k, v in model.state_dict().items())
