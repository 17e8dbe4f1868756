"""Train with configs/default.yaml and record wall time, rollout speed and final strength.

    python benchmarks/train_default.py [--ship] [--no-readme] [key=value ...]

Runs ``train.py --config configs/default.yaml`` (in this process, so the wall time is
the job's), then reports:

* wall time of the whole job (training, periodic evaluations, final evaluation);
* env steps/s during rollouts (every action of either player, env plus batched policy),
  median over updates, next to the peer measured in the same run: one game at a time
  stepped by random play through the same engine and ``encode_state`` (no network);
* the final evaluation (duplicate deals, 2,000 games per opponent, greedy policy), next
  to the peer measured in the same run on the same deals: the heuristic agent vs random.

With no overrides it rewrites the block between ``<!-- train_default:start -->`` and
``<!-- train_default:end -->`` in README.md (only that block; nothing if the markers are
missing). ``--ship`` copies the run's ``policy.pt`` to ``agents/checkpoints/ppo_default.pt``.
Targets on a 2-core CPU machine: <= 20 minutes, >= 90% of games won against random,
>= 55% against the heuristic, >= 10,000 env steps/s in rollouts.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import random
import re
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

START, END = "<!-- train_default:start -->", "<!-- train_default:end -->"
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
    ap.add_argument("--no-readme", action="store_true", help="do not touch README.md")
    ap.add_argument("--run-dir", help="run directory (default runs/train_default-<time>)")
    ap.add_argument("overrides", nargs="*", help="config overrides (a run with overrides never updates README.md)")
    args = ap.parse_args(argv)

    import train
    from agents.arena import play_pair
    from agents.ppo.config import load_config

    cfg = load_config(ROOT / "configs" / "default.yaml", args.overrides)
    run_dir = Path(args.run_dir or ROOT / "runs" / f"train_default-{time.strftime('%Y%m%d-%H%M%S')}")
    t0 = time.perf_counter()
    rc = train.main(["--config", str(ROOT / "configs" / "default.yaml"), "--run-dir", str(run_dir),
                     *args.overrides])
    wall = time.perf_counter() - t0
    if rc != 0:
        return rc
    with open(run_dir / "progress.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    sps = statistics.median(float(r["rollout_steps_per_s"]) for r in rows)
    final = json.loads((run_dir / "eval.json").read_text()) if (run_dir / "eval.json").exists() else {}
    peer_sps = peer_steps_per_s(cfg.rules())
    games = cfg.eval.final_games
    peer = play_pair("heuristic", "random", games=games, seed=cfg.seeding.seed + train.SEED_EVAL,
                     rules=cfg.rules(), duplicate=cfg.eval.duplicate) if games else None

    lines = [
        (f"Measured {time.strftime('%Y-%m-%d')} by `python benchmarks/train_default.py` on "
         f"{os.cpu_count()} CPU cores ({platform.processor() or platform.machine()}), "
         f"torch threads {cfg.seeding.torch_threads}:"),
        "",
        "| figure | measured | target |",
        "|---|---|---|",
        f"| wall time (train + evaluations) | {wall / 60:.1f} min | <= {TARGET_MINUTES} min |",
        (f"| updates / env steps / learner decisions | {rows[-1]['update']} / {int(rows[-1]['env_steps']):,} / "
         f"{int(rows[-1]['learner_steps']):,} | |"),
        (f"| env steps/s in rollouts ({cfg.ppo.num_games} games in lockstep, batched policy; median) | "
         f"{sps:,.0f} | >= {TARGET_SPS:,} |"),
        f"| peer: one game at a time, random play, engine + encode_state | {peer_sps:,.0f} | |",
    ]
    targets = {"random": TARGET_RANDOM, "heuristic": TARGET_HEURISTIC}
    for spec, r in final.items():
        lo, hi = r["win_rate_ci"]
        pa, pb = r["mean_game_points"]
        t = f">= {targets[spec]:.0%}" if spec in targets else ""
        lines.append(f"| PPO vs {spec}: games won ({r['games']:,} duplicate games) | {r['win_rate']:.1%} "
                     f"[{lo:.1%}, {hi:.1%}], game points/game {pa:.2f} : {pb:.2f} | {t} |")
    if peer is not None:
        lo, hi = peer.win_rate_ci
        lines.append(f"| peer: heuristic vs random, same deals | {peer.win_rate:.1%} [{lo:.1%}, {hi:.1%}] | |")
    block = "\n".join(lines)
    print("\n" + block)

    if args.ship:
        dest = ROOT / "agents" / "checkpoints" / "ppo_default.pt"
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(run_dir / train.POLICY, dest)
        print(f"shipped {run_dir / train.POLICY} -> {dest} ({dest.stat().st_size:,} bytes)")
    if args.no_readme or args.overrides:
        return 0
    readme = ROOT / "README.md"
    text = readme.read_text()
    # the markers count only on lines of their own (prose may quote them)
    pattern = re.compile("^" + re.escape(START) + "$.*?^" + re.escape(END) + "$", re.DOTALL | re.MULTILINE)
    if not pattern.search(text):
        print(f"README.md has no {START} ... {END} block: not updated", file=sys.stderr)
        return 0
    readme.write_text(pattern.sub(lambda m: f"{START}\n{block}\n{END}", text, count=1))
    print("README.md updated (train_default block)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
