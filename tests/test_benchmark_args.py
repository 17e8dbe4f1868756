"""Bad arguments of the benchmark scripts: ``prog: error: ...`` on stderr, exit status 2,
no traceback, before anything is measured (env_speed, solver_speed, soak, engine_speed, agent_strength)."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
TIMEOUT = 60

CASES = [
    ("env_speed.py", ["--steps", "0"], "expected a whole number >= 1"),
    ("env_speed.py", ["--variant", "nope"], "invalid choice: 'nope' (choose from 'schnapsen'"),
    ("solver_speed.py", ["--seed", "-1"], "expected a whole number >= 0"),
    ("soak.py", ["--games", "many"], "expected a whole number in ASCII digits"),
    ("engine_speed.py", ["--runs", "0"], "expected a whole number >= 1"),
    ("agent_strength.py", ["--games", "3"], "duplicate deals need an even number of games, got '3'"),
    ("agent_strength.py", ["--agents", "heuristic"], "a round robin needs at least 2 agents"),
    ("rollout_speed.py", ["--hidden", "0"], "argument --hidden: expected a whole number >= 1, got '0'"),
    ("rollout_speed.py", ["--precision", "float16"], "argument --precision: invalid choice: 'float16'"),
    ("vector_speed.py", ["--batch", "0"], "argument --batch: expected a whole number >= 1 and <= 1048576, got 0"),
]
#: scripts that need torch (the lower-bounds CI job has none): their cases skip without it
TORCH_SCRIPTS = {"rollout_speed.py", "vector_speed.py"}


def _assert_one_line_error(proc: subprocess.CompletedProcess, prog: str, phrase: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr
    line = proc.stderr.splitlines()[-1]  # (after argparse's usage line, for its own errors)
    assert line.startswith(f"{prog}: error: ") and phrase in line, proc.stderr


@pytest.mark.parametrize(
    ("script", "args", "phrase"), CASES, ids=[f"{s}:{' '.join(a) or '(none)'}" for s, a, _ in CASES]
)
def test_bad_arguments_are_one_line_errors(script, args, phrase):
    if script in TORCH_SCRIPTS:
        pytest.importorskip("torch")
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    _assert_one_line_error(proc, script, phrase)
    assert proc.stdout == ""  # refused before the machine line or any figure


def test_env_speed_without_the_bench_extra_says_how_to_install_it():
    # pygame (part of pettingzoo[classic]) blocked whether or not it is installed
    code = (
        "import runpy, sys; sys.modules['pygame'] = None; sys.path.insert(0, 'benchmarks'); "
        "sys.argv = ['env_speed.py', '--steps', '10', '--repeats', '1']; "
        "runpy.run_path('benchmarks/env_speed.py', run_name='__main__')"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT)
    _assert_one_line_error(proc, "env_speed.py", 'pip install -e ".[bench]"')
    assert proc.stdout == ""


def test_agent_strength_reads_ppo_specs_with_options_as_agents_not_paths():
    pytest.importorskip("torch")  # without torch every ppo spec is "torch not installed"
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from agent_strength import missing
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    assert missing("ppo:endgame=expert") is None and missing("ppo:sample=true,seed=3") is None
    assert missing("ppo:no/such/file.pt") == "no/such/file.pt not found"
    assert missing("ppo:path=no/such.pt,sample=true") == "no/such.pt not found"


def test_agent_strength_refuses_a_bad_ppo_option_in_one_line():
    pytest.importorskip("torch")  # without torch a ppo spec is listed as not run (torch not installed)
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "agent_strength.py"), "--agents", "ppo:endgame=bogus", "random"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    _assert_one_line_error(proc, "agent_strength.py", "endgame must be one of network")


def test_solver_speed_json_is_the_whole_stdout():
    import json

    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "solver_speed.py"), "--json", "--positions", "1", "--games", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert proc.returncode == 0, proc.stderr
    figures = json.loads(proc.stdout)  # one JSON document, nothing before it
    assert figures["machine"].startswith("Measured ")
    assert figures["phase2_solve_ms"] > 0 and figures["pimc40_decisions"] >= 1


@pytest.mark.parametrize(
    "stdout, code, line",
    [
        ("broken", 1, None),
        pytest.param(
            "full",
            2,
            "solver_speed.py: error: cannot write to standard output: No space left on device",
            marks=pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full"),
        ),
    ],
)
def test_benchmark_output_into_a_broken_pipe_or_a_full_disk_is_no_traceback(stdout, code, line):
    if stdout == "broken":
        r, out = os.pipe()
        os.close(r)  # a reader that stopped reading (`| head`)
    else:
        out = os.open("/dev/full", os.O_WRONLY)
    try:
        proc = subprocess.run(
            [
                sys.executable,
                str(ROOT / "benchmarks" / "solver_speed.py"),
                "--json",
                "--positions",
                "1",
                "--games",
                "1",
            ],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.PIPE,
            text=True,
            timeout=TIMEOUT,
        )
    finally:
        os.close(out)
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr
    assert proc.stderr.splitlines() == ([] if line is None else [line])
