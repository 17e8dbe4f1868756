#!/usr/bin/env bash
# CI job `openspiel` (issue 12): the OpenSpiel game python_schnapsen (schnapsen_env/openspiel.py) in its own
# virtual environment: open_spiel's manylinux wheel from PyPI, the package with the [openspiel] extra, pytest.
# No torch: neither schnapsen_env.openspiel nor the OpenSpiel algorithms the tests run (random simulation test,
# ISMCTS, outcome-sampling MCCFR) import it. Runs tests/env/test_integration_openspiel.py (which must not skip here)
# and the example with its small default.
set -euo pipefail
cd "$(dirname "$0")/../.."

python3 -m venv --clear .ci/venv-openspiel
. .ci/venv-openspiel/bin/activate
python -m pip install -q --upgrade pip
python -m pip install -q -e ".[openspiel]" pytest
python -m pip list --format=freeze | grep -iE '^(open.spiel|numpy|pytest)=='
python -c "import pyspiel, schnapsen_env.openspiel; assert 'python_schnapsen' in pyspiel.registered_names()"
! python -c "import torch" 2>/dev/null || echo "note: torch is installed here, though nothing needs it"
# -rs: list skips; a skipped OpenSpiel test would mean the job tested nothing
out=$(python -m pytest -q -rs tests/env/test_integration_openspiel.py 2>&1) || { echo "$out"; exit 1; }
echo "$out"
if grep -q "skipped" <<<"$out"; then echo "openspiel: tests were skipped although open_spiel is installed" >&2; exit 1; fi
python examples/openspiel_ismcts.py
