"""The worker pool of the arena, the ladder and the labels; atomic writes; SIGTERM as Ctrl-C."""

import os
import signal
import subprocess
import sys
import time

import pytest

from agents.evaluation.workers import WorkerError, WorkerPool, replace_atomically, sigterm_as_interrupt, usable_cpus

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
from agents.evaluation.workers import WorkerPool, sigterm_as_interrupt

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


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def test_sigterm_stops_the_pool_and_leaves_no_worker(tmp_path):
    script = tmp_path / "slow_pool.py"
    script.write_text(SLOW_POOL)
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
