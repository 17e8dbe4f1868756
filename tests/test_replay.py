"""The replay CLI and record reading beyond the public cases (RULES §9)."""

import errno
import io
import json
import os
import random
import subprocess
import sys

import pytest

from schnapsen_env import GameState, Rules
from schnapsen_env.replay import main, parse_record, replay_json, replay_lines, replay_record, to_record

DECK = ["AS", "KS", "QD", "TS", "JD", "QC", "KH", "AD", "JC", "TD",
        "KC", "AC", "TC", "QS", "JS", "AH", "TH", "QH", "JH", "KD"]


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
        json.dumps(UNFINISHED)]


@pytest.mark.parametrize("key", ["deck", "dealer"])
def test_missing_required_key_is_invalid_record_naming_it(key):
    rec = record()
    del rec[key]
    got = replay_record(rec)
    assert got == {"error": "invalid_record", "message": f"missing key '{key}': a record needs 'deck' and 'dealer' "
                   "('variant', 'options' and 'actions' default to schnapsen, {} and [])"}


@pytest.mark.parametrize("key, value, message", [
    ("variant", None, "unknown variant None: allowed presets are schnapsen, schnapsen-sharp, schnapsen-tournament, "
                      "sechsundsechzig, vu-course"),
    ("variant", ["schnapsen"], "unknown variant ['schnapsen']: allowed presets are schnapsen, schnapsen-sharp, "
                               "schnapsen-tournament, sechsundsechzig, vu-course"),
    ("options", None, "options must be a JSON object of option names and values, got null"),
    ("options", [["deck", 24]], "options must be a JSON object of option names and values, got an array"),
    ("deck", "AS KS", "deck must be a list of card strings, got a string"),
    ("actions", "play AD", "actions must be a list of action strings, got a string"),
    ("actions", None, "actions must be a list of action strings, got null"),
])
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
    rec = to_record(state, "sechsundsechzig", deck)
    assert rec["options"] == {"declare": "manual"}
    assert replay_record(json.loads(json.dumps(rec))) == state.status()
    replayed, actions = parse_record(rec)
    assert actions == [a for _, a in state.history]


def run_cli(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", "schnapsen_env.replay", *args], capture_output=True, text=True,
                          timeout=timeout)


def test_cli_help_exits_zero():
    proc = run_cli("--help")
    assert proc.returncode == 0 and "usage" in proc.stdout


def test_cli_missing_file_and_wrong_extension_exit_2(tmp_path):
    missing = str(tmp_path / "nope.json")
    proc = run_cli(missing)
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", f"replay: cannot read {missing!r}: "
                                                                   "No such file or directory\n")
    other = tmp_path / "game.txt"
    other.write_text("{}")
    proc = run_cli(str(other))
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", f"replay: {str(other)!r}: not a .json or "
                                                                   ".jsonl file\n")


def test_cli_jsonl_skips_blank_lines_and_reports_non_object_lines(tmp_path, capsys):
    path = tmp_path / "games.jsonl"
    path.write_text(json.dumps(record()) + "\n\n   \n[1, 2]\nnot json\n" + json.dumps(record(actions=["play AD"])) + "\n")
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


DEEP = b"[" * 100_000 + b"]" * 100_000
HUGE_INT = b'{"dealer": ' + b"1" * 5000 + b', "deck": []}'


@pytest.mark.parametrize("bad, message", [
    (DEEP, "not a record: JSON nested deeper than 64 levels"),
    (b'{"deck": ' + b"[" * 1000, "not a record: JSON nested deeper than 64 levels"),
    (b'{"dealer": ' + b"[" * 65 + b"]" * 65 + b', "deck": []}', "not a record: JSON nested deeper than 64 levels"),
    (HUGE_INT, "not a record: an integer of 5000 digits (at most 4300 are read)"),
    (b'{"dealer": -' + b"7" * 4301 + b"}", "not a record: an integer of 4301 digits (at most 4300 are read)"),
    (b'{"dealer": NaN, "deck": []}', "not a record: NaN is not a JSON value"),
    (b'{"dealer": -Infinity}', "not a record: -Infinity is not a JSON value"),
    (b'{"dealer": 1, "deck": [], "dealer": 0}', "not a record: key 'dealer' given twice in one object"),
    (b"\xff\xfe{}", "not UTF-8: byte 0xff at position 0 (invalid start byte)"),
    (GOOD[:20] + b"\xc3" + GOOD[20:], "not UTF-8: byte 0xc3 at position 20 (invalid continuation byte)"),
    (b"\xef\xbb\xbf" + GOOD, "not JSON: Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)"),
    (b"\x0b" + GOOD, "not JSON: Expecting value: line 1 column 1 (char 0)"),
])
def test_jsonl_bad_line_is_one_invalid_record_line_between_good_ones(tmp_path, capsys, bad, message):
    # RecursionError and ValueError (int max str digits) used to escape as tracebacks, losing every line
    code, out, err = replay_file(tmp_path, capsys, GOOD + b"\n" + bad + b"\n" + GOOD + b"\n")
    assert (code, out, err) == (1, [GOOD_LINE, invalid(message), GOOD_LINE], "")
    code, out, err = replay_file(tmp_path, capsys, bad, name="one.json")  # a .json file of it: the same line
    assert (code, out, err) == (1, [invalid(message)], "")


def test_deep_nesting_is_refused_at_the_same_depth_however_deep_the_caller_is(tmp_path, capsys):
    def nest(depth):
        return b'{"deck": [], "dealer": ' + b"[" * depth + b"]" * depth + b"}"

    def at_depth(n):
        return replay_json(nest(63)) if n == 0 else at_depth(n - 1)

    shown = ("[" * 63 + "]" * 63)[:77] + "..."
    assert replay_json(nest(63)) == at_depth(800) == {"error": "invalid_record",
                                                       "message": f"dealer must be 0 or 1, got {shown}"}
    assert replay_json(nest(64))["message"] == "not a record: JSON nested deeper than 64 levels"
    # brackets inside strings do not count; escaped quotes do not end a string
    text = json.dumps({**record(), "actions": ["[" * 100 + '\\"{' * 100]})
    assert replay_json(text) == {"error": "invalid_record", "message": "action 0: unknown action " + repr(
        "[" * 100 + '\\"{' * 100)[:77] + "...: allowed 'play CARD', 'marriage SUIT', 'exchange', 'close', "
        "'declare' (lower-case words, one space, nothing before or after)"}


@pytest.mark.parametrize("inside", [b"\r", b"\r\n\r"[:1], b" \t\r "])
def test_carriage_return_inside_a_record_is_json_whitespace_not_a_line_break(tmp_path, capsys, inside):
    rec = GOOD.replace(b'"dealer"', inside + b'"dealer"').replace(b", ", b"," + inside)
    code, out, err = replay_file(tmp_path, capsys, rec + b"\r\n" + rec + b"\n" + rec)
    assert (code, out, err) == (0, [GOOD_LINE] * 3, "")


@pytest.mark.parametrize("sep", ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"])
def test_other_line_separators_do_not_split_a_jsonl_line(tmp_path, capsys, sep):
    # str.splitlines() split at these, so one line became two invalid ones
    in_string = json.dumps(record(actions=["play AD", "close" + sep]), ensure_ascii=False).encode()
    between = GOOD.replace(b", ", ("," + sep).encode(), 1)
    code, out, err = replay_file(tmp_path, capsys, in_string + b"\n" + between + b"\n" + GOOD + b"\n")
    with pytest.raises(json.JSONDecodeError) as e:  # not JSON whitespace between tokens
        json.loads(between)
    assert (code, err) == (1, "")
    assert out == [invalid(f"action 1: unknown action {'close' + sep!r}: allowed 'play CARD', 'marriage SUIT', "
                           "'exchange', 'close', 'declare' (lower-case words, one space, nothing before or after)"),
                   invalid(f"not JSON: {e.value}"), GOOD_LINE]


def test_blank_lines_are_only_json_whitespace(tmp_path, capsys):
    code, out, err = replay_file(tmp_path, capsys, b"\n \n\t\r\n\r\n" + GOOD + b"\n\n\x0c\n")
    assert (code, out, err) == (1, [GOOD_LINE, invalid("not JSON: Expecting value: line 1 column 1 (char 0)")], "")
    code, out, err = replay_file(tmp_path, capsys, b"")
    assert (code, out, err) == (0, [], "")


def test_json_file_that_is_not_utf8_is_an_invalid_record_line(tmp_path, capsys):
    code, out, err = replay_file(tmp_path, capsys, b'{"dealer": "\xe9"}', name="latin1.json")
    assert (code, out, err) == (1, [invalid("not UTF-8: byte 0xe9 at position 12 (invalid continuation byte)")], "")


def test_lines_are_replayed_one_by_one_as_they_are_read():
    def lines():
        yield GOOD + b"\n"
        raise AssertionError("read the second line before giving the first line's result")

    assert next(replay_lines(lines())) == UNFINISHED


def test_read_error_midway_keeps_the_lines_already_printed(tmp_path, capsys, monkeypatch):
    path = tmp_path / "disk.jsonl"
    path.write_bytes(GOOD + b"\n" + GOOD + b"\n")

    class FailingFile(io.BytesIO):
        def __iter__(self):
            yield GOOD + b"\n"
            raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr("schnapsen_env.replay._open_regular_file", lambda p: FailingFile())
    assert main([str(path)]) == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == (GOOD_LINE + "\n", f"replay: cannot read {str(path)!r}: "
                                                                 "Input/output error\n")


# ------------------------------------------------------------------ paths that are not regular files


def test_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "x.json"
    os.mkfifo(fifo)
    proc = run_cli(str(fifo), timeout=20)  # used to block forever in open()
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        2, "", f"replay: cannot read {str(fifo)!r}: a FIFO (named pipe), not a regular file\n")


def test_directory_and_device_are_refused(tmp_path, capsys):
    folder = tmp_path / "games.jsonl"
    folder.mkdir()
    assert main([str(folder)]) == 2
    assert capsys.readouterr().err == f"replay: cannot read {str(folder)!r}: a directory, not a regular file\n"
    device = tmp_path / "null.json"
    device.symlink_to(os.devnull)  # read as an empty file it was an invalid_record line and exit 1
    assert main([str(device)]) == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == (
        "", f"replay: cannot read {str(device)!r}: a character device, not a regular file\n")


def test_path_too_long_or_with_a_nul_byte_exits_2(tmp_path, capsys):
    long_path = str(tmp_path / ("a" * 5000 + ".json"))
    assert main([long_path]) == 2
    shown = repr(long_path)[:197] + "..."
    assert capsys.readouterr().err == f"replay: cannot read {shown}: File name too long\n"
    assert main(["a\x00b.json"]) == 2
    assert capsys.readouterr().err == "replay: cannot read 'a\\x00b.json': embedded null byte\n"


def test_permission_error_exits_2(tmp_path, capsys, monkeypatch):
    path = tmp_path / "secret.json"
    path.write_bytes(GOOD)

    def refuse(p, flags, *args):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), p)

    monkeypatch.setattr("schnapsen_env.replay.os.open", refuse)  # as root, chmod 000 would not stop a read
    assert main([str(path)]) == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", f"replay: cannot read {str(path)!r}: Permission denied\n")


def test_file_name_with_a_newline_gives_one_line_on_stderr(tmp_path, capsys):
    path = str(tmp_path / "a\nb.json")
    assert main([path]) == 2
    assert capsys.readouterr().err == f"replay: cannot read {path!r}: No such file or directory\n"


def test_main_checks_argv_and_usage():
    with pytest.raises(ValueError, match=r"^argv must be a list of strings, got \[b'x.json'\]$"):
        main([b"x.json"])
    proc = run_cli()
    assert (proc.returncode, proc.stdout) == (2, "") and proc.stderr.startswith("usage: python -m schnapsen_env.replay")


def test_replay_json_type_check():
    with pytest.raises(ValueError, match="^replay_json needs the JSON text as str or bytes, got dict$"):
        replay_json({"dealer": 0})
    assert replay_json(GOOD) == replay_json(GOOD.decode()) == UNFINISHED


def test_to_record_checks_its_arguments():
    rules = Rules()
    deck = list(range(24))
    deck = [c for c in deck if c % 6 != 5]
    state = GameState(rules, deck, 0)
    with pytest.raises(ValueError, match="^to_record needs a GameState, got dict$"):
        to_record({}, "schnapsen", deck)
    with pytest.raises(ValueError, match=r"^unknown variant \['schnapsen'\]: allowed presets are"):
        to_record(state, ["schnapsen"], deck)
    with pytest.raises(ValueError, match="^deck must be a sequence of card ids, got int$"):
        to_record(state, "schnapsen", 5)
    with pytest.raises(ValueError, match="^deck must be an order of the 20 card ids of the game's variant"):
        to_record(state, "schnapsen", deck[:-1])
    with pytest.raises(ValueError, match="^deck is not the deck this game was dealt from"):
        to_record(state, "schnapsen", deck[::-1])
    assert to_record(state, "schnapsen", tuple(deck))["deck"][:3] == ["AC", "TC", "KC"]
    assert to_record(state) == to_record(state, "schnapsen", deck)  # the state's own deal
    world = state.clone()
    world.deck = None  # as in a determinization
    with pytest.raises(ValueError, match=r"^to_record needs the deck order the game was dealt from \(this state"):
        to_record(world)
    rebuilt = to_record(world, "schnapsen", deck)  # given the deck, the talon and trump are checked
    assert rebuilt == to_record(state)


def test_ctrl_c_exits_130_with_one_line(tmp_path, capsys, monkeypatch):
    path = tmp_path / "games.jsonl"
    path.write_bytes(GOOD + b"\n" + GOOD + b"\n")
    calls = []

    def replay_then_interrupt(line):
        calls.append(line)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return UNFINISHED

    monkeypatch.setattr("schnapsen_env.replay.replay_json", replay_then_interrupt)
    try:
        code = main([str(path)])
    except KeyboardInterrupt:  # must not reach pytest, which would stop the whole run
        pytest.fail("KeyboardInterrupt escaped main()")
    captured = capsys.readouterr()
    assert (code, captured.out, captured.err) == (130, GOOD_LINE + "\n", "replay: interrupted\n")
