"""Check that .ci/lower-bounds*.txt pin exactly the `>=` bounds of pyproject.toml.

Every `name>=X` in [project] dependencies and the `eval`, `train` and `dev` extras must appear as
`name==X` in one of the constraint files, and every pin there must be such a bound, so
the lower-bounds jobs of .ci/run test what pyproject.toml declares. Exit 1 on a mismatch.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONSTRAINTS = [ROOT / ".ci" / "lower-bounds.txt", ROOT / ".ci" / "lower-bounds-dev.txt"]
EXTRAS = ("eval", "train", "dev")
REQ = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(.*?)\s*(?:;.*)?$")


def norm_name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def norm_version(text: str) -> tuple:
    parts = text.strip().split(".")
    if not all(p.isdigit() for p in parts):
        return (text.strip(),)
    nums = [int(p) for p in parts]
    while len(nums) > 1 and nums[-1] == 0:
        nums.pop()
    return tuple(nums)


def declared_bounds() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = [*project["dependencies"], *(r for extra in EXTRAS for r in project["optional-dependencies"][extra])]
    bounds = {}
    for req in reqs:
        m = REQ.match(req)
        if not m:
            sys.exit(f"cannot parse requirement {req!r}")
        name, spec = norm_name(m.group(1)), m.group(2)
        if name == norm_name(project["name"]):
            continue
        lower = [s.strip()[2:] for s in spec.split(",") if s.strip().startswith(">=")]
        if len(lower) != 1:
            sys.exit(f"{req!r}: expected exactly one '>=' lower bound")
        bounds[name] = lower[0].strip()
    return bounds


def pins() -> dict[str, str]:
    out = {}
    for path in CONSTRAINTS:
        for line in path.read_text().splitlines():
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            name, sep, version = line.partition("==")
            if not sep:
                sys.exit(f"{path.name}: {line!r} is not a `name==version` pin")
            name = norm_name(name.strip())
            if name in out:
                sys.exit(f"{path.name}: {name} pinned twice")
            out[name] = version.strip()
    return out


def main() -> int:
    bounds, pinned = declared_bounds(), pins()
    errors = []
    for name, bound in sorted(bounds.items()):
        if name not in pinned:
            errors.append(f"{name}>={bound} in pyproject.toml has no pin in .ci/lower-bounds*.txt")
        elif norm_version(pinned[name]) != norm_version(bound):
            errors.append(f"{name}: pyproject.toml says >={bound}, .ci/lower-bounds*.txt pins =={pinned[name]}")
    errors += [
        f"{name}=={v} is pinned but not a bound in pyproject.toml"
        for name, v in sorted(pinned.items())
        if name not in bounds
    ]
    for e in errors:
        print("check_lower_bounds:", e, file=sys.stderr)
    if not errors:
        print(f"check_lower_bounds: {len(bounds)} lower bounds match the pins")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
