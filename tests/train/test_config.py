"""The training config (agents.training.config) and the RLlib example's (agents.training.rllib_selfplay): the shipped
files load, overrides merge before validation, and every problem is one ConfigError line naming the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.training.config import ConfigError, TrainConfig, load_config
from agents.training import rllib_selfplay as selfplay

ROOT = Path(__file__).resolve().parents[2]
SMOKE = ROOT / "configs" / "smoke.yaml"


def error(overrides: list[str], path: Path | None = SMOKE) -> str:
    with pytest.raises(ConfigError) as e:
        load_config(path, overrides)
    message = str(e.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize("name", ["default", "smoke", "bummerl", "sechsundsechzig", "strong", "exploit"])
def test_shipped_training_configs_load(name):
    cfg = load_config(ROOT / "configs" / f"{name}.yaml")
    assert cfg.name == name
    assert cfg.batch_size % cfg.ppo.minibatch_size == 0
    assert load_config(base=cfg.to_dict()) == cfg  # a checkpoint's saved config loads back


def test_shipped_configs_say_what_they_are_for():
    strong = load_config(ROOT / "configs" / "strong.yaml")
    assert not set(strong.eval.opponents) & set(strong.opponents.agents)  # evaluated outside its pool
    assert load_config(ROOT / "configs" / "bummerl.yaml").game.episode == "bummerl"
    assert load_config(ROOT / "configs" / "sechsundsechzig.yaml").rules().deck == 24
    assert load_config(ROOT / "configs" / "default.yaml").run.time_budget_min is None  # stops on counts only


def test_rllib_config_loads():
    cfg = selfplay.load_config(ROOT / "configs" / "rllib_selfplay.yaml", ["game.rules.deck=24"])
    assert (cfg.name, cfg.ppo.train_batch_size, cfg.ray.num_cpus) == ("rllib_selfplay", 4000, 2)
    assert cfg.env_config() == {"variant": "schnapsen", "episode": "game", "reward": "game_points", "deck": 24}


def test_overrides_merge_dotted_keys_into_the_file():
    cfg = load_config(SMOKE, ["ppo.lr=1e-4", "model.hidden=[8, 4]", "game.rules.allow_closing=false", "run.dir=x"])
    assert cfg.ppo.lr == 1e-4 and cfg.ppo.num_games == 16  # the file's other ppo keys stay
    assert cfg.model.hidden == [8, 4] and cfg.rules().allow_closing is False and cfg.run.dir == "x"
    assert load_config(None, []) == TrainConfig()  # no file: the defaults
    assert load_config(None, ["name=x"]).name == "x"


def test_override_values_are_parsed_by_the_field_type_not_as_yaml_1_1():
    cfg = load_config(SMOKE, ["seeding.seed=010", "run.dir=exp #2", "ppo.target_kl=null", "eval.duplicate=false"])
    assert (cfg.seeding.seed, cfg.run.dir, cfg.ppo.target_kl, cfg.eval.duplicate) == (10, "exp #2", None, False)
    assert [load_config(SMOKE, [f"run.dir={d}"]).run.dir for d in ("2026-12-03", "0123", "null")] == [
        "2026-12-03",
        "0123",
        None,
    ]
    assert load_config(SMOKE, ["name=010"]).name == "010"
    assert load_config(SMOKE, [("run.dir", "null")]).run.dir == "null"  # a (key, value) pair: the value as is
    assert load_config(SMOKE, ["opponents.agents.random=0.25"]).opponents.agents == {"heuristic": 0.2, "random": 0.25}


@pytest.mark.parametrize(
    "overrides, message",
    [
        (["ppo.lrr=1e-4"], "unknown key 'ppo.lrr': allowed lr, anneal_lr, num_games"),
        (["bogus.x=1"], "unknown key 'bogus': allowed name, seeding, game"),
        (
            ["ppo.num_games=many"],
            "ppo.num_games: Input should be a valid integer, unable to parse string as an integer, got 'many'",
        ),
        (["ppo.lr=-0.001"], "ppo.lr: Input should be greater than 0, got '-0.001'"),
        (
            ["seeding.seed=8.5"],
            "seeding.seed: Input should be a valid integer, unable to parse string as an integer, got '8.5'",
        ),
        (["game.variant=skat"], "game.variant: Input should be 'schnapsen', 'schnapsen-sharp'"),
        (["name=my run"], "name: String should match pattern"),
        (["seeding=5"], "seeding: Input should be a valid dictionary or instance of SeedingConfig, got 5"),
        (["model.hidden=[8"], "model.hidden: unreadable value '[8': expected ',' or ']'"),
        (["ppo.lr"], "bad override 'ppo.lr': allowed key=value with a dotted key"),
    ],
)
def test_bad_keys_values_and_overrides_are_one_line(overrides, message):
    assert error(overrides).startswith(message)


def test_a_device_this_machine_lacks():
    torch = pytest.importorskip("torch")
    message = "run.device: allowed 'cpu' or a CUDA device this machine has ('cuda:0', ...), got"
    assert error(["run.device=tpu"]).startswith(message)
    assert error([f"run.device=cuda:{torch.cuda.device_count()}"]).startswith(message)


@pytest.mark.parametrize(
    "overrides, message",
    [
        (["ppo.minibatch_size=100"], "ppo.minibatch_size: 100 must divide the batch 128"),
        (["opponents.current=0", "opponents.snapshots=0", "opponents.agents={}"], "opponents: all weights are 0"),
        (["eval.opponents=[random, alphazero]"], "eval.opponents: unknown agent spec 'alphazero'"),
        (["opponents.agents={pimc:sample=3: 1}"], "opponents.agents: unknown agent spec 'pimc:sample=3'"),
        (["game.rules={deck: 32}"], "game.rules: bad value 32 for option 'deck': allowed 20 or 24"),
        (["game.rules.bogus=1"], "game.rules:"),
        (["eval.games=3"], "eval.games: 3 must be even with eval.duplicate"),
        (["eval.final_games=5"], "eval.final_games: 5 must be even with eval.duplicate"),
        (["ppo.kl_init_coef=1"], "ppo.kl_init_coef: pulls toward model.init's policy: give model.init"),
    ],
)
def test_cross_field_checks(overrides, message):
    assert error(overrides).startswith(message)
    assert load_config(SMOKE, ["eval.duplicate=false", "eval.games=3"]).eval.games == 3


@pytest.mark.parametrize(
    "overrides, message",
    [
        (["ppo.nope=1"], "unknown key 'ppo.nope'"),
        (["game.rules.deck=23"], "game: "),
        (["ppo.minibatch_size=5000"], "ppo.minibatch_size: 5000 is larger than ppo.train_batch_size 4000"),
        (["eval.games=3"], "eval.games: 3 must be even"),
        (["run.checkpoint=false"], "eval.games: the evaluation loads the saved checkpoint"),
    ],
)
def test_rllib_config_problems(overrides, message):
    with pytest.raises(ConfigError, match=message):
        selfplay.load_config(None, overrides)


def test_config_file_problems(tmp_path):
    assert (
        error([], tmp_path / "none.yaml") == f"cannot read config file {str(tmp_path / 'none.yaml')!r}: No such "
        "file or directory"
    )
    f = tmp_path / "c.yaml"
    for text, message in [
        ("", "must hold a mapping of sections, got None"),
        ("- ppo\n", "must hold a mapping of sections, got ['ppo']"),
        ("ppo: {lr: [1\n", "is not valid YAML: expected ',' or ']'"),
    ]:
        f.write_text(text)
        assert error([], f).startswith(f"config file {str(f)!r} {message}")
    f.write_bytes("name: Schnapsen-Bär\n".encode("latin-1"))
    assert "is not valid YAML: 'utf-8' codec can't decode byte 0xe4" in error([], f)
    f.write_text("ppo:\n  lr: 0.1\nrun:\n  dir: x\nppo:\n  num_games: 8\n")
    assert error([], f) == f"config file {str(f)!r} is not valid YAML: duplicate key 'ppo' at line 5, column 1"
    assert error(["opponents.agents={random: 1, random: 2}"], None) == (
        "opponents.agents: unreadable value '{random: 1, random: 2}': duplicate key 'random' at line 1, column 13"
    )
    f.write_text("ppo:\n  learning_rate: 1\n")
    assert error([], f).startswith("unknown key 'ppo.learning_rate'")
    f.write_text("seeding: 5\n")
    assert error(["seeding.seed=1"], f) == "seeding: 5 is not a mapping: cannot set seeding.seed"


@pytest.mark.parametrize("cls", [TrainConfig, selfplay.RLlibSelfPlayConfig])
def test_every_key_is_documented_on_its_model(cls):
    for section, field in cls.model_fields.items():
        sub = field.annotation
        if isinstance(sub, type) and hasattr(sub, "model_fields"):
            assert sub.__doc__
            for name, f in sub.model_fields.items():
                assert f.description, f"{section}.{name}"
        else:
            assert field.description, section
