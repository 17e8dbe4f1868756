#!/usr/bin/env bash
# CI job `torchrl` (issue 12): TorchRL in its own venv (.ci/venv-torchrl), torch 2.13.0 (CPU) first,
# then the [torchrl] extra (torchrl + tensordict as pip resolves them against that torch); runs the
# adapter's tests (tests/test_integration_torchrl.py, which also runs examples/torchrl_collect.py).
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 -m venv --clear .ci/venv-torchrl
. .ci/venv-torchrl/bin/activate
python -m pip install -q --upgrade pip
python -m pip install -q torch==2.13.0   # the CPU build; a bare `torch` requirement pulls a CUDA build
python -m pip install -q -e ".[torchrl]" pytest
python -m pip list --format=freeze | grep -iE '^(torch|torchrl|tensordict|pettingzoo|gymnasium|numpy)=='
python -c "import torch; assert torch.__version__.startswith('2.13.0'), torch.__version__"
python -m pytest -q tests/test_integration_torchrl.py
