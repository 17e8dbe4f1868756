"""The terminal play CLI, driven through an input stream."""

import io
import random

import pytest

from agents import make_agent
from agents.play import main, parse_answer, play_game_cli
from schnapsen_env.actions import CLOSE, MARRIAGE_BASE, parse_action
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


def test_illegal_but_readable_answer_is_refused():
    cards = [r + s for s in "CSHD" for r in "ATKQJ"]
    o, text = run("\n".join(cards) + "\n" + "1\n" * 40, seed=8)
    # five of the twenty cards are in hand: the cards before the first of them are refused
    assert text.count("is not legal now") >= 1
    first_played = next(line for line in text.splitlines() if "You play:" in line)
    assert first_played.split()[-1] in cards
    assert o is not None


def test_parse_answer_forms():
    legal = [0, 7, 13, MARRIAGE_BASE + 2, CLOSE]
    assert parse_answer("2", legal, 20) == 7
    assert parse_answer("TS", legal, 20) == 7
    assert parse_answer("10s", legal, 20) == 7
    assert parse_answer("play TS", legal, 20) == 7
    assert parse_answer("close", legal, 20) == CLOSE
    assert parse_answer("marriage h", legal, 20) == parse_action("marriage H")
    for bad, start in (("0", "unreadable"), ("6", "unreadable"), ("ZZ", "unreadable"), ("", "unreadable"),
                       ("AD", "illegal"), ("exchange", "illegal"), ("9C", "unreadable")):
        with pytest.raises(ValueError) as e:
            parse_answer(bad, legal, 20)
        assert str(e.value).startswith(start), (bad, str(e.value))


def test_german_and_seat_one():
    o, text = run("1\n" * 40, seat=1, lang="de", opponent="random")
    assert o is not None
    assert "Atout" in text and "Erlaubt" in text


def test_main_with_input_file(tmp_path):
    f = tmp_path / "moves.txt"
    f.write_text("1\n" * 40)
    out = io.StringIO()
    assert main(["--opponent", "random", "--seed", "2", "--input-file", str(f)], out=out) == 0
    f.write_text("1\n")
    assert main(["--opponent", "random", "--seed", "2", "--input-file", str(f)], out=io.StringIO()) == 1
    assert main(["--opponent", "random", "--seed", "2"], inp=io.StringIO("quit\n"), out=io.StringIO()) == 1


PROG = "python -m agents.play: error: "


@pytest.mark.parametrize("argv, message", [
    (["--opponent", "nobody"], "--opponent: unknown agent 'nobody' in spec 'nobody': allowed agents are random, "
                               "heuristic, expert, pimc, ismcts, ppo, vu, rllib"),
    (["--opponent", "random "], "--opponent: unknown agent 'random ' in spec 'random ': allowed agents are random, "
                                "heuristic, expert, pimc, ismcts, ppo, vu, rllib (no whitespace around the name)"),
    (["--opponent", "random:seed=1_0"], "--opponent: bad value '1_0' for key 'seed' in agent spec "
                                        "'random:seed=1_0': allowed a whole number >= 0"),
    (["--variant", "skat"], "unknown variant 'skat': allowed schnapsen, schnapsen-sharp, schnapsen-tournament, "
                            "sechsundsechzig, vu-course"),
    (["--variant", "schnapsen "], "unknown variant 'schnapsen ': allowed schnapsen, schnapsen-sharp, "
                                  "schnapsen-tournament, sechsundsechzig, vu-course"),
    (["--seat", "2"], "argument --seat: bad seat '2': allowed 0 or 1"),
    (["--seat", " 1"], "argument --seat: bad seat ' 1': allowed 0 or 1"),  # int() read " 1" as 1
    (["--seed", "-1"], "argument --seed: bad seed '-1': allowed a whole number >= 0 in ASCII digits"),
    (["--seed", "1_0"], "argument --seed: bad seed '1_0': allowed a whole number >= 0 in ASCII digits"),
    (["--seed", "\u0661"], "argument --seed: bad seed '\u0661': allowed a whole number >= 0 in ASCII digits"),
    (["--seed", "5\n"], "argument --seed: bad seed '5\\n': allowed a whole number >= 0 in ASCII digits"),
    (["--lang", "fr"], "argument --lang: invalid choice: 'fr' (choose from 'en', 'de')"),
    (["--bogus"], "unrecognized arguments: --bogus"),
])
def test_main_bad_arguments_are_one_line_and_exit_2(argv, message, capsys):
    with pytest.raises(SystemExit) as e:
        main(argv, inp=io.StringIO(""), out=io.StringIO())
    assert e.value.code == 2
    assert capsys.readouterr().err == PROG + message + "\n"


def test_bad_checkpoint_opponent_is_one_clear_line(tmp_path, capsys):
    pytest.importorskip("torch")  # ppo agents need the [train] extra
    f = tmp_path / "passwd"
    f.write_text("root:x:0:0:root:/root:/bin/bash\n")
    with pytest.raises(SystemExit) as e:
        main(["--opponent", f"ppo:{f}"], inp=io.StringIO(""), out=io.StringIO())
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "not a schnapsen-env policy or training checkpoint" in err and "list index" not in err.split("(")[0]
    with pytest.raises(SystemExit) as e:  # a missing file: no traceback either
        main(["--opponent", f"ppo:{tmp_path / 'missing.pt'}"], inp=io.StringIO(""), out=io.StringIO())
    assert e.value.code == 2 and "no checkpoint file at" in capsys.readouterr().err


def test_opponent_path_too_long_for_the_file_system_is_one_line(capsys):
    pytest.importorskip("torch")
    with pytest.raises(SystemExit) as e:  # was a traceback: OSError [Errno 36] File name too long
        main(["--opponent", "ppo:" + "a" * 5000], inp=io.StringIO(""), out=io.StringIO())
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.count("\n") == 1 and len(err) < 600
    assert err.startswith(PROG + "--opponent: bad agent spec 'ppo:aaaa") and err.endswith("File name too long\n")


def test_answer_lines_lose_only_their_line_ending(capsys):
    o_clean, _ = run("1\n" * 40, seed=8)
    o, text = run(" 1 \n1\t\n\u0661\n1\r\n" + "1\n" * 40, seed=8)  # \r\n is one line ending
    assert o == o_clean
    assert "Not understood: ' 1 '. Enter a number 1-" in text and "(no spaces before or after the answer)" in text
    assert "Not understood: '1\\t'." in text and "Not understood: '\u0661'." in text
    assert text.count("Not understood") == 3
    o, text = run(" quit\n", seed=8)
    assert o is None and "Not understood: ' quit'." in text and text.rstrip().endswith("Input ended before the "
                                                                                      "game was over.")
    o, text = run("QUIT\r\n", seed=8)
    assert o is None and text.rstrip().endswith("Game abandoned.")


def test_input_file_that_is_not_utf8_or_a_directory_is_one_line(tmp_path, capsys):
    f = tmp_path / "moves.txt"
    f.write_bytes(b"1\n\xff\xfe\n")
    with pytest.raises(SystemExit) as e:  # was a UnicodeDecodeError traceback
        main(["--opponent", "random", "--seed", "2", "--input-file", str(f)], out=io.StringIO())
    assert e.value.code == 2
    assert capsys.readouterr().err == PROG + f"cannot read --input-file {str(f)!r}: not UTF-8 text (invalid start " \
                                             "byte)\n"
    with pytest.raises(SystemExit) as e:
        main(["--opponent", "random", "--input-file", str(tmp_path)], out=io.StringIO())
    assert e.value.code == 2
    assert capsys.readouterr().err == PROG + f"cannot read --input-file {str(tmp_path)!r}: Is a directory\n"


def test_empty_input_file_name_is_an_error_not_standard_input(capsys):
    with pytest.raises(SystemExit) as e:  # was: read standard input silently
        main(["--opponent", "random", "--input-file", ""], inp=io.StringIO("1\n" * 60), out=io.StringIO())
    assert e.value.code == 2
    assert capsys.readouterr().err == PROG + "--input-file '': empty path\n"


def test_a_long_bad_answer_is_echoed_shortened():
    out = io.StringIO()
    main(["--opponent", "random", "--seed", "1"], inp=io.StringIO("7" * 100_000 + "\nquit\n"), out=out)
    line = next(ln for ln in out.getvalue().splitlines() if "Not understood" in ln)
    assert "Not understood: '" + "7" * 60 + "...'." in line and len(line) < 300


def test_ctrl_c_exits_130_with_one_line(capsys):
    class Interrupting(io.StringIO):
        def readline(self, *args):
            raise KeyboardInterrupt

    try:
        code = main(["--opponent", "random", "--seed", "2"], inp=Interrupting(), out=io.StringIO())
    except KeyboardInterrupt:  # must not reach pytest, which would stop the whole run
        pytest.fail("KeyboardInterrupt escaped main()")
    assert code == 130
    assert capsys.readouterr().err == "python -m agents.play: interrupted\n"


def test_play_game_cli_and_main_check_their_arguments():
    agent, rules = make_agent("random"), Rules()
    for args, message in [
        ((object(), rules, 1, 0, "en"), "opponent must be an Agent (with act and reset), got object"),
        ((agent, "schnapsen", 1, 0, "en"), "rules must be a Rules object, got str"),
        ((agent, rules, 1, "0", "en"), "seat must be 0 or 1, got '0'"),
        ((agent, rules, 1, 0, ["en"]), "lang must be one of en, de, got ['en']"),
    ]:
        with pytest.raises(ValueError) as e:
            play_game_cli(*args, io.StringIO(""), io.StringIO())
        assert str(e.value) == message
    with pytest.raises(ValueError) as e:
        play_game_cli(agent, rules, 1, 0, "en", "1\n", io.StringIO())
    assert str(e.value) == "inp must be a text stream with readline, got str"
    with pytest.raises(ValueError) as e:
        main("--seat 1")
    assert str(e.value) == "argv must be a list of strings or None, got '--seat 1'"


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


class _FailingOut(io.StringIO):
    """An output stream whose writes fail after ``after`` of them, with ``error``."""

    def __init__(self, error, after=0):
        super().__init__()
        self.error, self.left = error, after

    def write(self, text):
        if self.left <= 0:
            raise self.error
        self.left -= 1
        return super().write(text)


@pytest.mark.parametrize("after", [0, 5])
def test_an_output_write_error_names_standard_output_not_the_record(tmp_path, capsys, after):
    import errno
    import json

    from schnapsen_env.replay import replay_record

    path = tmp_path / "game.json"
    out = _FailingOut(OSError(errno.ENOSPC, "No space left on device"), after)
    with pytest.raises(SystemExit) as e:
        main(["--opponent", "random", "--seed", "1", "--save-record", str(path)], inp=io.StringIO("1\n" * 60), out=out)
    assert e.value.code == 2
    assert capsys.readouterr().err == PROG + "cannot write standard output: No space left on device\n"
    assert "error" not in replay_record(json.loads(path.read_text()))  # the record was still written


def test_an_output_broken_pipe_is_quiet_1(capsys):
    assert main(["--opponent", "random", "--seed", "1"], inp=io.StringIO("1\n" * 60),
                out=_FailingOut(BrokenPipeError(32, "Broken pipe"), 3)) == 1
    assert capsys.readouterr() == ("", "")


def test_a_record_write_error_names_the_record_file(tmp_path, capsys, monkeypatch):
    import errno

    import agents.play as play

    def disk_full(*args):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(play, "_save_record", disk_full)
    path = tmp_path / "game.json"
    for out in (io.StringIO(), _FailingOut(BrokenPipeError(32, "Broken pipe"), 3)):  # also after stdout broke
        with pytest.raises(SystemExit) as e:
            main(["--opponent", "random", "--seed", "1", "--save-record", str(path)], inp=io.StringIO("1\n" * 60),
                 out=out)
        assert e.value.code == 2
        assert capsys.readouterr().err == PROG + f"--save-record {str(path)!r}: cannot write: No space left on device\n"


def test_standard_input_or_output_closed_is_one_line_and_2(capsys, monkeypatch):
    for name, stream in [("stdin", "input"), ("stdout", "output")]:
        with monkeypatch.context() as m:
            m.setattr("sys." + name, None)
            with pytest.raises(SystemExit) as e:
                main(["--opponent", "random", "--seed", "1"], **({"out": io.StringIO()} if name == "stdin" else
                                                                  {"inp": io.StringIO("1\n")}))
        assert e.value.code == 2
        assert capsys.readouterr().err == PROG + f"standard {stream} is closed\n"


def test_a_closed_input_stream_is_one_line_and_2(capsys):
    inp = io.StringIO("1\n")
    inp.close()
    with pytest.raises(SystemExit) as e:
        main(["--opponent", "random", "--seed", "1"], inp=inp, out=io.StringIO())
    assert e.value.code == 2
    assert capsys.readouterr().err == PROG + "cannot read standard input: it is closed\n"
