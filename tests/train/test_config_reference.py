"""docs/training.md's config reference: the tables between its markers are what benchmarks/config_reference.py
writes from the config models now, and every key is in the page's text."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")  # the expert-iteration config's module imports torch; absent in the lower-bounds job

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))  # the script's own import (_common)
PAGE = ROOT / "docs" / "training.md"


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


reference = _load("config_reference", ROOT / "benchmarks" / "config_reference.py")


def test_the_page_holds_the_tables_the_models_give_now():
    stale = reference.stale_blocks(page=PAGE)
    assert stale == [], f"{PAGE} is out of date in {stale}: run python benchmarks/config_reference.py"


def test_every_key_of_both_configs_is_in_the_page_text():
    from agents.training.config import TrainConfig
    from agents.training.exit import ExitConfig

    text = PAGE.read_text(encoding="utf-8")
    keys = [row.key for model in (TrainConfig, ExitConfig) for row in reference.key_rows(model)]
    assert (len(keys), len(set(keys))) == (59, 58)  # 47 training keys, 12 of expert iteration; `name` in both
    missing = [key for key in keys if f"| `{key}` |" not in text]
    assert missing == []
    for key in ("seeding.update_threads", "game.variant", "run.precision", "labels.teacher"):
        assert f"| `{key}` |" in text


def test_a_row_gives_type_default_allowed_values_and_meaning():
    rows = {row.key: row for row in reference.key_rows(reference.TrainConfig)}
    threads = rows["seeding.update_threads"]
    assert (threads.type, threads.default, threads.allowed) == ("int", "1", ">= 1; `null`")
    assert threads.meaning.startswith("`torch.set_num_threads` of the PPO update")
    variant = rows["game.variant"]
    assert variant.allowed.startswith("`schnapsen`, `schnapsen-sharp`, ") and variant.default == "schnapsen"
    assert (rows["run.precision"].allowed, rows["run.precision"].default) == ("`float32`, `bfloat16`", "float32")
    assert rows["opponents.agents"].default == "{heuristic: 0.5, random: 0.1}"
    assert rows["model.hidden"].allowed == "at least 1 entry; each > 0"
    assert rows["run.dir"].allowed == "at least 1 character; `null`"
    assert rows["run.device"].allowed.startswith("`cpu` or a CUDA device")


def test_a_changed_model_makes_the_page_stale(tmp_path, monkeypatch):
    page = tmp_path / "training.md"
    page.write_text(PAGE.read_text(encoding="utf-8"), encoding="utf-8")
    assert reference.stale_blocks(page=page) == []
    field = reference.TrainConfig.model_fields["name"]
    monkeypatch.setattr(field, "description", "Another meaning.")
    assert reference.stale_blocks(page=page) == ["config-reference"]


def test_check_exits_0_on_the_current_page():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "config_reference.py"), "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
