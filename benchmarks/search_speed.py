"""Iterations per second of the compiled and the Python SO-ISMCTS loop (agents/search.py), and their agreement.

    python benchmarks/search_speed.py [--games 4] [--iterations 1000] [--rollout-iterations N] [--seed 44000]
                                      [--write-docs]

The states: every talon-open decision (the talon neither exhausted nor closed, more than one legal action) of
``--games`` seeded games of ``pimc:samples=40`` against itself. On each state four searches from the same seed
with ``--iterations`` iterations and the default options, one after the other in an order rotated per state (so
a change of the machine's load falls on all), in one process: the compiled loop, the Python loop, the compiled
loop stopped once the best root action cannot change (``until_decided``, as ``act`` runs it), and the compiled
loop with ``leaf="rollout"`` (the cheaper leaves; ``--rollout-iterations``, default ``--iterations``), in full
and stopped when decided. The rate
is root visits over wall seconds of ``root_edges`` (the worlds drawn included: in C by the compiled loops, in
Python by the Python loop). Agreement: the states
where the two full searches give the same root visit counts and rewards, and each search's move against the
Python one's. Prints the date, machine and load average at start and end."""

from __future__ import annotations

import os
import shlex
import sys
import time
from typing import NamedTuple

from _common import machine_description, parse_args, parser, positive, publish

from agents import make_agent, solver
from agents.search import SearchAgent, most_visited
from schnapsen_env.engine import GameState
from schnapsen_env.rules import Rules
from schnapsen_env.seeding import derive_seed

#: the agent that plays the games the states come from
PLAYER = "pimc:samples=40"


class Loop(NamedTuple):
    """One search timed: SearchAgent's ``core`` and ``leaf`` options, and ``root_edges``' ``until_decided``."""

    core: bool
    until_decided: bool
    leaf: str


#: the searches timed, by name; "compiled, stopped when decided" is what ``act`` runs
LOOPS = {
    "compiled": Loop(core=True, until_decided=False, leaf="exact"),
    "python": Loop(core=False, until_decided=False, leaf="exact"),
    "compiled, stopped when decided": Loop(core=True, until_decided=True, leaf="exact"),
    "compiled, rollout leaves": Loop(core=True, until_decided=False, leaf="rollout"),
    "compiled, rollout leaves, stopped when decided": Loop(core=True, until_decided=True, leaf="rollout"),
}


def talon_open_states(games: int, seed: int) -> list:
    """Every talon-open decision's information set in ``games`` seeded games of :data:`PLAYER` against itself."""
    out = []
    for game in range(games):
        players = [make_agent(PLAYER, derive_seed(seed, "player", game, side)) for side in (0, 1)]
        state = GameState.from_seed(Rules(), derive_seed(seed, "deal", game))
        while not state.is_terminal:
            info = state.information_set(state.current_player)
            if info.trump_card >= 0 and info.closed_by < 0 and len(info.legal_actions) > 1:
                out.append(info)
            state.apply(players[state.current_player].act(info))
    return out


def main(argv=None) -> int:
    ap = parser(__doc__)
    ap.add_argument("--games", type=positive, default=4, help="seeded games whose talon-open decisions are searched")
    ap.add_argument("--iterations", type=positive, default=1000, help="iterations per search")
    ap.add_argument(
        "--rollout-iterations", type=positive, help="iterations per search with rollout leaves (default: --iterations)"
    )
    args = parse_args(ap, argv, seed=44000)
    if not solver.core_available():
        print("agents._solver_core is not built: nothing to compare (pip install -e .)", file=sys.stderr)
        return 2
    command = shlex.join(["python", "benchmarks/search_speed.py", *(sys.argv[1:] if argv is None else argv)])
    machine = machine_description()
    rollout_iterations = args.rollout_iterations or args.iterations
    states = talon_open_states(args.games, args.seed)
    seconds = dict.fromkeys(LOOPS, 0.0)
    iterations = dict.fromkeys(LOOPS, 0)
    same_counts = 0
    same_move = dict.fromkeys(LOOPS, 0)
    for index, info in enumerate(states):
        order = list(LOOPS)[index % len(LOOPS) :] + list(LOOPS)[: index % len(LOOPS)]  # rotated per state
        edges = {}
        for loop in order:
            timed = LOOPS[loop]
            agent = SearchAgent(
                iterations=args.iterations if timed.leaf == "exact" else rollout_iterations,
                seed=derive_seed(args.seed, "search", index),
                core=timed.core,
                leaf=timed.leaf,
            )
            start = time.perf_counter()
            edges[loop] = agent.root_edges(info, until_decided=timed.until_decided)
            seconds[loop] += time.perf_counter() - start
            iterations[loop] += sum(edge.visits for edge in edges[loop].values())
        rows = {loop: [(a, e.visits, e.reward) for a, e in found.items()] for loop, found in edges.items()}
        same_counts += rows["compiled"] == rows["python"]
        for loop in LOOPS:
            same_move[loop] += most_visited(edges[loop]) == most_visited(edges["python"])
    load_end = f"{os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else "unknown"
    decisions = len(states)
    rate = {loop: iterations[loop] / spent for loop, spent in seconds.items()}
    lines = [
        f"{machine}; load average {load_end} at end; `{command}`:",
        "",
        "| search | iterations/s | iterations per decision (mean) | ms per decision (mean) | same move as Python |",
        "|---|---:|---:|---:|---:|",
        *(
            f"| {loop} | {rate[loop]:,.0f} | {iterations[loop] / decisions:,.0f} "
            f"| {1000 * seconds[loop] / decisions:,.0f} | {same_move[loop]} of {decisions} |"
            for loop in LOOPS
        ),
        "",
        f"Compiled / Python: {rate['compiled'] / rate['python']:.2f}x the iterations/s on {decisions} talon-open "
        f"decisions of {args.games} games, {args.iterations} iterations each (root visits: the first iteration "
        f"visits every root action); same root visit counts and rewards in {same_counts} of {decisions}. Time per "
        f"decision, the compiled search stopped when decided (as `act` runs it) / the Python search: "
        f"{seconds['compiled, stopped when decided'] / seconds['python']:.2f}. Rollout leaves / exact leaves "
        f"(compiled): {rate['compiled, rollout leaves'] / rate['compiled']:.1f}x the iterations/s; time per "
        f"decision stopped when decided, rollout ({rollout_iterations} iterations) / exact: "
        f"{seconds['compiled, rollout leaves, stopped when decided'] / seconds['compiled, stopped when decided']:.2f}.",
    ]
    publish("search_speed", "\n".join(lines), args.write_docs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
