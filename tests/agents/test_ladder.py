"""The ladder (agents.ladder) and user agents named by import path (agents.make_agent)."""

import importlib.util
import json

import pytest

from agents import make_agent
from agents.arena import play_pair, round_robin
from agents.base import Agent, PolicyAgent
from agents.heuristic import HeuristicAgent
from agents.ladder import fit_rating, ladder, load_ladder, main
from schnapsen_env import Rules

USER_MODULE = """
from agents.base import Agent

class First(Agent):
    def __init__(self, seed=None, pick: int = 0):
        super().__init__(seed)
        self.pick = pick

    def act(self, info):
        return info.legal_actions[self.pick % len(info.legal_actions)]

def policy(observation, action_mask):
    return int(action_mask.nonzero()[0][-1])

def one_argument(observation):
    return 0

def illegal(observation, action_mask):
    return 30 if not action_mask[30] else 0

NOT_AN_AGENT = 3
"""


@pytest.fixture
def user_file(tmp_path):
    path = tmp_path / "my_agent.py"
    path.write_text(USER_MODULE)
    return str(path)


def test_user_agent_by_file_path_with_options(user_file):
    agent = make_agent(f"{user_file}:First:pick=1", seed=4)
    assert (type(agent).__name__, agent.pick, agent.seed, agent.name) == ("First", 1, 4, f"{user_file}:First:pick=1")


def test_user_agent_by_module_path_plays_like_the_registered_one():
    by_path = play_pair("agents.heuristic:HeuristicAgent", "random", 20, 3)
    registered = play_pair("heuristic", "random", 20, 3)
    assert by_path.records == registered.records


def test_policy_function_plays_the_env_observation_and_mask(user_file):
    agent = make_agent(f"{user_file}:policy")
    assert isinstance(agent, PolicyAgent)
    result = play_pair(agent, "random", 10, 1)
    assert result.games == 10 and sum(result.wins) == 10


def test_user_agent_plays_in_worker_processes(user_file):
    one = play_pair(f"{user_file}:First", "random", 20, 5)
    two = play_pair(f"{user_file}:First", "random", 20, 5, workers=2)
    assert one.to_dict() == two.to_dict()


def test_a_relative_file_spec_reaches_workers_in_another_directory(user_file, tmp_path, monkeypatch):
    """A worker that starts elsewhere (a Ray worker) gets the file's absolute path; the spec keeps its name."""
    from agents import portable_spec
    from agents.arena import _chunk_task

    monkeypatch.chdir(tmp_path)
    assert portable_spec("my_agent.py:First:pick=1") == f"{user_file}:First:pick=1"
    assert portable_spec("agents.heuristic:HeuristicAgent") == "agents.heuristic:HeuristicAgent"
    assert portable_spec("ppo:runs/x.pt") == "ppo:runs/x.pt"
    assert play_pair("my_agent.py:First", "random", 4, 5).agents[0] == "my_agent.py:First"  # named as given
    task = (portable_spec("my_agent.py:First"), "random", Rules().to_dict(), 5, 0, 0, 4, True, False)
    monkeypatch.chdir(tmp_path.parent)  # the worker's directory: the relative path would not name the file
    assert len(_chunk_task(task)) == 4


@pytest.mark.parametrize(
    "name, message",
    [
        ("one_argument", "policy 'one_argument' takes (observation): it must take (observation, action_mask)"),
        ("NOT_AN_AGENT", "'NOT_AN_AGENT' is a int, not an Agent subclass or a function"),
        ("Missing", "has no 'Missing'"),
    ],
)
def test_user_spec_that_is_no_agent_is_refused_in_one_line(user_file, name, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        make_agent(f"{user_file}:{name}")


def test_user_spec_that_does_not_import_is_refused_in_one_line():
    with pytest.raises(ValueError, match="cannot import 'no_such_module': ModuleNotFoundError"):
        make_agent("no_such_module:Agent")


def test_checkpoint_path_may_hold_equals_and_commas(tmp_path):
    from agents import parse_spec

    folder = tmp_path / "lr=3e-4,seed=1"
    folder.mkdir()
    (folder / "policy.pt").write_bytes(b"")
    spec = f"ppo:{folder}/policy.pt,sample=true"
    assert parse_spec(spec) == ("ppo", {"path": f"{folder}/policy.pt", "sample": True})


def test_round_robin_rates_agent_instances_by_name():
    mine = HeuristicAgent()
    mine.name = "mine"
    report = round_robin([mine, "random"], games=10, seed=3)
    assert set(report["ratings"]) == {"mine", "random"}


def test_round_robin_refuses_two_agents_of_one_name():
    with pytest.raises(ValueError, match=r"distinct names, got \['random', 'random'\]"):
        round_robin([make_agent("random"), "random"], games=2, seed=0)


def test_illegal_action_names_the_action_the_game_and_the_move(user_file):
    with pytest.raises(ValueError, match=r"returned illegal action 30 in game 0 at move \d+; legal were \["):
        play_pair(f"{user_file}:illegal", "random", 2, 0)


def test_fit_rating_of_an_even_record_against_one_rung_is_that_rung():
    rating, low, high = fit_rating([(300.0, 200, 200)])
    assert rating == 300.0 and low < 300.0 < high and round(300 - low) == round(high - 300)


def test_fit_rating_is_finite_for_an_unbeaten_agent():
    rating, low, high = fit_rating([(0.0, 50, 0)])
    assert 400 < rating < 1000 and low < rating < high


def test_ladder_v1_has_the_fixed_rungs():
    rungs = load_ladder(1)["rungs"]
    assert [r["opponent"] for r in rungs] == ["random", "heuristic", "expert", "pimc:samples=40", "ppo", "ppo-strong"]
    assert rungs[0]["rating"] == 0.0


def test_unknown_ladder_version_is_refused():
    with pytest.raises(ValueError, match="unknown ladder version 7: known versions are 1"):
        load_ladder(7)


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="the ppo rungs need torch")
def test_ladder_report_and_files(tmp_path, capsys):
    assert main(["random", "--games", "2", "--workers", "1", "--out", str(tmp_path), "--no-progress"]) == 0
    report = json.loads((tmp_path / "ladder.json").read_text())
    assert {"ladder_version", "agent", "rating", "low", "high", "games", "rungs"} <= set(report)
    assert report["games"] == 12 and report["agent"] == "random" and (tmp_path / "ladder.png").stat().st_size > 0
    assert capsys.readouterr().out.splitlines()[-3].startswith(f"ladder v1 rating {report['rating']:.0f} [")


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="the ppo rungs need torch")
def test_ladder_of_an_instance_equals_the_ladder_of_its_spec():
    class Mine(HeuristicAgent):
        pass

    mine: Agent = Mine()
    mine.name = "mine"
    by_instance, by_spec = ladder(mine, games=2), ladder("agents.heuristic:HeuristicAgent", games=2)
    assert [r["wins"] for r in by_instance["rungs"]] == [r["wins"] for r in by_spec["rungs"]]


def test_play_pair_advances_a_callers_progress_callback_by_finished_games():
    counts: list = []
    result = play_pair("heuristic", "random", 120, 3, progress=counts.append)
    assert counts == [50, 50, 20] and result.records == play_pair("heuristic", "random", 120, 3).records


@pytest.fixture
def two_cheap_rungs(monkeypatch):
    full = load_ladder(1)
    monkeypatch.setattr("agents.ladder.load_ladder", lambda version: {**full, "rungs": full["rungs"][:2]})


def _untimed(report: dict) -> dict:
    return {**report, "rungs": [{k: v for k, v in row.items() if k != "ms_per_decision"} for row in report["rungs"]]}


def test_ladder_draws_one_bar_over_all_games_and_equal_results_for_any_workers(two_cheap_rungs, monkeypatch):
    from tqdm import tqdm

    shown_bars = []  # (description, total, count) of each bar drawn, when it closes

    class Bar(tqdm):
        def close(self):
            if not self.disable:
                shown_bars.append((self.desc, self.total, self.n))
            super().close()

    monkeypatch.setattr("agents.ladder.tqdm", Bar)
    monkeypatch.setattr("agents.arena.tqdm", Bar)
    shown = ladder("heuristic", games=8, progress=True)
    assert shown_bars == [("ladder v1", 16, 16)]  # the ladder's bar, no pair's own
    hidden, two = ladder("heuristic", games=8), ladder("heuristic", games=8, workers=2, progress=True)
    assert _untimed(shown) == _untimed(hidden) == _untimed(two) and [r["wins"] for r in two["rungs"]] == [6, 4]
