"""The registry of agents: the spec grammar, the agent names, :func:`make_agent` and
:func:`make_batched_agent`, and your own agent imported by its path.

Build any agent from a spec string with :func:`make_agent`::

    make_agent("pimc:samples=40,seed=3")      # agents.players.pimc.PIMCAgent(samples=40, seed=3)
    make_agent("ppo:runs/x/checkpoint.pt")     # PPOAgent(path="runs/x/checkpoint.pt")
    make_agent("vu:rdeep,samples=32,depth=6")  # a bot of the PyPI `schnapsen` package (agents.players.vu)
    make_agent("sb3:models/mppo.zip")          # an sb3-contrib MaskablePPO zip (agents.players.sb3; sample=true draws)

Spec grammar: ``NAME[:ITEM,ITEM,...]``, an ITEM ``key=value`` (each key once) or, for ``ppo``
(``path``), ``vu`` (``bot``), ``rllib`` (``checkpoint``) and ``sb3`` (``path``), one leading bare value; a
leading value that names an existing file may hold ``=`` and ``,``
(``ppo:runs/lr=3e-4,seed=1/policy.pt,sample=true``). A value is an int (``-?[0-9]+``), a float (``1.5``,
``1e3``), a bool (``true``/``false``) or text. A ``seed`` item wins over the ``seed`` argument.

Your own agent: ``MODULE:NAME[:ITEM,...]``, ``path/to/file.py:NAME[:ITEM,...]`` or ``path/to/package:NAME``
(a folder holding ``__init__.py``), where ``NAME`` is an :class:`Agent` subclass (the items are its
constructor's keyword arguments) or a function ``policy(observation, action_mask) -> action`` on the env's
observation (float32 ``(214,)``) and mask (int8 ``(31,)``), played by :class:`agents.players.base.PolicyAgent`. A file
or folder is imported by its path (:func:`import_path`): ``v1/bot.py`` and ``v2/bot.py`` load side by side, each
importing the modules of its own folder (``from helpers import ...``), in worker processes too; what an agent
returns is read by :func:`agents.players.base.action_id`."""

from __future__ import annotations

import base64
import builtins
import importlib.abc
import importlib.machinery
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

from .players.base import Agent, PolicyAgent
from .players.shipped import SHIPPED

#: spec name -> (module, class, name of the parameter a bare first item fills, or None)
REGISTRY: dict[str, tuple[str, str, str | None]] = {
    "random": ("agents.players.random_agent", "RandomAgent", None),
    "heuristic": ("agents.players.heuristic", "HeuristicAgent", None),
    "expert": ("agents.players.expert", "ExpertAgent", None),
    "pimc": ("agents.players.pimc", "PIMCAgent", None),
    "pimc-om": ("agents.players.pimc_om", "OpponentModelAgent", None),
    "search": ("agents.players.search", "SearchAgent", None),
    "ppo": ("agents.players.neural", "PPOAgent", "path"),
    "ppo-strong": ("agents.players.neural", "StrongPPOAgent", "path"),
    "vu": ("agents.players.vu", "VUAgent", "bot"),
    "rllib": ("agents.players.rllib", "RLlibAgent", "checkpoint"),
    "sb3": ("agents.players.sb3", "SB3Agent", "path"),
}

#: the agent names ``make_agent`` accepts (the part of a spec before ``:``)
AGENT_NAMES: tuple[str, ...] = tuple(REGISTRY)
#: old spec names -> their names now: each still works for one version, with a ``FutureWarning``
RENAMED = {"ismcts": "pimc-om"}  # 0.1: PIMC with opponent modelling, no information-set tree search

#: spec value grammars, matched against the whole value (``fullmatch``; ``[0-9]`` is ASCII only)
_INT_RE = re.compile(r"-?[0-9]+")
_FLOAT_RE = re.compile(r"-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")


def parse_value(text: str) -> Any:
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
    if name not in REGISTRY and not user_target(spec):
        allowed = f"{', '.join(AGENT_NAMES)}, or your own as MODULE:NAME or FILE.py:NAME"
        raise ValueError(f"unknown agent {name!r} in spec {spec!r}: allowed agents are {allowed}")
    if name not in REGISTRY:
        target, attr, *options = spec.split(":", 2)
        name = f"{target}:{attr}"
        colon = bool(options)
        rest = "".join(options)
    positional = REGISTRY[name][2] if name in REGISTRY else None
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
            kwargs[key] = parse_value(value)
        else:
            bare = f" (or a bare {positional} first)" if positional else ""
            raise ValueError(f"bad item {item!r} in agent spec {spec!r}: allowed key=value items, each key once{bare}")
    return name, kwargs


def user_target(spec: str) -> tuple[str, str] | None:
    """``(target, attribute)`` of a user spec, the target a dotted module name (``MODULE:NAME[:...]``), a file
    (``FILE.py:NAME[:...]``) or a folder holding ``__init__.py`` (``FOLDER:NAME[:...]``); else None."""
    parts = spec.split(":")
    if len(parts) < 2 or parts[0] in REGISTRY or not parts[1].isidentifier():
        return None
    target = parts[0]
    dotted_name = all(part.isidentifier() for part in target.split("."))
    if target.endswith(".py") or _is_package(target) or dotted_name:
        return target, parts[1]
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
    target = user_target(spec) if isinstance(spec, str) else None
    if target is None or not _is_path(target[0]):
        return spec
    return f"{Path(target[0]).resolve()}{spec[len(target[0]) :]}"


def import_user(target: str, attr: str, spec: str) -> Any:
    """The object ``attr`` of module ``target``: a dotted name, or a ``.py`` file or package folder imported
    by its path (:func:`import_path`); ``ValueError`` naming the spec when it does not import or has no
    ``attr``."""
    if target.endswith(".py") and not os.path.isfile(target):
        raise ValueError(f"agent spec {spec!r}: no file {target!r} (looked from {os.getcwd()})")
    try:
        module = import_path(Path(target).resolve()) if _is_path(target) else _import_dotted(target)
    except UnimportablePath as e:
        raise ValueError(f"agent spec {spec!r}: {e}") from None
    except Exception as e:
        # the user's module: any error it raises while importing is the spec's fault
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


class UnimportablePath(ImportError):
    """A user's agent file whose name cannot be a module's (``my.bot.py``: a dot inside the
    name)."""


#: the module name of a user's folder: this prefix, then the folder's resolved path (:func:`user_package`)
USER_PACKAGE_PREFIX = "agents._user_"
#: top-level names that always mean this project, even from a user's folder holding a file of that name
PROJECT_PACKAGES = frozenset({"agents", "schnapsen_env"})


def user_package(folder: Path) -> str:
    """The module name a user's agent ``folder`` (absolute, resolved) is imported under:
    :data:`USER_PACKAGE_PREFIX` and the folder's path in lowercase base32 (``agents._user_f5ygs4dq...``).
    Made from the path alone, so a worker process, a Ray task and a fresh interpreter name the same folder
    alike, and :class:`_UserFolderFinder` reads the folder back from it (unpickling needs nothing else)."""
    encoded = base64.b32encode(os.fsencode(folder)).decode("ascii").rstrip("=").lower()
    return f"{USER_PACKAGE_PREFIX}{encoded}"


def _user_folder(package: str) -> Path | None:
    """The folder of :func:`user_package` name ``package``; None when the name is no such
    encoding."""
    encoded = package.removeprefix(USER_PACKAGE_PREFIX).upper()
    try:
        return Path(os.fsdecode(base64.b32decode(encoded + "=" * (-len(encoded) % 8))))
    except ValueError:  # binascii.Error is a ValueError
        return None


def _module_parts(path: Path) -> tuple[Path, list[str]]:
    """The import root of an absolute ``.py`` file or package folder ``path`` (the folder above its
    outermost package: ``root/pkg/sub/bot.py``) and its module name's parts there (``pkg``, ``sub``,
    ``bot``). :class:`UnimportablePath` for a file name holding a dot."""
    name = path.name.removesuffix(".py")
    if "." in name:
        msg = f"{path.name!r} cannot be imported as a module: rename it without the inner dot"
        raise UnimportablePath(msg)
    parts = [name]
    root = path.parent
    while (root / "__init__.py").is_file():
        parts.insert(0, root.name)
        root = root.parent
    return root, parts


def import_path(path: Path) -> ModuleType:
    """The module of an absolute ``.py`` file or package folder ``path``, keyed by its path, not its name.

    When ``import`` already finds these very files under their plain name (``pkg.agent``: the package is
    installed, ``pip install -e`` too, or its folder is on ``sys.path``), that module. Otherwise the file is
    imported inside the package of its import root (:func:`user_package`: ``v1/bot.py`` as
    ``agents._user_<v1>.bot``, ``v2/bot.py`` as ``agents._user_<v2>.bot``), so two files or folders of one name
    load side by side, ``sys.path`` is left as it is, and their classes, functions and exceptions pickle (here,
    in worker processes, in a fresh interpreter that imports ``agents``). An ``import`` statement in a module of
    that folder finds the folder's own modules first, as when the file is run as a script (``from helpers
    import x``: that folder's ``helpers.py``, not another agent's); other names (and ``agents``,
    ``schnapsen_env``) as usual. :class:`UnimportablePath` for a name with an inner dot; what the module
    raises while importing, as it is."""
    root, parts = _module_parts(path)
    if _found_as(parts[0]) in (root / f"{parts[0]}.py", root / parts[0] / "__init__.py"):
        return importlib.import_module(".".join(parts))
    return importlib.import_module(".".join([user_package(root), *parts]))


def _found_as(top: str) -> Path | None:
    """The resolved file that the top-level name ``top`` imports (imported already, or found first by the
    import system; nothing is run), or None (not found, built-in, namespace package)."""
    module = sys.modules.get(top)
    if module is not None:
        origin = getattr(module, "__file__", None)
    else:
        try:
            found = importlib.util.find_spec(top)
        except (ImportError, ValueError):
            return None
        origin = None if found is None else found.origin
    if origin is None or not os.path.isfile(origin):  # "built-in", "frozen", a namespace package
        return None
    # a relative origin (sys.path's "") resolves against today's folder
    return Path(origin).resolve()


def _is_sibling(folder: Path, name: str) -> bool:
    """Whether top-level ``name`` is a module of the user's ``folder``: ``name.py``, a package
    ``name/__init__.py``, or a folder ``name/`` that no other module provides (a namespace package)."""
    if name in PROJECT_PACKAGES:
        return False
    if (folder / f"{name}.py").is_file() or (folder / name / "__init__.py").is_file():
        return True
    return (folder / name).is_dir() and importlib.util.find_spec(name) is None


def _sibling_builtins(package: str, folder: Path) -> dict:
    """The ``__builtins__`` of the modules of user folder ``package``: the builtins, with an ``__import__``
    that imports a top-level name the folder holds (:func:`_is_sibling`) as ``package.name``."""
    siblings: dict[str, bool] = {}  # name -> whether it is the folder's, asked once per name
    context = {"__package__": package}

    # A001: the name of the builtin it wraps
    def __import__(name, globals=None, locals=None, fromlist=(), level=0):  # noqa: A001
        if level == 0 and name:
            top = name.partition(".")[0]
            if top not in siblings:
                siblings[top] = _is_sibling(folder, top)
            if siblings[top]:  # as "from . import name" in the folder's package
                return builtins.__import__(name, context, locals, fromlist, 1)
        return builtins.__import__(name, globals, locals, fromlist, level)

    return {**builtins.__dict__, "__import__": __import__}


class _UserSourceLoader(importlib.machinery.SourceFileLoader):
    """Loads a module of a user's folder with the folder's ``__builtins__``
    (:func:`_sibling_builtins`)."""

    def __init__(self, fullname: str, path: str, builtins_of: dict):
        super().__init__(fullname, path)
        self.builtins_of = builtins_of

    def exec_module(self, module: ModuleType) -> None:
        module.__builtins__ = self.builtins_of
        super().exec_module(module)


class _FolderLoader(importlib.abc.Loader):
    """The package of a user's folder (:func:`user_package`): no code of its own, the folder as
    its path."""

    def create_module(self, spec):
        return None

    def exec_module(self, module: ModuleType) -> None:
        pass


class _UserFolderFinder(importlib.abc.MetaPathFinder):
    """Finds ``agents._user_<folder>`` (:func:`user_package`) and the modules below it, in any process that
    imported ``agents``; one is installed first on ``sys.meta_path`` when ``agents`` is imported (it answers
    None at once for any other name)."""

    def __init__(self) -> None:
        self._builtins: dict[str, dict] = {}  # package -> its modules' __builtins__

    def find_spec(self, fullname: str, path=None, target=None):
        if not fullname.startswith(USER_PACKAGE_PREFIX):
            return None
        package, dot, _ = fullname.partition(".")[2].partition(".")
        package = f"agents.{package}"
        folder = _user_folder(package)
        if folder is None or not folder.is_dir():
            return None
        if not dot:
            spec = importlib.machinery.ModuleSpec(fullname, _FolderLoader(), is_package=True)
            spec.submodule_search_locations = [str(folder)]
            return spec
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is not None and type(spec.loader) is importlib.machinery.SourceFileLoader:
            if package not in self._builtins:
                self._builtins[package] = _sibling_builtins(package, folder)
            spec.loader = _UserSourceLoader(fullname, spec.origin, self._builtins[package])
        return spec


if not any(isinstance(finder, _UserFolderFinder) for finder in sys.meta_path):
    # before the path finder, which would load them plainly
    sys.meta_path.insert(0, _UserFolderFinder())


def agent_class(name: str) -> type:
    """The class behind an agent name (imports its module; ``ImportError`` if it is missing)."""
    module, cls, _ = REGISTRY[name]
    return getattr(importlib.import_module(module), cls)


def allowed_keys(cls: type) -> list[str]:
    """The keyword arguments a spec may set for agent class ``cls`` (its ``__init__`` parameters)."""
    params = inspect.signature(cls.__init__).parameters
    variadic = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    return [p for p in params if p != "self" and params[p].kind not in variadic]


def make_agent(spec: str, seed: int | None = None) -> Agent:
    """An :class:`Agent` named ``spec`` built from a spec string (see the module docstring); ``seed`` unless
    the spec has ``seed=``. ``ValueError`` naming a bad spec; ``ImportError`` for a missing optional dependency."""
    # a name outside the registry is a user's MODULE:NAME or FILE.py:NAME
    name, kwargs = parse_spec(spec)
    cls = agent_class(name) if name in REGISTRY else import_user(*user_target(spec), spec)
    if not (isinstance(cls, type) and issubclass(cls, Agent)):
        # a user's policy function, or no agent at all
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
        keys.append("endgame")  # applied by a wrapper, agents.players.endgame.EndgameAgent (below)
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
            from .players.endgame import EndgameAgent

            agent.name = spec
            agent = EndgameAgent(agent, endgame=endgame, seed=kwargs.get("seed"))
    except ValidationError as e:
        # the constructor's pydantic check (agents.players.base.checked_arguments)
        err = e.errors()[0]
        where = ".".join(map(str, err["loc"]))
        raise ValueError(f"bad agent spec {spec!r}: {where}: {err['msg']}, got {err['input']!r}") from None
    except (TypeError, ValueError, OSError) as e:
        options = spec.partition(":")[2]
        if isinstance(e, ValueError) and os.sep in options and options in str(e):
            # it names the path given
            raise
        raise ValueError(f"bad agent spec {spec!r}: {e}") from None
    agent.name = spec
    return agent


def make_batched_agent(spec: str, rules=None, seed: int | None = None, device=None):
    """A batched agent (:mod:`agents.players.batched`) from a spec string: ``random``, ``heuristic`` and ``ppo`` run
    on tensors, any other spec runs its :func:`make_agent` agent game by game. ``ValueError`` as
    :func:`make_agent` and for ``rules`` (default ``Rules()``) the agent cannot play."""
    from schnapsen_env.rules import Rules
    from schnapsen_env.vector.engine import as_device

    from .players import batched

    # every batched agent runs on the device it is given, checked here once
    device = as_device(device)
    agent = make_agent(spec, seed)
    rules = Rules() if rules is None else rules
    reason = agent.cannot_play(rules)
    if reason:
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
