"""Solver and PIMC timing helpers of ``solver_speed.py`` (a module, not a script).

Benchmark code lives here, not in the package: ``agents.solver`` does not import
``agents.pimc`` (no import cycle).
"""

from __future__ import annotations

import random
import statistics
import sys
import time

from agents import solver
from agents.pimc import PIMCAgent
from schnapsen_env.actions import MARRIAGE_BASE
from schnapsen_env.engine import GameState
from schnapsen_env.rules import Rules


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


if __name__ == "__main__":  # a module, not a script: say which script to run instead of exiting 0 silently
    sys.stderr.write(
        "solver_timings.py: error: a helper module used by benchmarks/solver_speed.py, not a script: "
        "run python benchmarks/solver_speed.py\n"
    )
    sys.exit(2)
