"""Train with configs/default.yaml and record wall time, rollout speed and final strength.

    python benchmarks/train_default.py [--ship] [--write-readme] [--run-dir DIR] [key=value ...]

Runs ``train.py --config configs/default.yaml`` (in this process, so the wall time is
the job's), then prints a table of:

* wall time of the whole job (training, periodic evaluations, final evaluation) and how many
  of the updates fitted in the config's ``run.time_budget_min``;
* env steps/s during rollouts (every action of either player, env plus batched policy),
  median over updates, next to the peer measured in the same run: one game at a time
  stepped by random play through the same engine and ``encode_state`` (no network);
* the final evaluation (duplicate deals, 2,000 games per opponent, greedy policy), next
  to the peer measured in the same run on the same deals (``train.eval_seed``): the
  heuristic agent vs random.

README.md changes only with ``--write-readme``, and then only the block between
``<!-- train_default:start -->`` and ``<!-- train_default:end -->`` (``benchmarks/_common.py``);
a run with overrides is not the default config and cannot write it. ``--ship`` copies the run's
``policy.pt`` to ``agents/checkpoints/ppo_default.pt``. A bad override is one line and exit
status 2. Targets on a 2-core CPU machine: <= 20 minutes, >= 90% of games won against random,
>= 55% against the heuristic, >= 10,000 env steps/s in rollouts.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _common import add_write_readme_flag, machine_description, run_main, write_readme_block  # noqa: E402

BLOCK = "train_default"
#: the targets of the issue (2-core CPU machine)
TARGET_MINUTES, TARGET_RANDOM, TARGET_HEURISTIC, TARGET_SPS = 20, 0.90, 0.55, 10_000
#: seconds of single-game random play for the peer speed figure
PEER_SECONDS = 3.0


def peer_steps_per_s(rules, seconds: float = PEER_SECONDS) -> float:
    """Env steps/s of one game at a time, random legal actions, engine + encode_state (no network)."""
    import numpy as np

    from schnapsen_env.engine import GameState
    from schnapsen_env.observation import OBS_SIZE, encode_state

    rng = random.Random(0)
    out = np.zeros(OBS_SIZE, dtype=np.float32)
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        s = GameState.from_seed(rules, rng=rng)
        while not s.is_terminal:
            encode_state(s, s.current_player, out=out)
            legal = s.legal_actions()
            s.apply(legal[rng.randrange(len(legal))])
            steps += 1
    return steps / (time.perf_counter() - t0)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ship", action="store_true", help="copy the trained policy to agents/checkpoints/ppo_default.pt")
    ap.add_argument("--run-dir", help="run directory (default runs/train_default-<time>)")
    add_write_readme_flag(ap, BLOCK)
    ap.add_argument("overrides", nargs="*", help="config overrides (a run with overrides cannot write README.md)")
    args = ap.parse_args(argv)
    if args.write_readme and args.overrides:
        print(
            "config error: --write-readme records the default config: leave out the overrides "
            f"{' '.join(args.overrides)}",
            file=sys.stderr,
        )
        return 2

    import train
    from agents.arena import play_pair
    from agents.ppo.config import ConfigError, load_config
    from agents.ppo.run import CSV_NAME, EVAL_JSON, POLICY

    config = ROOT / "configs" / "default.yaml"
    try:
        cfg = load_config(config, args.overrides)
    except ConfigError as e:
        print(f"config error: {' '.join(str(e).split())}", file=sys.stderr)
        return 2
    machine = machine_description()  # the load average before the run
    run_dir = Path(args.run_dir or ROOT / "runs" / f"train_default-{time.strftime('%Y%m%d-%H%M%S')}")
    t0 = time.monotonic()
    rc = train.main(["--config", str(config), "--run-dir", str(run_dir), *args.overrides], started=t0)
    wall = time.monotonic() - t0
    if rc != 0:
        return rc
    with open(run_dir / CSV_NAME, newline="") as f:
        rows = list(csv.DictReader(f))
    sps = statistics.median(float(r["rollout_steps_per_s"]) for r in rows)
    eval_json = run_dir / EVAL_JSON
    final = json.loads(eval_json.read_text()) if eval_json.exists() else {}
    peer_sps = peer_steps_per_s(cfg.rules())
    games = cfg.eval.final_games
    peer = (
        play_pair(
            "heuristic",
            "random",
            games=games,
            seed=train.eval_seed(cfg.seeding.seed),
            rules=cfg.rules(),
            duplicate=cfg.eval.duplicate,
        )
        if games
        else None
    )

    updates = int(rows[-1]["update"])
    budget = cfg.run.time_budget_min
    fitted = f" (time budget {budget:g} min)" if budget is not None else ""
    lines = [
        f"{machine}; `python benchmarks/train_default.py`, torch threads {cfg.seeding.torch_threads}:",
        "",
        "| figure | measured | target |",
        "|---|---|---|",
        f"| wall time (train + evaluations) | {wall / 60:.1f} min | <= {TARGET_MINUTES} min |",
        (
            f"| updates{fitted} / env steps / learner decisions | {updates} of {cfg.run.total_updates} / "
            f"{int(rows[-1]['env_steps']):,} / {int(rows[-1]['learner_steps']):,} | |"
        ),
        (
            f"| env steps/s in rollouts ({cfg.ppo.num_games} games in lockstep, batched policy; median) | "
            f"{sps:,.0f} | >= {TARGET_SPS:,} |"
        ),
        f"| peer: one game at a time, random play, engine + encode_state | {peer_sps:,.0f} | |",
    ]
    targets = {"random": TARGET_RANDOM, "heuristic": TARGET_HEURISTIC}
    for spec, r in final.items():
        lo, hi = r["win_rate_ci"]
        pa, pb = r["mean_game_points"]
        t = f">= {targets[spec]:.0%}" if spec in targets else ""
        lines.append(
            f"| PPO vs {spec}: games won ({r['games']:,} duplicate games) | {r['win_rate']:.1%} "
            f"[{lo:.1%}, {hi:.1%}], game points/game {pa:.2f} : {pb:.2f} | {t} |"
        )
    if peer is not None:
        lo, hi = peer.win_rate_ci
        lines.append(f"| peer: heuristic vs random, same deals | {peer.win_rate:.1%} [{lo:.1%}, {hi:.1%}] | |")
    block = "\n".join(lines)
    print("\n" + block)

    if args.ship:
        dest = ROOT / "agents" / "checkpoints" / "ppo_default.pt"
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(run_dir / POLICY, dest)
        print(f"shipped {run_dir / POLICY} -> {dest} ({dest.stat().st_size:,} bytes)")
    if args.write_readme:
        write_readme_block(BLOCK, block)
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main, "train_default.py"))
