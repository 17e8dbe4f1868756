"""Speed of solver labelling (agents/evaluation/labels.py): labelled states/s, and the naive labelling as the peer.

Ours: ``agents.evaluation.labels.generate`` (every decision state of heuristic/random games with 15% random
moves, one transposition table per deal) with ``--workers`` processes, wall time including the
pool's start, and per CPU-second of all processes (a figure the machine's other load does not
lower). Peer, in the same run, on all states of the first ``--peer-games`` deals, one process: the
naive labelling (per legal action: clone, apply, ``solver.solve`` of the child, a new table each
time), against ours in one process on the same states (the values are checked equal).

    python benchmarks/label_speed.py [--games 2000] [--workers 2] [--peer-games 100] [--seed 0] [--write-docs]"""

from __future__ import annotations

import resource
import time

from _common import machine_description, parse_args, parser, positive, publish

from agents.evaluation import labels
from agents.players import solver
from schnapsen_env.rules import Rules

AGENTS = ("heuristic", "random")
EXPLORE = 0.15


def naive_values(state) -> dict:
    """Each legal action's game points by a fresh :func:`agents.players.solver.solve` of the
    child."""
    values = {}
    for a in state.legal_actions():
        child = state.clone()
        child.apply(a)
        if child.is_terminal:
            o = child.outcome
            values[a] = o.game_points if o.winner == state.current_player else -o.game_points
        else:
            v = solver.solve(child).value
            values[a] = v if child.current_player == state.current_player else -v
    return values


def cpu_seconds() -> float:
    """CPU seconds (user + system) of this process and its finished children (the pool's
    workers)."""
    own, kids = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def rate(fn, states) -> tuple[float, list]:
    t0 = time.perf_counter()
    out = [fn(s) for s in states]
    return len(states) / (time.perf_counter() - t0), out


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--games", type=positive, default=2000, help="games labelled by the workers")
    ap.add_argument("--workers", type=positive, default=2)
    ap.add_argument(
        "--peer-games",
        type=positive,
        default=100,
        help="games whose states the peer labels",
    )
    args = parse_args(ap)
    machine = machine_description()
    t0, cpu0 = time.perf_counter(), cpu_seconds()
    n = len(labels.generate(args.games, AGENTS, EXPLORE, seed=args.seed, workers=args.workers)["deal"])
    ours, per_cpu = n / (time.perf_counter() - t0), n / (cpu_seconds() - cpu0)
    rules = Rules()
    deals = (labels.deal_states(d, args.seed, AGENTS, EXPLORE, 1.0, rules) for d in range(args.peer_games))
    # (each deal's live state, copied as it is reached)
    states = [s.clone() for deal in deals for s in deal]
    one, shared = rate(solver.DealTable().action_values, states)
    naive, fresh = rate(naive_values, states)
    same = "equal" if shared == fresh else "DIFFERENT"
    lines = [
        f"{machine}; `python benchmarks/label_speed.py --games {args.games} --workers {args.workers} "
        f"--peer-games {args.peer_games}`, schnapsen, {'/'.join(AGENTS)} games with {EXPLORE:.0%} random moves, "
        f"every decision state labelled:",
        "\n| figure | ours | naive labelling (peer, same run) | ratio |\n|---|---:|---:|---:|",
        f"| labelled states/s, {args.workers} workers, {n:,} states of {args.games:,} games (wall) | {ours:,.0f} | | |",
        f"| the same per CPU-second of all processes (load-independent) | {per_cpu:,.0f} | | |",
        f"| labelled states/s, 1 process, {len(states):,} states of {args.peer_games} games (values {same}) "
        f"| {one:,.0f} | {naive:,.0f} | {one / naive:.1f}x |",
    ]
    publish("label_speed", "\n".join(lines), args.write_docs)


if __name__ == "__main__":
    main()
