"""Small helpers shared by the command-line tools (replay, play, arena, train): standard streams
that may be closed, full or a broken pipe, and what kind of file a path is. Standard library only.
"""

from __future__ import annotations

import argparse
import os
import re
import stat
import sys
from typing import TextIO

#: a whole number on a command line: ASCII digits after an optional minus (no spaces, ``+``, ``_`` or other
#: scripts' digits, which ``int()`` would take), at most :data:`MAX_DIGITS` of them
_WHOLE_RE = re.compile(r"-?[0-9]+")
#: most digits of a whole number on a command line (Python's int() limit)
MAX_DIGITS = 4300


def whole_number(text: str) -> int:
    """An argparse type: ``text`` as an int when it is ASCII digits after an optional minus, else
    ``argparse.ArgumentTypeError`` "expected a whole number in ASCII digits, got ' 5'" (one line; the
    caller checks the range and names the limit)."""
    if not _WHOLE_RE.fullmatch(text) or len(text) > MAX_DIGITS:
        shown = repr(text) if len(text) <= 40 else repr(text[:40]) + "..."
        raise argparse.ArgumentTypeError(f"expected a whole number in ASCII digits, got {shown}")
    return int(text)


#: longest value shown in a "given twice" message (longer ones are cut in the middle)
_SHOWN_CHARS = 120


def _shown_value(value) -> str:
    text = " ".join(str(value).split()) or "''"  # an empty value (--ray without an address) shows as ''
    return text if len(text) <= _SHOWN_CHARS else text[:_SHOWN_CHARS // 2] + "..." + text[-_SHOWN_CHARS // 2:]


class Once(argparse.Action):
    """An argparse action that stores an option's value (``nargs``, ``type``, ``choices`` as usual)
    and refuses the option a second time: ``parser.error("--games given twice (2 and 4): give it
    once")`` (argparse itself keeps the last value silently). Used by every command line."""

    #: attribute of the parsed namespace holding the ``dest`` of every option given so far
    GIVEN = "_options_given"

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault(self.GIVEN, {})
        shown = " ".join(map(str, values)) if isinstance(values, list) else values
        if self.dest in given:
            parser.error(f"{option_string} given twice ({_shown_value(given[self.dest])} and "
                         f"{_shown_value(shown)}): give it once")
        given[self.dest] = shown
        setattr(namespace, self.dest, values)


#: how a non-regular file is named in error messages, tested in this order
_FILE_KINDS = ((stat.S_ISREG, "a regular file"), (stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
               (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
               (stat.S_ISBLK, "a block device"))


def file_kind(mode: int) -> str:
    """What a file of ``st_mode`` ``mode`` is, for a message: ``"a regular file"``, ``"a directory"``,
    ``"a FIFO (named pipe)"``, ... or ``"not a regular file"`` (anything else)."""
    return next((name for test, name in _FILE_KINDS if test(mode)), "not a regular file")


def silence(stream: TextIO) -> None:
    """Point the file descriptor under ``stream`` at the null device, so that what is left in
    its buffer goes nowhere at interpreter exit instead of raising there ("Exception ignored")."""
    try:
        fd = stream.fileno()
        devnull = os.open(os.devnull, os.O_WRONLY)
    except (OSError, ValueError, AttributeError):
        return
    try:
        os.dup2(devnull, fd)
    except OSError:
        pass
    finally:
        os.close(devnull)


def say(line: str) -> None:
    """Write ``line`` on standard error; nothing when it is closed or cannot be written (the exit
    status still tells), and never a second complaint at interpreter exit."""
    err = sys.stderr
    if err is None:  # closed: print(file=None) would write it on standard output
        return
    try:
        err.write(line + "\n")
        err.flush()
    except (OSError, ValueError):  # full, a broken pipe, closed, an encoding it cannot take
        silence(err)


#: longest output path accepted (bytes of the absolute path; Linux PATH_MAX is 4096)
MAX_PATH_BYTES = 4095


def output_file_problem(path: str, suffixes: tuple = ()) -> str | None:
    """Why ``path`` cannot take an output file (check it before the work that fills it), or None:
    an empty path, a NUL byte, a name not ending in one of ``suffixes`` (when given: the reader
    of the file goes by them), a path too long, an existing directory/FIFO/device, a parent that
    is missing, not a directory, or unwritable."""
    if not path.strip():
        return "empty path"
    if "\0" in path:
        return "the path contains a NUL byte"
    if suffixes and not path.endswith(tuple(suffixes)):
        return f"the file name must end in {' or '.join(suffixes)}"
    full = os.path.abspath(path)
    try:
        if len(full.encode()) > MAX_PATH_BYTES or len(os.path.basename(full).encode()) > 255:
            return "file name too long"
    except UnicodeError:
        return "the path has characters the file system cannot encode"
    parent = os.path.dirname(full)
    try:
        if os.path.lexists(full):
            mode = os.stat(full).st_mode
            if not stat.S_ISREG(mode):
                return f"is {file_kind(mode)}, not a regular file"
        if not os.path.isdir(parent):
            above = parent
            while not os.path.lexists(above) and os.path.dirname(above) != above:
                above = os.path.dirname(above)
            if os.path.lexists(above) and not os.path.isdir(above):
                return f"{above!r} is {file_kind(os.stat(above).st_mode)}, not a directory"
            return f"no such directory {parent!r}"
    except OSError as e:
        return e.strerror or type(e).__name__
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"cannot write into {parent!r} (permission denied)"
    return None
