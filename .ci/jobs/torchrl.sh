#!/usr/bin/env bash
# CI job `torchrl` (issue 12): TorchRL in its own venv (.ci/venv-torchrl), torch 2.13.0 (CPU) first,
# then the [torchrl] extra (torchrl + tensordict as pip resolves them against that torch); runs the
# adapter's tests (tests/env/test_integration_torchrl.py, which also runs examples/torchrl_collect.py), then
# the same tests at the extra's lower bound (torchrl 0.14.0, tensordict 0.14.2).
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 -m venv --clear .ci/venv-torchrl
. .ci/venv-torchrl/bin/activate
python -m pip install -q --upgrade pip
python -m pip install -q torch==2.13.0   # the CPU build; a bare `torch` requirement pulls a CUDA build
python -m pip install -q -e ".[torchrl]" pytest
python -m pip list --format=freeze | grep -iE '^(torch|torchrl|tensordict|pettingzoo|gymnasium|numpy)=='
python -c "import torch; assert torch.__version__.startswith('2.13.0'), torch.__version__"
python -m pytest -q tests/env/test_integration_torchrl.py
# the lower bound of the extra (torchrl>=0.14: `Collector` and `auto_register_policy_transforms` are 0.14 API),
# with the lowest tensordict it allows
python -m pip install -q "torchrl==0.14.0" "tensordict==0.14.2"
python -m pip list --format=freeze | grep -iE '^(torchrl|tensordict)=='
python -m pytest -q tests/env/test_integration_torchrl.py
