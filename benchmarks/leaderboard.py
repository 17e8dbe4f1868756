"""The leaderboard: every shipped agent rated on the ladder (:func:`agents.evaluation.ladder.ladder`), one table.

Each agent of :data:`agents.AGENT_NAMES` that builds from its bare name (those needing a checkpoint
or an optional package are listed as skipped) plays ``--games`` duplicate games against each rung.
Each agent's report is kept in ``--out`` (``runs/leaderboard/<agent>/ladder.json``, as ``python -m
agents.evaluation.ladder SPEC --out DIR`` writes it; the rungs finished so far in ``ladder.partial.json``), so a rerun
of the same command plays only what is missing: a finished report of the same agent file, games and
ladder version is reused, an unfinished one continued. The board (a header line: ladder version, games per
rung, when and where the reports were made) and a short "which agent for what" table (strongest, fastest
strong, reference baseline) are printed and written into docs/leaderboard.md, between ``<!--
leaderboard:start -->``/``<!-- leaderboard:end -->`` and ``<!-- which-agent:start -->``/``<!--
which-agent:end -->``.

    python benchmarks/leaderboard.py [--games 400] [--workers 1] [--agents SPEC ...] [--out DIR] [--no-write]"""

from __future__ import annotations

import inspect
import json
import os
import re
import shlex
import statistics
import sys
from schnapsen_env.cli_io import one_line
from pathlib import Path
from typing import NamedTuple

from _common import ROOT, even, parser, positive, publish

from agents import AGENT_NAMES, agent_class, make_agent, parse_spec
from agents.evaluation.ladder import (
    LATEST,
    PARTIAL,
    ladder,
    load_ladder,
    read_partial,
    resumed_provenance,
)
from agents.evaluation.provenance import agent_fingerprint, run_provenance
from agents.evaluation.resume import Refused, hold, write_json
from agents.evaluation.workers import sigterm_as_interrupt

#: the page the board is written into
PAGE = ROOT / "docs" / "leaderboard.md"
#: where each agent's ladder report is kept unless --out says otherwise
DEFAULT_OUT = ROOT / "runs" / "leaderboard"
#: the finished report in an agent's folder (the ladder's own name for it)
REPORT = "ladder.json"
#: "fastest strong": the fastest agent rated at most this many Elo below the strongest (it then scores at
#: least about 43% against it)
STRONG_WITHIN = 50
#: the reference baseline of the "which agent" table: the rule-based player that trained agents are measured
#: against (train.py's evaluation, the arena's examples)
BASELINE = "heuristic"


class BoardRow(NamedTuple):
    """One agent on the board, from its ladder report."""

    spec: str
    rating: float  #: where it sorts: its rating, or its one finite bound (:func:`sort_key`)
    rating_text: str  #: ``406 [377, 436]``, or ``> 812`` for a perfect record
    ms: float  #: the median over rungs of its median milliseconds per decision
    line: str  #: its Markdown table row
    winless: bool = False  #: it lost every game (``rating`` is then only an upper bound)


class Choice(NamedTuple):
    """A row of the "which agent for what" table."""

    role: str
    row: BoardRow


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


def folder_name(spec: str) -> str:
    """The folder of ``spec``'s report under ``--out``: the spec with every character but letters, digits and
    ``._=-`` as ``_`` (``pimc:samples=40`` -> ``pimc_samples=40``)."""
    return re.sub(r"[^A-Za-z0-9._=-]", "_", spec)


def read_json(path: Path) -> dict | None:
    """The JSON object in ``path``; None if there is none or it cannot be read."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def rates(data: dict | None, spec: str, games: int, version: int, sha256: str) -> bool:
    """Whether ``data`` (a ladder.json or ladder.partial.json dict) rates ``spec``'s current file at
    ``games`` per rung on ladder ``version``."""
    if data is None:
        return False
    try:
        held = (
            data.get("agent", data.get("spec")),
            data.get("games_per_rung", data.get("games")),
            data["ladder_version"],
            data["provenance"]["agent_file"]["sha256"],
        )
    except (KeyError, TypeError):
        return False
    return held == (spec, games, version, sha256)


def rate(spec: str, games: int, workers: int, version: int, folder: Path, command: str) -> dict:
    """``spec``'s ladder report: the one in ``folder`` if it rates the same agent file at ``games`` on
    ``version``, else played (continuing ``folder``'s unfinished run of the same, the finished rungs kept in
    its ladder.partial.json after each rung; :func:`agents.evaluation.ladder.read_partial` checks it) and
    written there, the folder held by this run (:func:`agents.evaluation.resume.hold`). ``Refused`` for a faulty
    partial file or a folder another run holds."""
    sha256 = agent_fingerprint(spec)["sha256"]
    report = read_json(folder / REPORT)
    if rates(data=report, spec=spec, games=games, version=version, sha256=sha256):
        print(f"{spec}: kept {folder / REPORT}", flush=True)
        return report
    with hold(folder, what="ladder"):
        partial = read_partial(folder / PARTIAL)
        provenance = run_provenance(command=command)
        finished = []
        if rates(data=partial, spec=spec, games=games, version=version, sha256=sha256):
            finished = partial["rungs"]
            provenance = resumed_provenance(partial["provenance"], provenance)
            print(f"{spec}: continuing {folder / PARTIAL} ({len(finished)} rungs done)", flush=True)
        head = {"spec": spec, "games": games, "ladder_version": version}

        def keep(rows: list[dict]) -> None:
            kept = {**head, "provenance": provenance, "rungs": rows}
            write_json(path=folder / PARTIAL, data=kept)

        report = ladder(
            spec,
            games,
            workers=workers,
            version=version,
            progress=True,
            finished=finished,
            on_rung=keep,
            provenance=provenance,
        )
        write_json(path=folder / REPORT, data=report)
        (folder / PARTIAL).unlink(missing_ok=True)
    print(f"{spec}: wrote {folder / REPORT}", flush=True)
    return report


def board_row(spec: str, report: dict) -> BoardRow:
    """``spec``'s row of the board: rating, interval, games, ms per decision, fit, the win rate per
    rung."""
    wins = [f"{row['win_rate']:.1%}" + " (itself)" * is_rung(spec, row["opponent"]) for row in report["rungs"]]
    ms = statistics.median(row["ms_per_decision"] for row in report["rungs"])
    fit = report["fit"]
    p_value = fit["p_value"]
    fit_cell = "-"
    if p_value is not None:
        fit_cell = f"p = {p_value:.2g}" + " (poor)" * fit["poor_fit"]
    cells = [f"`{spec}`", *rating_cells(report), str(report["games"]), f"{ms:.3f}", fit_cell, *wins]
    rating, interval = rating_cells(report)
    return BoardRow(
        spec=spec,
        rating=sort_key(report),
        rating_text=f"{rating} {interval}".strip(),
        ms=ms,
        line="| " + " | ".join(cells) + " |",
        winless=report["rating"] is None and report["low"] is None,
    )


def rung_check(specs: list[str], reports: list[dict], rungs: list[dict]) -> str:
    """A line on the agents that are rungs: whether each one's interval holds its rung's fixed
    rating."""
    parts = []
    for spec, report in zip(specs, reports, strict=True):
        rung = next((rung for rung in rungs if is_rung(spec, rung["opponent"])), None)
        if rung is None or report["rating"] is None:
            continue
        inside = report["low"] <= rung["rating"] <= report["high"]
        parts.append(f"`{spec}` {'holds' if inside else '**misses**'} {rung['rating']:.1f}")
    if not parts:
        return ""
    intro = "Agents that are rungs, their interval against their rung's fixed rating: "
    return intro + ", ".join(parts) + "."


def where_made(reports: list[dict]) -> str:
    """When and where the reports were made: the dates (UTC), the machines and their load at
    start."""
    infos = [report["provenance"] for report in reports]
    dates = sorted(info["date"][:10] for info in infos)
    when = dates[0] if dates[0] == dates[-1] else f"{dates[0]} to {dates[-1]}"
    hosts = [info["machine"] for info in infos]
    machines = sorted({f"{host['usable_cores']} cores of {host['cpu']}" for host in hosts})
    loads = sorted(host["load_average"] for host in hosts if host["load_average"] is not None)
    spread = ""
    if loads:
        upper = f" to {loads[-1]:.2f}" * (loads[0] != loads[-1])
        spread = f"{loads[0]:.2f}{upper}"
    load = f", load {spread} at start" if loads else ""
    return f"Played {when} (UTC) on {' and '.join(machines)}{load}"


def which_agent(rows: list[BoardRow]) -> list[Choice]:
    """The strongest agent, the fastest one rated at most :data:`STRONG_WITHIN` Elo below it, and
    :data:`BASELINE` (if rated); an agent that lost every game is neither strong nor strongest (its rating
    is only an upper bound) unless every agent did."""
    candidates = [row for row in rows if not row.winless] or rows
    strongest = max(candidates, key=lambda row: row.rating)
    strong = [row for row in candidates if row.rating >= strongest.rating - STRONG_WITHIN]
    fastest = min(strong, key=lambda row: row.ms)
    fastest_role = f"fastest strong (at most {STRONG_WITHIN} Elo below the strongest)"
    choices = [
        Choice(role="strongest", row=strongest),
        Choice(role=fastest_role, row=fastest),
    ]
    baselines = [row for row in rows if row.spec == BASELINE]
    choices += [Choice(role="reference baseline (rule-based)", row=row) for row in baselines]
    return choices


def which_agent_table(rows: list[BoardRow], version: int, games: int) -> str:
    """The "which agent for what" block: role, agent, rating with its 95% interval, ms per decision, and the
    line naming the board it comes from (ladder ``version``, ``games`` per rung)."""
    lines = ["| for | agent | rating [95%] | median ms/decision |", "|---|---|---|---|"]
    for choice in which_agent(rows):
        row = choice.row
        lines.append(f"| {choice.role} | `{row.spec}` | {row.rating_text} | {row.ms:.3f} |")
    lines += ["", f"From the board below (ladder v{version}, {games} games per rung)."]
    return "\n".join(lines)


def board(
    specs: list[str],
    reports: list[dict],
    version: int,
    games: int,
    out: Path,
    skipped: list[str],
) -> str:
    """The leaderboard block: the header line, the table sorted by rating, the rungs' check, the
    skipped."""
    rungs = load_ladder(version)["rungs"]
    versus = [f"vs {r['opponent']}" for r in rungs]
    head = ["agent", "rating", "95% interval", "games", "ms/decision", "fit", *versus]
    rated = zip(specs, reports, strict=True)
    rows = [board_row(spec=spec, report=report) for spec, report in rated]
    rows.sort(key=lambda row: -row.rating)
    shown = os.path.relpath(out, ROOT) if out.is_relative_to(ROOT) else str(out)
    made = where_made(reports)
    report_paths = f"`{shown}/<agent>/{REPORT}`"
    lines = [
        f"{made}; ladder v{version}, {games} games per rung; the reports: {report_paths}.",
        "\n| " + " | ".join(head) + " |\n|" + "---|" * len(head),
        *(row.line for row in rows),
    ]
    check = rung_check(specs=specs, reports=reports, rungs=rungs)
    if check:
        lines += ["", check]
    if skipped:
        lines += ["", "Not rated: " + ", ".join(skipped) + "."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Rate what is missing, then print (and unless ``--no-write`` write) both blocks; 130 on an
    interrupt."""
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
    out_default = "default runs/leaderboard"
    out_help = f"folder of the agents' reports (a rerun reuses and continues them); {out_default}"
    ap.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        help=out_help,
    )
    ap.add_argument(
        "--no-write",
        action="store_true",
        help="print only; leave docs/leaderboard.md alone",
    )
    args = ap.parse_args(argv)
    specs, skipped = (args.agents, []) if args.agents else shipped_agents()
    try:
        load_ladder(args.version)
    except ValueError as error:
        ap.exit(2, f"{ap.prog}: error: {error}\n")
    arguments = sys.argv[1:] if argv is None else list(argv)
    command = shlex.join(["python", "benchmarks/leaderboard.py", *arguments])
    out = args.out.resolve()
    reports = []
    try:
        with sigterm_as_interrupt():
            for spec in specs:
                report = rate(
                    spec=spec,
                    games=args.games,
                    workers=args.workers,
                    version=args.version,
                    folder=out / folder_name(spec),
                    command=command,
                )
                reports.append(report)
    except (ValueError, ImportError, OSError, Refused) as error:
        ap.exit(2, f"{ap.prog}: error: {one_line(error)}\n")
    except KeyboardInterrupt:
        continue_hint = "run the same command to continue"
        print(f"interrupted: finished rungs kept in {out}; {continue_hint}", file=sys.stderr)
        return 130
    rated = zip(specs, reports, strict=True)
    rows = [board_row(spec=spec, report=report) for spec, report in rated]
    write = not args.no_write
    summary = which_agent_table(rows=rows, version=args.version, games=args.games)
    publish(block="which-agent", text=summary, write=write, page=PAGE)
    text = board(specs, reports, version=args.version, games=args.games, out=out, skipped=skipped)
    publish(block="leaderboard", text=text, write=write, page=PAGE)
    return 0


if __name__ == "__main__":
    sys.exit(main())
