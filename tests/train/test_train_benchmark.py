"""benchmarks/train_default.py: docs/benchmarks.md only with --write-docs (the default config only),
config errors as one line and exit status 2, the peer on the evaluation's deals. The training
itself is stubbed (the real one takes up to 20 minutes)."""

from __future__ import annotations

import csv
import importlib.util
import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("torch")  # the [train] extra; absent in the lower-bounds CI job

import agents.evaluation.arena as arena  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))  # the scripts' own imports (_common, vector_speed)


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


bench = _load("train_default_bench", ROOT / "benchmarks" / "train_default.py")


@pytest.fixture
def stubbed(monkeypatch, tmp_path):
    """train.main writes a finished run's files without training; the peers are instant."""
    from agents.training import train
    from agents.training.run import CSV_NAME, EVAL_JSON

    calls = SimpleNamespace(main=[], docs=[], play_pair=[])

    def fake_main(argv, started=None):
        calls.main.append(argv)
        run_dir = Path(argv[argv.index("--run-dir") + 1])
        run_dir.mkdir(parents=True)
        with open(run_dir / CSV_NAME, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=["update", "env_steps", "learner_steps", "rollout_steps_per_s"])
            w.writeheader()
            w.writerow({"update": 650, "env_steps": 2_000_000, "learner_steps": 1_000_000, "rollout_steps_per_s": 4e4})
        result = {"games": 2000, "win_rate": 0.9, "win_rate_ci": [0.88, 0.92], "mean_game_points": [2.0, 0.2]}
        (run_dir / EVAL_JSON).write_text(json.dumps({"random": result, "heuristic": result}))
        return 0

    def fake_play_pair(a, b, games, seed, **kw):
        calls.play_pair.append(seed)
        return SimpleNamespace(win_rate=0.87, win_rate_ci=(0.85, 0.89))

    monkeypatch.setattr(train, "main", fake_main)
    monkeypatch.setattr(arena, "play_pair", fake_play_pair)
    monkeypatch.setattr(bench, "scalar_steps_per_second", lambda *a, **kw: 1e5)
    monkeypatch.setattr(bench, "publish", lambda block, text, write: calls.docs.append((block, text, write)))
    calls.run_dir = tmp_path / "run"
    return calls


def test_the_docs_block_is_written_only_with_write_docs(stubbed):
    from agents.training import train

    assert bench.main(["--run-dir", str(stubbed.run_dir)]) == 0
    [(block, text, write)] = stubbed.docs
    assert block == "train_default" and not write and "CPU cores" in text
    assert "| updates / env steps / learner decisions | 650 of 500 / 2,000,000" in text
    assert "| peer: heuristic vs random, same deals | 87.0% [85.0%, 89.0%] |" in text
    assert stubbed.play_pair == [train.eval_seed(0)]  # the peer plays the final evaluation's deals
    assert bench.main(["--run-dir", str(stubbed.run_dir.with_name("run2")), "--write-docs"]) == 0
    assert stubbed.docs[1][2] is True


@pytest.mark.parametrize(
    "argv, start",
    [
        (["ppo.lr=-1"], "config error: ppo.lr: Input should be greater than 0"),
        (["bogus.key=1"], "config error: unknown key 'bogus'"),
    ],
)
def test_config_errors_are_one_line_and_exit_2(stubbed, capsys, argv, start):
    assert bench.main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith(start), err
    assert stubbed.main == [] and stubbed.docs == []


def test_write_docs_refuses_overrides(stubbed, capsys):
    with pytest.raises(SystemExit) as e:
        bench.main(["--write-docs", "ppo.lr=1e-4"])
    assert e.value.code == 2 and "--write-docs records the default config" in capsys.readouterr().err
    assert stubbed.main == []
