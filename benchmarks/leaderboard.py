"""The leaderboard: every shipped agent rated on the ladder (:func:`agents.ladder.ladder`), one table.

Each agent of :data:`agents.AGENT_NAMES` that builds from its bare name (those needing a checkpoint
or an optional package are listed as skipped) plays ``--games`` duplicate games against each rung.
The table and its header line (date, machine, load, ladder version, games per rung) are printed and
written into docs/leaderboard.md, between ``<!-- leaderboard:start -->`` and ``<!-- leaderboard:end
-->``.

    python benchmarks/leaderboard.py [--games 400] [--workers 1] [--agents SPEC ...] [--no-write]"""

from __future__ import annotations

import inspect
import statistics
import time

from _common import ROOT, even, machine_description, parser, positive, publish

from agents import AGENT_NAMES, agent_class, make_agent, parse_spec
from agents.ladder import LATEST, ladder, load_ladder


def is_rung(spec: str, rung: str) -> bool:
    """Whether agent ``spec`` is rung ``rung`` (``pimc`` is ``pimc:samples=40``: its default
    samples)."""
    name, options = parse_spec(rung)
    defaults = inspect.signature(agent_class(name).__init__).parameters
    return spec == rung or (
        parse_spec(spec) == (name, {}) and all(defaults[k].default == v for k, v in options.items())
    )


def shipped_agents() -> tuple[list[str], list[str]]:
    """The agent names that build bare, and ``"name (reason)"`` for those that do not."""
    ok, skipped = [], []
    for name in AGENT_NAMES:
        try:
            make_agent(name)
            ok.append(name)
        except (ValueError, ImportError) as e:
            skipped.append(f"`{name}` ({str(e).removeprefix(f'bad agent spec {name!r}: ').split(' (')[0]})")
    return ok, skipped


def rating_cells(report: dict) -> list[str]:
    """The rating and interval cells of one agent: ``> low`` / ``< high`` with an empty interval for a perfect
    or winless record (its ladder.json has rating null and one bound null)."""
    if report["rating"] is not None:
        return [f"{report['rating']:.0f}", f"[{report['low']:.0f}, {report['high']:.0f}]"]
    if report["high"] is None:
        return [f"> {report['low']:.0f}", ""]
    return [f"< {report['high']:.0f}", ""]


def sort_key(report: dict) -> float:
    """Where the agent sorts on the board: its rating, or its one finite bound."""
    if report["rating"] is not None:
        return report["rating"]
    if report["high"] is None:
        return report["low"]
    return report["high"]


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--games", type=even, default=400, help="duplicate games per rung")
    ap.add_argument("--workers", type=positive, default=1)
    ap.add_argument("--version", type=positive, default=LATEST, help="ladder version")
    ap.add_argument(
        "--agents",
        nargs="+",
        default=None,
        help="agent specs (default: every shipped agent)",
    )
    ap.add_argument(
        "--no-write",
        action="store_true",
        help="print only; leave docs/leaderboard.md alone",
    )
    args = ap.parse_args()
    specs, skipped = (args.agents, []) if args.agents else shipped_agents()
    rungs = [r["opponent"] for r in load_ladder(args.version)["rungs"]]
    machine, start = machine_description(), time.perf_counter()
    head = ["agent", "rating", "95% interval", "games", "ms/decision", *(f"vs {r}" for r in rungs)]
    rows = []  # (rating, table row)
    for spec in specs:
        report = ladder(spec, args.games, workers=args.workers, version=args.version, progress=True)
        wins = [f"{row['win_rate']:.1%}" + " (itself)" * is_rung(spec, row["opponent"]) for row in report["rungs"]]
        ms = statistics.median(row["ms_per_decision"] for row in report["rungs"])
        cells = [f"`{spec}`", *rating_cells(report)]
        rows.append(
            (
                sort_key(report),
                "| " + " | ".join([*cells, str(report["games"]), f"{ms:.3f}", *wins]) + " |",
            )
        )
        print(rows[-1][1], flush=True)
    lines = [
        f"{machine}; ladder v{args.version}, {args.games} games per rung, --workers {args.workers}, "
        f"{(time.perf_counter() - start) / 60:.0f} min in all.",
        "\n| " + " | ".join(head) + " |\n|" + "---|" * len(head),
        *(row for _, row in sorted(rows, key=lambda r: -r[0])),
    ]
    if skipped:
        lines += ["", "Not rated: " + ", ".join(skipped) + "."]
    publish("leaderboard", "\n".join(lines), not args.no_write, ROOT / "docs" / "leaderboard.md")


if __name__ == "__main__":
    main()
