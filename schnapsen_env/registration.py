"""Registration of the environments with PettingZoo and Gymnasium (runs on ``import schnapsen_env``).

* PettingZoo: ``pettingzoo.make("aec", "schnapsen_env/schnapsen_v0", **kwargs)``
  (``schnapsen_env.schnapsen_v0:env``; PettingZoo normalises the id to
  ``schnapsen_env/schnapsen-v0``, both spellings work). PettingZoo has an
  environment registry (``pettingzoo.register``/``pettingzoo.make``) only from
  version 1.27; on 1.25 and 1.26 this registration is skipped (feature-detected,
  not version-compared) and :data:`pettingzoo_registered` stays ``False``.
  ``from schnapsen_env import schnapsen_v0; schnapsen_v0.env(**kwargs)`` works
  on every supported PettingZoo.
* Gymnasium: ``gymnasium.make("schnapsen_env/Schnapsen-v0", opponent=..., seat=...)``
  (``schnapsen_env.gym_env:SchnapsenGymEnv``).

Only entry-point strings are registered, so nothing of the environments is
imported here. A library that is not installed is skipped (the engine needs
neither).
"""

from __future__ import annotations

PETTINGZOO_ENV_ID = "schnapsen_env/schnapsen_v0"
GYM_ENV_ID = "schnapsen_env/Schnapsen-v0"

#: whether ``pettingzoo.make("aec", PETTINGZOO_ENV_ID)`` is available in this process
#: (PettingZoo installed and new enough to have a registry, i.e. >= 1.27)
pettingzoo_registered = False
#: whether ``gymnasium.make(GYM_ENV_ID)`` is available in this process
gymnasium_registered = False

_registered = False


def register_envs() -> None:
    """Register both environments once per process (later calls do nothing).

    A library that is missing, or a PettingZoo without ``register`` (< 1.27), is
    skipped silently; see :data:`pettingzoo_registered` and :data:`gymnasium_registered`.
    """
    global _registered, pettingzoo_registered, gymnasium_registered
    if _registered:
        return
    _registered = True
    try:
        import pettingzoo
    except ImportError:
        pass
    else:
        register = getattr(pettingzoo, "register", None)
        if callable(register):
            register("aec", PETTINGZOO_ENV_ID, entry_point="schnapsen_env.schnapsen_v0:env")
            pettingzoo_registered = True
    try:
        import gymnasium
    except ImportError:
        pass
    else:
        if GYM_ENV_ID not in gymnasium.registry:
            gymnasium.register(id=GYM_ENV_ID, entry_point="schnapsen_env.gym_env:SchnapsenGymEnv")
        gymnasium_registered = True
