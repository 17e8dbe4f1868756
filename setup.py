"""Build the optional compiled core of the solver (agents/_solver_core.c).

Project metadata lives in pyproject.toml; this file only adds the C extension.
``pip install -e .`` builds it in place; if no C compiler is available the
build of the extension is skipped (``optional=True``) and ``agents.solver``
falls back to its pure-Python search with a warning.
"""

import sys

from setuptools import Extension, setup

#: -ffp-contract=off: no fused multiply-add, so the search loop's UCB sums round as Python's do (exact parity
#: with agents/search.py's reference loop); libm for log/sqrt. GCC/Clang flags: not on Windows (MSVC).
POSIX = sys.platform != "win32"

setup(
    ext_modules=[
        Extension(
            "agents._solver_core",
            sources=["agents/_solver_core.c"],
            extra_compile_args=["-O3", "-ffp-contract=off"] if POSIX else ["/O2", "/fp:precise"],
            libraries=["m"] if POSIX else [],
            optional=True,
        )
    ]
)
