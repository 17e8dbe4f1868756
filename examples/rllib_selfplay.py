"""Ray RLlib self-play PPO: one action-masking module plays both seats (README "RLlib and Ray").

    python examples/rllib_selfplay.py [--config configs/rllib_selfplay.yaml] [--iterations N]
                                      [--address ADDRESS] [--dir RUN_DIR] [key=value ...]

Without ``--address`` it starts a local Ray (``ray.init(num_cpus=ray.num_cpus)``, 2 in the shipped
config); with ``--address`` (``auto``, ``HOST:6379`` or ``ray://HOST:10001``) it runs unchanged on
that cluster, whose resources hold ``ray.num_env_runners`` env runners. Overrides are dotted config
keys with YAML values (``ppo.lr=1e-4 ray.num_env_runners=4 game.variant=sechsundsechzig``).

Per iteration it prints the env steps sampled and their rate, player_0's mean return and the
losses; at the end it saves ``RUN_DIR/checkpoint`` (an RLlib Algorithm checkpoint), plays it in
our arena against ``eval.opponents`` (``rllib:checkpoint=RUN_DIR/checkpoint``: the policy acts
from the observation and mask of the player to move only) and prints the arena command to play it
again. Needs the ``[rllib]`` extra (``pip install "schnapsen-env[rllib]"``). The RLlib code is
``agents.rllib.selfplay.ppo_config``; the only Schnapsen-specific piece in it is the adapter::

    import schnapsen_env.rllib  # registers "schnapsen_v0" with Ray
    config = (PPOConfig().environment("schnapsen_v0", env_config={"variant": "schnapsen"})
              .multi_agent(policies={"main"}, policy_mapping_fn=lambda aid, *a, **k: "main")
              .rl_module(rl_module_spec=MultiRLModuleSpec(
                  rl_module_specs={"main": schnapsen_env.rllib.action_mask_module_spec([256, 256])})))

Exit codes: 0 done, 2 a config or command-line error (one line on stderr).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CONFIG = ROOT / "configs" / "rllib_selfplay.yaml"


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="examples/rllib_selfplay.py", description=__doc__.splitlines()[0])
    ap.add_argument("--config", default=str(DEFAULT_CONFIG), help="YAML config (default configs/rllib_selfplay.yaml)")
    ap.add_argument("--iterations", type=int, default=None, help="training iterations (overrides run.iterations)")
    ap.add_argument(
        "--address", default=None, help="Ray cluster address (auto, HOST:6379, ray://HOST:10001); default: a local Ray"
    )
    ap.add_argument("--dir", default=None, help="run directory (overrides run.dir)")
    ap.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides, e.g. ppo.lr=1e-4")
    return ap


def main(argv=None) -> int:
    started = time.perf_counter()
    ap = build_parser()
    args = ap.parse_args(argv)
    overrides = list(args.overrides)
    if args.iterations is not None:
        if args.iterations < 1:
            ap.error(f"--iterations must be >= 1, got {args.iterations}")
        overrides.append(f"run.iterations={args.iterations}")
    try:
        import ray  # noqa: F401

        import schnapsen_env.rllib  # noqa: F401  (registers the environment with Ray)
    except ImportError:
        ap.error('needs Ray RLlib: pip install "schnapsen-env[rllib]" (or pip install -e ".[rllib]" from a clone)')
    from agents.ppo.config import ConfigError
    from agents.rllib import selfplay

    try:
        cfg = selfplay.load_config(args.config, overrides)
    except ConfigError as e:
        ap.error(f"config error: {e}")
    run_dir = Path(
        args.dir or cfg.run.dir or ROOT / "runs" / f"{cfg.name}-seed{cfg.seeding.seed}-{time.strftime('%Y%m%d-%H%M%S')}"
    )
    if (run_dir / "checkpoint").exists():
        ap.error(f"{str(run_dir / 'checkpoint')!r} exists: choose another --dir")
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        ap.error(f"cannot create run directory {str(run_dir)!r}: {e.strerror or e}")
    cpus = cfg.ray.num_cpus or os.cpu_count()
    where = f"Ray cluster at {args.address}" if args.address else f"local Ray with {cpus} CPUs"
    print(
        f"{cfg.name}: {cfg.run.iterations} iterations of {cfg.ppo.train_batch_size} env steps, "
        f"{cfg.ray.num_env_runners} env runner(s) on a {where}; run directory {run_dir}",
        flush=True,
    )
    import ray

    try:
        out = selfplay.train(cfg, run_dir, address=args.address, log=lambda line: print(line, flush=True))
    finally:
        ray.shutdown()
    if out["checkpoint"] is not None:
        print(f"play it: python -m agents.arena --agents rllib:checkpoint={out['checkpoint']} heuristic --games 200")
    print(f"wall time: {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
