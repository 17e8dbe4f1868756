"""The play, replay and train CLIs with standard output broken (a reader gone, as ``| head``), full or
closed: a quiet 1 for a broken pipe, or one line and 2; never a traceback, never an "Exception ignored" line."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from schnapsen_env.replay import replay_record

ROOT = Path(__file__).resolve().parents[2]
PLAY_ARGS = ("agents.play", "--opponent", "random", "--seed", "1")
ENOSPC = "No space left on device"

needs_dev_full = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")


def run(module, *args, answers="1\n" * 80, stdout="pipe", close=(), env=None, tmp_path):
    """Run ``python -m module args`` with answers on standard input; ``stdout``: "pipe" (read
    back), "broken" (a pipe whose reader is gone), "full" (/dev/full); ``close``: descriptors
    closed in the child (``<&-``, ``>&-``, ``2>&-``). Returns (exit status, stdout, stderr)."""
    answers_file = tmp_path / "answers.txt"
    answers_file.write_text(answers)
    to_close = []
    if stdout == "pipe":
        out = subprocess.PIPE
    elif stdout == "broken":
        r, out = os.pipe()
        os.close(r)  # like `| head` that has stopped reading: every write fails with EPIPE
        to_close.append(out)
    else:
        out = open("/dev/full", "wb")
        to_close.append(out)
    try:
        with open(answers_file, "rb") as inp:
            proc = subprocess.run(
                [sys.executable, "-m", module, *args],
                stdin=inp,
                stdout=out,
                stderr=subprocess.PIPE,
                cwd=ROOT,
                timeout=60,
                env=None if env is None else {**os.environ, **env},
                preexec_fn=(lambda: [os.close(fd) for fd in close]) if close else None,
            )
    finally:
        for c in to_close:
            c.close() if hasattr(c, "close") else os.close(c)
    text = proc.stdout.decode() if proc.stdout is not None else ""
    return proc.returncode, text, proc.stderr.decode()


# --- play ---------------------------------------------------------------------------------------


def test_play_into_a_broken_pipe_is_quiet_and_saves_the_record(tmp_path):
    record = tmp_path / "game.json"
    assert run(*PLAY_ARGS, "--save-record", str(record), stdout="broken", tmp_path=tmp_path) == (1, "", "")
    assert "error" not in replay_record(json.loads(record.read_text()))


# --- replay -------------------------------------------------------------------------------------


@pytest.fixture
def good(tmp_path):
    path = tmp_path / "good.json"
    deck = "AC TC KC QC JC AD TD KD QD JD AH TH KH QH JH AS TS KS QS JS".split()
    path.write_text(json.dumps({"dealer": 0, "deck": deck}))
    return str(path)


def test_replay_into_a_broken_pipe_is_quiet(tmp_path, good):
    assert run("schnapsen_env.replay", good, stdout="broken", tmp_path=tmp_path) == (1, "", "")


def train_argv(run_dir: Path) -> list:
    """train.py on the smoke config for one update, no final games, no TensorBoard."""
    smoke = ROOT / "configs" / "smoke.yaml"
    overrides = [f"run.dir={run_dir}", "run.total_updates=1", "eval.final_games=0", "run.tensorboard=false"]
    return [sys.executable, str(ROOT / "train.py"), "--config", str(smoke), *overrides]


def _train_into(stdout: str, run_dir: Path) -> subprocess.CompletedProcess:
    """train.py on the smoke config with standard output "broken" (reader gone) or "full" (/dev/full)."""
    if stdout == "broken":
        r, out = os.pipe()
        os.close(r)
    else:
        out = os.open("/dev/full", os.O_WRONLY)
    try:
        return subprocess.run(
            train_argv(run_dir),
            stdout=out,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            timeout=300,
        )
    finally:
        os.close(out)


@pytest.mark.parametrize(
    "stdout, code, line",
    [
        ("broken", 2, "error: [Errno 32] Broken pipe"),
        pytest.param("full", 2, f"error: [Errno 28] {ENOSPC}", marks=needs_dev_full),
    ],
)
def test_train_with_standard_output_unwritable_names_it_and_keeps_the_run(tmp_path, stdout, code, line):
    pytest.importorskip("torch")
    proc = _train_into(stdout, tmp_path / "run")
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr
    assert proc.stderr.splitlines()[-1].startswith(line), proc.stderr
    assert (tmp_path / "run" / "policy.pt").is_file() and (tmp_path / "run" / "checkpoint.pt").is_file()


def test_train_with_standard_output_closed_runs_to_the_end(tmp_path):
    pytest.importorskip("torch")
    proc = subprocess.run(
        train_argv(tmp_path / "run"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        timeout=300,
        preexec_fn=lambda: os.close(1),
    )
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert (tmp_path / "run" / "policy.pt").is_file()
