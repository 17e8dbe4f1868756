"""A short in-process run of benchmarks/soak.py: 5,000 seeded random games over
every preset must finish with no failure (RULES §2–§5 invariants)."""

import importlib.util
import pathlib
import sys

from schnapsen_env.engine import GameState, InvalidStateError
from schnapsen_env.rules import Rules

_PATH = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "soak.py"
sys.path.insert(0, str(_PATH.parent))  # the script's own import of _common
_spec = importlib.util.spec_from_file_location("soak", _PATH)
soak = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("soak", soak)  # dataclasses need their module registered
_spec.loader.exec_module(soak)

SOAK_GAMES = 5_000


def test_soak_5000_games_all_presets_no_failure():
    res = soak.run_soak(SOAK_GAMES, seed=12345)
    assert res.games == SOAK_GAMES
    assert res.failures == [], res.failures[:3]
    # every reason that random play reaches shows up (renonce needs state.renonce)
    assert set(res.reasons) == {"declared_66", "last_trick", "closing_failed", "false_declaration"}
    assert sum(res.reasons.values()) == SOAK_GAMES


def test_soak_main_exit_status_and_output(capsys):
    assert soak.main(["--games", "50", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "games/s" in out and "no failures" in out


def test_soak_reports_a_broken_invariant():
    """The checker is not vacuous: a corrupted finished state is reported."""
    import random

    state = GameState.from_seed(Rules(), seed=3)
    rng = random.Random(3)
    while not state.is_terminal:
        state.apply(rng.choice(state.legal_actions()))
    assert soak.end_problems(state) == []
    state.hands[0] |= 1 << state.tricks[0].lead  # a card in two places
    try:
        problems = soak.end_problems(state)
    except InvalidStateError as e:  # the engine's own check may see it first
        problems = [str(e)]
    assert any("card" in p for p in problems), problems
