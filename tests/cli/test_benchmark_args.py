"""The benchmark scripts: bad arguments are argparse's one-line errors (exit status 2, nothing
measured), a short run prints its block, and ``--write-docs`` replaces only that block of the page."""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))  # the scripts' own imports (_common)
TIMEOUT = 60

CASES = [
    ("engine_speed.py", ["--runs", "0"], "argument --runs: expected a whole number >= 1, got 0"),
    ("soak.py", ["--games", "many"], "expected a whole number in ASCII digits"),
    (
        "agent_strength.py",
        ["--games", "3"],
        "expected an even whole number >= 2 (duplicate deals play each deal twice), got 3",
    ),
    (
        "leaderboard.py",
        ["--games", "3"],
        "expected an even whole number >= 2 (duplicate deals play each deal twice), got 3",
    ),
]


def run(script: str, *args: str, timeout: int = TIMEOUT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def assert_one_line_error(proc: subprocess.CompletedProcess, prog: str, phrase: str) -> None:
    assert proc.returncode == 2 and proc.stdout == "", (proc.returncode, proc.stderr)
    line = proc.stderr.splitlines()[-1]  # (after argparse's usage line)
    assert line.startswith(f"{prog}: error: ") and phrase in line, proc.stderr


@pytest.mark.parametrize(("script", "args", "phrase"), CASES, ids=[f"{s}:{' '.join(a)}" for s, a, _ in CASES])
def test_bad_arguments_are_one_line_errors(script, args, phrase):
    assert_one_line_error(run(script, *args), script, phrase)


def test_a_short_run_prints_its_block_with_machine_and_peer():
    proc = run("solver_speed.py", "--positions", "1", "--games", "1")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("Measured ") and "CPU cores" in lines[0]
    assert "`python benchmarks/solver_speed.py --positions 1 --games 1`" in lines[0]
    assert lines[4].startswith("| solver: phase-2 position, 5 cards each (median) | ")
    assert "| pure-Python alpha-beta " in lines[4]


@pytest.mark.parametrize(
    "script,args,row",
    [
        (
            "vector_speed.py",
            ["--seconds", "0.2", "--batch", "64"],
            r"\| engine steps/s \| [\d,]+ \| [\d,]+ \| \d+\.\dx \|",
        ),
        (
            "ab_speed.py",
            ["HEAD", "WORKTREE", "--surfaces", "vector_gym", "--repeats", "1", "--seconds", "0.2", "--batch", "16"],
            r"\| vector_gym \| [\d,]+ \| [\d,]+ \| \d+\.\d\dx \|",
        ),
    ],
)
def test_the_batched_benchmarks_print_both_figures_in_their_table(script, args, row):
    pytest.importorskip("torch")
    proc = run(script, *args, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert any(re.fullmatch(row, line) for line in proc.stdout.splitlines()), proc.stdout


def test_publish_replaces_only_its_block(tmp_path, capsys):
    from _common import publish

    page = tmp_path / "benchmarks.md"
    page.write_text("# B\n<!-- a:start -->\nold a\n<!-- a:end -->\n<!-- b:start -->\nold b\n<!-- b:end -->\n")
    publish("a", "new a\nline 2", False, page)
    assert "old a" in page.read_text()  # without --write-docs: printed only
    publish("a", "new a\nline 2", True, page)
    assert page.read_text() == (
        "# B\n<!-- a:start -->\nnew a\nline 2\n<!-- a:end -->\n<!-- b:start -->\nold b\n<!-- b:end -->\n"
    )
    publish("c", "text", True, page)
    assert "has no <!-- c:start --> ... <!-- c:end --> block: not updated" in capsys.readouterr().err


def test_agent_strength_reads_ppo_specs_with_options_as_agents_not_paths():
    pytest.importorskip("torch")  # without torch every ppo spec is "torch not installed"
    from agent_strength import missing

    assert missing("ppo:endgame=expert") is None and missing("ppo:sample=true,seed=3") is None
    assert missing("ppo:no/such/file.pt") == "no/such/file.pt not found"
    assert missing("ppo:path=no/such.pt,sample=true") == "no/such.pt not found"


def test_agent_strength_refuses_a_bad_ppo_option_in_one_line():
    pytest.importorskip("torch")  # without torch a ppo spec is listed as not run (torch not installed)
    proc = run("agent_strength.py", "--agents", "ppo:endgame=bogus", "random")
    assert_one_line_error(proc, "agent_strength.py", "endgame: Input should be 'network'")


def test_leaderboard_rates_the_agents_that_build_bare_and_marks_a_rung_playing_itself():
    pytest.importorskip("torch")  # the ppo agents (and rungs); absent in the lower-bounds CI job
    from leaderboard import is_rung, shipped_agents

    ok, skipped = shipped_agents()
    assert (
        ok[:3] == ["random", "heuristic", "expert"]
        and "`rllib` (the rllib agent needs a checkpoint: rllib:checkpoint=PATH)" in skipped
    )
    assert is_rung("pimc", "pimc:samples=40") and is_rung("random", "random")
    assert not is_rung("pimc:samples=10", "pimc:samples=40") and not is_rung("ppo", "ppo-strong")


def test_leaderboard_shows_a_perfect_or_winless_record_as_its_one_sided_bound():
    from leaderboard import rating_cells, sort_key

    perfect = {"rating": None, "low": 812.4, "high": None}
    winless = {"rating": None, "low": None, "high": -300.2}
    fitted = {"rating": 286.2, "low": 268.0, "high": 304.4}
    assert rating_cells(perfect) == ["> 812", ""] and sort_key(perfect) == 812.4
    assert rating_cells(winless) == ["< -300", ""] and sort_key(winless) == -300.2
    assert rating_cells(fitted) == ["286", "[268, 304]"] and sort_key(fitted) == 286.2


def test_search_strength_prints_a_row_per_arm_and_a_column_per_vs_opponent(capsys):
    import search_strength

    argv = ["--arms", "random", "--games", "2", "--timing-games", "1", "--no-equal-time", "--vs", "heuristic"]
    assert search_strength.main([*argv, "--workers", "1"]) == 0
    first, header, _, row = [line for line in capsys.readouterr().out.splitlines() if line.startswith("|")]
    assert header.endswith("| vs heuristic |") and row.startswith("| random | ") and first == row  # then the block
    assert row.count("|") == header.count("|") and row.endswith("(2) |")


def test_search_strength_plays_equal_time_games_apart_from_games(capsys):
    import search_strength

    argv = ["--arms", "random", "--games", "2", "--equal-time-games", "4", "--timing-games", "1", "--workers", "1"]
    assert search_strength.main(argv) == 0
    row = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| random")][0]
    cells = [c.strip() for c in row.split("|")[1:-1]]
    assert cells[1].endswith("(2)") and cells[2] == "N = 40" and cells[3].endswith("(4)")
