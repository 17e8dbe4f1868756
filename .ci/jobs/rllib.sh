#!/usr/bin/env bash
# CI job `rllib` (issue 12): Ray RLlib in its own virtual environment (ray[rllib] pins its own Gymnasium,
# 1.2.x for ray 2.60, below the main environment's). Installs torch (the CPU build on this disk, first: a bare
# `torch` pulls a CUDA build), the package with the [rllib] extra and pytest; then
# * tests/env/test_integration_rllib.py: the MultiAgentEnv adapter, examples/rllib_selfplay.py for 2 tiny
#   iterations on a local Ray (ray.init(num_cpus=2)), the rllib:checkpoint=PATH arena agent, and
#   `python -m agents.evaluation.arena --ray` / play_pair(ray=True) equal to a local run. Only its two tests of the
#   messages shown *without* Ray may skip here;
# * the environment and arena tests on RLlib's Gymnasium (the project must work on that version too).
# About 2 minutes on 2 cores (the installs take most of it).
set -euo pipefail
cd "$(dirname "$0")/../.."

python3 -m venv --clear .ci/venv-rllib
. .ci/venv-rllib/bin/activate
python -m pip install -q --upgrade pip
python -m pip install -q torch==2.13.0
python -m pip install -q -e ".[rllib]" pytest pytest-xdist hypothesis
python -m pip list --format=freeze | grep -iE '^(ray|gymnasium|pettingzoo|numpy|torch|pytest)=='
python -c "import ray.rllib, schnapsen_env.rllib"
# Ray writes its session logs under /tmp/ray; a job-local temp dir keeps runs apart
export RAY_TMPDIR="${RAY_TMPDIR:-$(mktemp -d /tmp/ray-ci.XXXXXX)}"
out=$(python -m pytest -q -rs tests/env/test_integration_rllib.py 2>&1) || { echo "$out"; exit 1; }
echo "$out"
if grep -E "^SKIPPED" <<<"$out" | grep -vq "checks the message shown without Ray"; then
    echo "rllib: an RLlib test was skipped although ray[rllib] is installed" >&2; exit 1
fi
python -m pytest -q -n 2 tests/env/test_conformance.py tests/env/test_env.py tests/env/test_gym_env.py tests/env/test_registration.py \
    tests/env/test_observation.py tests/agents/test_arena.py tests/agents/test_agents.py tests/engine/test_layering.py
