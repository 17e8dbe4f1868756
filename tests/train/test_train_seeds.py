"""train.py's random streams: each derived from seeding.seed under its own name
(schnapsen_env.seeding.derive_seed), no two with the same seed, each one used."""

from __future__ import annotations

import csv
import inspect
import random
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")  # the [train] extra; absent in the lower-bounds CI job

import agents.arena as arena  # noqa: E402
from schnapsen_env.seeding import derive_seed  # noqa: E402
from train_module import load_train  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SMOKE = str(ROOT / "configs" / "smoke.yaml")
#: two updates, evaluated at the second on 40 games per opponent
SHORT = ["run.total_updates=2", "eval.games=40", "eval.final_games=0", "run.tensorboard=false"]
NAMES = ["GAMES_STREAM", "DEALS_STREAM", "SAMPLING_STREAM", "POOL_STREAM", "EVAL_STREAM", "WEIGHTS_STREAM"]
NAMES += ["PYTHON_STREAM", "NUMPY_STREAM"]


train = load_train()


def figures(run_dir: Path) -> tuple:
    """(loss columns, evaluation columns) of a run's log."""
    with open(run_dir / "progress.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    train_cols = [[r[k] for k in ("env_steps", "policy_loss", "value_loss", "entropy")] for r in rows]
    eval_cols = [[r[k] for k in r if k.startswith("eval_")] for r in rows]
    return train_cols, eval_cols


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> tuple:
    d = tmp_path_factory.mktemp("base") / "run"
    assert train.main(["--config", SMOKE, "--run-dir", str(d), *SHORT]) == 0
    return figures(d)


def test_every_stream_has_its_own_seed_from_its_name():
    assert len({getattr(train, n) for n in NAMES}) == len(NAMES)
    for seed in (0, 1, 7, 2**63 - 1):
        seeds = train.stream_seeds(seed)
        assert set(seeds) == {getattr(train, n) for n in NAMES} | {"eval/agent"}
        assert len(set(seeds.values())) == len(seeds), seeds  # no two streams share a seed
        for name, s in seeds.items():
            assert s == derive_seed(seed, *name.split("/"))
        assert seed not in seeds.values()  # none is the master seed (the deal stream of that seed)
        # the generators built from them start differently
        firsts = [random.Random(s).getrandbits(64) for s in seeds.values()]
        assert len(set(firsts)) == len(firsts)
        torch_firsts = [
            torch.randint(2**62, (1,), generator=torch.Generator().manual_seed(s)).item() for s in seeds.values()
        ]
        assert len(set(torch_firsts)) == len(torch_firsts)
    assert train.eval_seed(5) == train.stream_seeds(5)["eval"]
    assert train.stream_seeds(0) != train.stream_seeds(1)


def test_the_global_generators_are_seeded_from_their_streams():
    train.seed_global_generators(3)
    seeds = train.stream_seeds(3)
    assert random.random() == random.Random(seeds["python"]).random()
    assert np.random.random() == np.random.RandomState(seeds["numpy"] % 2**32).random_sample()
    assert torch.rand(1).item() == torch.rand(1, generator=torch.Generator().manual_seed(seeds["weights"])).item()


def test_the_run_takes_its_generators_from_the_streams(tmp_path, monkeypatch):
    built = {}
    real_games, real_pool = train.SelfPlayGames, train.OpponentPool

    def games(*a, **kw):
        args = inspect.signature(real_games).bind(*a, **kw).arguments
        built["games"], built["sampling"] = args["rng"].getstate(), args["generator"].get_state()
        built["deals"] = args["deal_seed"]
        return real_games(*a, **kw)

    def pool(*a, **kw):
        built["pool"] = inspect.signature(real_pool).bind(*a, **kw).arguments["seed"]
        return real_pool(*a, **kw)

    real_play_pair = arena.play_pair
    evals = []

    def play_pair(agent, spec, **kw):
        evals.append((agent.seed, kw["seed"]))
        return real_play_pair(agent, spec, **kw)

    monkeypatch.setattr(train, "SelfPlayGames", games)
    monkeypatch.setattr(train, "OpponentPool", pool)
    monkeypatch.setattr(arena, "play_pair", play_pair)
    assert train.main(["--config", SMOKE, "--run-dir", str(tmp_path / "r"), "--seed", "11", *SHORT]) == 0
    seeds = train.stream_seeds(11)
    assert built["games"] == random.Random(seeds["games"]).getstate()
    assert torch.equal(built["sampling"], torch.Generator().manual_seed(seeds["sampling"]).get_state())
    assert built["pool"] == seeds["pool"]
    assert built["deals"] == seeds["deals"]
    assert evals == [(seeds["eval/agent"], seeds["eval"])] * 2  # update 2, against random and heuristic


@pytest.mark.parametrize("name", NAMES)
def test_renaming_a_stream_changes_what_it_drives(base, tmp_path, monkeypatch, name):
    monkeypatch.setattr(train, name, getattr(train, name) + "-renamed")
    d = tmp_path / "run"
    assert train.main(["--config", SMOKE, "--run-dir", str(d), *SHORT]) == 0
    train_cols, eval_cols = figures(d)
    if name in ("PYTHON_STREAM", "NUMPY_STREAM"):  # nothing draws from the global generators
        assert (train_cols, eval_cols) == base
    elif name == "EVAL_STREAM":  # the evaluation deals change, training does not
        assert train_cols == base[0] and eval_cols != base[1]
    else:
        assert train_cols != base[0]
