"""Real integration: Tianshou 2.x self-play (one shared masked DQN in both seats) through the PettingZoo env."""

import logging
import warnings

import numpy as np
import pytest

import schnapsen_env  # noqa: F401  (registers schnapsen_env/schnapsen_v0)

pytest.importorskip("tianshou")
torch = pytest.importorskip("torch")

import pettingzoo  # noqa: E402
from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm  # noqa: E402
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy  # noqa: E402
from tianshou.algorithm.optim import AdamOptimizerFactory  # noqa: E402
from tianshou.data import Collector, CollectStats, VectorReplayBuffer  # noqa: E402
from tianshou.env import DummyVectorEnv  # noqa: E402
from tianshou.env.pettingzoo_env import PettingZooEnv  # noqa: E402
from tianshou.trainer import OffPolicyTrainerParams  # noqa: E402
from tianshou.utils.net.common import Net  # noqa: E402


def get_env():
    # illegal_action="raise": a masked policy that picked an illegal action would fail the test
    return PettingZooEnv(pettingzoo.make("aec", "schnapsen_env/schnapsen_v0", illegal_action="raise"))


def test_tianshou_dqn_self_play_runs_and_acts_legally():
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    logging.getLogger("tianshou").setLevel(logging.ERROR)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    env = get_env()
    net = Net(
        state_shape=env.observation_space["observation"].shape, action_shape=env.action_space.n, hidden_sizes=[64, 64]
    )
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.2, eps_inference=0.0)
    learner = DQN(
        policy=policy, optim=AdamOptimizerFactory(lr=1e-3), gamma=0.95, n_step_return_horizon=2, target_update_freq=100
    )
    selfplay = MultiAgentOffPolicyAlgorithm(algorithms=[learner, learner], env=env)
    train_envs = DummyVectorEnv([get_env for _ in range(2)])
    test_envs = DummyVectorEnv([get_env for _ in range(2)])
    train_envs.seed(0)
    test_envs.seed(1)
    train_c = Collector[CollectStats](selfplay, train_envs, VectorReplayBuffer(5_000, 2), exploration_noise=True)
    test_c = Collector[CollectStats](selfplay, test_envs, exploration_noise=False)
    train_c.reset()
    train_c.collect(n_step=128)
    before = [p.detach().clone() for p in net.parameters()]
    selfplay.run_training(
        OffPolicyTrainerParams(
            training_collector=train_c,
            test_collector=test_c,
            max_epochs=1,
            epoch_num_steps=300,
            collection_step_num_env_steps=16,
            test_step_num_episodes=2,
            batch_size=32,
            update_step_num_gradient_steps_per_sample=0.25,
            multi_agent_return_reduction=lambda r: r[:, 0],
            show_progress=False,
            verbose=False,
        )
    )
    assert any(not torch.equal(a, b) for a, b in zip(before, net.parameters()))  # it learned something

    # greedy learner (seat 0) vs masked random: full games, zero-sum returns of 1..3 game points
    rand = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    evaluation = MultiAgentOffPolicyAlgorithm(algorithms=[learner, rand], env=env)
    evaluation.eval()
    stats = Collector[CollectStats](evaluation, DummyVectorEnv([get_env for _ in range(2)])).collect(
        n_episode=6, reset_before_collect=True
    )
    returns = np.asarray(stats.returns)
    assert returns.shape == (6, 2)
    np.testing.assert_array_equal(returns.sum(axis=1), 0)
    assert set(np.abs(returns[:, 0]).tolist()) <= {1, 2, 3}
