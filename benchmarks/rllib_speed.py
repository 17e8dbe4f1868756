"""Sampled env steps per second of RLlib self-play PPO on Schnapsen, with 1 and 2 env runners.

Runs ``configs/rllib_selfplay.yaml`` (``agents.rllib.selfplay.ppo_config``: the action-masking module
``main`` in both seats) on a local Ray for ``--iterations`` training iterations of ``--batch`` env
steps per env-runner count, after one warm-up iteration. Prints, per count:

* sampling: env steps / wall seconds of the env runners sampling ``--batch`` steps between them
  (``EnvRunner.sample`` on every runner at once, timed from the driver): the environment plus RLlib's
  inference and connectors, as in the sampling phase of an iteration;
* end to end: env steps / wall seconds of the ``algo.train()`` calls (sampling + the PPO update,
  ``--epochs`` passes in the driver).

    python benchmarks/rllib_speed.py [--runners 1 2] [--iterations 3] [--batch 2000] [--envs 4]

Needs the ``[rllib]`` extra. On a 2-core machine the second runner shares the cores with the driver,
so expect well under 2x.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

from _common import count, machine_description, run_main  # benchmarks/_common.py (this folder is on sys.path)

ROOT = Path(__file__).resolve().parent.parent


def measure(runners: int, iterations: int, batch: int, envs: int, epochs: int, seed: int) -> dict:
    import ray

    from agents.rllib.selfplay import load_config, ppo_config

    cfg = load_config(ROOT / "configs" / "rllib_selfplay.yaml", [
        f"ray.num_env_runners={runners}", f"ray.num_envs_per_env_runner={envs}", f"ppo.train_batch_size={batch}",
        f"ppo.minibatch_size={min(batch, 500)}", f"ppo.num_epochs={epochs}", f"seeding.seed={seed}",
        "eval.games=0"])
    ray.init(num_cpus=max(2, runners), include_dashboard=False, logging_level=logging.ERROR)
    try:
        algo = ppo_config(cfg).build_algo()
        algo.train()  # warm-up: actors started, first batches and update done once
        steps = wall = sampled = sample_s = 0.0
        per_runner = -(-batch // runners)
        for _ in range(iterations):
            t = time.perf_counter()
            r = algo.train()
            wall += time.perf_counter() - t
            steps += r["env_runners"]["num_env_steps_sampled"]
        for _ in range(iterations):  # sampling alone: every runner samples its share at once
            t = time.perf_counter()
            sampled += sum(algo.env_runner_group.foreach_env_runner(
                lambda runner, n=per_runner: sum(len(e) for e in runner.sample(num_timesteps=n, explore=True)),
                local_env_runner=False))
            sample_s += time.perf_counter() - t
        algo.stop()
    finally:
        ray.shutdown()
    return {"runners": runners, "steps": int(steps + sampled), "sampling": sampled / sample_s,
            "end_to_end": steps / wall}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runners", type=count, nargs="+", default=[1, 2], help="env runner counts (default 1 2)")
    ap.add_argument("--iterations", type=count, default=3, help="timed iterations per count (default 3)")
    ap.add_argument("--batch", type=count, default=2000, help="env steps per iteration (default 2000)")
    ap.add_argument("--envs", type=count, default=4, help="games per env runner (default 4)")
    ap.add_argument("--epochs", type=count, default=1, help="PPO epochs per iteration (default 1)")
    ap.add_argument("--seed", type=count, default=0)
    args = ap.parse_args(argv)
    if min(args.runners) < 1 or args.iterations < 1 or args.batch < 1 or args.envs < 1 or args.epochs < 1:
        ap.error("--runners, --iterations, --batch, --envs and --epochs must be >= 1")
    try:
        import ray  # noqa: F401
    except ImportError:
        ap.error('needs Ray RLlib: pip install "schnapsen-env[rllib]"')
    import ray

    print(f"RLlib {ray.__version__} self-play PPO, {args.batch} env steps per iteration, {args.envs} games per "
          f"env runner, {args.epochs} epoch(s); {machine_description()}")
    print(f"{'env runners':>11} {'env steps':>10} {'sampling steps/s':>17} {'end-to-end steps/s':>19}")
    rows = []
    for n in args.runners:
        row = measure(n, args.iterations, args.batch, args.envs, args.epochs, args.seed)
        rows.append(row)
        print(f"{row['runners']:>11} {row['steps']:>10} {row['sampling']:>17,.0f} {row['end_to_end']:>19,.0f}",
              flush=True)
    if len(rows) > 1:
        print(f"speed-up {rows[-1]['runners']} vs {rows[0]['runners']} runners: sampling "
              f"{rows[-1]['sampling'] / rows[0]['sampling']:.2f}x, end to end "
              f"{rows[-1]['end_to_end'] / rows[0]['end_to_end']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main, "rllib_speed.py"))
