"""Agents for schnapsen-env: the :class:`Agent` interface, baselines, search and neural players.

Build any agent from a spec string with :func:`make_agent`::

    make_agent("random", seed=1)
    make_agent("heuristic")
    make_agent("pimc:samples=40,seed=3")      # agents.pimc.PIMCAgent(samples=40, seed=3)
    make_agent("ppo")                          # agents.neural.PPOAgent (shipped default checkpoint)
    make_agent("ppo:runs/x/checkpoint.pt")     # PPOAgent(path="runs/x/checkpoint.pt")
    make_agent("vu:rdeep,samples=32,depth=6")  # a bot of the PyPI `schnapsen` package (agents.vu)
    make_agent("rllib:checkpoint=runs/r/checkpoint")  # a policy trained with Ray RLlib (agents.rllib)

Spec grammar: ``NAME[:ITEM,ITEM,...]`` where an ITEM is ``key=value`` or, for
``ppo`` (``path``), ``vu`` (``bot``) and ``rllib`` (``checkpoint``), one leading bare value. The whole string is
the spec: no spaces around the name, keys, values or commas, no trailing newline. A key
is a name of ASCII letters, digits and ``_``. A value is read as an int when it is
``-?[0-9]+`` (ASCII digits only: no ``_``, no ``+``, no other digits), as a float when it
is such an int followed by a decimal point and digits and/or an exponent (``1.5``,
``-0.25``, ``1e3``, ``2.5E-2``; not ``.5``, ``5.``, ``nan``, ``inf``), as a bool when it
is ``true`` or ``false`` (``True`` is an error), and is otherwise kept as text (so the
agent names a value like ``1_0`` or ``.5`` as wrong). A ``seed`` item in the spec
(a whole number >= 0) wins over the ``seed`` argument. ``agents.pimc``, ``agents.neural``, ``agents.vu`` and
``agents.rllib`` are imported only when their spec is asked for.
"""

from __future__ import annotations

import importlib
import inspect
import math
import re
from typing import Any

from schnapsen_env.cards import brief_repr
from schnapsen_env.engine import validate_seed

from .base import Agent
from .random_agent import RandomAgent

#: spec name -> (module, class, name of the parameter a bare first item fills, or None)
_REGISTRY: dict[str, tuple[str, str, str | None]] = {
    "random": ("agents.random_agent", "RandomAgent", None),
    "heuristic": ("agents.heuristic", "HeuristicAgent", None),
    "expert": ("agents.expert", "ExpertAgent", None),
    "pimc": ("agents.pimc", "PIMCAgent", None),
    "ismcts": ("agents.ismcts", "OpponentModelAgent", None),
    "ppo": ("agents.neural", "PPOAgent", "path"),
    "vu": ("agents.vu", "VUAgent", "bot"),
    "rllib": ("agents.rllib", "RLlibAgent", "checkpoint"),
}

#: the agent names ``make_agent`` accepts (the part of a spec before ``:``)
AGENT_NAMES: tuple[str, ...] = tuple(_REGISTRY)


#: spec value grammars, matched against the whole value (``fullmatch``; ``[0-9]`` is ASCII only)
_INT_RE = re.compile(r"-?[0-9]+")
_FLOAT_RE = re.compile(r"-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_KEY_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: most digits an int value may have (Python's default int/str conversion limit)
_MAX_INT_DIGITS = 4300


def _shown(spec: str) -> str:
    """A spec for a message: its repr, shortened in the middle when very long (a long path)."""
    text = repr(spec)
    return text if len(text) <= 200 else text[:120] + "..." + text[-77:]


def _bad_value_reason(text: str) -> str | None:
    """Why a spec value cannot be read, or None when it can."""
    if text not in ("true", "false") and text.lower() in ("true", "false"):
        return "write booleans as true or false (lower case)"
    if _INT_RE.fullmatch(text) and len(text.lstrip("-")) > _MAX_INT_DIGITS:
        return f"an int of more than {_MAX_INT_DIGITS} digits"
    if not _INT_RE.fullmatch(text) and _FLOAT_RE.fullmatch(text) and not math.isfinite(float(text)):
        return "too large for a float"
    return None


def _parse_value(text: str) -> Any:
    """A spec value: ``true``/``false`` -> bool, ``-?[0-9]+`` -> int, a decimal or exponent
    number -> float, anything else -> the text unchanged. Raises ``ValueError`` for
    ``True``/``FALSE``-style booleans (write them in lower case), an int of more than 4300
    digits and a float too large to hold."""
    if not isinstance(text, str):
        raise ValueError(f"a spec value must be a string, got {brief_repr(text)}")
    reason = _bad_value_reason(text)
    if reason:
        raise ValueError(f"bad value {brief_repr(text)}: {reason}")
    if text in ("true", "false"):
        return text == "true"
    if _INT_RE.fullmatch(text):
        return int(text)
    if _FLOAT_RE.fullmatch(text):
        return float(text)
    return text


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split an agent spec into ``(name, kwargs)`` without importing anything.

    ``"pimc:samples=40,seed=3"`` -> ``("pimc", {"samples": 40, "seed": 3})``;
    ``"ppo:ckpt.pt"`` -> ``("ppo", {"path": "ckpt.pt"})``. The whole string must follow
    the grammar of the module docstring (no surrounding whitespace or newline anywhere).
    Raises ``ValueError`` naming the spec for an unknown name, an empty or repeated key, a
    key that is not a name, an empty value, whitespace around a name, key or value, a bare
    value where only ``key=value`` is allowed, or a value of :func:`_parse_value`'s errors.
    """
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"agent spec must be a non-empty string like 'pimc:samples=40', got {brief_repr(spec)}")
    name, colon, rest = spec.partition(":")
    if name not in _REGISTRY:
        raise ValueError(f"unknown agent {name!r} in spec {_shown(spec)}: allowed agents are {', '.join(AGENT_NAMES)}"
                         + (" (no whitespace around the name)" if name.strip() in _REGISTRY else ""))
    positional = _REGISTRY[name][2]
    kwargs: dict[str, Any] = {}
    if colon and not rest:
        raise ValueError(f"empty options after ':' in agent spec {_shown(spec)}")
    items = rest.split(",") if colon else []
    for i, item in enumerate(items):
        key, eq, value = item.partition("=")
        if not eq:
            if i == 0 and positional is not None and item:
                if item != item.strip():
                    raise ValueError(f"bad item {item!r} in agent spec {_shown(spec)}: "
                                     f"no whitespace around the {positional}")
                kwargs[positional] = item
                continue
            allowed = f"'key=value' items (or a bare {positional} first)" if positional else "'key=value' items"
            raise ValueError(f"bad item {item!r} in agent spec {_shown(spec)}: allowed {allowed}")
        if not key:
            raise ValueError(f"empty key in item {item!r} of agent spec {_shown(spec)}")
        if not _KEY_RE.fullmatch(key):
            raise ValueError(f"bad key {key!r} in agent spec {_shown(spec)}: a key is a name of ASCII letters, "
                             "digits and _ (no whitespace)")
        if key in kwargs:
            raise ValueError(f"key {key!r} given twice in agent spec {_shown(spec)}")
        if not value:
            raise ValueError(f"empty value for key {key!r} in agent spec {_shown(spec)}")
        reason = "no whitespace around a value" if value != value.strip() else _bad_value_reason(value)
        if reason:
            raise ValueError(f"bad value {brief_repr(value)} for key {key!r} in agent spec {_shown(spec)}: {reason}")
        kwargs[key] = _parse_value(value)
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
    not a whole number >= 0, and for a path the file system refuses, such as a name too
    long: the ``OSError`` becomes a ``ValueError``), and ``ImportError`` when an
    optional agent's module or dependency is missing.
    """
    name, kwargs = parse_spec(spec)
    seed = validate_seed(seed)  # None or an int >= 0 (numpy ints too); ValueError otherwise
    cls = agent_class(name)
    keys = allowed_keys(cls)
    for key in kwargs:
        if key not in keys:
            raise ValueError(
                f"unknown key {key!r} in agent spec {_shown(spec)}: allowed keys for {name!r} are {', '.join(keys)}"
            )
    if "seed" in kwargs and (type(kwargs["seed"]) is not int or kwargs["seed"] < 0):
        raise ValueError(f"bad value {brief_repr(kwargs['seed'])} for key 'seed' in agent spec {_shown(spec)}: "
                         "allowed a whole number >= 0")
    kwargs.setdefault("seed", seed)
    options = spec.partition(":")[2]
    try:
        agent = cls(**kwargs)
    except TypeError as e:
        raise ValueError(f"bad agent spec {_shown(spec)}: {e}") from None
    except ValueError as e:
        if options and options in str(e):  # it already names what was given (a path)
            raise
        raise ValueError(f"bad agent spec {_shown(spec)}: {e}") from None
    except OSError as e:  # a path the file system refuses (name too long, permission, ...)
        raise ValueError(f"bad agent spec {_shown(spec)}: {e.strerror or e}") from None
    agent.name = spec
    return agent


def make_batched_agent(spec: str, rules=None, seed: int | None = None, device=None):
    """A batched agent (:mod:`agents.batched`) for the vector environments and training, from a spec string.

    ``random``, ``heuristic`` and ``ppo`` run on tensors (:class:`agents.batched.BatchedRandom`,
    :class:`agents.batched.BatchedHeuristic`, :class:`agents.batched.BatchedPolicy`: the same decisions
    as their scalar agents, a sampling policy from a torch generator); any other
    spec is its :func:`make_agent` agent run game by game (:class:`agents.batched.ScalarAgents`).
    ``rules``: the :class:`~schnapsen_env.rules.Rules` of the games (default ``Rules()``); ``seed`` as
    for :func:`make_agent` (a ``seed=`` item in the spec wins); ``device``: torch device. Needs torch.
    Raises ``ValueError`` as :func:`make_agent`.
    """
    from schnapsen_env.rules import Rules

    from . import batched

    from schnapsen_env.vector.engine import as_device

    device = as_device(device)  # every batched agent runs on the device it is given, checked here once
    agent = make_agent(spec, seed)
    rules = Rules() if rules is None else rules
    reason = agent.cannot_play(rules)
    if reason:
        raise ValueError(f"agent {spec!r} cannot play these rules: {reason}")
    name = parse_spec(spec)[0]
    if name == "random":
        out = batched.BatchedRandom(seed=agent.seed, device=device)
    elif name == "heuristic":
        out = batched.BatchedHeuristic(rules)
    elif name == "ppo" and agent.endgame == "network":
        out = batched.BatchedPolicy(agent, rules, device)
    else:
        return batched.ScalarAgents(agent)
    out.name = spec
    return out


def __getattr__(attr: str):  # lazy access to the heuristic class: agents.HeuristicAgent
    if attr == "HeuristicAgent":
        return agent_class("heuristic")
    raise AttributeError(f"module 'agents' has no attribute {attr!r}")


__all__ = ["AGENT_NAMES", "Agent", "RandomAgent", "agent_class", "allowed_keys", "make_agent", "parse_spec"]
