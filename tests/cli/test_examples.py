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
