"""Faults a user hits on the command lines of train.py and agents.arena: every one is a single
line on stderr and exit code 2, never a traceback (config files, overrides, limits, paths,
--resume folders whose checkpoint is foreign or partial, checkpoint paths)."""

from __future__ import annotations

import ast
import errno
import shutil
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")  # the [train] extra; absent in the lower-bounds CI job

from train_module import load_train  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SMOKE = str(ROOT / "configs" / "smoke.yaml")
PREFIX = "config error: "
LONG_NAME = "x" * 300  # longer than any file name the file system allows (NAME_MAX 255)
#: a tiny run that checkpoints after one update and stops (no evaluation, no event files)
TINY = [
    "run.tensorboard=false",
    "eval.final_games=0",
    "ppo.num_games=4",
    "ppo.rollout_steps=4",
    "ppo.minibatch_size=16",
    "eval.every=1000",
    "run.total_updates=1000",
    "run.checkpoint_every=1000",
]


train = load_train()


def one_error_line(capsys, rc, start: str, prefix: str = PREFIX) -> str:
    """Assert exit code 2 and exactly one stderr line ``prefix + start...``; returns the line."""
    err = capsys.readouterr().err
    assert rc == 2, err
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(prefix + start), lines[0]
    return lines[0]


def train_error(capsys, argv, start: str) -> str:
    return one_error_line(capsys, train.main(argv), start)


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> Path:
    """A real run directory after one update (checkpoint.pt, policy.pt, progress.csv)."""
    d = tmp_path_factory.mktemp("tiny") / "run"
    assert train.main(["--config", SMOKE, "--run-dir", str(d), "--stop-after", "1", *TINY]) == 0
    return d


def copy_run(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


# --------------------------------------------------------------- other arguments
@pytest.mark.parametrize(
    "argv, start",
    [
        (["--seed", "x"], "argument --seed: invalid int value: 'x' (see python train.py --help)"),
        (["--bogus"], "unrecognized arguments: --bogus"),
        (["--stop-after", "0"], "argument --stop-after: expected a whole number >= 1, got '0'"),
        (["--resume", "x"], "argument --resume: not allowed with argument --config"),
    ],
)
def test_bad_options_are_one_line(capsys, argv, start):
    train_error(capsys, ["--config", SMOKE, *argv], start)


def test_run_files_that_cannot_be_written_during_the_run_are_one_line(tmp_path, capsys, monkeypatch):
    import agents.ppo.run as rundir

    def disk_full(obj, path):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(rundir, "atomic_save", disk_full)
    rc = train.main(["--config", SMOKE, "--run-dir", str(tmp_path / "r"), "--stop-after", "1", *TINY])
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err
    assert (
        err.splitlines()[-1] == f"error: [Errno {errno.ENOSPC}] No space left on device: "
        f"'{tmp_path / 'r' / 'checkpoint.pt'}'"
    )


# ------------------------------------------------------------------------ resume
def test_resume_folder_problems(tmp_path, capsys, tiny_run):
    train_error(
        capsys, ["--resume", str(tmp_path / "missing")], f"--resume: no checkpoint.pt in {tmp_path / 'missing'}"
    )
    train_error(
        capsys,
        ["--resume", str(tiny_run), "--run-dir", str(tmp_path / "x")],
        "--run-dir: a resumed run continues in its own directory",
    )
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("kind", ["text", "policy", "truncated"])
def test_resume_of_a_foreign_or_partial_checkpoint(tmp_path, capsys, tiny_run, kind):
    d = copy_run(tiny_run, tmp_path / "run")
    ckpt = (tiny_run / "checkpoint.pt").read_bytes()
    foreign = {"text": b"not a checkpoint", "policy": (tiny_run / "policy.pt").read_bytes(), "truncated": ckpt[:5000]}
    (d / "checkpoint.pt").write_bytes(foreign[kind])
    before = (d / "progress.csv").read_text()
    train_error(
        capsys, ["--resume", str(d)], f"--resume: {d / 'checkpoint.pt'} is not a checkpoint.pt written by train.py"
    )
    assert (d / "progress.csv").read_text() == before  # nothing was written


def test_resume_keeps_the_log_columns_of_evaluations_no_longer_run(tmp_path, tiny_run):
    d = copy_run(tiny_run, tmp_path / "run")
    assert train.main(["--resume", str(d), "--stop-after", "1", "eval.opponents=[random]"]) == 0
    header = (d / "progress.csv").read_text().splitlines()[0]
    assert "eval_heuristic_win_rate" in header and "eval_random_win_rate" in header


def test_resume_applies_an_lr_override(tmp_path, tiny_run):
    d = copy_run(tiny_run, tmp_path / "run")
    assert train.main(["--resume", str(d), "--stop-after", "1", "ppo.lr=5e-4", "ppo.anneal_lr=false"]) == 0
    ckpt = torch.load(d / "checkpoint.pt", weights_only=True)
    assert ckpt["optimizer"]["param_groups"][0]["lr"] == pytest.approx(5e-4)


# -------------------------------------------------------------- checkpoint loader
def test_every_torch_load_is_weights_only():
    files = [
        ROOT / "train.py",
        *(ROOT / "agents").rglob("*.py"),
        *(ROOT / "schnapsen_env").rglob("*.py"),
        *(ROOT / "benchmarks").rglob("*.py"),
    ]
    calls = 0
    for f in files:
        for node in ast.walk(ast.parse(f.read_text(), str(f))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "load"
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "torch"
            ):
                calls += 1
                kw = {k.arg: k.value for k in node.keywords}
                assert (
                    "weights_only" in kw
                    and isinstance(kw["weights_only"], ast.Constant)
                    and kw["weights_only"].value is True
                ), f"{f}:{node.lineno}"
    assert calls >= 1


# --------------------------------------------------------------------- arena CLI
def test_arena_ctrl_c_is_one_line_and_130():
    import signal
    import subprocess
    import sys
    import time

    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agents.arena",
            "--agents",
            "heuristic",
            "pimc:samples=40",
            "--games",
            "200",
            "--workers",
            "2",
            "--no-progress",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # a suite started in the background (nohup, `cmd &`) passes SIGINT on as
        # ignored, and Python then never raises KeyboardInterrupt: restore Ctrl-C
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(4)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err == "python -m agents.arena: interrupted: no results written\n"
