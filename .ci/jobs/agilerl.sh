#!/usr/bin/env bash
# CI job `agilerl` (issue 12): AgileRL in its own venv (.ci/venv-agilerl), torch 2.13.0 (CPU) first, then
# the [agilerl] extra. AgileRL pins pettingzoo<1.27 (so 1.26: no pettingzoo.make, schnapsen_v0.env() works)
# and tensordict==0.13.0 (TorchRL 0.14 needs 0.14: the two cannot share a venv). AgileRL 2.58 imports
# peft in `agilerl.algorithms` without declaring it outside its LLM extras, so peft is installed here too.
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 -m venv --clear .ci/venv-agilerl
. .ci/venv-agilerl/bin/activate
python -m pip install -q --upgrade pip
python -m pip install -q torch==2.13.0   # the CPU build; a bare `torch` requirement pulls a CUDA build
python -m pip install -q -e ".[agilerl]" peft pytest
python -m pip list --format=freeze | grep -iE '^(torch|agilerl|tensordict|pettingzoo|gymnasium|numpy|peft)=='
python -c "import torch; assert torch.__version__.startswith('2.13.0'), torch.__version__"
python -c "from agilerl.algorithms import DQN"   # fails loudly (instead of skipping) if AgileRL cannot import
python -m pytest -q tests/env/test_integration_agilerl.py tests/env/test_registration.py tests/env/test_conformance.py tests/env/test_env.py tests/env/test_gym_env.py
