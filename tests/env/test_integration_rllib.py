"""Ray RLlib integration (issue 12): the MultiAgentEnv adapter, the self-play example run as a user
would (tiny settings), the ``rllib:checkpoint=PATH`` arena agent, and ``python -m agents.evaluation.arena --ray``
giving the same results as a local run, on a local Ray.

CI runs this file in its own virtual environment with the ``[rllib]`` extra (``.ci/jobs/rllib.sh``:
RLlib pins its own Gymnasium). In the main environment, without Ray, only the tests that need no Ray
run (``--ray`` says to install the extra; importing the package pulls in no Ray).
"""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]

try:
    import ray.rllib  # noqa: F401

    HAVE_RLLIB = True
except ImportError:
    HAVE_RLLIB = False

needs_rllib = pytest.mark.skipif(not HAVE_RLLIB, reason="needs the [rllib] extra (ray[rllib]); CI: .ci/jobs/rllib.sh")


def run(args, timeout=300, **kw):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT, timeout=timeout, **kw)


# ------------------------------------------------------------------ without Ray
def test_package_imports_pull_in_no_ray():
    out = run(
        [
            "-c",
            "import sys, schnapsen_env, schnapsen_env.schnapsen_v0, agents, agents.evaluation.arena, agents.players.rllib; "
            "print(sorted(m for m in sys.modules if m == 'ray' or m.startswith('ray.')))",
        ]
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


@pytest.mark.skipif(HAVE_RLLIB, reason="checks the message shown without Ray")
def test_arena_ray_without_ray_is_one_line_naming_the_extra():
    out = run(["-m", "agents.evaluation.arena", "--agents", "random", "heuristic", "--games", "2", "--ray"])
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "schnapsen-env[rllib]" in out.stderr, out.stderr
    out = run(
        ["-m", "agents.evaluation.arena", "--agents", "random", "heuristic", "--games", "2", "--ray", "HOST:6379"]
    )
    assert out.returncode == 2 and "schnapsen-env[rllib]" in out.stderr


@pytest.mark.skipif(HAVE_RLLIB, reason="checks the message shown without Ray")
def test_rllib_agent_and_adapter_without_ray_say_what_to_install():
    from agents import make_agent

    with pytest.raises(ImportError, match=r"schnapsen-env\[rllib\]"):
        make_agent("rllib:checkpoint=x")
    with pytest.raises(ImportError, match=r"schnapsen-env\[rllib\]"):
        import schnapsen_env.rllib  # noqa: F401


def test_arena_ray_refuses_workers():
    out = run(
        ["-m", "agents.evaluation.arena", "--agents", "random", "heuristic", "--games", "2", "--ray", "--workers", "2"]
    )
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "--workers" in out.stderr


# ------------------------------------------------------------------ the environment
@needs_rllib
def test_multi_agent_env_turns_keys_and_rewards():
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    from schnapsen_env import rllib as adapter

    env = adapter.env_creator({"variant": "schnapsen", "illegal_action": "raise"})
    check_multiagent_environments(adapter.env_creator({}))  # RLlib's own check (it steps an unmasked action)
    rng = np.random.default_rng(0)
    for episode in range(30):
        obs, infos = env.reset(seed=episode)
        assert len(obs) == 1 and infos == {}
        while True:
            ((agent, o),) = obs.items()
            assert set(o) == {"observations", "action_mask"} and env.observation_spaces[agent].contains(o)
            assert agent == env.env.agent_selection
            legal = np.flatnonzero(o["action_mask"])
            assert len(legal) >= 1
            obs, rewards, terms, truncs, infos = env.step({agent: int(rng.choice(legal))})
            assert truncs == {"__all__": False}
            if terms["__all__"]:
                assert set(obs) == set(rewards) == {"player_0", "player_1"}
                assert rewards["player_0"] == -rewards["player_1"] and abs(rewards["player_0"]) in (1, 2, 3)
                break
            assert rewards == {agent: 0.0} and len(obs) == 1
    # the same seed deals the same game; env_config options reach the rules
    a, b = adapter.env_creator({}), adapter.env_creator({})
    assert np.array_equal(
        a.reset(seed=5)[0][a.env.agent_selection]["observations"],
        b.reset(seed=5)[0][b.env.agent_selection]["observations"],
    )
    assert adapter.env_creator({"variant": "sechsundsechzig"}).env.rules.deck == 24
    with pytest.raises(ValueError, match="allowed"):
        adapter.env_creator({"nonsense": 1})


# ------------------------------------------------------------------ the example, as a user runs it
@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """examples/rllib_selfplay.py for 2 tiny iterations on a local Ray (its own process)."""
    if not HAVE_RLLIB:
        pytest.skip("needs the [rllib] extra")
    run_dir = tmp_path_factory.mktemp("rllib") / "run"
    out = run(
        [
            str(ROOT / "examples" / "rllib_selfplay.py"),
            "--iterations",
            "2",
            "--dir",
            str(run_dir),
            "ppo.train_batch_size=200",
            "ppo.minibatch_size=100",
            "ppo.num_epochs=1",
            "model.hidden=[32, 32]",
            "ray.num_envs_per_env_runner=2",
            "eval.games=10",
            "eval.opponents=[random]",
        ]
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return run_dir, out.stdout


@needs_rllib
def test_example_trains_saves_and_evaluates(trained):
    run_dir, stdout = trained
    lines = stdout.splitlines()
    assert [ln.split(":")[0] for ln in lines if ln.startswith("iter ")] == ["iter 1", "iter 2"]
    assert any(ln.startswith("vs random: win rate ") for ln in lines)
    assert lines[-1].startswith("wall time: ")
    ckpt = run_dir / "checkpoint"
    assert (ckpt / "learner_group" / "learner" / "rl_module" / "main").is_dir()
    assert json.loads((ckpt / "schnapsen_env.json").read_text())["variant"] == "schnapsen"


@needs_rllib
def test_example_rejects_bad_config():
    out = run([str(ROOT / "examples" / "rllib_selfplay.py"), "--iterations", "0"])
    assert out.returncode == 2 and "argument --iterations: expected a whole number >= 1, got 0" in out.stderr
    out = run([str(ROOT / "examples" / "rllib_selfplay.py"), "ppo.minibatch_size=0"])
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "ppo.minibatch_size" in out.stderr
    out = run([str(ROOT / "examples" / "rllib_selfplay.py"), "ray.num_env_runners=x"])
    assert out.returncode == 2 and "ray.num_env_runners" in out.stderr


def test_config_file_loads_and_validates():
    pytest.importorskip("pydantic")  # the [rllib] extra's config library
    from agents.training.config import ConfigError
    from agents.training.rllib_selfplay import load_config

    cfg = load_config(ROOT / "configs" / "rllib_selfplay.yaml")
    assert cfg.name == "rllib_selfplay" and cfg.ray.num_cpus == 2
    assert load_config(overrides=["ppo.lr=1e-4"]).ppo.lr == 1e-4
    for override, message in [
        ("ppo.nope=1", "unknown key 'ppo.nope'"),
        ("game.rules.deck=23", "game: "),
        ("eval.games=3", "eval.games: 3 must be even"),
        ("ppo.minibatch_size=0", "ppo.minibatch_size: "),
    ]:
        with pytest.raises(ConfigError, match=message):
            load_config(overrides=[override])


@needs_rllib
def test_ppo_config_follows_the_config():
    from agents.training.rllib_selfplay import load_config, ppo_config

    cfg = load_config(ROOT / "configs" / "rllib_selfplay.yaml")
    pc = ppo_config(cfg)
    assert pc.num_env_runners == cfg.ray.num_env_runners and pc.seed == cfg.seeding.seed
    assert pc.env_config == {"variant": "schnapsen", "episode": "game", "reward": "game_points"}


@needs_rllib
def test_trained_policy_plays_in_the_arena_from_the_observation_only(trained):
    import torch

    from agents import make_agent
    from agents.evaluation.arena import play_pair
    from agents.players.rllib import RLlibAgent
    from schnapsen_env import GameState, Rules
    from schnapsen_env import rllib as adapter

    ckpt = trained[0] / "checkpoint"
    agent = make_agent(f"rllib:checkpoint={ckpt}")
    assert isinstance(agent, RLlibAgent) and agent.trained_rules == Rules.preset("schnapsen")
    r = play_pair(f"rllib:checkpoint={ckpt}", "random", games=20, seed=1)  # illegal actions would raise
    assert r.games == 20
    assert (
        play_pair(f"rllib:{ckpt},sample=true,seed=3", "random", games=10, seed=1).to_dict()
        == play_pair(f"rllib:{ckpt},sample=true,seed=3", "random", games=10, seed=1).to_dict()
    )
    # the agent's input is the environment's observation of the player to move
    env = adapter.env_creator({"illegal_action": "raise"})
    obs, _ = env.reset(seed=3)
    ((who, o),) = obs.items()
    state: GameState = env.env.game
    info = state.information_set(state.current_player)
    probs = agent.policy(info)
    with torch.inference_mode():
        logits = agent.module.forward_inference(adapter.observation_batch(o["observations"], o["action_mask"]))
    expected = torch.softmax(logits["action_dist_inputs"][0].double(), 0).numpy()
    assert np.allclose(probs, expected) and set(np.flatnonzero(probs)) <= set(info.legal_actions)
    # sampling from the module (RLlib's exploration path) through the env never picks an illegal action
    rng = torch.Generator().manual_seed(0)
    for episode in range(10):
        obs, _ = env.reset(seed=100 + episode)
        done = False
        while not done:
            ((who, o),) = obs.items()
            with torch.inference_mode():
                out = agent.module.forward_exploration(adapter.observation_batch(o["observations"], o["action_mask"]))
            p = torch.softmax(out["action_dist_inputs"][0].double(), 0)
            action = int(torch.multinomial(p, 1, generator=rng))
            obs, _, terms, _, _ = env.step({who: action})  # illegal_action="raise"
            done = terms["__all__"]
    with pytest.raises(ValueError, match="has no module 'other'.*it has main"):
        make_agent(f"rllib:checkpoint={ckpt},module=other")
    with pytest.raises(ValueError, match="not an RLlib"):
        make_agent(f"rllib:checkpoint={trained[0]}")


# ------------------------------------------------------------------ arena on Ray
@pytest.fixture(scope="module")
def local_ray():
    if not HAVE_RLLIB:
        pytest.skip("needs the [rllib] extra")
    import ray

    ray.init(num_cpus=2, include_dashboard=False)
    yield ray
    ray.shutdown()


@needs_rllib
@pytest.mark.parametrize("duplicate,bummerl,games", [(True, False, 46), (False, True, 5)])
def test_arena_on_ray_equals_local(local_ray, duplicate, bummerl, games):
    from agents.evaluation.arena import play_pair

    local = play_pair("heuristic", "random:seed=4", games=games, seed=11, duplicate=duplicate, bummerl=bummerl)
    remote = play_pair(
        "heuristic", "random:seed=4", games=games, seed=11, duplicate=duplicate, bummerl=bummerl, ray=True
    )
    assert remote.to_dict() == local.to_dict()
    assert remote.records == local.records


@needs_rllib
def test_arena_on_ray_refuses_agent_instances(local_ray):
    from agents import make_agent
    from agents.evaluation.arena import play_pair

    with pytest.raises(ValueError, match="spec strings"):
        play_pair(make_agent("random"), "heuristic", games=2, seed=0, ray=True)


@needs_rllib
def test_arena_cli_ray_writes_the_same_results_as_local(tmp_path):
    common = [
        "-m",
        "agents.evaluation.arena",
        "--agents",
        "random",
        "heuristic",
        "pimc:samples=4",
        "--games",
        "12",
        "--seed",
        "5",
        "--no-progress",
    ]
    local = run([*common, "--out", str(tmp_path / "local"), "--save-records", str(tmp_path / "local.jsonl")])
    assert local.returncode == 0, local.stderr
    remote = run([*common, "--ray", "--out", str(tmp_path / "ray"), "--save-records", str(tmp_path / "ray.jsonl")])
    assert remote.returncode == 0, remote.stderr[-3000:]
    assert (tmp_path / "ray" / "results.json").read_text() == (tmp_path / "local" / "results.json").read_text()
    assert (tmp_path / "ray" / "games.csv").read_text() == (tmp_path / "local" / "games.csv").read_text()
    assert (tmp_path / "ray.jsonl").read_text() == (tmp_path / "local.jsonl").read_text()
    assert remote.stdout.splitlines()[0] == local.stdout.splitlines()[0]
