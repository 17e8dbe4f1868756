"""A user's agent through the command line (arena and ladder, --workers 1 and 2): any integer move it may
return, its exception one line with the traceback beside the results, the right commit with another
repository's GIT_* variables set, and a package agent's fingerprint over the modules of its package."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from agents.evaluation.arena import TRACEBACK_FILE, play_pair
from agents.evaluation.arena import main as arena_main
from agents.evaluation.ladder import main as ladder_main
from agents.evaluation.provenance import SOURCE_ROOT

torch = pytest.importorskip("torch")

#: a user's file: an Agent and a policy function returning the first legal action as CONVERT makes it
MOVES = """
import numpy as np
import torch

from agents.players.base import Agent


def convert(action):
    return {convert}


class FirstAgent(Agent):
    def act(self, info):
        return convert(info.legal_actions[0])


def first_policy(observation, action_mask):
    return convert(int(np.flatnonzero(action_mask)[0]))
"""

ACCEPTED = ["np.array(action)", "torch.tensor(action)", "np.int64(action)", "np.array(action, dtype=np.uint8)"]
REFUSED = [
    ("float(action)", "float"),
    ("action == action", "bool"),
    ("str(action)", "str"),
    ("np.array([action, action])", "ndarray (dtype int64, shape (2,))"),
    ("torch.tensor(float(action))", "Tensor (dtype torch.float32, shape ())"),
]


def _moves_file(folder: Path, convert: str) -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / "moves.py"
    path.write_text(MOVES.format(convert=convert))
    return path


def _arena(argv: list[str], capsys) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of ``python -m agents.evaluation.arena ARGV``."""
    try:
        code = arena_main([*argv, "--no-progress"])
    except SystemExit as stopped:
        code = stopped.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "convert, workers", [*((convert, "1") for convert in ACCEPTED), (ACCEPTED[0], "2"), (ACCEPTED[1], "2")]
)
def test_an_integer_move_of_any_kind_plays_as_that_id_from_agent_and_policy(tmp_path, capsys, convert, workers):
    path = _moves_file(tmp_path / "bot", convert)
    specs = [f"{path}:FirstAgent", f"{path}:first_policy"]
    out = tmp_path / "out"
    argv = ["--agents", *specs, "random", "--games", "4", "--seed", "2", "--workers", workers, "--out", str(out)]
    code, _, err = _arena(argv, capsys)
    assert (code, err) == (0, "")
    pairs = json.loads((out / "results.json").read_text())["pairs"]
    as_ints = f"{_moves_file(tmp_path / 'ints', 'action')}:FirstAgent"
    for index, spec in ((1, specs[0]), (2, specs[1])):  # pair 1: the Agent, pair 2: the policy, vs random
        expected = play_pair(as_ints, "random", 4, 2, pair_index=index)
        assert pairs[index]["agents"] == [spec, "random"] and pairs[index]["wins"] == expected.wins


@pytest.mark.parametrize(
    "convert, type_name, name, workers",
    [
        *((*refused, name, "1") for refused in REFUSED for name in ("FirstAgent", "first_policy")),
        (*REFUSED[0], "FirstAgent", "2"),
        (*REFUSED[3], "first_policy", "2"),
    ],
)
def test_a_move_that_is_no_id_is_refused_in_one_line_alike_from_agent_and_policy(
    tmp_path, capsys, convert, type_name, name, workers
):
    path = _moves_file(tmp_path / "bot", convert)
    code, _, err = _arena(["--agents", f"{path}:{name}", "random", "--games", "2", "--workers", workers], capsys)
    assert code == 2 and err.count("\n") == 1
    allowed = "an int, a numpy integer, or a 0-d integer numpy array or torch tensor"
    assert f"agent '{path}:{name}' returned " in err
    where = r"in game 0 at move \d of the game \(the agent's move 1\)"
    assert re.search(f" of type {re.escape(type_name)} {where}, not an action id \\({allowed}\\); legal were \\[", err)


RAISES = """
from agents.players.base import Agent


class Raises(Agent):
    def act(self, info):
        moves = getattr(self, "moves", 0) + 1
        self.moves = moves
        if moves == 2:
            raise RuntimeError(f"gave up at my move {moves}")
        return info.legal_actions[0]
"""


@pytest.fixture
def raises(tmp_path) -> str:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "raising_bot.py").write_text(RAISES)
    return f"{folder / 'raising_bot.py'}:Raises"


@pytest.mark.parametrize("workers", ["1", "2"])
def test_an_agent_exception_is_one_line_with_its_traceback_in_out(tmp_path, capsys, raises, workers):
    out = tmp_path / "out"
    code, _, err = _arena(
        ["--agents", raises, "random", "--games", "2", "--workers", workers, "--out", str(out)], capsys
    )
    assert code == 2 and err.count("\n") == 1
    assert f"agent '{raises}' raised RuntimeError: gave up at my move 2 in game 0 at move " in err
    assert " of the game (the agent's move 2)" in err
    assert err.endswith(f" (its traceback: {out / TRACEBACK_FILE})\n")
    trace = (out / TRACEBACK_FILE).read_text()
    assert f"agent '{raises}' raised in game 0 at move " in trace.splitlines()[0]
    assert f'File "{raises.partition(":")[0]}", line 10, in act' in trace
    assert trace.rstrip().endswith("RuntimeError: gave up at my move 2")


@pytest.mark.parametrize("workers", ["1", "2"])
def test_traceback_flag_prints_the_agents_frames_before_the_line(capsys, raises, workers):
    code, _, err = _arena(["--agents", raises, "random", "--games", "2", "--workers", workers, "--traceback"], capsys)
    *trace, line = err.splitlines()
    assert code == 2 and line.startswith("python -m agents.evaluation.arena: error: ")
    assert f'File "{raises.partition(":")[0]}", line 10, in act' in err and trace[-1].startswith("RuntimeError")
    assert "agents/evaluation/arena.py" not in err  # the agent's frames, not the arena's


@pytest.mark.parametrize("workers", ["1", "2"])
def test_the_ladder_writes_an_agents_traceback_beside_its_results(tmp_path, capsys, raises, workers):
    out = tmp_path / "ladder"
    with pytest.raises(SystemExit) as stopped:
        ladder_main([raises, "--games", "2", "--workers", workers, "--out", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and err.count("\n") == 1
    assert err.endswith(f" (its traceback: {out / TRACEBACK_FILE})\n")
    assert "RuntimeError: gave up at my move 2" in (out / TRACEBACK_FILE).read_text()


def _git(*args: str, cwd: Path | None = None) -> str:
    environment = {name: value for name, value in os.environ.items() if not name.startswith("GIT_")}
    command = ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args]
    return subprocess.run(command, cwd=cwd, env=environment, capture_output=True, text=True, check=True).stdout.strip()


THUMB_AGENT = """
from agents.players.base import Agent
from mybot.rules_of_thumb import PICK


class ThumbAgent(Agent):
    def act(self, info):
        return info.legal_actions[PICK]
"""


@pytest.mark.skipif(not (SOURCE_ROOT / ".git").exists(), reason="the package runs from no git checkout")
@pytest.mark.parametrize("workers", ["1", "2"])
def test_the_ladder_card_names_this_checkout_and_the_package_modules_of_a_module_spec(
    tmp_path, monkeypatch, capsys, workers
):
    other = tmp_path / "other"
    other.mkdir()
    _git("init", "-q", cwd=other)
    _git("commit", "-q", "--allow-empty", "-m", "another repository", cwd=other)
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))  # as in a git hook or a CI step of another repository
    monkeypatch.setenv("GIT_WORK_TREE", str(other))
    package = tmp_path / "mybot"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "agent.py").write_text(THUMB_AGENT)
    (package / "rules_of_thumb.py").write_text("PICK = 0\n")
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "ladder"
    before = _git("-C", str(SOURCE_ROOT), "rev-parse", "HEAD")  # a commit may land meanwhile in a shared checkout
    ladder_main(["mybot.agent:ThumbAgent", "--games", "2", "--workers", workers, "--out", str(out), "--no-progress"])
    card = capsys.readouterr().out
    provenance = json.loads((out / "ladder.json").read_text())["provenance"]
    after = _git("-C", str(SOURCE_ROOT), "rev-parse", "HEAD")
    assert provenance["git_commit"] in (before, after)
    assert provenance["git_commit"] != _git("rev-parse", "HEAD", cwd=other)
    assert provenance["agent_file"]["files"] == ["mybot/__init__.py", "mybot/agent.py", "mybot/rules_of_thumb.py"]
    assert provenance["agent_file"]["kind"] == "module and the modules it imported from its package"
    assert "  sha256 of mybot/__init__.py, mybot/agent.py, mybot/rules_of_thumb.py (each: " in card
    names = ("__init__.py", "agent.py", "rules_of_thumb.py")  # a change to rules_of_thumb.py changes the hash
    hashed = b"".join(f"mybot/{name}".encode() + b"\0" + (package / name).read_bytes() for name in names)
    assert provenance["agent_file"]["sha256"] == hashlib.sha256(hashed).hexdigest()
