"""Tianshou 2.x self-play on the PettingZoo env: one shared masked DQN in both seats (docs: toolkits/tianshou).

    python examples/tianshou_selfplay.py

Trains 3 epochs of 5,000 steps on one torch thread (about 70 s of CPU), then plays 200 games as player_0
against a masked random player: win rate and mean game points per game. Needs the ``[dev]`` extra.
"""

import logging
import time

import numpy as np
import torch
from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

from schnapsen_env import schnapsen_v0

t0 = time.perf_counter()
logging.getLogger("tianshou").setLevel(logging.ERROR)
torch.manual_seed(0)
# batches of 64 rows: a second torch thread only adds waiting, many times over when another process holds a core
torch.set_num_threads(1)


def get_env():
    return PettingZooEnv(schnapsen_v0.env())


env = get_env()
obs_shape = env.observation_space["observation"].shape
net = Net(state_shape=obs_shape, action_shape=env.action_space.n, hidden_sizes=[128, 128])
policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.2, eps_inference=0.0)
learner = DQN(
    policy=policy, optim=AdamOptimizerFactory(lr=1e-3), gamma=0.95, n_step_return_horizon=2, target_update_freq=200
)
selfplay = MultiAgentOffPolicyAlgorithm(algorithms=[learner, learner], env=env)

train_envs, test_envs = DummyVectorEnv([get_env] * 4), DummyVectorEnv([get_env] * 4)
train_envs.seed(0)
test_envs.seed(1)
train_c = Collector[CollectStats](selfplay, train_envs, VectorReplayBuffer(50_000, 4), exploration_noise=True)
test_c = Collector[CollectStats](selfplay, test_envs, exploration_noise=False)
train_c.reset()
train_c.collect(n_step=1000)
params = dict(max_epochs=3, epoch_num_steps=5000, collection_step_num_env_steps=16, test_step_num_episodes=20)
params |= dict(batch_size=64, update_step_num_gradient_steps_per_sample=0.25, show_progress=False, verbose=False)
params |= dict(training_collector=train_c, test_collector=test_c, multi_agent_return_reduction=lambda r: r[:, 0])
selfplay.run_training(OffPolicyTrainerParams(**params))

random_player = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
evaluation = MultiAgentOffPolicyAlgorithm(algorithms=[learner, random_player], env=env)
evaluation.eval()
collector = Collector[CollectStats](evaluation, DummyVectorEnv([get_env] * 4))
r = np.asarray(collector.collect(n_episode=200, reset_before_collect=True).returns)
print(f"vs random: win rate {np.mean(r[:, 0] > 0):.2f}, mean game points {r[:, 0].mean():+.2f}")
print(f"wall time: {time.perf_counter() - t0:.0f} s")
