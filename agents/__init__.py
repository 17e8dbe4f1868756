"""Agents for schnapsen-env: the :class:`Agent` interface, baselines, search and neural players.

Build any agent from a spec string with :func:`make_agent`::

    make_agent("pimc:samples=40,seed=3")      # agents.pimc.PIMCAgent(samples=40, seed=3)
    make_agent("ppo:runs/x/checkpoint.pt")     # PPOAgent(path="runs/x/checkpoint.pt")
    make_agent("vu:rdeep,samples=32,depth=6")  # a bot of the PyPI `schnapsen` package (agents.vu)
    make_agent("sb3:models/mppo.zip")          # an sb3-contrib MaskablePPO zip (agents.sb3; sample=true draws)

Spec grammar: ``NAME[:ITEM,ITEM,...]``, an ITEM ``key=value`` (each key once) or, for ``ppo``
(``path``), ``vu`` (``bot``), ``rllib`` (``checkpoint``) and ``sb3`` (``path``), one leading bare value; a
leading value that names an existing file may hold ``=`` and ``,``
(``ppo:runs/lr=3e-4,seed=1/policy.pt,sample=true``). A value is an int (``-?[0-9]+``), a float (``1.5``,
``1e3``), a bool (``true``/``false``) or text. A ``seed`` item wins over the ``seed`` argument.

Your own agent: ``MODULE:NAME[:ITEM,...]``, ``path/to/file.py:NAME[:ITEM,...]`` or ``path/to/package:NAME``
(a folder holding ``__init__.py``), where ``NAME`` is an :class:`Agent` subclass (the items are its
constructor's keyword arguments) or a function ``policy(observation, action_mask) -> action`` on the env's
observation (float32 ``(214,)``) and mask (int8 ``(31,)``), played by :class:`agents.base.PolicyAgent`. A file
is imported as the module of its name (``bot/my_bot.py`` as ``my_bot``, its folder appended to ``sys.path``
so that its siblings import and its objects pickle), in worker processes too; a name that is another
module's (``random.py``, ``agents.py``) is refused in one line."""

from __future__ import annotations

import importlib.util
import inspect
import os
import re
import sys
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

from pydantic import ValidationError

from .base import Agent, PolicyAgent
from .random_agent import RandomAgent
from .shipped import SHIPPED

#: spec name -> (module, class, name of the parameter a bare first item fills, or None)
_REGISTRY: dict[str, tuple[str, str, str | None]] = {
    "random": ("agents.random_agent", "RandomAgent", None),
    "heuristic": ("agents.heuristic", "HeuristicAgent", None),
    "expert": ("agents.expert", "ExpertAgent", None),
    "pimc": ("agents.pimc", "PIMCAgent", None),
    "pimc-om": ("agents.pimc_om", "OpponentModelAgent", None),
    "search": ("agents.search", "SearchAgent", None),
    "ppo": ("agents.neural", "PPOAgent", "path"),
    "ppo-strong": ("agents.neural", "StrongPPOAgent", "path"),
    "vu": ("agents.vu", "VUAgent", "bot"),
    "rllib": ("agents.rllib", "RLlibAgent", "checkpoint"),
    "sb3": ("agents.sb3", "SB3Agent", "path"),
}

#: the agent names ``make_agent`` accepts (the part of a spec before ``:``)
AGENT_NAMES: tuple[str, ...] = tuple(_REGISTRY)
#: old spec names -> their names now: each still works for one version, with a ``FutureWarning``
RENAMED = {"ismcts": "pimc-om"}  # 0.1: PIMC with opponent modelling, no information-set tree search

#: spec value grammars, matched against the whole value (``fullmatch``; ``[0-9]`` is ASCII only)
_INT_RE = re.compile(r"-?[0-9]+")
_FLOAT_RE = re.compile(r"-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")


def _parse_value(text: str) -> Any:
    """A spec value: ``true``/``false`` -> bool, ``-?[0-9]+`` -> int, a decimal or exponent number
    -> float, anything else -> the text unchanged."""
    if text in ("true", "false"):
        return text == "true"
    if _INT_RE.fullmatch(text):
        return int(text)
    return float(text) if _FLOAT_RE.fullmatch(text) else text


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split an agent spec into ``(name, kwargs)`` without importing anything: ``"pimc:samples=40,seed=3"``
    -> ``("pimc", {"samples": 40, "seed": 3})``, ``"ppo:ckpt.pt"`` -> ``("ppo", {"path": "ckpt.pt"})``.
    ``ValueError`` naming the spec for an unknown name or an item off the module docstring's grammar."""
    name, colon, rest = spec.partition(":")
    if name in RENAMED:
        msg = f"agent name {name!r} is now {RENAMED[name]!r} (the same agent); {name!r} goes in the next version"
        warnings.warn(msg, FutureWarning, stacklevel=3)  # stacklevel 3: the caller of make_agent
        name = RENAMED[name]
    if name not in _REGISTRY and not _user_target(spec):
        allowed = f"{', '.join(AGENT_NAMES)}, or your own as MODULE:NAME or FILE.py:NAME"
        raise ValueError(f"unknown agent {name!r} in spec {spec!r}: allowed agents are {allowed}")
    if name not in _REGISTRY:
        target, attr, *options = spec.split(":", 2)
        name, colon, rest = f"{target}:{attr}", bool(options), "".join(options)
    positional = _REGISTRY[name][2] if name in _REGISTRY else None
    kwargs: dict[str, Any] = {}
    items = rest.split(",") if colon else []
    # a path may hold "=" and ",": the longest run of leading items that names an existing file is the path
    for k in range(len(items), 0, -1):
        if positional and os.path.isfile(",".join(items[:k])):
            kwargs[positional], items = ",".join(items[:k]), items[k:]
            break
    for i, item in enumerate(items):
        key, eq, value = item.partition("=")
        if not eq and i == 0 and positional and item and not kwargs:
            kwargs[positional] = item
        elif eq and key.isidentifier() and key not in kwargs and value:
            kwargs[key] = _parse_value(value)
        else:
            bare = f" (or a bare {positional} first)" if positional else ""
            raise ValueError(f"bad item {item!r} in agent spec {spec!r}: allowed key=value items, each key once{bare}")
    return name, kwargs


def _user_target(spec: str) -> tuple[str, str] | None:
    """``(target, attribute)`` of a user spec, the target a dotted module name (``MODULE:NAME[:...]``), a file
    (``FILE.py:NAME[:...]``) or a folder holding ``__init__.py`` (``FOLDER:NAME[:...]``); else None."""
    parts = spec.split(":")
    if len(parts) < 2 or parts[0] in _REGISTRY or not parts[1].isidentifier():
        return None
    if parts[0].endswith(".py") or _is_package(parts[0]) or all(p.isidentifier() for p in parts[0].split(".")):
        return parts[0], parts[1]
    return None


def _is_package(target: str) -> bool:
    """Whether ``target`` is a path (it holds a separator) to a folder with an ``__init__.py``."""
    return os.sep in target and os.path.isfile(os.path.join(target, "__init__.py"))


def _is_path(target: str) -> bool:
    """Whether a user spec's module part is a file or folder path rather than a dotted module name."""
    return target.endswith(".py") or _is_package(target)


def portable_spec(spec: str | Agent) -> str | Agent:
    """``spec`` with a user file's path made absolute (``my_agent.py:MyAgent`` -> ``/abs/my_agent.py:MyAgent``),
    so that a worker with another working directory (a Ray worker) imports the same file; other specs and
    agent instances unchanged."""
    target = _user_target(spec) if isinstance(spec, str) else None
    if target is None or not _is_path(target[0]):
        return spec
    return f"{Path(target[0]).resolve()}{spec[len(target[0]) :]}"


def _import_user(target: str, attr: str, spec: str) -> Any:
    """The object ``attr`` of module ``target``: a dotted name, or a ``.py`` file or package folder imported
    as a real module (:func:`_import_path`); ``ValueError`` naming the spec when it does not import, its
    module name is taken, or it has no ``attr``."""
    if target.endswith(".py") and not os.path.isfile(target):
        raise ValueError(f"agent spec {spec!r}: no file {target!r} (looked from {os.getcwd()})")
    try:
        module = _import_path(Path(target).resolve()) if _is_path(target) else _import_dotted(target)
    except ModuleClash as e:
        raise ValueError(f"agent spec {spec!r}: {e}") from None
    except Exception as e:  # the user's module: any error it raises while importing is the spec's fault
        raise ValueError(f"agent spec {spec!r}: cannot import {target!r}: {type(e).__name__}: {e}") from None
    if not hasattr(module, attr):
        raise ValueError(f"agent spec {spec!r}: {target!r} has no {attr!r}")
    return getattr(module, attr)


def _import_dotted(target: str) -> ModuleType:
    """Module ``target`` (``pkg.mod``) as ``import`` finds it, else from the working directory, appended to
    ``sys.path`` (``python -m`` puts it first, a console script such as ``schnapsen-ladder`` does not)."""
    if importlib.util.find_spec(target.partition(".")[0]) is None and os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())
    return importlib.import_module(target)


class ModuleClash(ImportError):
    """A user's agent file or package has the module name of another module (``random.py``, ``agents.py``,
    or two agent files both named ``bot.py``)."""


def _import_path(path: Path) -> ModuleType:
    """The module of an absolute ``.py`` file or package folder ``path``, imported by name as any module is:
    the folder above it (above its outermost package: ``pkg/sub/bot.py`` is ``pkg.sub.bot``) goes at the end
    of ``sys.path``, after the standard library and this project, so that the file's siblings import and its
    classes, functions and exceptions pickle (here, in worker processes, in a fresh interpreter).
    ``ModuleClash`` when that name is another module's; what the module raises while importing, as it is."""
    name = path.name.removesuffix(".py")
    if "." in name:
        raise ModuleClash(f"{path.name!r} cannot be imported as a module: rename it without the inner dot")
    parts = [name]
    root = path.parent
    while (root / "__init__.py").is_file():
        parts.insert(0, root.name)
        root = root.parent
    top = parts[0]
    if reason := _taken(top, root):
        advice = "rename your file or folder" if len(parts) == 1 else f"rename your package {root / top}"
        raise ModuleClash(f"its module name {top!r} is already {reason}: {advice}")
    if str(root) not in sys.path:
        sys.path.append(str(root))
    return importlib.import_module(".".join(parts))


def _taken(top: str, root: Path) -> str | None:
    """What the top-level module name ``top`` is when it is not the file or package of that name in
    ``root`` (imported already, or found first on ``sys.path``); None when it is free or that one."""
    found = sys.modules.get(top) or importlib.util.find_spec(top)  # a top-level name: runs nothing
    if found is None:
        return None
    origin = getattr(found, "__file__", None) if top in sys.modules else found.origin
    if origin is None or not os.path.isabs(origin):
        return "a built-in or namespace module"
    mine = (root / f"{top}.py", root / top / "__init__.py")
    return None if Path(origin).resolve() in mine else f"the module {origin}"


def agent_class(name: str) -> type:
    """The class behind an agent name (imports its module; ``ImportError`` if it is missing)."""
    module, cls, _ = _REGISTRY[name]
    return getattr(importlib.import_module(module), cls)


def allowed_keys(cls: type) -> list[str]:
    """The keyword arguments a spec may set for agent class ``cls`` (its ``__init__`` parameters)."""
    params = inspect.signature(cls.__init__).parameters
    variadic = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    return [p for p in params if p != "self" and params[p].kind not in variadic]


def make_agent(spec: str, seed: int | None = None) -> Agent:
    """An :class:`Agent` named ``spec`` built from a spec string (see the module docstring); ``seed`` unless
    the spec has ``seed=``. ``ValueError`` naming a bad spec; ``ImportError`` for a missing optional dependency."""
    name, kwargs = parse_spec(spec)  # a name outside the registry is a user's MODULE:NAME or FILE.py:NAME
    cls = agent_class(name) if name in _REGISTRY else _import_user(*_user_target(spec), spec)
    if not (isinstance(cls, type) and issubclass(cls, Agent)):  # a user's policy function, or no agent at all
        if isinstance(cls, type) or not callable(cls):
            kinds = "an Agent subclass or a function policy(observation, action_mask) -> action"
            raise ValueError(f"agent spec {spec!r}: {name.split(':')[1]!r} is a {type(cls).__name__}, not {kinds}")
        if kwargs:
            raise ValueError(f"agent spec {spec!r}: a policy function takes no options, got {', '.join(kwargs)}")
        agent = PolicyAgent(cls, seed)
        agent.name = spec
        return agent
    keys = allowed_keys(cls)
    if getattr(cls, "endgame", None) is not None:
        keys.append("endgame")  # applied by a wrapper, agents.endgame.EndgameAgent (below)
    for key in kwargs:
        if key not in keys:
            allowed = f"allowed keys for {name!r} are {', '.join(keys)}"
            raise ValueError(f"unknown key {key!r} in agent spec {spec!r}: {allowed}")
    if "seed" in keys:
        kwargs.setdefault("seed", seed)
    endgame = kwargs.pop("endgame", "network")
    try:
        agent = cls(**kwargs)
        if endgame != "network":
            from .endgame import EndgameAgent

            agent.name = spec
            agent = EndgameAgent(agent, endgame=endgame, seed=kwargs.get("seed"))
    except ValidationError as e:  # the constructor's pydantic check (agents.base.checked_arguments)
        err = e.errors()[0]
        where = ".".join(map(str, err["loc"]))
        raise ValueError(f"bad agent spec {spec!r}: {where}: {err['msg']}, got {err['input']!r}") from None
    except (TypeError, ValueError, OSError) as e:
        options = spec.partition(":")[2]
        if isinstance(e, ValueError) and os.sep in options and options in str(e):  # it names the path given
            raise
        raise ValueError(f"bad agent spec {spec!r}: {e}") from None
    agent.name = spec
    return agent


def make_batched_agent(spec: str, rules=None, seed: int | None = None, device=None):
    """A batched agent (:mod:`agents.batched`) from a spec string: ``random``, ``heuristic`` and ``ppo`` run
    on tensors, any other spec runs its :func:`make_agent` agent game by game. ``ValueError`` as
    :func:`make_agent` and for ``rules`` (default ``Rules()``) the agent cannot play."""
    from schnapsen_env.rules import Rules
    from schnapsen_env.vector.engine import as_device

    from . import batched

    device = as_device(device)  # every batched agent runs on the device it is given, checked here once
    agent = make_agent(spec, seed)
    rules = Rules() if rules is None else rules
    if reason := agent.cannot_play(rules):
        raise ValueError(f"agent {spec!r} cannot play these rules: {reason}")
    name = spec.partition(":")[0]  # make_agent parsed and checked the spec
    if name == "random":
        out = batched.BatchedRandom(seed=agent.seed, device=device)
    elif name == "heuristic":
        out = batched.BatchedHeuristic(rules)
    elif name in SHIPPED and agent.endgame == "network":
        out = batched.BatchedPolicy(agent, rules, device)
    else:
        return batched.ScalarAgents(agent)
    out.name = spec
    return out


__all__ = ["AGENT_NAMES", "SHIPPED", "Agent", "RandomAgent", "agent_class", "allowed_keys", "make_agent", "parse_spec"]
