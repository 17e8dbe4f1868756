"""Regression tests for faults a fresh user hit: bad arguments give one plain message."""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path

import gymnasium
import pytest

import schnapsen_env  # noqa: F401  (registers the Gymnasium id)
from schnapsen_env import schnapsen_v0
from schnapsen_env.engine import GameState
from schnapsen_env.rules import Rules

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def torch():
    """torch, for the tests that need it (the [train] extra, absent in the lower-bounds CI job): skipped without it."""
    return pytest.importorskip("torch")


# ------------------------------------------------------------------------- CLI input
def _example_main():
    spec = importlib.util.spec_from_file_location(
        "policy_in_three_lines", ROOT / "examples" / "policy_in_three_lines.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.main


def test_policy_example_bad_seed_is_one_line_and_exit_2(torch, capsys):
    with pytest.raises(SystemExit) as e:
        _example_main()(["--seed", "-4"])
    assert e.value.code == 2
    assert ": error: argument --seed: expected a whole number >= 0, got -4" in capsys.readouterr().err


@pytest.mark.parametrize(
    "spec, message",
    [
        (
            "pimc:samples=0",
            "bad agent spec 'pimc:samples=0': samples: Input should be greater than or equal to 1, got 0",
        ),
        ("vu:xx", "bad agent spec 'vu:xx': bot: Input should be 'rdeep', 'bully' or 'rand', got 'xx'"),
        ("nosuch", "unknown agent 'nosuch' in spec 'nosuch'"),
    ],
)
def test_arena_names_a_bad_agent_spec_once(capsys, spec, message):
    import agents.evaluation.arena as arena

    with pytest.raises(SystemExit) as e:
        arena.main(["--agents", "heuristic", spec, "--no-progress"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("python -m agents.evaluation.arena: error: " + message)
    assert err.count("agent spec") <= 1 and err.count(f"{spec!r}:") == 1


# ------------------------------------------------------------------- checkpoint loading
def test_checkpoint_of_an_unknown_format_is_refused(torch, tmp_path):
    from agents.players.neural import DEFAULT_CHECKPOINT, PPOAgent
    from agents.policy import load_policy

    ckpt = torch.load(DEFAULT_CHECKPOINT, weights_only=True)
    ckpt["format"] = 999
    f = tmp_path / "policy.pt"
    torch.save(ckpt, f)
    with pytest.raises(ValueError, match=r"^cannot load checkpoint .*: format 999, this version reads format 1"):
        load_policy(f)
    with pytest.raises(ValueError, match=r"format 999, this version reads format 1"):
        PPOAgent(str(f))


def _bummerl_checkpoint(torch, tmp_path):
    from agents.players.neural import DEFAULT_CHECKPOINT

    ckpt = torch.load(DEFAULT_CHECKPOINT, weights_only=True)
    ckpt["observation_spec"] = {**ckpt["observation_spec"], "bummerl": True}
    f = tmp_path / "bummerl.pt"
    torch.save(ckpt, f)
    return f


def _warnings(fn):
    from agents.players.base import RulesCheck, RulesMismatchWarning

    RulesCheck.forget_shown()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        fn()
    return [str(x.message) for x in w if x.category is RulesMismatchWarning]


def _first_obs(env):
    env.reset(seed=1)
    return env.last()[0]


def test_bummerl_trained_policy_in_a_single_game_env_warns_once(torch, tmp_path):
    from agents.players.neural import PPOAgent
    from agents.policy import env_policy, load_policy

    p = load_policy(_bummerl_checkpoint(torch, tmp_path))
    assert p.bummerl is True
    obs = _first_obs(schnapsen_v0.env())
    msgs = _warnings(lambda: (p(obs, None), p(obs, None)))
    assert msgs == [
        f"policy {p.name!r} was trained on Bummerl episodes (episode='bummerl') and is playing "
        "single games (the observation's 'bummerl' entry differs); expect weak play"
    ]
    # told at once by env_policy
    q = load_policy(_bummerl_checkpoint(torch, tmp_path))
    assert len(_warnings(lambda: env_policy(q, schnapsen_v0.env()))) == 1
    # an Agent encodes information sets (no Bummerl score): it always plays single games
    a = PPOAgent(str(_bummerl_checkpoint(torch, tmp_path)))
    g = GameState.from_seed(Rules(), 1)
    assert len(_warnings(lambda: [a.act(g.information_set(g.current_player)) for _ in range(2)])) == 1


def test_game_trained_policy_in_a_bummerl_env_warns_and_matching_kinds_do_not(torch):
    from agents.players.neural import PPOAgent
    from agents.policy import load_policy

    p = load_policy("ppo")
    assert p.bummerl is False
    msgs = _warnings(lambda: p(_first_obs(schnapsen_v0.env(episode="bummerl")), None))
    assert len(msgs) == 1 and "trained on single games (episode='game') and is playing Bummerl episodes" in msgs[0]
    q = load_policy("ppo")
    assert _warnings(lambda: q(_first_obs(schnapsen_v0.env()), None)) == []
    g = GameState.from_seed(Rules(), 1)
    assert _warnings(lambda: PPOAgent().act(g.information_set(g.current_player))) == []


# ------------------------------------------------------------------------ env order / observer


def test_gym_unwrapped_has_the_observer_of_the_aec_env():
    env = gymnasium.make("schnapsen_env/Schnapsen-v0", episode="bummerl")
    observer = env.unwrapped.observer
    assert observer is env.unwrapped.aec_env.observer
    assert observer.spec == schnapsen_v0.raw_env(episode="bummerl").observer.spec and observer.spec["bummerl"] is True


@pytest.mark.parametrize(
    "spec",
    ["random", "pimc:samples=2"],  # every agent's act starts with base.check_to_move
)
def test_an_agent_refuses_a_game_state_or_none_instead_of_an_information_set(spec):
    from agents import make_agent

    agent = make_agent(spec)
    for wrong in (GameState.from_seed(Rules(), 4), None):
        with pytest.raises(TypeError, match=r"^info must be an InformationSet \(state.information_set\(player\)\)"):
            agent.act(wrong)
