"""The batched engine in two views: pgx-style self-play, and Gymnasium's make_vec against the heuristic.

    python examples/vector_play.py [--envs 1024] [--steps 200] [--device cpu] [--seed 0]

Random legal play in ``--envs`` games at once (games finished, steps/s), then a random learner
against the batched heuristic through ``gymnasium.make_vec`` (its mean game points per game).
"""

import argparse
import time

import gymnasium
import numpy as np
import torch

import schnapsen_env  # noqa: F401  (registers schnapsen_env/Schnapsen-v0 with its vector_entry_point)
from schnapsen_env.vector.env import SchnapsenVectorEnv

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--envs", type=int, default=1024, help="games at once")
ap.add_argument("--steps", type=int, default=200)
ap.add_argument("--device", default="cpu")
ap.add_argument("--seed", type=int, default=0)
args = ap.parse_args()
torch.set_num_threads(1)  # each op on a batch is small: more threads pay off only for large batches
try:
    env = SchnapsenVectorEnv(num_envs=args.envs, device=args.device, seed=args.seed)
except ValueError as e:  # the constructor checks its arguments: its one-line message
    ap.error(str(e))

# self-play: both seats act through the env; rewards (N, 2) per player id
gen = torch.Generator(device=env.device).manual_seed(args.seed)
ts = env.reset()
finished, t = 0, time.perf_counter()
for _ in range(args.steps):
    keys = torch.rand(ts.action_mask.shape, generator=gen, device=env.device)
    ts = env.step(torch.where(ts.action_mask, keys, -1.0).argmax(1))
    finished += int(ts.terminated.sum())
speed = args.envs * args.steps / (time.perf_counter() - t)
print(f"self-play: {finished} games finished, {speed:,.0f} steps/s ({args.envs} games on {env.device})")

# single agent: a random learner against the batched heuristic (make_vec gives the batched env)
envs = gymnasium.make_vec(
    "schnapsen_env/Schnapsen-v0",
    num_envs=args.envs,
    opponent="heuristic",
    device=args.device,
    seed=args.seed,
)
obs, info = envs.reset(seed=args.seed)
rng = np.random.default_rng(args.seed)
rewards = []
for _ in range(args.steps):
    keys = rng.random(info["action_mask"].shape)
    obs, reward, terminated, truncated, info = envs.step(np.where(info["action_mask"] == 1, keys, -1).argmax(1))
    rewards.extend(reward[terminated].tolist())
mean = f"{np.mean(rewards):+.2f} game points per game" if rewards else "no game finished yet (more --steps)"
print(f"random learner vs heuristic: {len(rewards)} games, {mean}")
