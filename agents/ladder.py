"""The ladder: one command rates any agent on a fixed scale (Elo, ``random`` = 0) that means the same in every run.

    python -m agents.ladder SPEC [--games 400] [--workers W] [--out DIR] [--version 1]
    python -m agents.ladder agents.heuristic:HeuristicAgent --out runs/ladder

SPEC is any agent spec (:func:`agents.make_agent`), your own as ``MODULE:NAME`` or ``FILE.py:NAME``. It plays
``--games`` duplicate games against each rung of the ladder version (``agents/ladder_vN.json``: the rung,
its fixed rating and its deal seed, calibrated by ``benchmarks/ladder_calibration.py``), each pair through
:func:`agents.arena.play_pair`. Its rating is the maximum-likelihood Elo with the rungs held fixed (with the
arena's :data:`agents.stats.PRIOR_WINS` virtual win and loss per rung), its 95% interval the likelihood-ratio
one. Results are the same for any number of workers; only ``ms_per_decision`` is a timing."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from tqdm import tqdm

from .arena import AgentLike, play_pair, whole_range
from .stats import ELO_PER_NATURAL_UNIT, PRIOR_WINS

#: the ladder data files, one per version
LADDERS = {int(p.stem.removeprefix("ladder_v")): p for p in Path(__file__).parent.glob("ladder_v*.json")}
#: the version used unless one is named
LATEST = max(LADDERS)
#: likelihood-ratio threshold of a 95% interval (chi-square, 1 degree of freedom)
CHI2_95 = 3.841458820694124
#: the search range of a rating, Elo
RATING_RANGE = (-4000.0, 6000.0)


def load_ladder(version: int = LATEST) -> dict:
    """The rungs of ladder ``version``; ``ValueError`` naming the known versions for another."""
    if version not in LADDERS:
        raise ValueError(f"unknown ladder version {version}: known versions are {', '.join(map(str, sorted(LADDERS)))}")
    return json.loads(LADDERS[version].read_text())


def fit_rating(rungs: Sequence[tuple[float, int, int]]) -> tuple[float, float, float]:
    """``(rating, low, high)`` in Elo from ``(rung rating, wins, losses)`` per rung, the rungs fixed:
    the likelihood's maximum and its 95% likelihood-ratio interval (each rung adds :data:`PRIOR_WINS`
    virtual wins and losses, so an unbeaten or winless agent has a finite rating)."""
    from scipy.optimize import brentq

    counts = [(r / ELO_PER_NATURAL_UNIT, w + PRIOR_WINS, n + PRIOR_WINS) for r, w, n in rungs]

    def loglik(x: float) -> float:  # x: rating in natural units; log sigmoid written stably
        return -sum(w * math.log1p(math.exp(r - x)) + n * math.log1p(math.exp(x - r)) for r, w, n in counts)

    def slope(x: float) -> float:
        return sum(w / (1 + math.exp(x - r)) - n / (1 + math.exp(r - x)) for r, w, n in counts)

    lo, hi = (v / ELO_PER_NATURAL_UNIT for v in RATING_RANGE)
    best = brentq(slope, lo, hi)
    top = loglik(best) - CHI2_95 / 2
    low, high = brentq(lambda x: loglik(x) - top, lo, best), brentq(lambda x: loglik(x) - top, best, hi)
    return tuple(round(ELO_PER_NATURAL_UNIT * v, 1) for v in (best, low, high))


def ladder(agent: AgentLike, games: int = 400, workers: int = 1, version: int = LATEST, progress: bool = False) -> dict:
    """Rate ``agent`` (a spec, or an :class:`~agents.base.Agent` with ``workers=1``) on ladder ``version``:
    ``games`` duplicate games per rung, with ``progress`` one bar over them all. Returns the ``ladder.json``
    dict (module docstring). ``ValueError`` for a bad spec, an odd ``games``, an unknown version, or an agent
    that plays an illegal action."""
    rungs, rows, results = load_ladder(version)["rungs"], [], []
    total = games * len(rungs)
    with tqdm(total=total, desc=f"ladder v{version}", unit="game", leave=False, disable=not progress) as bar:
        for rung in rungs:
            bar.set_postfix_str(rung["opponent"])
            r = play_pair(agent, rung["opponent"], games, rung["seed"], workers=workers, progress=bar.update)
            results.append((rung["rating"], r.wins[0], r.wins[1]))
            row = {key: rung[key] for key in ("opponent", "rating", "seed")}
            row.update(games=r.games, wins=r.wins[0], win_rate=r.win_rate, low=r.win_rate_ci[0], high=r.win_rate_ci[1])
            row.update(game_points_per_game=r.mean_game_points[0], ms_per_decision=round(r.ms_per_decision[0], 3))
            rows.append(row)
    rating, low, high = fit_rating(results)
    games = sum(row["games"] for row in rows)
    return dict(ladder_version=version, agent=r.agents[0], rating=rating, low=low, high=high, games=games, rungs=rows)


def format_card(report: dict) -> str:
    """The ladder's table and its last line ``ladder vN rating R [low, high]``."""
    width = max(len("opponent"), *(len(row["opponent"]) for row in report["rungs"]))
    lines = [f"{'opponent':<{width}} {'rating':>7} {'W-L':>9} {'win rate [95%]':>22} {'pts/game':>8} {'ms/dec':>7}"]
    for row in report["rungs"]:
        wl = f"{row['wins']}-{row['games'] - row['wins']}"
        rate = f"{row['win_rate']:.1%} [{row['low']:.1%}, {row['high']:.1%}]"
        points_ms = f"{row['game_points_per_game']:>8.2f} {row['ms_per_decision']:>7.2f}"
        lines.append(f"{row['opponent']:<{width}} {row['rating']:>7.1f} {wl:>9} {rate:>22} {points_ms}")
    v, r = report["ladder_version"], report
    return "\n".join([*lines, f"ladder v{v} rating {r['rating']:.0f} [{r['low']:.0f}, {r['high']:.0f}]"])


def plot_ladder(report: dict, path: str) -> str:
    """``ladder.png``: the rungs' fixed ratings and the agent's rating with its interval on one scale."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rungs = sorted((row["rating"], row["opponent"], None) for row in report["rungs"])
    points = sorted([*rungs, (report["rating"], report["agent"], (report["low"], report["high"]))], key=lambda p: p[0])
    fig = Figure(figsize=(7, 0.5 * len(points) + 1.5), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    for y, (x, _, ci) in enumerate(points):
        err = None if ci is None else [[x - ci[0]], [ci[1] - x]]
        ax.errorbar([x], [y], xerr=err, fmt="s" if ci else "o", color="C1" if ci else "C0", capsize=4)
    ax.set_yticks(range(len(points)), [p[1] for p in points])
    ax.set_xlabel(f"ladder v{report['ladder_version']} rating, Elo (random = 0; agent with 95% interval)")
    ax.grid(axis="x", alpha=0.3)
    fig.savefig(path, dpi=100, bbox_inches="tight")
    return path


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: the card on stdout, ``ladder.json`` and ``ladder.png`` in ``--out``; an error is one
    line on stderr and exit status 2."""
    ap = argparse.ArgumentParser(prog="python -m agents.ladder", description=__doc__.splitlines()[0])
    ap.add_argument("spec", metavar="SPEC", help="agent spec, e.g. heuristic, mymodule:MyAgent, my_agent.py:policy")
    ap.add_argument("--games", type=whole_range(2), default=400, help="duplicate games per rung (even)")
    ap.add_argument("--workers", type=whole_range(1, 256), default=os.cpu_count() or 1, help="processes")
    ap.add_argument("--version", type=whole_range(1), default=LATEST, help=f"ladder version (latest {LATEST})")
    ap.add_argument("--out", default=None, help="directory for ladder.json and ladder.png")
    ap.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    args = ap.parse_args(argv)
    try:
        load_ladder(args.version)
        if args.out is not None:
            os.makedirs(args.out, exist_ok=True)
        report = ladder(args.spec, args.games, args.workers, args.version, not args.no_progress)
    except (ValueError, ImportError, OSError) as e:
        ap.exit(2, f"{ap.prog}: error: {' '.join(str(e).split())}\n")
    except KeyboardInterrupt:
        print(f"{ap.prog}: interrupted: no results written", file=sys.stderr)
        return 130
    print(format_card(report))
    if args.out is not None:
        path = os.path.join(args.out, "ladder.json")
        Path(path).write_text(json.dumps(report, indent=2))
        print(f"wrote {path}\nwrote {plot_ladder(report, os.path.join(args.out, 'ladder.png'))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
