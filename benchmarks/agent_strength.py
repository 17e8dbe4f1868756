"""Strength of the agents: a round robin with ratings, the targeted pairs, and time per decision.

All on duplicate deals: (1) round robin, ``--games`` per pair, Wilson 95% win rates, game points per
game and Bradley-Terry ratings (:func:`agents.evaluation.arena.round_robin`); (2) the pairs of :data:`TARGETS`
(``--target-games`` each, seed stream ``"targets"``; ``--no-targets`` skips them); (3) ms per
decision (median, p90, mean, one core) on every decision of ``--timing-games``
heuristic-vs-heuristic games. Agents whose module or checkpoint is missing are listed as not run.

    python benchmarks/agent_strength.py [--agents SPEC ...] [--games 200] [--target-games 2000]
        [--timing-games 30] [--seed 7] [--workers 2] [--write-docs]"""

from __future__ import annotations

import importlib.util
import random
import statistics
import time

from _common import ROOT, count, even, machine_description, parse_args, parser, positive, publish
from solver_speed import times_ms

from agents import make_agent, parse_spec
from agents.evaluation.arena import play_pair, round_robin
from agents.players.heuristic import HeuristicAgent
from schnapsen_env.cli_io import one_line
from schnapsen_env.engine import GameState
from schnapsen_env.rules import Rules
from schnapsen_env.seeding import derive_seed

#: the round robin's agents by default (those not installed are listed as not run)
DEFAULT_AGENTS = [
    "random",
    "heuristic",
    "expert",
    "pimc:samples=40",
    "pimc-om",
    "ppo",
    "ppo-strong",
]
#: (agent A, agent B, variant, target win rate of A) of the issues
TARGETS = [
    ("heuristic", "random", "schnapsen", 0.80),
    ("ppo", "random", "schnapsen", 0.90),
    ("pimc:samples=40", "heuristic", "schnapsen", 0.65),
    ("expert", "heuristic", "schnapsen", 0.60),
    ("pimc-om", "pimc:samples=40", "schnapsen", 0.60),
    ("ppo-strong", "pimc:samples=40", "schnapsen", 0.55),
    ("ppo-strong", "pimc-om", "schnapsen", 0.50),
    ("pimc:samples=40", "vu:rdeep", "vu-course", 0.60),
]
#: the optional module an agent name needs
MODULES = {"vu": "schnapsen", "ppo": "torch", "ppo-strong": "torch", "rllib": "ray"}


def missing(spec: str) -> str | None:
    """Why ``spec`` cannot be run here (a missing module or checkpoint), or None."""
    name, _, rest = spec.partition(":")
    if name in MODULES and importlib.util.find_spec(MODULES[name]) is None:
        return f"{MODULES[name]} not installed"
    # ppo:PATH or ppo:path=PATH
    path = parse_spec(spec)[1].get("path") if name == "ppo" and rest else None
    return f"{path} not found" if path is not None and not (ROOT / str(path)).exists() else None


def timing_positions(rules: Rules, games: int, seed: int) -> list:
    """The information sets of every decision of ``games`` seeded games of heuristic against
    heuristic."""
    player = HeuristicAgent()
    rng = random.Random(derive_seed(seed, "timing"))
    positions = []
    for _ in range(games):
        state = GameState.from_seed(rules, rng.randrange(2**32))
        while not state.is_terminal:
            positions.append(state.information_set(state.current_player))
            state.apply(player.act(positions[-1]))
    return positions


def pair_line(r, target: float | None = None) -> str:
    lo, hi = r.win_rate_ci
    (alo, ahi), (blo, bhi) = r.game_points_ci
    ma, mb = r.mean_game_points
    met = [] if target is None else [f"{target:.0%}", "yes" if r.win_rate >= target else "no"]
    cells = [*r.agents, r.variant, str(r.games), f"{r.win_rate:.1%} [{lo:.1%}, {hi:.1%}]", *met]
    return "| " + " | ".join([*cells, f"{ma:.2f} [{alo:.2f}, {ahi:.2f}]", f"{mb:.2f} [{blo:.2f}, {bhi:.2f}]"]) + " |"


def run(args) -> str:
    lines = [
        f"{machine_description()}, {args.workers} worker(s). Duplicate deals; win rate with Wilson 95% interval; "
        "game points won per game (95% Wilson score interval of a mean bounded by 0..3).",
    ]
    agents = [s for s in args.agents if missing(s) is None]
    rules = Rules.preset("schnapsen")
    header = "| agent A | agent B | variant | games | A win rate [95% CI] |{} A pts/game | B pts/game |"
    if len(agents) >= 2:
        lines += [
            "",
            f"**Round robin**, {args.games} games per pair, seed {args.seed}:",
            "",
            header.format(""),
        ]
        lines.append("|---|---|---|---:|---|---|---|")
        t = time.perf_counter()
        report = round_robin(
            agents,
            args.games,
            args.seed,
            rules=rules,
            workers=args.workers,
            progress=not args.no_progress,
            variant="schnapsen",
        )
        lines += [pair_line(r) for r in report["_results"]]
        lines += [
            "",
            f"Wall time {(time.perf_counter() - t) / 60:.1f} min for the {len(report['_results'])} pairs.",
        ]
        lines += [
            "",
            f"Ratings ({report['rating_model']}):",
            "",
            "| agent | Elo [95% CI] | games |",
            "|---|---|---:|",
        ]
        for name, r in sorted(report["ratings"].items(), key=lambda kv: -kv[1]["elo"]):
            lines.append(f"| {name} | {r['elo']:+.0f} [{r['low']:+.0f}, {r['high']:+.0f}] | {r['games']} |")
    if len(agents) < len(args.agents):
        lines += [
            "",
            "Not run: " + ", ".join(f"{s} ({missing(s)})" for s in args.agents if s not in agents) + ".",
        ]
    if not args.no_targets:
        seed = derive_seed(args.seed, "targets")
        lines += ["", f"**Targets**, {args.target_games} games per pair, seed {seed}:", ""]
        lines += [header.format(" target | met |"), "|---|---|---|---:|---|---:|:-:|---|---|"]
        for a, b, variant, target in TARGETS:
            why = missing(a) or missing(b)
            if why:
                lines.append(f"| {a} | {b} | {variant} | - | not run ({why}) | {target:.0%} | - | - | - |")
                continue
            result = play_pair(
                a,
                b,
                args.target_games,
                seed,
                rules=Rules.preset(variant),
                workers=args.workers,
                progress=not args.no_progress,
                variant=variant,
            )
            lines.append(pair_line(result, target))
            print(lines[-1], flush=True)
    if args.timing_games:
        positions = timing_positions(rules, args.timing_games, args.seed)
        what = f"{len(positions)} decisions of {args.timing_games} heuristic-vs-heuristic games, forced moves included"
        lines += [
            "",
            f"**Time per decision** (ms, one core, the {what}):",
            "",
            "| agent | median | p90 | mean |",
        ]
        lines.append("|---|---:|---:|---:|")
        for spec in agents:
            ms = times_ms(make_agent(spec, seed=args.seed).act, positions)
            p90 = statistics.quantiles(ms, n=10)[-1]
            lines.append(f"| {spec} | {statistics.median(ms):.3f} | {p90:.3f} | {statistics.fmean(ms):.3f} |")
    return "\n".join(lines)


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument(
        "--agents",
        nargs="+",
        default=DEFAULT_AGENTS,
        metavar="SPEC",
        help="round-robin agents",
    )
    ap.add_argument("--games", type=even, default=200, help="games per round-robin pair (even)")
    ap.add_argument(
        "--target-games",
        type=even,
        default=2000,
        help="games per targeted pair (even)",
    )
    ap.add_argument("--no-targets", action="store_true", help="skip the targeted pairs")
    ap.add_argument(
        "--timing-games",
        type=count,
        default=30,
        help="games whose decisions are timed (0: none)",
    )
    ap.add_argument("--seed", type=count, default=7)
    ap.add_argument("--workers", type=positive, default=2)
    ap.add_argument("--no-progress", action="store_true")
    args = parse_args(ap, seed=None)
    for spec in args.agents:
        try:
            if missing(spec) is None:
                make_agent(spec)
        except (ValueError, ImportError, OSError) as e:
            ap.error(f"--agents: {one_line(e)}")
    publish("agent_strength", run(args), args.write_docs)


if __name__ == "__main__":
    main()
