"""Search agents against PIMC(40) and against PIMC given the same time (docs/benchmarks.md, the search tables).

    python benchmarks/search_strength.py [--arms SPEC ...] [--games 200] [--timing-games 10]
        [--no-equal-time | --equal-time-games N] [--vs SPEC ...] [--workers 2] [--seed 34999]
        [--write-docs [--block NAME]]

Per arm (an agent spec): (1) ms per talon-open decision (median and mean; the talon neither exhausted nor
closed, more than one legal action), on one core, over every such decision of the arm in ``--timing-games``
games against ``pimc:samples=40``; PIMC(40)'s own time is measured on the same states; (2) its win rate
against ``pimc:samples=40`` on ``--games`` duplicate deals (Wilson 95% interval); (3) against PIMC given
equal time: ``pimc:samples=N``, ``N`` = 40 times the ratio of the two mean times (at least 40: the total time
per game, which the few long decisions dominate, matched rather than the typical decision's); (4) on the
timing states, how often its action differs from PIMC(40)'s, by decision kind: leads, follows, and the
states where a close, a trump exchange or a marriage is legal; (5) per ``--vs`` opponent, its win rate against
it on the same deals. ``--block`` names the docs block written (default ``search_strength``; networks distilled
from the search: ``exit_strength``). The seed (default 34999) is used for
nothing else: the arms' options were tuned on seed 34001.
"""

from __future__ import annotations

import shlex
import statistics
import sys
import time

from _common import even, machine_description, parse_args, parser, positive, publish

from agents import make_agent
from agents.evaluation.arena import play_pair
from schnapsen_env.actions import CLOSE, EXCHANGE, MARRIAGE_BASE
from schnapsen_env.engine import GameState
from schnapsen_env.rules import Rules
from schnapsen_env.seeding import derive_seed

#: the opponent of every arm
PIMC40 = "pimc:samples=40"
#: arms by default: the SO-ISMCTS settings measured for issue 34
DEFAULT_ARMS = ["search", "search:iterations=2000", "search:expand=one,iterations=2000", "pimc-om"]
#: decision kinds of the difference column, in table order
KINDS = ("lead", "follow", "close", "exchange", "marriage")


def kinds_of(info) -> list:
    """The kinds (:data:`KINDS`) of a decision: lead or follow, and each special action legal in it."""
    legal = info.legal_actions
    out = ["lead" if info.lead_card < 0 else "follow"]
    out += ["close"] * (CLOSE in legal) + ["exchange"] * (EXCHANGE in legal)
    return out + ["marriage"] * any(MARRIAGE_BASE <= a < EXCHANGE for a in legal)


def timing(spec: str, games: int, seed: int) -> dict:
    """Median/mean ms of ``spec`` and of PIMC(40) on the arm's talon-open decisions, and per kind the
    ``[differing, decisions]`` counts, over ``games`` games of ``spec`` against PIMC(40)."""
    arm, pimc, opponent = make_agent(spec, seed), make_agent(PIMC40, seed + 1), make_agent(PIMC40, seed + 2)
    ms, pimc_ms, differ = [], [], {k: [0, 0] for k in KINDS}
    for g in range(games):
        state, mine = GameState.from_seed(Rules(), derive_seed(seed, "timing", g)), g % 2
        while not state.is_terminal:
            info = state.information_set(state.current_player)
            if state.current_player != mine:
                state.apply(opponent.act(info))
                continue
            t = time.perf_counter()
            action = arm.act(info)
            spent = time.perf_counter() - t
            if info.trump_card >= 0 and info.closed_by < 0 and len(info.legal_actions) > 1:
                t = time.perf_counter()
                reference = pimc.act(info)
                pimc_ms.append(1000 * (time.perf_counter() - t))
                ms.append(1000 * spent)
                for k in kinds_of(info):
                    differ[k][0] += action != reference
                    differ[k][1] += 1
            state.apply(action)
    times = {
        "median": statistics.median(ms),
        "mean": statistics.mean(ms),
        "pimc_median": statistics.median(pimc_ms),
        "pimc_mean": statistics.mean(pimc_ms),
    }
    return times, differ


def main(argv=None) -> int:
    ap = parser(__doc__)
    ap.add_argument("--arms", nargs="+", default=DEFAULT_ARMS, help="agent specs")
    ap.add_argument("--games", type=even, default=200, help="duplicate games per pair")
    ap.add_argument("--timing-games", type=positive, default=10)
    ap.add_argument("--no-equal-time", action="store_true", help="skip the games against PIMC given equal time")
    ap.add_argument("--equal-time-games", type=even, help="duplicate games against PIMC(N) (default: --games)")
    ap.add_argument("--vs", nargs="*", default=[], metavar="SPEC", help="more opponents, a column each")
    ap.add_argument("--workers", type=positive, default=2)
    ap.add_argument("--block", default="search_strength", help="the docs/benchmarks.md block --write-docs replaces")
    args = parse_args(ap, argv, seed=34999)
    command = shlex.join(["python", "benchmarks/search_strength.py", *(sys.argv[1:] if argv is None else argv)])
    header = f"{machine_description()}; `{command}`:"
    rows = [
        "| agent | vs PIMC(40) | equal-time PIMC(N) | vs PIMC(N) | ms per talon-open decision, median (mean) "
        f"| PIMC(40) ms, same states, median (mean) | differs from PIMC(40): {' / '.join(KINDS)} |"
        + "".join(f" vs {spec} |" for spec in args.vs),
        "|---|---|---|---|---:|---:|---|" + "---|" * len(args.vs),
    ]
    for i, spec in enumerate(args.arms):
        times, differ = timing(spec, args.timing_games, derive_seed(args.seed, "arm", i))
        print(f"{spec}: {times}", flush=True)
        r = play_pair(spec, PIMC40, args.games, args.seed, workers=args.workers, pair_index=i, progress=True)
        cells = [spec, _rate(r), "", ""]
        n = max(40, round(40 * times["mean"] / times["pimc_mean"]))
        if not args.no_equal_time:
            games, pimc_n = args.equal_time_games or args.games, f"pimc:samples={n}"
            eq = play_pair(spec, pimc_n, games, args.seed, workers=args.workers, pair_index=i, progress=True)
            cells[2:] = [f"N = {n}", _rate(eq)]
        cells += [f"{_ms(times['median'])} ({_ms(times['mean'])})"]
        cells.append(f"{_ms(times['pimc_median'])} ({_ms(times['pimc_mean'])})")
        cells.append(" / ".join(f"{d}/{t}" for d, t in differ.values()))
        for vs in args.vs:
            cells.append(_rate(play_pair(spec, vs, args.games, args.seed, workers=args.workers, pair_index=i)))
        rows.append("| " + " | ".join(cells) + " |")
        print(rows[-1], flush=True)
    publish(args.block, "\n".join([header, "", *rows]), args.write_docs)
    return 0


def _ms(ms: float) -> str:
    """Milliseconds: whole ones from 10, two significant digits below (a network's decision: 0.2 ms)."""
    return f"{ms:,.0f}" if ms >= 10 else f"{ms:.2g}"


def _rate(r) -> str:
    """``win rate [low, high] (games)`` of a :class:`~agents.evaluation.arena.PairResult`."""
    lo, hi = r.win_rate_ci
    return f"{100 * r.win_rate:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] ({r.games})"


if __name__ == "__main__":
    raise SystemExit(main())
