"""Registration on ``import schnapsen_env``: ``gymnasium.make`` always, ``pettingzoo.make``
where PettingZoo has a registry (>= 1.27); on PettingZoo 1.25/1.26 (no ``pettingzoo.register``)
the import still succeeds and ``schnapsen_v0.env()`` works."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import gymnasium
import pettingzoo
import pytest

import schnapsen_env
from schnapsen_env import registration, schnapsen_v0
from schnapsen_env.actions import NUM_ACTIONS
from schnapsen_env.gym_env import SchnapsenGymEnv
from schnapsen_env.observation import OBS_SIZE

ROOT = Path(__file__).resolve().parents[2]
HAS_PZ_REGISTRY = callable(getattr(pettingzoo, "register", None))


def test_ids():
    assert registration.PETTINGZOO_ENV_ID == "schnapsen_env/schnapsen_v0"
    assert registration.GYM_ENV_ID == "schnapsen_env/Schnapsen-v0"


def test_gymnasium_make():
    assert registration.gymnasium_registered is True
    assert gymnasium.spec("schnapsen_env/Schnapsen-v0").entry_point == "schnapsen_env.gym_env:SchnapsenGymEnv"
    env = gymnasium.make("schnapsen_env/Schnapsen-v0", opponent="random", seat="player_1", variant="sechsundsechzig")
    try:
        assert isinstance(env.unwrapped, SchnapsenGymEnv)
        assert env.unwrapped.rules.deck == 24 and env.reset(seed=3)[1]["seat"] == "player_1"
    finally:
        env.close()


def test_register_envs_twice_is_silent():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        registration.register_envs()
        schnapsen_env.registration.register_envs()


@pytest.mark.skipif(not HAS_PZ_REGISTRY, reason="PettingZoo < 1.27 has no pettingzoo.make/register")
@pytest.mark.parametrize("env_id", ["schnapsen_env/schnapsen_v0", "schnapsen_env/schnapsen-v0"])
def test_pettingzoo_make(env_id):
    assert registration.pettingzoo_registered is True
    assert "schnapsen_env/schnapsen-v0" in pettingzoo.aec_registry
    env = pettingzoo.make("aec", env_id, variant="sechsundsechzig")
    assert isinstance(env.unwrapped, schnapsen_v0.raw_env)
    env.reset(seed=1)
    assert env.unwrapped.rules.deck == 24
    assert env.possible_agents == ["player_0", "player_1"]
    assert env.agent_selection in env.possible_agents
    obs, reward, term, trunc, _ = env.last()
    assert obs["observation"].shape == (OBS_SIZE,) and obs["action_mask"].shape == (NUM_ACTIONS,)
    assert (reward, term, trunc) == (0, False, False)


@pytest.mark.skipif(HAS_PZ_REGISTRY, reason="PettingZoo >= 1.27 has a registry")
def test_pettingzoo_without_registry_skips_registration():
    assert registration.pettingzoo_registered is False
    assert not hasattr(pettingzoo, "make")


def _run(*parts: str) -> dict:
    code = "".join(textwrap.dedent(part) for part in parts)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


_REPORT = """
    import json, warnings
    import gymnasium
    from schnapsen_env import registration
    env = gymnasium.make("schnapsen_env/Schnapsen-v0")
    obs, info = env.reset(seed=0)
    print(json.dumps({"pz": registration.pettingzoo_registered, "gym": registration.gymnasium_registered,
                      "obs": list(obs.shape), "seat": info["seat"]}))
"""


def test_import_with_pettingzoo_1_25_api():
    """The real PettingZoo with ``register``/``make`` removed, as on 1.25/1.26: import works, and so
    do ``schnapsen_v0.env()`` and the Gymnasium env (which runs the AEC env inside)."""
    out = _run(
        """
        import pettingzoo
        for name in ("register", "make"):
            if hasattr(pettingzoo, name):
                delattr(pettingzoo, name)
        import schnapsen_env
        from schnapsen_env import schnapsen_v0
        e = schnapsen_v0.env()
        e.reset(seed=2)
        assert e.agents == ["player_0", "player_1"]
        """,
        _REPORT,
    )
    assert out == {"pz": False, "gym": True, "obs": [OBS_SIZE], "seat": "player_0"}


def test_import_without_pettingzoo():
    """PettingZoo not importable at all: the engine and the registration still import."""
    out = _run(
        """
        import sys, json
        sys.modules["pettingzoo"] = None  # import pettingzoo -> ImportError
        import schnapsen_env
        import gymnasium
        from schnapsen_env import registration
        print(json.dumps({"pz": registration.pettingzoo_registered, "gym": registration.gymnasium_registered}))
        """
    )
    assert out == {"pz": False, "gym": True}


def test_engine_import_pulls_in_no_rl_framework():
    """``import schnapsen_env`` / ``schnapsen_env.engine`` imports neither Gymnasium nor PettingZoo nor torch;
    the registration waits for their import."""
    out = _run(
        """
        import sys, json
        import schnapsen_env.engine, schnapsen_env.match, schnapsen_env.replay, schnapsen_env.seeding
        from schnapsen_env import registration
        loaded = sorted(m for m in ("gymnasium", "pettingzoo", "torch", "agents") if m in sys.modules)
        print(json.dumps({"loaded": loaded, "gym": registration.gymnasium_registered}))
        """
    )
    assert out == {"loaded": [], "gym": False}


@pytest.mark.parametrize("first", ["gymnasium", "schnapsen_env"])
def test_registration_in_either_import_order(first):
    second = "schnapsen_env" if first == "gymnasium" else "gymnasium"
    out = _run(
        f"""
        import sys, json
        import {first}
        import {second}
        import gymnasium, pettingzoo
        from schnapsen_env import registration
        env = gymnasium.make("schnapsen_env/Schnapsen-v0")
        hooks = [type(f).__name__ for f in sys.meta_path if type(f).__name__ == "_AfterImport"]
        print(json.dumps({{"gym": registration.gymnasium_registered, "seat": env.reset(seed=0)[1]["seat"],
                           "pz": registration.pettingzoo_registered == hasattr(pettingzoo, "register"),
                           "hooks_left": hooks}}))
        """
    )
    assert out == {"gym": True, "seat": "player_0", "pz": True, "hooks_left": []}


def test_submodules_reachable_right_after_import():
    assert schnapsen_env.schnapsen_v0.raw_env is schnapsen_v0.raw_env
    assert "schnapsen_v0" in dir(schnapsen_env)
    assert schnapsen_env.seeding.SEED_BITS == 63
    with pytest.raises(AttributeError, match="has no attribute 'no_such_module'"):
        schnapsen_env.no_such_module  # noqa: B018
