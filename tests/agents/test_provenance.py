"""What a result was made of and where (agents.evaluation.provenance)."""

import hashlib
from pathlib import Path

import pytest

from agents.players.heuristic import HeuristicAgent
from agents.evaluation.provenance import agent_fingerprint, run_provenance, sha256_of
from agents.players.shipped import SHIPPED


def _sha256(path) -> str:
    with open(path, "rb") as file:
        return hashlib.sha256(file.read()).hexdigest()


def test_a_shipped_name_is_fingerprinted_by_its_checkpoint():
    assert agent_fingerprint("ppo-strong:endgame=expert") == {
        "path": str(SHIPPED["ppo-strong"]),
        "kind": "checkpoint",
        "sha256": _sha256(SHIPPED["ppo-strong"]),
    }


def test_a_checkpoint_path_is_fingerprinted_by_that_file(tmp_path):
    model = tmp_path / "model.zip"
    model.write_bytes(b"weights")
    assert agent_fingerprint(f"sb3:{model},sample=true")["sha256"] == hashlib.sha256(b"weights").hexdigest()


def test_a_built_in_agent_is_fingerprinted_by_its_module_source():
    import agents.players.heuristic

    assert agent_fingerprint("heuristic") == {
        "path": agents.players.heuristic.__file__,
        "kind": "module source of a built-in agent",
        "sha256": _sha256(agents.players.heuristic.__file__),
    }


def test_a_module_spec_is_fingerprinted_by_its_file_and_the_modules_of_its_package_it_imported():
    import agents.players.heuristic

    source = Path(agents.players.heuristic.__file__).read_bytes()
    assert agent_fingerprint("agents.players.heuristic:HeuristicAgent") == {
        "path": agents.players.heuristic.__file__,
        "kind": "module and the modules it imported from its package",
        "files": ["agents/players/heuristic.py"],  # this project's other modules are not the agent's
        "sha256": hashlib.sha256(b"agents/players/heuristic.py\0" + source).hexdigest(),
    }


def test_an_instance_is_fingerprinted_by_the_file_of_its_class():
    assert agent_fingerprint(HeuristicAgent())["kind"] == "module source of the instance's class"


def test_a_folders_hash_covers_names_and_bytes_but_not_pycache(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    before = sha256_of(tmp_path)
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "a.pyc").write_bytes(b"compiled")
    assert sha256_of(tmp_path) == before
    (tmp_path / "a.py").rename(tmp_path / "b.py")
    assert sha256_of(tmp_path) != before


def test_run_provenance_records_the_command_and_a_utc_date():
    info = run_provenance(command="python -m agents.evaluation.ladder heuristic")
    assert info["command"] == "python -m agents.evaluation.ladder heuristic" and info["date"].endswith("+00:00")
    assert {"cpu", "usable_cores", "load_average", "platform", "python", "torch"} == set(info["machine"])


def test_an_agent_files_fingerprint_covers_the_sibling_modules_it_imports(tmp_path):
    bot = tmp_path / "fingerprint_bot"
    bot.mkdir()
    (bot / "fingerprint_rules.py").write_text("PICK = 0\n")
    (bot / "unused_notes.py").write_text("x = 1\n")
    (bot / "my_fingerprint_bot.py").write_text(
        "from fingerprint_rules import PICK\n\n\ndef policy(observation, action_mask):\n"
        "    return int(action_mask.nonzero()[0][PICK])\n"
    )
    spec = f"{bot / 'my_fingerprint_bot.py'}:policy"
    before = agent_fingerprint(spec)
    assert before["files"] == ["fingerprint_rules.py", "my_fingerprint_bot.py"]
    (bot / "fingerprint_rules.py").write_text("PICK = -1\n")
    assert agent_fingerprint(spec)["sha256"] != before["sha256"]


def test_a_missing_agent_file_is_named_with_the_folder_it_was_looked_for_from(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=r"^agent spec 'bot/my_bott.py:Bot': no file 'bot/my_bott.py' \(looked from "):
        agent_fingerprint("bot/my_bott.py:Bot")
