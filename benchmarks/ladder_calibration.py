"""Calibrate a ladder version: a round robin of its rungs, their fixed ratings written as package data.

Ladder v1 (``agents/evaluation/ladder_v1.json``) is the published scale and is not recalibrated; this script is the tool
that made it, kept to calibrate a future version. ``--version`` defaults to 1, the published ladder (refused unless
``--force``: its file exists). :data:`RUNGS` also lists v2 (v1 and a search rung on top), a rung list kept only as data
for a future calibration: v2 was dropped (issue 53), no ``ladder_v2.json`` ships, and ``python -m
agents.evaluation.ladder`` rates on v1. The rungs of ``--version`` (:data:`RUNGS`) play every pair on duplicate deals
(``--games`` per pair, at least 2,000 for a published version) through :func:`agents.evaluation.arena.round_robin`;
their Bradley-Terry ratings (:func:`agents.evaluation.stats.bradley_terry_ratings`, Elo scale) are shifted so that
``random`` is 0 and written with each rung's deal seed to ``agents/evaluation/ladder_vN.json``, which ``python -m
agents.evaluation.ladder`` reads (it rebuilds the rungs' covariance from ``games_per_pair``:
:func:`agents.evaluation.ladder.rung_covariance`). The file also records the run's provenance
(:func:`agents.evaluation.provenance.run_provenance`). Changing a rung, a deal seed or the games is a
new version; an existing ladder file is a published scale and is only replaced with ``--force``.

    python benchmarks/ladder_calibration.py [--version N] [--games 2000] [--workers W | --ray [ADDRESS]]
                                            [--out runs/ladder_calibration_vN] [--seed S]
                                            [--ladder-file agents/evaluation/ladder_vN.json] [--force]

The run is resumable: each finished pair's result (its games included) is kept in ``--out``/``pairs.json``,
replaced whole after each pair, so Ctrl-C, SIGTERM or a lost machine costs at most the pairs being played.
The same command again (any ``--workers`` or ``--ray``) plays only the missing pairs and writes the same
ladder file and round-robin results as an uninterrupted run (provenance and timings aside); a ``--out``
holding pairs of another version, rung list, ``--games`` or ``--seed`` is refused, and so is a ``pairs.json``
that :class:`KeptPairs` and the run's counts do not pass (one line naming the field; the file is kept as it is),
or a ``--out`` another calibration is using (:func:`agents.evaluation.resume.hold`). With ``--ray`` the games
are played as Ray tasks on the cluster at ADDRESS (``pip install 'schnapsen-env[rllib]'``)."""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import shlex
import sys
from schnapsen_env.cli_io import one_line
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from pydantic import Field
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
from agents.evaluation.resume import Fault, Refused, Schema, hold, read_kept, write_json
from agents.evaluation.stats import PRIOR_WINS
from agents.evaluation.workers import WorkerError, sigterm_as_interrupt, usable_cpus


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
#: each version's rungs, in the ladder's order (a ladder plays them in this order); only v1 is published, v2 is
#: data for a future calibration (dropped, issue 53)
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


class KeptRecord(Schema):
    """One game of a kept pair (:class:`agents.evaluation.arena.GameRecord`)."""

    unit: int
    deal: int
    seat_a: int
    dealer: int
    winner: int = Field(ge=0, le=1)
    game_points: int
    reason: str
    deck: list[int]
    actions: list[int]


class KeptPair(Schema):
    """A finished pair as :data:`PAIRS_FILE` keeps it (:class:`agents.evaluation.arena.PairResult`'s
    fields)."""

    agents: tuple[str, str]
    games: int = Field(ge=1)
    wins: tuple[int, int]
    mean_game_points: tuple[float, float]
    win_rate_ci: tuple[float, float]
    game_points_ci: tuple[tuple[float, float], tuple[float, float]]
    net_game_points: float
    net_game_points_ci: tuple[float, float]
    variant: str
    rules: dict
    seed: int
    pair_index: int
    duplicate: bool
    bummerls: None = None  # the calibration plays games, not Bummerl
    bummerl_wins: None = None
    bummerl_points: None = None
    bummerl_win_rate_ci: None = None
    records: list[KeptRecord]
    ms_per_decision: tuple[float, float]


class KeptPairs(Schema):
    """The schema of :data:`PAIRS_FILE`: the settings, the runs that played the pairs, the pairs by
    index."""

    format: int
    version: int
    rungs: list[str]
    games: int
    seed: int
    runs: list[dict]
    pairs: dict[str, KeptPair]


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


def held_settings(kept: dict) -> Settings:
    """The settings whose pairs ``kept`` (:data:`PAIRS_FILE`'s data) holds."""
    return Settings(
        version=kept["version"],
        rungs=tuple(kept["rungs"]),
        games=kept["games"],
        seed=kept["seed"],
    )


def check_pairs(kept: KeptPairs) -> None:
    """:class:`Fault` naming the first field of ``kept`` that does not fit the run it holds: each pair must be the
    round robin's pair of its index (two of its rungs, in order), with its games per pair, a record for each
    game and the wins its records show."""
    held = held_settings(kept.model_dump(include={"version", "rungs", "games", "seed"}))
    if kept.format != PAIRS_FORMAT:
        raise Fault("format", f"{kept.format}, this script reads {PAIRS_FORMAT}")
    order = {str(index): pair for index, pair in enumerate(itertools.combinations(held.rungs, 2))}
    for key, pair in kept.pairs.items():
        where = f"pairs.{key}"
        strangers = [agent for agent in pair.agents if agent not in held.rungs]
        won = sum(record.winner == 0 for record in pair.records)
        records_wins = [won, pair.games - won]
        no_such_pair = f"no pair {key} among the {len(order)} pairs of {len(held.rungs)} rungs"
        not_rungs = f"{', '.join(strangers)}: not a rung of v{held.version}"
        misfiled = f"{pair.pair_index}, kept under {key}"
        not_this_pair = f"{', '.join(pair.agents)}: not pair {key}"
        other_games = f"{pair.games} games, the run plays {held.games} a pair"
        record_count = f"{len(pair.records)} for {pair.games} games"
        other_wins = f"{list(pair.wins)}, the records: {won}"
        faults = [
            (where, key not in order, no_such_pair),
            (f"{where}.agents", strangers, not_rungs),
            (f"{where}.pair_index", str(pair.pair_index) != key, misfiled),
            (f"{where}.agents", pair.agents != order.get(key), not_this_pair),
            (f"{where}.games", pair.games != held.games, other_games),
            (f"{where}.records", len(pair.records) != pair.games, record_count),
            (f"{where}.wins", list(pair.wins) != records_wins, other_wins),
        ]
        for field, wrong, message in faults:
            if wrong:
                raise Fault(field, message)


def load_pairs(path: Path, settings: Settings) -> tuple[dict[int, PairResult], list[dict]]:
    """The finished pairs kept at ``path`` (by pair index) and the earlier runs that played them (their
    machine line and command); nothing when there is no file. :class:`Refused` in one line when it fails
    :class:`KeptPairs` or :func:`check_pairs` (naming the field) or holds pairs of other settings."""
    kept = read_kept(path, KeptPairs, check_pairs)
    if kept is None:
        return {}, []
    held = held_settings(kept)
    if held != settings:
        raise Refused(f"{path} holds pairs of {describe(held)}, not {describe(settings)}: choose another --out")
    return {int(index): restored_pair(pair) for index, pair in kept["pairs"].items()}, kept["runs"]


def save_pairs(path: Path, settings: Settings, pairs: dict[int, PairResult], runs: list[dict]) -> None:
    """Replace ``path`` whole with the finished pairs (by pair index) and the runs that played them."""
    data = {
        "format": PAIRS_FORMAT,
        **settings._asdict(),
        "runs": runs,
        "pairs": {str(index): stored_pair(pair) for index, pair in sorted(pairs.items())},
    }
    write_json(path, data, indent=None)


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
    version_two = "2 is a rung list for a future calibration"
    version_help = f"ladder version (default 1, the published ladder; {version_two})"
    ap.add_argument("--version", type=positive, default=1, help=version_help)
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
    ladder_file_help = "where to write the ladder (default agents/evaluation/ladder_vN.json)"
    ap.add_argument("--ladder-file", default=None, help=ladder_file_help)
    ap.add_argument("--force", action="store_true", help="replace an existing ladder file")
    ap.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    return ap


def calibrate(
    args: argparse.Namespace,
    settings: Settings,
    out: Path,
    workers: int,
    command: str,
    pairs: dict[int, PairResult],
) -> dict:
    """Play the pairs ``out`` does not keep yet (``pairs``: filled with every finished one, as it finishes), write
    the round robin's results into ``out`` and return the ladder file's data (:func:`ladder_data`)."""
    pairs_path = out / PAIRS_FILE
    kept, runs = load_pairs(pairs_path, settings)
    pairs.update(kept)
    rungs = len(settings.rungs)
    total = rungs * (rungs - 1) // 2
    left = total - len(pairs)
    work = f"{rungs} rungs, {total} pairs x {args.games:,} games = {total * args.games:,} games"
    done = f"{len(pairs)} pairs kept in {pairs_path}"
    to_play = f"{left} pairs ({left * args.games:,} games) to play"
    print(f"ladder v{args.version}: {work}; {done}, {to_play}", flush=True)
    if args.ray is not None:
        init_ray(args.ray)
    runs.append({"measured": machine_description(), "provenance": run_provenance(command=command)})

    def keep(result: PairResult) -> None:
        pairs[result.pair_index] = result
        save_pairs(pairs_path, settings, pairs, runs)

    with sigterm_as_interrupt():
        report = round_robin(
            specs=settings.rungs,
            games=args.games,
            seed=args.seed,
            workers=workers,
            ray=args.ray is not None,
            progress=not args.no_progress,
            finished=dict(pairs),
            on_pair=keep,
        )
    for path in write_outputs(report, str(out)):
        print(f"wrote {path}")
    return ladder_data(settings, report, runs)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: 0 when the ladder file is written, 2 (one line on stderr) for a request it refuses,
    130 on Ctrl-C or SIGTERM (the finished pairs kept)."""
    ap = build_parser()
    args = ap.parse_args(argv)
    arguments = sys.argv[1:] if argv is None else list(argv)
    command = shlex.join(["python", SCRIPT, *arguments])
    out = Path(args.out or f"runs/ladder_calibration_v{args.version}")
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
        with hold(out, what="calibration"):
            data = calibrate(args, settings, out=out, workers=workers, command=command, pairs=pairs)
            write_json(target, data)
    except (Refused, ValueError, ImportError, OSError, RuntimeError, WorkerError) as error:
        ap.exit(2, f"{ap.prog}: error: {one_line(error)}\n")
    except KeyboardInterrupt:
        kept = f"{len(pairs)} pairs kept in {out / PAIRS_FILE}" if pairs else "no pairs finished"
        print(f"{ap.prog}: interrupted: {kept}; the same command continues", file=sys.stderr)
        return 130
    print(f"{json.dumps(data, indent=2)}\nwrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
