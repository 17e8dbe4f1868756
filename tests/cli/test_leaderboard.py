"""benchmarks/leaderboard.py: each agent's report kept in --out, a rerun plays only what is missing (a finished
report reused, an unfinished one continued to the same result), and the "which agent for what" table."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))  # the scripts' own imports (_common)

import leaderboard  # noqa: E402


def row(spec: str, rating: float, ms: float) -> leaderboard.BoardRow:
    return leaderboard.BoardRow(spec=spec, rating=rating, rating_text=f"{rating:.0f} [x, y]", ms=ms, line="")


def test_which_agent_names_the_strongest_the_fastest_within_50_elo_and_the_heuristic():
    rows = [
        row(spec="search", rating=464.0, ms=900.0),
        row(spec="pimc", rating=429.0, ms=2.4),
        row(spec="ppo-strong", rating=412.0, ms=0.32),  # 52 Elo below: not among the strong
        row(spec="heuristic", rating=280.0, ms=0.02),
    ]
    choices = leaderboard.which_agent(rows)
    assert [(choice.role.split(" (")[0], choice.row.spec) for choice in choices] == [
        ("strongest", "search"),
        ("fastest strong", "pimc"),
        ("reference baseline", "heuristic"),
    ]
    table = leaderboard.which_agent_table(rows=rows, version=1, games=400).splitlines()
    assert table[2] == "| strongest | `search` | 464 [x, y] | 900.000 |"
    assert table[3] == "| fastest strong (at most 50 Elo below the strongest) | `pimc` | 429 [x, y] | 2.400 |"
    assert table[-1] == "From the board below (ladder v1, 400 games per rung)."
    assert leaderboard.which_agent(rows[:2])[-1].role.startswith("fastest strong")  # no heuristic: no baseline row
    winless = row(spec="random", rating=96.0, ms=0.001)._replace(winless=True)  # "< 96": an upper bound only
    assert [choice.row.spec for choice in leaderboard.which_agent([winless, rows[3]])] == ["heuristic"] * 3


def test_a_rerun_keeps_finished_reports_and_continues_an_unfinished_one(tmp_path, capsys):
    pytest.importorskip("torch")  # the ppo rungs
    argv = ["--games", "2", "--agents", "random", "heuristic", "--no-write", "--out", str(tmp_path)]
    assert leaderboard.main(argv) == 0
    first = capsys.readouterr().out
    report = json.loads((tmp_path / "heuristic" / "ladder.json").read_text())
    assert (report["agent"], report["games"], report["games_per_rung"]) == ("heuristic", 12, 2)
    assert (
        "heuristic: wrote " in first and "| `heuristic` | " in first and "| reference baseline (rule-based) |" in first
    )
    assert "ladder v1, 2 games per rung" in first

    assert leaderboard.main(argv) == 0
    second = capsys.readouterr().out
    assert f"random: kept {tmp_path / 'random' / 'ladder.json'}" in second and "wrote" not in second
    assert [line for line in second.splitlines() if line.startswith("| `")] == [
        line for line in first.splitlines() if line.startswith("| `")
    ]

    partial = {"spec": "heuristic", "games": 2, "ladder_version": 1, "provenance": report["provenance"]}
    (tmp_path / "heuristic" / "ladder.partial.json").write_text(json.dumps({**partial, "rungs": report["rungs"][:4]}))
    (tmp_path / "heuristic" / "ladder.json").unlink()
    assert leaderboard.main(argv) == 0
    assert "heuristic: continuing " in capsys.readouterr().out
    resumed = json.loads((tmp_path / "heuristic" / "ladder.json").read_text())
    assert [r["wins"] for r in resumed["rungs"]] == [r["wins"] for r in report["rungs"]]
    assert len(resumed["provenance"]["resumed"]) == 1 and not (tmp_path / "heuristic" / "ladder.partial.json").exists()


def test_a_report_of_other_games_is_played_again(tmp_path, capsys):
    pytest.importorskip("torch")
    assert leaderboard.main(["--games", "2", "--agents", "random", "--no-write", "--out", str(tmp_path)]) == 0
    assert leaderboard.main(["--games", "4", "--agents", "random", "--no-write", "--out", str(tmp_path)]) == 0
    assert "kept" not in capsys.readouterr().out
    assert json.loads((tmp_path / "random" / "ladder.json").read_text())["games_per_rung"] == 4


def test_a_faulty_partial_file_is_refused_in_one_line_and_kept(tmp_path, capsys):
    """A ladder.partial.json without its games: one line naming the file and the field, exit 2, nothing
    played, the file as it was."""
    partial = tmp_path / "heuristic" / "ladder.partial.json"
    partial.parent.mkdir()
    partial.write_text('{"spec": "heuristic"}\n')
    with pytest.raises(SystemExit) as refused:
        leaderboard.main(["--games", "2", "--agents", "heuristic", "--no-write", "--out", str(tmp_path)])
    error = capsys.readouterr().err.splitlines()
    assert refused.value.code == 2 and error[-1].endswith(f"error: {partial}: games: Field required")
    assert partial.read_text() == '{"spec": "heuristic"}\n' and not (tmp_path / "heuristic" / "ladder.json").exists()
