"""The example scripts run as documented (short settings; their full figures are in docs/benchmarks.md)."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _sb3_logdir(tmp_path, monkeypatch):
    """Stable-Baselines3 makes an empty /tmp/SB3-<time> log folder on every learn() unless SB3_LOGDIR is set."""
    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path / "sb3"))


def test_sb3_example_trains_and_evaluates():
    pytest.importorskip("sb3_contrib")
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "sb3_maskable_ppo.py"), "--steps", "512"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("mean game points per game vs random: ")
    assert lines[1].startswith("wall time: ")


def test_vector_example_plays_both_views_and_refuses_bad_arguments():
    pytest.importorskip("torch")
    script = [sys.executable, str(ROOT / "examples" / "vector_play.py")]
    proc = subprocess.run([*script, "--envs", "64", "--steps", "30"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("self-play: ") and "steps/s (64 games on cpu)" in lines[0]
    assert lines[1].startswith("random learner vs heuristic: ") and "game points per game" in lines[1]
    bad = subprocess.run([*script, "--envs", "0"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "bad value 0 for 'num_envs': allowed an int from 1 to 1048576" in bad.stderr
    assert "Traceback" not in bad.stderr
