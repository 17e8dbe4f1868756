"""Agents for schnapsen-env: the :class:`Agent` interface, baselines, search and neural players.

Build any agent from a spec string with :func:`make_agent`::

    make_agent("random", seed=1)
    make_agent("heuristic")
    make_agent("pimc:samples=40,seed=3")      # agents.pimc.PIMCAgent(samples=40, seed=3)
    make_agent("ppo")                          # agents.neural.PPOAgent (shipped default checkpoint)
    make_agent("ppo:runs/x/checkpoint.pt")     # PPOAgent(path="runs/x/checkpoint.pt")
    make_agent("vu:rdeep,samples=32,depth=6")  # a bot of the PyPI `schnapsen` package (agents.vu)

Spec grammar: ``NAME[:ITEM,ITEM,...]`` where an ITEM is ``key=value`` or, for
``ppo`` (``path``) and ``vu`` (``bot``), one leading bare value. Values are read as
int, float, ``true``/``false`` or else kept as text. A ``seed`` item in the spec
(a whole number >= 0) wins over the ``seed`` argument. ``agents.pimc``, ``agents.neural`` and
``agents.vu`` are imported only when their spec is asked for.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from .base import Agent
from .random_agent import RandomAgent

#: spec name -> (module, class, name of the parameter a bare first item fills, or None)
_REGISTRY: dict[str, tuple[str, str, str | None]] = {
    "random": ("agents.random_agent", "RandomAgent", None),
    "heuristic": ("agents.heuristic", "HeuristicAgent", None),
    "pimc": ("agents.pimc", "PIMCAgent", None),
    "ppo": ("agents.neural", "PPOAgent", "path"),
    "vu": ("agents.vu", "VUAgent", "bot"),
}

#: the agent names ``make_agent`` accepts (the part of a spec before ``:``)
AGENT_NAMES: tuple[str, ...] = tuple(_REGISTRY)


def _parse_value(text: str) -> Any:
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split an agent spec into ``(name, kwargs)`` without importing anything.

    ``"pimc:samples=40,seed=3"`` -> ``("pimc", {"samples": 40, "seed": 3})``;
    ``"ppo:ckpt.pt"`` -> ``("ppo", {"path": "ckpt.pt"})``. Raises ``ValueError``
    naming the spec for an unknown name, an empty or repeated key, or a bare value
    where only ``key=value`` is allowed.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"agent spec must be a non-empty string like 'pimc:samples=40', got {spec!r}")
    name, _, rest = spec.strip().partition(":")
    if name not in _REGISTRY:
        raise ValueError(f"unknown agent {name!r} in spec {spec!r}: allowed agents are {', '.join(AGENT_NAMES)}")
    positional = _REGISTRY[name][2]
    kwargs: dict[str, Any] = {}
    if rest == "" and ":" in spec:
        raise ValueError(f"empty options after ':' in agent spec {spec!r}")
    items = rest.split(",") if rest else []
    for i, item in enumerate(items):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq:
            if i == 0 and positional is not None and key:
                kwargs[positional] = key
                continue
            allowed = f"'key=value' items (or a bare {positional} first)" if positional else "'key=value' items"
            raise ValueError(f"bad item {item!r} in agent spec {spec!r}: allowed {allowed}")
        if not key:
            raise ValueError(f"empty key in item {item!r} of agent spec {spec!r}")
        if key in kwargs:
            raise ValueError(f"key {key!r} given twice in agent spec {spec!r}")
        kwargs[key] = _parse_value(value.strip())
    return name, kwargs


def agent_class(name: str) -> type:
    """The class behind an agent name (imports its module; ``ImportError`` if it is missing)."""
    if name not in _REGISTRY:
        raise ValueError(f"unknown agent {name!r}: allowed agents are {', '.join(AGENT_NAMES)}")
    module, cls, _ = _REGISTRY[name]
    return getattr(importlib.import_module(module), cls)


def allowed_keys(cls: type) -> list[str]:
    """The keyword arguments a spec may set for agent class ``cls`` (its ``__init__`` parameters)."""
    params = inspect.signature(cls.__init__).parameters
    return [p for p in params if p != "self" and params[p].kind not in (inspect.Parameter.VAR_POSITIONAL,
                                                                       inspect.Parameter.VAR_KEYWORD)]


def make_agent(spec: str, seed: int | None = None) -> Agent:
    """An :class:`Agent` built from a spec string (see the module docstring).

    ``seed`` seeds the agent unless the spec has its own ``seed=`` item. The
    agent's ``name`` is set to ``spec``. Raises ``ValueError`` naming the spec and
    the allowed agents or keys when the spec is bad (also for a ``seed=`` item that is
    not a whole number >= 0), and ``ImportError`` when an
    optional agent's module or dependency is missing.
    """
    name, kwargs = parse_spec(spec)
    cls = agent_class(name)
    keys = allowed_keys(cls)
    for key in kwargs:
        if key not in keys:
            raise ValueError(
                f"unknown key {key!r} in agent spec {spec!r}: allowed keys for {name!r} are {', '.join(keys)}"
            )
    if "seed" in kwargs and (type(kwargs["seed"]) is not int or kwargs["seed"] < 0):
        raise ValueError(f"bad value {kwargs['seed']!r} for key 'seed' in agent spec {spec!r}: "
                         "allowed a whole number >= 0")
    if seed is not None and type(seed) is not int:
        raise ValueError(f"seed must be a whole number or None, got {type(seed).__name__} {seed!r}")
    kwargs.setdefault("seed", seed)
    try:
        agent = cls(**kwargs)
    except TypeError as e:
        raise ValueError(f"bad agent spec {spec!r}: {e}") from None
    except ValueError as e:
        if spec.strip().partition(":")[2].strip() in str(e):  # it already names what was given (a path)
            raise
        raise ValueError(f"bad agent spec {spec!r}: {e}") from None
    agent.name = spec.strip()
    return agent


def __getattr__(attr: str):  # lazy access to the heuristic class: agents.HeuristicAgent
    if attr == "HeuristicAgent":
        return agent_class("heuristic")
    raise AttributeError(f"module 'agents' has no attribute {attr!r}")


__all__ = ["AGENT_NAMES", "Agent", "RandomAgent", "agent_class", "allowed_keys", "make_agent", "parse_spec"]
