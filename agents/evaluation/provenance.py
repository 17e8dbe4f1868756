"""Where a result was made, and of what: the provenance block of ``ladder.json`` (and of any result file).

    from agents.evaluation.provenance import agent_fingerprint, run_provenance
    run_provenance(command="python -m agents.evaluation.ladder heuristic")   # version, commit, date, machine, command
    agent_fingerprint("ppo:runs/x/policy.pt")                     # the SHA-256 of the file the spec names

:func:`run_provenance` says what ran and where: the package version, the git commit and whether the checkout
had uncommitted changes (only when the package is imported from a git checkout; absent when installed), the
date (UTC, ISO 8601), the machine (CPU model, usable cores, load average at start, Python and torch
versions) and the command line. :func:`agent_fingerprint` says what was rated: the SHA-256 of the file behind
an agent spec (module docstring of :mod:`agents` for the grammar)."""

from __future__ import annotations

import datetime
import hashlib
import importlib.metadata
import importlib.util
import inspect
import os
import platform
import subprocess
import sys
import sysconfig
from pathlib import Path

from ..registry import REGISTRY, import_user, user_target, parse_spec
from ..players.base import Agent
from ..players.shipped import SHIPPED
from .workers import usable_cpus

#: the distribution name whose version is recorded
DISTRIBUTION = "schnapsen-env"
#: the directory holding the package: a git checkout when it has a .git entry
SOURCE_ROOT = Path(__file__).resolve().parents[2]
#: seconds a git query may take before the commit is recorded as unknown
GIT_TIMEOUT_S = 10.0
#: bytes read at a time while hashing
HASH_BLOCK = 1 << 20
#: the spec parameter that names a file or directory, per agent name of the registry
PATH_PARAMETERS = {"ppo": "path", "ppo-strong": "path", "sb3": "path", "rllib": "checkpoint"}


def sha256_of(path: str | os.PathLike) -> str:
    """Hex SHA-256 of a file's bytes; of a directory, of its files' relative paths and bytes in sorted order
    (``__pycache__`` folders left out). ``OSError`` when it cannot be read."""
    path = Path(path)
    if not path.is_dir():
        return _sha256_files(path, root=None)
    files = sorted(p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    return _sha256_files(*files, root=path)


def _sha256_files(*files: Path, root: Path | None) -> str:
    """Hex SHA-256 of ``files``' bytes in the order given, each after its path relative to ``root`` (a lone
    file without ``root``: its bytes alone)."""
    digest = hashlib.sha256()
    for file in files:
        if root is not None:
            digest.update(file.relative_to(root).as_posix().encode() + b"\0")
        with open(file, "rb") as handle:
            for block in iter(lambda: handle.read(HASH_BLOCK), b""):
                digest.update(block)
    return digest.hexdigest()


def modules_beside(file: Path, folder: Path | None = None) -> list[Path]:
    """``file`` (resolved) and the source of every module this process loaded from ``folder`` (default: the
    file's folder) or below (the agent's own modules it imported), sorted; this project's own packages and
    any installed packages or standard library inside ``folder`` (a virtual environment in it) left out. Call
    it after the file was imported."""
    folder = file.parent if folder is None else folder
    installed = {*sysconfig.get_paths().values(), sys.prefix, sys.base_prefix}
    foreign = [Path(path).resolve() for path in installed]
    foreign = [path for path in foreign if path != folder and path.is_relative_to(folder)]
    project = (SOURCE_ROOT / "agents", SOURCE_ROOT / "schnapsen_env", *foreign)
    loaded = {file}
    for module in list(sys.modules.values()):
        source = getattr(module, "__file__", None)
        # a relative __file__ (a module imported from "" on sys.path) is not resolved against today's folder
        if not isinstance(source, str) or not source.endswith(".py") or not os.path.isabs(source):
            continue
        source = Path(source).resolve()
        if not source.is_relative_to(folder) or any(source.is_relative_to(own) for own in project):
            continue
        if source.is_file():  # a module whose file was removed since it was imported is not what is rated
            loaded.add(source)
    return sorted(loaded)


def _own_modules(file: Path, kind: str) -> dict:
    """The fingerprint of module file ``file`` (imported) and the modules it imported from its own folder, or
    from its package when it is in one (the outermost folder holding ``__init__.py``): ``{"path", "kind",
    "files", "sha256"}``, ``files`` relative to that folder (to the folder above the package), the hash over
    each one's relative path, a NUL byte and its bytes (:func:`_sha256_files`). ``kind`` is completed with
    ``"folder"`` or ``"package"``."""
    folder = file.parent
    while (folder / "__init__.py").is_file() and (folder.parent / "__init__.py").is_file():
        folder = folder.parent
    in_package = (folder / "__init__.py").is_file()
    base = folder.parent if in_package else folder
    files = modules_beside(file, folder)
    return {
        "path": str(file),
        "kind": f"{kind} {'package' if in_package else 'folder'}",
        "files": [source.relative_to(base).as_posix() for source in files],
        "sha256": _sha256_files(*files, root=base),
    }


def agent_fingerprint(agent: str | Agent) -> dict:
    """What an agent spec (or :class:`Agent` instance) rests on: ``{"path", "kind", "sha256"}``, and ``files``
    for a user's module.

    ``kind`` is ``"checkpoint"`` for a ``ppo``/``ppo-strong``/``sb3``/``rllib`` spec (the file or directory
    it names, or the shipped checkpoint of ``ppo``/``ppo-strong``); ``"file and the modules it imported from
    its folder"`` (``... from its package`` for a file inside a package) for ``FILE.py:NAME`` and ``"module
    and the modules it imported from its folder"`` (or ``package``) for ``MODULE:NAME`` (the module is imported;
    :func:`modules_beside` of its folder, or of its outermost package; their paths under ``files``, relative to
    that folder or to the folder above the package, and the hash over paths and bytes); ``"package folder"``
    for ``FOLDER:NAME`` (every file in it); ``"module source of a built-in agent"`` for the others
    (``heuristic``, ``pimc``, ...: the file of its class's module, not the modules that one imports) and
    ``"module source of the instance's class"`` for an instance. ``ValueError`` for a bad spec or a module
    that does not import; ``OSError`` when a file cannot be read."""
    target = None if isinstance(agent, Agent) else user_target(agent)
    if isinstance(agent, Agent):
        path = inspect.getsourcefile(type(agent))
        kind = "module source of the instance's class"
    elif target is not None and target[0].endswith(".py"):
        # ValueError for a missing file or a failing import
        import_user(target[0], target[1], agent)
        return _own_modules(Path(target[0]).resolve(), "file and the modules it imported from its")
    elif target is not None and os.path.isdir(target[0]):
        path = target[0]
        kind = "package folder"
    elif target is not None:
        import_user(target[0], target[1], agent)  # ValueError for a module that does not import
        source = getattr(sys.modules[target[0]], "__file__", None)
        if not isinstance(source, str) or not os.path.isfile(source):
            raise ValueError(f"cannot find the source file of module {target[0]!r}")
        return _own_modules(Path(source).resolve(), "module and the modules it imported from its")
    else:
        name, kwargs = parse_spec(agent)
        if name in PATH_PARAMETERS and PATH_PARAMETERS[name] in kwargs:
            path = kwargs[PATH_PARAMETERS[name]]
            kind = "checkpoint"
        elif name in SHIPPED:
            path = SHIPPED[name]
            kind = "checkpoint"
        else:
            path = _module_file(REGISTRY[name][0])
            kind = "module source of a built-in agent"
    resolved = Path(path).resolve()
    return {"path": str(resolved), "kind": kind, "sha256": sha256_of(resolved)}


def _module_file(module: str) -> str:
    """The source file of an importable module (found without importing it); ``ValueError`` if none."""
    try:
        found = importlib.util.find_spec(module)
    except (ImportError, ValueError) as error:
        raise ValueError(f"cannot find module {module!r}: {error}") from None
    if found is None or not found.origin or not os.path.isfile(found.origin):
        raise ValueError(f"cannot find the source file of module {module!r}")
    return found.origin


def run_provenance(command: str) -> dict:
    """What ran and where, for a result file: ``{"package_version", "git_commit", "git_dirty", "date",
    "machine", "command"}``; the two ``git_*`` keys only when the package is imported from a git checkout
    whose commit git can read. ``date``: UTC, ISO 8601 to the second. ``command``: the command line as the
    caller gives it."""
    info: dict = {"package_version": _package_version()}
    info.update(_git_state())
    info["date"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    info["machine"] = machine()
    info["command"] = command
    return info


def machine() -> dict:
    """``{"cpu", "usable_cores", "load_average", "platform", "python", "torch"}``: the CPU model, the cores
    this process may use (:func:`agents.evaluation.workers.usable_cpus`), the 1-minute load average (None where the
    system has none), the OS and architecture, and the Python and torch versions (torch None if not
    installed)."""
    load = round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None
    return {
        "cpu": _cpu_model(),
        "usable_cores": usable_cpus(),
        "load_average": load,
        "platform": f"{platform.system()} {platform.machine()}",
        "python": platform.python_version(),
        "torch": _installed_version("torch"),
    }


def describe_machine(info: dict) -> str:
    """One line of a :func:`machine` dict: ``"2 cores of AMD EPYC 7B13, load 1.20 at start"``."""
    load = "" if info["load_average"] is None else f", load {info['load_average']:.2f} at start"
    return f"{info['usable_cores']} cores of {info['cpu']}{load}"


def _cpu_model() -> str:
    cpuinfo = Path("/proc/cpuinfo")
    lines = cpuinfo.read_text().splitlines() if cpuinfo.exists() else []
    model = next((line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")), None)
    return model or platform.processor() or platform.machine() or "unknown"


def _package_version() -> str | None:
    return _installed_version(DISTRIBUTION)


def _installed_version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def _git_state() -> dict:
    """``{"git_commit", "git_dirty"}`` of the checkout holding the package (tracked files changed: dirty), or
    ``{}`` when it is no checkout or git cannot tell."""
    if not (SOURCE_ROOT / ".git").exists():
        return {}
    try:
        commit = _git("rev-parse", "HEAD")
        changes = _git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return {}
    return {"git_commit": commit, "git_dirty": bool(changes)}


def _git(*args: str) -> str:
    """``git -C SOURCE_ROOT ARGS``'s output, every ``GIT_*`` variable of the environment cleared for the call
    (``GIT_DIR``, ``GIT_WORK_TREE`` of a hook, a CI step or another repository's script would make git answer
    about that repository instead); ``subprocess.CalledProcessError`` when git fails."""
    environment = {name: value for name, value in os.environ.items() if not name.startswith("GIT_")}
    done = subprocess.run(
        ["git", "-C", str(SOURCE_ROOT), *args],
        capture_output=True,
        text=True,
        timeout=GIT_TIMEOUT_S,
        check=True,
        env=environment,
    )
    return done.stdout.strip()
