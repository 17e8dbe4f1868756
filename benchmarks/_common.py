"""Shared by the benchmark scripts: where a figure was measured, and the opt-in README update.

Every script prints its table; README.md changes only with ``--write-readme``
(:func:`add_write_readme_flag`), and then only the block between the script's
``<!-- NAME:start -->`` and ``<!-- NAME:end -->`` markers (lines of their own).
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import re
import sys
import time
from pathlib import Path

from schnapsen_env.cli_io import whole_number

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "docs" / "benchmarks.md"  # the Benchmarks page of the docs site


def cpu_model() -> str:
    """The CPU model name (``/proc/cpuinfo`` on Linux), else what ``platform`` knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_description() -> str:
    """One line: date, cores, CPU model, load average, Python (so a figure says where it was measured)."""
    load = ""
    if hasattr(os, "getloadavg"):
        load = f", load average {os.getloadavg()[0]:.2f} at start"
    return (f"Measured {time.strftime('%Y-%m-%d')} on {os.cpu_count()} CPU cores ({cpu_model()}){load}, "
            f"Python {platform.python_version()}")


def add_write_readme_flag(ap: argparse.ArgumentParser, block: str) -> None:
    """``--write-readme``: replace the ``block`` section of README.md with the printed table."""
    ap.add_argument("--write-readme", action="store_true",
                    help=f"also write the table into README.md between <!-- {block}:start --> and "
                         f"<!-- {block}:end --> (default: only print it)")


def write_readme_block(block: str, text: str, readme: Path = README) -> bool:
    """Replace the ``block`` section of ``readme`` with ``text``; False (and a message) when it has
    no such markers on lines of their own. Raises ``OSError`` when the file cannot be read or written."""
    start, end = f"<!-- {block}:start -->", f"<!-- {block}:end -->"
    content = readme.read_text(encoding="utf-8")
    pattern = re.compile("^" + re.escape(start) + "$.*?^" + re.escape(end) + "$", re.DOTALL | re.MULTILINE)
    if not pattern.search(content):
        print(f"{readme} has no {start} ... {end} block: not updated", file=sys.stderr)
        return False
    readme.write_text(pattern.sub(lambda m: f"{start}\n{text}\n{end}", content, count=1), encoding="utf-8")
    print(f"{readme} updated ({block} block)")
    return True


def whole(least: int):
    """An argparse type: a whole number >= ``least`` (else argparse's one-line error naming the value)."""
    def parse(text: str) -> int:
        try:
            value = whole_number(text)  # ASCII digits only: int() takes ' 5', '+5', '5_0', other digits
        except argparse.ArgumentTypeError:
            value = None
        if value is None or value < least:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {least}, got {text!r}")
        return value
    return parse


#: argparse types: a count >= 1, a seed or count >= 0
positive, count = whole(1), whole(0)

#: longest measurement a benchmark option may ask for (seconds)
MAX_SECONDS = 3600.0


def seconds(text: str) -> float:
    """An argparse type: a number of seconds in (0, :data:`MAX_SECONDS`] (not nan or inf)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= MAX_SECONDS:  # nan fails too
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0 and <= {MAX_SECONDS:g}, got {text!r}")
    return value


def run_main(main, prog: str) -> int:
    """``main()``'s exit status, with standard output that cannot take the figures handled as the
    project's CLIs do: a reader that stopped reading (``| head``) ends the script quietly with 1, a full
    disk or another write error is one line naming standard output and 2 (never a traceback)."""
    from schnapsen_env.cli_io import say, silence

    try:
        code = main()
        if sys.stdout is not None:  # None: closed (`>&-`), and print() wrote nothing
            sys.stdout.flush()
    except BrokenPipeError:
        silence(sys.stdout)
        return 1
    except OSError as e:
        if e.filename is not None:  # a file the script writes: its own message is the traceback's last line
            raise
        silence(sys.stdout)
        say(f"{prog}: error: cannot write to standard output: {e.strerror or e}")
        return 2
    return 0 if code is None else code
