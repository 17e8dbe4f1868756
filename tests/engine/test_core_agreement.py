"""The compiled solver core (agents/players/csrc/rules.c) agrees with the rules engine state by state
(RULES §3–§5, §7): it is an accelerator, not a second rules authority. The checker is
benchmarks/core_agreement.py (run it for 1,000,000 states); here 100,000 states over every
preset, and the by-name interface of the core (GameState and Rules fields, game constants)."""

from __future__ import annotations

import importlib.util
import pathlib
import sys

import pytest

from agents.players import solver
from schnapsen_env import VARIANTS, GameState, Rules

_PATH = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "core_agreement.py"
sys.path.insert(0, str(_PATH.parent))  # the script's own import of _common
_spec = importlib.util.spec_from_file_location("core_agreement", _PATH)
agreement = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("core_agreement", agreement)  # dataclasses need their module registered
_spec.loader.exec_module(agreement)

pytestmark = pytest.mark.skipif(not solver.core_available(), reason="compiled core not built")

AGREEMENT_STATES = 100_000


def test_core_legal_masks_and_outcomes_agree_with_engine_on_100000_states():
    res = agreement.run_agreement(AGREEMENT_STATES, seed=0)
    assert res.states == AGREEMENT_STATES
    assert res.disagreements == [], res.disagreements[:3]
    # every preset is played, and every rule set gets a real share of the states
    assert set(VARIANTS) <= set(res.per_rule_set)
    assert min(res.per_rule_set.values()) >= AGREEMENT_STATES // (4 * len(res.per_rule_set))
    assert res.actions > 3 * res.states  # every legal action is stepped, not only the one played


class _BrokenCore:
    """The real core with one wrong rule: a marriage in trump counts like a plain one."""

    def __init__(self, ext):
        self.ext = ext
        self.legal_mask = ext.legal_mask

    def step(self, rules, state, action):
        out = self.ext.step(rules, state, action)
        if action == 24 + state.trump_suit and out is None:  # the trump marriage (MARRIAGE_BASE + suit)
            return (state.current_player, 1)
        return out

    def step_fields(self, rules, state, action):
        return self.ext.step_fields(rules, state, action)


def test_agreement_check_reports_a_core_that_breaks_a_rule(monkeypatch):
    """The checker is not vacuous: a core that disagrees with the engine is reported."""
    monkeypatch.setattr(solver, "_ext", _BrokenCore(solver._ext))
    res = agreement.run_agreement(3_000, seed=1, rule_sets={"schnapsen": Rules.preset("schnapsen")})
    assert res.disagreements
    name, game_seed, history, diffs = res.disagreements[0]
    assert name == "schnapsen" and "core outcome" in diffs[0]
    # the record replays: the deal and the actions reach the state
    s = GameState.from_seed(Rules.preset("schnapsen"), game_seed)
    for a in history:
        s.apply(a)
    assert s.legal_mask() >> (24 + s.trump_suit) & 1


def test_benchmark_main_prints_states_disagreements_and_time(capsys):
    assert agreement.main(["--states", "500", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "`python benchmarks/core_agreement.py --states 500`: 0 disagreements in 500 states" in out


# ------------------------------------------------------------------ the by-name interface
def _core():
    return solver._ext


def test_core_reads_game_state_fields_by_name_and_validates_them():
    """An object with GameState's field names but no GameState.validate() is refused: the rule set of a
    possible state is GameState's, checked on every state that enters the core."""
    s = GameState.from_seed(Rules.preset("schnapsen"), seed=4)

    class Fields:
        pass

    dup = Fields()
    for name in agreement.FIELDS:
        setattr(dup, name, getattr(s, name))
    with pytest.raises(TypeError, match=r"must be a schnapsen_env GameState \(it has no validate\(\)\), got Fields"):
        _core().legal_mask(s.rules, dup, 3)
    assert _core().legal_mask(s.rules, s, 3) == s.legal_mask()


@pytest.mark.parametrize(
    "field, value, error, match",
    [
        ("hands", None, TypeError, r"GameState field 'hands' must be a list or tuple of 2 ints"),
        ("hands", [1, 2, 3], TypeError, r"'hands'"),
        ("eyes", [0, "x"], TypeError, r"GameState field 'eyes' must be an int, got str"),
        ("talon_pos", 99, ValueError, r"GameState field 'talon_pos' must be in 0\.\.9, got 99"),
        ("talon", "abc", TypeError, r"GameState field 'talon' must be a list or tuple of at most 12 ints"),
        ("trump_suit", 4, ValueError, r"'trump_suit' must be in 0\.\.3"),
        ("current_player", 2.0, TypeError, r"'current_player' must be an int, got float"),
        ("closed_opponent_eyes", 2**80, ValueError, r"'closed_opponent_eyes' must be in"),
    ],
)
def test_core_names_an_ill_typed_state_field(field, value, error, match):
    s = GameState.from_seed(Rules(), seed=1)
    setattr(s, field, value)
    with pytest.raises(error, match=match):
        _core().legal_mask(s.rules, s, 3)
    with pytest.raises(error, match=match):
        _core().solve(s.rules, s, 3)


def test_core_names_a_missing_field():
    s = GameState.from_seed(Rules(), seed=1)
    with pytest.raises(TypeError, match=r"GameState has no field 'hands' .*got int"):
        _core().legal_mask(s.rules, 7, 3)
    with pytest.raises(TypeError, match=r"Rules has no field 'sharp' .*got dict"):
        _core().legal_mask({}, s, 3)


def test_core_checks_closers_and_terminal_states():
    s = GameState.from_seed(Rules(), seed=1)
    with pytest.raises(ValueError, match="closers must be a bitmask in 0..3"):
        _core().legal_mask(s.rules, s, 4)
    with pytest.raises(ValueError, match="is not legal in this state"):
        _core().step(s.rules, s, 30)  # declare under declare="auto"
    while not s.is_terminal:
        s.apply(s.legal_actions()[0])
    assert _core().legal_mask(s.rules, s, 3) == 0 == s.legal_mask()
    with pytest.raises(ValueError, match="the game is over"):
        _core().step(s.rules, s, 0)
    with pytest.raises(ValueError, match="terminal"):
        _core().solve(s.rules, s, 3)


def test_core_takes_the_game_constants_from_schnapsen_env():
    consts = solver.core_constants()
    _core().configure(consts)  # the values agents.players.solver passed at import: accepted again
    with pytest.raises(RuntimeError, match="compiled for NUM_ACTIONS = 31 but schnapsen_env has 32"):
        _core().configure({**consts, "NUM_ACTIONS": 32})
    with pytest.raises(ValueError, match="unknown constant 'EYES_TO_LOSE'"):
        _core().configure({**consts, "EYES_TO_LOSE": 1})
    missing = dict(consts)
    del missing["SCHNEIDER_EYES"]
    with pytest.raises(ValueError, match="missing constant 'SCHNEIDER_EYES'"):
        _core().configure(missing)
    # the rule numbers are Python's: an action that reaches 66 ends the game, unless 66 is not enough
    seed = 0
    while True:
        s = GameState.from_seed(Rules(), seed)
        while not s.is_terminal:
            a = s.legal_actions()[-1]  # marriages first: games reach 66 quickly
            before = s.clone()
            s.apply(a)
        if s.outcome.reason == "declared_66":
            break
        seed += 1
    assert _core().step(before.rules, before, a) == (s.outcome.winner, s.outcome.game_points)
    try:
        _core().configure({**consts, "EYES_TO_WIN": 200})
        assert _core().step(before.rules, before, a) is None
    finally:
        _core().configure(consts)
    assert _core().step(before.rules, before, a) == (s.outcome.winner, s.outcome.game_points)
