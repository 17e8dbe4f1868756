"""``sb3:PATH``: an sb3-contrib MaskablePPO zip trained on the Gymnasium view plays as an agent (agents.players.sb3)."""

import base64
import importlib.util
import json
import pathlib
import re
import sys
import zipfile

import numpy as np
import pytest

from agents import make_agent, parse_spec
from agents.evaluation.arena import play_pair
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


def rewritten_zip(source, target, change):
    """A copy of the zip ``source`` at ``target`` whose ``data`` json is ``change(data)``."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for name in old.namelist():
            content = old.read(name)
            new.writestr(name, json.dumps(change(json.loads(content))) if name == "data" else content)
    return target


class WritesMarker:
    """Unpickled, it writes ``path``: code stored in a zip."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (pathlib.Path.write_text, (pathlib.Path(self.path), "ran"))


@needs_sb3
def test_sb3_zip_loads_without_running_its_pickled_entries(model_zip, tmp_path):
    import cloudpickle
    from sb3_contrib import MaskablePPO

    marker = tmp_path / "marker"
    payload = base64.b64encode(cloudpickle.dumps(WritesMarker(marker))).decode()

    def poisoned(data):
        for item in data.values():
            if isinstance(item, dict) and ":serialized:" in item:
                item[":serialized:"] = payload
        return data

    path = rewritten_zip(model_zip[0], tmp_path / "poisoned.zip", poisoned)
    agent = make_agent(f"sb3:{path}")
    assert not marker.exists()
    clean = make_agent(f"sb3:{model_zip[0]}")
    assert play_pair(agent, "random", 4, 2).records == play_pair(clean, "random", 4, 2).records
    with pytest.raises(ValueError, match="not a Gymnasium space"):  # SB3 alone runs the entries, then fails
        MaskablePPO.load(path, device="cpu")
    assert marker.read_text() == "ran"


@needs_sb3
def test_sb3_zip_of_other_spaces_is_refused_in_one_line(model_zip, tmp_path):
    def other_shape(data):
        data["observation_space"]["_shape"] = [10]
        return data

    path = rewritten_zip(model_zip[0], tmp_path / "other.zip", other_shape)
    declared = "([10], 'float32', '31')"
    message = f"its observation shape, dtype and number of actions are {declared}: one trained on the Gymnasium view has [214], float32 and 31"
    with pytest.raises(ValueError) as refused:
        make_agent(f"sb3:{path}")
    assert str(refused.value) == f"sb3 model {str(path)!r} does not load as a MaskablePPO zip: ValueError: {message}"


@needs_sb3
def test_sb3_zip_with_an_activation_class_in_policy_kwargs_loads_and_another_class_is_refused(tmp_path):
    import gymnasium
    import torch
    from sb3_contrib import MaskablePPO

    env = gymnasium.make("schnapsen_env/Schnapsen-v0", opponent="random")
    kwargs = {"net_arch": {"pi": [16], "vf": [8]}, "activation_fn": torch.nn.ReLU}
    model = MaskablePPO("MlpPolicy", env, n_steps=64, seed=0, device="cpu", policy_kwargs=kwargs)
    path = tmp_path / "relu.zip"
    model.save(path)
    agent = make_agent(f"sb3:{path}")
    assert agent.model.policy_kwargs == kwargs
    observations = np.random.default_rng(0).random((8, 214), dtype=np.float32)
    masks = np.ones((8, 31), dtype=bool)
    expected = model.predict(observations, action_masks=masks, deterministic=True)[0]
    assert agent.model.predict(observations, action_masks=masks, deterministic=True)[0].tolist() == expected.tolist()

    def custom_extractor(data):
        data["policy_kwargs"]["features_extractor_class"] = "<class 'my_net.Extractor'>"
        return data

    other = rewritten_zip(path, tmp_path / "extractor.zip", custom_extractor)
    with pytest.raises(
        ValueError,
        match=r"policy_kwargs item features_extractor_class=<class 'my_net\.Extractor'> exists only as pickled code$",
    ):
        make_agent(f"sb3:{other}")
