"""The ladder: one command rates any agent on a fixed scale (Elo, ``random`` = 0) that means the same in every run.

    python -m agents.evaluation.ladder SPEC [--games 400] [--workers W | --ray [ADDRESS]] [--version N]
                                            [--out DIR | --resume DIR]
    python -m agents.evaluation.ladder agents.players.heuristic:HeuristicAgent --out runs/ladder

SPEC is any agent spec (:func:`agents.make_agent`), your own as ``MODULE:NAME`` or ``FILE.py:NAME``. It plays
``--games`` duplicate games of the ``schnapsen`` preset against each rung of the ladder version
(``agents/evaluation/ladder_vN.json``: the rung, its fixed rating and its deal seed, calibrated by
``benchmarks/ladder_calibration.py``), each pair through :func:`agents.evaluation.arena.play_pair`. Only games won
count.

Its rating (:func:`fit_rating`) is the maximum-likelihood Elo with the rungs held fixed, no virtual games;
the 95% interval is the likelihood-ratio one, widened by the rungs' own calibration uncertainty
(:func:`rung_covariance`); a perfect or winless record gets a one-sided bound. A deviance test says whether
one rating fits the record against every rung. ``ladder.json`` also records what was rated (the SHA-256 of
the spec's file) and where (:mod:`agents.evaluation.provenance`). Results are the same for any number of workers, and
with ``--ray [ADDRESS]`` (the games as Ray tasks on the cluster at ADDRESS, none: this machine's cluster or a
new local one; ``pip install 'schnapsen-env[rllib]'``) instead of workers; only ``ms_per_decision`` is a
timing. An interrupted run keeps its finished rungs in ``--out`` and continues with ``--resume`` (with
``--workers`` or ``--ray`` as the machine allows)."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from statistics import NormalDist
from typing import NamedTuple

import numpy as np
from pydantic import BaseModel, ConfigDict, Field
from tqdm import tqdm

from schnapsen_env.cli_io import EVEN_GAMES, even_games, launcher, one_line, plain_text, whole_range
from schnapsen_env.rules import Rules

from ..registry import portable_spec
from .arena import (
    TRACEBACK_HELP,
    AgentLike,
    PairResult,
    add_ray_argument,
    init_ray,
    local_workers,
    play_pair,
    traceback_note,
)
from .provenance import agent_fingerprint, describe_machine, run_provenance
from .resume import Fault, Refused, Schema, hold, read_kept, write_json
from .stats import (
    CONFIDENCE,
    ELO_PER_NATURAL_UNIT,
    PRIOR_WINS,
    elo_information,
    elo_log_likelihood,
    elo_score,
    elo_win_probability,
)
from .workers import WorkerError, replace_atomically, sigterm_as_interrupt, usable_cpus

#: the ladder data files beside this module
LADDER_FILES = sorted(Path(__file__).parent.glob("ladder_v*.json"))
#: the ladder data files by version
LADDERS = {int(path.stem.removeprefix("ladder_v")): path for path in LADDER_FILES}
#: the version used unless one is named
LATEST = max(LADDERS)
#: the rules every ladder plays (the preset's name; its rules are recorded in ladder.json)
VARIANT = "schnapsen"
#: the search range of a rating, Elo
RATING_RANGE = (-4000.0, 6000.0)
#: the deviance test's p-value below which the card says one rating does not fit the record
POOR_FIT_P = 0.01
#: ladder.json's layout: 2 adds confidence, games_per_rung, interval, rung_sd, fit, variant, rules,
#: provenance and each rung's implied_rating (a perfect or winless record: rating null, one bound null)
REPORT_FORMAT = 2
#: duplicate games per rung unless told
DEFAULT_GAMES = 400
#: the file in --out that holds an unfinished run's finished rungs
PARTIAL = "ladder.partial.json"
#: how the interval is made, as ladder.json states it
INTERVAL_METHOD = (
    "likelihood ratio of the games won and lost against the fixed rungs (no virtual games), each end widened "
    "in quadrature by the rungs' calibration uncertainty (delta method); a perfect or winless record: the exact "
    "one-sided bound"
)


class RungResult(NamedTuple):
    """An agent's record against one rung."""

    rating: float  #: the rung's fixed rating, Elo
    wins: int
    losses: int


class RatingFit(NamedTuple):
    """:func:`fit_rating`'s result, Elo rounded to 0.1. ``rating`` is None for a perfect or winless record,
    whose interval is one-sided (``high`` None: unbounded above; ``low`` None: unbounded below)."""

    rating: float | None
    low: float | None
    high: float | None
    rung_sd: float  #: standard deviation the rungs' calibration adds (Elo), already in low and high
    deviance: float  #: likelihood-ratio chi-square of one rating against one per rung
    df: int  #: the deviance's degrees of freedom: rungs - 1
    p_value: float | None  #: None with one rung (no test)


class KeptRung(Schema):
    """A finished rung's row as ``ladder.partial.json`` keeps it (:func:`_rung_row`)."""

    opponent: str
    rating: float
    seed: int
    games: int = Field(ge=2)
    wins: int = Field(ge=0)
    win_rate: float
    low: float
    high: float
    implied_rating: float | None
    game_points_per_game: float
    ms_per_decision: float


class _Open(BaseModel):
    """A schema that keeps keys it does not declare (the provenance's, which vary by machine and
    checkout)."""

    model_config = ConfigDict(strict=True, extra="allow")


class KeptAgentFile(_Open):
    """What was rated (:func:`~agents.evaluation.provenance.agent_fingerprint`)."""

    path: str
    kind: str
    sha256: str
    files: list[str] = []


class KeptMachine(_Open):
    """Where the run began (:func:`~agents.evaluation.provenance.machine`), as the card shows it."""

    cpu: str
    usable_cores: int
    load_average: float | None


class KeptResumption(Schema):
    """One earlier resumption of the run."""

    date: str
    command: str


class KeptProvenance(_Open):
    """The run's provenance (:func:`~agents.evaluation.provenance.run_provenance` and what the
    ladder adds)."""

    package_version: str | None
    git_commit: str = ""
    git_dirty: bool = False
    date: str
    machine: KeptMachine
    command: str
    agent_file: KeptAgentFile
    resumed: list[KeptResumption] = []


class KeptLadder(Schema):
    """The schema of ``ladder.partial.json``: the run (spec, games per rung, ladder version), its provenance and
    the rows of its finished rungs, in the ladder's order."""

    spec: str
    games: int = Field(ge=2)
    ladder_version: int
    provenance: KeptProvenance
    rungs: list[KeptRung]


def load_ladder(version: int = LATEST) -> dict:
    """The rungs of ladder ``version``; ``ValueError`` naming the known versions for another."""
    if version not in LADDERS:
        raise ValueError(f"unknown ladder version {version}: known versions are {', '.join(map(str, sorted(LADDERS)))}")
    return json.loads(LADDERS[version].read_text())


def rung_covariance(data: dict) -> np.ndarray:
    """Covariance (Elo², shape ``(rungs, rungs)``) of the rungs' fixed ratings relative to the anchor rung (the
    one rated 0, whose row and column are 0), rebuilt from the calibration round robin: every pair of rungs
    played ``calibration.games_per_pair`` games (plus the prior's virtual ones), so the Bradley–Terry Hessian
    at the fitted ratings, the anchor's row and column removed, inverts to it. (The file's calibration
    intervals are centred on the pool's mean; the ladder's scale is anchored at the 0 rung.) ``ValueError``
    unless exactly one rung is rated 0."""
    ratings = np.array([rung["rating"] for rung in data["rungs"]]) / ELO_PER_NATURAL_UNIT
    anchors = np.flatnonzero(ratings == 0.0)
    if len(anchors) != 1:
        raise ValueError(f"a ladder needs exactly one rung rated 0 (its anchor), got {len(anchors)}")
    games = data["calibration"]["games_per_pair"] + 2 * PRIOR_WINS
    weight = elo_information(ratings[:, None] - ratings[None, :], games)
    np.fill_diagonal(weight, 0.0)
    hessian = np.diag(weight.sum(1)) - weight
    free = np.flatnonzero(ratings != 0.0)
    covariance = np.zeros_like(hessian)
    covariance[np.ix_(free, free)] = np.linalg.inv(hessian[np.ix_(free, free)])
    return covariance * ELO_PER_NATURAL_UNIT**2


def fit_rating(
    rungs: Sequence[RungResult],
    covariance: np.ndarray | None = None,
    confidence: float = CONFIDENCE,
) -> RatingFit:
    """The rating of a record against rungs held fixed (``rungs``: one :class:`RungResult` each, at least one game
    in all): the maximum of :func:`agents.evaluation.stats.elo_log_likelihood` and its ``confidence`` likelihood-ratio
    interval (every rating whose deviance from the best is below the chi-square quantile, 1 degree of freedom),
    each end moved out in quadrature by ``z`` times the standard deviation the rungs' ratings carry
    (``covariance``, Elo², e.g. :func:`rung_covariance`; None: the rungs exact), propagated by the delta method
    (the rating moves with rung ``k`` by its share of the Fisher information). A perfect record has no maximum:
    its interval is ``[low, inf)``, ``low`` the rating at which the record has chance ``(1 - confidence) / 2``
    (the exact one-sided bound, as Clopper–Pearson's); a winless one ``(-inf, high]``. The fit check: the
    deviance of one rating against one per rung (rungs - 1 degrees of freedom) and its p-value."""
    from scipy.optimize import brentq
    from scipy.special import xlogy
    from scipy.stats import chi2

    ratings = np.array([rung.rating for rung in rungs], dtype=float) / ELO_PER_NATURAL_UNIT
    wins = np.array([rung.wins for rung in rungs], dtype=float)
    losses = np.array([rung.losses for rung in rungs], dtype=float)
    cut = chi2.ppf(confidence, 1) / 2
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    lowest = RATING_RANGE[0] / ELO_PER_NATURAL_UNIT
    highest = RATING_RANGE[1] / ELO_PER_NATURAL_UNIT

    def loglik(x: float) -> float:  # x: the agent's rating in natural units
        return elo_log_likelihood(x - ratings, wins, losses)

    def slope(x: float) -> float:
        return float(np.sum(elo_score(x - ratings, wins, losses)))

    if wins.sum() > 0 and losses.sum() > 0:
        best = brentq(slope, lowest, highest)
        top = loglik(best)
        low = brentq(lambda x: loglik(x) - top + cut, lowest, best)
        high = brentq(lambda x: loglik(x) - top + cut, best, highest)
        where = best
    else:
        # no maximum: the exact one-sided bound, where the record's chance is (1 - confidence) / 2
        best = None
        top = 0.0  # the likelihood's supremum, at +inf (perfect) or -inf (winless)
        tail = np.log((1 - confidence) / 2)
        bound = brentq(lambda x: loglik(x) - tail, lowest, highest)
        low = bound if losses.sum() == 0 else None
        high = bound if wins.sum() == 0 else None
        where = bound
    variance = _rung_variance(where - ratings, wins + losses, covariance)
    low, high = _widened(best, low, high, spread=z * np.sqrt(variance) / ELO_PER_NATURAL_UNIT)
    played = wins + losses
    saturated = float(np.sum(xlogy(wins, wins / played) + xlogy(losses, losses / played)))
    # rounding may leave -1e-13 for a perfectly fitting record
    deviance = max(0.0, 2 * (saturated - top))
    df = len(rungs) - 1
    p_value = float(chi2.sf(deviance, df)) if df > 0 else None
    return RatingFit(
        rating=_elo(best),
        low=_elo(low),
        high=_elo(high),
        rung_sd=round(float(np.sqrt(variance)), 1),
        deviance=round(deviance, 2),
        df=df,
        p_value=None if p_value is None else round(p_value, 4),
    )


def _rung_variance(gaps: np.ndarray, games: np.ndarray, covariance: np.ndarray | None) -> float:
    """The variance (Elo²) the rungs' ``covariance`` adds to a rating ``gaps`` (natural units) from each rung with
    ``games`` against each: each rung weighs by its share of the Fisher information (0.0 without covariance)."""
    information = elo_information(gaps, games)
    share = information / information.sum()
    return 0.0 if covariance is None else float(share @ covariance @ share)


def _widened(best: float | None, low: float | None, high: float | None, spread: float) -> tuple:
    """``(low, high)`` moved out by ``spread``: in quadrature around ``best``, or (no ``best``: a one-sided
    bound) by ``spread`` itself; a None end stays None."""
    if best is None:
        return (None if low is None else low - spread, None if high is None else high + spread)
    return best - np.hypot(best - low, spread), best + np.hypot(high - best, spread)


def _elo(natural: float | None) -> float | None:
    return None if natural is None else round(float(ELO_PER_NATURAL_UNIT * natural), 1)


def implied_rating(rung: RungResult) -> float | None:
    """The rating at which the Elo model expects exactly this win rate against this rung (Elo, rounded to 0.1);
    None when every game was won or lost (no finite rating does)."""
    if rung.wins == 0 or rung.losses == 0:
        return None
    return round(rung.rating + ELO_PER_NATURAL_UNIT * float(np.log(rung.wins / rung.losses)), 1)


def interval_coverage(
    true_rating: float,
    games: int,
    replicates: int,
    seed: int,
    version: int = LATEST,
    confidence: float = CONFIDENCE,
) -> float:
    """The share of ``replicates`` simulated ladders whose interval holds ``true_rating`` (Elo): each draws the
    rungs' true ratings around their fixed ones from :func:`rung_covariance`, then ``games`` independent games
    per rung from the Elo model, and fits them with :func:`fit_rating` as a real run does (numpy generator
    ``seed``). Checks the interval's coverage; duplicate deals' pairing is not simulated."""
    data = load_ladder(version)
    fixed = np.array([rung["rating"] for rung in data["rungs"]])
    covariance = rung_covariance(data)
    free = np.flatnonzero(np.diag(covariance) > 0)  # the anchor has no variance
    root = np.zeros_like(covariance)
    # unique, unlike an SVD
    root[np.ix_(free, free)] = np.linalg.cholesky(covariance[np.ix_(free, free)])
    rng = np.random.default_rng(seed)
    covered = 0
    for _ in range(replicates):
        true_rungs = fixed + root @ rng.standard_normal(len(fixed))
        chance = elo_win_probability((true_rating - true_rungs) / ELO_PER_NATURAL_UNIT)
        wins = rng.binomial(games, chance)
        record = [RungResult(rating, int(won), games - int(won)) for rating, won in zip(fixed, wins)]
        fit = fit_rating(record, covariance, confidence)
        above_low = fit.low is None or fit.low <= true_rating
        below_high = fit.high is None or true_rating <= fit.high
        covered += above_low and below_high
    return covered / replicates


def ladder(
    agent: AgentLike,
    games: int = DEFAULT_GAMES,
    *,
    workers: int = 1,
    ray: bool = False,
    version: int = LATEST,
    progress: bool = False,
    finished: Sequence[dict] = (),
    on_rung: Callable[[list[dict]], object] | None = None,
    provenance: dict | None = None,
) -> dict:
    """Rate ``agent`` (a spec, or an :class:`~agents.players.base.Agent` with ``workers=1`` and no Ray) on ladder
    ``version``: ``games`` duplicate games per rung, with ``progress`` one bar over them all; ``ray``: the games as Ray
    tasks (:func:`agents.evaluation.arena.init_ray`), the same results as any ``workers``. ``finished``: the rung rows
    of an interrupted run of the same agent, games and version (the first rungs, in order; they are not played again).
    ``on_rung(rows)``: called with the rows so far after each rung. ``provenance``: the run's
    :func:`agents.evaluation.provenance.run_provenance` dict (default: gathered now, the command being ``sys.argv``).
    Returns the ``ladder.json`` dict (module docstring). ``ValueError`` for a bad spec, an odd ``games``, an
    unknown version, ``finished`` rows of other rungs, or an agent that plays an illegal action."""
    data = load_ladder(version)
    rungs = data["rungs"]
    rows = [dict(row) for row in finished]
    expected = [rung["opponent"] for rung in rungs[: len(rows)]]
    if len(rows) > len(rungs) or [row["opponent"] for row in rows] != expected:
        raise ValueError(f"finished rungs {[row['opponent'] for row in rows]} are not the first rungs of v{version}")
    if provenance is None:
        provenance = run_provenance(command=shlex.join(sys.argv))
    provenance = {**provenance, "agent_file": provenance.get("agent_file") or agent_fingerprint(agent)}
    total = games * len(rungs)
    done = games * len(rows)
    description = f"ladder v{version}"
    with tqdm(
        total=total,
        initial=done,
        desc=description,
        unit="game",
        leave=False,
        disable=not progress,
    ) as bar:
        for rung in rungs[len(rows) :]:
            bar.set_postfix_str(rung["opponent"])
            result = play_pair(
                agent,
                rung["opponent"],
                games=games,
                seed=rung["seed"],
                workers=workers,
                progress=bar.update,
                variant=VARIANT,
                ray=ray,
            )
            rows.append(_rung_row(rung, result))
            if on_rung is not None:
                on_rung(rows)
    name = agent if isinstance(agent, str) else agent.name
    return _report(name, rows, data, version, games, provenance)


def _rung_row(rung: dict, result: PairResult) -> dict:
    """One rung's row of ``ladder.json``."""
    record = RungResult(rung["rating"], result.wins[0], result.wins[1])
    return {
        "opponent": rung["opponent"],
        "rating": rung["rating"],
        "seed": rung["seed"],
        "games": result.games,
        "wins": result.wins[0],
        "win_rate": result.win_rate,
        "low": result.win_rate_ci[0],
        "high": result.win_rate_ci[1],
        "implied_rating": implied_rating(record),
        "game_points_per_game": result.mean_game_points[0],
        "ms_per_decision": round(result.ms_per_decision[0], 3),
    }


def _report(
    name: str,
    rows: list[dict],
    data: dict,
    version: int,
    games: int,
    provenance: dict,
) -> dict:
    """The ``ladder.json`` dict of finished rung rows."""
    records = [RungResult(row["rating"], row["wins"], row["games"] - row["wins"]) for row in rows]
    fit = fit_rating(records, rung_covariance(data))
    poor = fit.p_value is not None and fit.p_value < POOR_FIT_P
    return {
        "format": REPORT_FORMAT,
        "ladder_version": version,
        "agent": name,
        "rating": fit.rating,
        "low": fit.low,
        "high": fit.high,
        "confidence": CONFIDENCE,
        "games": sum(row["games"] for row in rows),
        "games_per_rung": games,
        "interval": INTERVAL_METHOD,
        "rung_sd": fit.rung_sd,
        "fit": {"deviance": fit.deviance, "df": fit.df, "p_value": fit.p_value, "poor_fit": poor},
        "variant": VARIANT,
        "rules": Rules.preset(VARIANT).to_dict(),
        "provenance": {"ladder_version": version, **provenance},
        "rungs": rows,
    }


def rating_line(report: dict) -> str:
    """``ladder vN rating R [low, high] (95%, G games)``; ``rating > low`` for a perfect record, ``< high`` for
    a winless one (a report of format 1 has no confidence key: 95%)."""
    version = report["ladder_version"]
    games = f"{report['games']:,}"
    share = f"{report.get('confidence', CONFIDENCE):.0%}"
    if report["rating"] is not None:
        interval = f"[{report['low']:.0f}, {report['high']:.0f}]"
        return f"ladder v{version} rating {report['rating']:.0f} {interval} ({share}, {games} games)"
    if report["high"] is None:
        return f"ladder v{version} rating > {report['low']:.0f} ({share}, all {games} games won)"
    return f"ladder v{version} rating < {report['high']:.0f} ({share}, all {games} games lost)"


def fit_line(report: dict) -> str:
    """One line on how well one rating fits the record against every rung (empty for a format-1 report)."""
    fit = report.get("fit")
    if fit is None or fit["p_value"] is None:
        return ""
    test = f"deviance {fit['deviance']:.1f} on {fit['df']} df, p = {fit['p_value']:.3g}"
    if not fit["poor_fit"]:
        return f"fit: one rating fits the record against every rung ({test})"
    implied = [(row["implied_rating"], row["opponent"]) for row in report["rungs"] if row["implied_rating"] is not None]
    if len(implied) < 2:
        return f"the agent is not transitive against the rungs: {test}"
    lowest = min(implied)
    highest = max(implied)
    spread = f"implied ratings from {lowest[0]:.0f} (vs {lowest[1]}) to {highest[0]:.0f} (vs {highest[1]})"
    return f"the agent is not transitive against the rungs: {spread}, {test}"


def provenance_lines(report: dict) -> list[str]:
    """The card's lines on what was rated, on what, and where (none for a format-1 report)."""
    info = report.get("provenance")
    if info is None:
        return []
    agent_file = info["agent_file"]
    package = f"schnapsen-env {info['package_version'] or '(version unknown)'}"
    if "git_commit" in info:
        dirty = " with uncommitted changes" if info["git_dirty"] else ""
        package += f", commit {info['git_commit'][:12]}{dirty}"
    games = f"{report['games_per_rung']:,} duplicate games per rung"
    resumed = f"; resumed {len(info['resumed'])}x" if info.get("resumed") else ""
    hashed = ""
    if "files" in agent_file:
        # FILE.py: one hash over each file's relative path, a NUL byte and its bytes
        hashed = f" of {', '.join(agent_file['files'])} (each: its path, NUL, its bytes)"
    return [
        f"agent {report['agent']}: {agent_file['kind']} {agent_file['path']}",
        f"  sha256{hashed} {agent_file['sha256']}",
        f"rules: the {report['variant']} preset; ladder v{report['ladder_version']}, {games}; {package}",
        f"run {info['date']} on {describe_machine(info['machine'])}{resumed}",
        f"command: {info['command']}",
    ]


def format_card(report: dict) -> str:
    """The ladder's card: provenance, the table, the fit check and last the line of :func:`rating_line`."""
    width = max(len("opponent"), *(len(row["opponent"]) for row in report["rungs"]))
    head = f"{'opponent':<{width}} {'rating':>7} {'W-L':>9} {'win rate [95%]':>22} {'implied':>7} {'pts/game':>8}"
    lines = [*provenance_lines(report), head + f" {'ms/dec':>7}"]
    for row in report["rungs"]:
        record = f"{row['wins']}-{row['games'] - row['wins']}"
        rate = f"{row['win_rate']:.1%} [{row['low']:.1%}, {row['high']:.1%}]"
        implied = row.get("implied_rating")
        implied_text = "-" if implied is None else f"{implied:.0f}"
        cells = f"{row['rating']:>7.1f} {record:>9} {rate:>22} {implied_text:>7}"
        timing = f"{row['game_points_per_game']:>8.2f} {row['ms_per_decision']:>7.2f}"
        lines.append(f"{row['opponent']:<{width}} {cells} {timing}")
    fit = fit_line(report)
    return "\n".join([*lines, *([fit] if fit else []), rating_line(report)])


def plot_ladder(report: dict, path: str) -> str:
    """``ladder.png`` at ``path``: the rungs' fixed ratings and the agent's rating with its interval on one
    scale (a one-sided bound drawn as an arrow), with the rating line and the provenance under it."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    # (x, label, is the agent)
    points = [(row["rating"], row["opponent"], False) for row in report["rungs"]]
    agent_x = report["rating"] if report["rating"] is not None else report["low"] or report["high"]
    points = sorted([*points, (agent_x, f"{report['agent']} (rated)", True)], key=lambda point: point[0])
    notes = [rating_line(report), fit_line(report), *provenance_lines(report)]
    notes = [note for note in notes if note]
    fig = Figure(figsize=(8, 0.5 * len(points) + 1.8 + 0.22 * len(notes)), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    for y, (x, _, is_agent) in enumerate(points):
        if not is_agent:
            ax.plot([x], [y], "o", color="C0")
        elif report["rating"] is not None:
            err = [[x - report["low"]], [report["high"] - x]]
            ax.errorbar([x], [y], xerr=err, fmt="s", color="C1", capsize=4)
        else:
            marker = "4" if report["high"] is None else "3"  # a tick pointing away from the bound
            ax.plot([x], [y], marker=marker, markersize=16, color="C1")
    ax.set_yticks(range(len(points)), [point[1] for point in points])
    share = f"{report.get('confidence', CONFIDENCE):.0%}"
    ax.set_xlabel(f"ladder v{report['ladder_version']} rating, Elo (random = 0; agent with {share} interval)")
    ax.grid(axis="x", alpha=0.3)
    fig.text(0.0, 0.0, "\n".join(notes), fontsize=6.5, family="monospace", va="top", ha="left")
    fig.savefig(path, dpi=100, bbox_inches="tight")
    return path


def _ray_option(address: str | None) -> list[str]:
    """The command line's ``--ray [ADDRESS]`` as given (none without Ray)."""
    if address is None:
        return []
    return ["--ray", address] if address else ["--ray"]


def _check_kept(kept: KeptLadder) -> None:
    """:class:`~agents.evaluation.resume.Fault` unless ``kept``'s rows are the first rungs of its ladder version,
    with their ratings and seeds, each of its games per rung and no more wins than games."""
    try:
        rungs = load_ladder(kept.ladder_version)["rungs"]
    except ValueError as error:
        raise Fault("ladder_version", str(error)) from None
    if len(kept.rungs) > len(rungs):
        too_many = f"{len(kept.rungs)} rows, ladder v{kept.ladder_version} has {len(rungs)} rungs"
        raise Fault("rungs", too_many)
    for index, (row, rung) in enumerate(zip(kept.rungs, rungs)):
        for key in ("opponent", "rating", "seed"):
            if getattr(row, key) != rung[key]:
                rungs_own = f"ladder v{kept.ladder_version}'s rung {index} has {rung[key]!r}"
                raise Fault(f"rungs.{index}.{key}", f"{getattr(row, key)!r}, {rungs_own}")
        if row.games != kept.games:
            other_games = f"{row.games} games, the run plays {kept.games} per rung"
            raise Fault(f"rungs.{index}.games", other_games)
        if row.wins > row.games:
            raise Fault(f"rungs.{index}.wins", f"{row.wins} wins out of {row.games} games")


def read_partial(path: str | os.PathLike) -> dict | None:
    """The unfinished run kept at ``path`` (a ``ladder.partial.json``; None when there is none), checked by
    :class:`KeptLadder` and against its ladder version. :class:`~agents.evaluation.resume.Refused` in one
    line naming the file and the first bad field."""
    return read_kept(path, KeptLadder, _check_kept)


def resumed_provenance(kept: dict, now: dict) -> dict:
    """The provenance of a continued run: ``kept``'s (the unfinished run's) with this resumption (``now``: this
    run's :func:`~agents.evaluation.provenance.run_provenance`, its date and command) added to ``resumed``."""
    resumed = [*kept.get("resumed", []), {"date": now["date"], "command": now["command"]}]
    return {**kept, "resumed": resumed}


def _load_partial(
    directory: str,
    spec: str,
    games: int | None,
    version: int,
    agent_file: dict,
) -> dict:
    """The unfinished run in ``directory`` (:func:`read_partial`) if it rates ``spec`` at ``games`` (None: any)
    on ``version`` with the same agent file; :class:`~agents.evaluation.resume.Refused` naming what differs, what
    is missing or the first bad field."""
    partial = read_partial(os.path.join(directory, PARTIAL))
    if partial is None:
        raise Refused(f"nothing to resume: {directory} holds no {PARTIAL}")
    held = (partial["spec"], partial["games"], partial["ladder_version"])
    if held != (spec, held[1] if games is None else games, version):
        asked = f"{spec} at --games {games or held[1]} on v{version}"
        holds = f"{held[0]} at --games {held[1]} on v{held[2]}"
        raise Refused(f"cannot resume {directory}: it holds {holds}, not {asked}")
    if partial["provenance"]["agent_file"]["sha256"] != agent_file["sha256"]:
        changed = agent_file["path"]
        if "files" in agent_file:
            changed += f" or a module it imports from its folder ({', '.join(agent_file['files'])})"
        since = "changed since the run began (sha256 differs)"
        raise Refused(f"cannot resume {directory}: {changed} {since}")
    return partial


class _Run(NamedTuple):
    """What :func:`main` plays: the games per rung, the run's provenance and the rows of its
    finished rungs."""

    games: int
    provenance: dict
    rows: list[dict]


def _begin(args: argparse.Namespace, spec: str, command: str, held: contextlib.ExitStack) -> _Run:
    """The run the command line asks for, its ``--out`` or ``--resume`` folder held in ``held``
    (:func:`~agents.evaluation.resume.hold`): a new one, or the unfinished one in ``--resume``.
    :class:`~agents.evaluation.resume.Refused` for a folder another run holds, one holding an unfinished run
    (without ``--resume``), or a kept run that is not this one or is faulty; ``OSError`` as the folder's."""
    games = getattr(args, "games", None)  # None: the resumed run's, else DEFAULT_GAMES
    directory = args.resume or args.out
    provenance = run_provenance(command=command)
    provenance["agent_file"] = agent_fingerprint(args.spec)
    if args.resume is not None and not os.path.isfile(os.path.join(args.resume, PARTIAL)):
        raise Refused(f"nothing to resume: {args.resume} holds no {PARTIAL}")
    if directory is not None:
        held.enter_context(hold(directory, what="ladder"))
    if args.resume is not None:
        partial = _load_partial(args.resume, spec, games, args.version, provenance["agent_file"])
        continued = resumed_provenance(kept=partial["provenance"], now=provenance)
        return _Run(games=partial["games"], provenance=continued, rows=partial["rungs"])
    if directory is not None and os.path.isfile(os.path.join(directory, PARTIAL)):
        message = f"{directory} holds an unfinished ladder ({PARTIAL}): continue it with --resume {directory}"
        raise Refused(f"{message}, or choose another --out")
    return _Run(games=DEFAULT_GAMES if games is None else games, provenance=provenance, rows=[])


def _write_outputs(directory: str, report: dict) -> None:
    """``ladder.json`` and ``ladder.png`` into ``directory``, the partial file then removed."""
    path = os.path.join(directory, "ladder.json")
    write_json(path, report)
    picture = os.path.join(directory, "ladder.png")
    with replace_atomically(picture) as temporary:
        plot_ladder(report, temporary)
    os.remove(os.path.join(directory, PARTIAL))
    print(f"wrote {path}\nwrote {picture}")


def build_parser() -> argparse.ArgumentParser:
    """The command line's parser (defaults shown by ``--help``)."""
    ap = argparse.ArgumentParser(
        prog=launcher("agents.evaluation.ladder"),
        description=plain_text(__doc__.splitlines()[0]),
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    ap.add_argument("spec", metavar="SPEC", help="agent spec, e.g. heuristic, mymodule:MyAgent, my_agent.py:policy")
    games_default = f"default {DEFAULT_GAMES}, or the resumed run's"
    games_help = f"duplicate games per rung, {EVEN_GAMES}; {games_default}"
    # SUPPRESS: no attribute unless given (the help states the default itself)
    ap.add_argument("--games", type=even_games, default=argparse.SUPPRESS, help=games_help)
    workers_help = f"processes; default: the CPUs this process may use ({usable_cpus()} here)"
    ap.add_argument("--workers", type=whole_range(1, 256), default=argparse.SUPPRESS, help=workers_help)
    add_ray_argument(ap)
    ap.add_argument("--version", type=whole_range(1), default=LATEST, help="ladder version")
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--out", metavar="DIR", default=None, help="directory for ladder.json and ladder.png")
    where.add_argument(
        "--resume", metavar="DIR", default=None, help=f"continue the unfinished run in DIR ({PARTIAL}), as --out DIR"
    )
    ap.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    ap.add_argument("--traceback", action="store_true", help=TRACEBACK_HELP)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: the card on stdout, ``ladder.json`` and ``ladder.png`` in ``--out`` (finished rungs
    kept in ``ladder.partial.json`` until the run ends; the folder held by this run alone); an error is one line
    on stderr and exit status 2, an interrupt (Ctrl-C, SIGTERM) exit status 130."""
    ap = build_parser()
    args = ap.parse_args(argv)
    arguments = sys.argv[1:] if argv is None else list(argv)
    command = shlex.join([*ap.prog.split(), *arguments])
    directory = args.resume or args.out
    # a FILE.py spec with its path made absolute: a resume from another working directory names the same file
    spec = portable_spec(args.spec)
    partial_path = None if directory is None else os.path.join(directory, PARTIAL)
    rows: list[dict] = []
    try:
        with contextlib.ExitStack() as held:
            load_ladder(args.version)
            workers = local_workers(args.ray, getattr(args, "workers", None))
            run = _begin(args, spec, command, held)
            rows = run.rows
            if args.ray is not None:
                init_ray(args.ray)
            partial_head = {"spec": spec, "games": run.games, "ladder_version": args.version}

            def keep(finished: list[dict]) -> None:
                rows[:] = finished
                if partial_path is not None:
                    kept = {**partial_head, "provenance": run.provenance, "rungs": finished}
                    write_json(path=partial_path, data=kept)

            with sigterm_as_interrupt():
                report = ladder(
                    args.spec,
                    run.games,
                    workers=workers,
                    ray=args.ray is not None,
                    version=args.version,
                    progress=not args.no_progress,
                    finished=rows,
                    on_rung=keep,
                    provenance=run.provenance,
                )
            print(format_card(report))
            if directory is not None:
                _write_outputs(directory, report)
    except (ValueError, ImportError, OSError, RuntimeError, WorkerError, Refused) as error:
        note = traceback_note(error, out=directory, show=args.traceback)
        ap.exit(2, f"{ap.prog}: error: {one_line(error)}{note}\n")
    except KeyboardInterrupt:
        if partial_path is None or not rows:
            print(f"{ap.prog}: interrupted: no results written", file=sys.stderr)
        else:
            again = shlex.join([args.spec, "--version", str(args.version), *_ray_option(args.ray)])
            kept = f"{len(rows)} of {len(load_ladder(args.version)['rungs'])} rungs kept in {partial_path}"
            print(f"{ap.prog}: interrupted: {kept}; continue: {ap.prog} {again} --resume {directory}", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
