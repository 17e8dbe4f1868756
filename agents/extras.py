"""Optional packages named in one line: what only evaluation needs (the ``[eval]`` extra) is imported
through :func:`require`, so ``pip install schnapsen-env`` plays without it."""

from __future__ import annotations

import importlib
from types import ModuleType


def require(module: str, by: str, extra: str = "eval") -> ModuleType:
    """``importlib.import_module(module)``; when its top-level package is not installed,
    ``ModuleNotFoundError: BY needs PACKAGE: pip install 'schnapsen-env[EXTRA]'`` (one line, no chained error).
    ``by``: the module that needs it, as the user imports it (``"agents.arena"``)."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        package = module.partition(".")[0]
        if (e.name or "").partition(".")[0] != package:  # a dependency of the package is missing: its error says which
            raise
        raise ModuleNotFoundError(f"{by} needs {package}: pip install 'schnapsen-env[{extra}]'", name=package) from None
