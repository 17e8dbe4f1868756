"""Play one game in the terminal against any agent.

    python -m agents.play --opponent pimc [--variant schnapsen] [--seed N] [--seat 0|1] [--lang en|de]
                          [--input-file moves.txt]

Each of your turns shows your view (hand, trump, talon, trick, eyes when the rules
show them; :func:`schnapsen_env.render.render_text`) and the legal actions by number.
Answer with the number, a card (``TH``, ``10H``; German letters as in RULES §1), or an
action text (``play TH``, ``marriage H``, ``exchange``, ``close``, ``declare``);
``quit`` ends the program. A bad answer prints why and asks again; the game is not
changed. Input comes from ``--input-file`` or standard input, so scripts and tests can
drive it. Exit status: 0 after a finished game, 1 when the input ends or on ``quit``
before the game ends, 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TextIO

from schnapsen_env.actions import action_to_str, parse_action
from schnapsen_env.cards import parse_card
from schnapsen_env.engine import GameState, Outcome
from schnapsen_env.rules import VARIANTS, Rules

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
    "de": {"your_turn": "Du bist am Zug. Erlaubt:", "prompt": "> ", "opp": "Gegner ({}) spielt: {}",
           "you_did": "Du spielst: {}", "trick": "Stich: {} - {}, gewonnen von {}", "you": "dir",
           "them": "Gegner", "bad": "Nicht verstanden: {!r}. Gib eine Zahl 1-{}, eine Karte wie TH oder eine "
           "Aktion wie 'close' ein.", "illegal": "{} ist jetzt nicht erlaubt. Wähle eine der Aktionen.",
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
    try:
        from schnapsen_env.render import action_text
    except ImportError:  # pragma: no cover
        return action_to_str(action)
    return f"{action_text(action, lang)}  [{action_to_str(action)}]"


def parse_answer(text: str, legal: Sequence[int], deck_size: int) -> int:
    """The action id meant by an answer: a 1-based number into ``legal``, a card, or action text.

    Raises ``ValueError`` with a message when the answer is unreadable (``str(e)`` starts
    with ``"unreadable"``) or names an action that is not in ``legal`` (``"illegal"``).
    """
    t = text.strip()
    if not t:
        raise ValueError("unreadable: empty answer")
    if t.isdigit():
        k = int(t)
        if 1 <= k <= len(legal):
            return legal[k - 1]
        raise ValueError(f"unreadable: number {k} is not between 1 and {len(legal)}")
    words = t.split()
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


def play_game_cli(opponent: Agent, rules: Rules, seed: int | None, seat: int, lang: str,
                  inp: TextIO, out: TextIO) -> Outcome | None:
    """Run one game with the human in ``seat``; returns the Outcome, or None if the input ended/quit."""
    T = _TEXT[lang]
    state = GameState.from_seed(rules, seed=seed)
    opponent.reset(seed)
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
                if line.strip().lower() in QUIT_WORDS:
                    print(T["quit"], file=out)
                    return None
                try:
                    action = parse_answer(line, legal, rules.deck)
                    break
                except ValueError as e:
                    msg = str(e)
                    if msg.startswith("illegal"):
                        print(T["illegal"].format(msg.split(": ", 1)[1]), file=out)
                    else:
                        print(T["bad"].format(line.strip(), len(legal)) + f" ({msg.split(': ', 1)[1]})", file=out)
            print(T["you_did"].format(action_to_str(action)), file=out)
        else:
            action = opponent.act(state.information_set(p))
            print(T["opp"].format(opponent.name, action_to_str(action)), file=out)
        state.apply(action)
        if len(state.trick_log) > n_tricks:
            n_tricks = len(state.trick_log)
            t = state.trick_log[-1]
            print(T["trick"].format(action_to_str(t.lead)[5:], action_to_str(t.follow)[5:],
                                    T["you"] if t.winner == seat else T["them"]), file=out)
    o = state.outcome
    key = "won" if o.winner == seat else "lost"
    print("\n" + _render(state, seat, lang), file=out)
    print(T[key].format(o.game_points, o.reason, o.eyes[seat], o.eyes[1 - seat]), file=out)
    return o


def main(argv: Sequence[str] | None = None, inp: TextIO | None = None, out: TextIO | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m agents.play", description="Play Schnapsen against an agent.")
    ap.add_argument("--opponent", default="heuristic", help="agent spec: random, heuristic, pimc:samples=40, ppo ...")
    ap.add_argument("--variant", default="schnapsen", help=f"rules preset: {', '.join(VARIANTS)}")
    ap.add_argument("--seed", type=int, default=None, help="deal seed (default: random)")
    ap.add_argument("--seat", type=int, default=0, choices=(0, 1), help="your seat")
    ap.add_argument("--lang", default="en", choices=tuple(_TEXT), help="language of the table")
    ap.add_argument("--input-file", default=None, help="read answers from this file instead of standard input")
    args = ap.parse_args(argv)
    if args.variant not in VARIANTS:
        ap.error(f"unknown variant {args.variant!r}: allowed {', '.join(VARIANTS)}")
    try:
        opponent = make_agent(args.opponent, seed=args.seed)
    except (ValueError, ImportError) as e:
        ap.error(f"bad opponent spec {args.opponent!r}: {e}")
    out = out or sys.stdout
    if args.input_file:
        try:
            f = open(args.input_file, encoding="utf-8")
        except OSError as e:
            ap.error(f"cannot read --input-file {args.input_file!r}: {e}")
        with f:
            o = play_game_cli(opponent, Rules.preset(args.variant), args.seed, args.seat, args.lang, f, out)
    else:
        o = play_game_cli(opponent, Rules.preset(args.variant), args.seed, args.seat, args.lang,
                          inp or sys.stdin, out)
    return 0 if o is not None else 1



if __name__ == "__main__":
    sys.exit(main())
