"""train.py: the smoke config trains, evaluates, checkpoints and resumes step for step;
the lockstep self-play games credit rewards correctly; bad configs stop with a message."""

from __future__ import annotations

import csv
import json
import random
import re
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")  # the [train] extra; absent in the lower-bounds CI job

from agents.neural import ActorCritic, PPOAgent  # noqa: E402
from agents.ppo.selfplay import OpponentPool, SelfPlayGames  # noqa: E402
from schnapsen_env import Rules  # noqa: E402
from schnapsen_env.observation import OBS_SIZE, Observer, encode_state, spec_difference  # noqa: E402
from train_module import load_train  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
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
    # "killed" after update 1 (mid checkpoint interval), resumed, killed after 3, resumed to the end
    assert train.main(["--config", SMOKE, "--run-dir", str(d), "--stop-after", "1"]) == 0
    assert len(rows(d)) == 1
    assert train.main(["--resume", str(d), "--stop-after", "2"]) == 0
    assert train.main(["--resume", str(d)]) == 0
    assert losses(d) == losses(full_run)
    assert [x["eval_random_win_rate"] for x in rows(d)] == [x["eval_random_win_rate"] for x in rows(full_run)]


def test_resume_drops_log_rows_after_the_checkpoint(full_run, tmp_path):
    d = tmp_path / "run"
    assert train.main(["--config", SMOKE, "--run-dir", str(d), "--stop-after", "2"]) == 0
    with open(d / "progress.csv", "a") as f:  # a row written after the checkpoint, then a kill
        f.write("3,999,0,0,0,0,0,0,0,0,0,0,0,0,,,,\n")
    assert train.main(["--resume", str(d)]) == 0
    assert losses(d) == losses(full_run)


def test_seed_changes_the_run_and_same_seed_repeats_it(full_run, tmp_path):
    d = tmp_path / "seed1"
    assert train.main(["--config", SMOKE, "--run-dir", str(d), "--seed", "1", "run.total_updates=2",
                       "eval.final_games=0"]) == 0
    assert losses(d)[:2] != losses(full_run)[:2]
    d0 = tmp_path / "seed0"
    assert train.main(["--config", SMOKE, "--run-dir", str(d0), "run.total_updates=4", "eval.final_games=0"]) == 0
    assert losses(d0) == losses(full_run)


def test_bfloat16_precision_trains_float32_weights_and_repeats_with_the_same_seed(full_run, tmp_path):
    runs = []
    for name in ("a", "b"):
        d = tmp_path / name
        assert train.main(["--config", SMOKE, "--run-dir", str(d), "run.total_updates=2", "eval.final_games=0",
                           "run.precision=bfloat16"]) == 0
        runs.append(losses(d))
    assert runs[0] == runs[1]  # same seed, same run
    assert runs[0] != losses(full_run)[:2]  # other arithmetic than float32's
    ckpt = torch.load(tmp_path / "a" / "checkpoint.pt", weights_only=True)
    assert ckpt["config"]["run"]["precision"] == "bfloat16"
    assert {v.dtype for v in ckpt["model"].values()} == {torch.float32}
    assert all(np.isfinite(float(x)) for row in runs[0] for x in row[2:5])


def test_model_init_starts_a_new_run_from_a_policys_weights(full_run, tmp_path):
    d = tmp_path / "warm"
    # a learning rate of 1e-12: after one update the weights are still the initial ones
    assert train.main(["--config", SMOKE, "--run-dir", str(d), "run.total_updates=1", "eval.final_games=0",
                       "--seed", "5", "ppo.lr=1e-12", f"model.init={full_run / 'policy.pt'}"]) == 0
    start = torch.load(full_run / "policy.pt", weights_only=True)["model"]
    warm = torch.load(d / "checkpoint.pt", weights_only=True)
    assert warm["config"]["model"]["init"] == str(full_run / "policy.pt")
    assert warm["pool"]["snapshot_count"] <= 1 and warm["update"] == 1  # a new run: its own counters and pool
    for k, v in start.items():
        assert torch.allclose(warm["model"][k], v, atol=1e-9), k
    cold = tmp_path / "cold"
    assert train.main(["--config", SMOKE, "--run-dir", str(cold), "run.total_updates=1", "eval.final_games=0",
                       "--seed", "5", "ppo.lr=1e-12"]) == 0
    assert not torch.allclose(torch.load(cold / "checkpoint.pt", weights_only=True)["model"]["trunk.0.weight"],
                              start["trunk.0.weight"])


@pytest.mark.parametrize("overrides, message", [
    (["model.init=ppo"], "model.init: 'ppo' has hidden layers [256, 256], the run's model.hidden is [32, 32]"),
    (["model.init=no/such/policy.pt"], "model.init: no checkpoint file at 'no/such/policy.pt'"),
    (["model.init=README.md"], "model.init: cannot load checkpoint 'README.md': not a schnapsen-env policy"),
    (["model.init=''"], "model.init: bad value '': allowed null, 'ppo'"),
    (["model.init=ppo-strong"], "model.init: no checkpoint file at 'ppo-strong' (No such file or directory; give a "
                                "policy.pt or checkpoint.pt written by train.py); or 'ppo' for the shipped policy"),
    (["model.init=a\nb.pt"], "model.init: a line break in the value of override"),
    (["model.init=a\x01b"], "model.init: unreadable value 'a\\x01b': unacceptable character"),
    (["run.total_updates=2\u2028"], "run.total_updates: a line break in the value of override"),
    (["seeding.seed=3\x85"], "seeding.seed: a line break in the value of override"),
])
def test_model_init_that_cannot_start_the_run_is_a_config_error(tmp_path, capsys, monkeypatch, overrides, message):
    monkeypatch.chdir(ROOT)
    rc = train.main(["--config", SMOKE, "--run-dir", str(tmp_path / "x"), *overrides])
    err = capsys.readouterr().err
    assert rc == 2 and message in err and "Traceback" not in err
    assert not (tmp_path / "x").exists()


def test_model_init_with_weights_that_are_not_finite_is_a_config_error(full_run, tmp_path, capsys):
    ckpt = torch.load(full_run / "policy.pt", weights_only=True)
    ckpt["model"]["trunk.0.weight"][0, 0] = float("nan")
    torch.save(ckpt, tmp_path / "nan.pt")
    rc = train.main(["--config", SMOKE, "--run-dir", str(tmp_path / "x"), f"model.init={tmp_path / 'nan.pt'}"])
    err = capsys.readouterr().err
    assert rc == 2 and "holds weights that are not finite numbers" in err and "Traceback" not in err
    # the same file as an agent or a policy: refused when loaded, not NaN probabilities at play time
    from agents import make_agent
    from agents.policy import load_policy

    for load in (lambda: make_agent(f"ppo:{tmp_path / 'nan.pt'}"), lambda: load_policy(str(tmp_path / "nan.pt"))):
        with pytest.raises(ValueError, match=r"not finite numbers \('trunk.0.weight' has NaN or infinity\)"):
            load()


def test_resume_refuses_another_model_init(full_run, tmp_path, capsys):
    assert train.main(["--resume", str(full_run), "model.init=ppo", "run.total_updates=5"]) == 2
    assert "model.init: a resumed run continues from its checkpoint's weights (it started from random weights)" \
        in capsys.readouterr().err


def test_model_init_is_recorded_as_an_absolute_path(full_run, tmp_path, monkeypatch):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "p.pt").write_bytes((full_run / "policy.pt").read_bytes())
    monkeypatch.chdir(tmp_path)
    assert train.main(["--config", SMOKE, "--run-dir", "rel", "run.total_updates=1", "eval.final_games=0",
                       "model.init=sub/p.pt"]) == 0
    saved = torch.load(tmp_path / "rel" / "checkpoint.pt", weights_only=True)["config"]["model"]["init"]
    assert saved == str(tmp_path / "sub" / "p.pt")
    # the same file, named from here, resumes; from elsewhere the relative name is another file
    assert train.main(["--resume", "rel", "model.init=sub/p.pt", "run.total_updates=2", "eval.final_games=0"]) == 0
    monkeypatch.chdir(tmp_path / "sub")
    assert train.main(["--resume", str(tmp_path / "rel"), "model.init=sub/p.pt", "run.total_updates=3"]) == 2


def test_new_run_refuses_a_directory_holding_files_a_run_writes(full_run, tmp_path, capsys):
    keep = tmp_path / "keep"
    keep.mkdir()
    (keep / "notes.txt").write_text("mine")
    (keep / "policy.pt").write_bytes((full_run / "policy.pt").read_bytes())
    before = (keep / "policy.pt").read_bytes()
    rc = train.main(["--config", SMOKE, "--run-dir", str(keep), f"model.init={keep / 'policy.pt'}"])
    assert rc == 2
    assert "already holds policy.pt, which a run writes: choose an empty or new directory" in capsys.readouterr().err
    assert (keep / "policy.pt").read_bytes() == before and sorted(p.name for p in keep.iterdir()) == \
        ["notes.txt", "policy.pt"]
    (keep / "policy.pt").unlink()
    for name in ("eval.json", "checkpoint.pt.tmp"):  # a dangling symbolic link, or a save's temporary name
        (keep / name).symlink_to(tmp_path / "elsewhere" / "target")
        assert train.main(["--config", SMOKE, "--run-dir", str(keep)]) == 2
        assert f"already holds {name}, which a run writes" in capsys.readouterr().err
        (keep / name).unlink()
    assert not (tmp_path / "elsewhere").exists()
    # another run's TensorBoard curves: two runs' events in one directory draw as one curve
    (keep / "events.out.tfevents.1700000000.host.1.0").write_bytes(b"")
    assert train.main(["--config", SMOKE, "--run-dir", str(keep)]) == 2
    assert ("already holds TensorBoard event files (events.out.tfevents.1700000000.host.1.0) of another run: "
            "choose an empty or new directory") in capsys.readouterr().err
    (keep / "events.out.tfevents.1700000000.host.1.0").unlink()
    # run.dir itself a dangling symbolic link: refused up front, nothing created at its target
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere" / "run")
    assert train.main(["--config", SMOKE, "--run-dir", str(tmp_path / "dangling")]) == 2
    assert "is a symbolic link to nothing (a dangling link): choose another path" in capsys.readouterr().err
    assert not (tmp_path / "nowhere").exists()
    # other files stay untouched: the run may use the directory
    assert train.main(["--config", SMOKE, "--run-dir", str(keep), "run.total_updates=1", "eval.final_games=0"]) == 0
    assert (keep / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize("overrides", [["game.episode=bummerl", "game.reward=game_points"],
                                       ["game.variant=sechsundsechzig", "game.reward=win_loss"]])
def test_bummerl_and_sechsundsechzig_episodes_train(tmp_path, overrides):
    d = tmp_path / "run"
    assert train.main(["--config", SMOKE, "--run-dir", str(d), "run.total_updates=2", "eval.final_games=0",
                       *overrides]) == 0
    assert len(rows(d)) == 2


@pytest.mark.parametrize("overrides, message", [
    (["ppo.lrr=1e-4"], "unknown key 'ppo.lrr': allowed lr, anneal_lr"),
    (["game.variant=skat"], "game.variant: Input should be 'schnapsen', 'schnapsen-sharp'"),
    (["ppo.minibatch_size=100"], "ppo.minibatch_size: 100 must divide the batch"),
])
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
    assert train.main(["--resume", str(full_run), "--config", SMOKE]) == 2
    assert "give either --config" in capsys.readouterr().err


def test_resume_of_a_complete_run_refuses_training_overrides_that_would_change_nothing(full_run, capsys):
    assert train.main(["--resume", str(full_run), "ppo.lr=0.5"]) == 2
    err = capsys.readouterr().err
    assert "ppo.lr: the run is complete" in err and "extend the run with run.total_updates=N" in err
    assert train.main(["--resume", str(full_run), "eval.every=1"]) == 2  # periodic evaluations: none left
    assert "eval.every: the run is complete" in capsys.readouterr().err
    assert train.main(["--resume", str(full_run), "run.precision=bfloat16"]) == 2  # no forward pass left
    assert "run.precision: the run is complete" in capsys.readouterr().err


# --------------------------------------------------- command line: fresh-user problems
def test_overrides_may_stand_on_both_sides_of_options(tmp_path):
    d = tmp_path / "run"
    args = train.parse_args(["--config", SMOKE, "ppo.lr=1e-3", "--seed", "2", f"run.dir={d}", "--stop-after", "1",
                             "eval.games=4"])
    assert args.overrides == ["ppo.lr=1e-3", f"run.dir={d}", "eval.games=4"]
    assert args.seed == 2 and args.stop_after == 1 and args.config == SMOKE


@pytest.mark.parametrize("argv, message", [
    (["--seed", "2", "seeding.seed=3"], "--seed 2 and seeding.seed=3 both set seeding.seed"),
    (["seeding.seed=3", "--seed", "3"], "--seed 3 and seeding.seed=3 both set seeding.seed"),
    (["run.dir=''"], "run.dir: String should have at least 1 character, got ''"),
    (["--seed", " 5"], "argument --seed: expected a whole number in ASCII digits, got ' 5'"),
    (["--stop-after", "+3"], "argument --stop-after: expected a whole number in ASCII digits, got '+3'"),
])
def test_conflicting_repeated_or_empty_overrides_are_config_errors(tmp_path, capsys, argv, message):
    assert train.main(["--config", SMOKE, *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_run_dir_option_conflicts_and_empty(tmp_path, capsys):
    assert train.main(["--config", SMOKE, "--run-dir", str(tmp_path / "a"), f"run.dir={tmp_path / 'b'}"]) == 2
    assert "both set run.dir" in capsys.readouterr().err
    assert train.main(["--config", SMOKE, "--run-dir", ""]) == 2
    assert "--run-dir: empty path" in capsys.readouterr().err
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_run_dir_that_is_a_file_stops_before_training(tmp_path, capsys):
    f = tmp_path / "notes.txt"
    f.write_text("keep me")
    assert train.main(["--config", SMOKE, f"run.dir={f}"]) == 2
    err = capsys.readouterr().err
    assert f"run.dir: {str(f)!r} is an existing file, not a directory" in err and "Traceback" not in err
    assert train.main(["--config", SMOKE, "--run-dir", str(f / "sub")]) == 2
    assert f"{str(f)!r} is a file, not a directory" in capsys.readouterr().err
    assert f.read_text() == "keep me"


def test_resume_of_a_file_that_is_not_a_checkpoint_is_a_config_error(tmp_path, capsys):
    (tmp_path / "checkpoint.pt").write_text("not a checkpoint")
    assert train.main(["--resume", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--resume: cannot load" in err and "weights_only" not in err and "Traceback" not in err


def test_final_evaluation_time_has_a_decimal(tmp_path, capsys):
    # the short smoke run takes well under a second to evaluate: "0 s" hid that
    d = tmp_path / "short"
    assert train.main(["--config", SMOKE, "--run-dir", str(d), "run.total_updates=1", "eval.final_games=2",
                       "eval.games=2"]) == 0
    line = [s for s in capsys.readouterr().out.splitlines() if s.startswith("final evaluation")][0]
    assert re.search(r"env steps, \d+\.\d s \(duplicate", line), line


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
