"""Speed of the perfect-information solver and of PIMC(40) (agents/solver.py, agents/pimc.py).

Prints median milliseconds for: ``solve`` on phase-2 positions (talon exhausted,
5 cards each), ``solve`` on full 20-card deals from the first lead, and one
PIMC(samples=40) decision over the decisions of real games against a random
player; next to each the target of the issue, and as the peer measured in the
same run the pure-Python alpha-beta on the same phase-2 positions.

    python benchmarks/solver_speed.py [--positions 20] [--games 4] [--variant schnapsen] [--json]

``--json``: stdout is one JSON object (the figures and ``machine``, the line the table starts with).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time

from agents import solver
from agents.pimc import PIMCAgent
from schnapsen_env.actions import MARRIAGE_BASE
from schnapsen_env.engine import GameState

from schnapsen_env import Rules
from schnapsen_env.rules import VARIANTS
from _common import count, machine_description, positive, run_main  # benchmarks/_common.py (this folder is on sys.path)


def _phase2_position(rules: Rules, seed: int) -> GameState:
    """Play random legal cards (no closing, no declaring) until the talon is exhausted
    and the next trick is to be led: both hands full (5 cards each in Schnapsen)."""
    rng = random.Random(seed)
    while True:
        s = GameState.from_seed(rules, rng=rng)
        while not s.is_terminal:
            if s.trump_card < 0 and s.lead_card < 0 and s.pending_marriage < 0:
                if s.hands[0].bit_count() == rules.hand_size and s.hands[1].bit_count() == rules.hand_size:
                    return s
                break
            acts = [a for a in s.legal_actions() if a < MARRIAGE_BASE]
            s.apply(rng.choice(acts))


def _median_ms(fn, items, repeats: int = 1) -> float:
    times = []
    for it in items:
        best = float("inf")
        for _ in range(repeats):
            t0 = time.perf_counter()
            fn(it)
            best = min(best, time.perf_counter() - t0)
        times.append(best * 1000.0)
    return statistics.median(times)


def benchmark_timings(positions: int = 20, pimc_games: int = 4, seed: int = 0, rules: Rules | None = None) -> dict:
    """Median wall-clock milliseconds of the solver and PIMC .

    Returns ``{"core": bool, "phase2_solve_ms", "full_deal_solve_ms",
    "pimc40_decision_ms", "pimc40_decisions", "pimc40_searched_decision_ms",
    "pimc40_mean_decision_ms", "pimc40_p90_decision_ms"}``: ``solve`` on ``positions`` phase-2 positions
    (talon exhausted, full hands) and on ``positions`` fresh deals from the
    first lead, and PIMC(samples=40) per decision over ``pimc_games`` games
    against a random player (median over all its decisions, over those with more
    than one legal action, the mean and the 90th percentile); schnapsen rules unless ``rules`` is given.
    """
    rules = rules or Rules.preset("schnapsen")
    p2 = [_phase2_position(rules, seed + i) for i in range(positions)]
    deals = [GameState.from_seed(rules, seed=seed + 1000 + i) for i in range(positions)]
    out = {
        "core": solver.core_available(),
        "phase2_solve_ms": _median_ms(solver.solve, p2),
        "full_deal_solve_ms": _median_ms(solver.solve, deals),
    }
    agent = PIMCAgent(samples=40, seed=seed)
    rng = random.Random(seed)
    times = []
    searched = []  # decisions with more than one legal action (the others return at once)
    for g in range(pimc_games):
        s = GameState.from_seed(rules, seed=seed + 2000 + g)
        pimc_seat = g % 2
        while not s.is_terminal:
            p = s.current_player
            if p == pimc_seat:
                info = s.information_set(p)
                t0 = time.perf_counter()
                a = agent.act(info)
                times.append((time.perf_counter() - t0) * 1000.0)
                if len(info.legal_actions) > 1:
                    searched.append(times[-1])
            else:
                a = rng.choice(s.legal_actions())
            s.apply(a)
    out["pimc40_decision_ms"] = statistics.median(times)
    out["pimc40_decisions"] = len(times)
    out["pimc40_searched_decision_ms"] = statistics.median(searched) if searched else 0.0
    out["pimc40_mean_decision_ms"] = statistics.mean(times)
    out["pimc40_p90_decision_ms"] = statistics.quantiles(times, n=10)[-1] if len(times) > 1 else times[0]
    return out


#: targets of the issue, median milliseconds
TARGETS_MS = {"phase2_solve_ms": 1.0, "full_deal_solve_ms": 50.0, "pimc40_decision_ms": 200.0}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=positive, default=20, help="positions per solver figure (>= 1)")
    ap.add_argument("--games", type=positive, default=4, help="games PIMC(40) plays against random (>= 1)")
    ap.add_argument("--variant", default="schnapsen", choices=list(VARIANTS), help="rules preset (RULES §7)")
    ap.add_argument("--seed", type=count, default=0, help="a whole number >= 0")
    ap.add_argument("--json", action="store_true", help="print one JSON line instead of a table")
    args = ap.parse_args(argv)
    machine = machine_description()
    if not args.json:  # --json: stdout is the one JSON line (the machine is its "machine" key)
        print(machine)
    rules = Rules.preset(args.variant)
    figures = benchmark_timings(positions=args.positions, pimc_games=args.games, seed=args.seed, rules=rules)
    # peer: the pure-Python alpha-beta on the same phase-2 positions
    p2 = [_phase2_position(rules, args.seed + i) for i in range(args.positions)]
    figures["phase2_solve_python_ms"] = _median_ms(solver.solve_python, p2)
    if args.json:
        print(json.dumps({"machine": machine, **figures}))
        return 0
    print(f"variant {args.variant}, compiled core: {figures['core']}")
    for key, target in TARGETS_MS.items():
        ok = "ok" if figures[key] <= target else "OVER"
        print(f"{key:24s} {figures[key]:9.3f} ms median  (target <= {target:g} ms: {ok})")
    print(f"{'pimc40_decisions':24s} {figures['pimc40_decisions']:9d}")
    print(
        f"{'pimc40_searched_decision_ms':24s} {figures['pimc40_searched_decision_ms']:9.3f} ms median "
        f"(decisions with more than one legal action)"
    )
    print(f"{'pimc40_mean_decision_ms':24s} {figures['pimc40_mean_decision_ms']:9.3f} ms mean")
    print(f"{'pimc40_p90_decision_ms':24s} {figures['pimc40_p90_decision_ms']:9.3f} ms (90th percentile)")
    print(
        f"peer: phase2_solve_python_ms {figures['phase2_solve_python_ms']:9.3f} ms median "
        f"(pure-Python alpha-beta, same positions): core is "
        f"{figures['phase2_solve_python_ms'] / max(figures['phase2_solve_ms'], 1e-9):.0f}x faster"
    )
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main, "solver_speed.py"))
