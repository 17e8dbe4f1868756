"""Real integration: TorchRL through schnapsen_env.torchrl (PettingZooWrapper with the mask wired in,
MaskedRandomPolicy, the Collector, examples/torchrl_collect.py). Runs in CI job .ci/jobs/torchrl.sh;
skips where torchrl is not installed, except the checks that need it absent or not imported."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
HAVE_TORCHRL = importlib.util.find_spec("torchrl") is not None
needs_torchrl = pytest.mark.skipif(not HAVE_TORCHRL, reason="torchrl not installed (.ci/jobs/torchrl.sh)")


def run_python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_import_schnapsen_env_does_not_import_torchrl():
    proc = run_python(
        "import sys, schnapsen_env, gymnasium, pettingzoo\n"
        "from schnapsen_env import schnapsen_v0\n"
        "schnapsen_v0.env().reset(seed=0)\n"
        "print(sorted(m for m in ('torchrl', 'tensordict', 'torch', 'schnapsen_env.torchrl') "
        "if m in sys.modules))"
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_missing_torchrl_is_one_line_naming_the_extra():
    # torchrl made unimportable: the adapter says what is missing and how to install it, in one line
    proc = run_python(
        "import sys; sys.modules['torchrl'] = None\n"
        "try:\n    import schnapsen_env.torchrl\n"
        "except ImportError as e:\n    print(str(e))"
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("schnapsen_env.torchrl needs torch, tensordict and torchrl (")
    assert lines[0].endswith('pip install torch==2.13.0 && pip install -e ".[torchrl]"')


def _check_legal_and_rewards(data, groups):
    """Every action the player to move took was legal; rewards are 0 except at the end, where the two
    seats' rewards sum to 0 and are 1..3 game points. Returns the number of finished games."""
    done = data["next", "done"].reshape(-1).numpy()
    rewards = []
    acted = np.zeros(done.shape, dtype=int)
    for g in groups:
        to_move = data[g, "mask"].reshape(done.shape[0], -1).numpy()  # (T, n)
        action = data[g, "action"].reshape(done.shape[0], -1).numpy()  # (T, n)
        mask = data[g, "action_mask"].reshape(done.shape[0], -1, 31).numpy()  # (T, n, 31)
        t, a = np.nonzero(to_move)
        assert mask[t, a, action[t, a]].all()  # the played action is legal
        acted += to_move.sum(axis=1)
        rewards.append(data["next", g, "reward"].reshape(done.shape[0], -1).numpy())
    assert (acted == 1).all()  # AEC: exactly one player moves at every step
    rewards = np.concatenate(rewards, axis=1)  # (T, 2)
    np.testing.assert_array_equal(rewards[~done], 0)
    np.testing.assert_array_equal(rewards[done].sum(axis=1), 0)
    assert set(np.abs(rewards[done]).ravel().tolist()) <= {1.0, 2.0, 3.0}
    return int(done.sum())


@needs_torchrl
def test_collector_with_masked_random_policy_plays_only_legal_actions():
    from torchrl.collectors import Collector

    from schnapsen_env.torchrl import MaskedRandomPolicy, make_torchrl_env

    env = make_torchrl_env(seed=0, illegal_action="raise")  # an illegal action would raise
    assert env.group_map == {"player_0": ["player_0"], "player_1": ["player_1"]}
    collector = Collector(
        env,
        MaskedRandomPolicy(env, seed=0),
        frames_per_batch=200,
        total_frames=600,
        auto_register_policy_transforms=False,
    )
    games = 0
    for data in collector:
        assert data.batch_size == (200,)
        assert data["player_0", "observation", "observation"].shape == (200, 1, 214)
        assert data["player_0", "action_mask"].dtype == __import__("torch").bool
        games += _check_legal_and_rewards(data, ("player_0", "player_1"))
    collector.shutdown()
    assert 25 <= games <= 60  # a random game of Schnapsen takes 10 to 24 steps


@needs_torchrl
def test_same_seeds_give_the_same_frames():
    from schnapsen_env.torchrl import MaskedRandomPolicy, make_torchrl_env

    def roll(seed):
        env = make_torchrl_env(seed=seed, illegal_action="raise")
        return env.rollout(150, MaskedRandomPolicy(env, seed=seed), break_when_any_done=False)

    a, b, c = roll(3), roll(3), roll(4)
    for key in (("player_0", "action"), ("player_1", "action"), ("next", "player_0", "observation", "observation")):
        assert (a[key] == b[key]).all()
    assert not (a["player_0", "observation", "observation"] == c["player_0", "observation", "observation"]).all()


def _assert_same_deal(td, pz):
    for g in ("player_0", "player_1"):
        obs = pz.observe(g)
        np.testing.assert_array_equal(td[g, "observation", "observation"][0].numpy(), obs["observation"])
        to_move = pz.agent_selection == g
        assert bool(td[g, "mask"][0]) == to_move
        if to_move:
            np.testing.assert_array_equal(td[g, "action_mask"][0].numpy(), obs["action_mask"].astype(bool))
        else:
            assert td[g, "action_mask"].all()  # TorchRL: all True for the player not to move


@needs_torchrl
def test_deals_are_those_of_the_pettingzoo_env_with_the_same_seed():
    from schnapsen_env import schnapsen_v0
    from schnapsen_env.torchrl import make_torchrl_env

    pz = schnapsen_v0.env()
    # reset(seed=s) deals exactly the game of the PettingZoo env's reset(seed=s)
    pz.reset(seed=11)
    _assert_same_deal(make_torchrl_env().reset(seed=11), pz)
    # make_torchrl_env(seed=s): TorchRL resets once at construction (deal 1 of the stream of s); the first
    # reset after it (a collector's) deals game 2 of that stream
    pz.reset()
    _assert_same_deal(make_torchrl_env(seed=11).reset(), pz)


@needs_torchrl
@pytest.mark.parametrize("variant", ["one_hot", "one_group", "serial_env", "sechsundsechzig_bummerl"])
def test_masked_random_policy_on_other_layouts(variant):
    import torch
    from torchrl.envs import SerialEnv
    from torchrl.envs.utils import MarlGroupMapType

    from schnapsen_env.torchrl import MaskedRandomPolicy, make_torchrl_env

    groups = ("player_0", "player_1")
    if variant == "one_hot":
        env = make_torchrl_env(seed=1, illegal_action="raise", categorical_actions=False)
    elif variant == "one_group":
        env = make_torchrl_env(seed=1, illegal_action="raise", group_map=MarlGroupMapType.ALL_IN_ONE_GROUP)
        groups = ("agents",)
    elif variant == "serial_env":
        env = SerialEnv(2, lambda: make_torchrl_env(illegal_action="raise"))
        env.set_seed(1)
    else:
        env = make_torchrl_env(
            seed=1, illegal_action="raise", variant="sechsundsechzig", episode="bummerl", return_state=True
        )
    td = env.rollout(120, MaskedRandomPolicy(env, seed=2), break_when_any_done=False)
    if variant == "one_hot":
        assert td["player_0", "action"].shape == (120, 1, 31) and td["player_0", "action"].sum(-1).eq(1).all()
        td.set(("player_0", "action"), td["player_0", "action"].long().argmax(-1))
        td.set(("player_1", "action"), td["player_1", "action"].long().argmax(-1))
    if variant == "serial_env":
        assert td.batch_size == (2, 120)
        td = td.reshape(-1)
    if variant == "one_group":
        assert td["agents", "action_mask"].shape == (120, 2, 31)
    if variant == "sechsundsechzig_bummerl":
        assert td["state"].shape == (120, 262)
    # one_group: the rewards of both seats are the group's two rows
    _check_legal_and_rewards(td, groups)
    assert td["next", "done"].any()
    assert isinstance(td["player_0" if groups[0] != "agents" else "agents", "action"], torch.Tensor)


@needs_torchrl
def test_masked_random_policy_is_uniform_over_the_legal_actions():
    import torch
    from tensordict import TensorDict

    from schnapsen_env.torchrl import MaskedRandomPolicy, make_torchrl_env

    policy = MaskedRandomPolicy(make_torchrl_env(), seed=0)
    legal = [0, 5, 17, 24, 29]
    mask = torch.zeros(6000, 1, 31, dtype=torch.bool)
    mask[..., legal] = True
    td = TensorDict({("player_0", "action_mask"): mask, ("player_1", "action_mask"): mask}, batch_size=[6000])
    counts = np.bincount(policy(td)["player_0", "action"].reshape(-1).numpy(), minlength=31)
    assert set(np.flatnonzero(counts).tolist()) == set(legal)
    assert counts[legal].min() >= 1000 and counts[legal].max() <= 1400  # 1200 expected each (sd 31)
    # a row with no legal action (a finished game's mask) gets action 0
    empty = TensorDict(
        {
            ("player_0", "action_mask"): torch.zeros(2, 1, 31, dtype=torch.bool),
            ("player_1", "action_mask"): torch.ones(2, 1, 31, dtype=torch.bool),
        },
        batch_size=[2],
    )
    assert policy(empty)["player_0", "action"].eq(0).all()


@needs_torchrl
@pytest.mark.parametrize("policy", ["random", "actor"])
def test_example_collects_frames(policy):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "torchrl_collect.py"), "--frames", "300", "--policy", policy],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("collected 300 frames, ") and lines[0].endswith(f"({policy} policy in both seats)")
    games = int(lines[0].split(", ")[1].split()[0])
    assert 12 <= games <= 30
    assert lines[1].startswith("wall time: ")
    assert "Warning" not in proc.stderr, proc.stderr
