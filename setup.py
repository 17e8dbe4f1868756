"""Build the optional compiled core of the solver (agents/_solver_core.c).

Project metadata lives in pyproject.toml; this file only adds the C extension.
``pip install -e .`` builds it in place; if no C compiler is available the
build of the extension is skipped (``optional=True``) and ``agents.solver``
falls back to its pure-Python search with a warning.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "agents._solver_core",
            sources=["agents/_solver_core.c"],
            extra_compile_args=["-O3"],
            optional=True,
        )
    ]
)
