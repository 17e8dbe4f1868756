"""The replay CLI and record reading beyond the public cases (RULES §9)."""

import json
import random
import subprocess
import sys

import pytest

from schnapsen_env import GameState, Rules
from schnapsen_env.replay import main, parse_record, replay_record, to_record

DECK = ["AS", "KS", "QD", "TS", "JD", "QC", "KH", "AD", "JC", "TD",
        "KC", "AC", "TC", "QS", "JS", "AH", "TH", "QH", "JH", "KD"]


def record(**changes):
    rec = {"variant": "schnapsen", "options": {}, "dealer": 1, "deck": list(DECK), "actions": []}
    rec.update(changes)
    return rec


def test_unknown_key_is_invalid_record_naming_it():
    rec = record()
    rec["option"] = {"sharp": True}  # a typo of "options" must not be ignored
    got = replay_record(rec)
    assert got["error"] == "invalid_record" and "'option'" in got["message"]


@pytest.mark.parametrize("key", ["deck", "dealer"])
def test_missing_required_key_is_invalid_record_naming_it(key):
    rec = record()
    del rec[key]
    got = replay_record(rec)
    assert got["error"] == "invalid_record" and f"'{key}'" in got["message"]


def test_missing_variant_options_actions_default_to_schnapsen_and_no_actions():
    got = replay_record({"dealer": 0, "deck": list(DECK)})
    assert got == {"finished": False, "to_move": 1, "eyes": [0, 0], "tricks": [0, 0]}


@pytest.mark.parametrize("bad", [True, "1", 1.0, None, -1])
def test_dealer_must_be_zero_or_one(bad):
    assert replay_record(record(dealer=bad))["error"] == "invalid_record"


def test_lower_case_card_is_unknown():
    deck = list(DECK)
    deck[0] = "as"
    assert replay_record(record(deck=deck))["error"] == "invalid_record"


def test_nine_in_the_20_card_deck_is_unknown():
    deck = list(DECK)
    deck[0] = "9S"
    assert replay_record(record(deck=deck))["error"] == "invalid_record"


def test_to_record_round_trips_a_random_game():
    rules = Rules.preset("sechsundsechzig", declare="manual")
    rng = random.Random(5)
    deck = list(range(24))
    rng.shuffle(deck)
    state = GameState(rules, deck, 0)
    while not state.is_terminal:
        state.apply(rng.choice(state.legal_actions()))
    rec = to_record(state, "sechsundsechzig", deck)
    assert rec["options"] == {"declare": "manual"}
    assert replay_record(json.loads(json.dumps(rec))) == state.status()
    replayed, actions = parse_record(rec)
    assert actions == [a for _, a in state.history]


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "schnapsen_env.replay", *args], capture_output=True, text=True)


def test_cli_help_exits_zero():
    proc = run_cli("--help")
    assert proc.returncode == 0 and "usage" in proc.stdout


def test_cli_missing_file_and_wrong_extension_exit_2(tmp_path):
    proc = run_cli(str(tmp_path / "nope.json"))
    assert proc.returncode == 2 and proc.stdout == "" and "cannot read" in proc.stderr
    other = tmp_path / "game.txt"
    other.write_text("{}")
    proc = run_cli(str(other))
    assert proc.returncode == 2 and ".json" in proc.stderr


def test_cli_jsonl_skips_blank_lines_and_reports_non_object_lines(tmp_path, capsys):
    path = tmp_path / "games.jsonl"
    path.write_text(json.dumps(record()) + "\n\n   \n[1, 2]\nnot json\n" + json.dumps(record(actions=["play AD"])) + "\n")
    assert main([str(path)]) == 1
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x.get("error") for x in lines] == [None, "invalid_record", "invalid_record", None]
    assert lines[3] == {"finished": False, "to_move": 1, "eyes": [0, 0], "tricks": [0, 0]}


def test_cli_exit_zero_when_all_records_replay(tmp_path):
    path = tmp_path / "one.json"
    path.write_text(json.dumps(record(actions=["play AD", "play TD"])))
    proc = run_cli(str(path))
    assert proc.returncode == 0
    assert json.loads(proc.stdout) == {"finished": False, "to_move": 0, "eyes": [21, 0], "tricks": [1, 0]}
