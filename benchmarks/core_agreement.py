"""The compiled solver core against the rules engine, state by state (RULES.md §3–§5, §7).

    python benchmarks/core_agreement.py [--states 1000000] [--seed 0] [--write-docs]

The C core (``agents/players/csrc/rules.c``) is an accelerator, not a second rules authority. Seeded
random games over every preset and :data:`RULE_SETS`; at every state the core's legal mask (also
without closing by the player to move, the solver's ``closers``), the outcome of every legal action,
and every field the core reads after the action played must equal the engine's. Disagreements are
printed with preset, game seed and actions from the deal. Exit status 1 on any, 2 if the core is not
built."""

from __future__ import annotations

import random
import sys
import time
from dataclasses import dataclass, field

from _common import count, machine_description, parse_args, parser, positive, publish

from agents.players import solver  # (configures the core's constants at import)
from schnapsen_env.actions import CLOSE
from schnapsen_env.engine import GameState
from schnapsen_env.rules import VARIANTS, Rules

#: every preset, then single options that no preset covers (RULES §7)
RULE_SETS = {v: Rules.preset(v) for v in VARIANTS} | {
    "schnapsen+manual+fdp2": Rules.preset(
        "schnapsen",
        declare="manual",
        false_declaration_points=2,
    ),
    "schnapsen+manual+later": Rules.preset(
        "schnapsen",
        declare="manual",
        closing_counts_later_eyes=True,
    ),
    "sechsundsechzig+manual+next_trick": Rules.preset(
        "sechsundsechzig", declare="manual", marriage_credit="next_trick"
    ),
    "sechsundsechzig+sharp": Rules.preset("sechsundsechzig", sharp=True),
}
#: the GameState fields compared after the action played (what the core reads and writes)
_NAMES = (
    "hands talon talon_pos trump_card trump_suit leader current_player lead_card pending_marriage eyes "
    "held_marriage_eyes tricks_won closed_by closed_opponent_eyes closed_opponent_had_trick"
)
FIELDS = tuple(_NAMES.split())


@dataclass
class AgreementResult:
    states: int = 0  #: non-terminal states checked
    actions: int = 0  #: (state, legal action) pairs stepped by both
    games: int = 0
    seconds: float = 0.0
    #: (rule set, game seed, actions from the deal to the state, what differs)
    disagreements: list = field(default_factory=list)
    per_rule_set: dict = field(default_factory=dict)  #: rule set name -> states checked


def _outcome(state: GameState):
    out = state.outcome
    return None if out is None else (out.winner, out.game_points)


def check_state(core, rules: Rules, s: GameState) -> tuple[list, list]:
    """Compare the core with the engine at the non-terminal state ``s``: legal masks, and the
    outcome of every legal action. Returns ``(differences, children)``: text per difference, and the
    engine's child state of each legal action (in ascending action order)."""
    diffs = []
    pm, cm = s.legal_mask(), core.legal_mask(rules, s, 3)
    if cm != pm:
        diffs.append(f"legal mask: core {cm:#x}, engine {pm:#x}")
    # the solver's closers: the mover may not close
    cm1 = core.legal_mask(rules, s, 1 << (1 - s.current_player))
    if cm1 != pm & ~(1 << CLOSE):
        diffs.append(f"legal mask without closing by the player to move: core {cm1:#x}, engine {pm & ~(1 << CLOSE):#x}")
    children = []
    for a in s.legal_actions():
        c = s.clone()
        c.apply(a)
        children.append(c)
        if not cm >> a & 1:
            continue  # already reported as a mask difference
        co, po = core.step(rules, s, a), _outcome(c)
        if co != po:
            diffs.append(f"action {a}: core outcome {co}, engine {po}")
    return diffs, children


def check_fields(core, rules: Rules, s: GameState, a: int, child: GameState) -> list:
    """Every field the core reads, after action ``a`` from ``s``: core vs engine (``child``)."""
    got = core.step_fields(rules, s, a)
    wrong = [name for name in FIELDS if got[name] != getattr(child, name)]
    diffs = [f"after action {a}: {name} core {got[name]!r}, engine {getattr(child, name)!r}" for name in wrong]
    if got["outcome"] != _outcome(child):
        diffs.append(f"after action {a}: outcome core {got['outcome']}, engine {_outcome(child)}")
    return diffs


def run_agreement(
    states: int = 1_000_000,
    seed: int = 0,
    rule_sets: dict | None = None,
) -> AgreementResult:
    """Check ``states`` states of random games (round-robin over ``rule_sets``, default
    :data:`RULE_SETS`; game ``i`` deals ``GameState.from_seed(rules, seed * 1_000_003 + i)`` and
    plays actions drawn by ``random.Random`` of the same seed); needs the compiled core."""
    core = solver._ext
    sets = list((rule_sets or RULE_SETS).items())
    res = AgreementResult(per_rule_set=dict.fromkeys((name for name, _ in sets), 0))
    t0 = time.perf_counter()
    while res.states < states:
        name, rules = sets[res.games % len(sets)]
        game_seed = seed * 1_000_003 + res.games
        res.games += 1
        s = GameState.from_seed(rules, game_seed)
        rng = random.Random(game_seed)
        history = []
        while s.outcome is None and res.states < states:
            res.states += 1
            res.per_rule_set[name] += 1
            diffs, children = check_state(core, rules, s)
            res.actions += len(children)
            k = rng.randrange(len(children))
            a = s.legal_actions()[k]
            diffs += check_fields(core, rules, s, a, children[k])
            if diffs:
                res.disagreements.append((name, game_seed, tuple(history), diffs))
            history.append(a)
            s = children[k]
    res.seconds = time.perf_counter() - t0
    return res


def main(argv=None) -> int:
    ap = parser(__doc__)
    ap.add_argument(
        "--states",
        type=positive,
        default=1_000_000,
        help="states to check (default 1,000,000)",
    )
    ap.add_argument("--seed", type=count, default=0, help="seed of the games (default 0)")
    args = parse_args(ap, argv, seed=None)
    if not solver.core_available():
        print(
            "agents.players._solver_core is not built (run `pip install -e .`): nothing to check",
            file=sys.stderr,
        )
        return 2
    machine = machine_description()
    res = run_agreement(args.states, args.seed)
    for name, game_seed, history, diffs in res.disagreements[:20]:
        print(f"  {name}, game seed {game_seed}, after actions {list(history)}:")
        for d in diffs:
            print(f"    {d}")
    counts = f"{res.states:,} states ({res.actions:,} actions stepped, {res.games:,} games)"
    found = f"{len(res.disagreements)} disagreements in {counts} over {len(res.per_rule_set)} rule sets"
    command = f"python benchmarks/core_agreement.py --states {args.states}"
    publish(
        "core_agreement",
        f"{machine}; `{command}`: {found}, {res.seconds:.1f} s.",
        args.write_docs,
    )
    return 1 if res.disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
