"""Your own agent (``FILE.py:NAME``, ``FOLDER:NAME``, ``MODULE:NAME``) is imported by its path
(agents.registry.import_path): two files of one name load side by side, each importing its own folder's modules, its
objects pickle, in worker processes and a fresh interpreter too."""

import importlib
import json
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents import make_agent, user_package
from agents.evaluation.arena import main as arena_main
from agents.evaluation.arena import play_pair
from agents.players.base import PolicyAgent

BOT = """
from helper_rules import lowest

from agents.players.base import Agent


class BotError(Exception):
    pass


class Bot(Agent):
    def act(self, info):
        return lowest(info.legal_actions)
"""
HELPER = "def lowest(actions):\n    return min(actions)\n"
CLASH = "from agents.players.base import Agent\n\nclass MyAgent(Agent):\n    def act(self, info):\n        return info.legal_actions[0]\n"


@pytest.fixture
def bot_folder(tmp_path):
    """``bot/my_bot.py`` importing ``bot/helper_rules.py``."""
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "my_bot.py").write_text(BOT)
    (folder / "helper_rules.py").write_text(HELPER)
    return folder


def test_an_agent_file_imports_its_siblings_in_workers_started_elsewhere(bot_folder, tmp_path, monkeypatch):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    path_before = list(sys.path)
    spec = "../bot/my_bot.py:Bot"
    one = play_pair(spec, "random", 4, 3)
    two = play_pair(spec, "random", 4, 3, workers=2)
    assert two.agents == [spec, "random"] and two.games == 4
    assert [g.actions for g in two.records] == [g.actions for g in one.records]
    assert sys.path == path_before  # nothing appended: the module is keyed by its path


def test_an_agent_files_own_exception_pickles(bot_folder):
    agent = make_agent(f"{bot_folder}/my_bot.py:Bot")
    assert type(agent).__module__ == f"{user_package(bot_folder)}.my_bot"
    error = sys.modules[type(agent).__module__].BotError("bot gave up")
    copy = pickle.loads(pickle.dumps(error))
    assert (type(copy), copy.args) == (type(error), ("bot gave up",))


def test_a_gymnasium_env_with_a_file_opponent_pickles(bot_folder):
    import gymnasium

    env = gymnasium.make("schnapsen_env/Schnapsen-v0", opponent=f"{bot_folder}/my_bot.py:Bot")
    env.reset(seed=4)
    copy = pickle.loads(pickle.dumps(env))
    action = int(env.unwrapped.action_masks().argmax())
    observation, reward, *_ = env.step(action)
    copy_observation, copy_reward, *_ = copy.step(action)
    assert type(copy.unwrapped._opponent_agent).__module__ == f"{user_package(bot_folder)}.my_bot"
    assert (copy_observation.tolist(), copy_reward) == (observation.tolist(), reward)


def test_an_agent_unpickles_in_a_fresh_interpreter_that_never_named_it(bot_folder, tmp_path):
    saved = tmp_path / "agent.pickle"
    saved.write_bytes(pickle.dumps(make_agent(f"{bot_folder}/my_bot.py:Bot")))
    code = "import pickle, sys; agent = pickle.load(open(sys.argv[1], 'rb')); print(type(agent).__module__)"
    done = subprocess.run([sys.executable, "-c", code, str(saved)], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout) == (0, f"{user_package(bot_folder)}.my_bot\n"), done.stderr


def test_a_package_plays_by_folder_and_by_a_file_inside_it(tmp_path):
    package = tmp_path / "mypkg"
    package.mkdir()
    (package / "__init__.py").write_text("from .agent import Bot\n")
    (package / "rules.py").write_text(HELPER)
    (package / "agent.py").write_text(BOT.replace("from helper_rules", "from mypkg.rules"))  # absolute, itself
    by_folder = make_agent(f"{package}:Bot")
    by_file = make_agent(f"{package}/agent.py:Bot")
    assert type(by_folder) is type(by_file)
    assert type(by_file).__module__ == f"{user_package(tmp_path)}.mypkg.agent"


def test_a_dotted_module_spec_is_found_in_the_working_directory(bot_folder, monkeypatch):
    """A console script does not put the working directory on the import path; the spec still finds it."""
    monkeypatch.chdir(bot_folder)
    monkeypatch.setattr(sys, "path", [entry for entry in sys.path if entry not in ("", str(bot_folder))])
    agent = make_agent("my_bot:Bot")
    assert type(agent).__module__ == "my_bot" and sys.path[-1] == str(bot_folder)


@pytest.mark.parametrize("stem", ["random", "agents"])
def test_a_file_named_like_another_module_plays_without_shadowing_it(tmp_path, stem):
    path = tmp_path / f"{stem}.py"
    path.write_text(CLASH)
    agent = make_agent(f"{path}:MyAgent")
    assert type(agent).__module__ == f"{user_package(tmp_path)}.{stem}"
    assert sys.modules[stem].__file__ != str(path)  # the standard library's random, this project's agents


def _versions(root: Path, picks=("0", "-1")) -> list[str]:
    """``root/v1/bot.py`` and ``root/v2/bot.py``, the same file, each importing its own ``helpers.py``: v1 plays
    its first legal action, v2 its last. Returns their specs relative to ``root``."""
    for version, pick in zip(("v1", "v2"), picks):
        folder = root / version
        folder.mkdir()
        (folder / "helpers.py").write_text(f"PICK = {pick}\n")
        (folder / "bot.py").write_text(VERSIONED_BOT)
    return ["v1/bot.py:policy", "v2/bot.py:policy"]


VERSIONED_BOT = """
import numpy as np
from helpers import PICK


def policy(observation, action_mask):
    return np.flatnonzero(action_mask)[PICK]
"""


def _first(observation, action_mask):
    return int(np.flatnonzero(action_mask)[0])


def _last(observation, action_mask):
    return int(np.flatnonzero(action_mask)[-1])


@pytest.mark.parametrize("workers", [1, 2, "ray"])
def test_two_versions_of_one_bot_play_each_other_from_the_command_line(tmp_path, monkeypatch, capsys, workers):
    if workers == "ray":
        pytest.importorskip("ray")
    monkeypatch.chdir(tmp_path)
    specs = _versions(tmp_path)
    placement = ["--ray"] if workers == "ray" else ["--workers", str(workers)]
    arena_main(["--agents", *specs, "--games", "6", "--seed", "5", "--out", "out", "--no-progress", *placement])
    capsys.readouterr()
    pair = json.loads((tmp_path / "out" / "results.json").read_text())["pairs"][0]
    first, last = PolicyAgent(_first), PolicyAgent(_last)
    first.name, last.name = "first", "last"
    expected = play_pair(first, last, 6, 5)
    assert pair["agents"] == specs and pair["wins"] == expected.wins
    assert pair["mean_game_points"] == expected.mean_game_points


def test_a_folder_does_not_import_another_agents_modules(tmp_path):
    _versions(tmp_path)
    (tmp_path / "v1" / "only_v1.py").write_text("X = 1\n")
    (tmp_path / "v2" / "uses_v1.py").write_text(
        "from only_v1 import X\n\ndef policy(observation, mask):\n    return X\n"
    )
    make_agent(f"{tmp_path}/v1/bot.py:policy")
    with pytest.raises(
        ValueError, match=r"cannot import '.*/v2/uses_v1.py': ModuleNotFoundError: No module named 'only_v1'"
    ):
        make_agent(f"{tmp_path}/v2/uses_v1.py:policy")


def _thumb_package(root: Path) -> Path:
    """``root/mybot``: ``agent.py`` (``ThumbAgent``) importing ``rules_of_thumb.py``."""
    package = root / "mybot"
    package.mkdir()
    (package / "__init__.py").write_text("from .agent import ThumbAgent\n")
    (package / "rules_of_thumb.py").write_text("PICK = 0\n")
    (package / "agent.py").write_text(THUMB_AGENT)
    return package


THUMB_AGENT = """
from agents.players.base import Agent
from mybot.rules_of_thumb import PICK


class ThumbAgent(Agent):
    def act(self, info):
        return info.legal_actions[PICK]
"""


@pytest.mark.parametrize("workers", [1, 2])
def test_an_installed_package_named_by_its_path_is_that_package(tmp_path, monkeypatch, capsys, workers):
    """As after ``pip install -e``: the folder is importable by name, and naming it by path is the same files."""
    package = _thumb_package(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend("")  # found relative to the working directory, as `python -c` finds it
    assert type(make_agent(f"{package}:ThumbAgent")).__module__ == "mybot.agent"
    arena_main(
        ["--agents", f"{package}:ThumbAgent", "mybot.agent:ThumbAgent", "random", "--games", "2"]
        + ["--workers", str(workers), "--no-progress"]
    )
    assert "mybot.agent:ThumbAgent" in capsys.readouterr().out


def test_console_scripts_name_the_main_of_each_tool():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    scripts = pyproject["project"]["scripts"]
    assert scripts == {
        "schnapsen-arena": "agents.evaluation.arena:main",
        "schnapsen-ladder": "agents.evaluation.ladder:main",
        "schnapsen-labels": "agents.evaluation.labels:main",
        "schnapsen-exploit": "agents.training.exploit:main",
        "schnapsen-play": "agents.apps.play:main",
        "schnapsen-web": "agents.apps.web.__main__:main",
        "schnapsen-replay": "schnapsen_env.replay:main",
    }
    for target in scripts.values():
        module, _, name = target.partition(":")
        assert callable(getattr(importlib.import_module(module), name))


def test_the_console_script_started_beside_random_py_plays_it(tmp_path):
    """``python -m agents.evaluation.arena`` here would import ./random.py for the standard library's random; the console
    script does not, and the file plays under a name of its path."""
    (tmp_path / "random.py").write_text(CLASH)
    script = Path(sys.executable).parent / "schnapsen-arena"
    command = [str(script), "--agents", "random.py:MyAgent", "random", "--games", "2", "--no-progress"]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("agent A ") and "random.py:MyAgent random " in done.stdout
