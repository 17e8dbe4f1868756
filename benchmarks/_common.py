"""Shared by the benchmark scripts: where a figure was measured, and the docs page they write.

Every script prints its figures; with ``--write-docs`` (:func:`add_docs_flag`, :func:`parse_args`)
it also replaces its block of docs/benchmarks.md, the lines between ``<!-- NAME:start -->`` and
``<!-- NAME:end -->``.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as `python benchmarks/X.py` from a clone
from schnapsen_env.cli_io import even_games, whole_range  # noqa: E402

PAGE = ROOT / "docs" / "benchmarks.md"

#: argparse types: a count >= 1, a seed or count >= 0
positive, count = whole_range(1), whole_range(0)
#: an argparse type: a number of games that duplicate deals split in pairs
even = even_games


def machine_description() -> str:
    """One line: date, cores, CPU model, load average, Python (so a figure says where it was
    measured)."""
    from agents.evaluation.provenance import machine

    info = machine()
    load = "" if info["load_average"] is None else f", load average {info['load_average']:.2f} at start"
    return (
        f"Measured {time.strftime('%Y-%m-%d')} on {os.cpu_count()} CPU cores ({info['cpu']}){load}, "
        f"Python {info['python']}"
    )


def parser(doc: str) -> argparse.ArgumentParser:
    """A script's parser, described by the first line of its docstring ``doc``."""
    return argparse.ArgumentParser(description=doc.splitlines()[0])


def add_docs_flag(ap: argparse.ArgumentParser) -> None:
    """``--write-docs``: also write the printed block into docs/benchmarks.md."""
    ap.add_argument(
        "--write-docs",
        action="store_true",
        help="also replace this script's block of docs/benchmarks.md",
    )


def parse_args(ap: argparse.ArgumentParser, argv=None, seed: int | None = 0) -> argparse.Namespace:
    """``ap``'s arguments, ``--seed`` (default ``seed``; None: none) and ``--write-docs`` added
    last."""
    if seed is not None:
        ap.add_argument("--seed", type=count, default=seed)
    add_docs_flag(ap)
    return ap.parse_args(argv)


def publish(block: str, text: str, write: bool, page: Path = PAGE) -> None:
    """Print ``text``; with ``write``, replace the ``block`` section of ``page`` with it (the
    markers ``<!-- block:start -->`` and ``<!-- block:end -->`` on lines of their own; a page
    without them is left alone, with a message on stderr)."""
    print(text, flush=True)
    if not write:
        return
    start, end = f"<!-- {block}:start -->", f"<!-- {block}:end -->"
    content = page.read_text(encoding="utf-8")
    pattern = re.compile(f"^{re.escape(start)}$.*?^{re.escape(end)}$", re.DOTALL | re.MULTILINE)
    if not pattern.search(content):
        print(f"{page} has no {start} ... {end} block: not updated", file=sys.stderr)
        return
    page.write_text(
        pattern.sub(lambda m: f"{start}\n{text}\n{end}", content, count=1),
        encoding="utf-8",
    )
    print(f"{page} updated ({block} block)")
