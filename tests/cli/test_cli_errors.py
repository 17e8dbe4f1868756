"""Faults a user hits on the command lines of train.py: every one is a single
line on stderr and exit code 2, never a traceback (options, --resume folders whose checkpoint is
foreign or partial); checkpoints are loaded with weights_only=True."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")  # the [train] extra; absent in the lower-bounds CI job

from agents.training import train  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SMOKE = str(ROOT / "configs" / "smoke.yaml")
PREFIX = "config error: "
#: a tiny run that checkpoints after one update and stops (no evaluation, no event files)
TINY = (
    "run.tensorboard=false eval.final_games=0 ppo.num_games=4 ppo.rollout_steps=4 ppo.minibatch_size=16 "
    "eval.every=1000 run.total_updates=1000 run.checkpoint_every=1000"
).split()


def train_error(capsys, argv, start: str) -> None:
    """Assert exit code 2 and exactly one stderr line ``config error: start...``."""
    rc = train.main(argv)
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err, err
    assert len(err.splitlines()) == 1 and err.startswith(PREFIX + start), err


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> Path:
    """A real run directory after one update (checkpoint.pt, policy.pt, progress.csv)."""
    d = tmp_path_factory.mktemp("tiny") / "run"
    assert train.main(["--config", SMOKE, "--run-dir", str(d), "--stop-after", "1", *TINY]) == 0
    return d


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


@pytest.mark.parametrize("kind", ["policy", "truncated"])
def test_resume_of_a_foreign_or_partial_checkpoint(tmp_path, capsys, tiny_run, kind):
    d = Path(shutil.copytree(tiny_run, tmp_path / "run"))
    ckpt = (tiny_run / "checkpoint.pt").read_bytes()
    foreign = {"policy": (tiny_run / "policy.pt").read_bytes(), "truncated": ckpt[:5000]}
    (d / "checkpoint.pt").write_bytes(foreign[kind])
    before = (d / "progress.csv").read_text()
    assert train.main(["--resume", str(d)]) == 2
    err = capsys.readouterr().err
    reason = {"policy": "not a checkpoint.pt written by train.py (no 'optimizer')\n", "truncated": ""}[kind]
    assert err.startswith(f"checkpoint error: {d / 'checkpoint.pt'}: {reason}") and len(err.splitlines()) == 1, err
    assert (d / "progress.csv").read_text() == before  # nothing was written


def test_resume_keeps_the_log_columns_of_evaluations_no_longer_run(tmp_path, tiny_run):
    d = Path(shutil.copytree(tiny_run, tmp_path / "run"))
    assert train.main(["--resume", str(d), "--stop-after", "1", "eval.opponents=[random]"]) == 0
    header = (d / "progress.csv").read_text().splitlines()[0]
    assert "eval_heuristic_win_rate" in header and "eval_random_win_rate" in header


def test_resume_applies_an_lr_override(tmp_path, tiny_run):
    d = Path(shutil.copytree(tiny_run, tmp_path / "run"))
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
    calls = [
        (f, node)
        for f in files
        for node in ast.walk(ast.parse(f.read_text(), str(f)))
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "torch.load"
    ]
    assert calls
    for f, node in calls:
        kw = {k.arg: ast.unparse(k.value) for k in node.keywords}
        assert kw.get("weights_only") == "True", f"{f}:{node.lineno}"
