"""Registration of the environments with PettingZoo and Gymnasium (runs on ``import schnapsen_env``).

``pettingzoo.make("aec", "schnapsen_env/schnapsen_v0")`` (PettingZoo >= 1.27; else
:data:`pettingzoo_registered` stays False), ``gymnasium.make("schnapsen_env/Schnapsen-v0", ...)``
and ``gymnasium.make_vec(..., num_envs=N)`` (the batched view, needs torch). Only entry-point
strings are registered, and lazily: a library imported later is registered right after its import (a
one-shot hook on ``sys.meta_path``), so the engine never imports an RL framework.
"""

from __future__ import annotations

import importlib.abc
import sys
from collections.abc import Callable
from types import ModuleType

PETTINGZOO_ENV_ID = "schnapsen_env/schnapsen_v0"
GYM_ENV_ID = "schnapsen_env/Schnapsen-v0"

#: whether ``pettingzoo.make("aec", PETTINGZOO_ENV_ID)`` is available in this process
#: (PettingZoo installed and new enough to have a registry, i.e. >= 1.27)
pettingzoo_registered = False
#: whether ``gymnasium.make(GYM_ENV_ID)`` is available in this process
gymnasium_registered = False

_registered = False


def _register_pettingzoo(pettingzoo: ModuleType) -> None:
    global pettingzoo_registered
    register = getattr(pettingzoo, "register", None)
    if callable(register) and not pettingzoo_registered:
        register("aec", PETTINGZOO_ENV_ID, entry_point="schnapsen_env.schnapsen_v0:env")
        pettingzoo_registered = True


def _register_gymnasium(gymnasium: ModuleType) -> None:
    global gymnasium_registered
    if GYM_ENV_ID not in gymnasium.registry:
        gymnasium.register(
            id=GYM_ENV_ID,
            entry_point="schnapsen_env.gym_env:SchnapsenGymEnv",
            vector_entry_point="schnapsen_env.vector.env:SchnapsenVectorGymEnv",
        )
    gymnasium_registered = True


#: library name -> its registration, for the libraries not imported yet
_pending: dict[str, Callable[[ModuleType], None]] = {}


class _AfterImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: for a pending library it asks the other finders, and wraps the
    loader so that the registration runs right after the library's module has executed."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in _pending:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec = find(fullname, path, target)
            if spec is not None:
                break
        else:
            return None  # not installed: the import fails as it would anyway
        if spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _RegisteringLoader(spec.loader, fullname)
        return spec


class _RegisteringLoader(importlib.abc.Loader):
    def __init__(self, loader: importlib.abc.Loader, name: str):
        self._loader, self._name = loader, name

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        # the module sees its real loader (resources, reload); we only run after it
        module.__loader__ = self._loader
        if module.__spec__ is not None:
            module.__spec__.loader = self._loader
        self._loader.exec_module(module)
        register = _pending.pop(self._name, None)
        if not _pending:
            _uninstall_hook()
        if register is not None:
            register(module)

    def __getattr__(self, name: str):
        return getattr(self._loader, name)


_HOOK = _AfterImport()


def _uninstall_hook() -> None:
    if _HOOK in sys.meta_path:
        sys.meta_path.remove(_HOOK)


def register_envs() -> None:
    """Register both environments once per process: libraries already imported now, the others after
    their first import; a missing library or a PettingZoo < 1.27 is skipped silently."""
    global _registered
    if _registered:
        return
    _registered = True
    for name, register in (
        ("gymnasium", _register_gymnasium),
        ("pettingzoo", _register_pettingzoo),
    ):
        module = sys.modules.get(name)
        if module is not None:
            register(module)
        else:
            _pending[name] = register
    if _pending and _HOOK not in sys.meta_path:
        sys.meta_path.insert(0, _HOOK)
