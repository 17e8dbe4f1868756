"""Train with configs/default.yaml and record wall time, rollout speed and final strength.

    python benchmarks/train_default.py [--ship] [--write-docs] [--run-dir DIR] [key=value ...]

Runs ``train.py --config configs/default.yaml`` (:mod:`agents.training.train`) in this process. Peers
measured in the same run: one game at a time with random play
(``vector_speed.scalar_steps_per_second``), and the heuristic against random on the final
evaluation's deals. ``--ship`` copies the policy to ``agents/players/checkpoints/ppo_default.pt``;
``--write-docs`` records the default config only, so it takes no overrides."""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import statistics
import sys
import time
from schnapsen_env.cli_io import one_line
from pathlib import Path

from _common import ROOT, add_docs_flag, machine_description, publish
from vector_speed import scalar_steps_per_second

#: seconds of single-game random play for the peer speed figure
PEER_SECONDS = 3.0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--ship",
        action="store_true",
        help="copy the trained policy to agents/players/checkpoints/ppo_default.pt",
    )
    ap.add_argument(
        "--run-dir",
        type=Path,
        help="run directory (default runs/train_default-<time>)",
    )
    add_docs_flag(ap)
    ap.add_argument("overrides", nargs="*", help="config overrides (not with --write-docs)")
    args = ap.parse_args(argv)
    if args.write_docs and args.overrides:
        ap.error(f"--write-docs records the default config: leave out the overrides {' '.join(args.overrides)}")

    from agents.training import train
    from agents.evaluation.arena import play_pair
    from agents.training.config import ConfigError, load_config
    from agents.training.run import CSV_NAME, EVAL_JSON, POLICY

    config = ROOT / "configs" / "default.yaml"
    try:
        cfg = load_config(config, args.overrides)
    except ConfigError as e:
        print(f"config error: {one_line(e)}", file=sys.stderr)
        return 2
    machine = machine_description()  # the load average before the run
    run_dir = args.run_dir or ROOT / "runs" / f"train_default-{time.strftime('%Y%m%d-%H%M%S')}"
    t0 = time.monotonic()
    rc = train.main(
        ["--config", str(config), "--run-dir", str(run_dir), *args.overrides],
        started=t0,
    )
    wall = time.monotonic() - t0
    if rc != 0:
        return rc
    with open(run_dir / CSV_NAME, newline="") as f:
        rows = list(csv.DictReader(f))
    final = json.loads((run_dir / EVAL_JSON).read_text()) if (run_dir / EVAL_JSON).exists() else {}
    peer_sps = scalar_steps_per_second(cfg.rules(), PEER_SECONDS, 0, observe=True)
    budget = cfg.run.time_budget_min
    lines = [
        f"{machine}; `python benchmarks/train_default.py`, torch threads {cfg.seeding.torch_threads} "
        f"(update: {cfg.seeding.update_threads or 'all cores'}):",
        "\n| figure | measured |\n|---|---|",
        f"| wall time (train + evaluations) | {wall / 60:.1f} min |",
        f"| updates{f' (time budget {budget:g} min)' if budget else ''} / env steps / learner decisions | "
        f"{int(rows[-1]['update'])} of {cfg.run.total_updates} / {int(rows[-1]['env_steps']):,} / "
        f"{int(rows[-1]['learner_steps']):,} |",
        f"| env steps/s in rollouts ({cfg.ppo.num_games} games in lockstep, batched policy; median) | "
        f"{statistics.median(float(r['rollout_steps_per_s']) for r in rows):,.0f} |",
        f"| peer: one game at a time, random play, engine + observation | {peer_sps:,.0f} |",
    ]
    for spec, r in final.items():
        (lo, hi), (pa, pb) = r["win_rate_ci"], r["mean_game_points"]
        won = f"{r['win_rate']:.1%} [{lo:.1%}, {hi:.1%}], game points/game {pa:.2f} : {pb:.2f}"
        lines.append(f"| PPO vs {spec}: games won ({r['games']:,} duplicate games) | {won} |")
    if cfg.eval.final_games:
        seed, rules = train.eval_seed(cfg.seeding.seed), cfg.rules()
        peer = play_pair(
            "heuristic",
            "random",
            cfg.eval.final_games,
            seed,
            rules=rules,
            duplicate=cfg.eval.duplicate,
        )
        lo, hi = peer.win_rate_ci
        lines.append(f"| peer: heuristic vs random, same deals | {peer.win_rate:.1%} [{lo:.1%}, {hi:.1%}] |")
    publish("train_default", "\n".join(lines), args.write_docs)
    if args.ship:
        dest = ROOT / "agents" / "players" / "checkpoints" / "ppo_default.pt"
        shutil.copyfile(run_dir / POLICY, dest)
        print(f"shipped {run_dir / POLICY} -> {dest} ({dest.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
