"""OpponentModelAgent (agents/players/pimc_om.py, spec ``pimc-om``): legal, reproducible choices that
depend only on the information set (RULES §8), and its parameter checks."""

from __future__ import annotations

import random

import pytest

from agents import make_agent
from agents.players import solver
from agents.players.pimc_om import OpponentModelAgent, modelled_decisions, opponent_view_before_lead
from agents.players.pimc import PIMCAgent
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
        view = opponent_view_before_lead(info, s.hands[1 - me], tuple(s.talon[s.talon_pos :]))
        assert view == before


def test_ppo_prior_plays_legally():
    pytest.importorskip("torch")
    agent = make_agent("pimc-om:samples=4", seed=2)
    s = _following_state(21)
    info = s.information_set(s.current_player)
    assert agent.act(info) in info.legal_actions


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"prior": "expert"}, "prior\n  Input should be 'ppo', 'heuristic', 'pimc' or 'none'"),
        ({"max_samples": 10, "samples": 20}, "max_samples must be at least samples (20), got 10"),
        (
            {"prior": "none", "prior_samples": 5},
            "prior_samples and model_talon set the pimc prior: they need prior=pimc",
        ),
    ],
)
def test_parameter_validation(kwargs, message):
    with pytest.raises(ValueError) as e:
        OpponentModelAgent(**kwargs)
    assert message in str(e.value)
    with pytest.raises(ValueError):
        make_agent("pimc-om:" + ",".join(f"{k}={v}" for k, v in kwargs.items()))


def test_world_cap_grows_per_trick():
    """``samples * growth ** tricks_played``, capped at ``max_samples``."""
    agent = OpponentModelAgent(samples=40, prior="none")
    s = GameState.from_seed(Rules.preset("schnapsen"), seed=1)
    caps = []
    while len(caps) < 4:
        info = s.information_set(s.current_player)
        if s.lead_card < 0:
            caps.append(agent.world_cap(info))
        s.apply(min(s.legal_actions()))  # lowest ids: cards, never close
    assert caps == [40, 100, 250, 400]
    assert OpponentModelAgent(samples=40, max_samples=40, prior="none").world_cap(info) == 40


def test_fixed_budget_without_prior_is_pimc():
    """max_samples == samples and prior none: exactly PIMC's statistics (same seed, same worlds)."""
    checked = 0
    for seed in range(30):
        s = _random_state(Rules.preset("schnapsen"), seed, 6 + seed % 5)
        if s.is_terminal:
            continue
        info = s.information_set(s.current_player)
        ours = OpponentModelAgent(samples=8, max_samples=8, prior="none", seed=3).action_stats(info)
        theirs = PIMCAgent(samples=8, seed=3).action_stats(info)
        assert ours.keys() == theirs.keys()
        for a in theirs:
            assert ours[a] == pytest.approx(theirs[a])
        checked += 1
    assert checked > 10


def _modelled_lead_state() -> GameState:
    """A phase-1 state (talon of one card) where the player to move follows the opponent's lead."""
    s = _random_state(Rules.preset("schnapsen"), 8, 9)
    assert s.lead_card >= 0 and s.closed_by < 0 and s.talon_size == 1
    return s


def test_pimc_prior_weights_are_the_models_choice():
    """prior=pimc: a world's weight is PIMC's weight times 1 - floor when a PIMC(prior_samples) model in
    the opponent's rebuilt view (seed 0) leads the card they led, else times floor."""
    s = _modelled_lead_state()
    info = s.information_set(s.current_player)
    ((card, _),) = modelled_decisions(info)
    agent = OpponentModelAgent(samples=40, prior="pimc", seed=1)
    worlds, weights = agent.weighted_worlds(info)
    base_worlds, base_weights = PIMCAgent(samples=agent.world_cap(info), seed=1).weighted_worlds(info)
    assert worlds == base_worlds and len(worlds) == 5  # few enough to enumerate them all
    seen = set()
    for (hand, talon), w, w0 in zip(worlds, weights, base_weights):
        model = PIMCAgent(samples=agent.prior_samples, seed=0)
        plays = model.act(opponent_view_before_lead(info, hand, talon)) == card
        assert w == pytest.approx(w0 * (0.95 if plays else 0.05))
        seen.add(plays)
    assert seen == {True, False}  # the play tells worlds apart here
    # too long a talon to model (model_talon=0): PIMC's weights
    agent0 = OpponentModelAgent(samples=40, prior="pimc", seed=1, model_talon=0)
    assert agent0.weighted_worlds(info) == (base_worlds, base_weights)


def test_more_worlds_only_while_the_choice_is_unclear():
    """The adaptive budget checks after each batch of ``samples`` worlds and stops at a clear lead:
    stop_z=0 stops at the first check, stop_z=10 goes on to all 5 worlds (checks at 2, 4, 5)."""
    s = _modelled_lead_state()
    info = s.information_set(s.current_player)
    solved = {}
    for stop_z in (0.0, 10.0):
        agent = OpponentModelAgent(samples=2, prior="none", seed=5, stop_z=stop_z)
        sizes = []
        real = agent._stats_of
        agent._stats_of = lambda legal, preludes, rows, sizes=sizes, real=real: (
            sizes.append(len(rows)) or real(legal, preludes, rows)
        )
        stats = agent.action_stats(info)
        assert set(stats) == set(info.legal_actions)
        solved[stop_z] = sizes
    assert solved == {0.0: [2], 10.0: [2, 4, 5]}


def test_the_old_name_ismcts_still_makes_this_agent_with_a_future_warning():
    with pytest.warns(FutureWarning, match="agent name 'ismcts' is now 'pimc-om'"):
        agent = make_agent("ismcts:samples=4", seed=2)
    assert isinstance(agent, OpponentModelAgent) and agent.samples == 4
