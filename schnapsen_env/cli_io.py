"""Small helpers shared by the command-line tools (replay, play, arena, train). Standard library only."""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import TextIO

#: a whole number on a command line: ASCII digits after an optional minus
_WHOLE_RE = re.compile(r"-?[0-9]+")


def whole_number(text: str) -> int:
    """An argparse type: ``text`` as an int when it is ASCII digits after an optional minus, else
    ``argparse.ArgumentTypeError`` (the caller checks the range and names the limit)."""
    if not _WHOLE_RE.fullmatch(text):
        raise argparse.ArgumentTypeError(f"expected a whole number in ASCII digits, got {text[:40]!r}")
    return int(text)


def whole_range(low: int, high: int | None = None):
    """An argparse type: a whole number in ``low..high``."""

    def parse(text: str) -> int:
        n = whole_number(text)
        if n < low or (high is not None and n > high):
            raise argparse.ArgumentTypeError(
                f"expected a whole number >= {low}" + (f" and <= {high}" if high else "") + f", got {text}"
            )
        return n

    return parse


#: what --games allows where every deal is played twice, seats swapped (duplicate deals)
EVEN_GAMES = "an even whole number >= 2 (duplicate deals play each deal twice)"


def even_games(text: str) -> int:
    """An argparse type: a number of games that duplicate deals split in pairs (:data:`EVEN_GAMES`); one line
    naming what is allowed otherwise."""
    n = whole_number(text)
    if n < 2 or n % 2:
        raise argparse.ArgumentTypeError(f"expected {EVEN_GAMES}, got {text}")
    return n


#: reStructuredText markup of a docstring: a role (``:func:`x` ``, its text in group 1) or an inline literal
#: (````x````, its text in group 2)
_RST_MARKUP_RE = re.compile(r":\w+:`~?([^`]*)`|``([^`]*)``")


def plain_text(docstring: str) -> str:
    """``docstring`` as ``--help`` shows it: roles and inline literals replaced by their text
    (``:func:`name` `` and ````name```` become ``name``)."""
    return _RST_MARKUP_RE.sub(lambda match: match[1] if match[1] is not None else match[2], docstring)


#: the prefix of the project's console scripts (pyproject.toml's [project.scripts])
SCRIPT_PREFIX = "schnapsen-"


def launcher(module: str) -> str:
    """How the running command was started, to print and record: the console script's name when started as
    one (``schnapsen-ladder``), else ``python -m MODULE``."""
    script = os.path.basename(sys.argv[0]) if sys.argv else ""
    if script.startswith(SCRIPT_PREFIX):
        return script
    return f"python -m {module}"


def silence(stream: TextIO) -> None:
    """Point the file descriptor under ``stream`` at the null device, so that what is left in
    its buffer goes nowhere at interpreter exit instead of raising there."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def say(line: str) -> None:
    """Write ``line`` on standard error; nothing when it is closed or cannot be written."""
    if sys.stderr is None:  # closed: print(file=None) would write on standard output
        return
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        silence(sys.stderr)


def one_line(error: BaseException | str) -> str:
    """``error``'s text on one line: every run of whitespace (newlines included) as one space, for the
    one-line messages of the command-line tools and of errors that quote another error."""
    return " ".join(str(error).split())
