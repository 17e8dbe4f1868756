"""Calls out of order: raw_env and env() give the same clear errors before reset() and after the end."""

import gymnasium
import numpy as np
import pytest

import schnapsen_env
from schnapsen_env import schnapsen_v0
from schnapsen_env.schnapsen_v0 import EnvOrderError

MAKERS = {"env": schnapsen_v0.env, "raw_env": schnapsen_v0.raw_env}
CALLS = {
    "last": lambda e: e.last(),
    "step": lambda e: e.step(0),
    "observe": lambda e: e.observe("player_0"),
    "state": lambda e: e.state(),
    "render": lambda e: e.render(),
}


def play_out(env) -> None:
    env.reset(seed=3)
    for _ in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        env.step(None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0]))


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("make", MAKERS)
def test_calls_before_reset_name_the_call(make, call):
    env = MAKERS[make](render_mode="ansi")
    with pytest.raises(EnvOrderError, match=rf"^reset\(\) needs to be called before {call}\(\)$"):
        CALLS[call](env)
    # the env is unharmed: reset and play
    play_out(env)


@pytest.mark.parametrize("make", MAKERS)
@pytest.mark.parametrize("attr", ["agent_selection", "rewards", "terminations", "agents"])
def test_attributes_before_reset_name_the_attribute(make, attr):
    env = MAKERS[make]()
    with pytest.raises(AttributeError, match=f"^{attr} cannot be accessed before reset$"):
        getattr(env, attr)


@pytest.mark.parametrize("make", MAKERS)
def test_order_errors_are_assertion_and_runtime_errors(make):
    # what PettingZoo's OrderEnforcingWrapper raises (AssertionError), and a RuntimeError
    env = MAKERS[make]()
    with pytest.raises(AssertionError):
        env.step(0)
    with pytest.raises(RuntimeError):
        env.last()


@pytest.mark.parametrize("make", MAKERS)
def test_last_after_the_end_says_the_episode_is_over(make):
    env = MAKERS[make]()
    play_out(env)
    assert env.agents == []
    with pytest.raises(EnvOrderError, match=r"^the episode is over \(every agent has stepped with None\): "
                                            r"call reset\(\) before last\(\)$"):
        env.last()


@pytest.mark.parametrize("make", MAKERS)
def test_step_after_the_end_warns_and_changes_nothing(make):
    env = MAKERS[make]()
    play_out(env)
    outcome = env.unwrapped.last_outcome
    with pytest.warns(UserWarning, match="step\\(\\) called after all agents are terminated"):
        env.step(0)
    assert env.agents == [] and env.unwrapped.last_outcome is outcome


@pytest.mark.parametrize("make", MAKERS)
@pytest.mark.parametrize("agent", ["player_2", 0, None, ["player_0"]])
def test_observe_of_an_unknown_agent_is_a_value_error(make, agent):
    env = MAKERS[make]()
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"^unknown agent .*: allowed 'player_0', 'player_1'$"):
        env.observe(agent)


def test_gym_step_before_reset_says_to_reset():
    env = gymnasium.make("schnapsen_env/Schnapsen-v0").unwrapped
    with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
        env.step(0)


def test_submodules_reachable_right_after_import():
    assert schnapsen_env.schnapsen_v0.raw_env is schnapsen_v0.raw_env
    assert "schnapsen_v0" in dir(schnapsen_env)
    assert schnapsen_env.seeding.SEED_BITS == 63
    with pytest.raises(AttributeError, match="has no attribute 'no_such_module'"):
        schnapsen_env.no_such_module  # noqa: B018
