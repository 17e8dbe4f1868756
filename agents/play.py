"""Play one game in the terminal against any agent.

    python -m agents.play --opponent pimc [--variant schnapsen] [--seed N] [--seat 0|1] [--lang en|de]
                          [--input-file moves.txt] [--save-record game.json]

Each of your turns shows your view (hand, trump, talon, trick, eyes when the rules
show them; :func:`schnapsen_env.render.render_text`) and the legal actions by number.
Answer with the number, a card (``TH``, ``10H``; German letters as in RULES §1), or an
action text (``play TH``, ``marriage H``, ``exchange``, ``close``, ``declare``);
``quit`` (or ``exit``, ``q``) ends the program. An answer is one line: the line ending
(``\\n`` or ``\\r\\n``) is removed and nothing else. It is read in ASCII upper or lower
case (``th``, ``Close``), with exactly one space between words and none before or after,
and a number in ASCII digits; anything else (`` play TH ``, ``play  TH``, a tab, ``１``)
is not guessed at: it prints what was not understood and what is allowed, and asks again;
the game is not changed. Input comes from ``--input-file`` or standard input, so scripts
and tests can drive it. Exit status: 0 after a finished game, 1 when the input ends or on
``quit`` before the game ends, and 1 quietly when the reader of standard output goes away
(a broken pipe, ``| head``; as the replay CLI), 2 for bad arguments, input that cannot be
read, standard input or output closed, or standard output that cannot be written (disk
full; one line on standard error, which names the stream or the ``--save-record`` file
that failed), 130 on Ctrl-C. With standard error closed or unwritable the status alone tells.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn, TextIO

from schnapsen_env.actions import NUM_ACTIONS, action_to_str, parse_action
from schnapsen_env.cards import brief_repr, parse_card
from schnapsen_env.cli_io import Once, output_file_problem, say, silence, whole_number
from schnapsen_env.engine import GameState, Outcome
from schnapsen_env.render import reason_text
from schnapsen_env.rules import VARIANTS, Rules
from schnapsen_env.seeding import OPPONENT_STREAM, derive_seed

from . import make_agent
from .base import Agent

_TEXT = {
    "en": {"your_turn": "Your move. Legal actions:", "prompt": "> ", "opp": "Opponent ({}) plays: {}",
           "you_did": "You play: {}", "trick": "Trick: {} - {}, won by {}", "you": "you", "them": "opponent",
           "bad": "Not understood: {!r}. Enter a number 1-{}, a card like TH, or an action like 'close'.",
           "illegal": "{} is not legal now. Choose one of the listed actions.",
           "won": "You win {} game point(s) ({}). Eyes: you {}, opponent {}.",
           "lost": "The opponent wins {} game point(s) ({}). Eyes: you {}, opponent {}.",
           "eof": "Input ended before the game was over.", "quit": "Game abandoned."},
    "de": {"your_turn": "Du bist am Zug. Erlaubt:", "prompt": "> ", "opp": "Gegner ({}): {}",
           "you_did": "Dein Zug: {}", "trick": "Stich: {} - {}, gewonnen von {}", "you": "dir",
           "them": "Gegner", "bad": "Nicht verstanden: {!r}. Gib eine Zahl von 1 bis {} ein (oder eine Karte wie "
           "10H, DS).", "illegal": "{} ist jetzt nicht erlaubt. Wähle eine der Aktionen.",
           "won": "Du gewinnst {} Punkt(e) ({}). Augen: du {}, Gegner {}.",
           "lost": "Der Gegner gewinnt {} Punkt(e) ({}). Augen: du {}, Gegner {}.",
           "eof": "Eingabe zu Ende, bevor das Spiel aus war.", "quit": "Spiel abgebrochen."},
}

#: words that end the program
QUIT_WORDS = ("quit", "exit", "q")


def _render(state: GameState, seat: int, lang: str) -> str:
    try:
        from schnapsen_env.render import render_text
    except ImportError:  # pragma: no cover - the env layer ships render_text
        return repr(state)
    return render_text(state, viewer=seat, lang=lang)


def _action_label(action: int, lang: str) -> str:
    """An entry of the list of legal actions: English with the record notation to type, German in German."""
    from schnapsen_env.render import action_text

    if lang == "de":
        return action_text(action, lang)
    return f"{action_text(action, lang)}  [{action_to_str(action)}]"


def _move(action: int, lang: str) -> str:
    """A move as shown after it was made: the record notation (English) or German words."""
    from schnapsen_env.render import action_text

    return action_text(action, lang) if lang == "de" else action_to_str(action)


def _card(card: int, lang: str) -> str:
    from schnapsen_env.render import card_text

    return card_text(card, lang) if lang == "de" else action_to_str(card)[len("play "):]


_NUMBER_RE = re.compile(r"[0-9]+")


def parse_answer(text: str, legal: Sequence[int], deck_size: int) -> int:
    """The action id meant by an answer: a 1-based number into ``legal``, a card, or action text.

    The answer is the whole ``text`` (the caller removes the line ending): ASCII letters in
    either case, ASCII digits, exactly one space between words and none before or after.
    Raises ``ValueError`` with a message when the answer is unreadable (``str(e)`` starts
    with ``"unreadable"``) or names an action that is not in ``legal`` (``"illegal"``), and
    ``ValueError`` (starting ``"parse_answer:"``) for arguments of the wrong type.
    """
    if not isinstance(text, str):
        raise ValueError(f"parse_answer: text must be a string, got {brief_repr(text)}")
    if isinstance(legal, (str, bytes)) or not isinstance(legal, Sequence) or not all(
            type(a) is int and 0 <= a < NUM_ACTIONS for a in legal):
        raise ValueError(f"parse_answer: legal must be a sequence of action ids (ints in 0..{NUM_ACTIONS - 1}), "
                         f"got {brief_repr(legal)}")
    if type(deck_size) is not int or deck_size not in (20, 24):
        raise ValueError(f"parse_answer: deck_size must be 20 or 24, got {brief_repr(deck_size)}")
    if not text:
        raise ValueError("unreadable: empty answer")
    if not text.isascii() or not text.isprintable():
        raise ValueError("unreadable: use ASCII letters, digits and single spaces only")
    if text != text.strip(" "):
        raise ValueError("unreadable: no spaces before or after the answer")
    if _NUMBER_RE.fullmatch(text):
        k = int(text) if len(text) <= 9 else None  # (int() of thousands of digits is slow or refused)
        if k is not None and 1 <= k <= len(legal):
            return legal[k - 1]
        shown = k if k is not None else text[:12] + "..."
        raise ValueError(f"unreadable: number {shown} is not between 1 and {len(legal)}")
    words = text.split(" ")
    if "" in words:
        raise ValueError("unreadable: one space between words")
    action: int | None = None
    if len(words) == 1 and words[0].lower() not in ("exchange", "close", "declare"):
        try:
            action = parse_card(words[0].upper(), deck_size)
        except ValueError:
            action = None
    if action is None:
        norm = words[0].lower() + ("" if len(words) == 1 else " " + " ".join(w.upper() for w in words[1:]))
        try:
            action = parse_action(norm, deck_size)
        except ValueError as e:
            raise ValueError(f"unreadable: {e}") from None
    if action not in legal:
        raise ValueError(f"illegal: {action_to_str(action)}")
    return action


def _answer_of(line: str) -> str:
    """The answer on a line read with ``readline``: the one line ending removed, nothing else."""
    if line.endswith("\r\n"):
        return line[:-2]
    if line.endswith("\n"):
        return line[:-1]
    return line


def play_game_cli(opponent: Agent, rules: Rules, seed: int | None, seat: int, lang: str,
                  inp: TextIO, out: TextIO, on_end: Callable[[GameState], None] | None = None) -> Outcome | None:
    """Run one game with the human in ``seat``; returns the Outcome, or None if the input ended/quit.

    ``on_end(state)``, when given, is called with the game's state when the game ends, is
    abandoned (``quit``) or the input ends (the play CLI saves the record there).

    Raises ``ValueError`` naming the argument when one is of the wrong kind (``opponent`` without
    ``act``/``reset``, ``rules`` not a Rules, ``seat`` not 0/1, ``lang`` not en/de, ``inp`` without
    ``readline``, ``out`` without ``write``, a bad ``seed``)."""
    if not (callable(getattr(opponent, "act", None)) and callable(getattr(opponent, "reset", None))):
        raise ValueError(f"opponent must be an Agent (with act and reset), got {type(opponent).__name__}")
    if not isinstance(rules, Rules):
        raise ValueError(f"rules must be a Rules object, got {type(rules).__name__}")
    if type(seat) is not int or seat not in (0, 1):
        raise ValueError(f"seat must be 0 or 1, got {brief_repr(seat)}")
    if type(lang) is not str or lang not in _TEXT:
        raise ValueError(f"lang must be one of {', '.join(_TEXT)}, got {brief_repr(lang)}")
    if not callable(getattr(inp, "readline", None)):
        raise ValueError(f"inp must be a text stream with readline, got {type(inp).__name__}")
    if not callable(getattr(out, "write", None)):
        raise ValueError(f"out must be a text stream with write, got {type(out).__name__}")
    if on_end is not None and not callable(on_end):
        raise ValueError(f"on_end must be callable or None, got {type(on_end).__name__}")
    T = _TEXT[lang]
    state = GameState.from_seed(rules, seed=seed)  # the deal stream: random.Random(seed)
    try:
        return _play(state, opponent, rules, seed, seat, lang, inp, out, T)
    finally:
        if on_end is not None:
            on_end(state)


def _play(state: GameState, opponent: Agent, rules: Rules, seed: int | None, seat: int, lang: str,
          inp: TextIO, out: TextIO, T: dict) -> Outcome | None:
    # the opponent draws from its own stream of the seed, never from the deal's (schnapsen_env.seeding)
    opponent.reset(None if seed is None else derive_seed(seed, OPPONENT_STREAM))
    n_tricks = 0
    while not state.is_terminal:
        p = state.current_player
        if p == seat:
            legal = state.legal_actions()
            print("\n" + _render(state, seat, lang), file=out)
            print(T["your_turn"], file=out)
            for i, a in enumerate(legal, 1):
                print(f"  {i:>2}. {_action_label(a, lang)}", file=out)
            while True:
                print(T["prompt"], end="", file=out, flush=True)
                line = inp.readline()
                if not line:
                    print("\n" + T["eof"], file=out)
                    return None
                answer = _answer_of(line)
                if answer.isascii() and answer.lower() in QUIT_WORDS:
                    print(T["quit"], file=out)
                    return None
                try:
                    action = parse_answer(answer, legal, rules.deck)
                    break
                except ValueError as e:
                    msg = str(e)
                    if msg.startswith("illegal"):
                        shown = msg.split(": ", 1)[1]
                        if lang == "de":
                            shown = _move(parse_action(shown, rules.deck), lang)
                        print(T["illegal"].format(shown), file=out)
                    elif lang == "de":  # the parser's detail is English: the German hint says what is allowed
                        print(T["bad"].format(_shown_answer(answer), len(legal)), file=out)
                    else:
                        detail = msg.split(": ", 1)[1]
                        print(T["bad"].format(_shown_answer(answer), len(legal)) + f" ({detail})", file=out)
            print(T["you_did"].format(_move(action, lang)), file=out)
        else:
            action = opponent.act(state.information_set(p))
            print(T["opp"].format(opponent.name, _move(action, lang)), file=out)
        state.apply(action)
        if len(state.tricks) > n_tricks:
            n_tricks = len(state.tricks)
            t = state.tricks[-1]
            print(T["trick"].format(_card(t.lead, lang), _card(t.follow, lang),
                                    T["you"] if t.winner == seat else T["them"]), file=out)
    o = state.outcome
    key = "won" if o.winner == seat else "lost"
    print("\n" + _render(state, seat, lang), file=out)
    reason = reason_text(o.reason, lang) if lang == "de" else o.reason
    print(T[key].format(o.game_points, reason, o.eyes[seat], o.eyes[1 - seat]), file=out)
    return o


class _OneLineParser(argparse.ArgumentParser):
    """argparse with every error as one line on standard error and exit status 2, and ``--help``
    written like the game's output (a broken pipe quietly 1, another write error one line and 2)."""

    def error(self, message: str) -> NoReturn:
        _fail(message)

    def print_help(self, file: TextIO | None = None) -> None:
        if file is not None:  # (argparse itself passes none)
            super().print_help(file)
            return
        if sys.stdout is None:
            _fail("standard output is closed")
        out = _Writer(sys.stdout)
        try:
            out.write(self.format_help())
            out.flush()
        except _OutputError as e:
            raise SystemExit(_output_failed(e.error, silence=True)) from None


def _fail(message: str) -> NoReturn:
    text = " ".join(str(message).split())
    if len(text) > 500:  # a very long path in it: keep the start and the reason at the end
        text = text[:300] + " ... " + text[-195:]
    say(f"python -m agents.play: error: {text}")
    raise SystemExit(2)






def _output_failed(error: BaseException, silence: bool) -> int:
    """The exit status after writing standard output failed with ``error``: 1 and nothing said
    for a broken pipe (the reader stopped reading), else one line on standard error and 2.
    ``silence``: the stream was ``sys.stdout`` (see :func:`_settle_stdout`)."""
    if silence:
        _settle_stdout()
    if isinstance(error, BrokenPipeError):
        return 1
    _fail(f"cannot write standard output: {_write_reason(error)}")


def _settle_stdout() -> None:
    """After a write to ``sys.stdout`` failed: write out what is still buffered, or, when that
    fails too, point it at the null device (no "Exception ignored" at interpreter exit)."""
    if sys.stdout is None:
        return
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        silence(sys.stdout)


def _write_reason(error: BaseException) -> str:
    if isinstance(error, UnicodeEncodeError):
        return (f"its encoding {error.encoding} cannot write {error.object[error.start:error.end]!r} "
                "(use a UTF-8 terminal, or PYTHONIOENCODING=utf-8)")
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    if isinstance(error, ValueError) and "closed file" in str(error):
        return "it is closed"
    return " ".join(str(error).split()) or type(error).__name__


#: longest answer echoed back in the "Not understood" line (a longer one is cut)
SHOWN_ANSWER_CHARS = 60


def _shown_answer(answer: str) -> str:
    """``answer`` as echoed back: at most :data:`SHOWN_ANSWER_CHARS` characters, then "..."."""
    return answer if len(answer) <= SHOWN_ANSWER_CHARS else answer[:SHOWN_ANSWER_CHARS] + "..."


def _seed_arg(text: str) -> int:
    try:
        seed = whole_number(text)
    except argparse.ArgumentTypeError:
        seed = -1
    if seed < 0:
        raise argparse.ArgumentTypeError(f"bad seed {brief_repr(text, 40)}: allowed a whole number >= 0 "
                                         "in ASCII digits")
    return seed


def _seat_arg(text: str) -> int:
    if text not in ("0", "1"):
        raise argparse.ArgumentTypeError(f"bad seat {brief_repr(text, 40)}: allowed 0 or 1")
    return int(text)


def main(argv: Sequence[str] | None = None, inp: TextIO | None = None, out: TextIO | None = None) -> int:
    """The play CLI; returns the exit status. Every error (bad arguments, an opponent spec or
    checkpoint path that cannot be used, input that cannot be read, standard input or output
    closed, output or the ``--save-record`` file that cannot be written) is one line on standard
    error and ``SystemExit(2)``; a broken pipe on the output is quietly 1; Ctrl-C is one line
    and 130. ``inp`` and ``out`` stand in for standard input and output (tests)."""
    if argv is not None and (isinstance(argv, (str, bytes)) or not isinstance(argv, Sequence)
                             or not all(isinstance(a, str) for a in argv)):
        raise ValueError(f"argv must be a list of strings or None, got {brief_repr(argv)}")
    ap = _OneLineParser(prog="python -m agents.play", description="Play Schnapsen against an agent.")
    ap.add_argument("--opponent", action=Once, default="heuristic",
                    help="agent spec: random, heuristic, pimc:samples=40, ppo ...")
    ap.add_argument("--variant", action=Once, default="schnapsen", help=f"rules preset: {', '.join(VARIANTS)}")
    ap.add_argument("--seed", action=Once, type=_seed_arg, default=None,
                    help="deal seed, a whole number >= 0 (default: random)")
    ap.add_argument("--seat", action=Once, type=_seat_arg, default=0, help="your seat: 0 or 1")
    ap.add_argument("--lang", action=Once, default="en", choices=tuple(_TEXT), help="language of the table")
    ap.add_argument("--input-file", action=Once, default=None,
                    help="read answers from this file instead of standard input")
    ap.add_argument("--save-record", action=Once, default=None, metavar="FILE.json",
                    help="write the game as a RULES §9 record (JSON) to FILE when it ends or is abandoned; "
                         "replay it with python -m schnapsen_env.replay FILE")
    args = ap.parse_args(argv)
    if args.variant not in VARIANTS:
        _fail(f"unknown variant {brief_repr(args.variant)}: allowed {', '.join(VARIANTS)}")
    if out is None and sys.stdout is None:  # started with standard output closed (>&-)
        _fail("standard output is closed")
    if args.input_file is not None and not args.input_file.strip():
        _fail(f"--input-file {brief_repr(args.input_file)}: empty path")
    if inp is None and not args.input_file and sys.stdin is None:  # (<&-)
        _fail("standard input is closed")
    on_end = None
    if args.save_record is not None:
        problem = output_file_problem(args.save_record, RECORD_SUFFIXES)
        if problem:
            _fail(f"--save-record {brief_repr(args.save_record, 200)}: {problem}")

        def on_end(state: GameState) -> None:
            try:
                _save_record(state, args.variant, args.save_record)
            except OSError as e:  # the record could not be written after all (disk full, the folder removed)
                raise _RecordError(f"--save-record {brief_repr(args.save_record, 200)}: cannot write: "
                                   f"{e.strerror or e}") from None
    try:
        opponent = make_agent(args.opponent)  # seeded per game by play_game_cli
    except (ValueError, ImportError, OSError) as e:
        _fail(f"--opponent: {e}")
    except KeyboardInterrupt:
        return _interrupted()
    reason = opponent.cannot_play(Rules.preset(args.variant))
    if reason:
        _fail(f"--opponent {args.opponent}: {reason}")
    own_stdout = out is None
    writer = _Writer(sys.stdout if own_stdout else out)
    rules = Rules.preset(args.variant)
    source = f"--input-file {brief_repr(args.input_file, 200)}" if args.input_file else "standard input"
    try:
        if args.input_file:
            try:
                f = open(args.input_file, encoding="utf-8")
            except OSError as e:
                _fail(f"cannot read {source}: {e.strerror or e}")
            with f:
                o = play_game_cli(opponent, rules, args.seed, args.seat, args.lang, _Reader(f, source), writer,
                                  on_end=on_end)
        else:
            o = play_game_cli(opponent, rules, args.seed, args.seat, args.lang,
                              _Reader(inp or sys.stdin, source), writer, on_end=on_end)
        writer.flush()  # what is still buffered fails here, not at interpreter exit
    except _InputError as e:
        _fail(str(e))
    except _OutputError as e:
        return _output_failed(e.error, silence=own_stdout)
    except _RecordError as e:  # (also when it followed a failed write to standard output)
        if writer.failed and own_stdout:
            _settle_stdout()
        _fail(str(e))
    except KeyboardInterrupt:
        return _interrupted()
    return 0 if o is not None else 1




#: names ``--save-record`` may have: the suffixes ``python -m schnapsen_env.replay`` reads (the record is one JSON line)
RECORD_SUFFIXES = (".json", ".jsonl")


def _save_record(state: GameState, variant: str, path: str) -> None:
    """Write the RULES §9 record of ``state`` (its game so far) to ``path`` as one JSON line."""
    import json

    from schnapsen_env.replay import to_record

    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(to_record(state, variant)) + "\n")


class _InputError(Exception):
    """The answers cannot be read (not UTF-8, an OS error)."""


class _OutputError(Exception):
    """The game's output cannot be written; ``error`` is why (an OSError such as a broken pipe or
    a full disk, a ValueError for a closed stream, a UnicodeEncodeError)."""

    def __init__(self, error: BaseException):
        super().__init__(str(error))
        self.error = error


class _RecordError(Exception):
    """The ``--save-record`` file cannot be written (the message names it)."""


class _Writer:
    """A text stream whose write errors become :class:`_OutputError` (so that they are not taken
    for errors of the record file or of the input); ``failed`` tells whether one happened."""

    def __init__(self, stream: TextIO):
        self.stream, self.failed = stream, False

    def write(self, text: str) -> int:
        try:
            return self.stream.write(text)
        except (OSError, ValueError) as e:
            self.failed = True
            raise _OutputError(e) from None

    def flush(self) -> None:
        try:
            self.stream.flush()
        except (OSError, ValueError) as e:
            self.failed = True
            raise _OutputError(e) from None


class _Reader:
    """A text stream whose ``readline`` turns read errors into :class:`_InputError`."""

    def __init__(self, stream: TextIO, source: str):
        self.stream, self.source = stream, source

    def readline(self) -> str:
        try:
            return self.stream.readline()
        except UnicodeDecodeError as e:
            raise _InputError(f"cannot read {self.source}: not UTF-8 text ({e.reason})") from None
        except OSError as e:
            raise _InputError(f"cannot read {self.source}: {e.strerror or e}") from None
        except ValueError as e:  # I/O operation on closed file
            raise _InputError(f"cannot read {self.source}: {_write_reason(e)}") from None


def _interrupted() -> int:
    say("python -m agents.play: interrupted")
    return 130


if __name__ == "__main__":
    sys.exit(main())
