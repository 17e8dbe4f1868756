"""PPO self-play for Schnapsen, CleanRL style: the whole algorithm on this page, top to bottom.

    python train.py --config configs/default.yaml [--seed N] [--run-dir DIR] [key=value ...]
    python train.py --resume RUN_DIR [key=value ...]

(``train.py`` at the repository root calls :func:`main`; ``python -m agents.training.train`` is the same
command from an installed package.)

config -> env (the public batched env ``SchnapsenVectorGymEnv`` with ``ppo.num_games`` episodes,
tensors on ``run.device``; its opponent is the pool of :mod:`agents.training.pool`, which draws each
episode's opponent from ``opponents``) -> rollout -> GAE -> PPO update (clipped objective, clipped
value loss, entropy bonus, Adam) -> logging; every ``eval.every`` updates the greedy policy plays
``eval.opponents`` (duplicate deals), at the end a table over ``eval.final_games`` games.
Checkpoints, logs, one writer per run directory, the time budget and signals: :mod:`agents.training.run`.
Each random stream has its own seed (:func:`stream_seeds`); a checkpoint at an update boundary
resumes with the same numbers. ``run.time_budget_min``, ``--stop-after K`` and Ctrl-C/SIGTERM (after
the update in progress; a second one at once) save a checkpoint and print the ``--resume`` command.
Exit codes: 0 done, 2 an error (one line on stderr: ``config error: ...``, ``checkpoint error: ...``
or ``error: ...``), 130 interrupted by SIGINT or SIGTERM.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from agents.players.shipped import SHIPPED
from agents.players.neural import ActorCritic, PPOAgent, forward_in, load_model
from agents.players.neural import masked_entropy, masked_log_probs, sample_actions
from agents.training import run as rundir
from agents.training.config import ConfigError, PPOConfig, TrainConfig, load_config

# the files, for tools
from agents.training.run import CSV_NAME as CSV_NAME, EVAL_JSON as EVAL_JSON, POLICY as POLICY
from agents.training.run import (
    EXIT_INTERRUPTED,
    CheckpointError,
    Interrupted,
    RunDir,
    RunError,
    Signals,
    TimeBudget,
)
from agents.training.pool import OpponentPool, training_env
from schnapsen_env.actions import NUM_ACTIONS
from schnapsen_env.cli_io import one_line, silence
from schnapsen_env.observation import OBS_SIZE
from schnapsen_env.seeding import derive_seed
from schnapsen_env.vector.env import SchnapsenVectorGymEnv

#: names of the random streams: each generator is seeded by ``derive_seed(seeding.seed, NAME)``
#: the env's seed: its deals, the learner's seats and the pool (its own streams of it)
GAMES_STREAM = "games"
SAMPLING_STREAM = "sampling"  #: action sampling and minibatch order (torch.Generator)
EVAL_STREAM = "eval"  #: the deals of every evaluation; sub-stream "agent": the evaluated agent
WEIGHTS_STREAM = "weights"  #: torch's global generator: the initial weights
PYTHON_STREAM = "python"  #: the global generator of ``random`` (nothing in a run draws from it)
NUMPY_STREAM = "numpy"  #: the global generator of ``numpy.random`` (nothing in a run draws from it)
LOSS_KEYS = ["policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac", "explained_variance"]
#: the columns of progress.csv before the periodic evaluations' (``eval_<opponent>_<figure>``)
LOG_COLUMNS = ["update", "env_steps", "learner_steps", "time_s", "rollout_steps_per_s", "lr"]
LOG_COLUMNS += [*LOSS_KEYS, "episodes", "episode_reward"]
#: Adam's epsilon (CleanRL's PPO value)
ADAM_EPS = 1e-5


# ------------------------------------------------------------------------- seeds
def stream_seeds(seed: int) -> dict:
    """The seed of each random stream of a run with master seed ``seed``, by stream name."""
    names = [GAMES_STREAM, SAMPLING_STREAM, EVAL_STREAM, WEIGHTS_STREAM]
    seeds = {name: derive_seed(seed, name) for name in [*names, PYTHON_STREAM, NUMPY_STREAM]}
    seeds[f"{EVAL_STREAM}/agent"] = derive_seed(seed, EVAL_STREAM, "agent")
    return seeds


def eval_seed(seed: int) -> int:
    """The ``play_pair`` seed of the evaluations of a run with master seed ``seed`` (its deals)."""
    return derive_seed(seed, EVAL_STREAM)


def seed_global_generators(seed: int) -> None:
    """Seed the global generators of ``random``, ``numpy.random`` and torch (the initial
    weights)."""
    seeds = stream_seeds(seed)
    random.seed(seeds[PYTHON_STREAM])
    np.random.seed(seeds[NUMPY_STREAM] % 2**32)
    torch.manual_seed(seeds[WEIGHTS_STREAM])


# ------------------------------------------------------------------------- evaluation
def evaluate(model: ActorCritic, cfg: TrainConfig, games: int, update: int) -> dict:
    """Greedy policy vs each ``eval.opponents`` spec via ``agents.evaluation.arena.play_pair`` (the same deals
    every time)."""
    from agents.evaluation.arena import play_pair

    out = {}
    seeds = stream_seeds(cfg.seeding.seed)
    rules = cfg.rules()
    model.eval()
    cpu_model = model if next(model.parameters()).device.type == "cpu" else copy.deepcopy(model).cpu()
    for spec in cfg.eval.opponents:
        agent = PPOAgent.from_model(cpu_model, seed=seeds[f"{EVAL_STREAM}/agent"])
        agent.name = f"ppo@{update}"
        result = play_pair(
            agent,
            spec,
            games=games,
            seed=seeds[EVAL_STREAM],
            rules=rules,
            duplicate=cfg.eval.duplicate,
        )
        out[spec] = result.to_dict()
    model.train()
    return out


# ------------------------------------------------------------------------- the run's objects
@dataclass
class Training:
    """What a run trains with (:func:`setup`); a checkpoint holds the state of each
    (:mod:`agents.training.run`)."""

    model: ActorCritic  #: the policy and value network, on ``run.device``
    optimizer: torch.optim.Adam
    #: the env's opponent: the current policy, its snapshots and ``opponents.agents``
    pool: OpponentPool
    env: SchnapsenVectorGymEnv  #: ``ppo.num_games`` episodes, tensors on ``run.device``
    gen: torch.Generator  #: action sampling (learner and network opponents) and minibatch order
    buf: dict  #: rollout buffers, tensors ``(T, N, ...)``: obs, mask, act, logp, val, rew, done
    #: frozen ``model.init`` network that ``ppo.kl_init_coef`` pulls toward (None when that is 0)
    teacher: ActorCritic | None = None
    obs: torch.Tensor | None = None  #: float32 (N, OBS_SIZE): the learners' observations now
    mask: torch.Tensor | None = None  #: bool (N, NUM_ACTIONS): their legal actions
    #: ``(opponent label, learner reward, won)`` of the episodes ended since the last log row
    finished: list = field(default_factory=list)

    def start(self, obs: torch.Tensor, info: dict) -> None:
        """Take the env's ``(observation, info)`` after a reset or a restore."""
        self.obs, self.mask = obs, info["action_mask"]


# ------------------------------------------------------------------------- rollout and update
def rollout(training: Training, precision: str) -> torch.Tensor:
    """``T`` learner decisions in each of the ``N`` episodes of ``training.env`` into
    ``training.buf`` (tensors ``(T, N, ...)``), their ended episodes into ``training.finished``;
    returns the value (float32 ``(N,)``) of the observations after the last one."""
    model = training.model
    buf = training.buf
    ended = []
    model.eval()
    with torch.no_grad():
        for t in range(buf["obs"].shape[0]):
            buf["obs"][t] = training.obs
            buf["mask"][t] = training.mask
            logits, value = forward_in(model, training.obs, precision)
            action, logp = sample_actions(logits, training.mask, training.gen)
            buf["act"][t] = action
            buf["logp"][t] = logp
            buf["val"][t] = value
            training.obs, reward, terminated, _, info = training.env.step(action)
            training.mask = info["action_mask"]
            buf["rew"][t] = reward
            buf["done"][t] = terminated.float()  # the episode ended right after decision t
            if "final_info" in info:
                ended.append((terminated, reward, info["final_info"]["opponent"]))
        # one transfer per step with endings, after the rollout
        for terminated, reward, labels in ended:
            rows = terminated.nonzero().squeeze(1).tolist()
            rewards = reward[rows].tolist()
            training.finished.extend((labels[i], r, r > 0) for i, r in zip(rows, rewards))
        return forward_in(model, training.obs, precision)[1]


def advantages(
    buf: dict,
    next_value: torch.Tensor,
    gamma: float,
    lam: float,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Generalized advantage estimation: ``(advantages, returns)``, float32 ``(T, N)``."""
    rew = buf["rew"]
    val = buf["val"]
    done = buf["done"]
    adv = torch.zeros_like(rew)
    last = torch.zeros_like(next_value)
    for t in reversed(range(rew.shape[0])):
        nonterminal = 1.0 - done[t]
        nxt = next_value if t == rew.shape[0] - 1 else val[t + 1]
        delta = rew[t] + gamma * nxt * nonterminal - val[t]
        last = delta + gamma * lam * nonterminal * last
        adv[t] = last
    return adv, adv + val


def ppo_update(
    model,
    optimizer,
    buf: dict,
    adv: torch.Tensor,
    ret: torch.Tensor,
    ppo: PPOConfig,
    gen: torch.Generator,
    precision: str,
    teacher: ActorCritic | None = None,
    kl_coef: float = 0.0,
) -> dict:
    """``ppo.update_epochs`` epochs of minibatch PPO on the rollout, plus ``kl_coef`` times
    KL(``teacher``'s policy || the policy) when ``kl_coef`` > 0; returns the mean of each loss
    figure."""
    batch = adv.numel()
    b_obs = buf["obs"].reshape(batch, -1)
    b_mask = buf["mask"].reshape(batch, -1)
    if kl_coef:
        with torch.no_grad():
            teacher_logp = masked_log_probs(forward_in(teacher, b_obs, precision)[0], b_mask)
    b_act = buf["act"].reshape(batch)
    b_logp = buf["logp"].reshape(batch)
    b_val = buf["val"].reshape(batch)
    b_adv = adv.reshape(batch)
    b_ret = ret.reshape(batch)
    model.train()
    stats = {k: [] for k in LOSS_KEYS[:-1]}
    for _epoch in range(ppo.update_epochs):
        perm = torch.randperm(batch, generator=gen, device=b_adv.device)
        for start in range(0, batch, ppo.minibatch_size):
            mb = perm[start : start + ppo.minibatch_size]
            logits, new_val = forward_in(model, b_obs[mb], precision)
            logp_all = masked_log_probs(logits, b_mask[mb])
            new_logp = logp_all.gather(1, b_act[mb].unsqueeze(1)).squeeze(1)
            entropy = masked_entropy(logp_all, b_mask[mb]).mean()
            log_ratio = new_logp - b_logp[mb]
            ratio = log_ratio.exp()
            with torch.no_grad():
                approx_kl = ((ratio - 1) - log_ratio).mean()
                clipfrac = ((ratio - 1.0).abs() > ppo.clip_coef).float().mean()
            mb_adv = b_adv[mb]
            if ppo.norm_adv:
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
            clipped_ratio = torch.clamp(ratio, 1 - ppo.clip_coef, 1 + ppo.clip_coef)
            pg_loss = torch.max(-mb_adv * ratio, -mb_adv * clipped_ratio).mean()
            if ppo.clip_vloss:
                v_clipped = b_val[mb] + torch.clamp(
                    new_val - b_val[mb],
                    -ppo.clip_coef,
                    ppo.clip_coef,
                )
                v_loss = 0.5 * torch.max((new_val - b_ret[mb]) ** 2, (v_clipped - b_ret[mb]) ** 2).mean()
            else:
                v_loss = 0.5 * ((new_val - b_ret[mb]) ** 2).mean()
            loss = pg_loss - ppo.ent_coef * entropy + ppo.vf_coef * v_loss
            if kl_coef:  # illegal entries: 0 * (-inf) is nan there, filled with 0
                mb_teacher_logp = teacher_logp[mb]
                kl = mb_teacher_logp.exp() * (mb_teacher_logp - logp_all)
                loss = loss + kl_coef * kl.masked_fill(~b_mask[mb], 0.0).sum(1).mean()
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), ppo.max_grad_norm)
            optimizer.step()
            for k, v in zip(stats, (pg_loss, v_loss, entropy, approx_kl, clipfrac), strict=True):
                stats[k].append(v.item())
        if ppo.target_kl is not None and approx_kl.item() > ppo.target_kl:
            break
    out = {k: float(np.mean(v)) for k, v in stats.items()}
    var_y = b_ret.var().item()
    out["explained_variance"] = float("nan") if var_y == 0 else 1 - (b_ret - b_val).var().item() / var_y
    return out


# ------------------------------------------------------------------------- the run
def setup(cfg: TrainConfig, init: dict | None) -> Training:
    """The run's objects, seeded from :func:`stream_seeds` in a fixed order (the env not reset
    yet)."""
    torch.set_num_threads(cfg.seeding.torch_threads)
    # run.compile where inductor cannot build: eager, the same numbers
    torch._dynamo.config.suppress_errors = True
    torch.use_deterministic_algorithms(cfg.seeding.deterministic)
    seeds = stream_seeds(cfg.seeding.seed)
    seed_global_generators(cfg.seeding.seed)  # torch's: the weight init
    device = torch.device(cfg.run.device)
    model = ActorCritic(OBS_SIZE, cfg.model.hidden).to(device)
    # after the random init: the seeded streams stay the same (a resume restores later)
    if init is not None:
        model.load_state_dict(init)
    teacher = None
    if cfg.ppo.kl_init_coef:
        teacher = ActorCritic(OBS_SIZE, cfg.model.hidden).to(device)
        teacher.load_state_dict(init)
        teacher.eval().requires_grad_(False)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.ppo.lr, eps=ADAM_EPS)
    gen = torch.Generator(device=device).manual_seed(seeds[SAMPLING_STREAM])
    pool, env = training_env(cfg, model, gen, cfg.ppo.num_games, seeds[GAMES_STREAM])
    shape = (cfg.ppo.rollout_steps, cfg.ppo.num_games)
    buf = {k: torch.zeros(shape, device=device) for k in ("logp", "val", "rew", "done")}
    buf["obs"] = torch.zeros((*shape, OBS_SIZE), device=device)
    buf["act"] = torch.zeros(shape, dtype=torch.int64, device=device)
    buf["mask"] = torch.zeros((*shape, NUM_ACTIONS), dtype=torch.bool, device=device)
    return Training(
        model=model,
        optimizer=optimizer,
        pool=pool,
        env=env,
        gen=gen,
        buf=buf,
        teacher=teacher,
    )


def env_steps(training: Training, counters: dict) -> int:
    """Actions applied in the run's env so far: the learner's and the opponents'."""
    return counters["learner_steps"] + training.pool.actions


def log_row(
    update: int,
    training: Training,
    counters: dict,
    sps: float,
    stats: dict,
) -> tuple[dict, dict]:
    """The progress.csv row of an update and its per-opponent training win rates (TensorBoard
    tags)."""
    finished = training.finished
    training.finished = []
    if finished:
        episode_reward = float(np.mean([reward for _, reward, _ in finished]))
    else:
        episode_reward = ""
    row = {
        "update": update,
        "env_steps": env_steps(training, counters),
        "learner_steps": counters["learner_steps"],
        "rollout_steps_per_s": round(sps, 1),
        "lr": training.optimizer.param_groups[0]["lr"],
        "episodes": len(finished),
        "episode_reward": episode_reward,
        **stats,
    }
    by_opp: dict = {}
    for label, _reward, won in finished:
        by_opp.setdefault(label, []).append(won)
    return row, {f"train_win_rate/{k}": float(np.mean(v)) for k, v in by_opp.items()}


def periodic_eval(cfg: TrainConfig, model, update: int, row: dict) -> tuple[float, str]:
    """The evaluation every ``eval.every`` updates, into ``row``; returns its seconds and a short
    text."""
    start = time.monotonic()
    results = evaluate(model, cfg, cfg.eval.games, update)
    for spec, result in results.items():
        row[f"eval_{spec}_win_rate"] = result["win_rate"]
        row[f"eval_{spec}_win_rate_lo"], row[f"eval_{spec}_win_rate_hi"] = result["win_rate_ci"]
        row[f"eval_{spec}_points"] = result["mean_game_points"][0] - result["mean_game_points"][1]
    text = " | eval " + " ".join(f"{spec}:{result['win_rate']:.2f}" for spec, result in results.items())
    return time.monotonic() - start, text


def time_budget(cfg: TrainConfig, started: float) -> TimeBudget | None:
    """The run's ``run.time_budget_min``, counted from ``started`` (``time.monotonic()``); None
    without one."""
    if not cfg.run.time_budget_min:
        return None
    eval_games = cfg.eval.games * len(cfg.eval.opponents)
    final_games = cfg.eval.final_games * len(cfg.eval.opponents)
    return TimeBudget(cfg.run.time_budget_min, started, eval_games, final_games)


def train_one_update(
    training: Training,
    cfg: TrainConfig,
    update: int,
    started: float,
) -> tuple[dict, float]:
    """Update ``update`` (0-based) of the run, begun at ``started`` (``time.monotonic()``): a
    rollout, GAE and the PPO epochs (on ``seeding.update_threads`` threads, default one per usable
    core). Returns the loss figures and the rollout's env steps per second."""
    ppo = cfg.ppo
    total = cfg.run.total_updates
    buf = training.buf
    if ppo.anneal_lr:
        training.optimizer.param_groups[0]["lr"] = ppo.lr * (1.0 - update / total)
    opponent_steps = training.pool.actions
    next_value = rollout(training, cfg.run.precision)
    sps = (buf["act"].numel() + training.pool.actions - opponent_steps) / (time.monotonic() - started)
    adv, ret = advantages(buf, next_value, ppo.gamma, ppo.gae_lambda)
    if hasattr(os, "sched_getaffinity"):
        cores = len(os.sched_getaffinity(0))
    else:
        cores = os.cpu_count()
    torch.set_num_threads(cfg.seeding.update_threads or cores)
    stats = ppo_update(
        training.model,
        training.optimizer,
        buf,
        adv,
        ret,
        ppo,
        training.gen,
        cfg.run.precision,
        teacher=training.teacher,
        kl_coef=ppo.kl_init_coef * (1.0 - update / total),
    )
    torch.set_num_threads(cfg.seeding.torch_threads)
    return stats, sps


def run_updates(
    cfg: TrainConfig,
    run: RunDir,
    signals: Signals,
    stop_after: int | None,
    started: float,
    init: dict | None,
) -> dict:
    """Run (or continue, from ``run.checkpoint``) the PPO loop; returns the final evaluation (empty
    when there is none: ``eval.final_games`` 0 or stopped by ``--stop-after``); :class:`Interrupted`
    after a signal."""
    training = setup(cfg, init)  # init: None on a resume unless ppo.kl_init_coef needs it
    total = cfg.run.total_updates
    counters = {"update": 0, "learner_steps": 0, "elapsed": 0.0}
    if run.checkpoint is None:
        training.start(*training.env.reset())
    else:
        counters = rundir.restore(run.checkpoint, training)
    figures = ("win_rate", "win_rate_lo", "win_rate_hi", "points")
    evals = [f"eval_{spec}_{figure}" for spec in cfg.eval.opponents for figure in figures]
    run.open_logs([*LOG_COLUMNS, *evals], counters["update"], cfg.run.tensorboard)
    budget = time_budget(cfg, started)
    # progress in percent of whichever ends the run first: the updates or the time budget
    bar_format = "{l_bar}{bar}| {elapsed}<{remaining}{postfix}"
    bar = tqdm(total=100, desc=cfg.name, bar_format=bar_format, disable=not cfg.run.progress)
    ran = 0
    reason = None
    latest_eval = ""
    while counters["update"] < total and reason is None:
        t0 = time.monotonic()
        stats, sps = train_one_update(training, cfg, counters["update"], t0)
        update = counters["update"] = counters["update"] + 1
        counters["learner_steps"] += training.buf["act"].numel()
        ran += 1
        if update % cfg.opponents.snapshot_every == 0:
            training.pool.add_snapshot()
        row, scalars = log_row(update, training, counters, sps, stats)
        eval_s = 0.0
        if update % cfg.eval.every == 0 or update == total:
            eval_s, latest_eval = periodic_eval(cfg, training.model, update, row)
        counters["elapsed"] += time.monotonic() - t0
        row["time_s"] = round(counters["elapsed"], 3)
        run.log(row, scalars)
        if ran == stop_after:
            reason = "stop_after"
        elif signals.received is not None:
            reason = "signal"
        elif budget and update < total:
            evaluates = (update + 1) % cfg.eval.every == 0 or update + 1 == total
            if not budget.next_update_fits(time.monotonic(), t0, eval_s, evaluates):
                reason = "budget"
        if update % cfg.run.checkpoint_every == 0 or update == total or reason is not None:
            run.save(rundir.checkpoint_state(cfg, training, counters))
        spent = 1.0 - (budget.deadline - time.monotonic()) / (budget.minutes * 60.0) if budget else 0.0
        bar.n = 100 if reason == "budget" else round(100 * min(1.0, max(update / total, spent)), 1)
        bar.set_postfix_str(f"update {update}/{total}, {sps:,.0f} steps/s{latest_eval}")
    bar.close()
    final = {}
    if reason in (None, "budget") and cfg.eval.final_games > 0:
        final = evaluate(training.model, cfg, cfg.eval.final_games, counters["update"])
        (run.path / EVAL_JSON).write_text(json.dumps(final, indent=1))
    rundir.report(cfg, run, counters, env_steps(training, counters), final, reason)
    if reason == "signal":
        raise Interrupted(signals.message(run))
    return final


# ------------------------------------------------------------------------- command line
def _positive(text: str) -> int:
    if int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return int(text)


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line through main's ConfigError handler, exit status 2
        raise ConfigError(f"{message} (see python train.py --help)")


def parse_args(argv):
    ap = _Parser(
        description="PPO self-play training for schnapsen-env",
        epilog="example: python train.py --config configs/default.yaml ppo.lr=1e-4",
    )
    start = ap.add_mutually_exclusive_group(required=True)
    start.add_argument("--config", help="YAML config file of a new run (configs/*.yaml)")
    start.add_argument(
        "--resume",
        metavar="RUN_DIR",
        help="continue the run in RUN_DIR from its checkpoint.pt",
    )
    ap.add_argument("--seed", type=int, help="master seed (same as seeding.seed=N)")
    ap.add_argument("--run-dir", help="run directory of a new run (same as run.dir=PATH)")
    ap.add_argument(
        "--stop-after",
        type=_positive,
        metavar="K",
        help="checkpoint and stop after K updates of this invocation",
    )
    ap.add_argument(
        "overrides",
        nargs="*",
        metavar="key=value",
        help="dotted config overrides, e.g. ppo.lr=1e-4",
    )
    # overrides may stand before, between and after the options
    return ap.parse_intermixed_args(argv)


def initial_weights(cfg: TrainConfig) -> dict | None:
    """The state dict ``model.init`` names (None without one); :class:`ConfigError` when it cannot
    start the run."""
    if cfg.model.init is None:
        return None
    try:
        net, _ = load_model(SHIPPED.get(cfg.model.init, cfg.model.init))
    except (ValueError, OSError) as e:
        raise ConfigError(f"model.init: {one_line(e)}") from None
    if net.hidden != list(cfg.model.hidden):
        raise ConfigError(
            f"model.init: {cfg.model.init!r} has hidden layers {net.hidden}, the run's model.hidden "
            f"is {list(cfg.model.hidden)}: give the same widths"
        )
    return net.state_dict()


def train(
    cfg: TrainConfig,
    run: RunDir | Path,
    stop_after: int | None = None,
    started: float | None = None,
) -> dict:
    """Train ``cfg`` in ``run`` (a path: a new run; a :class:`RunDir` opened by :func:`prepare`: a
    new run or a resume), then release the directory; returns the final evaluation. Raises
    :class:`ConfigError` or :class:`RunError` before anything is written, :class:`Interrupted` after
    SIGINT or SIGTERM."""
    started = time.monotonic() if started is None else started
    new = not isinstance(run, RunDir) or run.checkpoint is None
    init = initial_weights(cfg) if new or cfg.ppo.kl_init_coef else None
    with run if isinstance(run, RunDir) else RunDir(Path(run), new=True) as run:
        signals = Signals()
        try:
            return run_updates(cfg, run, signals, stop_after, started, init)
        except KeyboardInterrupt:
            raise Interrupted(signals.message(run)) from None
        finally:
            signals.restore()


def prepare(args) -> tuple[TrainConfig, RunDir | Path]:
    """``(config, run)`` from the command line: a new run's directory, or a resumed run's locked
    :class:`RunDir`."""
    overrides = list(args.overrides)
    if args.seed is not None:
        overrides.append(f"seeding.seed={args.seed}")
    if args.resume is not None:
        if args.run_dir is not None:
            raise ConfigError("--run-dir: a resumed run continues in its own directory")
        run = RunDir(Path(args.resume), new=False)
        try:
            return run.resumed_config(overrides), run
        except ConfigError:
            run.close()
            raise
    if args.run_dir is not None:
        # the path as given, not parsed as an override value
        overrides.append(("run.dir", args.run_dir))
    cfg = load_config(args.config, overrides)
    return cfg, Path(cfg.run.dir or f"runs/{cfg.name}-seed{cfg.seeding.seed}-{time.strftime('%Y%m%d-%H%M%S')}")


def main(argv=None, started: float | None = None) -> int:
    """The command line; returns the exit code: 0 done, 2 an error (one line on stderr), 130 stopped
    by SIGINT or SIGTERM (one line on stderr: what was saved, how to continue). ``started``: the
    ``time.monotonic()`` a time budget counts from (default: the call)."""
    started = time.monotonic() if started is None else started
    try:
        args = parse_args(argv)
        cfg, run = prepare(args)
        if isinstance(run, RunDir) and run.complete(cfg):
            run.close()
            print(
                f"the run in {run.path} is complete ({run.saved} of {cfg.run.total_updates} updates); "
                f"extend it with run.total_updates=N (N > {run.saved})"
            )
            return 0
        train(cfg, run, args.stop_after, started)
    except Interrupted as e:
        print(e, file=sys.stderr)
        return e.code
    except KeyboardInterrupt:
        print("interrupted before the run started: nothing was written", file=sys.stderr)
        return EXIT_INTERRUPTED
    except ConfigError as e:
        print(f"config error: {one_line(e)}", file=sys.stderr)
        return 2
    except CheckpointError as e:
        print(f"checkpoint error: {e}", file=sys.stderr)
        return 2
    except (RunError, OSError) as e:
        # a closed pipe, a full disk
        if isinstance(e, OSError) and e.filename is None and sys.stdout is not None:
            silence(sys.stdout)  # what is left in its buffer goes nowhere at exit
        print(f"error: {one_line(e)}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
