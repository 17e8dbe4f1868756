"""Soak test of the rules engine: many seeded random games over every preset (RULES.md §7).

    python benchmarks/soak.py [--games 100000] [--seed 0]

At the end of every game: ``state.validate()`` and the invariants of RULES §2–§5 (cards conserved,
game points in 1..3, a known reason, eyes at least the card eyes of the won tricks, tricks counted
right, nothing legal after the end). Prints games/s and every failure; exit status 1 on any.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import traceback
from dataclasses import dataclass, field

from _common import count, positive

from schnapsen_env.cards import CARD_EYES, deck_cards
from schnapsen_env.engine import REASONS, GameState
from schnapsen_env.rules import VARIANTS, Rules

#: more actions than any game can take (RULES §4: <= 24 plays + marriages + 3)
MAX_STEPS = 100


@dataclass
class SoakResult:
    games: int = 0
    actions: int = 0
    seconds: float = 0.0
    failures: list = field(default_factory=list)  # (game index, preset, game seed, message)
    reasons: dict = field(default_factory=dict)


def end_problems(state: GameState) -> list[str]:
    """The invariants a finished game breaks (``state.validate()`` raises for a broken state)."""
    state.validate()
    o = state.outcome
    if o is None:
        return ["game did not finish"]
    full = set(deck_cards(state.rules.deck))
    seen = [c for p in (0, 1) for c in full if state.hands[p] >> c & 1]
    seen += [c for t in state.tricks for c in (t.lead, t.follow)] + list(state.talon[state.talon_pos :])
    seen += [c for c in (state.lead_card, state.trump_card) if c >= 0]
    card_eyes, tricks = [0, 0], [0, 0]
    for t in state.tricks:
        card_eyes[t.winner] += CARD_EYES[t.lead] + CARD_EYES[t.follow]
        tricks[t.winner] += 1
    checks = [
        (o.game_points in (1, 2, 3), f"game points {o.game_points} not in 1..3"),
        (o.reason in REASONS and o.winner in (0, 1), f"bad outcome {o}"),
        (
            len(seen) == len(full) and set(seen) == full,
            "cards not conserved (missing or duplicated)",
        ),
        (tuple(tricks) == tuple(o.tricks_won), f"tricks {o.tricks_won} != trick log {tricks}"),
        (
            all(o.eyes[p] >= card_eyes[p] for p in (0, 1)),
            f"eyes {o.eyes} below card eyes {card_eyes}",
        ),
        (sum(card_eyes) <= 120, "more than 120 card eyes in tricks"),
        (not state.legal_actions() and state.current_player == -1, "actions legal after the end"),
    ]
    return [message for ok, message in checks if not ok]


def run_soak(games: int, seed: int, variants=VARIANTS) -> SoakResult:
    """Play ``games`` seeded random games round-robin over ``variants``."""
    res = SoakResult()
    rules_list = [Rules.preset(v) for v in variants]
    master = random.Random(seed)
    t0 = time.perf_counter()
    for i in range(games):
        k = i % len(rules_list)
        game_seed = master.getrandbits(64)
        rng = random.Random(game_seed)
        try:
            state = GameState.from_seed(rules_list[k], rng=rng)
            steps = 0
            while not state.is_terminal and steps <= MAX_STEPS:
                # (no legal action: IndexError, a failure)
                state.apply(rng.choice(state.legal_actions()))
                steps += 1
            res.actions += steps
            problems = end_problems(state)
            if problems:
                raise AssertionError("; ".join(problems))
            r = state.outcome.reason
            res.reasons[r] = res.reasons.get(r, 0) + 1
        except Exception as e:  # a soak reports every failure
            res.failures.append((i, variants[k], game_seed, f"{type(e).__name__}: {e}", traceback.format_exc()))
        res.games += 1
    res.seconds = time.perf_counter() - t0
    return res


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument(
        "--games",
        type=positive,
        default=100_000,
        help="games to play (default 100000)",
    )
    ap.add_argument("--seed", type=count, default=0, help="master seed (default 0)")
    args = ap.parse_args(argv)
    res = run_soak(args.games, args.seed)
    print(
        f"soak: {res.games} games ({res.actions} actions) over {len(VARIANTS)} presets in {res.seconds:.2f} s: "
        f"{res.games / res.seconds:,.0f} games/s, {res.actions / res.seconds:,.0f} actions/s"
    )
    print("reasons: " + ", ".join(f"{k} {v}" for k, v in sorted(res.reasons.items())))
    for i, variant, gseed, msg, tb in res.failures[:20]:
        print(f"FAIL game {i} preset {variant} seed {gseed}: {msg}\n{tb}", file=sys.stderr)
    if res.failures:
        print(f"{len(res.failures)} failures", file=sys.stderr)
        return 1
    print("no failures")
    return 0


if __name__ == "__main__":
    sys.exit(main())
