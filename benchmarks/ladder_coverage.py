"""The ladder interval's coverage: simulated ladders of known true ratings, fitted as a real run is.

For each true rating (inside and outside the rungs' span) and games per rung, ``--replicates`` ladders are
simulated by :func:`agents.evaluation.ladder.interval_coverage` (the rungs' true ratings drawn around their fixed ones
from the calibration's covariance, independent games from the Elo model) and the share whose 95% interval
holds the true rating is printed with its Wilson interval. With ``--write-docs`` the table replaces the
``ladder_coverage`` block of docs/ladder.md.

    python benchmarks/ladder_coverage.py [--replicates 3000] [--seed 0] [--write-docs]"""

from __future__ import annotations

import time

from _common import ROOT, machine_description, parse_args, parser, positive, publish

from agents.evaluation.ladder import LATEST, interval_coverage
from agents.evaluation.stats import wilson_interval

#: true ratings simulated: below the rungs' span (random = 0), inside it, above it (the top rung: 428.9), and far
#: above it, where a perfect record is common at 20 games per rung
TRUE_RATINGS = (-150.0, 150.0, 350.0, 700.0, 1200.0)
#: games per rung simulated: the documented quick check and the default
GAMES = (20, 400)


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--replicates", type=positive, default=3000, help="simulated ladders per case")
    ap.add_argument("--version", type=positive, default=LATEST, help="ladder version")
    args = parse_args(ap)
    machine = machine_description()
    start = time.perf_counter()
    lines = [
        "| true rating | games per rung | covered by the 95% interval [95% Wilson] |",
        "|---|---|---|",
    ]
    for games in GAMES:
        for true_rating in TRUE_RATINGS:
            share = interval_coverage(true_rating, games, args.replicates, args.seed, args.version)
            covered = round(share * args.replicates)
            low, high = wilson_interval(covered, args.replicates)
            lines.append(f"| {true_rating:.0f} | {games} | {share:.1%} [{low:.1%}, {high:.1%}] |")
            print(lines[-1], flush=True)
    minutes = (time.perf_counter() - start) / 60
    head = (
        f"{machine}; ladder v{args.version}, {args.replicates:,} simulated ladders per case, seed {args.seed}, "
        f"{minutes:.1f} min: `python benchmarks/ladder_coverage.py --replicates {args.replicates} --seed {args.seed}`"
    )
    publish("ladder_coverage", "\n".join([head, "", *lines]), args.write_docs, ROOT / "docs" / "ladder.md")


if __name__ == "__main__":
    main()
