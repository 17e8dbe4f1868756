"""OpponentModelAgent (agents/ismcts.py, spec ``ismcts``): legal, reproducible choices that
depend only on the information set (RULES §8), and its parameter checks."""

from __future__ import annotations

import random

import pytest

from agents import make_agent, solver
from agents.ismcts import OpponentModelAgent, modelled_decisions, opponent_view_before_lead
from schnapsen_env import VARIANTS, GameState, Rules

#: a small iteration budget keeps the tests fast
SMALL = 6
#: the agent searches once the face-down talon is this short (random moves before)
SEARCH_TALON = 5


def _random_state(rules: Rules, seed: int, moves: int) -> GameState:
    rng = random.Random(seed)
    s = GameState.from_seed(rules, seed=seed)
    for _ in range(moves):
        if s.is_terminal:
            break
        s.apply(rng.choice(s.legal_actions()))
    return s


@pytest.mark.parametrize("variant", VARIANTS)
def test_legal_actions_over_random_play(variant):
    rules = Rules.preset(variant)
    agent = OpponentModelAgent(samples=SMALL, seed=1, prior="heuristic")
    rng = random.Random(5)
    for game in range(2):
        s = GameState.from_seed(rules, seed=game)
        while not s.is_terminal:
            p = s.current_player
            searched = p == 0 and s.talon_size <= SEARCH_TALON  # early full-deal solves are slow (24 cards)
            a = agent.act(s.information_set(p)) if searched else rng.choice(s.legal_actions())
            assert a in s.legal_actions()
            s.apply(a)


def _following_state(seed: int) -> GameState:
    """A phase-1 state where player to move follows a lead of the opponent."""
    for k in range(seed, seed + 200):
        s = _random_state(Rules.preset("schnapsen"), k, 1 + k % 5)
        if not s.is_terminal and s.lead_card >= 0 and s.talon_size > 2:
            return s
    raise AssertionError("no following state found")


def test_reproducible_with_seed():
    s = _following_state(3)
    info = s.information_set(s.current_player)
    a1 = OpponentModelAgent(samples=SMALL, seed=9, prior="heuristic").act(info)
    a2 = OpponentModelAgent(samples=SMALL, seed=9, prior="heuristic").act(info)
    assert a1 == a2
    agent = OpponentModelAgent(samples=SMALL, seed=9, prior="heuristic")
    w1 = agent.weighted_worlds(info)
    agent.reset()
    assert agent.weighted_worlds(info) == w1


def test_same_decision_when_hidden_cards_are_swapped():
    s = _following_state(11)
    me, opp = s.current_player, 1 - s.current_player
    t = s.clone()
    hidden_hand = [c for c in range(32) if t.hands[opp] >> c & 1 and not t.known[opp] >> c & 1]
    talon = list(t.talon)
    pos = t.talon_pos
    c_hand, c_talon = hidden_hand[0], talon[pos]
    t.hands[opp] = t.hands[opp] & ~(1 << c_hand) | (1 << c_talon)
    talon[pos] = c_hand
    t.talon = tuple(talon)
    t._mask = None
    i1, i2 = s.information_set(me), t.information_set(me)
    assert i1 == i2 and s.hands[opp] != t.hands[opp]
    a1 = OpponentModelAgent(samples=SMALL, seed=4, prior="heuristic").act(i1)
    a2 = OpponentModelAgent(samples=SMALL, seed=4, prior="heuristic").act(i2)
    assert a1 == a2


def test_the_only_winning_card_in_phase_2():
    """Talon used up: the opponent's hand is known (one world); when exactly one card wins the
    game (the exact solver says so), the agent plays it."""
    rules = Rules.preset("schnapsen")
    found = 0
    for seed in range(400):
        s = _random_state(rules, seed, 10)
        if s.is_terminal or s.talon_size or s.trump_card >= 0 or len(s.legal_actions()) < 2:
            continue
        vals = solver.action_values(s)
        winners = [a for a, v in vals.items() if v > 0]
        if len(winners) != 1:
            continue
        info = s.information_set(s.current_player)
        assert OpponentModelAgent(samples=SMALL, seed=0, prior="heuristic").act(info) == winners[0]
        found += 1
        if found == 3:
            break
    assert found


def test_opponent_view_before_lead_is_their_real_view():
    """In the true world, the rebuilt view equals the opponent's real information set before the lead."""
    for seed in range(50):
        s = _random_state(Rules.preset("schnapsen"), seed, seed % 7)
        if s.is_terminal or s.lead_card >= 0:
            continue
        before = s.information_set(s.current_player)
        s.apply(min(a for a in s.legal_actions() if a < 20))
        me = s.current_player
        info = s.information_set(me)
        assert modelled_decisions(info) == [(s.lead_card, 0)]
        view = opponent_view_before_lead(info, s.hands[1 - me], tuple(s.talon[s.talon_pos:]))
        assert view == before


def test_ppo_prior_plays_legally():
    pytest.importorskip("torch")
    agent = make_agent("ismcts:samples=4", seed=2)
    s = _following_state(21)
    info = s.information_set(s.current_player)
    assert agent.act(info) in info.legal_actions


@pytest.mark.parametrize("kwargs, message", [
    ({"samples": 0}, "samples must be an int in 1..10000"),
    ({"samples": 2.5}, "samples must be an int"),
    ({"prior": "expert"}, "prior must be one of ppo, heuristic, none"),
    ({"floor": 0}, "floor must be a number with 0 < floor < 1"),
    ({"floor": 1.5}, "floor must be a number in [0, 1]"),
    ({"temperature": -1}, "temperature must be a number in [0, 10]"),
    ({"temperature": True}, "temperature must be a number"),
    ({"objective": "eyes"}, "objective must be one of win, points"),
    ({"close_min_win": 2}, "close_min_win must be a number in [0, 1]"),
])
def test_parameter_validation(kwargs, message):
    with pytest.raises(ValueError) as e:
        OpponentModelAgent(**kwargs)
    assert message in str(e.value)
    with pytest.raises(ValueError):
        make_agent("ismcts:" + ",".join(f"{k}={v}" for k, v in kwargs.items()))


def test_ppo_prior_without_torch_is_an_import_error_at_construction(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a))
    with pytest.raises(ImportError, match="prior=ppo needs torch"):
        OpponentModelAgent()
    assert OpponentModelAgent(prior="heuristic").prior == "heuristic"
