"""Every public rule case in tests/cases replays to its .expected.json (RULES §9).

The cases are copied from shared/cases/public; MANIFEST.md there explains each.
Error lines compare by ``error`` and ``index`` only (messages are free text).
"""

import json
import pathlib
import subprocess
import sys

import pytest

from schnapsen_env.replay import replay_record

CASES = pathlib.Path(__file__).parents[1] / "cases"
RECORDS = sorted(p for p in CASES.glob("*.json") if not p.name.endswith(".expected.json"))


def _matches(got: dict, exp: dict) -> bool:
    if "error" in exp:
        return got.get("error") == exp["error"] and got.get("index") == exp.get("index")
    return got == exp


def test_cases_folder_is_not_empty():
    assert len(RECORDS) >= 80


@pytest.mark.parametrize("path", RECORDS, ids=[p.stem for p in RECORDS])
def test_case_replays_to_expected(path):
    record = json.loads(path.read_text())
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
    got = replay_record(record)
    assert _matches(got, expected), f"{path.name}: expected {expected}, got {got}"


def test_replay_cli_jsonl_matches_every_case(tmp_path):
    jsonl = tmp_path / "all.jsonl"
    jsonl.write_text("\n".join(json.dumps(json.loads(p.read_text())) for p in RECORDS) + "\n\n")
    proc = subprocess.run([sys.executable, "-m", "schnapsen_env.replay", str(jsonl)], capture_output=True, text=True)
    lines = proc.stdout.splitlines()
    assert len(lines) == len(RECORDS)
    any_error = False
    for p, line in zip(RECORDS, lines):
        exp = json.loads(p.with_name(p.stem + ".expected.json").read_text())
        any_error |= "error" in exp
        assert _matches(json.loads(line), exp), p.name
    assert proc.returncode == (1 if any_error else 0)
