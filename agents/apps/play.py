"""Play one game in the terminal against any agent.

    python -m agents.apps.play --opponent pimc [--variant schnapsen] [--seed N] [--seat 0|1] [--lang en|de]
                               [--input-file moves.txt] [--save-record game.json] [--no-symbols]

Answer with the number of a legal action, a card (``TH``, ``10H``; RULES §1) or an action text
(``marriage H``, ``close``); ``quit`` ends. An unreadable or illegal answer is refused and asked
again. Suits show as symbols (``T♥``), or as letters (``TH``) with ``--no-symbols`` or where
standard output cannot encode the symbols. Exit status: 0 after a finished game, 1 when the input
ends, on ``quit`` or a broken pipe, 2 for any error (one line on standard error), 130 on Ctrl-C."""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from schnapsen_env.actions import action_to_str, parse_action
from schnapsen_env.cards import card_to_str, parse_card
from schnapsen_env.cli_io import one_line, silence, whole_range
from schnapsen_env.engine import GameState, Outcome
from schnapsen_env.render import (
    action_text,
    card_text,
    letters,
    reason_text,
    render_text,
    symbols_fit,
)
from schnapsen_env.replay import to_record
from schnapsen_env.rules import VARIANTS, Rules
from schnapsen_env.seeding import OPPONENT_STREAM, derive_seed

from ..registry import make_agent
from ..players.base import Agent, action_id
from ..evaluation.workers import replace_atomically

PROG = "python -m agents.apps.play"
_TEXT = {
    "en": {
        "your_turn": "Your move. Legal actions:",
        "opp": "Opponent ({}) plays: {}",
        "you_did": "You play: {}",
        "trick": "Trick: {} - {}, won by {}",
        "you": "you",
        "them": "opponent",
        "bad": "Not understood: {!r}. Enter a number 1-{}, a card like TH, or an action like 'close'.",
        "illegal": "{} is not legal now. Choose one of the listed actions.",
        "won": "You win {} game point(s) ({}). Eyes: you {}, opponent {}.",
        "lost": "The opponent wins {} game point(s) ({}). Eyes: you {}, opponent {}.",
        "eof": "Input ended before the game was over.",
        "quit": "Game abandoned.",
    },
    "de": {
        "your_turn": "Du bist am Zug. Erlaubt:",
        "opp": "Gegner ({}): {}",
        "you_did": "Dein Zug: {}",
        "trick": "Stich: {} - {}, gewonnen von {}",
        "you": "dir",
        "them": "Gegner",
        "bad": "Nicht verstanden: {!r}. Gib eine Zahl von 1 bis {} ein (oder eine Karte wie 10H, DS).",
        "illegal": "{} ist jetzt nicht erlaubt. Wähle eine der Aktionen.",
        "won": "Du gewinnst {} Punkt(e) ({}). Augen: du {}, Gegner {}.",
        "lost": "Der Gegner gewinnt {} Punkt(e) ({}). Augen: du {}, Gegner {}.",
        "eof": "Eingabe zu Ende, bevor das Spiel aus war.",
        "quit": "Spiel abgebrochen.",
    },
}
#: words that end the program
QUIT_WORDS = ("quit", "exit", "q")
#: longest answer echoed back in the "Not understood" line (a longer one is cut)
SHOWN_ANSWER_CHARS = 60
#: most digits of a numbered answer (a longer number is out of range anyway)
MAX_NUMBER_DIGITS = 9


class _Letters:
    """A text stream that writes suit letters for the suit symbols (the rest goes to ``stream``)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        return self._stream.write(letters(text))

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def _move(action: int, lang: str) -> str:
    """A move as shown: the record notation (English) or German words."""
    return action_text(action, lang) if lang == "de" else action_to_str(action)


def parse_answer(text: str, legal: Sequence[int], deck_size: int) -> int:
    """The action id meant by an answer (a 1-based number into ``legal``, a card, or action text);
    ``ValueError`` starting ``"unreadable"`` or ``"illegal: ACTION"``."""
    if text.isascii() and text.isdigit():
        k = int(text) if len(text) <= MAX_NUMBER_DIGITS else 0
        if not 1 <= k <= len(legal):
            raise ValueError(f"unreadable: number {text[:12]} is not between 1 and {len(legal)}")
        return legal[k - 1]
    name, _, rest = text.partition(" ")
    try:
        action = parse_card(text.upper(), deck_size)
    except ValueError:
        try:
            action = parse_action(name.lower() + (" " + rest.upper() if rest else ""), deck_size)
        except ValueError as e:
            raise ValueError(f"unreadable: {e}") from None
    if action not in legal:
        raise ValueError(f"illegal: {action_to_str(action)}")
    return action


def play_game_cli(
    opponent: Agent,
    rules: Rules,
    seed: int | None,
    seat: int,
    lang: str,
    inp: TextIO,
    out: TextIO,
    on_end: Callable[[GameState], None] | None = None,
) -> Outcome | None:
    """Run one game with the human in ``seat`` (0/1), ``lang`` ``"en"`` or ``"de"``; returns the
    Outcome, or None if the input ended or the player quit. ``on_end(state)`` is called when the
    game ends, is abandoned or the input ends (the CLI saves the record there)."""
    text = _TEXT[lang]
    state = GameState.from_seed(rules, seed=seed)  # the deal stream: random.Random(seed)
    # the opponent draws from its own stream of the seed, never from the deal's
    # (schnapsen_env.seeding)
    opponent.reset(None if seed is None else derive_seed(seed, OPPONENT_STREAM))
    say = functools.partial(print, sep="\n", file=out)  # one line per argument
    try:
        while not state.is_terminal:
            p = state.current_player
            if p == seat:
                action = _ask(state, seat, lang, inp, out)
                if action is None:
                    return None
                say(text["you_did"].format(_move(action, lang)))
            else:
                action = action_id(opponent.act(state.information_set(p)))  # as the arena reads it
                say(text["opp"].format(opponent.name, _move(action, lang)))
            tricks = len(state.tricks)
            state.apply(action)
            if len(state.tricks) > tricks:
                t = state.tricks[-1]
                cards = [card_text(c, lang) if lang == "de" else card_to_str(c) for c in (t.lead, t.follow)]
                say(text["trick"].format(*cards, text["you"] if t.winner == seat else text["them"]))
        o = state.outcome
        reason = reason_text(o.reason, lang) if lang == "de" else o.reason
        eyes = (o.eyes[seat], o.eyes[1 - seat])  # yours, then the opponent's
        result = text["won" if o.winner == seat else "lost"].format(o.game_points, reason, *eyes)
        say("", render_text(state, viewer=seat, lang=lang, symbols=True), result)
        return o
    finally:
        if on_end is not None:
            on_end(state)


def _ask(state: GameState, seat: int, lang: str, inp: TextIO, out: TextIO) -> int | None:
    """The human's action, asked until it is readable and legal; None when the input ends or on
    quit."""
    text, legal = _TEXT[lang], state.legal_actions()
    print(
        "\n" + render_text(state, viewer=seat, lang=lang, symbols=True),
        text["your_turn"],
        sep="\n",
        file=out,
    )
    for i, a in enumerate(legal, 1):
        label = action_text(a, lang) if lang == "de" else f"{action_text(a, lang)}  [{action_to_str(a)}]"
        print(f"  {i:>2}. {label}", file=out)
    while True:
        print("> ", end="", file=out, flush=True)
        line = inp.readline()
        if not line:
            print("\n" + text["eof"], file=out)
            return None
        answer = line.strip()
        if answer.lower() in QUIT_WORDS:
            print(text["quit"], file=out)
            return None
        try:
            return parse_answer(answer, legal, state.rules.deck)
        except ValueError as e:
            kind, detail = str(e).split(": ", 1)
            shown = answer if len(answer) <= SHOWN_ANSWER_CHARS else answer[:SHOWN_ANSWER_CHARS] + "..."
            if kind == "illegal":
                print(
                    text["illegal"].format(_move(parse_action(detail, state.rules.deck), lang)),
                    file=out,
                )
            else:  # the parser's detail is English: the German hint says what is allowed
                print(
                    text["bad"].format(shown, len(legal)) + ("" if lang == "de" else f" ({detail})"),
                    file=out,
                )


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=PROG, description="Play Schnapsen against an agent.")
    opponent_help = "agent spec: random, heuristic, pimc:samples=40, search, ppo, FILE.py:NAME ..."
    ap.add_argument("--opponent", default="heuristic", help=opponent_help)
    ap.add_argument("--variant", default="schnapsen", choices=VARIANTS, help="rules preset")
    ap.add_argument(
        "--seed",
        type=whole_range(0),
        help="deal seed, a whole number >= 0 (default: random)",
    )
    ap.add_argument("--seat", type=int, choices=(0, 1), default=0, help="your seat")
    ap.add_argument("--lang", default="en", choices=tuple(_TEXT), help="language of the table")
    ap.add_argument(
        "--input-file",
        default=None,
        help="read answers from this file instead of standard input",
    )
    record_help = "write the game as a RULES §9 record (JSON) to FILE when it ends or is abandoned; "
    record_help += "replay it with python -m schnapsen_env.replay FILE"
    ap.add_argument("--save-record", default=None, metavar="FILE.json", help=record_help)
    symbols_help = "suit letters (TH: ten of hearts) instead of suit symbols; the default where standard output cannot "
    ap.add_argument("--no-symbols", action="store_true", help=symbols_help + "encode the symbols")
    return ap


def main(
    argv: Sequence[str] | None = None,
    inp: TextIO | None = None,
    out: TextIO | None = None,
) -> int:
    """The play CLI; returns the exit status: errors are one line and ``SystemExit(2)``, a broken
    pipe 1, Ctrl-C 130. ``inp``/``out`` stand in for standard input and output."""
    ap = build_parser()
    args = ap.parse_args(argv)
    rules = Rules.preset(args.variant)
    out = sys.stdout if out is None else out
    if args.no_symbols or not symbols_fit(out):
        out = _Letters(out)
    try:
        opponent = make_agent(args.opponent)  # seeded per game by play_game_cli
        reason = opponent.cannot_play(rules)
        if reason:
            ap.error(f"--opponent {args.opponent}: {reason}")

        def save(state: GameState) -> None:
            if args.save_record is not None:  # an earlier file stays whole if this write fails
                with (
                    replace_atomically(args.save_record) as temporary,
                    open(temporary, "w", encoding="utf-8") as f,
                ):
                    f.write(json.dumps(to_record(state, args.variant)) + "\n")

        source = inp or sys.stdin
        with open(args.input_file, encoding="utf-8") if args.input_file else contextlib.nullcontext(source) as answers:
            o = play_game_cli(
                opponent,
                rules,
                args.seed,
                args.seat,
                args.lang,
                answers,
                out,
                on_end=save,
            )
        out.flush()
    except BrokenPipeError:  # the reader (e.g. `| head`) stopped reading: not an error of ours
        silence(out)
        return 1
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except (ValueError, ImportError, OSError) as e:  # a bad spec, an unreadable file, a full disk
        ap.exit(2, f"{PROG}: error: {one_line(e)}\n")
    return 0 if o is not None else 1


if __name__ == "__main__":
    sys.exit(main())
