"""What a training option buys: PPO alone and each ``--arm`` (a label and its config overrides), each trained
from configs/default.yaml for the same wall time, then evaluated on the same deals.

    python benchmarks/ablation.py [--minutes 25] [--arm "LABEL: key=value ..."] ... [--write-docs] [key=value ...]

The arms run at the same time (one process each, ``seeding.torch_threads`` 1), so they share the
machine equally; each stops at its ``run.time_budget_min`` and plays the final evaluation
(``eval.final_games`` duplicate games against ``eval.opponents``, the run's own evaluation seed:
deals no arm trained on). An arm whose run directory already holds ``eval.json`` is not trained
again (delete the directory to rerun it)."""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys

from _common import ROOT, add_docs_flag, machine_description, positive, publish

#: the arm every ablation compares against: configs/default.yaml as it is
BASELINE = "PPO alone"


def parse_arm(text: str) -> tuple[str, list[str]]:
    """``"LABEL: key=value ..."`` -> ``(LABEL, [key=value, ...])`` (argparse type of ``--arm``)."""
    label, sep, overrides = text.partition(":")
    if not sep or not label.strip() or not overrides.split():
        raise argparse.ArgumentTypeError(f"{text!r}: expected 'LABEL: key=value ...'")
    return label.strip(), overrides.split()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--minutes",
        type=positive,
        default=25,
        help="wall-time budget of each arm (default 25)",
    )
    ap.add_argument(
        "--runs-dir",
        default=str(ROOT / "runs" / "ablation"),
        help="where the arms' runs go",
    )
    ap.add_argument(
        "--arm",
        type=parse_arm,
        action="append",
        default=[],
        help='an arm: "LABEL: key=value ..."',
    )
    add_docs_flag(ap)
    ap.add_argument(
        "overrides",
        nargs="*",
        help="config overrides for every arm, e.g. eval.final_games=1000",
    )
    args = ap.parse_args(argv)
    machine = machine_description()
    arms = {BASELINE: [], **dict(args.arm)}
    dirs = {arm: f"{args.runs_dir}/arm{k}" for k, arm in enumerate(arms)}
    train = [
        sys.executable,
        str(ROOT / "train.py"),
        "--config",
        str(ROOT / "configs" / "default.yaml"),
    ]
    budget = [f"run.time_budget_min={args.minutes}", "run.progress=false"]
    procs = [
        subprocess.Popen(
            [*train, "--run-dir", d, *budget, *arms[arm], *args.overrides],
            stdout=subprocess.DEVNULL,
        )
        for arm, d in dirs.items()
        if not (ROOT / d / "eval.json").exists()
    ]
    if any(p.wait() for p in procs):
        print("an arm failed: see its run directory", file=sys.stderr)
        return 1
    evals = {arm: json.loads((ROOT / d / "eval.json").read_text()) for arm, d in dirs.items()}
    opponents = list(next(iter(evals.values())))
    lines = [
        f"{machine}; `python benchmarks/ablation.py {' '.join(argv if argv is not None else sys.argv[1:])}`, "
        "the arms side by side, each with its own `run.time_budget_min`:\n",
        "| arm | updates | learner decisions | " + " | ".join(f"vs {o}" for o in opponents) + " |",
        "|---|---:|---:|" + "---|" * len(opponents),
    ]
    for arm, d in dirs.items():
        with open(ROOT / d / "progress.csv", newline="") as f:
            last = list(csv.DictReader(f))[-1]
        results = [(evals[arm][o], *evals[arm][o]["win_rate_ci"]) for o in opponents]
        cells = [f"{r['win_rate']:.1%} [{lo:.1%}, {hi:.1%}] of {r['games']:,}" for r, lo, hi in results]
        lines.append(f"| {arm} | {last['update']} | {int(last['learner_steps']):,} | " + " | ".join(cells) + " |")
    publish("ablation", "\n".join(lines), args.write_docs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
