"""The replay CLI and record reading beyond the public cases (RULES §9)."""

import json
import random
import subprocess
import sys

import pytest

from schnapsen_env import GameState, Rules
from schnapsen_env.replay import main, parse_record, replay_lines, replay_record, to_record

DECK = "AS KS QD TS JD QC KH AD JC TD KC AC TC QS JS AH TH QH JH KD".split()


def record(**changes):
    rec = {"variant": "schnapsen", "options": {}, "dealer": 1, "deck": list(DECK), "actions": []}
    rec.update(changes)
    return rec


KEYS = "variant, options, dealer, deck, actions"
UNFINISHED = {"finished": False, "to_move": 0, "eyes": [0, 0], "tricks": [0, 0]}  # record() as dealt


@pytest.mark.parametrize("key", ["option", "Dealer", "deck ", "seed", "", 1])
def test_unknown_key_is_invalid_record_naming_it(key):
    rec = record()
    rec[key] = {"sharp": True}  # a typo of "options" must not be ignored
    got = replay_record(rec)
    assert got == {"error": "invalid_record", "message": f"unknown key {key!r}: a record has the keys {KEYS}"}


def test_unknown_key_in_a_file_is_invalid_record(tmp_path, capsys):
    path = tmp_path / "g.jsonl"
    path.write_text(json.dumps({**record(), "seed": 3}) + "\n" + json.dumps(record()) + "\n")
    assert main([str(path)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        json.dumps({"error": "invalid_record", "message": f"unknown key 'seed': a record has the keys {KEYS}"}),
        json.dumps(UNFINISHED),
    ]


@pytest.mark.parametrize("key", ["deck", "dealer"])
def test_missing_required_key_is_invalid_record_naming_it(key):
    rec = record()
    del rec[key]
    got = replay_record(rec)
    assert got == {
        "error": "invalid_record",
        "message": f"missing key '{key}': a record needs 'deck' and 'dealer' "
        "('variant', 'options' and 'actions' default to schnapsen, {} and [])",
    }


@pytest.mark.parametrize(
    "key, value, message",
    [
        (
            "variant",
            None,
            "unknown variant None: allowed presets are schnapsen, schnapsen-sharp, schnapsen-tournament, "
            "sechsundsechzig, vu-course",
        ),
        (
            "variant",
            ["schnapsen"],
            "unknown variant ['schnapsen']: allowed presets are schnapsen, schnapsen-sharp, "
            "schnapsen-tournament, sechsundsechzig, vu-course",
        ),
        ("options", None, "options must be a JSON object of option names and values, got null"),
        ("options", [["deck", 24]], "options must be a JSON object of option names and values, got an array"),
        ("deck", "AS KS", "deck must be a list of card strings, got a string"),
        ("actions", "play AD", "actions must be a list of action strings, got a string"),
        ("actions", None, "actions must be a list of action strings, got null"),
    ],
)
def test_record_fields_of_the_wrong_json_type_are_invalid_record(key, value, message):
    assert replay_record(record(**{key: value})) == {"error": "invalid_record", "message": message}


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
    rec = to_record(state, "sechsundsechzig")
    assert rec["options"] == {"declare": "manual"}
    assert replay_record(json.loads(json.dumps(rec))) == state.status()
    replayed, actions = parse_record(rec)
    assert actions == [a for _, a in state.history]


def run_cli(*args, timeout=120):
    return subprocess.run(
        [sys.executable, "-m", "schnapsen_env.replay", *args], capture_output=True, text=True, timeout=timeout
    )


def test_cli_help_exits_zero():
    proc = run_cli("--help")
    assert proc.returncode == 0 and "usage" in proc.stdout


def test_cli_missing_file_and_wrong_extension_exit_2(tmp_path):
    missing = str(tmp_path / "nope.json")
    proc = run_cli(missing)
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        2,
        "",
        f"replay: cannot read {missing!r}: No such file or directory\n",
    )
    other = tmp_path / "game.txt"
    other.write_text("{}")
    proc = run_cli(str(other))
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        2,
        "",
        f"replay: {str(other)!r}: not a .json or .jsonl file\n",
    )


def test_cli_jsonl_skips_blank_lines_and_reports_non_object_lines(tmp_path, capsys):
    path = tmp_path / "games.jsonl"
    path.write_text(
        json.dumps(record()) + "\n\n   \n[1, 2]\nnot json\n" + json.dumps(record(actions=["play AD"])) + "\n"
    )
    assert main([str(path)]) == 1
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert lines == [
        UNFINISHED,
        {"error": "invalid_record", "message": "a record must be a JSON object, got an array"},
        {"error": "invalid_record", "message": "not JSON: Expecting value: line 1 column 1 (char 0)"},
        {"finished": False, "to_move": 1, "eyes": [0, 0], "tricks": [0, 0]},
    ]


def test_cli_exit_zero_when_all_records_replay(tmp_path):
    path = tmp_path / "one.json"
    path.write_text(json.dumps(record(actions=["play AD", "play TD"])))
    proc = run_cli(str(path))
    assert proc.returncode == 0
    assert json.loads(proc.stdout) == {"finished": False, "to_move": 0, "eyes": [21, 0], "tricks": [1, 0]}


# ---------------------------------------------------------------- any bytes in, RULES §9 lines out

GOOD = json.dumps(record()).encode()
GOOD_LINE = json.dumps(UNFINISHED)


def replay_file(tmp_path, capsys, data: bytes, name="games.jsonl"):
    path = tmp_path / name
    path.write_bytes(data)
    code = main([str(path)])
    captured = capsys.readouterr()
    return code, captured.out.splitlines(), captured.err


def invalid(message):
    return json.dumps({"error": "invalid_record", "message": message})


@pytest.mark.parametrize(
    "bad, message",
    [
        (b'{"dealer": NaN, "deck": []}', "not a record: NaN is not a JSON value"),
        (b'{"dealer": -Infinity}', "not a record: -Infinity is not a JSON value"),
        (b'{"dealer": 1, "deck": [], "dealer": 0}', "not a record: key 'dealer' given twice in one object"),
        (b"\xff\xfe{}", "not UTF-8: byte 0xff at position 0 (invalid start byte)"),
        (GOOD[:20] + b"\xc3" + GOOD[20:], "not UTF-8: byte 0xc3 at position 20 (invalid continuation byte)"),
        (b"\xef\xbb\xbf" + GOOD, "not JSON: Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)"),
        (b"\x0b" + GOOD, "not JSON: Expecting value: line 1 column 1 (char 0)"),
    ],
)
def test_jsonl_bad_line_is_one_invalid_record_line_between_good_ones(tmp_path, capsys, bad, message):
    code, out, err = replay_file(tmp_path, capsys, GOOD + b"\n" + bad + b"\n" + GOOD + b"\n")
    assert (code, out, err) == (1, [GOOD_LINE, invalid(message), GOOD_LINE], "")
    code, out, err = replay_file(tmp_path, capsys, bad, name="one.json")  # a .json file of it: the same line
    assert (code, out, err) == (1, [invalid(message)], "")


def test_json_file_that_is_not_utf8_is_an_invalid_record_line(tmp_path, capsys):
    code, out, err = replay_file(tmp_path, capsys, b'{"dealer": "\xe9"}', name="latin1.json")
    assert (code, out, err) == (1, [invalid("not UTF-8: byte 0xe9 at position 12 (invalid continuation byte)")], "")


def test_lines_are_replayed_one_by_one_as_they_are_read():
    def lines():
        yield GOOD + b"\n"
        raise AssertionError("read the second line before giving the first line's result")

    assert next(replay_lines(lines())) == UNFINISHED


# ------------------------------------------------------------------ paths that are not regular files
