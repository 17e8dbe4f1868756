"""Build the optional compiled core of the solver and the search (agents/players/csrc/*.c).

Project metadata lives in pyproject.toml; this file only adds the C extension.
``pip install -e .`` builds it in place; if no C compiler is available the
build of the extension is skipped (``optional=True``) and ``agents.players.solver``
falls back to its pure-Python search with a warning.
"""

import os
import sys

from setuptools import Extension, setup

_CORE_FILES = ("rules", "solver", "worlds", "search", "parse", "module")
#: the core's files (agents/players/csrc/core.h says what each holds)
SOURCES = [f"agents/players/csrc/{name}.c" for name in _CORE_FILES]
#: GCC/Clang (not on Windows, MSVC): -flto inlines the rules (apply, legal_mask) into the solver's loop across
#: files, -fvisibility=hidden keeps the files' shared globals out of the symbol table; libm for log/sqrt
POSIX = sys.platform != "win32"
#: SCHNAPSEN_CORE_SANITIZE=1: the sanitizer job's build (.ci/run sanitize), whose CFLAGS/LDFLAGS in the environment
#: carry -fsanitize=address,undefined -O1 -g: -O3 (placed after CFLAGS) and -flto (code generated again at link
#: time at -O3) are left out, so -O1 holds and the reports' stacks name the lines
SANITIZE = os.environ.get("SCHNAPSEN_CORE_SANITIZE") == "1"
OPTIMIZE = [] if SANITIZE else ["-O3", "-flto"]

setup(
    ext_modules=[
        Extension(
            "agents.players._solver_core",
            sources=SOURCES,
            depends=["agents/players/csrc/core.h"],
            extra_compile_args=[*OPTIMIZE, "-fvisibility=hidden"] if POSIX else ["/O2"],
            extra_link_args=OPTIMIZE if POSIX else [],
            libraries=["m"] if POSIX else [],
            optional=True,
        )
    ]
)
