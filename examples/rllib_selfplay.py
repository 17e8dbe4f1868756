"""Ray RLlib self-play PPO: one action-masking module plays both seats (docs: toolkits/rllib).

    python examples/rllib_selfplay.py [--config configs/rllib_selfplay.yaml] [--iterations N]
                                      [--address ADDRESS] [--dir RUN_DIR] [key=value ...]

Without ``--address`` it starts a local Ray (``ray.num_cpus`` CPUs); with ``--address`` (``auto``,
``HOST:6379``, ``ray://HOST:10001``) it runs unchanged on that cluster. Overrides are dotted config
keys with YAML values (``ppo.lr=1e-4 game.variant=sechsundsechzig``). Per iteration it prints the
env steps sampled, player_0's mean return and the losses; at the end it saves
``RUN_DIR/checkpoint``, plays it in our arena against ``eval.opponents`` and prints the arena
command. The RLlib code is ``agents.training.rllib_selfplay.ppo_config``. Needs the ``[rllib]`` extra.
"""

import argparse
import time
from pathlib import Path

from schnapsen_env.cli_io import whole_range

ROOT = Path(__file__).resolve().parent.parent


def main(argv=None) -> None:
    started = time.perf_counter()
    ap = argparse.ArgumentParser(
        prog="examples/rllib_selfplay.py",
        description=__doc__.splitlines()[0],
    )
    ap.add_argument(
        "--config",
        default=ROOT / "configs" / "rllib_selfplay.yaml",
        help="YAML config",
    )
    ap.add_argument(
        "--iterations",
        type=whole_range(1),
        help="training iterations (overrides run.iterations)",
    )
    ap.add_argument(
        "--address",
        help="Ray cluster address (auto, HOST:6379, ray://HOST:10001); default: a local Ray",
    )
    ap.add_argument("--dir", help="run directory (overrides run.dir)")
    ap.add_argument(
        "overrides",
        nargs="*",
        metavar="key=value",
        help="config overrides, e.g. ppo.lr=1e-4",
    )
    args = ap.parse_args(argv)
    overrides = args.overrides + ([f"run.iterations={args.iterations}"] if args.iterations else [])
    try:
        import ray

        import schnapsen_env.rllib  # noqa: F401  (registers the environment with Ray)
    except ImportError:
        ap.error('needs Ray RLlib: pip install "schnapsen-env[rllib]" (or pip install -e ".[rllib]" from a clone)')
    from agents.training.config import ConfigError
    from agents.training import rllib_selfplay as selfplay

    try:
        cfg = selfplay.load_config(args.config, overrides)
    except ConfigError as e:
        ap.exit(2, f"{ap.prog}: error: config error: {e}\n")  # one line, no usage
    stamp = time.strftime("%Y%m%d-%H%M%S")
    run_dir = Path(args.dir or cfg.run.dir or ROOT / "runs" / f"{cfg.name}-seed{cfg.seeding.seed}-{stamp}")
    if (run_dir / "checkpoint").exists():
        ap.error(f"{str(run_dir / 'checkpoint')!r} exists: choose another --dir")
    run_dir.mkdir(parents=True, exist_ok=True)
    where = f"the Ray cluster at {args.address}" if args.address else f"a local Ray ({cfg.ray.num_cpus or 'all'} CPUs)"
    print(
        f"{cfg.name}: {cfg.run.iterations} iterations on {where}; run directory {run_dir}",
        flush=True,
    )
    try:
        out = selfplay.train(
            cfg,
            run_dir,
            address=args.address,
            log=lambda line: print(line, flush=True),
        )
    finally:
        ray.shutdown()
    if out["checkpoint"] is not None:
        arena = "python -m agents.evaluation.arena"
        spec = f"rllib:checkpoint={out['checkpoint']}"
        print(f"play it: {arena} --agents {spec} heuristic --games 200")
    print(f"wall time: {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
