"""The slim install: without the [eval] extra (tqdm, choix, scipy, matplotlib) the engine, the envs and the
non-neural agents play, and each evaluation module names what is missing in one line. The packages are
blocked in a subprocess (``sys.modules[name] = None``), so this runs in any environment, the lower-bounds
CI job included."""

import subprocess
import sys

import pytest

from agents.extras import require

EVAL = ("tqdm", "choix", "scipy", "matplotlib")
BLOCK = f"import sys\nfor m in {EVAL!r}: sys.modules[m] = None\n"


def run_blocked(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", BLOCK + code], capture_output=True, text=True, timeout=120)


def test_a_base_install_plays_an_episode_of_each_env_and_an_agent_game():
    code = """
import gymnasium
import numpy as np
import schnapsen_env
from schnapsen_env import schnapsen_v0
from schnapsen_env.engine import GameState
from schnapsen_env.rules import Rules
import agents.apps.play  # the play CLI
from agents import make_agent

env = gymnasium.make("schnapsen_env/Schnapsen-v0", opponent="heuristic")
obs, info = env.reset(seed=0)
done = False
while not done:
    obs, reward, done, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
aec = schnapsen_v0.env()
aec.reset(seed=1)
for name in aec.agent_iter():
    obs, r, term, trunc, _ = aec.last()
    aec.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[-1]))
seats = [make_agent("random", seed=2), make_agent("heuristic")]
state = GameState.from_seed(Rules(), seed=3)
while not state.is_terminal:
    state.apply(seats[state.current_player].act(state.information_set(state.current_player)))
print(reward, state.outcome.game_points > 0, sorted(m for m in sys.modules if m.split(".")[0] in {EVAL!r}))
"""
    proc = run_blocked(code.replace("{EVAL!r}", repr(EVAL)))
    assert proc.returncode == 0, proc.stderr
    reward, scored, loaded = proc.stdout.split(" ", 2)
    assert float(reward) != 0 and scored == "True"
    assert loaded.strip() == "['choix', 'matplotlib', 'scipy', 'tqdm']"  # only the blockers: nothing imported


@pytest.mark.parametrize(
    ("code", "line"),
    [
        ("import agents.evaluation.arena", "agents.evaluation.arena needs tqdm"),
        ("import agents.evaluation.labels", "agents.evaluation.labels needs tqdm"),
        (
            "from agents.evaluation.stats import wilson_interval; wilson_interval(3, 10)",
            "agents.evaluation.stats needs scipy",
        ),
        (
            "from agents.evaluation.stats import bradley_terry_ratings; bradley_terry_ratings('ab', [])",
            "agents.evaluation.stats needs choix",
        ),
    ],
)
def test_a_missing_eval_package_is_named_in_one_line_with_the_install_command(code, line):
    proc = run_blocked(code)
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[-1] == f"ModuleNotFoundError: {line}: pip install 'schnapsen-env[eval]'"
    assert "During handling" not in proc.stderr  # no chained import error


def test_require_passes_a_broken_package_own_error_through(tmp_path, monkeypatch):
    (tmp_path / "brokenpkg.py").write_text("import not_installed_dependency_xyz\n")
    monkeypatch.syspath_prepend(tmp_path)
    with pytest.raises(ModuleNotFoundError, match="^No module named 'not_installed_dependency_xyz'$"):
        require("brokenpkg", "agents.x")
