"""Arena on Ray: the same results as a local run, and the wall time with 1 and 2 Ray workers.

Plays ``--games`` games between two agents (duplicate deals) locally (``agents.arena.play_pair``,
one process), then as Ray tasks (``play_pair(..., ray=True)``, what ``python -m agents.arena --ray``
does) on a local Ray started with 1 and with 2 CPUs (``ray.init(num_cpus=N)``: N tasks at a time).
Checks that every Ray result equals the local one (summary and every game record) and prints the
wall times. Ray's start and its first worker processes are warmed up before the clock runs (a small
pair is played first).

    python benchmarks/arena_ray.py [--agents heuristic pimc:samples=8] [--games 120] [--workers 1 2]

Needs the ``[rllib]`` extra (Ray). Exit 1 when a Ray result differs from the local one.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time

from _common import count, even, machine_description, positive


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--agents",
        nargs=2,
        default=["heuristic", "pimc:samples=8"],
        metavar="SPEC",
        help="the two agent specs (default heuristic pimc:samples=8)",
    )
    ap.add_argument("--games", type=even, default=120, help="games (even; default 120)")
    ap.add_argument("--seed", type=count, default=0)
    ap.add_argument("--workers", type=positive, nargs="+", default=[1, 2], help="Ray CPUs to compare (default 1 2)")
    args = ap.parse_args(argv)
    try:
        import ray
    except ImportError:
        ap.error('needs Ray: pip install "schnapsen-env[rllib]"')
    from agents.arena import play_pair

    a, b = args.agents
    print(
        f"{a} vs {b}, {args.games} games (duplicate deals), seed {args.seed}; Ray {ray.__version__}; "
        f"{machine_description()}"
    )
    t = time.perf_counter()
    local = play_pair(a, b, games=args.games, seed=args.seed)
    local_s = time.perf_counter() - t
    print(f"{'run':<22} {'wall s':>8} {'games/s':>8}  same as local")
    print(f"{'local, 1 process':<22} {local_s:>8.2f} {args.games / local_s:>8.1f}  -")
    ok = True
    times = {}
    for n in args.workers:
        ray.init(num_cpus=n, include_dashboard=False, logging_level=logging.ERROR)
        try:
            play_pair(a, b, games=2 * n, seed=args.seed + 1, ray=True)  # warm-up: start the worker processes
            t = time.perf_counter()
            remote = play_pair(a, b, games=args.games, seed=args.seed, ray=True)
            times[n] = time.perf_counter() - t
        finally:
            ray.shutdown()
        same = remote.to_dict() == local.to_dict() and remote.records == local.records
        ok &= same
        print(f"{f'Ray, {n} worker(s)':<22} {times[n]:>8.2f} {args.games / times[n]:>8.1f}  {'yes' if same else 'NO'}")
    if len(times) > 1:
        lo, hi = min(times), max(times)
        print(f"speed-up {hi} vs {lo} worker(s): {times[lo] / times[hi]:.2f}x")
    if not ok:
        print("a Ray run gave other results than the local run", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
