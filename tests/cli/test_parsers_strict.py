"""Every text parser reads the whole string and nothing more (RULES §9: "the text must match
exactly, with no surrounding or trailing whitespace or newline"; the case files replay such records in
tests/rules/test_cases.py); a refusal names the text and what is allowed."""

import pathlib

import pytest

from agents import make_agent, parse_spec
from agents.registry import parse_value
from agents.apps.play import parse_answer
from schnapsen_env.actions import CLOSE, DECLARE, EXCHANGE, MARRIAGE_BASE, parse_action
from schnapsen_env.cards import card_id, card_to_str, cards_of, deck_cards, mask_of, parse_card, rank_of, suit_of
from schnapsen_env.rules import Rules

CASES = pathlib.Path(__file__).parents[1] / "cases"
CARD_HELP = "expected rank (A T K Q J 9, or 10 O D U B) then suit (C S H D), upper case, nothing else, e.g. 'TH'"
ACTION_HELP = (
    "allowed 'play CARD', 'marriage SUIT', 'exchange', 'close', 'declare' "
    "(lower-case words, one space, nothing before or after)"
)
PRESETS = "schnapsen, schnapsen-sharp, schnapsen-tournament, sechsundsechzig, vu-course"
#: what a forgiving parser would accept around a text
EXTRAS = [" ", "\n", "\t", "\u00a0"]


@pytest.mark.parametrize("extra", EXTRAS)
@pytest.mark.parametrize("card", ["TH", "10H", "OD"])
def test_parse_card_refuses_any_character_before_or_after(card, extra):
    for text in (card + extra, extra + card):
        with pytest.raises(ValueError) as e:
            parse_card(text, 24)
        assert str(e.value) == f"unknown card {text!r}: {CARD_HELP}"


@pytest.mark.parametrize("text", ["１０H", "T H", "th", "10", ""])
def test_parse_card_refuses_look_alikes(text):
    with pytest.raises(ValueError) as e:
        parse_card(text)
    assert str(e.value) == f"unknown card {text!r}: {CARD_HELP}"


def test_card_helpers():
    assert card_id(2, 1) == 13 and suit_of(13) == 2 and rank_of(13) == 1 and card_to_str(13) == "TH"
    assert cards_of(0b1000000000101) == [0, 2, 12] and mask_of([0, 2, 12]) == 0b1000000000101
    assert len(deck_cards(20)) == 20 and len(deck_cards(24)) == 24


ACTIONS = {"play TH": 13, "play 10H": 13, "marriage H": MARRIAGE_BASE + 2, "exchange": EXCHANGE, "close": CLOSE}


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


@pytest.mark.parametrize("text", ["Close", "play  TH", "marriage h", "play TH TS", "close close"])
def test_parse_action_refuses_other_spelling(text):
    with pytest.raises(ValueError, match="^unknown action "):
        parse_action(text)
    assert parse_action("declare") == DECLARE


@pytest.mark.parametrize("name", [None, "schnapsen ", "Schnapsen"])
def test_rules_preset_refuses_anything_but_a_preset_name(name):
    for make in (Rules.preset, lambda n: Rules.from_record(n, {})):
        with pytest.raises(ValueError) as e:
            make(name)
        assert str(e.value) == f"unknown variant {name!r}: allowed presets are {PRESETS}"


def test_rules_from_record_checks_options():
    with pytest.raises(ValueError) as e:
        Rules.from_record("schnapsen", {"dek": 24})
    assert str(e.value).startswith("unknown option 'dek': allowed options are deck, sharp, declare,")
    assert Rules.from_record("sechsundsechzig", {"declare": "manual"}) == Rules(deck=24, declare="manual")
    assert Rules.from_record("schnapsen", None) == Rules()
    assert Rules.preset("schnapsen", bummerl_target=10**30).bummerl_target == 10**30  # RULES §7: any whole number


@pytest.mark.parametrize(
    "option, value, allowed",
    [
        ("declare", "manual\n", '"auto" or "manual"'),
        ("marriage_credit", "next_trick ", '"first_trick" or "next_trick"'),
        ("false_declaration_points", "2", '"as_if_correct" or 2'),
        ("deck", "24", "20 or 24"),
        ("sharp", 1, "true or false"),
        ("bummerl_target", "7", "a whole number >= 1"),
        ("bummerl_target", 0, "a whole number >= 1"),
    ],
)
def test_rule_option_values_are_read_exactly(option, value, allowed):
    with pytest.raises(ValueError) as e:
        Rules.from_record("schnapsen", {option: value})
    assert str(e.value) == f"bad value {value!r} for option {option!r}: allowed {allowed}"


@pytest.mark.parametrize(
    "text, value",
    [("007", 7), ("-0.25", -0.25), ("2.5E-2", 0.025), ("true", True), ("runs/x.pt", "runs/x.pt")]
    + [(text, text) for text in ["1_0", "+1", " 1", "1\n", "\u0661", "0x10", ".5", "nan", "inf"]],
)
def test_spec_values_follow_the_grammar(text, value):
    got = parse_value(text)  # int() and float() would read "1_0", " 1", Unicode digits, "nan"
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize(
    "spec, message",
    [
        (
            "pimc ",
            "unknown agent 'pimc ' in spec 'pimc ': allowed agents are random, heuristic, expert, pimc, pimc-om, "
            "search, ppo, ppo-strong, vu, rllib, sb3, or your own as MODULE:NAME or FILE.py:NAME",
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
    assert parse_spec("ppo:runs/a b.pt,sample=true") == ("ppo", {"path": "runs/a b.pt", "sample": True})
    assert parse_spec("vu:rdeep,samples=8,depth=2") == ("vu", {"bot": "rdeep", "samples": 8, "depth": 2})
    with pytest.raises(ValueError) as e:  # the agent names the text value as wrong
        make_agent("pimc:samples=1_0")
    assert str(e.value) == "bad agent spec 'pimc:samples=1_0': samples: Input should be a valid integer, got '1_0'"
    assert make_agent("random:seed=9").name == "random:seed=9"


LEGAL = [0, 7, 13, MARRIAGE_BASE + 2, CLOSE]


@pytest.mark.parametrize(
    "text, action",
    [("02", 7), ("ts", 7), ("10s", 7), ("Play ts", 7), ("CLOSE", CLOSE), ("marriage h", MARRIAGE_BASE + 2)],
)
def test_parse_answer_reads_ascii_in_either_case(text, action):
    assert parse_answer(text, LEGAL, 20) == action


@pytest.mark.parametrize(
    "text, message",
    [
        ("play  TS", "unreadable: "),
        ("\u0662", "unreadable: "),  # Arabic-Indic 2: int() reads it
        ("", "unreadable: "),
        ("6", "unreadable: number 6 is not between 1 and 5"),
        ("AD", "illegal: play AD"),
    ],
)
def test_parse_answer_refuses_anything_else_with_a_reason(text, message):
    with pytest.raises(ValueError) as e:
        parse_answer(text, LEGAL, 20)
    assert str(e.value).startswith(message)


def test_help_text_shows_docstring_markup_as_plain_text():
    from schnapsen_env.cli_io import plain_text

    text = "Rates ``SPEC`` by :func:`agents.evaluation.arena.play_pair` and :class:`~agents.evaluation.ladder.RungResult` (``random`` = 0)."
    assert (
        plain_text(text)
        == "Rates SPEC by agents.evaluation.arena.play_pair and agents.evaluation.ladder.RungResult (random = 0)."
    )
