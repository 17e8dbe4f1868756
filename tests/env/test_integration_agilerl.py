"""Real integration: AgileRL (2.58: PettingZoo 1.26, tensordict 0.13) on the Gymnasium view and the
PettingZoo env. Runs in CI job .ci/jobs/agilerl.sh (its own venv); skips where agilerl is not installed."""

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("agilerl")
torch = pytest.importorskip("torch")

import gymnasium  # noqa: E402
from agilerl.algorithms import DQN  # noqa: E402  (AgileRL 2.58 needs peft for this import; the CI job installs it)
from agilerl.components.replay_buffer import ReplayBuffer  # noqa: E402
from agilerl.training.train_off_policy import train_off_policy  # noqa: E402
from gymnasium.vector import AutoresetMode  # noqa: E402

import schnapsen_env  # noqa: E402  (registers schnapsen_env/Schnapsen-v0)

ROOT = Path(__file__).resolve().parents[2]


def make_vec(num_envs=2, **kwargs):
    return gymnasium.make_vec(
        "schnapsen_env/Schnapsen-v0",
        num_envs=num_envs,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP},
        opponent="random",
        seat="random",
        illegal_action="raise",
        **kwargs,
    )


def test_dqn_get_action_obeys_info_action_mask():
    torch.manual_seed(0)
    env = make_vec(4)
    agent = DQN(
        env.single_observation_space, env.single_action_space, net_config={"head_config": {"hidden_size": [32]}}
    )
    obs, info = env.reset(seed=0)
    games = 0
    for _ in range(300):
        for epsilon in (0.0, 1.0):  # greedy and random actions are both masked
            action = agent.get_action(obs, epsilon=epsilon, action_mask=info["action_mask"])
            assert info["action_mask"][np.arange(4), action].all()
        obs, reward, term, trunc, info = env.step(action)  # illegal_action="raise": an illegal one would raise
        games += int(term.sum())
        np.testing.assert_array_equal(reward[~term], 0)
        assert set(np.abs(reward[term]).tolist()) <= {1.0, 2.0, 3.0}
        assert info["action_mask"].sum(axis=1).min() >= 1  # SAME_STEP: the new game's mask at once
    assert games >= 40
    env.close()


def test_train_off_policy_learns_with_masks():
    torch.manual_seed(0)
    np.random.seed(0)
    env = make_vec(2)
    env.reset(seed=1)
    agent = DQN(
        env.single_observation_space,
        env.single_action_space,
        batch_size=32,
        learn_step=2,
        net_config={"head_config": {"hidden_size": [32]}},
    )
    before = [p.detach().clone() for p in agent.actor.parameters()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pop, fitnesses = train_off_policy(
            env,
            "schnapsen_env/Schnapsen-v0",
            "DQN",
            [agent],
            ReplayBuffer(2_000),
            max_steps=400,
            evo_steps=400,
            eval_loop=2,
            learning_delay=64,
            verbose=False,
        )
    assert len(pop) == 1
    assert any(not torch.equal(a, b) for a, b in zip(before, pop[0].actor.parameters()))  # it learned
    assert -3.0 <= np.asarray(fitnesses).ravel()[-1] <= 3.0
    env.close()


@pytest.mark.parametrize("opponent", ["self", "random"])
def test_example_trains_and_evaluates(opponent):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "agilerl_selfplay.py"), "--steps", "400", "--opponent", opponent],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    prefix = f"mean game points per game vs random after 400 steps against {opponent}: "
    assert lines[-2].startswith(prefix)
    assert -3.0 <= float(lines[-2][len(prefix) :].split()[0]) <= 3.0
    assert lines[-1].startswith("wall time: ")


def test_self_play_opponent_plays_legal_moves_with_the_learners_network():
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import agilerl_selfplay
    finally:
        sys.path.pop(0)
    torch.manual_seed(0)
    spaces = gymnasium.make("schnapsen_env/Schnapsen-v0")
    agent = DQN(spaces.observation_space, spaces.action_space, net_config={"head_config": {"hidden_size": [32]}})
    opponent = agilerl_selfplay.self_play_opponent(agent, epsilon=0.0)
    env = gymnasium.make("schnapsen_env/Schnapsen-v0", opponent=opponent, illegal_action="raise")
    rng = np.random.default_rng(0)
    for seed in range(20):  # the view checks every opponent action against its legal actions
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            obs, reward, done, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        assert abs(reward) in (1.0, 2.0, 3.0)
    # greedy: the opponent's move is the legal action with the highest Q-value of the learner's network
    state = schnapsen_env.GameState.from_seed(schnapsen_env.Rules.preset("schnapsen"), 4)
    info = state.information_set(state.current_player)
    q = agent.actor(torch.as_tensor(env.unwrapped.observer.fill_info(info)[None])).detach().numpy()[0]
    legal = list(info.legal_actions)
    assert opponent(info) == legal[int(np.argmax(q[legal]))]


def test_example_rejects_a_bad_opponent_in_one_line():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "agilerl_selfplay.py"), "--opponent", "nonsense"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "--opponent: bad value 'nonsense' for 'opponent': unknown agent 'nonsense'" in proc.stderr
