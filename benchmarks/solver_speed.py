"""Speed of the perfect-information solver and of PIMC(40) (agents/players/solver.py, agents/players/pimc.py).

Median milliseconds of ``solve`` on phase-2 positions (talon exhausted, full hands), of ``solve`` on
full deals from the first lead, and of one PIMC(samples=40) decision over the decisions of games
against a random player; the peer, measured in the same run, is the pure-Python alpha-beta
(``solver.solve_python``) on the same phase-2 positions.

    python benchmarks/solver_speed.py [--positions 20] [--games 4] [--variant schnapsen] [--seed 0] [--write-docs]"""

from __future__ import annotations

import random
import statistics
import time

from _common import machine_description, parse_args, parser, positive, publish

from agents.players import solver
from agents.players.pimc import PIMCAgent
from schnapsen_env.actions import MARRIAGE_BASE
from schnapsen_env.engine import GameState
from schnapsen_env.rules import VARIANTS, Rules


def phase2_position(rules: Rules, seed: int) -> GameState:
    """Random legal cards (no closing, no marriage) until the talon is exhausted with both hands
    full."""
    rng = random.Random(seed)
    while True:
        s = GameState.from_seed(rules, rng=rng)
        while not s.is_terminal:
            if s.trump_card < 0 and s.lead_card < 0 and s.pending_marriage < 0:
                if s.hands[0].bit_count() == s.hands[1].bit_count() == rules.hand_size:
                    return s
                break
            s.apply(rng.choice([a for a in s.legal_actions() if a < MARRIAGE_BASE]))


def times_ms(fn, items) -> list[float]:
    """Milliseconds of ``fn(item)`` for each of ``items`` (perf_counter around each call)."""
    times = []
    for item in items:
        t0 = time.perf_counter()
        fn(item)
        times.append((time.perf_counter() - t0) * 1000.0)
    return times


def pimc_decision_ms(rules: Rules, games: int, seed: int) -> list[float]:
    """Milliseconds of every PIMC(40) decision in ``games`` games against random play (seats
    alternate)."""
    agent = PIMCAgent(samples=40, seed=seed)
    rng = random.Random(seed)
    times = []
    for g in range(games):
        s = GameState.from_seed(rules, seed=seed + 2000 + g)
        while not s.is_terminal:
            if s.current_player == g % 2:
                t0 = time.perf_counter()
                a = agent.act(s.information_set(s.current_player))
                times.append((time.perf_counter() - t0) * 1000.0)
            else:
                a = rng.choice(s.legal_actions())
            s.apply(a)
    return times


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--positions", type=positive, default=20, help="positions per solver figure")
    ap.add_argument("--games", type=positive, default=4, help="games PIMC(40) plays against random")
    ap.add_argument(
        "--variant",
        default="schnapsen",
        choices=VARIANTS,
        help="rules preset (RULES §7)",
    )
    args = parse_args(ap)
    machine = machine_description()
    rules = Rules.preset(args.variant)
    p2 = [phase2_position(rules, args.seed + i) for i in range(args.positions)]
    deals = [GameState.from_seed(rules, seed=args.seed + 1000 + i) for i in range(args.positions)]
    ours, python = (
        statistics.median(times_ms(solver.solve, p2)),
        statistics.median(times_ms(solver.solve_python, p2)),
    )
    pimc = pimc_decision_ms(rules, args.games, args.seed)
    p90 = statistics.quantiles(pimc, n=10)[-1] if len(pimc) > 1 else pimc[0]
    full = statistics.median(times_ms(solver.solve, deals))
    lines = [
        f"{machine}; `python benchmarks/solver_speed.py --positions {args.positions} --games {args.games}`, "
        f"{args.variant}, compiled core: {'yes' if solver.core_available() else 'no'}:",
        "\n| figure | ours | peer (same run) |\n|---|---:|---|",
        f"| solver: phase-2 position, {rules.hand_size} cards each (median) | {ours:.3f} ms | "
        f"pure-Python alpha-beta {python:.3f} ms |",
        f"| solver: full deal from the first lead (median) | {full:.2f} ms | |",
        f"| PIMC(40) decision, {len(pimc)} decisions | {statistics.median(pimc):.1f} ms median "
        f"(mean {statistics.fmean(pimc):.0f} ms, p90 {p90:.0f} ms) | |",
    ]
    publish("solver_speed", "\n".join(lines), args.write_docs)


if __name__ == "__main__":
    main()
