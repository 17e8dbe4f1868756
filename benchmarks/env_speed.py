"""AEC steps per second with random legal actions: our env vs PettingZoo classic peers, same run.

Counts every ``step()`` call (the ``None`` steps of terminated agents too); every
step builds the observation and the action mask through ``last()``, as a
training loop does. Peers: PettingZoo's own ``leduc_holdem_v4`` and
``connect_four_v3`` through their ``env()`` (needs ``pettingzoo[classic]``).
Each figure is the median of ``--repeats`` timed runs of ``--steps`` steps.

    python benchmarks/env_speed.py [--steps 100000] [--repeats 5] [--variant schnapsen]

Targets (issue): our ``env()`` >= 35,000 steps/s and >= 1.4x both peers,
``raw_env`` >= 80,000 steps/s.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
import sys

import numpy as np


from schnapsen_env.rules import VARIANTS
from _common import count, machine_description, positive, run_main  # benchmarks/_common.py (this folder is on sys.path)


def run_steps(env, steps: int, seed: int) -> float:
    """Steps per second over ``steps`` AEC ``step()`` calls of random legal actions."""
    rng = random.Random(seed)
    env.reset(seed=seed)
    flatnonzero = np.flatnonzero
    randrange = rng.randrange
    n = 0
    t0 = time.perf_counter()
    while n < steps:
        obs, _reward, terminated, truncated, _info = env.last()
        if terminated or truncated:
            action = None
        else:
            legal = flatnonzero(obs["action_mask"])
            action = int(legal[randrange(len(legal))])
        env.step(action)
        n += 1
        if not env.agents:
            env.reset()
    return steps / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=positive, default=100_000, help="steps per timed run (>= 1)")
    ap.add_argument("--repeats", type=positive, default=5, help="timed runs per figure; the median is reported")
    ap.add_argument("--variant", default="schnapsen", choices=list(VARIANTS), help="the preset played")
    ap.add_argument("--episode", default="game", choices=["game", "bummerl"])
    ap.add_argument("--seed", type=count, default=0, help="a whole number >= 0")
    args = ap.parse_args()

    try:  # the peers come with the optional [bench] extra (pettingzoo[classic]: pygame, rlcard, ...)
        from pettingzoo.classic import connect_four_v3, leduc_holdem_v4
    except ImportError as e:
        ap.error(f'the PettingZoo peers need the [bench] extra: pip install -e ".[bench]" ({e})')
    print(machine_description())

    from schnapsen_env import schnapsen_v0

    makers = {
        "schnapsen_v0.env()": lambda: schnapsen_v0.env(variant=args.variant, episode=args.episode),
        "schnapsen_v0.raw_env": lambda: schnapsen_v0.raw_env(variant=args.variant, episode=args.episode),
        "leduc_holdem_v4.env()": leduc_holdem_v4.env,
        "connect_four_v3.env()": connect_four_v3.env,
    }
    results: dict[str, list[float]] = {name: [] for name in makers}
    envs = {name: make() for name, make in makers.items()}
    for env in envs.values():  # warm-up
        run_steps(env, min(2000, args.steps), args.seed)
    for r in range(args.repeats):  # interleaved, so background load hits all alike
        for name, env in envs.items():
            results[name].append(run_steps(env, args.steps, args.seed + r))
    med = {name: statistics.median(v) for name, v in results.items()}
    print(
        f"AEC steps/s, random legal actions, median of {args.repeats} x {args.steps} steps "
        f"(variant={args.variant}, episode={args.episode})"
    )
    for name, v in med.items():
        print(f"  {name:<24} {v:>10,.0f}   (runs: {', '.join(f'{x:,.0f}' for x in results[name])})")
    ours = med["schnapsen_v0.env()"]
    for peer in ("leduc_holdem_v4.env()", "connect_four_v3.env()"):
        print(f"  ratio env() / {peer:<22} {ours / med[peer]:.2f}x")
    env_ok = ours >= 35_000 and all(ours >= 1.4 * med[p] for p in ("leduc_holdem_v4.env()", "connect_four_v3.env()"))
    raw_ok = med["schnapsen_v0.raw_env"] >= 80_000
    print(
        f"  targets: env() >= 35,000 and >= 1.4x both peers -> {'met' if env_ok else 'MISSED'}; "
        f"raw_env >= 80,000 -> {'met' if raw_ok else 'MISSED'}"
    )


if __name__ == "__main__":
    sys.exit(run_main(main, "env_speed.py"))
