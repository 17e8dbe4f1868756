"""Sampled env steps per second of RLlib self-play PPO on Schnapsen, with 1 and 2 env runners.

    python benchmarks/rllib_speed.py [--runners 1 2] [--iterations 3] [--batch 2000] [--envs 4] [--write-docs]

``configs/rllib_selfplay.yaml`` on a local Ray, one warm-up iteration, then per runner count:
sampling (``EnvRunner.sample`` on every runner at once, timed from the driver) and end to end
(``algo.train()``: sampling + the PPO update). Needs the ``[rllib]`` extra."""

from __future__ import annotations

import logging
import time

from _common import ROOT, machine_description, parse_args, parser, positive, publish


def measure(runners: int, iterations: int, batch: int, envs: int, epochs: int, seed: int) -> dict:
    import ray

    from agents.training.rllib_selfplay import load_config, ppo_config

    overrides = f"ray.num_env_runners={runners} ray.num_envs_per_env_runner={envs} ppo.train_batch_size={batch} "
    overrides += f"ppo.minibatch_size={min(batch, 500)} ppo.num_epochs={epochs} seeding.seed={seed} eval.games=0"
    cfg = load_config(ROOT / "configs" / "rllib_selfplay.yaml", overrides.split())
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
            sampled += sum(
                algo.env_runner_group.foreach_env_runner(
                    lambda runner, n=per_runner: sum(len(e) for e in runner.sample(num_timesteps=n, explore=True)),
                    local_env_runner=False,
                )
            )
            sample_s += time.perf_counter() - t
        algo.stop()
    finally:
        ray.shutdown()
    rates = {"sampling": sampled / sample_s, "end_to_end": steps / wall}
    return {"runners": runners, "steps": int(steps + sampled), **rates}


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument(
        "--runners",
        type=positive,
        nargs="+",
        default=[1, 2],
        help="env runner counts (default 1 2)",
    )
    ap.add_argument(
        "--iterations",
        type=positive,
        default=3,
        help="timed iterations per count (default 3)",
    )
    ap.add_argument(
        "--batch",
        type=positive,
        default=2000,
        help="env steps per iteration (default 2000)",
    )
    ap.add_argument("--envs", type=positive, default=4, help="games per env runner (default 4)")
    ap.add_argument(
        "--epochs",
        type=positive,
        default=1,
        help="PPO epochs per iteration (default 1)",
    )
    args = parse_args(ap)
    try:
        import ray
    except ImportError:
        ap.error('needs Ray RLlib: pip install "schnapsen-env[rllib]"')
    lines = [
        f"{machine_description()}; `python benchmarks/rllib_speed.py --batch {args.batch} --envs {args.envs}`: "
        f"RLlib {ray.__version__} self-play PPO, {args.envs} games per env runner, {args.batch} env steps per "
        f"iteration, {args.epochs} epoch(s):",
        "\n| env runners | sampling steps/s | end-to-end steps/s (sampling + PPO update) |\n|---:|---:|---:|",
    ]
    for n in args.runners:
        row = measure(n, args.iterations, args.batch, args.envs, args.epochs, args.seed)
        lines.append(f"| {n} | {row['sampling']:,.0f} | {row['end_to_end']:,.0f} |")
        print(lines[-1], flush=True)
    publish("rllib_speed", "\n".join(lines), args.write_docs)


if __name__ == "__main__":
    main()
