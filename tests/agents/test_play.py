"""The terminal play CLI, driven through an input stream."""

import io
import random

import pytest

from agents import make_agent
from agents.apps.play import main, play_game_cli
from schnapsen_env.cards import NUM_CARDS
from schnapsen_env.engine import GameState
from schnapsen_env.rules import Rules


def run(answers, seed=3, seat=0, opponent="heuristic", variant="schnapsen", lang="en"):
    out = io.StringIO()
    o = play_game_cli(make_agent(opponent), Rules.preset(variant), seed, seat, lang, io.StringIO(answers), out)
    return o, out.getvalue()


def test_plays_a_game_by_numbers():
    o, text = run("1\n" * 40)
    assert o is not None and o.winner in (0, 1)
    assert "Legal actions" in text and "trump" in text
    assert ("You win" in text) != ("opponent wins" in text.lower())


def test_bad_input_reprompts_and_leaves_the_game_unchanged():
    o_clean, _ = run("1\n" * 40, seed=8)
    o_bad, text_bad = run("hello\n99\nplay 9H\n" + "1\n" * 40, seed=8)
    assert "Not understood: 'hello'" in text_bad
    assert "number 99 is not between 1 and" in text_bad
    assert o_bad == o_clean


def test_main_with_input_file(tmp_path):
    f = tmp_path / "moves.txt"
    f.write_text("1\n" * 40)
    out = io.StringIO()
    assert main(["--opponent", "random", "--seed", "2", "--input-file", str(f)], out=out) == 0
    f.write_text("1\n")
    assert main(["--opponent", "random", "--seed", "2", "--input-file", str(f)], out=io.StringIO()) == 1
    assert main(["--opponent", "random", "--seed", "2"], inp=io.StringIO("quit\n"), out=io.StringIO()) == 1


PROG = "python -m agents.apps.play: error: "


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["--opponent", "nobody"],
            "unknown agent 'nobody' in spec 'nobody': allowed agents are random, "
            "heuristic, expert, pimc, pimc-om, search, ppo, ppo-strong, vu, rllib, sb3, or your own as MODULE:NAME or FILE.py:NAME",
        ),
        (["--seed", "-1"], "argument --seed: expected a whole number >= 0, got -1"),
    ],
)
def test_main_bad_arguments_are_one_line_and_exit_2(argv, message, capsys):
    with pytest.raises(SystemExit) as e:
        main(argv, inp=io.StringIO(""), out=io.StringIO())
    assert e.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == PROG + message


def test_answers_are_read_in_either_case_with_spaces_trimmed():
    o_clean, _ = run("1\n" * 40, seed=8)
    o, text = run(" 1 \n1\r\n" + "1\n" * 40, seed=8)
    assert o == o_clean and "Not understood" not in text
    o, text = run("QUIT\r\n", seed=8)
    assert o is None and text.rstrip().endswith("Game abandoned.")
    o, text = run("", seed=8)
    assert o is None and text.rstrip().endswith("Input ended before the game was over.")


def test_ctrl_c_exits_130_with_one_line(capsys):
    class Interrupting(io.StringIO):
        def readline(self, *args):
            raise KeyboardInterrupt

    assert main(["--opponent", "random", "--seed", "2"], inp=Interrupting(), out=io.StringIO()) == 130
    assert capsys.readouterr().err == "python -m agents.apps.play: interrupted\n"


@pytest.mark.parametrize("lang, one, many", [("en", "hand: 1 card ", "cards"), ("de", "Hand: 1 Karte ", "Karten")])
def test_render_says_one_card_not_one_cards(lang, one, many):
    from schnapsen_env.render import render_text

    state = GameState.from_seed(Rules.preset("schnapsen"), seed=0)  # a deal that reaches the last trick
    rng = random.Random(0)
    seen = set()
    while not state.is_terminal:
        n = state.hands[1].bit_count()
        text = render_text(state, viewer=0, lang=lang)
        line = [s for s in text.splitlines() if ("Hand:" if lang == "de" else "hand:") in s][1]
        if n == 1:
            assert one in line + " " and f"1 {many}" not in line
            seen.add(1)
        elif n > 1 and not state.known[1]:
            assert f"{n} {many}" in line
            seen.add(n)
        plays = [a for a in state.legal_actions() if a < NUM_CARDS]  # no declaring: play to the last trick
        state.apply(rng.choice(plays or state.legal_actions()))
    assert 1 in seen and max(seen) > 1


def test_german_mode_is_all_german():
    # moves, tricks and the result in German words; no English record notation or reason codes
    o, text = run("zz\n" + "1\n" * 40, seed=3, seat=1, lang="de", opponent="random")
    assert o is not None
    lines = text.splitlines()
    assert any(line.startswith("> Dein Zug: spielt ") for line in lines)
    assert any(line.startswith("Gegner (random): spielt ") for line in lines)
    assert "Nicht verstanden: 'zz'. Gib eine Zahl von 1 bis" in text
    for english in ("play ", "You ", "wins", "declared_66", "last_trick", "closing_failed", "unreadable"):
        assert english not in text, english
    assert ("gewinnst" in lines[-1]) != ("Der Gegner gewinnt" in lines[-1])
