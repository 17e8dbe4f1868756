"""Fuzz train.py's command line: random config files (YAML text, nested structures dumped to
YAML, raw bytes), random key=value overrides and options, and --resume folders with random,
truncated, corrupted or restructured checkpoints. Property: ``main()`` either succeeds or
returns 2 with exactly one stderr line starting ``config error: `` -- never a traceback."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import shutil
import tempfile
import typing
import warnings
from pathlib import Path
from unittest import mock

import pytest

torch = pytest.importorskip("torch")  # the [train] extra; absent in the lower-bounds CI job
pytest.importorskip("hypothesis")

import yaml  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from agents.ppo.config import TrainConfig  # noqa: E402
from train_module import load_train  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SMOKE = str(ROOT / "configs" / "smoke.yaml")
PREFIX = "config error: "
#: the tiny run of the resume fuzzing: one update of 4 games x 4 steps, no evaluation, no event files
TINY = ["run.tensorboard=false", "eval.final_games=0", "ppo.num_games=4", "ppo.rollout_steps=4",
        "ppo.minibatch_size=16", "eval.every=1000", "run.total_updates=1000", "run.checkpoint_every=1000"]
FUZZ = settings(deadline=None, max_examples=80, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])


train = load_train()


def run_main(argv: list, stub_training: bool = True) -> int:
    """``train.main(argv)``, asserting the property; with ``stub_training`` a valid config
    stops before the (slow) training loop."""
    err = io.StringIO()
    with contextlib.ExitStack() as stack:
        if stub_training:
            stack.enter_context(mock.patch.object(train, "train", lambda *a, **k: {}))
        stack.enter_context(contextlib.redirect_stderr(err))
        stack.enter_context(contextlib.redirect_stdout(io.StringIO()))
        caught = stack.enter_context(warnings.catch_warnings(record=True))
        warnings.simplefilter("always")
        rc = train.main(argv)
    text = err.getvalue()
    assert "Traceback" not in text, (argv, text)
    if rc != 0:
        lines = text.splitlines()
        assert rc == 2, (argv, text)
        assert len(lines) == 1 and lines[0].startswith(PREFIX), (argv, text)
        # a warning would be printed to stderr on the command line: a second line
        assert not caught, (argv, [str(w.message) for w in caught])
    return rc


# -------------------------------------------------------------------- strategies
SECTIONS = list(typing.get_type_hints(TrainConfig))
FIELDS = sorted({f.name for tp in typing.get_type_hints(TrainConfig).values() if dataclasses.is_dataclass(tp)
                 for f in dataclasses.fields(tp)})
DOTTED = [f"{s}.{f.name}" for s, tp in typing.get_type_hints(TrainConfig).items() if dataclasses.is_dataclass(tp)
          for f in dataclasses.fields(tp)] + ["name", "game.rules.deck", "game.rules.bogus", "opponents.agents.random",
                                              "opponents.agents.ppo", "seeding", "model.hidden.x"]
WORDS = ["random", "heuristic", "ppo", "pimc:samples=2", "vu:rdeep", "game", "bummerl", "schnapsen",
         "sechsundsechzig", "win_loss", "game_points", "deck", "", "~", "null", "ppo:/nonexistent.pt"]
TRICKY = ["&a [*a]", "&a {x: *a}", "9" * 4301, "0x" + "f" * 5000, "{a: 1, a: 2}", "[1e12]", "1e12", "[1099511627776]",
          "[" * 50 + "]" * 50, "!!python/object:os.system {}", "2024-02-30", ".nan", "-.inf", "{<<: {a: 1}, a: 2}",
          "'unterminated", "\x00", "\ufeff1", "[0, -1]", "1_000_000_000_000", "0b" + "1" * 100]
keys = st.one_of(st.sampled_from(SECTIONS + FIELDS + ["rules", "agents", "<<"]), st.text(max_size=6))
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(-(2**80), 2**80), st.integers(4200, 4299).map(lambda n: 10**n),
                    st.floats(), st.text(max_size=12), st.sampled_from(WORDS))
structures = st.recursive(scalars, lambda c: st.one_of(st.lists(c, max_size=4),
                                                       st.dictionaries(keys, c, max_size=4)), max_leaves=16)
sections = st.dictionaries(st.sampled_from(FIELDS), structures, max_size=5)
configs = st.dictionaries(st.one_of(st.sampled_from(SECTIONS), keys), st.one_of(sections, structures), max_size=6)
yaml_tokens = st.sampled_from(["\n", " ", "  ", ": ", "- ", "[", "]", "{", "}", ", ", "&a ", "*a", "<<: ", "? ", "!!int ",
                               "!!binary ", "|", ">", "#", "'", '"', "%YAML 1.1\n", "---\n", "...\n", "\t", "\\"]
                              + SECTIONS + FIELDS + WORDS + TRICKY)
yaml_texts = st.one_of(st.text(max_size=80), st.lists(yaml_tokens, max_size=30).map("".join))
values = st.one_of(st.text(max_size=20), st.sampled_from(TRICKY + WORDS),
                   structures.map(lambda v: yaml.safe_dump(v, default_flow_style=True, width=10**6).strip()))
overrides = st.one_of(st.tuples(st.sampled_from(DOTTED), values).map("=".join), st.text(max_size=20))


def write(directory: str, name: str, data: bytes) -> str:
    path = Path(directory) / name
    path.write_bytes(data)
    return str(path)


# ------------------------------------------------------------------ config files
@FUZZ
@given(text=yaml_texts)
def test_random_yaml_text_as_config(text):
    with tempfile.TemporaryDirectory() as d:
        run_main(["--config", write(d, "c.yaml", text.encode("utf-8", "surrogatepass"))])


@FUZZ
@given(data=configs, items=st.lists(overrides, max_size=2), seed=st.none() | st.integers(0, 9))
def test_random_nested_structures_as_config(data, items, seed):
    text = yaml.safe_dump(data, allow_unicode=True, width=10**6)
    with tempfile.TemporaryDirectory() as d:
        argv = ["--config", write(d, "c.yaml", text.encode("utf-8", "surrogatepass")), *items]
        run_main(argv + (["--seed", str(seed)] if seed is not None else []))


@settings(FUZZ, max_examples=40)
@given(data=st.binary(max_size=300))
def test_random_bytes_as_config(data):
    with tempfile.TemporaryDirectory() as d:
        run_main(["--config", write(d, "c.yaml", data)])


# --------------------------------------------------------------------- overrides
BASES = ["", "seeding: 5\n", "run: [a]\n", "game: {rules: 3}\n", "opponents: {agents: [x]}\n", "model: ~\n"]


@FUZZ
@given(items=st.lists(overrides, max_size=4), base=st.sampled_from(BASES), seed=st.none() | st.integers(-5, 2**64),
       run_dir=st.none() | st.text(max_size=12))
def test_random_overrides_and_options(items, base, seed, run_dir):
    with tempfile.TemporaryDirectory() as d:
        config = SMOKE if not base else write(d, "c.yaml", base.encode())
        argv = ["--config", config, *items]
        if seed is not None:
            argv += ["--seed", str(seed)]
        if run_dir is not None:
            argv += ["--run-dir", run_dir]
        run_main(argv)


# -------------------------------------------------------------------------- resume
@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> Path:
    """A real run directory after one update, made once."""
    d = tmp_path_factory.mktemp("fuzz") / "run"
    assert run_main(["--config", SMOKE, "--run-dir", str(d), "--stop-after", "1", *TINY], stub_training=False) == 0
    return d


def resume_with(tiny_run: Path, checkpoint: bytes | None = None, log: bytes | None = None) -> int:
    with tempfile.TemporaryDirectory() as d:
        run = Path(d) / "run"
        shutil.copytree(tiny_run, run)
        if checkpoint is not None:
            (run / "checkpoint.pt").write_bytes(checkpoint)
        if log is not None:
            (run / "progress.csv").write_bytes(log)
        return run_main(["--resume", str(run), "--stop-after", "1"], stub_training=False)


@settings(FUZZ, max_examples=25)
@given(data=st.binary(max_size=400))
def test_resume_with_random_bytes_as_checkpoint(tiny_run, data):
    assert resume_with(tiny_run, checkpoint=data) == 2


@settings(FUZZ, max_examples=25)
@given(cut=st.floats(0.0, 0.999))
def test_resume_with_a_truncated_checkpoint(tiny_run, cut):
    data = (tiny_run / "checkpoint.pt").read_bytes()
    assert resume_with(tiny_run, checkpoint=data[:int(len(data) * cut)]) == 2


@settings(FUZZ, max_examples=15)
@given(flips=st.lists(st.tuples(st.floats(0.0, 0.999), st.integers(0, 255)), min_size=1, max_size=8))
def test_resume_with_corrupted_bytes(tiny_run, flips):
    data = bytearray((tiny_run / "checkpoint.pt").read_bytes())
    for where, byte in flips:
        data[int(len(data) * where)] = byte
    resume_with(tiny_run, checkpoint=bytes(data))
