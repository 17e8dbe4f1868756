"""AgileRL: masked DQN self-play with AgileRL's own training loop on the Gymnasium view (docs: toolkits/agilerl).

    python examples/agilerl_selfplay.py [--steps 10000] [--seed 0] [--opponent self]

No adapter: AgileRL reads the legal actions from ``info["action_mask"]``, where the Gymnasium view
puts them. ``autoreset_mode=SAME_STEP``: the step that ends a game returns the next game's first
observation and mask, so no transition spans two games. ``--opponent self``: the learning DQN plays
the other seat too (greedy with 10% masked random moves, through the view's ``opponent=f(info)``
hook); any ``agents.make_agent`` spec trains against that agent instead. Then 200 greedy masked
games against ``random``: the mean game points per game (random against random is 0). Needs the
``[agilerl]`` extra.
"""

import argparse
import time
import warnings

import gymnasium
import numpy as np
import torch
from agilerl.algorithms import DQN
from agilerl.components.replay_buffer import ReplayBuffer
from agilerl.training.train_off_policy import train_off_policy
from gymnasium.vector import AutoresetMode

import schnapsen_env  # noqa: F401  (registers schnapsen_env/Schnapsen-v0)
from schnapsen_env import NUM_ACTIONS, Rules
from schnapsen_env.observation import Observer

ENV_ID = "schnapsen_env/Schnapsen-v0"
NUM_ENVS = 4
EVAL_GAMES = 200
DQN_ARGS = dict(batch_size=64, lr=3e-4, learn_step=4, gamma=0.95, tau=0.005)
TRAIN_ARGS = dict(
    eval_loop=1,
    eps_start=1.0,
    eps_end=0.05,
    eps_decay=0.998,
    learning_delay=256,
    verbose=False,
)


def self_play_opponent(agent: DQN, epsilon: float = 0.1):
    """The opponent hook ``f(info) -> action`` that lets ``agent`` (its current network) play the
    other seat."""
    observer = Observer(Rules.preset("schnapsen"))

    def act(info) -> int:
        mask = np.zeros((1, NUM_ACTIONS), dtype=np.int8)
        mask[0, list(info.legal_actions)] = 1
        return int(agent.get_action(observer.fill_info(info)[None], epsilon=epsilon, action_mask=mask)[0])

    return act


def make_vec(opponent) -> gymnasium.vector.VectorEnv:
    mode = {"autoreset_mode": AutoresetMode.SAME_STEP}
    return gymnasium.make_vec(
        ENV_ID,
        NUM_ENVS,
        "sync",
        vector_kwargs=mode,
        opponent=opponent,
        seat="random",
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--steps",
        type=int,
        default=10_000,
        help="training env steps, all envs together (default 10000)",
    )
    ap.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the deals, seats, opponent and torch (default 0)",
    )
    ap.add_argument(
        "--opponent",
        default="self",
        help="'self' (default) or an agents.make_agent spec",
    )
    args = ap.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    t0 = time.perf_counter()

    spaces = gymnasium.make(ENV_ID)
    net = {"head_config": {"hidden_size": [128, 128]}}
    agent = DQN(spaces.observation_space, spaces.action_space, net_config=net, **DQN_ARGS)
    try:
        env = make_vec(self_play_opponent(agent) if args.opponent == "self" else args.opponent)
    except ValueError as e:  # a bad --opponent spec: the view's one-line message
        ap.error(f"--opponent: {e}")
    # seeds each env's streams (seed, seed+1, ...); AgileRL's resets continue them
    env.reset(seed=args.seed)
    memory = ReplayBuffer(max_size=20_000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # AgileRL's notes on unset optional arguments
        train_off_policy(
            env,
            ENV_ID,
            "DQN",
            [agent],
            memory,
            max_steps=args.steps,
            evo_steps=args.steps,
            **TRAIN_ARGS,
        )
    env.close()
    # AgileRL's own evaluation: greedy, masked with info["action_mask"]; one game per env per loop
    eval_env = make_vec("random")
    eval_env.reset(seed=args.seed + 1_000_000)
    mean = agent.test(eval_env, loop=EVAL_GAMES // NUM_ENVS)
    eval_env.close()
    print(
        f"mean game points per game vs random after {args.steps} steps against {args.opponent}: {mean:+.2f} "
        f"({EVAL_GAMES} games; random vs random is 0)"
    )
    print(f"wall time: {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
