"""A/B speed of the public surfaces at two commits, interleaved in one run.

    python benchmarks/ab_speed.py A_REV B_REV [--surfaces env,raw_env,gym,vector,vector_gym,train] [--repeats 3]
        [--seconds 3] [--updates 5]

Each revision (a commit, or ``WORKTREE`` for this working tree) is exported with ``git archive``
into a temporary directory; one child process per (surface, repeat, revision), A and B alternating,
imports ``schnapsen_env`` from that tree (``PYTHONPATH``) and times it with random legal play for
about ``--seconds``: ``env()`` and ``raw_env`` through engine_speed's AEC loop (steps/s), the
Gymnasium view against a first-legal-action opponent (learner steps/s), the batched self-play env
with ``--batch`` games on one torch thread (applied actions/s), the batched Gymnasium view against
the heuristic (learner steps/s), and a training update: the revision's own ``train.py`` on
``configs/default.yaml`` for ``--updates`` updates (env steps per second of whole updates, rollout
and PPO update, the first one left out as warm-up). Prints the median steps/s of A and B per surface
and B/A."""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SURFACES = ("env", "raw_env", "gym", "vector", "vector_gym", "train")
WORKTREE = "WORKTREE"


def gym_steps_per_second(env, steps: int, seed: int) -> float:
    """Learner steps per second of random legal actions through a Gymnasium view."""
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    t0 = time.perf_counter()
    for _ in range(steps):
        _, _, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if terminated:
            _, info = env.reset()
    return steps / (time.perf_counter() - t0)


def vector_steps_per_second(env, steps: int, seed: int) -> float:
    """Applied actions per second (``steps`` batched steps of random legal actions) of a batched
    self-play env."""
    import torch

    gen = torch.Generator().manual_seed(seed)
    ts = env.reset(seed=seed)
    t0 = time.perf_counter()
    for _ in range(steps):
        ts = env.step(
            torch.where(
                ts.action_mask,
                torch.rand(ts.action_mask.shape, generator=gen),
                -1.0,
            ).argmax(1)
        )
    return steps * env.num_envs / (time.perf_counter() - t0)


def vector_gym_steps_per_second(env, steps: int, seed: int) -> float:
    """Learner steps per second (``steps`` batched steps of random legal actions) of the batched
    Gymnasium view."""
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    t0 = time.perf_counter()
    for _ in range(steps):
        mask = info["action_mask"].astype(bool)
        _, _, _, _, info = env.step(np.argmax(np.where(mask, rng.random(mask.shape), -1.0), axis=1))
    return steps * env.num_envs / (time.perf_counter() - t0)


def train_steps_per_second(tree: str, updates: int) -> float:
    """Env steps per second of whole default-config updates 2..``updates`` of ``tree``'s own
    train.py."""
    with tempfile.TemporaryDirectory() as tmp:
        run = os.path.join(tmp, "run")
        cmd = [sys.executable, "train.py", "--config", "configs/default.yaml", "--run-dir", run]
        cmd += ["--stop-after", str(updates), "eval.final_games=0", "eval.every=100000"]
        cmd += ["run.tensorboard=false", "run.progress=false"]
        subprocess.run(cmd, cwd=tree, capture_output=True, check=True)
        with open(os.path.join(run, "progress.csv")) as f:
            rows = list(csv.DictReader(f))
    first, last = rows[0], rows[-1]
    steps = int(last["env_steps"]) - int(first["env_steps"])
    return steps / (float(last["time_s"]) - float(first["time_s"]))


def child(surface: str, seconds: float, batch: int) -> None:
    """Time ``surface`` of the ``schnapsen_env`` on ``PYTHONPATH`` (imported before the benchmarks'
    own modules, which put this tree first on ``sys.path``); print steps/s."""
    import torch

    from schnapsen_env import schnapsen_v0
    from schnapsen_env.gym_env import SchnapsenGymEnv
    from schnapsen_env.vector.env import SchnapsenVectorEnv, SchnapsenVectorGymEnv

    torch.set_num_threads(1)
    # the timed tree's helpers (cwd: that tree)
    sys.path.insert(0, os.path.join(os.getcwd(), "benchmarks"))
    from engine_speed import aec_steps_per_second

    make, timed = {
        "env": (schnapsen_v0.env, aec_steps_per_second),
        "raw_env": (schnapsen_v0.raw_env, aec_steps_per_second),
        "gym": (
            lambda: SchnapsenGymEnv(opponent=lambda info: info.legal_actions[0]),
            gym_steps_per_second,
        ),
        "vector": (lambda: SchnapsenVectorEnv(num_envs=batch, seed=0), vector_steps_per_second),
        "vector_gym": (
            lambda: SchnapsenVectorGymEnv(num_envs=batch, opponent="heuristic", seed=0),
            vector_gym_steps_per_second,
        ),
    }[surface]
    scale = batch if surface.startswith("vector") else 1
    rate = timed(make(), max(1, 2000 // scale), 1)  # calibration (and warm-up)
    print(timed(make(), max(1, int(rate * seconds / scale)), 0))


def export(rev: str, into: str) -> str:
    """The directory holding ``rev``'s files: this working tree for ``WORKTREE``, else a ``git
    archive`` copy."""
    if rev == WORKTREE:
        return str(HERE.parent)
    os.makedirs(into)
    archive = subprocess.run(
        ["git", "archive", rev],
        cwd=HERE.parent,
        capture_output=True,
        check=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", into], input=archive, check=True)
    return into


def measure(tree: str, surface: str, args) -> float:
    if surface == "train":
        return train_steps_per_second(tree, args.updates)
    cmd = [
        sys.executable,
        __file__,
        "--child",
        surface,
        "--seconds",
        str(args.seconds),
        "--batch",
        str(args.batch),
    ]
    env = {**os.environ, "PYTHONPATH": tree}
    return float(subprocess.run(cmd, env=env, cwd=tree, capture_output=True, text=True, check=True).stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("revs", nargs="*", metavar="REV", help=f"A_REV B_REV: commits, or {WORKTREE}")
    ap.add_argument(
        "--surfaces",
        default=",".join(SURFACES),
        help=f"comma-separated, of {', '.join(SURFACES)}",
    )
    ap.add_argument(
        "--repeats",
        type=int,
        default=3,
        help="child runs per revision and surface (median shown)",
    )
    ap.add_argument("--seconds", type=float, default=3.0, help="seconds each child times")
    ap.add_argument("--batch", type=int, default=256, help="games of the batched env")
    ap.add_argument(
        "--updates",
        type=int,
        default=5,
        help="training updates per train run (the first is warm-up)",
    )
    ap.add_argument("--child", choices=SURFACES, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.child, args.seconds, args.batch)
    surfaces = args.surfaces.split(",")
    if len(args.revs) != 2 or not set(surfaces) <= set(SURFACES):
        ap.error(f"give two revisions (commits or {WORKTREE}) and surfaces of {', '.join(SURFACES)}")
    from _common import machine_description

    machine = machine_description()
    with tempfile.TemporaryDirectory() as tmp:
        trees = [export(rev, os.path.join(tmp, str(i))) for i, rev in enumerate(args.revs)]
        runs = {(s, i): [] for s in surfaces for i in (0, 1)}
        # interleaved (the order alternates), so background load hits A and B alike
        for r in range(args.repeats):
            for s in surfaces:
                for i in (0, 1) if r % 2 == 0 else (1, 0):
                    runs[s, i].append(measure(trees[i], s, args))
    a, b = args.revs
    load = f"load average {os.getloadavg()[0]:.2f} at the end"
    cmd = f"python benchmarks/ab_speed.py {a} {b} --surfaces {args.surfaces} --repeats {args.repeats}"
    print(f"{machine}, {load}; `{cmd} --seconds {args.seconds:g} --batch {args.batch} --updates {args.updates}`")
    print(f"\n| surface (steps/s, median of {args.repeats}) | A `{a}` | B `{b}` | B/A |\n|---|---:|---:|---:|")
    for s in surfaces:
        ma, mb = statistics.median(runs[s, 0]), statistics.median(runs[s, 1])
        print(f"| {s} | {ma:,.0f} | {mb:,.0f} | {mb / ma:.2f}x |")


if __name__ == "__main__":
    main()
