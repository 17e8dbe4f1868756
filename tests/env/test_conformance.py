"""One conformance matrix over every env surface and every preset of Rules (RULES §7): PettingZoo's
api_test, seed_test, render_test and state checks on the AEC env, Gymnasium's check_env on the
single-agent view, and the vector checks (masked random play: shapes, dtypes, non-empty masks of live
games, rewards only at a game's end and worth 1 to 3 game points; the same seed gives the same games) on
the Gymnasium vector envs (sync, async, the batched ``make_vec`` entry point) and the self-play
``SchnapsenVectorEnv``. Then the keyword and seed refusals of every surface."""

import re
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, render_test, seed_test
from pettingzoo.test.state_test import test_state as pz_state_check
from pettingzoo.test.state_test import test_state_space as pz_state_space_check

import schnapsen_env  # noqa: F401  (registers the environments)
from schnapsen_env import VARIANTS, schnapsen_v0
from schnapsen_env.actions import NUM_ACTIONS
from schnapsen_env.observation import OBS_SIZE

ENV_ID = "schnapsen_env/Schnapsen-v0"
NUM_ENVS, STEPS = 4, 150
# PettingZoo's api_test whitelists its own dict-observation classic envs by name; any other env
# with a Dict observation gets these two advisory warnings
KNOWN_WARNINGS = ("Observation space for each agent probably should be", "Observation is not a NumPy array")


def _no_unexpected_warnings(caught):
    assert [str(w.message) for w in caught if not str(w.message).startswith(KNOWN_WARNINGS)] == []


@pytest.mark.parametrize("episode", ["game", "bummerl"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_pettingzoo_api_seed_and_render(variant, episode):
    def make(render_mode=None):
        return schnapsen_v0.env(variant=variant, episode=episode, render_mode=render_mode)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(make(), num_cycles=300)
        seed_test(make, num_cycles=300)
        render_test(make)
    _no_unexpected_warnings(caught)


@pytest.mark.parametrize("episode", ["game", "bummerl"])
def test_pettingzoo_state_checks(episode):
    # PettingZoo's state_test minus its parallel-env part (the env is turn-based, not parallel);
    # it samples unmasked actions, which env() answers with a renonce
    env = schnapsen_v0.env(episode=episode)
    pz_state_space_check(env)
    pz_state_check(env, num_cycles=300)


def test_pettingzoo_api_test_on_raw_env():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(schnapsen_v0.raw_env(), num_cycles=300)
    _no_unexpected_warnings(caught)


@pytest.mark.parametrize("episode", ["game", "bummerl"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_gymnasium_check_env(variant, episode):
    env = gymnasium.make(ENV_ID, variant=variant, episode=episode, seat="random", render_mode="ansi")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught] == []


def _make_vec(mode, variant):
    if mode == "batched":
        pytest.importorskip("torch")
        return gymnasium.make_vec(
            ENV_ID, num_envs=NUM_ENVS, vectorization_mode="vector_entry_point", opponent="random", variant=variant
        )
    return gymnasium.make_vec(
        ENV_ID, num_envs=NUM_ENVS, vectorization_mode=mode, opponent="random", variant=variant, illegal_action="raise"
    )


def _masked_random(rng, masks):
    return np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks], dtype=np.int64)


def _gym_vector_run(env, seed):
    """Masked random play; checks every step, returns the trajectory's observations and rewards."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    observations, rewards = [obs], []
    for _ in range(STEPS):
        masks = info["action_mask"]
        assert obs.shape == (NUM_ENVS, OBS_SIZE) and obs.dtype == np.float32
        assert masks.shape == (NUM_ENVS, NUM_ACTIONS)
        obs, reward, terminated, truncated, info = env.step(_masked_random(rng, masks))
        assert not truncated.any()
        np.testing.assert_array_equal(reward[~terminated], 0)
        assert set(np.abs(reward[terminated]).tolist()) <= {1.0, 2.0, 3.0}
        observations.append(obs)
        rewards.append(reward)
    assert np.asarray(rewards).any()  # some games ended
    return np.asarray(observations), np.asarray(rewards)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("mode", ["sync", "async", "batched"])
def test_gymnasium_vector_envs(mode, variant):
    env = _make_vec(mode, variant)
    try:
        assert env.single_observation_space.shape == (OBS_SIZE,) and env.single_action_space.n == NUM_ACTIONS
        first, again, other = (_gym_vector_run(env, seed) for seed in (3, 3, 4))
    finally:
        env.close()
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first[0], other[0])


@pytest.mark.parametrize("variant", VARIANTS)
def test_self_play_vector_env(variant):
    torch = pytest.importorskip("torch")
    from schnapsen_env.vector.env import SchnapsenVectorEnv

    def run(seed):
        env = SchnapsenVectorEnv(num_envs=NUM_ENVS, variant=variant, seed=seed)
        ts, gen, trajectory = env.reset(), torch.Generator().manual_seed(seed), []
        for _ in range(STEPS):
            assert ts.observation.shape == (NUM_ENVS, OBS_SIZE) and ts.observation.dtype == torch.float32
            assert ts.action_mask.any(dim=1).all()  # same-step autoreset: never an empty mask
            actions = torch.where(ts.action_mask, torch.rand(ts.action_mask.shape, generator=gen), -1.0).argmax(1)
            ts = env.step(actions)
            assert (ts.rewards.sum(dim=1) == 0).all() and (ts.rewards[~ts.terminated] == 0).all()
            assert set(ts.rewards[ts.terminated].abs().flatten().tolist()) <= {1.0, 2.0, 3.0}
            trajectory.append(ts.observation.clone())
        return torch.stack(trajectory)

    assert torch.equal(run(3), run(3)) and not torch.equal(run(3), run(4))


def _constructor(surface):
    if surface == "aec":
        return schnapsen_v0.env
    if surface == "gym":
        return lambda **kwargs: gymnasium.make(ENV_ID, **kwargs)
    pytest.importorskip("torch")
    from schnapsen_env.vector.env import SchnapsenVectorEnv, SchnapsenVectorGymEnv

    return SchnapsenVectorGymEnv if surface == "batched" else SchnapsenVectorEnv


BAD_KEYWORDS = [
    ({"varient": "schnapsen"}, "varient"),
    ({"variant": "skat"}, "variant"),
    ({"episode": "match"}, "episode"),
    ({"reward": "eyes"}, "reward"),
    ({"illegal_action": "ignore"}, "illegal_action"),
    ({"deck": 22}, "deck"),
    ({"declare": "sometimes"}, "declare"),
    ({"bummerl_target": 0}, "bummerl_target"),
]


@pytest.mark.parametrize("kwargs,key", BAD_KEYWORDS, ids=[key for _, key in BAD_KEYWORDS])
@pytest.mark.parametrize("surface", ["aec", "gym", "batched", "self-play"])
def test_a_bad_keyword_is_refused_in_one_line_naming_it_and_the_allowed_values(surface, kwargs, key):
    with pytest.raises(ValueError, match=re.escape(repr(key))) as e:
        _constructor(surface)(**kwargs)
    assert "allowed" in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("kwargs", [{"seat": "north"}, {"opponent": "nonsense"}, {"render_mode": "rgb_array"}])
@pytest.mark.parametrize("surface", ["aec", "gym", "batched"])
def test_view_keywords_are_refused_naming_them(surface, kwargs):
    (key,) = kwargs
    with pytest.raises(ValueError, match=re.escape(repr(key))):
        _constructor(surface)(**kwargs)


@pytest.mark.parametrize("seed", [-1, 1.5])
@pytest.mark.parametrize("surface", ["aec", "gym", "batched", "selfplay"])
def test_a_bad_seed_is_refused_at_reset(surface, seed):
    with pytest.raises(ValueError, match="seed must be None or a non-negative int"):
        _constructor(surface)().reset(seed=seed)
