"""Optional packages named in one line: what only evaluation needs (the ``[eval]`` extra) and the ``sb3:`` agent's
sb3-contrib are imported through :func:`require`, so ``pip install schnapsen-env`` plays without
them."""

from __future__ import annotations

import importlib
from types import ModuleType


def require(module: str, by: str, install: str = "pip install 'schnapsen-env[eval]'") -> ModuleType:
    """``importlib.import_module(module)``; when its top-level package is not installed,
    ``ModuleNotFoundError: BY needs PACKAGE: INSTALL`` (one line, no chained error). ``by``: what
    needs it, as the user names it (``"agents.evaluation.arena"``, an agent spec); ``install``: the command
    that brings it."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        package = module.partition(".")[0]
        # a dependency of the package is missing: its error says which
        if (e.name or "").partition(".")[0] != package:
            raise
        raise ModuleNotFoundError(f"{by} needs {package}: {install}", name=package) from None
