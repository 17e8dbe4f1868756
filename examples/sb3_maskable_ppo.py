"""sb3-contrib MaskablePPO on the Gymnasium view, against a random opponent (docs: toolkits/sb3).

    python examples/sb3_maskable_ppo.py [--steps 20000]

Trains on 4 vectorized envs, then evaluates 200 games with the action mask: mean game points per
game (random against random is 0). Needs the ``[dev]`` extra (stable-baselines3, sb3-contrib).
"""

import argparse
import time

import gymnasium
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.evaluation import evaluate_policy
from stable_baselines3.common.env_util import make_vec_env

import schnapsen_env  # noqa: F401  (registers schnapsen_env/Schnapsen-v0)

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--steps", type=int, default=20_000, help="training steps (default 20000)")
args = ap.parse_args()
torch.set_num_threads(1)
t0 = time.perf_counter()
venv = make_vec_env(
    lambda: gymnasium.make("schnapsen_env/Schnapsen-v0", opponent="random", seat="random"),
    n_envs=4,
    seed=0,
)
model = MaskablePPO("MlpPolicy", venv, n_steps=256, batch_size=256, seed=0, device="cpu", verbose=0)
model.learn(args.steps)
mean, std = evaluate_policy(model, venv, n_eval_episodes=200, use_masking=True)
print(f"mean game points per game vs random: {mean:+.2f} ± {std:.2f} (200 games; random vs random is 0)")
print(f"wall time: {time.perf_counter() - t0:.0f} s")
