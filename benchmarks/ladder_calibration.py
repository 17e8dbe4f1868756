"""Calibrate a ladder version: a round robin of its rungs, their fixed ratings written as package data.

The rungs play every pair on duplicate deals (``--games`` per pair, at least 2,000 for a published
version); their Bradley-Terry ratings (:func:`agents.stats.bradley_terry_ratings`, Elo scale) are shifted
so that ``random`` is 0 and written with each rung's deal seed to ``agents/ladder_vN.json``, which
``python -m agents.ladder`` reads (it rebuilds the rungs' covariance from ``games_per_pair``:
:func:`agents.ladder.rung_covariance`). The file also records the run's provenance
(:func:`agents.provenance.run_provenance`). Changing a rung, a deal seed or the games is a new version.

    python benchmarks/ladder_calibration.py [--version 1] [--games 2000] [--workers 2] [--out runs/calibration]"""

from __future__ import annotations

import json
import shlex
import sys

from _common import ROOT, even, machine_description, parser, positive

from agents.arena import round_robin, write_outputs
from agents.provenance import run_provenance

#: the rungs of ladder v1, each with the seed of the deals a laddered agent plays against it
RUNGS_V1 = [
    ("random", 101),
    ("heuristic", 102),
    ("expert", 103),
    ("pimc:samples=40", 104),
    ("ppo", 105),
    ("ppo-strong", 106),
]
#: the round robin's seed (its deals are not the ladder's: rung seeds 101..106)
CALIBRATION_SEED = 20261203


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--version", type=positive, default=1)
    ap.add_argument("--games", type=even, default=2000, help="games per pair")
    ap.add_argument("--workers", type=positive, default=2)
    ap.add_argument("--out", default="runs/ladder_calibration", help="directory for the round robin's results")
    args = ap.parse_args()
    report = round_robin([s for s, _ in RUNGS_V1], args.games, CALIBRATION_SEED, workers=args.workers, progress=True)
    write_outputs(report, args.out)
    ratings = report["ratings"]
    base = ratings["random"]["elo"]
    shifted = {"rating": "elo", "calibration_low": "low", "calibration_high": "high"}  # key written: rating field
    model = report["rating_model"] + "; shifted so that random = 0"
    calibration = dict(
        games_per_pair=args.games,
        seed=CALIBRATION_SEED,
        rating_model=model,
        measured=machine_description(),
        provenance=run_provenance(command=shlex.join(["python", *sys.argv])),
    )
    rungs = [
        {"opponent": spec, "seed": seed, **{k: round(ratings[spec][f] - base, 1) for k, f in shifted.items()}}
        for spec, seed in RUNGS_V1
    ]
    data = {"ladder_version": args.version, "calibration": calibration, "rungs": rungs}
    path = ROOT / "agents" / f"ladder_v{args.version}.json"
    path.write_text(json.dumps(data, indent=2) + "\n")
    print(f"{json.dumps(data, indent=2)}\nwrote {path}")


if __name__ == "__main__":
    main()
