"""The batched engine in two views: pgx-style self-play, and Gymnasium's make_vec against the heuristic.

    python examples/vector_play.py [--envs 1024] [--steps 200] [--device cpu] [--seed 0]

Plays random legal actions for ``--steps`` steps in ``--envs`` games at once (every game moves once
per step) and prints the games finished and the steps per second; then ``--steps`` learner steps of a
random learner against the batched heuristic through ``gymnasium.make_vec`` and the learner's mean
reward (game points per game). Bad arguments: a one-line usage error (exit 2).
"""

from __future__ import annotations

import argparse
import time

import gymnasium
import numpy as np
import torch

import schnapsen_env  # noqa: F401  (registers schnapsen_env/Schnapsen-v0 with its vector_entry_point)
from schnapsen_env.vector.env import MAX_NUM_ENVS, SchnapsenVectorEnv


def whole(low: int, high: int):
    def parse(text: str) -> int:
        value = int(text) if text.isascii() and text.isdigit() else -1
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be a whole number from {low} to {high}, got {text!r}")
        return value
    return parse


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--envs", type=whole(1, MAX_NUM_ENVS), default=1024)
    ap.add_argument("--steps", type=whole(1, 10**6), default=200)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--seed", type=whole(0, 2**63 - 1), default=0)
    args = ap.parse_args()
    # one torch thread: each op on a batch is small, and a second thread on a busy 2-core machine costs more
    # than it gives (set your own for large batches on a machine with free cores)
    torch.set_num_threads(1)
    try:
        env = SchnapsenVectorEnv(num_envs=args.envs, device=args.device, seed=args.seed)
    except ValueError as e:
        ap.error(str(e))

    # self-play: both seats act through the env; rewards (N, 2) per player id
    gen = torch.Generator(device=env.device).manual_seed(args.seed)
    ts = env.reset()
    finished, t = 0, time.perf_counter()
    for _ in range(args.steps):
        keys = torch.rand(ts.action_mask.shape, generator=gen, device=env.device)
        ts = env.step(torch.where(ts.action_mask, keys, -1.0).argmax(1))
        finished += int(ts.terminated.sum())
    dt = time.perf_counter() - t
    print(f"self-play: {finished} games finished, {args.envs * args.steps / dt:,.0f} steps/s "
          f"({args.envs} games on {env.device})")

    # single agent: a random learner against the batched heuristic (make_vec gives the batched env)
    envs = gymnasium.make_vec("schnapsen_env/Schnapsen-v0", num_envs=args.envs, opponent="heuristic",
                              device=args.device, seed=args.seed)
    obs, info = envs.reset(seed=args.seed)
    rng = np.random.default_rng(args.seed)
    rewards = []
    for _ in range(args.steps):
        keys = rng.random(info["action_mask"].shape)
        obs, reward, terminated, truncated, info = envs.step(np.where(info["action_mask"] == 1, keys, -1).argmax(1))
        rewards.extend(reward[terminated].tolist())
    mean = f"{np.mean(rewards):+.2f} game points per game" if rewards else "no game finished yet (more --steps)"
    print(f"random learner vs heuristic: {len(rewards)} games, {mean}")


if __name__ == "__main__":
    main()
