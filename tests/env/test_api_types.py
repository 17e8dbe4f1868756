"""The public boundaries (env constructors and resets, agents' seeds) refuse values of the wrong
kind with a one-line ``ValueError`` naming the argument."""

import gymnasium
import pytest

import schnapsen_env  # noqa: F401  (registers the environments)
from schnapsen_env import schnapsen_v0

BAD_SEEDS = [-1, 1.5, "3", True, [1]]


@pytest.mark.parametrize("seed", BAD_SEEDS)
def test_env_resets_reject_bad_seeds(seed):
    with pytest.raises(ValueError, match="seed must be None or a non-negative int"):
        schnapsen_v0.env().reset(seed=seed)
    with pytest.raises(ValueError, match="seed must be None or a non-negative int"):
        gymnasium.make("schnapsen_env/Schnapsen-v0").reset(seed=seed)


@pytest.mark.parametrize("value", [None, "x", 1.5, ["game"]])
def test_env_keywords_reject_junk(value):
    for key in ("variant", "episode", "reward", "illegal_action"):
        with pytest.raises(ValueError, match=f"'{key}'"):
            schnapsen_v0.env(**{key: value})
    with pytest.raises(ValueError, match="'seat'"):
        gymnasium.make("schnapsen_env/Schnapsen-v0", seat=value)


@pytest.mark.parametrize("value", [1.5, b"ab", {}, [1]])
def test_gym_opponent_of_the_wrong_kind(value):
    with pytest.raises(ValueError, match="'opponent'"):
        gymnasium.make("schnapsen_env/Schnapsen-v0", opponent=value)


@pytest.mark.parametrize("seed", [-1, 1.5, "x", True])
def test_agents_refuse_bad_seeds(seed):
    from agents import make_agent

    with pytest.raises(ValueError, match="seed must be None or a non-negative int"):
        make_agent("random", seed=seed)
    agent = make_agent("random", seed=3)
    with pytest.raises(ValueError, match="seed must be None or a non-negative int"):
        agent.reset(seed=seed)
