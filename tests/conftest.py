"""Fixtures for the whole suite."""

import sys

import pytest


@pytest.fixture(autouse=True)
def _forget_user_agent_modules(tmp_path_factory):
    """Each test loads agent files from its own temporary folder as a fresh process would: ``make_agent``
    imports a file as the module named after it (two tests' ``my_agent.py`` would otherwise clash), so the
    modules loaded from temporary folders and the import path entries a test added go when it ends."""
    path = list(sys.path)
    yield
    temporary = str(tmp_path_factory.getbasetemp())
    for name, module in list(sys.modules.items()):
        if (getattr(module, "__file__", None) or "").startswith(temporary):
            del sys.modules[name]
    sys.path[:] = path
