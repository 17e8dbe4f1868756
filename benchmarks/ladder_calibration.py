"""Calibrate a ladder version: a round robin of its rungs, their fixed ratings written as package data.

Ladder v1 (``agents/evaluation/ladder_v1.json``) is the published scale and is not recalibrated; this script is the tool
that made it, kept to calibrate a future version. :data:`RUNGS` lists v1 and a candidate v2 (v1 and a search rung on
top) that is not calibrated and not planned: no ``ladder_v2.json`` ships, and ``python -m agents.evaluation.ladder``
rates on v1.  The rungs of ``--version`` (:data:`RUNGS`) play every pair on duplicate deals (``--games`` per pair, at
least 2,000 for a published version) through :func:`agents.evaluation.arena.round_robin`; their Bradley-Terry ratings
(:func:`agents.evaluation.stats.bradley_terry_ratings`, Elo scale) are shifted so that ``random`` is 0 and written with
each rung's deal seed to ``agents/evaluation/ladder_vN.json``, which ``python -m agents.evaluation.ladder`` reads (it
rebuilds the rungs' covariance from ``games_per_pair``: :func:`agents.evaluation.ladder.rung_covariance`). The file also
records the
run's provenance (:func:`agents.evaluation.provenance.run_provenance`). Changing a rung, a deal seed or the games is a
new version; an existing ladder file is a published scale and is only replaced with ``--force``.

    python benchmarks/ladder_calibration.py [--version N] [--games 2000] [--workers W | --ray [ADDRESS]]
                                            [--out runs/ladder_calibration_vN] [--seed S]
                                            [--ladder-file agents/evaluation/ladder_vN.json] [--force]

The run is resumable: each finished pair's result (its games included) is kept in ``--out``/``pairs.json``,
replaced whole after each pair, so Ctrl-C, SIGTERM or a lost machine costs at most the pairs being played.
The same command again (any ``--workers`` or ``--ray``) plays only the missing pairs and writes the same
ladder file and round-robin results as an uninterrupted run (provenance and timings aside); a ``--out``
holding pairs of another version, rung list, ``--games`` or ``--seed`` is refused. With ``--ray`` the games
are played as Ray tasks on the cluster at ADDRESS (``pip install 'schnapsen-env[rllib]'``)."""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from _common import ROOT, count, even, machine_description, parser, positive

from agents.evaluation.arena import (
    GameRecord,
    PairResult,
    add_ray_argument,
    init_ray,
    local_workers,
    round_robin,
    write_outputs,
)
from agents.evaluation.provenance import run_provenance
from agents.evaluation.stats import PRIOR_WINS
from agents.evaluation.workers import WorkerError, replace_atomically, sigterm_as_interrupt, usable_cpus


class Rung(NamedTuple):
    """A rung of a ladder version."""

    spec: str  #: the agent spec it plays
    seed: int  #: the seed of the deals a laddered agent plays against it


#: the rungs of ladder v1
RUNGS_V1 = (
    Rung(spec="random", seed=101),
    Rung(spec="heuristic", seed=102),
    Rung(spec="expert", seed=103),
    Rung(spec="pimc:samples=40", seed=104),
    Rung(spec="ppo", seed=105),
    Rung(spec="ppo-strong", seed=106),
)
#: the top rung of the candidate v2 (not calibrated): the strongest search at a budget a ladder of a fast agent
#: can afford
SEARCH_RUNG = Rung(spec="search:leaf=rollout,iterations=80000", seed=107)
#: each version's rungs, in the ladder's order (a ladder plays them in this order); only v1 is published
RUNGS = {
    1: RUNGS_V1,
    2: (*RUNGS_V1, SEARCH_RUNG),
}
#: the rung rated 0
ANCHOR = "random"
#: how the ladder file's ratings were made, as it states it
RATING_MODEL = (
    f"Bradley-Terry over all games (choix) with {PRIOR_WINS:g} virtual win each way per pair, Elo scale, "
    f"shifted so that {ANCHOR} = 0; calibration_low and calibration_high: the 95% normal-approximation "
    "interval of the fit centred on the rungs' mean, shifted alike"
)
#: the round robin's seed unless told (its deals are not the ladder's: the rung seeds)
CALIBRATION_SEED = 20261203
#: games per pair unless told
DEFAULT_GAMES = 2000
#: where the ladder files live (the package data of agents.evaluation.ladder)
LADDER_FOLDER = ROOT / "agents" / "evaluation"
#: the file in --out that keeps the finished pairs
PAIRS_FILE = "pairs.json"
#: the layout of PAIRS_FILE
PAIRS_FORMAT = 1
#: the script as its recorded command names it (run from the repository's root)
SCRIPT = "benchmarks/ladder_calibration.py"


class Settings(NamedTuple):
    """What a calibration's pairs depend on: a kept pair is reused only under the same settings."""

    version: int
    rungs: tuple[str, ...]  #: the rungs' specs, in order
    games: int  #: duplicate games per pair
    seed: int  #: the round robin's seed


class Refused(Exception):
    """A request the script cannot carry out: one line on stderr, exit status 2."""


def ladder_path(version: int) -> Path:
    """The package's ladder file of ``version``."""
    return LADDER_FOLDER / f"ladder_v{version}.json"


def describe(settings: Settings) -> str:
    """The settings in one line, as the command line gives them."""
    rungs = ", ".join(settings.rungs)
    return f"v{settings.version} ({rungs}) at --games {settings.games}, --seed {settings.seed}"


def stored_pair(result: PairResult) -> dict:
    """A pair's result as JSON-ready data, its games included (:func:`restored_pair` reads it back)."""
    return json.loads(json.dumps(dataclasses.asdict(result)))


def restored_pair(data: dict) -> PairResult:
    """The :class:`PairResult` that :func:`stored_pair` wrote."""
    records = [
        GameRecord(**{**game, "deck": tuple(game["deck"]), "actions": tuple(game["actions"])})
        for game in data["records"]
    ]
    return PairResult(**{**data, "records": records})


def load_pairs(path: Path, settings: Settings) -> tuple[dict[int, PairResult], list[dict]]:
    """The finished pairs kept at ``path`` (by pair index) and the earlier runs that played them (their
    machine line and command); nothing when there is no file. :class:`Refused` when it holds pairs of other
    settings or is not a calibration's file."""
    if not path.exists():
        return {}, []
    try:
        kept = json.loads(path.read_text())
        if kept["format"] != PAIRS_FORMAT:
            raise ValueError(f"format {kept['format']}, this script reads {PAIRS_FORMAT}")
        held = Settings(version=kept["version"], rungs=tuple(kept["rungs"]), games=kept["games"], seed=kept["seed"])
        pairs = {int(index): restored_pair(pair) for index, pair in kept["pairs"].items()}
        runs = list(kept["runs"])
    except (ValueError, KeyError, TypeError) as error:
        raise Refused(f"{path} is not a calibration's {PAIRS_FILE} ({type(error).__name__}: {error})") from None
    if held != settings:
        raise Refused(f"{path} holds pairs of {describe(held)}, not {describe(settings)}: choose another --out")
    return pairs, runs


def save_pairs(path: Path, settings: Settings, pairs: dict[int, PairResult], runs: list[dict]) -> None:
    """Replace ``path`` whole with the finished pairs (by pair index) and the runs that played them."""
    data = {
        "format": PAIRS_FORMAT,
        **settings._asdict(),
        "runs": runs,
        "pairs": {str(index): stored_pair(pair) for index, pair in sorted(pairs.items())},
    }
    with replace_atomically(path) as temporary:
        Path(temporary).write_text(json.dumps(data) + "\n")


def ladder_data(settings: Settings, report: dict, runs: list[dict]) -> dict:
    """The ladder file of a finished round robin ``report``: each rung with its deal seed and its rating and
    calibration interval relative to :data:`ANCHOR`; ``runs``: the runs that played the pairs, this one last."""
    ratings = report["ratings"]
    base = ratings[ANCHOR]["elo"]
    fields = {"rating": "elo", "calibration_low": "low", "calibration_high": "high"}  # ladder key: report key
    rungs = [
        {
            "opponent": rung.spec,
            "seed": rung.seed,
            **{key: round(ratings[rung.spec][field] - base, 1) for key, field in fields.items()},
        }
        for rung in RUNGS[settings.version]
    ]
    calibration = {
        "games_per_pair": settings.games,
        "seed": settings.seed,
        "rating_model": RATING_MODEL,
        "measured": runs[-1]["measured"],
        "provenance": runs[-1]["provenance"],
    }
    if len(runs) > 1:
        calibration["resumed"] = [
            {"measured": run["measured"], "command": run["provenance"]["command"]} for run in runs[:-1]
        ]
    return {"ladder_version": settings.version, "calibration": calibration, "rungs": rungs}


def build_parser():
    """The command line's parser."""
    ap = parser(__doc__)
    ap.add_argument("--version", type=positive, default=max(RUNGS), help=f"ladder version (default {max(RUNGS)})")
    ap.add_argument("--games", type=even, default=DEFAULT_GAMES, help=f"games per pair (default {DEFAULT_GAMES})")
    ap.add_argument(
        "--seed", type=count, default=CALIBRATION_SEED, help=f"round robin seed (default {CALIBRATION_SEED})"
    )
    workers_help = f"processes (default: the CPUs this process may use, {usable_cpus()} here)"
    ap.add_argument("--workers", type=positive, default=None, help=workers_help)
    add_ray_argument(ap)
    ap.add_argument(
        "--out", default=None, help="directory for the pairs and round robin (default runs/ladder_calibration_vN)"
    )
    ap.add_argument(
        "--ladder-file", default=None, help="where to write the ladder (default agents/evaluation/ladder_vN.json)"
    )
    ap.add_argument("--force", action="store_true", help="replace an existing ladder file")
    ap.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: 0 when the ladder file is written, 2 (one line on stderr) for a request it refuses,
    130 on Ctrl-C or SIGTERM (the finished pairs kept)."""
    ap = build_parser()
    args = ap.parse_args(argv)
    arguments = sys.argv[1:] if argv is None else list(argv)
    command = shlex.join(["python", SCRIPT, *arguments])
    out = Path(args.out or f"runs/ladder_calibration_v{args.version}")
    pairs_path = out / PAIRS_FILE
    target = Path(args.ladder_file) if args.ladder_file else ladder_path(args.version)
    pairs: dict[int, PairResult] = {}
    try:
        if args.version not in RUNGS:
            known = ", ".join(map(str, sorted(RUNGS)))
            raise Refused(f"unknown ladder version {args.version}: known versions are {known}")
        workers = local_workers(args.ray, args.workers)
        if target.exists() and not args.force:
            published = f"{target} exists: a published ladder is a fixed scale"
            raise Refused(f"{published}; calibrate a new --version, or replace it with --force")
        specs = tuple(rung.spec for rung in RUNGS[args.version])
        settings = Settings(version=args.version, rungs=specs, games=args.games, seed=args.seed)
        pairs, runs = load_pairs(pairs_path, settings)
        rungs = len(settings.rungs)
        total = rungs * (rungs - 1) // 2
        left = total - len(pairs)
        work = f"{rungs} rungs, {total} pairs x {args.games:,} games = {total * args.games:,} games"
        kept = f"{len(pairs)} pairs kept in {pairs_path}"
        print(f"ladder v{args.version}: {work}; {kept}, {left} pairs ({left * args.games:,} games) to play", flush=True)
        os.makedirs(out, exist_ok=True)
        if args.ray is not None:
            init_ray(args.ray)
        runs.append({"measured": machine_description(), "provenance": run_provenance(command=command)})

        def keep(result: PairResult) -> None:
            pairs[result.pair_index] = result
            save_pairs(pairs_path, settings, pairs, runs)

        with sigterm_as_interrupt():
            report = round_robin(
                settings.rungs,
                args.games,
                args.seed,
                workers=workers,
                ray=args.ray is not None,
                progress=not args.no_progress,
                finished=dict(pairs),
                on_pair=keep,
            )
        for path in write_outputs(report, str(out)):
            print(f"wrote {path}")
        data = ladder_data(settings, report, runs)
        with replace_atomically(target) as temporary:
            Path(temporary).write_text(json.dumps(data, indent=2) + "\n")
    except (Refused, ValueError, ImportError, OSError, RuntimeError, WorkerError) as error:
        ap.exit(2, f"{ap.prog}: error: {' '.join(str(error).split())}\n")
    except KeyboardInterrupt:
        kept = f"{len(pairs)} pairs kept in {pairs_path}" if pairs else "no pairs finished"
        print(f"{ap.prog}: interrupted: {kept}; the same command continues", file=sys.stderr)
        return 130
    print(f"{json.dumps(data, indent=2)}\nwrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
