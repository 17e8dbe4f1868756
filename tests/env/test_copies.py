"""Copies keep the game: deepcopy and pickle mid-game, and the copy continues exactly like the original.

Covers the AEC env (``env()`` and ``raw_env``), the Gymnasium view (with agent
opponents, whose generators travel with the copy), ``GameState`` and the
Bummerl. The first build's ``raw_env`` pickled only its constructor arguments
(``EzPickle``), so a copy had no game.
"""

import copy
import pickle
import random

import gymnasium
import numpy as np
import pytest

import schnapsen_env  # noqa: F401  (registers the environments)
from schnapsen_env import GameState, Rules, schnapsen_v0

ENV_ID = "schnapsen_env/Schnapsen-v0"
COPIES = {"deepcopy": copy.deepcopy, "pickle": lambda x: pickle.loads(pickle.dumps(x))}


def aec_trace(env, rng: random.Random, max_steps: int = 2000) -> list:
    """Play ``env`` to the end with ``rng``; every step's (agent, observation, mask, reward, flags)."""
    trace = []
    for agent in env.agent_iter(max_iter=max_steps):
        obs, reward, terminated, truncated, info = env.last()
        trace.append((agent, obs["observation"].tolist(), obs["action_mask"].tolist(), reward, terminated, truncated))
        if terminated or truncated:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return trace


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("make", [schnapsen_v0.env, schnapsen_v0.raw_env])
@pytest.mark.parametrize("episode", ["game", "bummerl"])
def test_aec_env_copy_continues_like_the_original(make, how, episode):
    env = make(variant="schnapsen-sharp", episode=episode)
    env.reset(seed=11)
    rng = random.Random(3)
    for _ in range(9):  # mid-game (and, for a Bummerl, mid-episode)
        obs = env.last()[0]
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    twin = COPIES[how](env)
    assert twin.agent_selection == env.agent_selection
    assert twin.unwrapped.game.history == env.unwrapped.game.history
    state = rng.getstate()
    original = aec_trace(env, rng)
    rng.setstate(state)
    assert aec_trace(twin, rng) == original
    assert len(original) > 5


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("make", [schnapsen_v0.env, schnapsen_v0.raw_env])
def test_aec_env_copy_before_reset_can_be_reset(make, how):
    twin = COPIES[how](make(variant="sechsundsechzig"))
    twin.reset(seed=2)
    assert twin.unwrapped.rules.deck == 24
    assert twin.last()[0]["action_mask"].any()


def gym_trace(env, rng: random.Random) -> list:
    trace = []
    while True:
        mask = env.unwrapped.action_masks()
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        trace.append((obs.tolist(), reward, terminated, info["action_mask"].tolist()))
        if terminated or truncated:
            return trace + [info["outcome"]]


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("opponent", ["random", "heuristic", "pimc:samples=4"])
def test_gym_view_copy_continues_like_the_original(opponent, how):
    env = gymnasium.make(ENV_ID, opponent=opponent, seat="random", episode="bummerl", bummerl_target=2)
    env.reset(seed=5)
    rng = random.Random(8)
    env.step(int(rng.choice(np.flatnonzero(env.unwrapped.action_masks()))))
    twin = COPIES[how](env)
    state = rng.getstate()
    original = gym_trace(env, rng)
    rng.setstate(state)
    assert gym_trace(twin, rng) == original
    # and the copies' next episodes (unseeded resets continue every stream) agree too
    a, b = env.reset()[1], twin.reset()[1]
    assert a["seat"] == b["seat"] and (a["action_mask"] == b["action_mask"]).all()


@pytest.mark.parametrize("how", COPIES)
def test_game_state_copy_continues_like_the_original(how):
    rules = Rules.preset("sechsundsechzig")
    state = GameState.from_seed(rules, 4)
    rng = random.Random(1)
    for _ in range(7):
        state.apply(rng.choice(state.legal_actions()))
    twin = COPIES[how](state)
    twin.validate()
    while not state.is_terminal:
        assert twin.legal_actions() == state.legal_actions()
        action = rng.choice(state.legal_actions())
        state.apply(action)
        twin.apply(action)
    assert twin.outcome == state.outcome
    assert twin.history == state.history
