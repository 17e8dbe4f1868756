"""train.py: the smoke config trains, evaluates, checkpoints and resumes step for step;
the lockstep self-play games credit rewards correctly; bad configs stop with a message."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")  # the [train] extra; absent in the lower-bounds CI job

from agents.neural import ActorCritic, PPOAgent  # noqa: E402
from agents.ppo.selfplay import OpponentPool, SelfPlayGames  # noqa: E402
from schnapsen_env import Rules  # noqa: E402
from schnapsen_env.observation import OBS_SIZE, Observer, encode_state, spec_difference  # noqa: E402
from train_module import load_train  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SMOKE = str(ROOT / "configs" / "smoke.yaml")
LOSSES = ["policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac", "explained_variance"]


train = load_train()


def rows(run_dir: Path) -> list[dict]:
    with open(run_dir / "progress.csv", newline="") as f:
        return list(csv.DictReader(f))


def losses(run_dir: Path) -> list[list[str]]:
    return [[r["update"], r["env_steps"]] + [r[k] for k in LOSSES] for r in rows(run_dir)]


@pytest.fixture(scope="module")
def full_run(tmp_path_factory) -> Path:
    """The smoke config run uninterrupted (4 updates, eval every 2, checkpoint every 2)."""
    d = tmp_path_factory.mktemp("full") / "run"
    assert train.main(["--config", SMOKE, "--run-dir", str(d)]) == 0
    return d


def test_smoke_trains_evaluates_and_checkpoints(full_run, capsys):
    r = rows(full_run)
    assert [int(x["update"]) for x in r] == [1, 2, 3, 4]
    assert all(np.isfinite(float(x[k])) for x in r for k in ("policy_loss", "value_loss", "entropy"))
    # evaluation at updates 2 and 4 only (eval.every = 2)
    assert [x["eval_heuristic_win_rate"] != "" for x in r] == [False, True, False, True]
    assert 0.0 <= float(r[-1]["eval_random_win_rate"]) <= 1.0
    assert int(r[-1]["env_steps"]) > int(r[-1]["learner_steps"])  # opponents' moves count as env steps
    ckpt = torch.load(full_run / "checkpoint.pt", weights_only=True)
    assert ckpt["update"] == 4 and ckpt["config"]["name"] == "smoke"
    assert {"model", "optimizer", "rng", "pool", "games"} <= set(ckpt)
    # the observation spec of the training observations, in both files, as plain data
    spec = ckpt["observation_spec"]
    assert spec_difference(spec) is None and json.loads(json.dumps(spec)) == spec
    assert spec == Observer(Rules.from_dict(ckpt["rules"]), ckpt["config"]["game"]["episode"] == "bummerl").spec
    assert torch.load(full_run / "policy.pt", weights_only=True)["observation_spec"] == spec
    assert len(ckpt["pool"]["snapshots"]) == 2  # snapshot every update, ring of 2
    assert not list(full_run.glob("*.tmp"))
    assert (full_run / "eval.json").is_file() and list(full_run.glob("events.out.tfevents*"))
    # the small policy file is an agent
    agent = PPOAgent(str(full_run / "policy.pt"))
    assert agent.model.hidden == [32, 32]


def test_resumed_run_matches_uninterrupted_run_step_for_step(full_run, tmp_path):
    d = tmp_path / "run"
    # stopped after update 1 (mid checkpoint interval), resumed, stopped after 3, resumed to the end
    assert train.main(["--config", SMOKE, "--run-dir", str(d), "--stop-after", "1"]) == 0
    with open(d / "progress.csv", "a") as f:  # a row logged after the checkpoint, then a kill: dropped
        f.write("2,999,0,0,0,0,0,0,0,0,0,0,0,0,,,,\n")
    assert train.main(["--resume", str(d), "--stop-after", "2"]) == 0
    assert train.main(["--resume", str(d)]) == 0
    assert losses(d) == losses(full_run)
    assert [x["eval_random_win_rate"] for x in rows(d)] == [x["eval_random_win_rate"] for x in rows(full_run)]


def test_seed_changes_the_run_and_same_seed_repeats_it(full_run, tmp_path):
    d = tmp_path / "seed1"
    assert (
        train.main(["--config", SMOKE, "--run-dir", str(d), "--seed", "1", "run.total_updates=2", "eval.final_games=0"])
        == 0
    )
    assert losses(d)[:2] != losses(full_run)[:2]
    d0 = tmp_path / "seed0"
    assert train.main(["--config", SMOKE, "--run-dir", str(d0), "run.total_updates=4", "eval.final_games=0"]) == 0
    assert losses(d0) == losses(full_run)


def test_bfloat16_precision_trains_float32_weights_and_repeats_with_the_same_seed(full_run, tmp_path):
    runs = []
    for name in ("a", "b"):
        argv = ["--config", SMOKE, "--run-dir", str(tmp_path / name), "run.total_updates=2", "eval.final_games=0"]
        assert train.main([*argv, "run.precision=bfloat16"]) == 0
        runs.append(losses(tmp_path / name))
    assert runs[0] == runs[1] != losses(full_run)[:2]  # same seed, same run; other arithmetic than float32's
    ckpt = torch.load(tmp_path / "a" / "checkpoint.pt", weights_only=True)
    assert {v.dtype for v in ckpt["model"].values()} == {torch.float32}


def test_model_init_starts_a_new_run_from_a_policys_weights(full_run, tmp_path):
    # a learning rate of 1e-12: after one update the weights are still the initial ones
    argv = ["--config", SMOKE, "run.total_updates=1", "eval.final_games=0", "--seed", "5", "ppo.lr=1e-12"]
    assert train.main([*argv, "--run-dir", str(tmp_path / "warm"), f"model.init={full_run / 'policy.pt'}"]) == 0
    assert train.main([*argv, "--run-dir", str(tmp_path / "cold")]) == 0
    start = torch.load(full_run / "policy.pt", weights_only=True)["model"]
    warm = torch.load(tmp_path / "warm" / "checkpoint.pt", weights_only=True)
    assert warm["pool"]["snapshot_count"] <= 1 and warm["update"] == 1  # a new run: its own counters and pool
    assert all(torch.allclose(warm["model"][k], v, atol=1e-9) for k, v in start.items())
    cold = torch.load(tmp_path / "cold" / "checkpoint.pt", weights_only=True)["model"]
    assert not torch.allclose(cold["trunk.0.weight"], start["trunk.0.weight"])


@pytest.mark.parametrize(
    "overrides, message",
    [
        (["model.init=ppo"], "model.init: 'ppo' has hidden layers [256, 256], the run's model.hidden is [32, 32]"),
        (["model.init=no/such/policy.pt"], "model.init: no checkpoint file at 'no/such/policy.pt'"),
    ],
)
def test_model_init_that_cannot_start_the_run_is_a_config_error(tmp_path, capsys, monkeypatch, overrides, message):
    monkeypatch.chdir(ROOT)
    rc = train.main(["--config", SMOKE, "--run-dir", str(tmp_path / "x"), *overrides])
    err = capsys.readouterr().err
    assert rc == 2 and message in err and "Traceback" not in err
    assert not (tmp_path / "x").exists()


def test_new_run_refuses_a_directory_holding_a_run(full_run, capsys):
    assert train.main(["--config", SMOKE, "--run-dir", str(full_run)]) == 2
    assert f"run.dir: {full_run} already holds a run; resume it with --resume {full_run}" in capsys.readouterr().err


def test_a_second_training_on_a_locked_run_directory_exits_with_one_line(full_run, tmp_path, capsys):
    from filelock import FileLock

    with FileLock(full_run / "train.lock"):  # another training holds the directory
        (full_run / "train.lock").write_text("pid 4242 on host")
        assert train.main(["--resume", str(full_run), "run.total_updates=5"]) == 2
        err = capsys.readouterr().err
        assert err == f"error: {full_run} is in use by another training (pid 4242 on host): wait for it to end\n"
        d = tmp_path / "new"
        d.mkdir()
        with FileLock(d / "train.lock"):
            assert train.main(["--config", SMOKE, "--run-dir", str(d)]) == 2
        assert f"error: {d} is in use by another training" in capsys.readouterr().err
    assert torch.load(full_run / "checkpoint.pt", weights_only=True)["update"] == 4 and len(rows(full_run)) == 4
    assert not (d / "progress.csv").exists()


@pytest.mark.parametrize(
    "overrides",
    [["game.episode=bummerl", "game.reward=game_points"], ["game.variant=sechsundsechzig", "game.reward=win_loss"]],
)
def test_bummerl_and_sechsundsechzig_episodes_train(tmp_path, overrides):
    d = tmp_path / "run"
    assert (
        train.main(["--config", SMOKE, "--run-dir", str(d), "run.total_updates=2", "eval.final_games=0", *overrides])
        == 0
    )
    assert len(rows(d)) == 2


@pytest.mark.parametrize(
    "overrides, message",
    [
        (["ppo.lrr=1e-4"], "unknown key 'ppo.lrr': allowed lr, anneal_lr"),
        (["game.variant=skat"], "game.variant: Input should be 'schnapsen', 'schnapsen-sharp'"),
        (["ppo.minibatch_size=100"], "ppo.minibatch_size: 100 must divide the batch"),
    ],
)
def test_bad_config_stops_with_message_and_exit_code_2(tmp_path, capsys, overrides, message):
    rc = train.main(["--config", SMOKE, "--run-dir", str(tmp_path / "x"), *overrides])
    err = capsys.readouterr().err
    assert rc == 2
    assert message in err
    assert "Traceback" not in err
    assert not (tmp_path / "x").exists()  # nothing ran


def test_selfplay_games_credit_rewards_to_the_learners_last_decision():
    rules = Rules.preset("schnapsen")
    model = ActorCritic(OBS_SIZE, [8])
    pool = OpponentPool(model, 0.0, 0.0, {"random": 1.0}, 1, seed=0)
    games = SelfPlayGames(rules, 8, pool, random.Random(0), torch.Generator().manual_seed(0))
    games.reset()
    rng = random.Random(1)
    expected_obs = np.zeros(OBS_SIZE, dtype=np.float32)
    seen = []
    for _ in range(60):
        states = [games.games.game_state(i) for i in range(8)]  # the batch as scalar games, replayed
        seats = games.seat.tolist()
        for i, s in enumerate(states):  # every game waits for the learner, obs and mask match
            assert s.current_player == seats[i]
            encode_state(s, seats[i], out=expected_obs)
            assert np.array_equal(games.obs[i].numpy(), expected_obs)
            assert games.mask[i].nonzero().squeeze(1).tolist() == s.legal_actions()
        actions = [rng.choice(s.legal_actions()) for s in states]
        decks = games.games.deck.clone()
        rewards, dones = games.step(torch.tensor(actions))
        for i in range(8):
            s = states[i]
            s.apply(actions[i])
            if dones[i]:
                # the episode ended after this decision, on it or on the opponent's replies
                assert s.outcome is not None or not torch.equal(games.games.deck[i], decks[i])
                assert rewards[i] in (-3, -2, -1, 1, 2, 3)
                if s.outcome is not None:
                    sign = 1 if s.outcome.winner == seats[i] else -1
                    assert rewards[i] == sign * s.outcome.game_points
                seen.append(float(rewards[i]))
            else:
                assert rewards[i] == 0 and s.outcome is None
    assert len(seen) == len(games.pop_finished()) > 20
    assert set(np.abs(seen)) <= {1.0, 2.0, 3.0}


def test_resume_refuses_changes_the_saved_state_depends_on(full_run, capsys):
    assert train.main(["--resume", str(full_run), "ppo.num_games=32"]) == 2
    assert "ppo.num_games: cannot change when resuming" in capsys.readouterr().err
    assert train.main(["--resume", str(full_run), "model.init=ppo", "run.total_updates=5"]) == 2
    assert "model.init: cannot change when resuming" in capsys.readouterr().err
    assert train.main(["--resume", str(full_run), "--config", SMOKE]) == 2
    assert "argument --config: not allowed with argument --resume" in capsys.readouterr().err


def test_resume_of_a_complete_run_says_so_and_exits_0(full_run, capsys):
    before = (full_run / "eval.json").read_text()
    assert train.main(["--resume", str(full_run)]) == 0
    assert (
        capsys.readouterr().out == f"the run in {full_run} is complete (4 of 4 updates); extend it with "
        "run.total_updates=N (N > 4)\n"
    )
    assert (full_run / "eval.json").read_text() == before and len(rows(full_run)) == 4


# --------------------------------------------------- command line: fresh-user problems
def test_overrides_may_stand_on_both_sides_of_options(tmp_path):
    d = tmp_path / "run"
    args = train.parse_args(
        ["--config", SMOKE, "ppo.lr=1e-3", "--seed", "2", f"run.dir={d}", "--stop-after", "1", "eval.games=4"]
    )
    assert args.overrides == ["ppo.lr=1e-3", f"run.dir={d}", "eval.games=4"]
    assert args.seed == 2 and args.stop_after == 1 and args.config == SMOKE


def test_opponent_pool_draws_many_opponents_by_weight_in_two_rng_calls():
    """OpponentPool.choose(rng, k): ids by weight (current 0.2, snapshots 0.3 uniformly among those kept,
    heuristic 0.5), the same draws for the same rng state, the current policy while no snapshot exists."""
    from agents.ppo.selfplay import CURRENT

    pool = OpponentPool(ActorCritic(OBS_SIZE, [4]), 0.2, 0.3, {"heuristic": 0.5}, 3, seed=0)
    assert set(pool.choose(random.Random(1), 200)) == {CURRENT, -1}  # no snapshot yet: the current policy
    for _ in range(3):
        pool.add_snapshot()
    ids = pool.choose(random.Random(2), 20_000)
    assert ids == pool.choose(random.Random(2), 20_000)
    share = {i: ids.count(i) / len(ids) for i in set(ids)}
    assert set(share) == {CURRENT, 1, 2, 3, -1}
    assert share[CURRENT] == pytest.approx(0.2, abs=0.02) and share[-1] == pytest.approx(0.5, abs=0.02)
    assert all(share[s] == pytest.approx(0.1, abs=0.015) for s in (1, 2, 3))
    assert pool.label(-1) == "heuristic" and pool.label(2) == "snapshot" and pool.label(CURRENT) == "current"
