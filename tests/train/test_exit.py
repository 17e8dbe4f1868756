"""agents.training.exit: expert iteration's three steps (labels, clone, fine-tune) run, continue where they
stopped with the same results, and refuse a bad config before anything runs. Tiny sizes."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")  # the [train] extra; absent in the lower-bounds CI job

import numpy as np  # noqa: E402

from agents.players.neural import load_model  # noqa: E402
from agents.training import exit as expert_iteration  # noqa: E402

TINY = [
    "labels.games=2",
    "labels.agents=[random]",
    "labels.teacher=search:iterations=30",
    "labels.workers=1",
    "clone.epochs=2",
    "finetune.run.total_updates=1",
    "finetune.run.compile=false",
    "finetune.run.progress=false",
    "finetune.ppo.num_games=16",
    "finetune.ppo.minibatch_size=256",
    "finetune.eval={games: 10, final_games: 10, opponents: [random]}",
]


def test_exit_labels_clones_and_finetunes_then_continues(tmp_path, capsys):
    run = tmp_path / "run"
    assert expert_iteration.main(["--run-dir", str(run), *TINY]) == 0
    with np.load(run / "labels" / "deals-0000000.npz") as f:
        states, policy = len(f["deal"]), f["policy"]
    assert np.allclose(policy.sum(1), 1)
    clone, ckpt = load_model(run / "clone.pt")
    assert ckpt["pretrain"]["states"] == states and clone.hidden == [512, 256]
    assert load_model(run / "finetune" / "policy.pt")[0].hidden == [512, 256]
    capsys.readouterr()
    assert expert_iteration.main(["--run-dir", str(run), *TINY]) == 0  # again: nothing left to do
    assert "is complete (1 of 1 updates)" in capsys.readouterr().out
    assert expert_iteration.main(["--run-dir", str(run), *TINY, "finetune.run.total_updates=2"]) == 0  # extended
    assert torch.load(run / "finetune" / "checkpoint.pt", weights_only=True)["update"] == 2
    (run / "clone.pt").rename(tmp_path / "first.pt")  # stopped before the clone: the labels are reused
    (run / "labels" / "deals-0000000.npz").touch()
    stamp = (run / "labels" / "deals-0000000.npz").stat().st_mtime_ns
    assert expert_iteration.main(["--run-dir", str(run), *TINY]) == 0
    assert (run / "labels" / "deals-0000000.npz").stat().st_mtime_ns == stamp
    again = load_model(run / "clone.pt")[0].state_dict()
    assert all(torch.equal(v, again[k]) for k, v in clone.state_dict().items())  # same seed, same clone


@pytest.mark.parametrize(
    "override, message",
    [
        ("labels.teacher=heuristic", "labels: teacher 'heuristic' gives no move distribution"),
        ("clone.init=ppo", "clone.init: 'ppo' has hidden layers [256, 256], finetune.model.hidden is [512, 256]"),
        ("finetune.ppo.lr=-1", "finetune.ppo.lr: Input should be greater than 0"),
        ("labels.gamez=3", "unknown key 'labels.gamez'"),
        ("finetune.ppo.lrr=1", "config error: unknown key 'finetune.ppo.lrr': allowed lr, "),
        ("clone.init=no/such.pt", "clone.init: no checkpoint file at 'no/such.pt'"),
    ],
)
def test_exit_config_errors_stop_before_anything_runs(tmp_path, capsys, override, message):
    assert expert_iteration.main(["--run-dir", str(tmp_path / "run"), *TINY, override]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_exit_run_dir_refuses_other_labels_or_clone_values(tmp_path, capsys):
    """A run directory keeps the labels and clone it was made with: a rerun that changes one is refused in one
    line before anything runs; labels.games and labels.workers may change."""
    x = expert_iteration
    config = x.read_yaml(x.DEFAULT_CONFIG)  # the file main() reads by default
    cfg = x.validate(x.ExitConfig, x.apply_overrides(config, TINY, x.ExitConfig))
    x.check_run_dir(cfg, tmp_path)
    x.check_run_dir(cfg.model_copy(update={"labels": cfg.labels.model_copy(update={"games": 64})}), tmp_path)
    assert x.main(["--run-dir", str(tmp_path), *TINY, "labels.teacher=search:iterations=40"]) == 2
    changed = "labels.teacher='search:iterations=30', not 'search:iterations=40'"
    assert capsys.readouterr().err == f"config error: {tmp_path} was made with {changed}: give another --run-dir\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["exit.json"]
