"""train.py ending a run early: the time budget (run.time_budget_min), --stop-after, Ctrl-C/SIGTERM
(in a subprocess and in-process), one TensorBoard curve after --resume, learning_curve.png.
Smoke-sized runs, no timed assertions (the clock is replaced where a budget must bind)."""

from __future__ import annotations

import csv
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from train_module import load_train

torch = pytest.importorskip("torch")  # the [train] extra; absent in the lower-bounds CI job
rundir = pytest.importorskip("agents.ppo.run")

ROOT = Path(__file__).resolve().parent.parent
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
        "stopped by the time budget after 1 of 4 updates (0.001 min); continue with: python train.py "
        f"--resume {d}" in out
    )
    assert re.search(r"final evaluation after 1 updates, [\d,]+ env steps", out)
    assert "random " in out and "heuristic " in out  # the table
    assert re.search(r"1 of 4 updates; 1 in this invocation \([\d.]+ updates/s.*wall time [\d.]+ s", out)
    for name in ("checkpoint.pt", "policy.pt", "progress.csv", "learning_curve.png", "eval.json"):
        assert f"{d / name}" in out
        assert (d / name).is_file()
    assert torch.load(d / "checkpoint.pt", weights_only=True)["update"] == 1
    assert len(rows(d)) == 1
    # the budget-stopped run continues exactly (a resume has a budget of its own; here none)
    assert train.main(["--resume", str(d), "run.time_budget_min=null"]) == 0
    assert losses(d) == losses(full_run)
    assert same_weights(d, full_run)


def test_time_budget_with_a_replaced_clock_fits_updates_until_the_reserve(tmp_path, capsys, monkeypatch):
    # each reading of the clock is 10 s later: the checks after updates 1 and 2 read 10 and 20; with
    # 30 s and the fixed reserve of 10 s the second update is the last that fits
    ticks = iter(range(0, 10_000, 10))
    monkeypatch.setattr(train, "_now", lambda: float(next(ticks)))
    d = tmp_path / "run"
    assert train.main(["--config", SMOKE, "--run-dir", str(d), "run.time_budget_min=0.5", "run.tensorboard=false"]) == 0
    out = capsys.readouterr().out
    assert "stopped by the time budget after 2 of 4 updates (0.5 min)" in out
    assert torch.load(d / "checkpoint.pt", weights_only=True)["update"] == 2
    assert (d / "eval.json").is_file()


def test_a_budget_that_is_not_spent_changes_nothing(full_run, tmp_path, capsys):
    d = tmp_path / "run"
    assert train.main(["--config", SMOKE, "--run-dir", str(d), "run.time_budget_min=600"]) == 0
    assert "time budget" not in capsys.readouterr().out
    assert losses(d) == losses(full_run)


def test_budget_reserve_uses_measured_evaluation_times():
    cfg = train.load_config(SMOKE, ["eval.final_games=2000", "eval.games=400"])
    b = train.TimeBudget(1.0, started=100.0, eval_cfg=cfg.eval)
    assert b.deadline == 160.0
    # before any evaluation: the prior time per game, for both opponents
    assert b.eval_s(2000) == pytest.approx(2 * 2000 * b.PRIOR_GAME_S)
    assert b.reserve_s(False) == pytest.approx(b.EVAL_MARGIN * 40.0 + b.FIXED_RESERVE_S)
    b.record_eval({"random": 0.4, "heuristic": 0.8}, 400)  # 1 ms and 2 ms per game
    b.record_update(2.0)
    b.record_update(1.0)  # the slowest recent update counts
    final = b.EVAL_MARGIN * 2000 * 0.003
    assert b.reserve_s(False) == pytest.approx(b.UPDATE_MARGIN * 2.0 + final + b.FIXED_RESERVE_S)
    assert b.reserve_s(True) == pytest.approx(b.reserve_s(False) + b.EVAL_MARGIN * 400 * 0.003)
    last = 160.0 - b.reserve_s(False)
    assert b.next_update_fits(last, False) and not b.next_update_fits(last + 0.01, False)


# ------------------------------------------------------------------ --stop-after
def test_stop_after_says_what_it_did(tmp_path, capsys):
    d = tmp_path / "run"
    assert train.main(["--config", SMOKE, "--run-dir", str(d), "--stop-after", "3"]) == 0
    out = capsys.readouterr().out
    assert f"stopped after 3 updates as asked (--stop-after); continue with: python train.py --resume {d}" in out
    assert "final evaluation" not in out
    assert (d / "learning_curve.png").read_bytes().startswith(PNG)  # the evaluation at update 2


# ------------------------------------------------------------------ signals
#: a run that evaluates every update (so an interrupted run has a learning curve), constant learning rate
#: (so the reference run may have fewer updates in all), no TensorBoard (faster start)
SIG = [
    "ppo.anneal_lr=false",
    "eval.every=1",
    "run.checkpoint_every=1",
    "eval.final_games=0",
    "run.tensorboard=false",
    "run.progress=false",
]


def _interrupt_subprocess(run_dir: Path, sig: int) -> tuple[int, str, str]:
    proc = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "train.py"),
            "--config",
            SMOKE,
            "--run-dir",
            str(run_dir),
            "run.total_updates=100000",
            *SIG,
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
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


@pytest.mark.parametrize("sig, words", [(signal.SIGINT, "interrupted"), (signal.SIGTERM, "interrupted by SIGTERM")])
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
    assert (d / "learning_curve.png").read_bytes().startswith(PNG)
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
    assert f"interrupted: checkpoint saved at update 2; continue with: python train.py --resume {d}" in err
    assert "Traceback" not in err
    assert torch.load(d / "checkpoint.pt", weights_only=True)["update"] == 2
    monkeypatch.undo()
    assert train.main(["--resume", str(d)]) == 0  # the log rows after the checkpoint are dropped
    assert losses(d) == losses(full_run)


def test_ctrl_c_during_the_final_evaluation_keeps_the_final_checkpoint(tmp_path, capsys, monkeypatch):
    d = tmp_path / "run"
    _send_during(monkeypatch, "evaluate", lambda model, cfg, games, update, *a: games == cfg.eval.final_games, count=1)
    assert train.main(["--config", SMOKE, "--run-dir", str(d), "eval.final_games=12"]) == 130
    err = capsys.readouterr().err
    assert "interrupted: checkpoint saved at update 4; continue with: python train.py --resume" in err
    assert not (d / "eval.json").exists()
    monkeypatch.undo()
    capsys.readouterr()
    assert train.main(["--resume", str(d)]) == 0  # the run is complete: only the final evaluation runs
    assert "final evaluation after 4 updates" in capsys.readouterr().out
    assert (d / "eval.json").is_file()


def test_ctrl_c_before_the_run_starts_is_one_line(tmp_path, capsys, monkeypatch):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(train, "prepare", interrupted)
    assert train.main(["--config", SMOKE]) == 130
    err = capsys.readouterr().err
    assert err == "interrupted before the run started: nothing was written\n"


def test_first_signal_in_an_update_is_noted_the_second_stops_at_once():
    before = signal.getsignal(signal.SIGINT)
    with rundir.Signals() as s:
        s.finish_update = True
        os.kill(os.getpid(), signal.SIGTERM)  # the first: noted, the update goes on
        assert s.received == signal.SIGTERM and s.words() == " by SIGTERM"
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
    assert signal.getsignal(signal.SIGINT) == before  # handlers restored
    with pytest.raises(KeyboardInterrupt), rundir.Signals():  # outside an update: at once
        os.kill(os.getpid(), signal.SIGINT)


# ------------------------------------------------------------------ TensorBoard after --resume
def test_tensorboard_after_resume_shows_one_curve(full_run, tmp_path):
    ea_mod = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    d = tmp_path / "run"
    assert train.main(["--config", SMOKE, "--run-dir", str(d), "--stop-after", "2"]) == 0
    kept = tmp_path / "checkpoint-2.pt"
    shutil.copyfile(d / "checkpoint.pt", kept)
    # TensorBoard reads a folder's event files in name order: "events.out.tfevents.<second>.<host>.<pid>.<n>";
    # runs in one process within one second would sort by the counter as text ("...10" < "...9"), which a
    # real kill and resume (a new process, seconds later) never meets: start each run in a new second
    time.sleep(1.05)
    assert train.main(["--resume", str(d), "--stop-after", "1"]) == 0  # logs update 3 ...
    shutil.copyfile(kept, d / "checkpoint.pt")  # ... then "killed" before its checkpoint was written
    time.sleep(1.05)
    assert train.main(["--resume", str(d)]) == 0
    acc = ea_mod.EventAccumulator(str(d))
    acc.Reload()
    expected = {int(r["update"]): float(r["policy_loss"]) for r in rows(full_run)}
    for tag in ("train/policy_loss", "train/env_steps"):
        steps = [e.step for e in acc.Scalars(tag)]
        assert steps == [1, 2, 3, 4], (tag, steps)  # the killed run's step 3 is purged
    got = {e.step: e.value for e in acc.Scalars("train/policy_loss")}
    assert got == pytest.approx(expected, rel=1e-6)
    assert [e.step for e in acc.Scalars("eval/random_win_rate")] == [2, 4]


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
    points = rundir.read_eval_points(full_run / "progress.csv")
    assert list(points) == ["random", "heuristic"]
    assert [p[0] for p in points["random"]] == [int(r["env_steps"]) for r in rows(full_run)[1::2]]
    for _steps, wr, lo, hi in points["random"] + points["heuristic"]:
        assert lo - 1e-9 <= wr <= hi + 1e-9  # (the Wilson bound of 0 wins is 2.8e-17)
    # a log without intervals (written before they were logged) still plots
    d = tmp_path / "old"
    d.mkdir()
    (d / "progress.csv").write_text("update,env_steps,eval_random_win_rate\n1,10,\n2,20,0.5\n")
    assert math.isnan(rundir.read_eval_points(d / "progress.csv")["random"][0][2])
    assert rundir.write_learning_curve(d, "old").read_bytes().startswith(PNG)
    e = tmp_path / "none"
    e.mkdir()
    (e / "progress.csv").write_text("update,env_steps,eval_random_win_rate\n1,10,\n")
    assert rundir.write_learning_curve(e, "none") is None and not (e / "learning_curve.png").exists()


def test_run_summary_names_wall_time_rate_and_files(tmp_path, monkeypatch):
    monkeypatch.setattr(rundir, "_now", lambda: 1000.0)
    text = rundir.run_summary(
        tmp_path, 412, 700, 400, 800.0, 1000.0 - 1190.0, tmp_path / "learning_curve.png", {"random": {}}
    )
    assert "412 of 700 updates; 400 in this invocation (0.50 updates/s" in text
    assert "wall time 19.8 min (1,190 s)" in text
    for name in ("checkpoint.pt", "policy.pt", "progress.csv", "learning_curve.png", "eval.json"):
        assert str(tmp_path / name) in text
