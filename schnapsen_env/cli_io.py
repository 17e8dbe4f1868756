"""Small helpers shared by the command-line tools (replay, play, arena, train): standard streams
that may be closed, full or a broken pipe, and what kind of file a path is. Standard library only.
"""

from __future__ import annotations

import os
import stat
import sys
from typing import TextIO

#: how a non-regular file is named in error messages, tested in this order
_FILE_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
               (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
               (stat.S_ISBLK, "a block device"))


def file_kind(mode: int) -> str:
    """What a file of ``st_mode`` ``mode`` is, for a message: ``"a directory"``, ``"a FIFO (named
    pipe)"``, ... or ``"not a regular file"``."""
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
