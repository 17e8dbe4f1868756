"""GuidedPIMCAgent (agents/guided.py): replayed pasts, policy weights, parity with PIMC, seeding."""

from __future__ import annotations

import math
import random

import pytest

torch = pytest.importorskip("torch")  # the [train] extra; absent in the lower-bounds CI job

from agents import make_agent  # noqa: E402
from agents.guided import GuidedPIMCAgent, Timeline, replay_deal  # noqa: E402
from agents.neural import ActorCritic, Policy, PPOAgent  # noqa: E402
from agents.pimc import PIMCAgent, consistent_worlds  # noqa: E402
from schnapsen_env import VARIANTS, GameState, Rules  # noqa: E402
from schnapsen_env.cards import card_to_str, iter_cards  # noqa: E402
from schnapsen_env.observation import OBS_SIZE  # noqa: E402
from helpers import deal, game_infos, make_deck, play  # noqa: E402


def uniform_policy() -> Policy:
    """A policy whose every legal action is equally likely (all logits 0)."""
    model = ActorCritic(OBS_SIZE)
    with torch.no_grad():
        for p in model.parameters():
            p.zero_()
    return Policy(model)


@pytest.mark.parametrize("rules", [Rules.preset(v) for v in VARIANTS], ids=list(VARIANTS))
def test_replayed_deal_reaches_the_information_set(rules):
    """Replaying the history from the rebuilt deal of the true world gives back the viewer's information set."""
    rng = random.Random(5)
    checked = 0
    for state, info in game_infos(rules, seed=3, games=15):
        if info.trump_card < 0:
            continue
        talon = tuple(state.talon[state.talon_pos :])
        replay = replay_deal(info, Timeline(info), state.hands[1 - info.player], talon, rng)
        for _, a in info.history:
            replay.apply(a)
        assert replay.information_set(info.player) == info
        checked += 1
    assert checked > 100


def test_weights_are_the_policy_probabilities_of_the_opponents_actions():
    """Hand-checked: the opponent (forehand) announced hearts and led the king; each world's log-likelihood is
    log pi(marriage H) + log pi(KH) of the shipped policy in the deal that world makes."""
    state = play(deal("KH QH AS TC JD", "AH TH KS QC JC", "TD", dealer=1), "marriage H", "play KH")
    info = state.information_set(1)
    agent = GuidedPIMCAgent(samples=4, candidates=6, seed=2)
    worlds, _ = consistent_worlds(info, 6, True, random.Random(1))
    logs = agent.log_likelihoods(info, worlds)
    ppo = PPOAgent()
    for (hand, talon), log in zip(worlds, logs):
        fore = [card_to_str(c) for c in iter_cards(hand | 1 << state.history[1][1])]
        world = GameState(info.rules, make_deck(fore, "AH TH KS QC JC", "TD", [card_to_str(c) for c in talon]), 1)
        expected = 0.0
        for _, a in state.history:
            expected += math.log(ppo.policy(world.information_set(0))[a])
            world.apply(a)
        assert log == pytest.approx(expected, abs=1e-4)
    assert len(set(round(x, 4) for x in logs)) > 1  # the worlds differ


def test_power_zero_and_uniform_policy_play_as_pimc():
    """``power=0``, or a policy uniform over the legal actions wherever it weighs all worlds alike, gives
    plain PIMC's (``lead_inference=1``) worlds, statistics and actions with the same seed."""
    rules = Rules.preset("schnapsen")
    uniform_same = 0
    for i, (_, info) in enumerate(game_infos(rules, seed=11, games=4)):
        if len(info.legal_actions) < 2:
            continue
        pimc = PIMCAgent(samples=10, seed=i, lead_inference=1.0)
        expected = pimc.action_stats(info)
        for power in (0.0, 1.0):
            guided = GuidedPIMCAgent(samples=10, candidates=10, seed=i, lead_inference=1.0, power=power)
            guided.guide = uniform_policy()
            weights = guided.weighted_worlds(info)[1]
            if power == 0.0 or len(set(weights)) == 1:
                guided.reset(i)
                assert guided.action_stats(info) == expected
                guided.reset(i)
                assert guided.act(info) == PIMCAgent(samples=10, seed=i, lead_inference=1.0).act(info)
                uniform_same += power == 1.0
    assert uniform_same > 20


def test_same_seed_same_decisions_and_spec():
    rules = Rules.preset("schnapsen")
    infos = [info for _, info in game_infos(rules, seed=4, games=2) if len(info.legal_actions) > 1]
    a = make_agent("guided:samples=8,candidates=24,guide=ppo", seed=9)
    b = make_agent("guided:samples=8,candidates=24", seed=9)
    assert [a.act(x) for x in infos] == [b.act(x) for x in infos]
    with pytest.raises(ValueError, match="candidates"):
        make_agent("guided:candidates=0")
    with pytest.raises(ValueError, match="no checkpoint"):
        make_agent("guided:guide=missing.pt")
