"""``sb3:PATH``: an sb3-contrib MaskablePPO zip trained on the Gymnasium view plays as an agent (agents.sb3)."""

import importlib.util
import re
import sys

import numpy as np
import pytest

from agents import make_agent, parse_spec
from agents.arena import play_pair
from schnapsen_env.engine import GameState
from schnapsen_env.observation import encode
from schnapsen_env.rules import Rules

needs_sb3 = pytest.mark.skipif(importlib.util.find_spec("sb3_contrib") is None, reason="needs sb3-contrib")


@pytest.fixture(scope="module")
def model_zip(tmp_path_factory):
    """A MaskablePPO trained 256 steps against the random opponent, saved as a zip."""
    import gymnasium
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    env = gymnasium.make("schnapsen_env/Schnapsen-v0", opponent="random")
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=1, seed=0, device="cpu", policy_kwargs={"net_arch": [32]}
    )
    model.learn(256)
    path = tmp_path_factory.mktemp("sb3") / "mppo.zip"
    model.save(path)
    return path, model


@needs_sb3
def test_sb3_spec_plays_each_decision_as_the_model_predicts(model_zip):
    path, model = model_zip
    agent = make_agent(f"sb3:{path}")
    assert agent.name == f"sb3:{path}" and agent.sample is False
    state, decisions = GameState.from_seed(Rules(), seed=5), 0
    while not state.is_terminal:
        info = state.information_set(state.current_player)
        mask = np.zeros(31, dtype=bool)
        mask[list(info.legal_actions)] = True
        expected, _ = model.predict(encode(info), action_masks=mask, deterministic=True)
        action = agent.act(info)
        assert action == int(expected) and action in info.legal_actions
        state.apply(action)
        decisions += 1
    assert decisions >= 10


@needs_sb3
def test_sb3_agent_plays_the_arena_in_workers_as_in_one_process(model_zip):
    spec = f"sb3:{model_zip[0]}"
    one = play_pair(spec, "random", games=4, seed=3, workers=1)
    two = play_pair(spec, "random", games=4, seed=3, workers=2)  # each worker makes the agent from its spec
    assert one.games == 4 and sum(one.wins) == 4
    assert [g.actions for g in one.records] == [g.actions for g in two.records]


@needs_sb3
def test_sb3_sample_true_draws_from_the_agent_seed(model_zip):
    spec = f"sb3:{model_zip[0]},sample=true"
    assert parse_spec(spec) == ("sb3", {"path": str(model_zip[0]), "sample": True})

    def game(seed):
        agent, state = make_agent(spec, seed=seed), GameState.from_seed(Rules(), seed=1)
        while not state.is_terminal:
            state.apply(agent.act(state.information_set(state.current_player)))
        return state.history

    assert make_agent(spec).sample is True
    assert game(7) == game(7)


@needs_sb3
def test_sb3_missing_or_unreadable_zip_is_named_in_one_line(tmp_path):
    missing = tmp_path / "none.zip"
    with pytest.raises(ValueError, match=f"^sb3 model {re.escape(repr(str(missing)))}: no such file$"):
        make_agent(f"sb3:{missing}")
    with pytest.raises(ValueError, match=r"^bad agent spec 'sb3': the sb3 agent needs a model zip: sb3:PATH\.zip$"):
        make_agent("sb3")
    bad = tmp_path / "bad.zip"
    bad.write_text("not a zip")
    with pytest.raises(
        ValueError, match=f"^sb3 model {re.escape(repr(str(bad)))} does not load as a MaskablePPO zip: "
    ):
        make_agent(f"sb3:{bad}")


def test_sb3_without_sb3_contrib_names_the_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "sb3_contrib", None)
    with pytest.raises(ModuleNotFoundError, match=r"^sb3:m\.zip needs sb3_contrib: pip install sb3-contrib$"):
        make_agent("sb3:m.zip")
