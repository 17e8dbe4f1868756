"""Your own agent (``FILE.py:NAME``, ``FOLDER:NAME``, ``MODULE:NAME``) is imported as a real module
(agents.make_agent): its siblings import, its objects pickle, in worker processes too; a name taken by
another module is refused in one line."""

import importlib
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from agents import make_agent
from agents.arena import main as arena_main
from agents.arena import play_pair

BOT = """
from helper_rules import lowest

from agents.base import Agent


class BotError(Exception):
    pass


class Bot(Agent):
    def act(self, info):
        return lowest(info.legal_actions)
"""
HELPER = "def lowest(actions):\n    return min(actions)\n"
CLASH = "from agents.base import Agent\n\nclass MyAgent(Agent):\n    def act(self, info):\n        return 0\n"


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
    spec = "../bot/my_bot.py:Bot"
    one = play_pair(spec, "random", 4, 3)
    two = play_pair(spec, "random", 4, 3, workers=2)
    assert two.agents == [spec, "random"] and two.games == 4
    assert [g.actions for g in two.records] == [g.actions for g in one.records]
    assert sys.path[-1] == str(bot_folder)  # after the standard library and the project


def test_an_agent_files_own_exception_pickles(bot_folder):
    agent = make_agent(f"{bot_folder}/my_bot.py:Bot")
    assert type(agent).__module__ == "my_bot"
    error = sys.modules["my_bot"].BotError("bot gave up")
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
    assert type(copy.unwrapped._opponent_agent).__module__ == "my_bot"
    assert (copy_observation.tolist(), copy_reward) == (observation.tolist(), reward)


def test_a_package_plays_by_folder_and_by_a_file_inside_it(tmp_path):
    package = tmp_path / "mypkg"
    package.mkdir()
    (package / "__init__.py").write_text("from .agent import Bot\n")
    (package / "rules.py").write_text(HELPER)
    (package / "agent.py").write_text(BOT.replace("from helper_rules", "from .rules"))
    by_folder = make_agent(f"{package}:Bot")
    by_file = make_agent(f"{package}/agent.py:Bot")
    assert type(by_folder) is type(by_file)
    assert type(by_file).__module__ == "mypkg.agent"


def test_a_dotted_module_spec_is_found_in_the_working_directory(bot_folder, monkeypatch):
    """A console script does not put the working directory on the import path; the spec still finds it."""
    monkeypatch.chdir(bot_folder)
    monkeypatch.setattr(sys, "path", [entry for entry in sys.path if entry not in ("", str(bot_folder))])
    agent = make_agent("my_bot:Bot")
    assert type(agent).__module__ == "my_bot" and sys.path[-1] == str(bot_folder)


@pytest.mark.parametrize("stem", ["random", "agents"])
def test_a_file_named_like_another_module_is_refused_in_one_line(tmp_path, stem):
    path = tmp_path / f"{stem}.py"
    path.write_text(CLASH)
    origin = Path(sys.modules[stem].__file__)
    message = f"agent spec '{path}:MyAgent': its module name '{stem}' is already the module {origin}: rename your file or folder"
    with pytest.raises(ValueError) as raised:
        make_agent(f"{path}:MyAgent")
    assert str(raised.value) == message


def test_two_agent_files_of_one_name_are_refused_in_one_line(bot_folder, tmp_path):
    other = tmp_path / "v2"
    other.mkdir()
    (other / "my_bot.py").write_text(CLASH)
    make_agent(f"{bot_folder}/my_bot.py:Bot")
    with pytest.raises(
        ValueError, match=f"its module name 'my_bot' is already the module {bot_folder}/my_bot.py: rename"
    ):
        make_agent(f"{other}/my_bot.py:MyAgent")


def test_the_arena_exits_2_naming_the_clash(tmp_path, capsys):
    (tmp_path / "random.py").write_text(CLASH)
    with pytest.raises(SystemExit) as stopped:
        arena_main(["--agents", f"{tmp_path}/random.py:MyAgent", "random", "--games", "2"])
    error = capsys.readouterr().err
    assert stopped.value.code == 2 and error.count("\n") == 1
    assert "its module name 'random' is already the module" in error


def test_console_scripts_name_the_main_of_each_tool():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    scripts = pyproject["project"]["scripts"]
    assert scripts == {
        "schnapsen-arena": "agents.arena:main",
        "schnapsen-ladder": "agents.ladder:main",
        "schnapsen-labels": "agents.labels:main",
        "schnapsen-exploit": "agents.exploit:main",
        "schnapsen-play": "agents.play:main",
        "schnapsen-web": "agents.web.__main__:main",
        "schnapsen-replay": "schnapsen_env.replay:main",
    }
    for target in scripts.values():
        module, _, name = target.partition(":")
        assert callable(getattr(importlib.import_module(module), name))


def test_the_console_script_started_beside_random_py_names_the_clash(tmp_path):
    """``python -m agents.arena`` here would import ./random.py for the standard library's random."""
    (tmp_path / "random.py").write_text(CLASH)
    script = Path(sys.executable).parent / "schnapsen-arena"
    command = [str(script), "--agents", "random.py:MyAgent", "random", "--games", "2"]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "agent spec 'random.py:MyAgent': its module name 'random' is already the module" in done.stderr
