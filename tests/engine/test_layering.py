"""Layers point down only: the engine and envs (schnapsen_env) import nothing from agents, and no
module of the project takes part in an import cycle (imports inside functions count too).

The engine importing no RL framework is checked in a fresh interpreter by
``tests/env/test_registration.py::test_engine_import_pulls_in_no_rl_framework``.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("schnapsen_env", "agents")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_modules() -> dict[str, Path]:
    return {module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}


def imports_of(name: str, path: Path, known: set) -> set:
    """Project modules imported anywhere in ``path`` (top level or inside functions)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = package.split(".")
                pkg = pkg[: len(pkg) - (node.level - 1)]
                base = ".".join(pkg + ([base] if base else []))
            targets = [base] + [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        for t in targets:
            # the deepest project module the target names
            while t and t not in known:
                t = t.rpartition(".")[0]
            if t and t != name:
                found.add(t)
    return found


def import_graph() -> dict[str, set]:
    mods = project_modules()
    known = set(mods)
    return {name: imports_of(name, path, known) for name, path in mods.items()}


def test_schnapsen_env_imports_nothing_from_agents():
    graph = import_graph()
    offenders = {
        m: sorted(d for d in deps if d.split(".")[0] == "agents")
        for m, deps in graph.items()
        if m.split(".")[0] == "schnapsen_env"
    }
    assert {m: d for m, d in offenders.items() if d} == {}


def test_no_import_cycles():
    graph = import_graph()
    # a package imports its own submodules on purpose (__init__ re-exports); only module -> module edges count
    edges = {m: {d for d in deps if not m.startswith(d + ".")} for m, deps in graph.items()}
    cycles = []
    state: dict = {}

    def visit(m, stack):
        state[m] = "open"
        stack.append(m)
        for d in sorted(edges.get(m, ())):
            if state.get(d) == "open":
                cycles.append(stack[stack.index(d) :] + [d])
            elif d not in state:
                visit(d, stack)
        stack.pop()
        state[m] = "done"

    for m in sorted(edges):
        if m not in state:
            visit(m, [])
    assert cycles == []


def test_the_graph_sees_real_imports():
    # the checker is not vacuous: it finds the imports it must find
    graph = import_graph()
    assert "agents.players.solver" in graph["agents.players.pimc"]
    assert "schnapsen_env.engine" in graph["schnapsen_env.gym_env"]
    assert "agents.registry" in graph["agents.evaluation.arena"]  # `from ..registry import make_agent`
