"""The perfect-information solver (agents/players/solver.py, agents/players/csrc/) against
brute-force minimax on the engine (the ground truth), RULES §3-§5 and §7."""

from __future__ import annotations

import random
import warnings

import pytest

from agents.players import solver
from agents.players.solver import (
    SolveResult,
    action_values_python,
    action_values_reference,
    solve,
    solve_python,
    solve_reference,
)
from schnapsen_env import VARIANTS, GameState, Rules


#: presets plus single options that the presets do not cover (RULES §7)
RULE_SETS = [Rules.preset(v) for v in VARIANTS] + [
    Rules.preset("schnapsen", declare="manual", false_declaration_points=2),
    Rules.preset("schnapsen", declare="manual", closing_counts_later_eyes=True),
    Rules.preset("sechsundsechzig", declare="manual", marriage_credit="next_trick"),
    Rules.preset("sechsundsechzig", sharp=True),
]
RULE_IDS = list(VARIANTS) + ["manual-fdp2", "manual-later", "66-manual-nexttrick", "66-sharp"]

needs_core = pytest.mark.skipif(not solver.core_available(), reason="compiled core not built")


def random_position(rules: Rules, rng: random.Random, max_hand: int) -> GameState | None:
    """Random play from a seeded deal until both hands hold at most ``max_hand`` cards."""
    s = GameState.from_seed(rules, rng=rng)
    while not s.is_terminal and (s.hands[0].bit_count() > max_hand or s.hands[1].bit_count() > max_hand):
        s.apply(rng.choice(s.legal_actions()))
    if s.is_terminal:
        return None
    # sometimes go on a few actions to stop mid-trick or after a marriage
    for _ in range(rng.randrange(3)):
        if s.is_terminal:
            return None
        s.apply(rng.choice(s.legal_actions()))
    return None if s.is_terminal else s


def positions(rules: Rules, seed: int, count: int, max_hand: int) -> list:
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        s = random_position(rules, rng, max_hand)
        if s is not None:
            out.append(s)
    return out


def talon_positions(rules: Rules, seed: int, count: int, max_talon: int) -> list:
    """Random play until at most ``max_talon`` face-down talon cards are left or it is closed."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        s = GameState.from_seed(rules, rng=rng)
        while not s.is_terminal and s.talon_size > max_talon and s.closed_by < 0:
            s.apply(rng.choice(s.legal_actions()))
        if not s.is_terminal:
            out.append(s)
    return out


def play_line(state: GameState) -> GameState:
    """Both sides play the solver's first best action to the end (agents.players.solver.principal_line)."""
    s = state.clone()
    for a in solver.principal_line(state):
        s.apply(a)
    assert s.is_terminal
    return s


@pytest.mark.parametrize("rules", RULE_SETS, ids=RULE_IDS)
def test_solver_matches_minimax_on_small_endgames(rules):
    for s in positions(rules, seed=11, count=25, max_hand=4):
        ref = action_values_reference(s)
        assert solver.action_values(s) == ref, s
        best = max(ref.values())
        assert solve(s) == SolveResult(best, tuple(a for a in sorted(ref) if ref[a] == best)), s
        assert solve_reference(s).value == best


@pytest.mark.parametrize("rules", RULE_SETS, ids=RULE_IDS)
def test_python_alpha_beta_matches_minimax(rules):
    for s in positions(rules, seed=12, count=8, max_hand=3):
        assert action_values_python(s) == action_values_reference(s)
        assert solve_python(s) == solve_reference(s)


@needs_core
@pytest.mark.parametrize("rules", RULE_SETS, ids=RULE_IDS)
def test_core_matches_python_search_mid_game(rules):
    """Positions with the talon still open or just closed (hands of 5-6 cards)."""
    for s in talon_positions(rules, seed=13, count=6, max_talon=4):
        assert solver.solve_core(s) == solve_python(s), s
        assert solver.action_values_core(s) == action_values_python(s), s


@pytest.mark.parametrize("rules", RULE_SETS, ids=RULE_IDS)
def test_win_only_values_are_the_signs_of_exact_values(rules):
    """``action_values(win_only=True)`` (one null-window test per action in the core) gives +1 for each
    action that wins and -1 for each that loses, in the core and in the Python fallback alike."""
    for s in talon_positions(rules, seed=18, count=4, max_talon=4):
        signs = {a: 1 if v > 0 else -1 for a, v in action_values_python(s, (s.current_player,)).items()}
        assert solver.action_values(s, (s.current_player,), win_only=True) == signs, s
        with pytest.MonkeyPatch.context() as m, warnings.catch_warnings():
            m.setattr(solver, "_core", None)
            warnings.simplefilter("ignore")
            assert solver.action_values(s, (s.current_player,), win_only=True) == signs, s


@needs_core
@pytest.mark.parametrize("rules", RULE_SETS, ids=RULE_IDS)
def test_value_equals_outcome_of_best_play(rules):
    """From full deals and mid-game positions, the line of best actions ends, in the
    engine, with exactly the solved value for the player to move."""
    rng = random.Random(14)
    # full deals from the first lead (the 24-card game's deals are slower: one there)
    states = [GameState.from_seed(rules, rng=rng) for _ in range(2 if rules.deck == 20 else 1)]
    states += talon_positions(rules, seed=15, count=4, max_talon=4)
    for s in states:
        res = solve(s)
        p = s.current_player
        end = play_line(s)
        out = end.outcome
        assert (out.game_points if out.winner == p else -out.game_points) == res.value
        # every best action keeps the value; any other action is strictly worse
        vals = solver.action_values(s)
        assert max(vals.values()) == res.value
        assert set(res.best_actions) == {a for a, v in vals.items() if v == res.value}


def test_values_are_game_points_and_state_untouched():
    s = positions(Rules.preset("schnapsen"), seed=16, count=1, max_hand=4)[0]
    before = (s.hands[:], s.eyes[:], s.current_player, len(s.history))
    res = solve(s)
    assert res.value in (-3, -2, -1, 1, 2, 3)
    assert set(res.best_actions) <= set(s.legal_actions())
    assert (s.hands, s.eyes, s.current_player, len(s.history)) == before


def test_terminal_state_is_rejected():
    s = GameState.from_seed(Rules.preset("schnapsen"), seed=3)
    while not s.is_terminal:
        s.apply(s.legal_actions()[0])
    with pytest.raises(ValueError, match="terminal"):
        solve(s)
    with pytest.raises(ValueError, match="terminal"):
        solver.action_values(s)


def test_known_closing_position():
    """Closing at the first lead with a hopeless hand: the closer cannot reach 66 and the
    opponent has no trick, so closing costs 3 (RULES §5.3); the solver never prefers it
    unless everything loses 3."""
    rules = Rules.preset("schnapsen")
    for seed in range(5):
        s = GameState.from_seed(rules, seed=seed)
        vals = solver.action_values(s)
        if 29 in vals:
            c = s.clone()
            c.apply(29)
            # after closing, the value for the closer is either a success (scale at closing:
            # opponent had no trick and 0 eyes, so 3) or a failure costing 3
            assert vals[29] in (-3, 3)


def test_fallback_without_core_warns_once(monkeypatch):
    s = positions(Rules.preset("schnapsen"), seed=17, count=1, max_hand=3)[0]
    expected = solve_reference(s)
    monkeypatch.setattr(solver, "_core", None)
    monkeypatch.setattr(solver, "_warned", False)
    with pytest.warns(RuntimeWarning, match="_solver_core"):
        assert solve(s) == expected
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert solver.action_values(s) == action_values_reference(s)
    assert not solver.core_available()


@needs_core
@pytest.mark.parametrize("closers", [(0,), (1,), ()])
def test_closers_restrict_closing_in_core_and_python_alike(closers):
    """``closers`` lists who may close in the search: the core and the Python search agree,
    the root drops CLOSE for a player not listed, and taking the opponent's closes away
    never lowers the value for the player to move (a min node with fewer choices)."""
    rules = Rules.preset("schnapsen")
    for s in talon_positions(rules, seed=16, count=8, max_talon=4):
        if s.closed_by >= 0:
            continue
        p = s.current_player
        vals = solver.action_values_core(s, closers)
        assert vals == action_values_python(s, closers), s
        assert solver.solve_core(s, closers) == solve_python(s, closers), s
        assert (29 in vals) == (p in closers and 29 in s.legal_actions())
        if closers == (p,):
            full = solver.action_values(s)
            assert all(vals[a] >= full[a] for a in vals)
