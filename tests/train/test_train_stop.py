"""train.py ending a run early: the time budget (run.time_budget_min), --stop-after, Ctrl-C/SIGTERM
(in a subprocess and in-process), TensorBoard after --resume, learning_curve.png.
Smoke-sized runs, no timed assertions."""

from __future__ import annotations

import csv
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from train_module import load_train

torch = pytest.importorskip("torch")  # the [train] extra; absent in the lower-bounds CI job
rundir = pytest.importorskip("agents.ppo.run")

ROOT = Path(__file__).resolve().parents[2]
SMOKE = str(ROOT / "configs" / "smoke.yaml")
LOSSES = ["policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac", "explained_variance"]
PNG = b"\x89PNG\r\n\x1a\n"


train = load_train()


def rows(run_dir: Path) -> list[dict]:
    with open(run_dir / "progress.csv", newline="") as f:
        return list(csv.DictReader(f))


def losses(run_dir: Path) -> list[list[str]]:
    return [[r["update"], r["env_steps"]] + [r[k] for k in LOSSES] + [r["eval_random_win_rate"]] for r in rows(run_dir)]


def weights(run_dir: Path) -> dict:
    return torch.load(run_dir / "checkpoint.pt", weights_only=True)["model"]


def same_weights(a: Path, b: Path) -> bool:
    wa, wb = weights(a), weights(b)
    return wa.keys() == wb.keys() and all(torch.equal(wa[k], wb[k]) for k in wa)


@pytest.fixture(scope="module")
def full_run(tmp_path_factory) -> Path:
    """The smoke config run uninterrupted (4 updates, eval every 2, checkpoint every 2)."""
    d = tmp_path_factory.mktemp("full") / "run"
    assert train.main(["--config", SMOKE, "--run-dir", str(d)]) == 0
    return d


# ------------------------------------------------------------------ time budget
def test_time_budget_stops_early_saves_evaluates_and_says_how_many_updates_fitted(full_run, tmp_path, capsys):
    d = tmp_path / "run"
    # 0.06 s: less than the final evaluation's reserve, so only the first update (always run) fits
    assert train.main(["--config", SMOKE, "--run-dir", str(d), "run.time_budget_min=0.001"]) == 0
    out = capsys.readouterr().out
    assert (
        f"stopped by the time budget (0.001 min) after 1 of 4 updates; continue with: python train.py --resume {d}"
        in out
    )
    assert re.search(r"final evaluation after 1 updates, [\d,]+ env steps", out)
    assert "random " in out and "heuristic " in out  # the table
    for name in ("checkpoint.pt", "policy.pt", "progress.csv", "eval.json"):
        assert f"{d / name}" in out
        assert (d / name).is_file()
    assert torch.load(d / "checkpoint.pt", weights_only=True)["update"] == 1
    assert len(rows(d)) == 1
    # the budget-stopped run continues exactly (a resume has a budget of its own; here none)
    assert train.main(["--resume", str(d), "run.time_budget_min=null"]) == 0
    assert losses(d) == losses(full_run)
    assert same_weights(d, full_run)


def test_budget_reserves_the_slowest_update_and_the_evaluations():
    b = rundir.TimeBudget(1.0, started=100.0, eval_games=400, final_games=2000)
    assert b.deadline == 160.0
    # an update of 2.4 s, 0.4 s of it an evaluation of 400 games (1 ms each): the final evaluation takes 2 s
    now = 160.0 - (b.MARGIN * (2.0 + 2.0) + b.RESERVE_S) - 0.01
    assert b.next_update_fits(now, now - 2.4, 0.4, False)
    assert not b.next_update_fits(now + 0.02, now - 1.0, 0.0, False)  # the slowest update counts
    assert not b.next_update_fits(now, now - 1.0, 0.0, True)  # and the next update's evaluation (0.4 s)
    assert b.next_update_fits(now - b.MARGIN * 0.4, now - 1.0, 0.0, True)


# ------------------------------------------------------------------ --stop-after
def test_stop_after_says_what_it_did(tmp_path, capsys):
    d = tmp_path / "run"
    assert train.main(["--config", SMOKE, "--run-dir", str(d), "--stop-after", "3"]) == 0
    out = capsys.readouterr().out
    assert f"stopped as asked (--stop-after) after 3 of 4 updates; continue with: python train.py --resume {d}" in out
    assert "final evaluation" not in out
    assert (d / "learning_curve.png").read_bytes().startswith(PNG)  # the evaluation at update 2


# ------------------------------------------------------------------ signals
#: a run that checkpoints and evaluates every update, constant learning rate (so the reference run may have
#: fewer updates in all), no TensorBoard (faster start)
SIG = ["ppo.anneal_lr=false", "eval.every=1", "run.checkpoint_every=1", "eval.final_games=0", "run.tensorboard=false"]


def _interrupt_subprocess(run_dir: Path, sig: int) -> tuple[int, str, str]:
    args = ["--config", SMOKE, "--run-dir", str(run_dir), "run.total_updates=100000", *SIG]
    cmd = [sys.executable, str(ROOT / "train.py"), *args]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not (run_dir / "checkpoint.pt").exists():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no checkpoint within 120 s"
            time.sleep(0.01)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, out, err


@pytest.mark.parametrize(
    "sig, words", [(signal.SIGINT, "interrupted by SIGINT"), (signal.SIGTERM, "interrupted by SIGTERM")]
)
def test_signal_saves_prints_the_resume_command_and_resume_is_exact(tmp_path, sig, words):
    d = tmp_path / "run"
    rc, out, err = _interrupt_subprocess(d, sig)
    assert rc == 130, (out, err)
    assert "Traceback" not in out + err
    resume_lines = [line for line in (out + err).splitlines() if "--resume" in line]
    assert len(resume_lines) == 1, out + err
    m = re.fullmatch(
        rf"{words}: checkpoint saved at update (\d+); continue with: python (\S+) --resume (\S+)", resume_lines[0]
    )
    assert m, resume_lines[0]
    assert Path(m[2]) == ROOT / "train.py" and Path(m[3]) == d
    k = int(m[1])
    assert torch.load(d / "checkpoint.pt", weights_only=True)["update"] == k == len(rows(d))
    assert not list(d.glob("*.tmp"))
    # continue two more updates; the same run uninterrupted ends bit-identical
    assert train.main(["--resume", str(d), f"run.total_updates={k + 2}"]) == 0
    ref = tmp_path / "ref"
    assert train.main(["--config", SMOKE, "--run-dir", str(ref), f"run.total_updates={k + 2}", *SIG]) == 0
    assert losses(d) == losses(ref)
    assert same_weights(d, ref)


def _send_during(monkeypatch, name: str, when, count: int):
    """Replace ``train.NAME`` by a wrapper that sends ``count`` SIGINTs to this process before the
    call for which ``when(*args)`` is true."""
    real = getattr(train, name)

    def wrapper(*args, **kwargs):
        if when(*args):
            for _ in range(count):
                os.kill(os.getpid(), signal.SIGINT)
        return real(*args, **kwargs)

    monkeypatch.setattr(train, name, wrapper)


def test_second_ctrl_c_during_an_update_abandons_it_and_keeps_the_last_checkpoint(
    full_run, tmp_path, capsys, monkeypatch
):
    d = tmp_path / "run"
    assert train.main(["--config", SMOKE, "--run-dir", str(d), "--stop-after", "2"]) == 0
    # twice during the periodic evaluation of update 4 (inside the update, before its checkpoint)
    _send_during(monkeypatch, "evaluate", lambda model, cfg, games, update, *a: update == 4, count=2)
    capsys.readouterr()
    assert train.main(["--resume", str(d)]) == 130
    err = capsys.readouterr().err
    assert f"interrupted by SIGINT: checkpoint saved at update 2; continue with: python train.py --resume {d}" in err
    assert "Traceback" not in err
    assert torch.load(d / "checkpoint.pt", weights_only=True)["update"] == 2
    monkeypatch.undo()
    assert train.main(["--resume", str(d)]) == 0  # the log rows after the checkpoint are dropped
    assert losses(d) == losses(full_run)


def test_ctrl_c_before_the_run_starts_is_one_line(tmp_path, capsys, monkeypatch):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(train, "prepare", interrupted)
    assert train.main(["--config", SMOKE]) == 130
    err = capsys.readouterr().err
    assert err == "interrupted before the run started: nothing was written\n"


def test_first_signal_is_noted_the_second_stops_at_once():
    before = signal.getsignal(signal.SIGINT)
    s = rundir.Signals()
    os.kill(os.getpid(), signal.SIGTERM)  # the first: noted, the update goes on
    assert s.received == signal.SIGTERM
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)
    s.restore()
    assert signal.getsignal(signal.SIGINT) == before


# ------------------------------------------------------------------ TensorBoard after --resume
def test_resume_opens_the_writer_with_purge_step_after_the_checkpoint(tmp_path, monkeypatch):
    d = tmp_path / "run"
    assert train.main(["--config", SMOKE, "--run-dir", str(d), "--stop-after", "3"]) == 0
    from torch.utils import tensorboard

    seen = []
    real = tensorboard.SummaryWriter

    def spy(*args, **kwargs):
        seen.append(kwargs.get("purge_step"))
        return real(*args, **kwargs)

    monkeypatch.setattr(tensorboard, "SummaryWriter", spy)
    assert train.main(["--resume", str(d), "--stop-after", "1"]) == 0
    assert seen == [4]  # scalars use global step = update; the checkpoint holds update 3


# ------------------------------------------------------------------ learning curve
def test_learning_curve_is_a_png_of_the_periodic_evaluations(full_run, tmp_path):
    assert (full_run / "learning_curve.png").read_bytes().startswith(PNG)
    d = tmp_path / "none"
    d.mkdir()
    (d / "progress.csv").write_text("update,env_steps,eval_random_win_rate\n1,10,\n")
    assert rundir.write_learning_curve(d, "none") is None and not (d / "learning_curve.png").exists()
