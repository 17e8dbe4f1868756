"""Engine speed: complete random-vs-random games per second, one process.

Every step lists the legal actions (``state.legal_actions()``) and applies a
seeded uniform choice (``random.Random.choice``). For each preset of RULES §7
the figure is the median of 5 runs. If the ``schnapsen`` package from PyPI is
installed, its own random-vs-random games (``RandBot`` vs ``RandBot`` through
``SchnapsenGamePlayEngine.play_game``) are timed in the same run and the ratio
is printed. The last line reads::

    engine_speed: schnapsen N games/s, pypi-schnapsen M games/s, ratio R

Usage: ``python benchmarks/engine_speed.py [--games 4000] [--runs 5] [--seed 0]``
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
import sys


from schnapsen_env.engine import GameState
from schnapsen_env.rules import VARIANTS, Rules
from _common import count, machine_description, positive, run_main  # benchmarks/_common.py (this folder is on sys.path)


def ours_games_per_second(variant: str, games: int, seed: int) -> float:
    rules = Rules.preset(variant)
    rng = random.Random(seed)
    choice = rng.choice
    t0 = time.perf_counter()
    for _ in range(games):
        state = GameState.from_seed(rules, rng=rng)
        while state.outcome is None:
            state.apply(choice(state.legal_actions()))
    return games / (time.perf_counter() - t0)


def pypi_games_per_second(games: int, seed: int) -> float | None:
    try:
        from schnapsen.bots import RandBot
        from schnapsen.game import SchnapsenGamePlayEngine
    except ImportError:
        return None
    engine = SchnapsenGamePlayEngine()
    t0 = time.perf_counter()
    for i in range(games):
        engine.play_game(
            RandBot(random.Random(seed + 2 * i)), RandBot(random.Random(seed + 2 * i + 1)), random.Random(seed + i)
        )
    return games / (time.perf_counter() - t0)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--games", type=positive, default=4000, help="games per run (ours, >= 1); the PyPI package plays a quarter"
    )
    ap.add_argument("--runs", type=positive, default=5, help="runs per figure (>= 1); the median is reported")
    ap.add_argument("--seed", type=count, default=0, help="a whole number >= 0")
    args = ap.parse_args(argv)
    print(machine_description())

    medians = {}
    for variant in VARIANTS:
        runs = [ours_games_per_second(variant, args.games, args.seed + r) for r in range(args.runs)]
        medians[variant] = statistics.median(runs)
        print(f"{variant:22s} {medians[variant]:10.0f} games/s  (runs: {', '.join(f'{x:.0f}' for x in runs)})")

    pypi_runs = [pypi_games_per_second(max(1, args.games // 4), args.seed + r) for r in range(args.runs)]
    ours = medians["schnapsen"]
    if pypi_runs[0] is None:
        print(f"engine_speed: schnapsen {ours:.0f} games/s, pypi-schnapsen n/a games/s, ratio n/a")
        return
    pypi = statistics.median(pypi_runs)
    print(f"{'pypi-schnapsen':22s} {pypi:10.0f} games/s  (runs: {', '.join(f'{x:.0f}' for x in pypi_runs)})")
    print(f"engine_speed: schnapsen {ours:.0f} games/s, pypi-schnapsen {pypi:.0f} games/s, ratio {ours / pypi:.2f}")


if __name__ == "__main__":
    sys.exit(run_main(main, "engine_speed.py"))
