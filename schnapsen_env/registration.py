"""Registration of the environments with PettingZoo and Gymnasium (runs on ``import schnapsen_env``).

* PettingZoo: ``pettingzoo.make("aec", "schnapsen_env/schnapsen_v0", **kwargs)``
  (``schnapsen_env.schnapsen_v0:env``; PettingZoo normalises the id to
  ``schnapsen_env/schnapsen-v0``, both spellings work).
* Gymnasium: ``gymnasium.make("schnapsen_env/Schnapsen-v0", opponent=..., seat=...)``
  (``schnapsen_env.gym_env:SchnapsenGymEnv``).

Only entry-point strings are registered, so nothing of the environments is
imported here. A library that is not installed is skipped (the engine needs
neither).
"""

from __future__ import annotations

PETTINGZOO_ENV_ID = "schnapsen_env/schnapsen_v0"
GYM_ENV_ID = "schnapsen_env/Schnapsen-v0"

_registered = False


def register_envs() -> None:
    """Register both environments once per process (later calls do nothing)."""
    global _registered
    if _registered:
        return
    _registered = True
    try:
        import pettingzoo
    except ImportError:
        pass
    else:
        pettingzoo.register("aec", PETTINGZOO_ENV_ID, entry_point="schnapsen_env.schnapsen_v0:env")
    try:
        import gymnasium
    except ImportError:
        pass
    else:
        if GYM_ENV_ID not in gymnasium.registry:
            gymnasium.register(id=GYM_ENV_ID, entry_point="schnapsen_env.gym_env:SchnapsenGymEnv")
