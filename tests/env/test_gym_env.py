"""The Gymnasium single-agent view: opponents, seats, rewards, masks, illegal actions (check_env runs in
test_conformance.py)."""

import random
import re

import gymnasium
import numpy as np
import pytest

import schnapsen_env  # noqa: F401  (registers the environments)
from schnapsen_env import IllegalActionError
from schnapsen_env.actions import action_to_str
from schnapsen_env.gym_env import SchnapsenGymEnv
from schnapsen_env.observation import OBS_SIZE

ENV_ID = "schnapsen_env/Schnapsen-v0"


def _episode(env, seed, rng):
    obs, info = env.reset(seed=seed)
    total, steps = 0.0, 0
    while True:
        mask = env.unwrapped.action_masks()
        assert mask.dtype == bool and mask.any()
        np.testing.assert_array_equal(mask, info["action_mask"].astype(bool))
        assert obs.shape == (OBS_SIZE,) and obs.dtype == np.float32
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        total += reward
        steps += 1
        assert not truncated
        if terminated:
            return total, info, steps


@pytest.mark.parametrize("seat", ["player_0", "player_1", "random"])
def test_random_episodes_reward_the_learner(seat):
    env = gymnasium.make(ENV_ID, opponent="random", seat=seat)
    rng = random.Random(0)
    seats = set()
    for g in range(20):
        total, info, _ = _episode(env, g, rng)
        learner = env.unwrapped.learner
        seats.add(learner)
        outcome = info["outcome"]
        sign = 1 if outcome["winner"] == int(learner[-1]) else -1
        assert total == sign * outcome["game_points"]
    assert seats == ({"player_0", "player_1"} if seat == "random" else {seat})


def test_bummerl_episode_reward():
    env = gymnasium.make(ENV_ID, episode="bummerl")
    total, _, steps = _episode(env, 3, random.Random(3))
    b = env.unwrapped.aec_env.bummerl
    assert b.is_over and steps > 10
    assert total == (b.value if b.winner == int(env.unwrapped.learner[-1]) else -b.value)


def test_opponent_kinds():
    calls = []

    def first_legal(info):
        calls.append(info.player)
        return info.legal_actions[0]

    env = gymnasium.make(ENV_ID, opponent=first_legal, seat="player_1")
    _episode(env, 0, random.Random(0))
    assert calls and set(calls) == {0}

    agents = pytest.importorskip("agents")
    heuristic = agents.make_agent("heuristic", seed=1)
    env = gymnasium.make(ENV_ID, opponent=heuristic)
    _episode(env, 1, random.Random(1))
    env = gymnasium.make(ENV_ID, opponent="heuristic")
    _episode(env, 2, random.Random(2))


def test_illegal_actions_and_bad_opponents():
    env = SchnapsenGymEnv(illegal_action="raise")
    _, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    env = SchnapsenGymEnv()  # default renonce: the learner loses 3 game points
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(illegal)
    assert terminated and reward == -3 and info["outcome"]["reason"] == "renonce"
    assert info["outcome"]["illegal_action"] == action_to_str(illegal)
    bad = SchnapsenGymEnv(opponent=lambda info: 31, seat="player_1")
    with pytest.raises(ValueError, match="opponent"):
        for seed in range(10):  # the opponent leads in about half of the deals
            bad.reset(seed=seed)
            bad.step(int(np.flatnonzero(bad.action_masks())[0]))


@pytest.mark.parametrize(("action", "shown"), [(6.7, "6.7"), (np.float32(6.5), repr(np.float32(6.5))), ("6", "'6'")])
def test_non_integer_actions_are_refused_naming_them_and_change_nothing(action, shown):
    env = SchnapsenGymEnv()
    env.reset(seed=0)
    before = env.record()
    with pytest.raises(IllegalActionError, match=rf"^illegal action {re.escape(shown)}: not an action id \(allowed"):
        env.step(action)
    assert env.record() == before


def test_a_step_before_reset_or_after_the_episode_says_to_call_reset():
    env = SchnapsenGymEnv(seat="player_1")
    message = r"^SchnapsenGymEnv\.step\(\) before reset\(\) or after the episode ended: call reset\(\) first$"
    with pytest.raises(RuntimeError, match=message):
        env.step(0)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(env.action_masks() == 0)[0])
    assert env.step(illegal)[2]  # a renonce ends it
    with pytest.raises(RuntimeError, match=message):
        env.step(illegal)


@pytest.mark.parametrize(
    "opponent, words",
    [
        ("nonsense", "unknown agent 'nonsense'"),
        ("random:seed=abc", "seed must be None or a non-negative int"),
        (3.5, "bad value 3.5"),
    ],
)
def test_bad_opponent_names_the_keyword_and_the_allowed_forms(opponent, words):
    with pytest.raises(ValueError) as e:
        gymnasium.make(ENV_ID, opponent=opponent)
    msg = str(e.value)
    assert f"bad value {opponent!r} for 'opponent'" in msg and words in msg
    assert "allowed an agent spec string" in msg and "'heuristic'" in msg and "callable" in msg


def test_numpy_int_opponent_actions_are_accepted():
    env = SchnapsenGymEnv(opponent=lambda info: np.int64(info.legal_actions[0]), seat="player_1")
    obs, info = env.reset(seed=0)
    assert info["action_mask"].any() and len(env.aec_env.game.history) >= 1
