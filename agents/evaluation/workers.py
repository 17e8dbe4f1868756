"""Many tasks played at once for the arena, the ladder and the labels, and the safe writing of their results.

    backend = Backend(workers=usable_cpus())  # Backend(): here, one after another; Backend(ray_address=""): Ray
    bar = Bar(total=games, description="labels", unit="game")
    describe = lambda task: f"games {task.start}-{task.stop}"  # a task in words, for an error
    results = list(run_tasks(play, tasks, backend=backend, describe=describe, progress=bar))

:func:`run_tasks` is the one way to run a list of tasks: in this process, in a :class:`WorkerPool` or as Ray
tasks (:func:`init_ray`), the results in task order and one progress bar. :class:`WorkerPool` runs module-level
functions in spawned processes (each worker: one thread for OpenMP, MKL and OpenBLAS, set before numpy or torch
load there; Ctrl-C ignored, the parent stops the pool) and yields the results in task order, so the same tasks
give the same outputs for any number of workers. A worker that dies (``os._exit``, abort, out of memory) or a
task that raises ends the run with :class:`WorkerError`, one line naming the task and the cause. Leaving the
pool by an exception (Ctrl-C, SIGTERM under :func:`sigterm_as_interrupt`) cancels the pending tasks and
terminates the workers. :func:`replace_atomically` writes a file so that a failed run leaves an earlier one as
it was."""

from __future__ import annotations

import contextlib
import importlib
import logging
import math
import multiprocessing
import os
import secrets
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..extras import require

#: the thread counts of OpenMP (torch), MKL and OpenBLAS (numpy), read when those libraries load
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
#: cgroup v2 CPU limit of this process's container: "QUOTA PERIOD" in microseconds, or "max PERIOD"
CGROUP_CPU_MAX = "/sys/fs/cgroup/cpu.max"
#: seconds to wait for a terminated worker to end
STOP_TIMEOUT = 5.0
#: what Ray (``--ray``, ``ray=True``) without Ray says
RAY_INSTALL_HINT = (
    "Ray is not installed: pip install 'schnapsen-env[rllib]' (or pip install -e '.[rllib]' from a clone)"
)


class WorkerError(Exception):
    """A task failed in a worker process: the worker died, or the task raised. The message is one
    line naming the task (the pair and its games) and the cause (an exception's type and message).
    ``detail``: more text for a file or a flag (e.g. an agent's traceback, :class:`agents.evaluation.arena.AgentError`),
    or None; it travels from a worker with the message."""

    def __init__(self, message: str, detail: str | None = None):
        super().__init__(message)
        self.detail = detail

    def __reduce__(self):
        return (type(self), (str(self), self.detail))


def usable_cpus() -> int:
    """The CPUs this process may use: its CPU affinity (``os.sched_getaffinity``, else
    ``os.cpu_count()``), at most the cgroup v2 CPU quota rounded up; at least 1. The default worker
    count of the tools."""
    if hasattr(os, "sched_getaffinity"):
        count = len(os.sched_getaffinity(0))
    else:
        count = os.cpu_count() or 1
    quota = _cgroup_cpus()
    if quota is not None:
        count = min(count, quota)
    return max(1, count)


def _cgroup_cpus() -> int | None:
    """The cgroup v2 CPU quota in whole CPUs (rounded up), or None without a quota."""
    try:
        with open(CGROUP_CPU_MAX, encoding="ascii") as file:
            quota, period = file.read().split()
    except (OSError, ValueError):
        return None
    if quota == "max":
        return None
    return max(1, math.ceil(int(quota) / int(period)))


@contextlib.contextmanager
def replace_atomically(path: str | os.PathLike) -> Iterator[str]:
    """Yield a temporary path beside ``path`` (same directory, same ending, so ``.png`` or ``.npz``
    writers keep their format) to write to; on normal exit it is renamed onto ``path``
    (``os.replace``, atomic on one file system); on any exception it is removed and the exception
    re-raised, leaving an earlier file at ``path`` untouched. ``OSError`` from the rename (e.g.
    ``path`` is a directory)."""
    path = os.fspath(path)
    directory, name = os.path.split(path)
    temporary = os.path.join(directory, f".tmp-{secrets.token_hex(4)}-{name}")
    try:
        yield temporary
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(temporary)
        raise


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Inside, SIGTERM raises ``KeyboardInterrupt`` in the main thread, so ``kill PID`` takes a
    command's Ctrl-C path (workers stopped, one line, exit 130); the old handler is restored after.
    Outside the main thread (where handlers cannot be set) it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _raise_interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


#: in a worker: the folder where it notes its task's index, in a file named by its process id
_started_folder: str | None = None


def _init_worker(started_folder: str) -> None:
    """Ctrl-C is the parent's: it stops the pool and prints one line."""
    global _started_folder
    _started_folder = started_folder
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_task(function: Callable, index: int, task: Any) -> Any:
    """``function(task)`` in a worker, noting ``index`` first (a worker that dies is known by its task), as
    :func:`_call`."""
    with open(os.path.join(_started_folder, str(os.getpid())), "w", encoding="ascii") as file:
        file.write(str(index))
    return _call(function, task)


def _call(function: Callable, task: Any) -> Any:
    """``function(task)`` in a worker process or a Ray task; an exception becomes a :class:`WorkerError` of its type
    and message (which pickles even where the exception's own class is not importable in the parent), a
    :class:`WorkerError` (e.g. :class:`agents.evaluation.arena.AgentError`) one of its message and detail."""
    try:
        return function(task)
    except WorkerError as error:  # its message names its cause
        raise WorkerError(str(error), error.detail) from None
    except Exception as error:
        raise WorkerError(f"{type(error).__name__}: {error}") from None


def _failed(description: str, cause: BaseException) -> WorkerError:
    """The one-line :class:`WorkerError` ``DESCRIPTION: CAUSE`` of a task: a :class:`WorkerError` cause's message
    and detail, another exception's type and message."""
    if isinstance(cause, WorkerError):
        return WorkerError(_one_line(f"{description}: {cause}"), cause.detail)
    return WorkerError(_one_line(f"{description}: {type(cause).__name__}: {cause}"))


@contextlib.contextmanager
def _one_thread_environment() -> Iterator[None]:
    """:data:`THREAD_VARIABLES` set to 1 while workers are started: a spawned process inherits them
    at exec, before it imports anything. The parent's own settings are restored after."""
    saved = {name: os.environ.get(name) for name in THREAD_VARIABLES}
    os.environ.update(dict.fromkeys(THREAD_VARIABLES, "1"))
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _exit_codes(processes: Iterable[multiprocessing.Process]) -> dict[int, int]:
    """Process id -> exit code of the workers that died by themselves (not terminated by the pool
    after another one died, unless no other is known)."""
    # the workers that have ended with a code other than 0 (None: still running)
    codes = {process.pid: process.exitcode for process in processes if process.exitcode}
    own = {pid: code for pid, code in codes.items() if code != -signal.SIGTERM}
    return own or codes


def _ending(code: int) -> str:
    """A process's exit code in words."""
    if code >= 0:
        return f"exit code {code}"
    try:
        return f"killed by {signal.Signals(-code).name}"
    except ValueError:  # a signal number Python has no name for
        return f"killed by signal {-code}"


def _death(codes: Iterable[int]) -> str:
    """How a worker died, in words."""
    causes = {_ending(code) for code in codes}
    if not causes:
        return "a worker process died"
    hint = "out of memory, an abort or os._exit?"
    return f"a worker process died ({', '.join(sorted(causes))}: {hint})"


class WorkerPool:
    """A context manager: ``workers`` spawned processes (a ``ProcessPoolExecutor``).

    Leaving the ``with`` block normally waits for the workers to end; leaving it by an exception
    (``KeyboardInterrupt``, :class:`WorkerError`, ...) cancels the pending tasks and terminates the
    workers, so none outlives the parent."""

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        self.workers = workers
        self._started = tempfile.TemporaryDirectory(prefix="schnapsen-workers-")
        self._executor = ProcessPoolExecutor(
            workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_init_worker,
            initargs=(self._started.name,),
        )
        self._processes: list[multiprocessing.Process] = []

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, exc_type, exc, traceback) -> None:
        if exc_type is None:
            self._executor.shutdown(wait=True)
        else:
            self.stop()
        self._started.cleanup()

    def stop(self) -> None:
        """Cancel the pending tasks and terminate the workers (waiting :data:`STOP_TIMEOUT` at most)."""
        processes = [*self._processes, *self._executor_processes()]  # before shutdown drops them
        self._executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            if process.is_alive():
                process.terminate()
        for process in processes:
            process.join(STOP_TIMEOUT)

    def map(self, function: Callable, tasks: Iterable, describe: Callable[[Any], str]) -> Iterator:
        """``function(task)`` of each task (a module-level function: it is pickled by name),
        computed in the workers and yielded in task order. ``describe(task)``: the task in words for
        an error, e.g. ``"heuristic vs random, games 0-49"``. :class:`WorkerError` when a worker
        dies or a task raises."""
        tasks = list(tasks)
        futures = []
        with _one_thread_environment():  # spawn starts the workers during the submits
            for index, task in enumerate(tasks):
                futures.append(self._executor.submit(_run_task, function, index, task))
        self._processes = self._executor_processes()
        for task, future in zip(tasks, futures):
            try:
                result = future.result()
            except BrokenProcessPool:
                # the executor's own thread terminates the other workers and reaps them all: wait for it first, or
                # a worker it reaps at the moment this thread asks reads as no exit code (both call waitpid)
                # private, as _processes
                manager = getattr(self._executor, "_executor_manager_thread", None)
                if manager is not None:
                    manager.join(STOP_TIMEOUT)
                for process in self._processes:
                    process.join(STOP_TIMEOUT)
                codes = _exit_codes(self._processes)
                dead = [tasks[index] for index in self._task_indices(codes)] or [task]
                cause = _death(codes.values())
                raise WorkerError(_one_line(f"{describe(dead[0])}: {cause}")) from None
            except Exception as error:
                # the task raised (a WorkerError from _call), or a result did not pickle
                raise _failed(describe(task), error) from None
            yield result

    def _executor_processes(self) -> list[multiprocessing.Process]:
        """The executor's worker processes (a private attribute: Python < 3.14 has no
        ``terminate_workers``)."""
        return list((getattr(self._executor, "_processes", None) or {}).values())

    def _task_indices(self, pids: Iterable[int]) -> list[int]:
        """The index of the task each of ``pids`` ran last (none for a worker that began none)."""
        indices = []
        for pid in pids:
            path = os.path.join(self._started.name, str(pid))
            with contextlib.suppress(OSError, ValueError), open(path, encoding="ascii") as file:
                indices.append(int(file.read()))
        return sorted(indices)


def init_ray(address: str | None = None, **kwargs):
    """Connect to the Ray cluster at ``address`` (None or ``""``: the one this machine runs, else a new local
    instance with ``ray.init`` ``kwargs``), quietly; returns the ``ray`` module. Does nothing when Ray is already
    initialized. ``ImportError`` saying how to install Ray (:data:`RAY_INSTALL_HINT`) when it is missing."""
    try:
        import ray
    except ImportError as e:
        raise ImportError(RAY_INSTALL_HINT) from e
    if not ray.is_initialized():
        ray.init(
            address=address or None,
            include_dashboard=False,
            logging_level=logging.WARNING,
            **kwargs,
        )
    return ray


@dataclass(frozen=True)
class Backend:
    """Where :func:`run_tasks` runs the tasks: ``Backend()`` in this process, one after another; ``workers`` above 1
    in that many spawned processes (:class:`WorkerPool`); with ``ray_address`` (``""``: this machine's cluster or a
    new local one) as Ray tasks on that cluster (:func:`init_ray`), ``workers`` 1. Every backend gives the same
    results. ``ValueError`` for ``workers`` < 1, or above 1 with Ray."""

    workers: int = 1
    ray_address: str | None = None

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ValueError(f"workers must be >= 1, got {self.workers}")
        if self.ray_address is not None and self.workers != 1:
            msg = "workers are local processes: with Ray the cluster's CPUs run the tasks"
            raise ValueError(msg)

    def parallel(self) -> int:
        """How many tasks run at once (``int``): the Ray cluster's CPUs (connecting to it, ``ImportError`` without
        Ray), else ``workers``."""
        if self.ray_address is None:
            return self.workers
        return int(init_ray(self.ray_address).cluster_resources().get("CPU", 1))


class Bar(NamedTuple):
    """The progress bar of :func:`run_tasks` (tqdm, on stderr): ``total`` units counted in ``unit``s under
    ``description``; ``leave``: the bar stays on the screen when done."""

    total: int
    description: str
    unit: str
    leave: bool = True


def run_tasks(
    function: Callable[[Any], Any],
    tasks: Iterable,
    *,
    backend: Backend,
    describe: Callable[[Any], str],
    progress: Bar | Callable[[int], object] | None = None,
    size: Callable[[Any], int] = len,
) -> Iterator:
    """``function(task)`` of each task on ``backend``, yielded in task order (the same for every backend).

    ``function``: a module-level function (pickled by name) for worker processes and Ray; serially any callable.
    ``describe(task)``: the task in words for an error, e.g. ``"heuristic vs random, games 0-49"``. ``progress``: a
    :class:`Bar` drawn here, or a callable (e.g. a caller's ``tqdm(...).update``) given each result's ``size``
    (default ``len``), or None. Serially an exception of ``function`` is raised as it is; in worker processes and
    on Ray a task that raises or a worker that dies is one :class:`WorkerError` ``DESCRIBE(task): CAUSE`` (a
    :class:`WorkerError`'s ``detail`` kept). An exception while the tasks run (Ctrl-C, SIGTERM under
    :func:`sigterm_as_interrupt`) stops the worker processes or cancels the Ray tasks: consume the results in one
    expression (``list(...)``) or close the iterator (``contextlib.closing``) so that one in the caller's loop does
    too. ``ImportError`` for a :class:`Bar` without tqdm or Ray without Ray."""
    tasks = list(tasks)
    with contextlib.ExitStack() as stack:
        if isinstance(progress, Bar):
            tqdm = require("tqdm", "agents.evaluation.workers").tqdm
            bar = tqdm(
                total=progress.total,
                desc=progress.description,
                unit=progress.unit,
                leave=progress.leave,
            )
            progress = stack.enter_context(bar).update
        if backend.ray_address is not None:
            results = _ray_results(function, tasks, backend.ray_address, describe)
        elif backend.workers == 1:
            results = map(function, tasks)
        else:
            pool = stack.enter_context(WorkerPool(backend.workers))
            results = pool.map(function, tasks, describe=describe)
        for result in results:
            if progress is not None:
                progress(size(result))
            yield result


def _ray_results(
    function: Callable,
    tasks: list,
    address: str,
    describe: Callable[[Any], str],
) -> Iterator:
    """``function(task)`` of each task as a Ray task on the cluster at ``address`` (one CPU each), in task order;
    :class:`WorkerError` as :meth:`WorkerPool.map`'s; the unfinished tasks cancelled when left by an exception."""
    ray = init_ray(address)
    remote = ray.remote(num_cpus=1)(_call)
    refs = [remote.remote(_importable(function), task) for task in tasks]
    try:
        for task, ref in zip(tasks, refs):
            try:
                result = ray.get(ref)
            except ray.exceptions.RayError as error:
                # RayTaskError: _call's WorkerError is its cause
                raise _failed(describe(task), getattr(error, "cause", None) or error) from None
            yield result
    except BaseException:  # GeneratorExit too
        for ref in refs:
            ray.cancel(ref)  # nothing for a finished task
        raise


def _importable(function: Callable) -> Callable:
    """``function``, from its module imported by name where it was defined in ``__main__`` (``python -m M``: Ray
    would pickle ``__main__`` by value; the module itself is pickled by name)."""
    if function.__module__ != "__main__":
        return function
    spec = getattr(sys.modules["__main__"], "__spec__", None)
    if spec is None:  # a script run by its path: there is no name to import it by
        return function
    return getattr(importlib.import_module(spec.name), function.__qualname__)
