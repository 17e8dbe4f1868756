"""The RULES §3–§5 clauses of schnapsen_env.rulebook: the engine's mask and its IllegalActionError
reasons are exactly what those clauses say on random states of every preset (each rule's own test,
with values worked out by hand, is in test_rules.py)."""

from __future__ import annotations

import ast
import pathlib
import random

import pytest

from schnapsen_env import rulebook as rb
from schnapsen_env.actions import DECLARE, EXCHANGE, MARRIAGE_BASE, NUM_ACTIONS
from schnapsen_env.engine import GameState, IllegalActionError
from schnapsen_env.rules import VARIANTS, Rules

ROOT = pathlib.Path(__file__).resolve().parents[2]


# ----------------------------------- the engine is the clauses, state by state
def _clause_reason(state: GameState, action: int):
    """What the rulebook says of a special action for the player on lead (None: allowed)."""
    p = state.current_player
    hand = state.hands[p]
    rules = state.rules
    if action == DECLARE:
        return rb.declare_forbidden(rules)
    order = rb.special_action_reason(state.pending_marriage)
    if order:
        return order
    facedown = state.talon_size
    if action < EXCHANGE:
        return rb.marriage_forbidden(rules, hand, action - MARRIAGE_BASE, state.tricks_won[p])
    if action == EXCHANGE:
        return rb.exchange_forbidden(rules, hand, state.trump_suit, state.talon_open, facedown, len(state.tricks))
    return rb.closing_forbidden(rules, state.closed_by, state.trump_card, facedown)


@pytest.mark.parametrize("variant", VARIANTS)
def test_engine_mask_and_reasons_are_the_rulebook_clauses(variant):
    rules = Rules.preset(variant)
    rng = random.Random(7)
    checked = 0
    for seed in range(150):
        state = GameState.from_seed(rules, seed)
        while not state.is_terminal:
            mask = state.legal_mask()
            p = state.current_player
            hand = state.hands[p]
            if state.lead_card >= 0:
                assert mask == rb.follow_cards(hand, state.lead_card, state.trump_suit, state.talon_open)
            for a in range(MARRIAGE_BASE, NUM_ACTIONS):
                if state.lead_card >= 0:
                    assert not mask >> a & 1
                    continue
                reason = _clause_reason(state, a)
                assert (reason is None) == bool(mask >> a & 1), (variant, seed, a, reason)
                if reason is not None:
                    with pytest.raises(IllegalActionError) as err:
                        state.clone().apply(a)
                    assert err.value.reason == reason
                checked += 1
            acts = state.legal_actions()
            state.apply(acts[rng.randrange(len(acts))])
    assert checked > 1000


RULE_CONSTANTS = {"TRUMP_MARRIAGE_EYES", "MARRIAGE_EYES", "SCHNEIDER_EYES", "LAST_TRICK_BONUS", "_HIGHER", "_LOWER"}
# rules.py defines the numbers, rulebook.py states the clauses; observation.py only scales
# its eye features by them (an upper bound, no rule decision)
RULE_CONSTANT_USERS = {
    "schnapsen_env/rules.py",
    "schnapsen_env/rulebook.py",
    "schnapsen_env/observation.py",
    "agents/players/solver.py",
}


def test_no_module_outside_the_rulebook_imports_the_rule_numbers():
    """Marriage, schneider and last-trick numbers and the follow tables are read by the
    rulebook (and handed to the compiled core by solver.py), not restated elsewhere."""
    offenders = []
    for path in sorted([*ROOT.glob("schnapsen_env/**/*.py"), *ROOT.glob("agents/**/*.py"), ROOT / "train.py"]):
        rel = path.relative_to(ROOT).as_posix()
        if rel in RULE_CONSTANT_USERS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                names = {a.name for a in node.names} & RULE_CONSTANTS
                if names:
                    offenders.append(f"{rel}: {sorted(names)}")
            elif isinstance(node, ast.Name) and node.id in {"_HIGHER", "_LOWER"}:
                offenders.append(f"{rel}: {node.id}")
    assert offenders == []
