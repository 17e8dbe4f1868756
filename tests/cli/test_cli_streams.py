"""The play and train CLIs with standard output broken (a reader gone, as ``| head``) or full: a quiet
1 for play, one line and 2 for train; never a traceback, never an "Exception ignored" line."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from schnapsen_env.replay import replay_record

ROOT = Path(__file__).resolve().parents[2]


def run_into(stdout: str, argv: list, stdin: bytes = b"") -> subprocess.CompletedProcess:
    """Run ``argv`` with standard output "broken" (a pipe whose reader is gone: every write fails
    with EPIPE) or "full" (/dev/full: ENOSPC)."""
    if stdout == "broken":
        r, out = os.pipe()
        os.close(r)
    else:
        out = os.open("/dev/full", os.O_WRONLY)
    try:
        return subprocess.run(argv, input=stdin, stdout=out, stderr=subprocess.PIPE, cwd=ROOT, timeout=300)
    finally:
        os.close(out)


def test_play_into_a_broken_pipe_is_quiet_and_saves_the_record(tmp_path):
    record = tmp_path / "game.json"
    argv = [
        sys.executable,
        "-m",
        "agents.apps.play",
        "--opponent",
        "random",
        "--seed",
        "1",
        "--save-record",
        str(record),
    ]
    proc = run_into("broken", argv, stdin=b"1\n" * 80)
    assert (proc.returncode, proc.stderr) == (1, b"")
    assert "error" not in replay_record(json.loads(record.read_text()))


@pytest.mark.parametrize(
    "stdout, line",
    [
        ("broken", "error: [Errno 32] Broken pipe"),
        pytest.param(
            "full",
            "error: [Errno 28] No space left on device",
            marks=pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full"),
        ),
    ],
)
def test_train_with_standard_output_unwritable_names_it_and_keeps_the_run(tmp_path, stdout, line):
    pytest.importorskip("torch")
    run_dir = tmp_path / "run"
    overrides = [f"run.dir={run_dir}", "run.total_updates=1", "eval.final_games=0", "run.tensorboard=false"]
    argv = [sys.executable, str(ROOT / "train.py"), "--config", str(ROOT / "configs" / "smoke.yaml"), *overrides]
    proc = run_into(stdout, argv)
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert "Traceback" not in err and "Exception ignored" not in err
    assert err.splitlines()[-1].startswith(line), err
    assert (run_dir / "policy.pt").is_file() and (run_dir / "checkpoint.pt").is_file()


#: the first prompt of seed 3 against the default opponent, then ``quit``, with suit letters
PLAY_SEED_3_IN_LETTERS = """
trump: C   trump card: KC   talon: 9 face-down cards
player 0 (you)           hand: AC QC TS QS KH   tricks won: 0   eyes: 0
player 1 [dealer]        hand: 5 cards   tricks won: 0   eyes: 0
trick: (no card led)
to move: player 0 (you)
Your move. Legal actions:
   1. play AC  [play AC]
   2. play QC  [play QC]
   3. play TS  [play TS]
   4. play QS  [play QS]
   5. play KH  [play KH]
   6. close  [close]
> Game abandoned.
"""


@pytest.mark.parametrize(
    "encoding, flags", [("cp1252", []), ("ascii", []), ("utf-8", ["--no-symbols"])], ids=["cp1252", "ascii", "forced"]
)
def test_play_shows_suit_letters_where_stdout_cannot_encode_symbols_or_with_no_symbols(encoding, flags):
    argv = [sys.executable, "-m", "agents.apps.play", "--seed", "3", *flags]
    env = {**os.environ, "PYTHONIOENCODING": encoding}
    proc = subprocess.run(argv, input=b"quit\n", capture_output=True, cwd=ROOT, env=env, timeout=300)
    assert (proc.returncode, proc.stderr, proc.stdout.decode(encoding)) == (1, b"", PLAY_SEED_3_IN_LETTERS)
