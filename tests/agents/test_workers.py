"""The worker pool of the arena, the ladder and the labels, and run_tasks over it, in this process or on Ray;
atomic writes; SIGTERM as Ctrl-C."""

import importlib.machinery
import os
import signal
import subprocess
import sys
import time
import types

import pytest

from agents.evaluation import workers
from agents.evaluation.workers import (
    Backend,
    Bar,
    WorkerError,
    WorkerPool,
    replace_atomically,
    run_tasks,
    sigterm_as_interrupt,
    usable_cpus,
)

#: seconds a test waits for a pool before calling it hung
HANG = 60


def _square(value: int) -> int:
    time.sleep(0.01 * (value % 3))  # tasks finish out of order
    return value * value


def _exit_or_square(value: int) -> int:
    if value == 3:
        os._exit(7)
    return value * value


def _raise_on_three(value: int) -> int:
    if value == 3:
        raise KeyError("no card 3\nin this hand")
    return value


def _threads_after_numpy(_: int) -> tuple:
    import numpy  # noqa: F401  (OpenBLAS starts its threads when numpy loads)

    return len(os.listdir("/proc/self/task")), os.environ.get("OPENBLAS_NUM_THREADS")


def _describe(value: int) -> str:
    return f"a vs b, games {value}-{value}"


def _chunk(value: int) -> list[int]:
    time.sleep(0.01 * (value % 3))  # tasks finish out of order
    return list(range(value))


#: an agent's error as the arena raises it (agents.evaluation.arena.AgentError): one line, and a traceback
AGENT_ERROR = WorkerError("agent 'x' raised KeyError: 3 in game 3", "Traceback (most recent call last):\n  ...\n")


def _agent_raises_on_three(value: int) -> int:
    if value == 3:
        raise AGENT_ERROR
    return value


def test_usable_cpus_is_the_affinity_at_most():
    assert 1 <= usable_cpus() <= len(os.sched_getaffinity(0))


def test_pool_results_keep_the_task_order():
    with WorkerPool(2) as pool:
        assert list(pool.map(_square, range(10), describe=_describe)) == [v * v for v in range(10)]


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs Linux /proc")
def test_workers_load_numpy_with_one_thread_and_the_parent_keeps_its_settings():
    before = os.environ.get("OPENBLAS_NUM_THREADS")
    with WorkerPool(1) as pool:
        assert list(pool.map(_threads_after_numpy, [0], describe=_describe)) == [(1, "1")]
    assert os.environ.get("OPENBLAS_NUM_THREADS") == before


def test_a_dead_worker_is_one_line_naming_the_task():
    with pytest.raises(WorkerError) as error, WorkerPool(2) as pool:
        list(pool.map(_exit_or_square, range(6), describe=_describe))
    assert str(error.value).startswith("a vs b, games 3-3: a worker process died (exit code 7")
    assert "\n" not in str(error.value)


def test_a_task_exception_is_one_line_with_its_type_and_message():
    with pytest.raises(WorkerError) as error, WorkerPool(2) as pool:
        list(pool.map(_raise_on_three, range(6), describe=_describe))
    assert str(error.value) == "a vs b, games 3-3: KeyError: 'no card 3\\nin this hand'"


@pytest.mark.parametrize("backend", [Backend(), Backend(workers=2)])
def test_run_tasks_yields_the_results_in_task_order_and_their_sizes_as_progress(backend):
    sizes = []
    results = list(run_tasks(_chunk, range(6), backend=backend, describe=_describe, progress=sizes.append))
    assert results == [list(range(value)) for value in range(6)]
    assert sizes == [0, 1, 2, 3, 4, 5]


def test_run_tasks_draws_one_bar_of_the_given_total(monkeypatch):
    from tqdm import tqdm

    shown = []  # (description, total, count, unit, leave) of each bar, when it closes

    class Recorded(tqdm):
        def close(self):
            if not self.disable:  # closed once: tqdm disables a bar it closes
                shown.append((self.desc, self.total, self.n, self.unit, self.leave))
            super().close()

    monkeypatch.setattr("tqdm.tqdm", Recorded)
    bar = Bar(total=15, description="labels", unit="game", leave=False)
    assert list(run_tasks(_chunk, range(6), backend=Backend(), describe=_describe, progress=bar))[-1] == [0, 1, 2, 3, 4]
    assert shown == [("labels", 15, 15, "game", False)]


def test_run_tasks_raises_a_serial_task_error_as_it_is():
    with pytest.raises(KeyError, match="no card 3"):
        list(run_tasks(_raise_on_three, range(6), backend=Backend(), describe=_describe))


def test_run_tasks_in_workers_is_one_line_naming_the_task_with_the_agent_traceback_kept():
    with pytest.raises(WorkerError) as error:
        list(run_tasks(_agent_raises_on_three, range(6), backend=Backend(workers=2), describe=_describe))
    assert str(error.value) == "a vs b, games 3-3: agent 'x' raised KeyError: 3 in game 3"
    assert error.value.detail == AGENT_ERROR.detail


@pytest.mark.parametrize(
    ("workers", "ray_address", "message"),
    [(0, None, "workers must be >= 1, got 0"), (2, "", "with Ray the cluster's CPUs run the tasks")],
)
def test_backend_refuses_no_workers_and_workers_with_ray(workers, ray_address, message):
    with pytest.raises(ValueError, match=message):
        Backend(workers=workers, ray_address=ray_address)


class _RayTaskError(Exception):
    """As ray.exceptions.RayTaskError: a task's exception (the cause) in a multi-line message."""

    def __init__(self, cause: Exception):
        super().__init__(f"ray::_call() (pid=1)\nTraceback ...\n{cause}")
        self.cause = cause


def _fake_ray() -> types.SimpleNamespace:
    """The part of Ray that run_tasks uses: each task runs when submitted, in this process."""

    def submit(function, task):
        try:
            return ("done", workers._call(function, task))
        except Exception as error:
            return ("failed", _RayTaskError(error))

    def get(ref):
        if ref[0] == "failed":
            raise ref[1]
        return ref[1]

    ray = types.SimpleNamespace(is_initialized=lambda: True, cluster_resources=lambda: {"CPU": 3.0}, cancelled=[])
    ray.exceptions = types.SimpleNamespace(RayError=Exception)
    ray.remote = lambda num_cpus: lambda function: types.SimpleNamespace(remote=submit)
    ray.get = get
    ray.cancel = ray.cancelled.append
    return ray


def test_run_tasks_on_ray_keeps_the_order_names_the_task_in_one_line_and_cancels_the_rest(monkeypatch):
    ray = _fake_ray()
    monkeypatch.setitem(sys.modules, "ray", ray)
    backend = Backend(ray_address="")
    assert backend.parallel() == 3
    assert list(run_tasks(_chunk, range(4), backend=backend, describe=_describe)) == [[], [0], [0, 1], [0, 1, 2]]
    with pytest.raises(WorkerError) as error:
        list(run_tasks(_agent_raises_on_three, range(6), backend=backend, describe=_describe))
    assert str(error.value) == "a vs b, games 3-3: agent 'x' raised KeyError: 3 in game 3"
    assert error.value.detail == AGENT_ERROR.detail
    assert len(ray.cancelled) == 6  # every task of the failed run (a finished one: nothing)


def test_a_function_of_main_goes_to_ray_by_its_module_name(monkeypatch):
    main = types.ModuleType("__main__")  # as under python -m agents.evaluation.workers
    main.__spec__ = importlib.machinery.ModuleSpec("agents.evaluation.workers", None)
    monkeypatch.setitem(sys.modules, "__main__", main)

    def usable_cpus() -> int:
        return 0

    usable_cpus.__module__ = "__main__"
    usable_cpus.__qualname__ = "usable_cpus"
    assert workers._importable(usable_cpus) is workers.usable_cpus
    assert workers._importable(_chunk) is _chunk


def test_replace_atomically_writes_the_file_and_keeps_the_ending(tmp_path):
    path = tmp_path / "ratings.png"
    with replace_atomically(path) as temporary:
        assert temporary.endswith("ratings.png") and os.path.dirname(temporary) == str(tmp_path)
        with open(temporary, "w") as file:
            file.write("new")
    assert path.read_text() == "new"
    assert os.listdir(tmp_path) == ["ratings.png"]


def test_replace_atomically_leaves_an_earlier_file_after_a_failure(tmp_path):
    path = tmp_path / "results.json"
    path.write_text("earlier")
    with pytest.raises(OSError, match="disk full"), replace_atomically(path) as temporary:
        with open(temporary, "w") as file:
            file.write("half")
        raise OSError("disk full")
    assert path.read_text() == "earlier"
    assert os.listdir(tmp_path) == ["results.json"]


def test_sigterm_raises_keyboard_interrupt_inside_and_not_after():
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt), sigterm_as_interrupt():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(HANG)
    assert signal.getsignal(signal.SIGTERM) is before


SLOW_POOL = """
import sys, time
from agents.evaluation.workers import Backend, WorkerPool, run_tasks, sigterm_as_interrupt

def nap(value):
    time.sleep(60)

if __name__ == "__main__":
    try:
        with sigterm_as_interrupt(), WorkerPool(2) as pool:
            print("started", flush=True)
            list(pool.map(nap, range(4), describe=str))
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        sys.exit(130)
"""
#: the same through run_tasks, which holds the pool itself
SLOW_RUN = SLOW_POOL.replace(", WorkerPool(2) as pool:", ":").replace(
    "list(pool.map(nap, range(4), describe=str))",
    "list(run_tasks(nap, range(4), backend=Backend(workers=2), describe=str))",
)


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


@pytest.mark.parametrize("code", [SLOW_POOL, SLOW_RUN], ids=["pool", "run_tasks"])
def test_sigterm_stops_the_pool_and_leaves_no_worker(tmp_path, code):
    script = tmp_path / "slow_pool.py"
    script.write_text(code)
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout.readline() == "started\n"
    deadline = time.monotonic() + HANG / 2
    workers = _children(proc.pid)
    while len(workers) < 2 and time.monotonic() < deadline:  # two workers (and a resource tracker)
        time.sleep(0.1)
        workers = _children(proc.pid)
    assert len(workers) >= 2
    proc.terminate()
    assert proc.wait(HANG / 2) == 130
    assert proc.stdout.read() == "interrupted\n"
    deadline = time.monotonic() + HANG / 2  # the resource tracker ends once it sees the parent gone
    while any(os.path.exists(f"/proc/{pid}") for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [pid for pid in workers if os.path.exists(f"/proc/{pid}")] == []
