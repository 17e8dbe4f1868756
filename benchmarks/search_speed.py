"""Iterations per second of the compiled search (agents/players/search.py, agents/players/csrc/search.c), beside
another checkout's.

    python benchmarks/search_speed.py [--games 4] [--iterations 1000] [--rollout-iterations N] [--seed 44000]
                                      [--baseline DIR] [--write-docs]

The states: every talon-open decision (the talon neither exhausted nor closed, more than one legal action) of
``--games`` seeded games of ``pimc:samples=40`` against itself. On each state four searches with the default
options, in an order rotated per state (so a change of the machine's load falls on all): exact leaves with
``--iterations`` iterations, in full and stopped once the best root action cannot change (``until_decided``, as
``act`` runs it), and rollout leaves (``--rollout-iterations``, default ``--iterations``), in full and stopped
when decided. The rate is root visits over wall seconds of ``root_edges`` (the worlds drawn included).

``--baseline DIR``: a checkout of another commit with its core built (``python setup.py build_ext --inplace``
there). A child process imports ``agents`` from DIR and times the same searches on the same states, each right
before or after this checkout's (alternating per state): the A/B of one interleaved run. Prints the date,
machine and load average at start and end."""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

from _common import machine_description, parse_args, parser, positive, publish

from agents import make_agent

try:
    from agents.players import solver
    from agents.players.search import SearchAgent
except ModuleNotFoundError:
    # the --baseline child in a checkout from before agents/players/ (issue 54)
    from agents import solver
    from agents.search import SearchAgent
from schnapsen_env.engine import GameState
from schnapsen_env.rules import Rules
from schnapsen_env.seeding import derive_seed

#: the agent that plays the games the states come from
PLAYER = "pimc:samples=40"
#: this file, run as the baseline's child with ``--serve``
HERE = Path(__file__).resolve()


class Loop(NamedTuple):
    """One search timed: SearchAgent's ``leaf`` option and ``root_edges``' ``until_decided``."""

    until_decided: bool
    leaf: str


#: the searches timed, by name; "stopped when decided" is what ``act`` runs
LOOPS = {
    "exact": Loop(until_decided=False, leaf="exact"),
    "exact, stopped when decided": Loop(until_decided=True, leaf="exact"),
    "rollout": Loop(until_decided=False, leaf="rollout"),
    "rollout, stopped when decided": Loop(until_decided=True, leaf="rollout"),
}


class Timing(NamedTuple):
    """One timed search."""

    seconds: float  #: wall seconds of ``root_edges``
    visits: int  #: root visits (the first iteration visits every root action under expand="all")


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


def time_search(info, loop: str, iterations: int, seed: int) -> Timing:
    """One search of :data:`LOOPS` ``loop`` from ``info``, timed (a baseline's ``root_edges`` may return the root
    edges as a dict)."""
    timed = LOOPS[loop]
    agent = SearchAgent(iterations=iterations, seed=seed, leaf=timed.leaf)
    start = time.perf_counter()
    edges = agent.root_edges(info, until_decided=timed.until_decided)
    seconds = time.perf_counter() - start
    rows = edges.values() if isinstance(edges, dict) else edges
    return Timing(seconds=seconds, visits=sum(edge.visits for edge in rows))


def serve(games: int, seed: int) -> None:
    """The baseline's side: the same states, then one timed search per request line ``STATE LOOP ITERATIONS
    SEED`` (the loop's index in :data:`LOOPS`), answered ``SECONDS VISITS``."""
    states = talon_open_states(games, seed)
    print(len(states), flush=True)
    loops = list(LOOPS)
    for line in sys.stdin:
        index, loop, iterations, search_seed = (int(word) for word in line.split())
        timing = time_search(states[index], loops[loop], iterations, search_seed)
        print(timing.seconds, timing.visits, flush=True)


class Baseline:
    """The child process that times the baseline checkout's searches (:func:`serve`)."""

    def __init__(self, checkout: Path, games: int, seed: int):
        environment = dict(os.environ, PYTHONPATH=str(checkout))
        command = [sys.executable, str(HERE), "--serve", "--games", str(games), "--seed", str(seed)]
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=environment
        )
        self.states = int(self.process.stdout.readline())

    def time_search(self, index: int, loop: str, iterations: int, seed: int) -> Timing:
        self.process.stdin.write(f"{index} {list(LOOPS).index(loop)} {iterations} {seed}\n")
        self.process.stdin.flush()
        seconds, visits = self.process.stdout.readline().split()
        return Timing(seconds=float(seconds), visits=int(visits))

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=60)


def main(argv=None) -> int:
    ap = parser(__doc__)
    ap.add_argument("--games", type=positive, default=4, help="seeded games whose talon-open decisions are searched")
    ap.add_argument("--iterations", type=positive, default=1000, help="iterations per search")
    ap.add_argument(
        "--rollout-iterations", type=positive, help="iterations per search with rollout leaves (default: --iterations)"
    )
    baseline_help = "a checkout of another commit, its core built: timed beside this"
    ap.add_argument("--baseline", type=Path, help=baseline_help)
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)  # the baseline's child
    args = parse_args(ap, argv, seed=44000)
    if args.serve:
        serve(args.games, args.seed)
        return 0
    if not solver.core_available():
        msg = "agents.players._solver_core is not built: nothing to time (pip install -e .)"
        print(msg, file=sys.stderr)
        return 2
    if args.baseline is not None and not (args.baseline / "agents").is_dir():
        print(f"--baseline {args.baseline}: not a checkout (no agents/ folder)", file=sys.stderr)
        return 2
    command = shlex.join(["python", "benchmarks/search_speed.py", *(sys.argv[1:] if argv is None else argv)])
    machine = machine_description()
    rollout_iterations = args.rollout_iterations or args.iterations
    iterations_of = {"exact": args.iterations, "rollout": rollout_iterations}
    states = talon_open_states(args.games, args.seed)
    sides = ["this"] if args.baseline is None else ["this", "baseline"]
    baseline = None if args.baseline is None else Baseline(args.baseline, args.games, args.seed)
    if baseline is not None and baseline.states != len(states):
        msg = f"the baseline plays other games ({baseline.states} states, here {len(states)})"
        print(msg, file=sys.stderr)
        return 2
    seconds = {(side, loop): 0.0 for side in sides for loop in LOOPS}
    visits = {(side, loop): 0 for side in sides for loop in LOOPS}
    try:
        for index, info in enumerate(states):
            # rotated per state
            turn = index % len(LOOPS)
            loops = list(LOOPS)[turn:] + list(LOOPS)[:turn]
            order = sides if index % 2 == 0 else sides[::-1]  # this checkout first on even states
            search_seed = derive_seed(args.seed, "search", index)
            for loop in loops:
                iterations = iterations_of[LOOPS[loop].leaf]
                for side in order:
                    if side == "this":
                        timing = time_search(info, loop, iterations, search_seed)
                    else:
                        timing = baseline.time_search(index, loop, iterations, search_seed)
                    seconds[side, loop] += timing.seconds
                    visits[side, loop] += timing.visits
    finally:
        if baseline is not None:
            baseline.close()
    load_end = f"{os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else "unknown"
    decisions = len(states)
    rate = {key: visits[key] / spent for key, spent in seconds.items()}
    head = "| search | iterations/s | ms per decision (mean) |"
    rule = "|---|---:|---:|"
    if baseline is not None:
        head += " baseline iterations/s | baseline ms per decision |"
        head += " iterations/s, this / baseline |"
        rule += "---:|---:|---:|"
    rows = []
    for loop in LOOPS:
        ms_per_decision = 1000 * seconds["this", loop] / decisions
        row = f"| {loop} | {rate['this', loop]:,.0f} | {ms_per_decision:,.0f} |"
        if baseline is not None:
            baseline_ms = 1000 * seconds["baseline", loop] / decisions
            row += (
                f" {rate['baseline', loop]:,.0f} | {baseline_ms:,.0f} "
                f"| {rate['this', loop] / rate['baseline', loop]:.2f} |"
            )
        rows.append(row)
    exact = iterations_of["exact"]
    rollout = iterations_of["rollout"]
    lines = [
        f"{machine}; load average {load_end} at end; `{command}`:",
        "",
        head,
        rule,
        *rows,
        "",
        f"{decisions} talon-open decisions of {args.games} games; exact leaves {exact} iterations, "
        f"rollout leaves {rollout} (root visits: the first iteration visits every root action).",
    ]
    publish("search_speed", "\n".join(lines), args.write_docs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
