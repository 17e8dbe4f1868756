"""Every text parser reads the whole string and nothing more (RULES §9: "the text must match
exactly, with no surrounding or trailing whitespace or newline"), and every public helper of
cards / actions / rules checks its argument types and raises ValueError naming them."""

import json
import pathlib

import pytest

from schnapsen_env.actions import CLOSE, DECLARE, EXCHANGE, MARRIAGE_BASE, parse_action
from schnapsen_env.cards import (
    card_id,
    card_to_str,
    cards_of,
    deck_cards,
    iter_cards,
    mask_of,
    parse_card,
    rank_of,
    suit_of,
)
from schnapsen_env.replay import replay_record
from schnapsen_env.rules import Rules

CASES = pathlib.Path(__file__).parents[1] / "cases"
CARD_HELP = "expected rank (A T K Q J 9, or 10 O D U B) then suit (C S H D), upper case, nothing else, e.g. 'TH'"
ACTION_HELP = (
    "allowed 'play CARD', 'marriage SUIT', 'exchange', 'close', 'declare' "
    "(lower-case words, one space, nothing before or after)"
)
PRESETS = "schnapsen, schnapsen-sharp, schnapsen-tournament, sechsundsechzig, vu-course"

#: what a forgiving parser would add around or inside a text: whitespace of every kind, newlines,
#: a NUL, an underscore
EXTRAS = [" ", "\n", "\r\n", "\r", "\t", "\x0b", "\x0c", "\x1c", "\x85", "\u2028", "\u00a0", "\u3000", "\x00", "_"]

# ------------------------------------------------------------------------------------ cards


@pytest.mark.parametrize("extra", EXTRAS)
@pytest.mark.parametrize("card", ["TH", "10H", "OD", "9C"])
def test_parse_card_refuses_any_character_before_or_after(card, extra):
    for text in (card + extra, extra + card):
        with pytest.raises(ValueError) as e:
            parse_card(text, 24)
        assert str(e.value) == f"unknown card {text!r}: {CARD_HELP}"


@pytest.mark.parametrize("text", ["１０H", "\u0661\u0660H", "1_0H", "T H", "th", "Th", "ＴＨ", "10", "H", ""])
def test_parse_card_refuses_look_alikes(text):
    with pytest.raises(ValueError) as e:
        parse_card(text)
    assert str(e.value) == f"unknown card {text!r}: {CARD_HELP}"


@pytest.mark.parametrize("bad", [None, 13, b"TH", ["TH"]])
def test_parse_card_refuses_non_strings(bad):
    with pytest.raises(ValueError) as e:
        parse_card(bad)
    assert str(e.value) == f"unknown card {bad!r}: {CARD_HELP}"


def test_card_helpers():
    assert card_id(2, 1) == 13 and suit_of(13) == 2 and rank_of(13) == 1 and card_to_str(13) == "TH"
    assert list(iter_cards(0b1000000000101)) == [0, 2, 12] == cards_of(0b1000000000101)
    assert mask_of([0, 2, 12]) == 0b1000000000101 and len(deck_cards(20)) == 20 and len(deck_cards(24)) == 24


# ---------------------------------------------------------------------------------- actions

ACTIONS = {
    "play TH": 13,
    "play 10H": 13,
    "marriage H": MARRIAGE_BASE + 2,
    "exchange": EXCHANGE,
    "close": CLOSE,
    "declare": DECLARE,
}


@pytest.mark.parametrize("extra", EXTRAS)
@pytest.mark.parametrize("text", sorted(ACTIONS))
def test_parse_action_refuses_any_character_before_or_after(text, extra):
    assert parse_action(text) == ACTIONS[text]
    for bad in (text + extra, extra + text):
        with pytest.raises(ValueError) as e:
            parse_action(bad)
        why = ACTION_HELP
        if bad.startswith(text) and " " in text and extra != " ":  # the argument holds the extra character
            arg = text.split(" ")[1] + extra
            why = (
                f"unknown card {arg!r}: {CARD_HELP}"
                if text.startswith("play")
                else "marriage suit must be one of C S H D"
            )
        assert str(e.value) == f"unknown action {bad!r}: {why}"


def test_parse_action_trailing_newline_names_the_text():
    # a `$` in the pattern used to match before the final newline: "close\n" was read as close
    for word in ("close", "exchange", "declare"):
        with pytest.raises(ValueError) as e:
            parse_action(word + "\n")
        assert str(e.value) == f"unknown action '{word}\\n': {ACTION_HELP}"
    with pytest.raises(ValueError) as e:
        parse_action("play TH\n")
    assert str(e.value) == f"unknown action 'play TH\\n': unknown card 'TH\\n': {CARD_HELP}"


@pytest.mark.parametrize(
    "text",
    ["Close", "CLOSE", "play  TH", "play\tTH", "marriage h", "marriage HH", "play TH TS", "close close", "ｃｌｏｓｅ"],
)
def test_parse_action_refuses_other_spelling(text):
    with pytest.raises(ValueError, match="^unknown action "):
        parse_action(text)


@pytest.mark.parametrize(
    "bad, message",
    [
        (None, f"unknown action None: {ACTION_HELP}"),
        (29, f"unknown action 29: {ACTION_HELP}"),
        (["close"], f"unknown action ['close']: {ACTION_HELP}"),
    ],
)
def test_parse_action_refuses_non_strings(bad, message):
    with pytest.raises(ValueError) as e:
        parse_action(bad)
    assert str(e.value) == message


@pytest.mark.parametrize("stem", ["invalid-21-action-two-spaces", "invalid-22-action-trailing-newline"])
def test_replay_of_an_action_with_other_spacing_is_invalid_record(stem):
    got = replay_record(json.loads((CASES / f"{stem}.json").read_text()))
    bad = "play  TD" if "two-spaces" in stem else "close\n"
    index = 1 if "two-spaces" in stem else 0
    assert got == {"error": "invalid_record", "message": f"action {index}: unknown action {bad!r}: {ACTION_HELP}"}


@pytest.mark.parametrize("word", ["close", "exchange", "declare"])
@pytest.mark.parametrize("extra", ["\n", " ", "\r"])
def test_replay_of_a_bare_word_with_a_trailing_character_is_invalid_record(word, extra):
    rec = json.loads((CASES / "invalid-22-action-trailing-newline.json").read_text())
    rec["options"] = {"declare": "manual"}
    rec["actions"] = ["play AC", word + extra]
    assert replay_record(rec) == {
        "error": "invalid_record",
        "message": f"action 1: unknown action {word + extra!r}: {ACTION_HELP}",
    }


# ------------------------------------------------------------------------------------ rules


@pytest.mark.parametrize("name", [["schnapsen"], {"schnapsen": 1}, None, 3, "schnapsen ", "schnapsen\n", "Schnapsen"])
def test_rules_preset_refuses_anything_but_a_preset_name(name):
    with pytest.raises(ValueError) as e:
        Rules.preset(name)
    assert str(e.value) == f"unknown variant {name!r}: allowed presets are {PRESETS}"


@pytest.mark.parametrize("variant", [["schnapsen"], {"a": 1}, None, "sechsundsechzig\n"])
def test_rules_from_record_refuses_anything_but_a_preset_name(variant):
    with pytest.raises(ValueError) as e:
        Rules.from_record(variant, {})
    assert str(e.value) == f"unknown variant {variant!r}: allowed presets are {PRESETS}"


def test_rules_from_record_checks_options():
    with pytest.raises(ValueError) as e:
        Rules.from_record("schnapsen", {"dek": 24})
    assert str(e.value).startswith("unknown option 'dek': allowed options are deck, sharp, declare,")
    assert Rules.from_record("sechsundsechzig", {"declare": "manual"}) == Rules(deck=24, declare="manual")
    assert Rules.from_record("schnapsen", None) == Rules()


@pytest.mark.parametrize(
    "option, value, allowed",
    [
        ("declare", "manual\n", '"auto" or "manual"'),
        ("declare", " auto", '"auto" or "manual"'),
        ("declare", "AUTO", '"auto" or "manual"'),
        ("declare", ["auto"], '"auto" or "manual"'),
        ("marriage_credit", "next_trick ", '"first_trick" or "next_trick"'),
        ("marriage_credit", {"next_trick": 1}, '"first_trick" or "next_trick"'),
        ("false_declaration_points", "2", '"as_if_correct" or 2'),
        ("false_declaration_points", 2.0, '"as_if_correct" or 2'),
        ("false_declaration_points", "as_if_correct\n", '"as_if_correct" or 2'),
        ("deck", "24", "20 or 24"),
        ("deck", 24.0, "20 or 24"),
        ("deck", True, "20 or 24"),
        ("sharp", "true", "true or false"),
        ("sharp", 1, "true or false"),
        ("bummerl_target", "7", "a whole number >= 1"),
        ("bummerl_target", 7.0, "a whole number >= 1"),
        ("bummerl_target", True, "a whole number >= 1"),
    ],
)
def test_rule_option_values_are_read_exactly(option, value, allowed):
    with pytest.raises(ValueError) as e:
        Rules.from_record("schnapsen", {option: value})
    assert str(e.value) == f"bad value {value!r} for option {option!r}: allowed {allowed}"


# ------------------------------------------------------------------------------- agent specs

from agents import _parse_value, make_agent, parse_spec  # noqa: E402


@pytest.mark.parametrize(
    "text, value",
    [
        ("10", 10),
        ("-3", -3),
        ("007", 7),
        ("1.5", 1.5),
        ("-0.25", -0.25),
        ("1e3", 1000.0),
        ("2.5E-2", 0.025),
        ("true", True),
        ("false", False),
        ("abc", "abc"),
        ("runs/x.pt", "runs/x.pt"),
    ],
)
def test_spec_values_follow_the_grammar(text, value):
    got = _parse_value(text)
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize(
    "text",
    [
        "1_0",
        "1_000",
        "+1",
        " 1",
        "1 ",
        "1\n",
        "\u0661",
        "\uff11",
        "\u00b2",
        "0x10",
        ".5",
        "5.",
        "nan",
        "inf",
        "-inf",
        "Infinity",
        "1.5\n",
        "1_0.5",
        "1e3 ",
    ],
)
def test_spec_values_outside_the_number_grammar_stay_text(text):
    # int() and float() read "1_0" as 10, " 1" as 1, Unicode digits, "nan", "inf"
    assert _parse_value(text) == text


@pytest.mark.parametrize(
    "spec, message",
    [
        (
            "pimc ",
            "unknown agent 'pimc ' in spec 'pimc ': allowed agents are random, heuristic, expert, pimc, ismcts, "
            "ppo, vu, rllib",
        ),
        (
            "pimc: samples=4",
            "bad item ' samples=4' in agent spec 'pimc: samples=4': allowed key=value items, each key once",
        ),
        ("pimc:samples=", "bad item 'samples=' in agent spec 'pimc:samples=': allowed key=value items, each key once"),
        ("ppo:", "bad item '' in agent spec 'ppo:': allowed key=value items, each key once (or a bare path first)"),
    ],
)
def test_parse_spec_reads_the_whole_string(spec, message):
    with pytest.raises(ValueError) as e:
        parse_spec(spec)
    assert str(e.value) == message


def test_parse_spec_values_are_typed_strictly():
    assert parse_spec("pimc:samples=1_0") == ("pimc", {"samples": "1_0"})  # was {"samples": 10}
    assert parse_spec("ppo:runs/a b.pt,sample=true") == ("ppo", {"path": "runs/a b.pt", "sample": True})
    assert parse_spec("vu:rdeep,samples=8,depth=2") == ("vu", {"bot": "rdeep", "samples": 8, "depth": 2})
    with pytest.raises(ValueError) as e:  # the agent names the text value as wrong
        make_agent("pimc:samples=1_0")
    assert str(e.value) == "bad agent spec 'pimc:samples=1_0': samples: Input should be a valid integer, got '1_0'"
    with pytest.raises(ValueError, match="bad agent spec 'random:seed=\u0661': seed must be"):
        make_agent("random:seed=\u0661")
    assert make_agent("random:seed=9").name == "random:seed=9"


# ---------------------------------------------------------------------------- play answers

from agents.play import parse_answer  # noqa: E402

LEGAL = [0, 7, 13, MARRIAGE_BASE + 2, CLOSE]


@pytest.mark.parametrize(
    "text, action",
    [
        ("2", 7),
        ("02", 7),
        ("TS", 7),
        ("ts", 7),
        ("10s", 7),
        ("play TS", 7),
        ("Play ts", 7),
        ("close", CLOSE),
        ("CLOSE", CLOSE),
        ("marriage h", MARRIAGE_BASE + 2),
    ],
)
def test_parse_answer_reads_ascii_in_either_case(text, action):
    assert parse_answer(text, LEGAL, 20) == action


@pytest.mark.parametrize(
    "text, message",
    [
        ("play  TS", "unreadable: "),
        ("\u0662", "unreadable: "),  # Arabic-Indic 2: int() reads it
        ("1_0", "unreadable: "),
        ("", "unreadable: "),
        ("9" * 5000, "unreadable: number 999999999999 is not between 1 and 5"),
        ("6", "unreadable: number 6 is not between 1 and 5"),
        ("AD", "illegal: play AD"),
    ],
)
def test_parse_answer_refuses_anything_else_with_a_reason(text, message):
    with pytest.raises(ValueError) as e:
        parse_answer(text, LEGAL, 20)
    assert str(e.value).startswith(message)
