"""Build the optional compiled core of the solver and the search (agents/csrc/*.c).

Project metadata lives in pyproject.toml; this file only adds the C extension.
``pip install -e .`` builds it in place; if no C compiler is available the
build of the extension is skipped (``optional=True``) and ``agents.solver``
falls back to its pure-Python search with a warning.
"""

import sys

from setuptools import Extension, setup

#: the core's files (agents/csrc/core.h says what each holds)
SOURCES = [f"agents/csrc/{name}.c" for name in ("rules", "solver", "worlds", "search", "parse", "module")]
#: GCC/Clang (not on Windows, MSVC): -flto inlines the rules (apply, legal_mask) into the solver's loop across
#: files, -fvisibility=hidden keeps the files' shared globals out of the symbol table; libm for log/sqrt
POSIX = sys.platform != "win32"
#: CFLAGS="-fsanitize=address,undefined" in the environment builds the sanitizer job's core (.ci/run sanitize)

setup(
    ext_modules=[
        Extension(
            "agents._solver_core",
            sources=SOURCES,
            depends=["agents/csrc/core.h"],
            extra_compile_args=["-O3", "-flto", "-fvisibility=hidden"] if POSIX else ["/O2"],
            extra_link_args=["-flto", "-O3"] if POSIX else [],
            libraries=["m"] if POSIX else [],
            optional=True,
        )
    ]
)
