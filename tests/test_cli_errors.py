"""Faults a user hits on the command lines of train.py and agents.arena: every one is a single
line on stderr and exit code 2, never a traceback (config files, overrides, limits, paths,
--resume folders whose checkpoint is foreign or partial, checkpoint paths)."""

from __future__ import annotations

import ast
import errno
import io
import os
import shutil
import zipfile
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")  # the [train] extra; absent in the lower-bounds CI job

import agents.arena as arena  # noqa: E402
import agents.neural as neural  # noqa: E402
import agents.ppo.config as config  # noqa: E402
from agents import make_agent  # noqa: E402
from agents.neural import ActorCritic, load_checkpoint, load_policy, read_checkpoint  # noqa: E402
from agents.ppo.config import ConfigError, load_config  # noqa: E402
from schnapsen_env.observation import OBS_SIZE  # noqa: E402
from train_module import load_train  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SMOKE = str(ROOT / "configs" / "smoke.yaml")
PREFIX = "config error: "
LONG_NAME = "x" * 300  # longer than any file name the file system allows (NAME_MAX 255)
#: a tiny run that checkpoints after one update and stops (no evaluation, no event files)
TINY = ["run.tensorboard=false", "eval.final_games=0", "ppo.num_games=4", "ppo.rollout_steps=4",
        "ppo.minibatch_size=16", "eval.every=1000", "run.total_updates=1000", "run.checkpoint_every=1000"]


train = load_train()


def one_error_line(capsys, rc, start: str, prefix: str = PREFIX) -> str:
    """Assert exit code 2 and exactly one stderr line ``prefix + start...``; returns the line."""
    err = capsys.readouterr().err
    assert rc == 2, err
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(prefix + start), lines[0]
    return lines[0]


def train_error(capsys, argv, start: str) -> str:
    return one_error_line(capsys, train.main(argv), start)


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> Path:
    """A real run directory after one update (checkpoint.pt, policy.pt, progress.csv)."""
    d = tmp_path_factory.mktemp("tiny") / "run"
    assert train.main(["--config", SMOKE, "--run-dir", str(d), "--stop-after", "1", *TINY]) == 0
    return d


def copy_run(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


# ------------------------------------------------------------------ config files
def test_non_utf8_config_file_is_a_config_error(tmp_path, capsys):
    f = tmp_path / "latin1.yaml"
    f.write_bytes("name: Schnapsen-Bär\n".encode("latin-1"))
    line = train_error(capsys, ["--config", str(f)], f"config file {str(f)!r} is not UTF-8 text: byte 0xe4 at line 1")
    assert "save it as UTF-8" in line


def test_config_nested_20000_deep_is_a_config_error(tmp_path, capsys):
    f = tmp_path / "deep.yaml"
    f.write_text("model: {hidden: " + "[" * 20000 + "]" * 20000 + "}\n")
    line = train_error(capsys, ["--config", str(f)], f"config file {str(f)!r} is not valid YAML: nested deeper than")
    assert "limit MAX_DEPTH" in line


def test_number_too_long_for_python_in_a_file_or_override(tmp_path, capsys):
    digits = "9" * 4301
    f = tmp_path / "big.yaml"
    f.write_text(f"seeding: {{seed: {digits}}}\n")
    train_error(capsys, ["--config", str(f)], f"config file {str(f)!r} is not valid YAML: number too long (4301")
    line = train_error(capsys, ["--config", SMOKE, f"seeding.seed={digits}"],
                       "seeding.seed: unreadable value '9999")
    assert "number too long" in line and len(line) < 400  # the value is shortened, not repeated whole
    # a hexadecimal number that long converts; its error message shows its size, not its digits
    train_error(capsys, ["--config", SMOKE, "seeding.seed=0x" + "f" * 5000],
                "seeding.seed: bad value <a whole number of about 6021 digits>: allowed a whole number in 0..2**63-1")


@pytest.mark.parametrize("section", ["seeding: 5", "seeding: [1, 2]", "seeding: text", "run: [a]", "run: 0",
                                     "game: {rules: 3}", "opponents: {agents: [heuristic]}"])
@pytest.mark.parametrize("option", [["seeding.seed=1"], ["--seed", "3"], ["--run-dir", "RUN"], ["run.dir=RUN"],
                                    ["game.rules.deck=24"], ["opponents.agents.random=0.5"]])
def test_section_given_as_scalar_or_list_with_an_override_or_option(tmp_path, capsys, section, option):
    f = tmp_path / "c.yaml"
    f.write_text(section + "\n")
    argv = ["--config", str(f), *[o.replace("RUN", str(tmp_path / "r")) for o in option]]
    train_error(capsys, argv, "")
    assert not (tmp_path / "r").exists()


def test_section_given_as_scalar_names_the_section(tmp_path, capsys):
    f = tmp_path / "c.yaml"
    f.write_text("seeding: 5\n")
    train_error(capsys, ["--config", str(f), "--seed", "3"],
                "seeding: expected a mapping of keys to values, got int 5 (so 'seeding.seed' cannot be set)")
    f.write_text("game: {rules: 3}\n")
    train_error(capsys, ["--config", str(f), "game.rules.deck=24"], "game.rules: expected a mapping, got int 3")


@pytest.mark.parametrize("argv", [["model.hidden=&a [*a]"], ["eval.opponents=&a [random, *a]"],
                                  ["game.rules=&a {deck: *a}"]])
def test_recursive_yaml_anchor_in_an_override(capsys, argv):
    train_error(capsys, ["--config", SMOKE, *argv], argv[0].partition("=")[0] + ": unreadable value")
    with pytest.raises(ConfigError, match="contains itself"):
        load_config(SMOKE, argv)


def test_recursive_anchor_and_alias_bomb_in_a_file(tmp_path, capsys):
    f = tmp_path / "c.yaml"
    f.write_text("model: {hidden: &a [1, *a]}\n")
    train_error(capsys, ["--config", str(f)], f"config file {str(f)!r} is not valid YAML: a list or mapping contains itself")
    lines = ["a: &a [1, 2, 3, 4, 5, 6, 7, 8, 9]"]
    for name, prev in zip("bcdefg", "abcdef"):
        lines.append(f"{name}: &{name} [{', '.join(['*' + prev] * 9)}]")
    f.write_text("\n".join(lines) + "\n")  # 9**6 values once the aliases are expanded
    line = train_error(capsys, ["--config", str(f)], f"config file {str(f)!r} is not valid YAML: more than")
    assert "limit MAX_VALUES" in line


@pytest.mark.parametrize("text, key", [("ppo: {lr: 1.0e-3}\nppo: {lr: 2.0e-3}\n", "'ppo'"),
                                       ("ppo: {lr: 1.0e-3, lr: 2.0e-3}\n", "'lr'"),
                                       ("game:\n  rules: {deck: 20, deck: 24}\n", "'deck'")])
def test_duplicate_keys_in_a_config_file(tmp_path, capsys, text, key):
    f = tmp_path / "dup.yaml"
    f.write_text(text)
    line = train_error(capsys, ["--config", str(f)], f"config file {str(f)!r} is not valid YAML:")
    assert f"found duplicate key {key}" in line


def test_duplicate_keys_in_an_override_value(capsys):
    line = train_error(capsys, ["--config", SMOKE, "game.rules={deck: 20, deck: 24}"], "game.rules: unreadable value")
    assert "found duplicate key 'deck'" in line


def test_yaml_merge_keys_still_work_and_may_be_overridden(tmp_path):
    f = tmp_path / "merge.yaml"
    f.write_text("eval: &e {games: 10, final_games: 0}\nppo:\n  num_games: 16\n  rollout_steps: 8\n"
                 "  minibatch_size: 64\nrun: {total_updates: 1}\n"
                 "opponents: {agents: &a {heuristic: 1.0}}\ngame: {rules: {<<: {deck: 20}, deck: 24}}\n")
    cfg = load_config(f)
    assert cfg.rules().deck == 24 and cfg.eval.games == 10


def test_config_path_problems(tmp_path, capsys):
    train_error(capsys, ["--config", str(tmp_path)], f"cannot read config file {str(tmp_path)!r}: it is a directory")
    train_error(capsys, ["--config", str(tmp_path / LONG_NAME)], "cannot read config file '")
    assert "File name too long" in train_error(capsys, ["--config", str(tmp_path / LONG_NAME)], "")
    train_error(capsys, ["--config", "a\0b.yaml"], "cannot read config file 'a\\x00b.yaml': the path contains a NUL")
    train_error(capsys, ["--config", os.devnull], f"cannot read config file {os.devnull!r}: it is a character device")
    big = tmp_path / "big.yaml"
    big.write_text("# " + "x" * config.MAX_CONFIG_BYTES + "\n")
    train_error(capsys, ["--config", str(big)], f"config file {str(big)!r} is {big.stat().st_size} bytes: at most")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_config_fifo_is_refused_without_blocking(tmp_path, capsys):
    fifo = tmp_path / "c.yaml"
    os.mkfifo(fifo)
    train_error(capsys, ["--config", str(fifo)], f"cannot read config file {str(fifo)!r}: it is a FIFO")


def test_config_permission_denied(tmp_path, capsys, monkeypatch):
    f = tmp_path / "c.yaml"
    f.write_text("name: x\n")

    def denied(*a, **k):
        raise PermissionError(errno.EACCES, "Permission denied", str(f))

    monkeypatch.setattr(config, "open", denied, raising=False)  # (tests may run as root)
    train_error(capsys, ["--config", str(f)], f"cannot read config file {str(f)!r}: Permission denied")


# ------------------------------------------------------------------------ limits
@pytest.mark.parametrize("override, start, limit", [
    ("model.hidden=[1099511627776]", "model.hidden: bad value [1099511627776]", "MAX_HIDDEN_WIDTH"),
    ("model.hidden=[4096, 4096, 4096]", "model.hidden: bad value", "MAX_PARAMETERS"),
    ("model.hidden=[8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8]", "model.hidden", "MAX_HIDDEN_LAYERS"),
    ("ppo.num_games=1000000000000", "ppo.num_games: bad value 1000000000000: allowed a whole number >= 1 and "
                                    "<= 65536", "MAX_NUM_GAMES"),
    ("ppo.rollout_steps=100000", "ppo.rollout_steps: bad value 100000", "MAX_ROLLOUT_STEPS"),
    ("ppo.minibatch_size=1099511627776", "ppo.minibatch_size: bad value", "MAX_BATCH"),
    ("ppo.update_epochs=100000", "ppo.update_epochs: bad value", "MAX_UPDATE_EPOCHS"),
    ("ppo.lr=2", "ppo.lr: bad value 2.0: allowed a number > 0 and <= 1", "MAX_LR"),
    ("ppo.clip_coef=1e300", "ppo.clip_coef: bad value 1e+300", "MAX_COEF"),
    ("ppo.target_kl=1e300", "ppo.target_kl: bad value 1e+300: allowed null or a number > 0", "MAX_COEF"),
    ("opponents.current=1e300", "opponents.current: bad value", "MAX_WEIGHT"),
    ("opponents.agents.random=1e300", "opponents.agents.random: bad weight 1e+300", "MAX_WEIGHT"),
    ("opponents.max_snapshots=100000", "opponents.max_snapshots: bad value", "MAX_SNAPSHOTS"),
    ("opponents.snapshot_every=10000000000", "opponents.snapshot_every: bad value", "MAX_EVERY"),
    ("eval.games=1000000000000", "eval.games: bad value", "MAX_EVAL_GAMES"),
    ("eval.final_games=1000000000000", "eval.final_games: bad value", "MAX_EVAL_GAMES"),
    ("eval.opponents=[" + ", ".join(["random"] * 65) + "]", "eval.opponents: bad value", "MAX_AGENT_SPECS"),
    ("run.total_updates=10000000000", "run.total_updates: bad value", "MAX_TOTAL_UPDATES"),
    ("run.checkpoint_every=10000000000", "run.checkpoint_every: bad value", "MAX_EVERY"),
    ("run.time_budget_min=1e300", "run.time_budget_min: bad value 1e+300: allowed null or a number > 0",
     "MAX_TIME_BUDGET_MIN"),
    ("run.time_budget_min=0", "run.time_budget_min: bad value 0.0: allowed null or a number > 0",
     "MAX_TIME_BUDGET_MIN"),
    ("seeding.torch_threads=100000", "seeding.torch_threads: bad value", "MAX_TORCH_THREADS"),
    ("seeding.seed=9223372036854775808", "seeding.seed: bad value", "MAX_SEED"),
    ("name=" + "n" * 101, "name: bad value", "MAX_NAME_CHARS"),
    ("run.dir=" + "d" * 5000, "run.dir: bad value", "MAX_PATH_CHARS"),
])
def test_sizes_beyond_the_limits_name_the_limit(tmp_path, capsys, override, start, limit):
    line = train_error(capsys, ["--config", SMOKE, override], start)
    assert f"limit {limit}" in line or f"limits {limit}" in line or f", {limit})" in line
    assert not list(tmp_path.iterdir())


def test_batch_beyond_its_limit_names_the_limit(capsys):
    line = train_error(capsys, ["--config", SMOKE, "ppo.num_games=65536", "ppo.rollout_steps=4096"],
                       "ppo.num_games * ppo.rollout_steps: the batch 268435456 is larger than")
    assert "limit MAX_BATCH" in line


def test_a_float_count_in_a_file_is_a_type_error(tmp_path, capsys):
    f = tmp_path / "c.yaml"
    f.write_text("ppo: {num_games: 1e12}\n")
    train_error(capsys, ["--config", str(f)], "ppo.num_games: expected a whole number, got float 1000000000000.0")


def test_every_numeric_field_has_a_documented_upper_limit():
    import dataclasses
    import typing

    numeric = []
    for section, cls in typing.get_type_hints(config.TrainConfig).items():
        if not dataclasses.is_dataclass(cls):
            continue
        for name, tp in typing.get_type_hints(cls).items():
            args = set(typing.get_args(tp)) or {tp}
            if args & {int, float} and bool not in args:
                numeric.append(f"{section}.{name}")
    assert len(numeric) > 20
    for key in numeric:
        _check, allowed = config._CONSTRAINTS[key]
        assert "limit MAX_" in allowed or allowed in ("a number in (0, 1]", "a number in [0, 1]"), key
        for word in allowed.split():
            if word.strip("(),:").startswith("MAX_"):
                assert hasattr(config, word.strip("(),:")), word  # the named limit exists
    assert "hidden" in config._CONSTRAINTS["model.hidden"][1] or "MAX_HIDDEN_WIDTH" in config._CONSTRAINTS[
        "model.hidden"][1]


# --------------------------------------------------------------- other arguments
@pytest.mark.parametrize("argv, start", [
    (["--seed", "x"], "argument --seed: invalid int value: 'x' (see python train.py --help)"),
    (["--bogus"], "unrecognized arguments: --bogus"),
    (["--stop-after", "0"], "argument --stop-after: expected a whole number >= 1, got '0'"),
    (["--resume", "x"], "argument --resume: not allowed with argument --config"),
])
def test_bad_options_are_one_line(capsys, argv, start):
    train_error(capsys, ["--config", SMOKE, *argv], start)


def test_run_files_that_cannot_be_written_during_the_run_are_one_line(tmp_path, capsys, monkeypatch):
    import agents.ppo.run as rundir

    def disk_full(obj, path):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(rundir, "atomic_save", disk_full)
    rc = train.main(["--config", SMOKE, "--run-dir", str(tmp_path / "r"), "--stop-after", "1", *TINY])
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err
    assert err.splitlines()[-1] == f"error: [Errno {errno.ENOSPC}] No space left on device: " \
                                   f"'{tmp_path / 'r' / 'checkpoint.pt'}'"


# ------------------------------------------------------------------------ resume
def test_resume_folder_problems(tmp_path, capsys, tiny_run):
    train_error(capsys, ["--resume", str(tmp_path / "missing")], f"--resume: no checkpoint.pt in {tmp_path / 'missing'}")
    train_error(capsys, ["--resume", str(tiny_run), "--run-dir", str(tmp_path / "x")],
                "--run-dir: a resumed run continues in its own directory")
    assert not (tmp_path / "x").exists()


def _foreign_files(tiny_run: Path) -> dict:
    zbuf = io.BytesIO()
    with zipfile.ZipFile(zbuf, "w") as z:
        z.writestr("a.txt", "hello")
    tensor, plain_dict = io.BytesIO(), io.BytesIO()
    torch.save(torch.zeros(3), tensor)
    torch.save({"model": {}, "config": "x"}, plain_dict)
    return {"text": b"# notes\nnot a checkpoint\n", "empty": b"", "zip": zbuf.getvalue(),
            "tensor": tensor.getvalue(), "dict": plain_dict.getvalue(),
            "policy": (tiny_run / "policy.pt").read_bytes(),
            "truncated": (tiny_run / "checkpoint.pt").read_bytes()[:5000],
            "half": (tiny_run / "checkpoint.pt").read_bytes()[:(tiny_run / "checkpoint.pt").stat().st_size // 2]}


@pytest.mark.parametrize("kind", ["text", "empty", "zip", "tensor", "dict", "policy", "truncated", "half"])
def test_resume_of_a_foreign_or_partial_checkpoint(tmp_path, capsys, tiny_run, kind):
    d = copy_run(tiny_run, tmp_path / "run")
    (d / "checkpoint.pt").write_bytes(_foreign_files(tiny_run)[kind])
    before = (d / "progress.csv").read_text()
    train_error(capsys, ["--resume", str(d)], "--resume: ")
    assert (d / "progress.csv").read_text() == before  # nothing was written


def test_resume_keeps_the_log_columns_of_evaluations_no_longer_run(tmp_path, tiny_run):
    d = copy_run(tiny_run, tmp_path / "run")
    assert train.main(["--resume", str(d), "--stop-after", "1", "eval.opponents=[random]"]) == 0
    header = (d / "progress.csv").read_text().splitlines()[0]
    assert "eval_heuristic_win_rate" in header and "eval_random_win_rate" in header


def test_resume_beyond_total_updates_and_lr_override(tmp_path, capsys, tiny_run):
    d = copy_run(tiny_run, tmp_path / "run")
    assert train.main(["--resume", str(d), "--stop-after", "1"]) == 0  # now at update 2
    capsys.readouterr()
    train_error(capsys, ["--resume", str(d), "run.total_updates=1"],
                "run.total_updates: 1 is below the 2 updates the run has done")
    assert train.main(["--resume", str(d), "--stop-after", "1", "ppo.lr=5e-4", "ppo.anneal_lr=false"]) == 0
    ckpt = torch.load(d / "checkpoint.pt", weights_only=True)
    assert ckpt["optimizer"]["param_groups"][0]["lr"] == pytest.approx(5e-4)


# -------------------------------------------------------------- checkpoint loader
def test_every_torch_load_is_weights_only():
    files = [ROOT / "train.py", *(ROOT / "agents").rglob("*.py"), *(ROOT / "schnapsen_env").rglob("*.py"),
             *(ROOT / "benchmarks").rglob("*.py")]
    calls = 0
    for f in files:
        for node in ast.walk(ast.parse(f.read_text(), str(f))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "load" \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "torch":
                calls += 1
                kw = {k.arg: k.value for k in node.keywords}
                assert "weights_only" in kw and isinstance(kw["weights_only"], ast.Constant) and \
                    kw["weights_only"].value is True, f"{f}:{node.lineno}"
    assert calls >= 1


def test_checkpoint_loader_checks_the_path_before_opening(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match=r"cannot read checkpoint '.*x{20}.*': File name too long"):
        load_checkpoint(tmp_path / LONG_NAME)
    with pytest.raises(ValueError, match=r"cannot read checkpoint 'a\\x00b': the path contains a NUL"):
        load_checkpoint("a\0b")
    with pytest.raises(ValueError, match=f"no checkpoint file at {str(tmp_path)!r} \\(a directory"):
        read_checkpoint(tmp_path)
    with pytest.raises(ValueError, match=f"cannot read checkpoint {os.devnull!r}: it is a character device"):
        load_checkpoint(os.devnull)
    with pytest.raises(ValueError, match="must be a string or path"):
        load_checkpoint(3)
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "fifo")
        with pytest.raises(ValueError, match="it is a FIFO \\(named pipe\\), not a regular file"):
            load_checkpoint(tmp_path / "fifo")
    f = tmp_path / "p.pt"
    f.write_bytes(b"x")

    def denied(*a, **k):
        raise PermissionError(errno.EACCES, "Permission denied", str(f))

    monkeypatch.setattr(neural, "open", denied, raising=False)  # (tests may run as root)
    with pytest.raises(ValueError, match=f"cannot read checkpoint {str(f)!r}: Permission denied"):
        load_checkpoint(f)


@pytest.mark.parametrize("model_config, words", [
    ({"obs_size": OBS_SIZE, "hidden": [1 << 40]}, "MAX_HIDDEN_WIDTH"),
    ({"obs_size": OBS_SIZE, "hidden": [4096] * 4}, "MAX_PARAMETERS"),
    ({"obs_size": OBS_SIZE, "hidden": "wide"}, "'hidden' must be a list"),
    ({"obs_size": OBS_SIZE, "hidden": [8], "num_actions": 7}, "'num_actions'"),
    ({"obs_size": "big", "hidden": [8]}, "'obs_size'"),
    ([1, 2], "not a dict"),
])
def test_checkpoint_model_config_is_checked_before_allocation(tmp_path, model_config, words):
    f = tmp_path / "odd.pt"
    torch.save({"model": ActorCritic(OBS_SIZE, [8]).state_dict(), "model_config": model_config}, f)
    with pytest.raises(ValueError, match=f"cannot load checkpoint .*bad 'model_config'.*{words}"):
        load_policy(f)


# --------------------------------------------------------------------- arena CLI
def arena_error(capsys, argv, start: str) -> str:
    with pytest.raises(SystemExit) as e:
        arena.main([*argv, "--no-progress"])
    return one_error_line(capsys, e.value.code, start, prefix="python -m agents.arena: error: ")


def test_arena_checkpoint_path_problems_are_one_line(tmp_path, capsys, monkeypatch):
    line = arena_error(capsys, ["--agents", "random", f"ppo:{tmp_path / LONG_NAME}", "--games", "2"],
                       "bad agent spec 'ppo:")
    assert line.endswith("File name too long")
    arena_error(capsys, ["--agents", "random", f"ppo:{tmp_path}", "--games", "2"],
                f"bad agent spec 'ppo:{tmp_path}': no checkpoint file at {str(tmp_path)!r} (a directory")
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "fifo")
        arena_error(capsys, ["--agents", "random", f"ppo:{tmp_path / 'fifo'}", "--games", "2"],
                    f"bad agent spec 'ppo:{tmp_path / 'fifo'}': cannot read checkpoint {str(tmp_path / 'fifo')!r}: "
                    "it is a FIFO")
    f = tmp_path / "p.pt"
    f.write_bytes(b"x")
    monkeypatch.setattr(neural, "open", lambda *a, **k: (_ for _ in ()).throw(
        PermissionError(errno.EACCES, "Permission denied")), raising=False)
    arena_error(capsys, ["--agents", "random", f"ppo:{f}", "--games", "2"],
                f"bad agent spec 'ppo:{f}': cannot read checkpoint {str(f)!r}: Permission denied")


@pytest.mark.parametrize("argv, start", [
    (["--agents", "random", "heuristic", "--seed", "-1"], "--seed must be a whole number >= 0, got -1"),
    (["--agents", "random", "heuristic", "--workers", "100000"], "--workers must be >= 1 and <= 256"),
    (["--agents", "random", "heuristic", "--games", "1000000000000"], "--games must be >= 1 and <= 10000000"),
    (["--agents", "random", "heuristic", "--bogus"], "unrecognized arguments: --bogus"),
    (["--agents", "random", "heuristic", "--games", "x"], "argument --games: expected a whole number in ASCII digits, got 'x'"),
    (["--games", "2"], "the following arguments are required: --agents"),
    (["--agents", "random", "heuristic", "--games", "2", "--out", "a\0b"], "--out 'a\\x00b': the path contains"),
])
def test_arena_argument_errors_are_one_line(capsys, argv, start):
    arena_error(capsys, argv, start)


def test_arena_out_path_problems_are_one_line(tmp_path, capsys, monkeypatch):
    played = []
    monkeypatch.setattr(arena, "round_robin", lambda *a, **k: played.append(a))
    line = arena_error(capsys, ["--agents", "random", "heuristic", "--games", "2", "--out",
                                str(tmp_path / LONG_NAME / "out")], "--out '")
    assert line.endswith("cannot use it: File name too long")
    arena_error(capsys, ["--agents", "random", "heuristic", "--games", "2", "--out",
                         str(tmp_path / "/".join(["d" * 200] * 25))], "--out '")
    assert played == []


def test_arena_write_failure_after_playing_is_one_line(tmp_path, capsys, monkeypatch):
    def disk_full(report, out):
        raise OSError(errno.ENOSPC, "No space left on device", os.path.join(out, "results.json"))

    monkeypatch.setattr(arena, "write_outputs", disk_full)
    with pytest.raises(SystemExit) as e:
        arena.main(["--agents", "random", "heuristic", "--games", "2", "--out", str(tmp_path / "o"), "--no-progress"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "Traceback" not in err
    assert err.splitlines()[-1].startswith(f"python -m agents.arena: error: --out {str(tmp_path / 'o')!r}: cannot write")
    assert err.rstrip().endswith("No space left on device")


def test_spec_with_a_bad_checkpoint_path_in_a_config(capsys, tmp_path):
    line = train_error(capsys, ["--config", SMOKE, f"eval.opponents=[random, 'ppo:{tmp_path / LONG_NAME}']"],
                       "eval.opponents[1]: unknown agent spec")
    assert line.endswith("File name too long")
    with pytest.raises(ValueError, match="File name too long"):
        make_agent(f"ppo:{tmp_path / LONG_NAME}")


def test_arena_command_line_fuzz(tmp_path):
    """Random agent specs and options: the arena CLI plays (stubbed here) or stops with one line."""
    hypothesis = pytest.importorskip("hypothesis")
    import contextlib
    from unittest import mock

    from hypothesis import strategies as st

    words = ["random", "heuristic", "pimc", "ppo", "vu", ":", ",", "=", "seed", "samples", "sample", "true", "-1",
             "1e400", "9" * 5000, str(tmp_path), LONG_NAME, "\0", "/dev/null", "x"]
    specs = st.one_of(st.text(max_size=12), st.lists(st.sampled_from(words), max_size=6).map("".join))
    options = st.lists(st.sampled_from(["--games", "--seed", "--workers", "--variant", "--out", "--bummerl",
                                        "--no-duplicate", "2", "-1", "0", "x", "bogus", str(tmp_path / LONG_NAME)]),
                       max_size=4)

    @hypothesis.settings(deadline=None, max_examples=60, database=None)
    @hypothesis.given(agents=st.lists(specs, max_size=3), extra=options)
    def check(agents, extra):
        err = io.StringIO()
        with mock.patch.object(arena, "round_robin", lambda *a, **k: None), \
                mock.patch.object(arena, "format_table", lambda r: ""), \
                mock.patch.object(arena, "write_outputs", lambda r, out: []), contextlib.redirect_stderr(err), \
                contextlib.redirect_stdout(io.StringIO()):
            try:
                rc = arena.main(["--agents", *agents, "--no-progress", *extra])
            except SystemExit as e:
                rc = e.code
        lines = err.getvalue().splitlines()
        assert rc == 0 or (rc == 2 and len(lines) == 1 and lines[0].startswith("python -m agents.arena: error: ")), \
            (agents, extra, err.getvalue())

    check()


def test_arena_ctrl_c_is_one_line_and_130():
    import signal
    import subprocess
    import sys
    import time

    proc = subprocess.Popen([sys.executable, "-m", "agents.arena", "--agents", "heuristic", "pimc:samples=40",
                             "--games", "200", "--workers", "2", "--no-progress"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            # a suite started in the background (nohup, `cmd &`) passes SIGINT on as
                            # ignored, and Python then never raises KeyboardInterrupt: restore Ctrl-C
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(4)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err == "python -m agents.arena: interrupted before the games were done: nothing written\n"


@pytest.mark.parametrize("argv, line", [
    (["-m", "agents.arena", "--agents", "heuristic", "random", "--agents", "expert", "random", "--games", "2"],
     "python -m agents.arena: error: --agents given twice (heuristic random and expert random): give it once"),
    (["-m", "agents.arena", "--agents", "random", "heuristic", "--games", "2", "--games", "4"],
     "python -m agents.arena: error: --games given twice (2 and 4): give it once"),
    (["-m", "agents.exploit", "--agent", "random", "--agent", "heuristic"],
     "python -m agents.exploit: error: --agent given twice (random and heuristic): give it once"),
    (["-m", "agents.play", "--opponent", "random", "--opponent", "heuristic"],
     "python -m agents.play: error: --opponent given twice (random and heuristic): give it once"),
    (["-m", "schnapsen_env.replay", "--engine", "vector", "--engine=scalar", "x.json"],
     "replay: --engine given twice ('vector', 'scalar'): give it once"),
])
def test_an_option_given_twice_is_refused_by_every_command_line(argv, line):
    """argparse would keep the last value silently; every CLI says so in one line, exit code 2."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, *argv], capture_output=True, text=True, cwd=ROOT, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 2 and proc.stderr.splitlines() == [line], proc.stderr
