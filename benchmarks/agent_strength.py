"""Strength of the agents: duplicate-deal arena figures against their targets, plus solver timings.

Pairs (each on duplicate deals, so luck of the deal cancels):

* heuristic vs random (``--games``, default 2000): target heuristic wins >= 80%;
* pimc:samples=40 vs heuristic (``--pimc-games``, default 1000): target PIMC wins >= 65%;
* with the optional ``schnapsen`` package: pimc:samples=40 vs vu:rdeep (RdeepBot, 16 samples,
  depth 4) under the ``vu-course`` preset (``--pimc-games``): target PIMC wins >= 60%.

The solver timings come from ``benchmarks/solver_timings.py``. The
table is printed; with ``--write-readme`` it also replaces the block between
``<!-- agent_strength:start -->`` and ``<!-- agent_strength:end -->`` in README.md::

    python benchmarks/agent_strength.py [--games 2000] [--pimc-games 1000] [--workers 2] [--write-readme]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import add_write_readme_flag, machine_description, write_readme_block

from agents.arena import play_pair
from schnapsen_env.rules import Rules

BLOCK = "agent_strength"
#: (agent A, agent B, variant, target win rate of A, which game count)
PAIRS = [
    ("heuristic", "random", "schnapsen", 0.80, "games"),
    ("ppo", "random", "schnapsen", 0.90, "games"),
    ("ppo", "heuristic", "schnapsen", 0.55, "games"),
    ("pimc:samples=40", "heuristic", "schnapsen", 0.65, "pimc_games"),
    ("pimc:samples=40", "vu:rdeep", "vu-course", 0.60, "pimc_games"),
]


def _available(spec: str) -> bool:
    name = spec.split(":")[0]
    module = {"pimc": "agents.pimc", "vu": "schnapsen", "ppo": "agents.neural"}.get(name)
    return module is None or importlib.util.find_spec(module) is not None


def run(args) -> str:
    lines = [
        f"Duplicate deals, seed {args.seed}; win rate with Wilson 95% interval; game points won per game "
        f"(normal-approximation 95% interval). {machine_description()}, {args.workers} worker(s).",
        "",
        "| agent A | agent B | variant | games | A win rate [95% CI] | target | met | A pts/game | B pts/game | s |",
        "|---|---|---|---:|---|---:|:-:|---:|---:|---:|",
    ]
    for a, b, variant, target, which in PAIRS:
        games = getattr(args, which)
        if not (_available(a) and _available(b)):
            lines.append(f"| {a} | {b} | {variant} | - | not run ({'schnapsen' if 'vu' in a + b else a} "
                         f"not installed) | {target:.0%} | - | - | - | - |")
            continue
        t = time.perf_counter()
        r = play_pair(a, b, games=games, seed=args.seed, rules=Rules.preset(variant), duplicate=True,
                      workers=args.workers, progress=not args.no_progress, variant=variant)
        dt = time.perf_counter() - t
        lo, hi = r.win_rate_ci
        lines.append(f"| {a} | {b} | {variant} | {r.games} | {r.win_rate:.1%} [{lo:.1%}, {hi:.1%}] | "
                     f"{target:.0%} | {'yes' if r.win_rate >= target else 'no'} | "
                     f"{r.mean_game_points[0]:.2f} | {r.mean_game_points[1]:.2f} | {dt:.0f} |")
        print(lines[-1], flush=True)
    if not args.no_timings:
        from solver_timings import benchmark_timings

        fig = benchmark_timings()
        lines += ["", "Solver timings (median ms, `benchmarks/solver_timings.py`):", "",
                  "| figure | ms |", "|---|---:|"]
        lines += [f"| {k} | {v:.3f} |" if isinstance(v, float) else f"| {k} | {v} |" for k, v in fig.items()]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000, help="games for pairs without PIMC")
    ap.add_argument("--pimc-games", type=int, default=1000, help="games for pairs with PIMC")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--workers", type=int, default=2)
    add_write_readme_flag(ap, BLOCK)
    ap.add_argument("--no-timings", action="store_true", help="skip the solver timings")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    if args.games < 1 or args.pimc_games < 1 or args.workers < 1:
        ap.error("--games, --pimc-games and --workers must be >= 1")
    table = run(args)
    print(table)
    if args.write_readme:
        write_readme_block(BLOCK, table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
