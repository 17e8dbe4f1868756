"""Runs that keep finished work and continue: the ladder (``ladder.partial.json``) and the ladder calibration
(``pairs.json``) keep what they finished in their output folder and a later run continues from it.

:func:`hold` keeps one run per output folder (a lock; a second run is refused naming the first's PID).
:func:`read_kept` reads a kept file back only when its schema (a :class:`Schema`, one per kind of file) and a
check of its counts against the run it claims to continue both pass; otherwise :class:`Refused` in one line
naming the file and the field (``runs/x/ladder.partial.json: rungs.3.wins: 7 wins out of 2 games``), the
file left as it is. :func:`write_json` replaces a kept file whole, atomically."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from filelock import FileLock, Timeout
from pydantic import BaseModel, ConfigDict, ValidationError

from .workers import replace_atomically

#: the lock file a run holds in its output folder, and the file beside it naming the holder's PID
LOCK = "run.lock"
HOLDER = "run.pid"


class Refused(Exception):
    """A request that cannot be carried out: one line on stderr, exit status 2."""


class Fault(Exception):
    """A kept file's field that does not fit the run it claims to continue: ``where`` is its path in the file
    (``rungs.3.wins``), the message says what is wrong."""

    def __init__(self, where: str, message: str):
        super().__init__(message)
        self.where = where


class Schema(BaseModel):
    """The base of the kept files' schemas: strict types (``"7"`` is no count), no keys but the
    declared."""

    model_config = ConfigDict(strict=True, extra="forbid")


Kept = TypeVar("Kept", bound=BaseModel)


@contextlib.contextmanager
def hold(folder: str | os.PathLike, what: str) -> Iterator[None]:
    """Inside, ``folder`` (made if missing) is this process's: a lock (:data:`LOCK`) with our PID in
    :data:`HOLDER` beside it, both released on leaving (the lock file stays, as ``filelock`` leaves it).
    ``what``: the kind of run, for the message. :class:`Refused` naming the holder's PID when another run
    holds it; ``OSError`` when the folder cannot be made."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    lock = FileLock(folder / LOCK)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        holder = folder / HOLDER
        pid = holder.read_text().strip() if holder.is_file() else "unknown"
        in_use = f"{folder} is in use by another {what} (PID {pid})"
        raise Refused(f"{in_use}: wait for it to end, or choose another --out") from None
    try:
        (folder / HOLDER).write_text(f"{os.getpid()}\n")
        yield
    finally:
        (folder / HOLDER).unlink(missing_ok=True)
        lock.release()


def read_kept(
    path: str | os.PathLike,
    schema: type[Kept],
    check: Callable[[Kept], object],
) -> dict | None:
    """The JSON object kept at ``path`` (None when there is no file), once ``schema`` validates it and
    ``check(model)`` finds its counts those of the run it claims to continue (else ``check`` raises
    :class:`Fault`). :class:`Refused` in one line naming the file and the first bad field; the file is left as
    it is."""
    try:
        text = Path(path).read_bytes()
    except FileNotFoundError:
        return None
    try:
        check(schema.model_validate_json(text))
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        where = ".".join(map(str, first["loc"]))
        raise Refused(f"{path}: {where + ': ' if where else ''}{first['msg']}") from None
    except Fault as fault:
        raise Refused(f"{path}: {fault.where}: {fault}") from None
    return json.loads(text)


def write_json(path: str | os.PathLike, data: dict, *, indent: int | None = 2) -> None:
    """``data`` as JSON (``indent``; None: one line) and a newline into ``path``, replacing it whole and
    atomically (an interrupt leaves the old file). ``OSError`` when it cannot be written."""
    with replace_atomically(path) as temporary:
        Path(temporary).write_text(json.dumps(data, indent=indent) + "\n", encoding="utf-8")
