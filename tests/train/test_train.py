"""train.py: the smoke config trains, evaluates, checkpoints and resumes step for step;
the lockstep self-play games credit rewards correctly; bad configs stop with a message.
Ending a run early: the time budget (run.time_budget_min), --stop-after, Ctrl-C/SIGTERM
(in a subprocess and in-process), TensorBoard after --resume, learning_curve.png.
The random streams: each derived from seeding.seed under its own name (schnapsen_env.seeding.derive_seed),
no two with the same seed, each one used. Smoke-sized runs, no timed assertions."""

from __future__ import annotations

import csv
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")  # the [train] extra; absent in the lower-bounds CI job
rundir = pytest.importorskip("agents.training.run")

import agents.evaluation.arena as arena  # noqa: E402
from agents.players.neural import ActorCritic, PPOAgent, load_model, masked_log_probs  # noqa: E402
from agents.training.pool import CURRENT, OpponentPool  # noqa: E402
from schnapsen_env import GameState, Rules  # noqa: E402
from schnapsen_env.actions import NUM_ACTIONS  # noqa: E402
from schnapsen_env.seeding import derive_seed  # noqa: E402
from schnapsen_env.observation import OBS_SIZE, Observer, encode_state, spec_difference  # noqa: E402
from schnapsen_env.vector.env import SchnapsenVectorGymEnv  # noqa: E402
from agents.training import train  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SMOKE = str(ROOT / "configs" / "smoke.yaml")
LOSSES = ["policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac", "explained_variance"]
PNG = b"\x89PNG\r\n\x1a\n"
#: two updates, evaluated at the second on 40 games per opponent
SHORT = ["run.total_updates=2", "eval.games=40", "eval.final_games=0", "run.tensorboard=false"]
NAMES = ["GAMES_STREAM", "SAMPLING_STREAM", "EVAL_STREAM", "WEIGHTS_STREAM"]
NAMES += ["PYTHON_STREAM", "NUMPY_STREAM"]


def rows(run_dir: Path) -> list[dict]:
    with open(run_dir / "progress.csv", newline="") as f:
        return list(csv.DictReader(f))


def losses(run_dir: Path) -> list[list[str]]:
    return [[r["update"], r["env_steps"]] + [r[k] for k in LOSSES] + [r["eval_random_win_rate"]] for r in rows(run_dir)]


def weights(run_dir: Path) -> dict:
    return torch.load(run_dir / "checkpoint.pt", weights_only=True)["model"]


def same_weights(a: Path, b: Path) -> bool:
    wa, wb = weights(a), weights(b)
    return wa.keys() == wb.keys() and all(torch.equal(wa[k], wb[k]) for k in wa)


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
    assert {"model", "optimizer", "rng", "pool", "env"} <= set(ckpt)
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


def test_seed_changes_the_run_and_same_seed_gives_the_same_weights(full_run, tmp_path):
    d = tmp_path / "seed1"
    assert (
        train.main(["--config", SMOKE, "--run-dir", str(d), "--seed", "1", "run.total_updates=2", "eval.final_games=0"])
        == 0
    )
    assert losses(d)[:2] != losses(full_run)[:2]
    d0 = tmp_path / "seed0"
    assert train.main(["--config", SMOKE, "--run-dir", str(d0), "run.total_updates=4", "eval.final_games=0"]) == 0
    assert losses(d0) == losses(full_run) and same_weights(d0, full_run)


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


def test_kl_init_coef_pulls_the_policy_toward_model_init(full_run, tmp_path):
    init = full_run / "policy.pt"
    argv = ["--config", SMOKE, "run.total_updates=2", "eval.final_games=0", "ppo.lr=1e-2", f"model.init={init}"]
    for name, coef in (("free", 0), ("pulled", 30)):
        assert train.main([*argv, "--run-dir", str(tmp_path / name), f"ppo.kl_init_coef={coef}"]) == 0
    rng, obs, masks = random.Random(0), [], []
    observer = Observer(Rules())
    for seed in range(20):
        s = GameState.from_seed(Rules(), seed)
        while not s.is_terminal:
            obs.append(observer.fill_state(s, s.current_player).copy())
            masks.append([(s.legal_mask() >> a) & 1 for a in range(NUM_ACTIONS)])
            s.apply(rng.choice(s.legal_actions()))
    obs, masks = torch.tensor(np.array(obs)), torch.tensor(masks, dtype=torch.bool)

    def log_probs(path):
        with torch.no_grad():
            return masked_log_probs(load_model(path)[0](obs)[0], masks)

    start = log_probs(init)

    def kl(name):
        return (start.exp() * (start - log_probs(tmp_path / name / "policy.pt"))).masked_fill(~masks, 0).sum(1).mean()

    assert kl("pulled") < 0.5 * kl("free")


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


def pool_env(n: int, agents: dict, **kw) -> tuple[OpponentPool, SchnapsenVectorGymEnv]:
    """train.py's env on ``n`` episodes with a pool of ``agents`` (spec -> weight) and a small current policy."""
    pool = OpponentPool(ActorCritic(OBS_SIZE, [8]), current_weight=0.0, agents=agents, generator=torch.Generator())
    env = SchnapsenVectorGymEnv(n, opponent=pool, illegal_action="raise", seed=0, tensors=True, **kw)
    return pool, env


def test_the_training_env_credits_rewards_to_the_learners_last_decision():
    pool, env = pool_env(8, {"random": 0.5, "heuristic": 0.5})
    obs, info = env.reset()
    rng = random.Random(1)
    expected_obs = np.zeros(OBS_SIZE, dtype=np.float32)
    seen, labels = [], []
    for _ in range(60):
        states = [env.games.game_state(i) for i in range(8)]  # the batch as scalar games, replayed
        seats = info["seat"].tolist()
        for i, s in enumerate(states):  # every game waits for the learner, obs and mask match
            assert s.current_player == seats[i]
            encode_state(s, seats[i], out=expected_obs)
            assert np.array_equal(obs[i].numpy(), expected_obs)
            assert info["action_mask"][i].nonzero().squeeze(1).tolist() == s.legal_actions()
        actions = [rng.choice(s.legal_actions()) for s in states]
        decks = env.games.deck.clone()
        obs, rewards, dones, _, info = env.step(torch.tensor(actions))
        if dones.any():
            labels += [info["final_info"]["opponent"][i] for i in dones.nonzero().squeeze(1).tolist()]
        for i in range(8):
            s = states[i]
            s.apply(actions[i])
            if dones[i]:
                # the episode ended after this decision, on it or on the opponent's replies
                assert s.outcome is not None or not torch.equal(env.games.deck[i], decks[i])
                assert rewards[i] in (-3, -2, -1, 1, 2, 3)
                if s.outcome is not None:
                    sign = 1 if s.outcome.winner == seats[i] else -1
                    assert rewards[i] == sign * s.outcome.game_points
                seen.append(float(rewards[i]))
            else:
                assert rewards[i] == 0 and s.outcome is None
    assert len(seen) == len(labels) > 20
    assert set(np.abs(seen)) <= {1.0, 2.0, 3.0}
    assert set(labels) == {"random", "heuristic"} and pool.actions > len(seen)


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


def test_a_checkpoint_saved_on_another_device_resumes_on_this_one(tmp_path, capsys, monkeypatch):
    d = tmp_path / "run"
    assert train.main(["--config", SMOKE, "--run-dir", str(d), "--stop-after", "1", *SHORT]) == 0
    ckpt = torch.load(d / "checkpoint.pt", weights_only=True)
    ckpt["config"]["run"]["device"] = "cuda"
    cuda_state = torch.zeros(16, dtype=torch.uint8)  # a CUDA generator's state (seed, offset): no CPU one
    ckpt["rng"]["sampling"] = ckpt["env"]["episodes"]["generator"] = ckpt["env"]["seat_generator"] = cuda_state
    ckpt["pool"]["agent_rng"] = [None if st is None else cuda_state for st in ckpt["pool"]["agent_rng"]]
    with monkeypatch.context() as m:  # every tensor tagged as saved from cuda:0
        m.setattr(torch.serialization, "location_tag", lambda storage: "cuda:0")
        torch.save(ckpt, d / "checkpoint.pt")
    if not torch.cuda.is_available():
        with pytest.raises(RuntimeError, match="CUDA"):
            torch.load(d / "checkpoint.pt", weights_only=True)
    capsys.readouterr()
    assert train.main(["--resume", str(d), "run.device=cpu"]) == 0
    assert "resumed on cpu from a cuda run: its random streams restart from their seeds" in capsys.readouterr().err
    after = torch.load(d / "checkpoint.pt", weights_only=True)
    assert (after["update"], after["config"]["run"]["device"], len(rows(d))) == (2, "cpu", 2)


def test_snapshot_opponents_live_on_the_training_device():
    model = ActorCritic(OBS_SIZE, [8]).to("meta")  # a device other than the CPU, without a GPU
    pool = OpponentPool(model, snapshot_weight=1.0, max_snapshots=2)
    pool.add_snapshot()
    saved = {**pool.state_dict(), "snapshots": [model.state_dict()], "snapshot_count": 1}
    pool.load_state_dict(saved)
    assert [next(s.parameters()).device.type for s in pool.snapshots] == ["meta"]


# --------------------------------------------------- command line: fresh-user problems
def test_overrides_may_stand_on_both_sides_of_options(tmp_path):
    d = tmp_path / "run"
    args = train.parse_args(
        ["--config", SMOKE, "ppo.lr=1e-3", "--seed", "2", f"run.dir={d}", "--stop-after", "1", "eval.games=4"]
    )
    assert args.overrides == ["ppo.lr=1e-3", f"run.dir={d}", "eval.games=4"]
    assert args.seed == 2 and args.stop_after == 1 and args.config == SMOKE


def test_seed_and_run_dir_are_taken_as_written():
    def prepared(*argv):
        cfg, run = train.prepare(train.parse_args(["--config", SMOKE, *argv]))
        return cfg.seeding.seed, run

    assert prepared("--seed", "010", "--run-dir", "exp #2") == (10, Path("exp #2"))
    assert prepared("seeding.seed=010", "--run-dir", "2026-12-03") == (10, Path("2026-12-03"))
    assert prepared("--run-dir", "0123")[1] == Path("0123")
    assert prepared("--run-dir", "null")[1] == Path("null")


def test_opponent_pool_draws_many_opponents_by_weight_in_two_rng_calls():
    """OpponentPool.choose(rng, k): ids by weight (current 0.2, snapshots 0.3 uniformly among those kept,
    heuristic 0.5), the same draws for the same rng state, the current policy while no snapshot exists."""
    pool = OpponentPool(
        ActorCritic(OBS_SIZE, [4]), current_weight=0.2, snapshot_weight=0.3, agents={"heuristic": 0.5}, max_snapshots=3
    )
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


# ------------------------------------------------------------------ time budget
def test_time_budget_stops_early_saves_evaluates_and_says_how_many_updates_fitted(full_run, tmp_path, capsys):
    d = tmp_path / "run"
    # 0.06 s: less than the final evaluation's reserve, so only the first update (always run) fits
    assert train.main(["--config", SMOKE, "--run-dir", str(d), "run.time_budget_min=0.001"]) == 0
    out = capsys.readouterr().out
    assert (
        f"stopped by the time budget (0.001 min) after 1 of 4 updates; continue with: python train.py --resume {d}"
        in out
    )
    assert re.search(r"final evaluation after 1 updates, [\d,]+ env steps", out)
    assert "random " in out and "heuristic " in out  # the table
    for name in ("checkpoint.pt", "policy.pt", "progress.csv", "eval.json"):
        assert f"{d / name}" in out
        assert (d / name).is_file()
    assert torch.load(d / "checkpoint.pt", weights_only=True)["update"] == 1
    assert len(rows(d)) == 1
    # the budget-stopped run continues exactly (a resume has a budget of its own; here none)
    assert train.main(["--resume", str(d), "run.time_budget_min=null"]) == 0
    assert losses(d) == losses(full_run)
    assert same_weights(d, full_run)


def test_budget_reserves_the_slowest_update_and_the_evaluations():
    b = rundir.TimeBudget(1.0, started=100.0, eval_games=400, final_games=2000)
    assert b.deadline == 160.0
    # an update of 2.4 s, 0.4 s of it an evaluation of 400 games (1 ms each): the final evaluation takes 2 s
    now = 160.0 - (b.MARGIN * (2.0 + 2.0) + b.RESERVE_S) - 0.01
    assert b.next_update_fits(now, now - 2.4, 0.4, False)
    assert not b.next_update_fits(now + 0.02, now - 1.0, 0.0, False)  # the slowest update counts
    assert not b.next_update_fits(now, now - 1.0, 0.0, True)  # and the next update's evaluation (0.4 s)
    assert b.next_update_fits(now - b.MARGIN * 0.4, now - 1.0, 0.0, True)


# ------------------------------------------------------------------ --stop-after
def test_stop_after_says_what_it_did(tmp_path, capsys):
    d = tmp_path / "run"
    assert train.main(["--config", SMOKE, "--run-dir", str(d), "--stop-after", "3"]) == 0
    out = capsys.readouterr().out
    assert f"stopped as asked (--stop-after) after 3 of 4 updates; continue with: python train.py --resume {d}" in out
    assert "final evaluation" not in out
    assert (d / "learning_curve.png").read_bytes().startswith(PNG)  # the evaluation at update 2


# ------------------------------------------------------------------ signals
#: a run that checkpoints and evaluates every update, constant learning rate (so the reference run may have
#: fewer updates in all), no TensorBoard (faster start)
SIG = ["ppo.anneal_lr=false", "eval.every=1", "run.checkpoint_every=1", "eval.final_games=0", "run.tensorboard=false"]


def _interrupt_subprocess(run_dir: Path, sig: int) -> tuple[int, str, str]:
    args = ["--config", SMOKE, "--run-dir", str(run_dir), "run.total_updates=100000", *SIG]
    cmd = [sys.executable, str(ROOT / "train.py"), *args]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not (run_dir / "checkpoint.pt").exists():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no checkpoint within 120 s"
            time.sleep(0.01)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, out, err


@pytest.mark.parametrize(
    "sig, words", [(signal.SIGINT, "interrupted by SIGINT"), (signal.SIGTERM, "interrupted by SIGTERM")]
)
def test_signal_saves_prints_the_resume_command_and_resume_is_exact(tmp_path, sig, words):
    d = tmp_path / "run"
    rc, out, err = _interrupt_subprocess(d, sig)
    assert rc == 130, (out, err)
    assert "Traceback" not in out + err
    resume_lines = [line for line in (out + err).splitlines() if "--resume" in line]
    assert len(resume_lines) == 1, out + err
    m = re.fullmatch(
        rf"{words}: checkpoint saved at update (\d+); continue with: python (\S+) --resume (\S+)", resume_lines[0]
    )
    assert m, resume_lines[0]
    assert Path(m[2]) == ROOT / "train.py" and Path(m[3]) == d
    k = int(m[1])
    assert torch.load(d / "checkpoint.pt", weights_only=True)["update"] == k == len(rows(d))
    assert not list(d.glob("*.tmp"))
    # continue two more updates; the same run uninterrupted ends bit-identical
    assert train.main(["--resume", str(d), f"run.total_updates={k + 2}"]) == 0
    ref = tmp_path / "ref"
    assert train.main(["--config", SMOKE, "--run-dir", str(ref), f"run.total_updates={k + 2}", *SIG]) == 0
    assert losses(d) == losses(ref)
    assert same_weights(d, ref)


def _send_during(monkeypatch, name: str, when, count: int):
    """Replace ``train.NAME`` by a wrapper that sends ``count`` SIGINTs to this process before the
    call for which ``when(*args)`` is true."""
    real = getattr(train, name)

    def wrapper(*args, **kwargs):
        if when(*args):
            for _ in range(count):
                os.kill(os.getpid(), signal.SIGINT)
        return real(*args, **kwargs)

    monkeypatch.setattr(train, name, wrapper)


def test_second_ctrl_c_during_an_update_abandons_it_and_keeps_the_last_checkpoint(
    full_run, tmp_path, capsys, monkeypatch
):
    d = tmp_path / "run"
    assert train.main(["--config", SMOKE, "--run-dir", str(d), "--stop-after", "2"]) == 0
    # twice during the periodic evaluation of update 4 (inside the update, before its checkpoint)
    _send_during(monkeypatch, "evaluate", lambda model, cfg, games, update, *a: update == 4, count=2)
    capsys.readouterr()
    assert train.main(["--resume", str(d)]) == 130
    err = capsys.readouterr().err
    assert f"interrupted by SIGINT: checkpoint saved at update 2; continue with: python train.py --resume {d}" in err
    assert "Traceback" not in err
    assert torch.load(d / "checkpoint.pt", weights_only=True)["update"] == 2
    monkeypatch.undo()
    assert train.main(["--resume", str(d)]) == 0  # the log rows after the checkpoint are dropped
    assert losses(d) == losses(full_run)


def test_ctrl_c_before_the_run_starts_is_one_line(tmp_path, capsys, monkeypatch):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(train, "prepare", interrupted)
    assert train.main(["--config", SMOKE]) == 130
    err = capsys.readouterr().err
    assert err == "interrupted before the run started: nothing was written\n"


def test_first_signal_is_noted_the_second_stops_at_once():
    before = signal.getsignal(signal.SIGINT)
    s = rundir.Signals()
    os.kill(os.getpid(), signal.SIGTERM)  # the first: noted, the update goes on
    assert s.received == signal.SIGTERM
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)
    s.restore()
    assert signal.getsignal(signal.SIGINT) == before


# ------------------------------------------------------------------ TensorBoard after --resume
def test_resume_opens_the_writer_with_purge_step_after_the_checkpoint(tmp_path, monkeypatch):
    d = tmp_path / "run"
    assert train.main(["--config", SMOKE, "--run-dir", str(d), "--stop-after", "3"]) == 0
    from torch.utils import tensorboard

    seen = []
    real = tensorboard.SummaryWriter

    def spy(*args, **kwargs):
        seen.append(kwargs.get("purge_step"))
        return real(*args, **kwargs)

    monkeypatch.setattr(tensorboard, "SummaryWriter", spy)
    assert train.main(["--resume", str(d), "--stop-after", "1"]) == 0
    assert seen == [4]  # scalars use global step = update; the checkpoint holds update 3


# ------------------------------------------------------------------ learning curve
def test_learning_curve_is_a_png_of_the_periodic_evaluations(full_run, tmp_path):
    assert (full_run / "learning_curve.png").read_bytes().startswith(PNG)
    d = tmp_path / "none"
    d.mkdir()
    (d / "progress.csv").write_text("update,env_steps,eval_random_win_rate\n1,10,\n")
    assert rundir.write_learning_curve(d, "none") is None and not (d / "learning_curve.png").exists()


# ------------------------------------------------------------------ random streams
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
    real_env = train.training_env

    def env(cfg, model, generator, num_envs, seed):
        built["games"], built["sampling"] = seed, generator.get_state()
        return real_env(cfg, model, generator, num_envs, seed)

    real_play_pair = arena.play_pair
    evals = []

    def play_pair(agent, spec, **kw):
        evals.append((agent.seed, kw["seed"]))
        return real_play_pair(agent, spec, **kw)

    monkeypatch.setattr(train, "training_env", env)
    monkeypatch.setattr(arena, "play_pair", play_pair)
    assert train.main(["--config", SMOKE, "--run-dir", str(tmp_path / "r"), "--seed", "11", *SHORT]) == 0
    seeds = train.stream_seeds(11)
    assert built["games"] == seeds["games"]  # the env's: deals, seats and the pool's streams of it
    assert torch.equal(built["sampling"], torch.Generator().manual_seed(seeds["sampling"]).get_state())
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


def test_resume_command_names_how_the_run_was_started(monkeypatch):
    from agents.training.run import resume_command

    module_file = str(Path(train.__file__).resolve())
    monkeypatch.setattr(sys, "argv", [module_file, "--config", "configs/default.yaml"])
    assert resume_command(Path("runs/a b")) == "python -m agents.training.train --resume 'runs/a b'"
    monkeypatch.setattr(sys, "argv", ["../project/train.py"])
    assert resume_command(Path("runs/x")) == "python ../project/train.py --resume runs/x"
