"""agents.policy: a trained policy on env observations (PettingZoo dict, Gymnasium obs + mask),
any agent as a PettingZoo policy (env_policy), the variant warning of policies and PPOAgent, and
the example script."""

from __future__ import annotations

import random
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")  # the [train] extra; absent in the lower-bounds CI job


import schnapsen_env  # noqa: E402, F401  (registers the environments)
from agents import make_agent  # noqa: E402
from agents.players.base import RulesCheck, RulesMismatchWarning  # noqa: E402
from agents.players.neural import DEFAULT_CHECKPOINT, PPOAgent, checkpoint_rules, load_model  # noqa: E402
from agents.policy import (  # noqa: E402
    AgentEnvPolicy,
    Policy,
    env_policy,
    load_policy,
)
from schnapsen_env import NUM_ACTIONS, GameState, Rules, schnapsen_v0  # noqa: E402
from schnapsen_env.observation import OBS_SIZE, Observer, spec_difference  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
GYM_ID = "schnapsen_env/Schnapsen-v0"


@pytest.fixture(scope="module")
def policy() -> Policy:
    return load_policy("ppo")


@pytest.fixture(autouse=True)
def fresh_warnings():
    """Every test starts with no variant warning shown in this process."""
    RulesCheck.forget_shown()
    yield
    RulesCheck.forget_shown()


def pz_states(count: int, variant: str = "schnapsen", seed: int = 0) -> list:
    """``count`` decision points of random PettingZoo games: (observation dict copy, InformationSet)."""
    env = schnapsen_v0.env(variant=variant)
    rng = random.Random(seed)
    out = []
    game = 0
    while len(out) < count:
        env.reset(seed=seed * 1000 + game)
        game += 1
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            player = env.unwrapped.agent_name_mapping[name]
            info = env.unwrapped.game.information_set(player)
            out.append(({"observation": obs["observation"].copy(), "action_mask": obs["action_mask"].copy()}, info))
            env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    return out[:count]


def caught(fn):
    """(result, list of UserWarning messages) of fn() with every warning recorded."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        result = fn()
    assert all(x.category is RulesMismatchWarning for x in w if issubclass(x.category, UserWarning))
    return result, [str(x.message) for x in w if issubclass(x.category, UserWarning)]


# ------------------------------------------------------------------ acting legally
def test_acts_legally_on_200_pettingzoo_observations(policy):
    states = pz_states(200)
    for obs, info in states:
        a = policy.act(obs)
        assert type(a) is int and obs["action_mask"][a] == 1 and a in info.legal_actions
        assert policy.act(obs["observation"], obs["action_mask"]) == a
        assert policy(obs, "player_0") == a  # the PettingZoo callable form
        assert policy(obs["observation"], obs["action_mask"].astype(bool)) == a  # the Gymnasium form
        probs = policy.action_probabilities(obs)
        assert probs.dtype == np.float32 and probs.shape == (NUM_ACTIONS,)
        assert np.all(probs[obs["action_mask"] == 0] == 0.0) and abs(float(probs.sum()) - 1.0) < 1e-5


def test_greedy_equals_ppo_agent_on_the_same_states(policy):
    agent = PPOAgent()
    for obs, info in pz_states(200, seed=1):
        assert policy.act(obs) == agent.act(info)
        np.testing.assert_allclose(policy.action_probabilities(obs), agent.policy(info), rtol=0, atol=1e-6)


def test_sampling_is_reproducible_with_a_seed_and_legal():
    states = pz_states(200, seed=2)
    runs = []
    for _ in range(2):
        p = load_policy("ppo", sample=True, seed=5)
        runs.append([p.act(obs) for obs, _ in states])
    assert runs[0] == runs[1]
    assert all(obs["action_mask"][a] for (obs, _), a in zip(states, runs[0]))
    other = load_policy("ppo", sample=True, seed=6)
    assert [other.act(obs) for obs, _ in states] != runs[0]  # a different stream
    p.reset()  # back to the construction seed
    assert [p.act(obs) for obs, _ in states] == runs[0]


def test_act_batch_equals_act_row_by_row(policy):
    states = pz_states(200, seed=4)
    obs = np.stack([o["observation"] for o, _ in states])
    masks = np.stack([o["action_mask"] for o, _ in states])
    batch = policy.act_batch(obs, masks)
    assert batch.dtype == np.int64 and batch.shape == (200,)
    assert batch.tolist() == [policy.act(o) for o, _ in states]
    assert policy.act_batch({"observation": obs, "action_mask": masks}).tolist() == batch.tolist()
    a = load_policy("ppo", sample=True, seed=9).act_batch(obs, masks.astype(bool))
    one = load_policy("ppo", sample=True, seed=9)
    assert a.tolist() == [one.act(o) for o, _ in states]
    assert policy.act_batch(np.zeros((0, OBS_SIZE), np.float32), np.zeros((0, NUM_ACTIONS), np.int8)).shape == (0,)


# ------------------------------------------------------------------ bad arguments
@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: load_policy("ppo:x.pt,depth=3"),
            "unknown key 'depth' in policy spec .*allowed keys are path, sample, seed",
        ),
        (lambda: load_policy("ppo:/nonexistent/p.pt"), "no checkpoint file at '/nonexistent/p.pt'"),
        (lambda: load_policy("ppo", rules="no-such-variant"), "unknown variant"),
        (lambda: env_policy("nobody", schnapsen_v0.env()), "unknown agent 'nobody'"),
    ],
)
def test_bad_arguments_raise_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# ------------------------------------------------------------------ env_policy
def play_pettingzoo(policies: dict, variant: str = "schnapsen", seed: int = 0, env=None):
    env = env or schnapsen_v0.env(variant=variant)
    env.reset(seed=seed)
    steps = 0
    for name in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        action = None if term or trunc else policies[name](obs, name)
        if action is not None:
            assert obs["action_mask"][action] == 1
            steps += 1
        env.step(action)
    return env.unwrapped.last_outcome, steps


def test_env_policy_heuristic_plays_full_games(seed=0):
    env = schnapsen_v0.env()
    heuristic = env_policy("heuristic", env)
    assert isinstance(heuristic, AgentEnvPolicy)
    outcome, steps = play_pettingzoo({"player_0": heuristic, "player_1": heuristic}, env=env, seed=seed)
    assert outcome is not None and outcome.reason != "renonce" and steps >= 5
    # against the shipped policy, and with agents given as objects and a seed
    env = schnapsen_v0.env(variant="sechsundsechzig", episode="bummerl")
    policies = {"player_0": env_policy(make_agent("random", seed=1), env), "player_1": env_policy("heuristic", env)}
    outcome, _ = play_pettingzoo(policies, env=env, seed=seed)
    assert outcome.reason != "renonce"


def test_env_policy_plays_like_the_agent_on_the_information_set():
    env = schnapsen_v0.env()
    p = env_policy("pimc:samples=4", env, seed=3)
    twin = make_agent("pimc:samples=4", seed=3)
    env.reset(seed=11)
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        info = env.unwrapped.game.information_set(env.unwrapped.agent_name_mapping[name])
        a = p(obs, name)
        assert a == twin.act(info)
        env.step(a)


def test_env_policy_with_a_neural_policy_returns_it(policy):
    env = schnapsen_v0.env()
    assert env_policy(policy, env) is policy
    p = env_policy("ppo", env)
    assert isinstance(p, Policy) and p.rules == Rules.preset("schnapsen")
    (outcome, _), msgs = caught(
        lambda: play_pettingzoo({"player_0": p, "player_1": env_policy("random", env)}, env=env)
    )
    assert outcome.reason != "renonce" and msgs == []


def test_env_policy_with_an_agent_option_of_a_policy_spec_plays_the_agent():
    env = schnapsen_v0.env()
    p = env_policy("ppo-strong:endgame=expert", env)  # endgame needs the information set: the agent
    assert isinstance(p, AgentEnvPolicy) and p.agent.endgame == "expert"
    outcome, _ = play_pettingzoo({"player_0": p, "player_1": env_policy("random", env)}, env=env)
    assert outcome.reason != "renonce"


# ------------------------------------------------------------------ the variant warning
def test_policy_warns_once_under_schnapsen_sharp_and_never_under_schnapsen():
    p = load_policy("ppo")
    _, msgs = caught(lambda: [p.act(o) for o, _ in pz_states(60, "schnapsen", seed=6)])
    assert msgs == [] and not p.rules_warned
    sharp = pz_states(60, "schnapsen-sharp", seed=7)
    _, msgs = caught(lambda: [p.act(o) for o, _ in sharp])
    assert len(msgs) == 1 and p.rules_warned
    assert msgs[0] == (
        "policy 'ppo' was trained on schnapsen rules and is playing with sharp=True, declare='manual', "
        "show_eyes=False, marriage_leads_king=True (the schnapsen-sharp preset); expect weak play"
    )
    batch = (np.stack([o["observation"] for o, _ in sharp]), np.stack([o["action_mask"] for o, _ in sharp]))
    _, msgs = caught(lambda: (p.act(sharp[0][0]), p.act_batch(*batch)))
    assert msgs == []  # once per policy object
    q = load_policy("ppo")  # a new object does not repeat a message this process has shown ...
    _, msgs = caught(lambda: q.act_batch(*batch))
    assert msgs == [] and q.rules_warned
    RulesCheck.forget_shown()  # ... unless the process forgets it; from a batch too
    q = load_policy("ppo")
    _, msgs = caught(lambda: q.act_batch(*batch))
    assert len(msgs) == 1


def test_told_rules_warn_at_once_and_name_options_the_observation_lacks():
    _, msgs = caught(lambda: load_policy("ppo", rules="schnapsen"))
    assert msgs == []
    p, msgs = caught(lambda: load_policy("ppo", rules={"bummerl_target": 3}))
    assert len(msgs) == 1 and "playing with bummerl_target=3;" in msgs[0]
    env = schnapsen_v0.env(variant="sechsundsechzig")
    _, msgs = caught(lambda: env_policy("ppo", env))
    assert len(msgs) == 1 and "playing with deck=24 (the sechsundsechzig preset)" in msgs[0]
    q = load_policy("ppo")
    assert q.check_rules(Rules.preset("schnapsen")) is True
    (ok, ok2), msgs = caught(lambda: (q.check_rules("vu-course"), q.check_rules("vu-course")))
    assert ok is False and ok2 is False and len(msgs) == 1


def test_ppo_agent_warns_once_under_schnapsen_sharp_and_never_under_schnapsen():
    def play(agent, variant, games=3):
        for seed in range(games):
            state = GameState.from_seed(Rules.preset(variant), seed)
            while not state.is_terminal:
                state.apply(agent.act(state.information_set(state.current_player)))

    agent = make_agent("ppo")
    assert agent.trained_rules == Rules.preset("schnapsen")
    _, msgs = caught(lambda: play(agent, "schnapsen"))
    assert msgs == []
    _, msgs = caught(lambda: (play(agent, "schnapsen-sharp"), play(agent, "sechsundsechzig")))
    assert len(msgs) == 1 and msgs[0].startswith(
        "policy 'ppo' was trained on schnapsen rules and is playing with sharp=True, declare='manual', show_eyes=False"
    )
    agent.reset(3)  # the arena resets agents before each game: still once
    _, msgs = caught(lambda: play(agent, "schnapsen-sharp"))
    assert msgs == []
    # the arena's workers build a fresh agent for every chunk of games: one message per process
    _, msgs = caught(lambda: play(make_agent("ppo"), "schnapsen-sharp", games=1))
    assert msgs == []


def test_checkpoint_without_rules_takes_them_from_its_observation_spec(tmp_path):
    ckpt = torch.load(DEFAULT_CHECKPOINT, map_location="cpu", weights_only=True)
    del ckpt["rules"]
    f = tmp_path / "old.pt"
    torch.save(ckpt, f)
    p = load_policy(str(f))
    agent = PPOAgent(str(f))
    assert p.rules == agent.trained_rules == Rules.preset("schnapsen")


# ------------------------------------------------------------- observation specs
def test_shipped_checkpoint_records_the_observation_spec():
    ckpt = torch.load(DEFAULT_CHECKPOINT, map_location="cpu", weights_only=True)
    assert ckpt["observation_spec"] == Observer(Rules.preset("schnapsen")).spec
    assert spec_difference(ckpt["observation_spec"]) is None


def _saved_with(tmp_path, edit, name="edited.pt"):
    ckpt = torch.load(DEFAULT_CHECKPOINT, map_location="cpu", weights_only=True)
    edit(ckpt)
    f = tmp_path / name
    torch.save(ckpt, f)
    return f


def _loaders(f):
    return (
        lambda: load_policy(f"ppo:{f}"),
        lambda: make_agent(f"ppo:{f}"),
    )


def test_checkpoint_without_observation_spec_is_refused_with_how_to_retrain(tmp_path):
    f = _saved_with(tmp_path, lambda c: c.pop("observation_spec"), "old.pt")
    for load in _loaders(f):
        with pytest.raises(ValueError) as e:
            load()
        msg = str(e.value)
        assert (
            msg.startswith(f"cannot load checkpoint {str(f)!r}: it predates observation specs (no 'observation_spec')")
            and "python train.py --config" in msg
            and "\n" not in msg
        )


def test_checkpoint_with_another_observation_layout_is_refused_naming_the_difference(tmp_path):
    def shift(c):
        c["observation_spec"]["fields"][2]["offset"] = 52

    def bump(c):
        c["observation_spec"]["version"] = 0

    for edit, words in (
        (shift, "field 'unseen' at offset 52 in the checkpoint, 48 here"),
        (bump, "observation spec version 0 in the checkpoint differs from version 1 here"),
    ):
        f = _saved_with(tmp_path, edit)
        for load in _loaders(f):
            with pytest.raises(ValueError) as e:
                load()
            msg = str(e.value)
            assert msg.startswith(f"cannot load checkpoint {str(f)!r}: {words}"), msg
            assert "retrain with the current encoder" in msg and "\n" not in msg


def test_checkpoint_whose_field_meaning_text_was_reworded_still_loads(tmp_path):
    def reword(c):
        c["observation_spec"]["fields"][-3]["meaning"] = "reworded documentation"

    f = _saved_with(tmp_path, reword)
    assert load_policy(str(f)).act_batch(
        np.zeros((1, OBS_SIZE), np.float32), np.ones((1, NUM_ACTIONS), bool)
    ).shape == (1,)


def test_checkpoint_trained_under_other_rules_loads_and_warns_when_it_plays(tmp_path):
    sharp = Rules.preset("schnapsen-sharp")

    def retag(c):
        c["rules"] = sharp.to_dict()
        c["observation_spec"] = Observer(sharp).spec

    f = _saved_with(tmp_path, retag, "sharp.pt")
    p = load_policy(str(f))
    agent = PPOAgent(str(f))
    assert p.rules == agent.trained_rules == sharp
    states = pz_states(20, "schnapsen", seed=4)
    _, msgs = caught(lambda: [p.act(o) for o, _ in states])
    assert len(msgs) == 1 and "was trained on schnapsen-sharp rules and is playing with" in msgs[0]
    RulesCheck.forget_shown()
    _, msgs = caught(lambda: [agent.act(i) for _, i in states])
    assert len(msgs) == 1 and "was trained on schnapsen-sharp rules" in msgs[0]


def test_checkpoint_with_bad_rules_is_refused(tmp_path):
    ckpt = torch.load(DEFAULT_CHECKPOINT, map_location="cpu", weights_only=True)
    ckpt["rules"] = {"deck": 32}
    f = tmp_path / "odd.pt"
    torch.save(ckpt, f)
    for load in (load_policy, PPOAgent):
        with pytest.raises(ValueError, match=r"cannot load checkpoint '.*odd.pt': its 'rules' are not"):
            load(str(f))
    assert checkpoint_rules({"model": {}}) is None


# ------------------------------------------------------------------ the example
def test_example_script_plays_a_game_and_prints_the_outcome():
    r = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "policy_in_three_lines.py"), "--seed", "1"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert r.returncode == 0, r.stderr
    line = r.stdout.strip()
    assert line.startswith("ppo (player_0) vs heuristic (player_1), seed 1: ") and " wins " in line
    assert "game point" in line and r.stderr == ""


def test_loading_builds_no_initial_weights_and_keeps_float32(tmp_path):
    state = torch.get_rng_state()
    model, ckpt = load_model(DEFAULT_CHECKPOINT)
    assert checkpoint_rules(ckpt) == Rules.preset("schnapsen") and not model.training
    assert torch.equal(state, torch.get_rng_state())  # loading draws nothing from torch's generator
    assert {p.device.type for p in model.parameters()} == {"cpu"}
    ckpt["model"] = {k: v.double() for k, v in ckpt["model"].items()}  # a file stored in float64
    f = tmp_path / "f64.pt"
    torch.save(ckpt, f)
    p = load_policy(str(f))
    assert {q.dtype for q in p.model.parameters()} == {torch.float32}
    states = pz_states(50, seed=9)
    ref = load_policy("ppo")
    assert [p.act(o) for o, _ in states] == [ref.act(o) for o, _ in states]
