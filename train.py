"""PPO self-play for Schnapsen (CleanRL style: the whole algorithm on this page).

    python train.py --config configs/default.yaml [--seed N] [key=value ...]
    python train.py --resume RUN_DIR [key=value ...]

* Policy: an actor-critic MLP (``agents.neural.ActorCritic``) over the env's observation
  (``schnapsen_env.observation.encode_state``); illegal actions get no probability, no
  gradient and no entropy (masked logits).
* Rollouts: ``ppo.num_games`` games in lockstep (``agents.ppo.selfplay.SelfPlayGames``), so
  the policy runs batched; one transition per learner decision; the opponent (current
  policy, a frozen snapshot, or a baseline agent, drawn per episode by the weights of
  ``opponents``) is part of the environment. Reward at the end of an episode.
* Update: GAE, clipped PPO objective, clipped value loss, entropy bonus, Adam.
* Every ``eval.every`` updates: ``agents.arena.play_pair`` against ``eval.opponents``
  (duplicate deals, greedy policy); at the end a table over ``eval.final_games`` games.
* Logs: ``RUN_DIR/progress.csv``, TensorBoard events in ``RUN_DIR``, a tqdm bar.
* Checkpoints: ``RUN_DIR/checkpoint.pt`` (atomic; ``torch.load(..., weights_only=True)``)
  with the policy, optimizer, config, counters, snapshots, games in progress and every RNG
  state, so ``--resume`` continues step for step; both files hold ``observation_spec``
  (``schnapsen_env.observation.Observer(rules, bummerl).spec``: version, size, field table,
  rules), which loading compares with the env's (a difference is an error naming it).
  ``RUN_DIR/policy.pt`` is the small policy-only file for ``PPOAgent``
  (``--opponent ppo:RUN_DIR/policy.pt``).

* Seeds: every random stream (games, action sampling, the pool's agents, evaluation deals, initial
  weights, the global generators) has its own seed, derived from ``seeding.seed`` under its name
  (:func:`stream_seeds`, ``schnapsen_env.seeding.derive_seed``).
* Stopping: ``run.time_budget_min`` ends the run when the next update and the final evaluation would
  no longer fit (:class:`TimeBudget`); ``--stop-after K`` after K updates; Ctrl-C (SIGINT) or SIGTERM
  after the update in progress (a second one abandons it). Each saves a checkpoint and prints the
  ``--resume`` command. ``RUN_DIR/learning_curve.png`` plots the periodic evaluations.

Exit codes: 0 done (also stopped by the time budget or ``--stop-after``), 130 interrupted by SIGINT
or SIGTERM (one line on stderr: what was saved and the ``--resume`` command), 2 an error, as one
line on stderr and no traceback: ``config error: ...`` for the command line, the config (naming the
key and what is allowed), the paths and a ``--resume`` folder whose checkpoint or log is not one this
train.py wrote; ``error: ...`` for a run file that cannot be written during the run (disk full,
permissions changed).
"""

from __future__ import annotations

import time as _time

#: when this script began to run (before its heavy imports): the start of the time budget. The
#: process's own start time (/proc) is not used: a shell that execs its last command hands its
#: earlier commands' time (a pip install) to this process.
_SCRIPT_START = _time.monotonic()

if __name__ == "__main__":  # Ctrl-C during the heavy imports below (torch): one line and 130, no traceback
    import os as _os
    import signal as _signal

    def _interrupted_while_starting(signum, frame):
        _os.write(2, b"interrupted before the run started: nothing was written\n")
        _os._exit(130)

    _signal.signal(_signal.SIGINT, _interrupted_while_starting)

import argparse
import collections
import contextlib
import copy
import csv
import json
import math
import os
import random
import shlex
import signal
import stat
import sys
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import torch

from agents.neural import (
    DEFAULT_CHECKPOINT,
    ActorCritic,
    CheckpointNotFoundError,
    PPOAgent,
    _short_reason,
    forward_in,
    load_model,
    masked_entropy,
    masked_log_probs,
    read_checkpoint,
    sample_actions,
)
from agents.ppo.config import (
    MAX_PATH_CHARS,
    MAX_TOTAL_UPDATES,
    ConfigError,
    TrainConfig,
    load_config,
    path_text_problem,
    show,
)
from agents.ppo.selfplay import OpponentPool, SelfPlayGames, _rng_from_state, _rng_state
from schnapsen_env.actions import NUM_ACTIONS
from schnapsen_env.cli_io import Once, file_kind, silence, whole_number
from schnapsen_env.observation import OBS_SIZE, Observer, spec_difference
from schnapsen_env.seeding import derive_seed

CHECKPOINT = "checkpoint.pt"
POLICY = "policy.pt"
CSV_NAME = "progress.csv"
#: checkpoint format version
FORMAT = 1
CURVE = "learning_curve.png"
EVAL_JSON = "eval.json"
#: the files a run writes under these names, each first as NAME + TMP_SUFFIX where it is saved atomically
#: (a new run refuses a directory that holds one of them)
RUN_FILES = (CHECKPOINT, POLICY, CSV_NAME, CURVE, EVAL_JSON)
#: how the names of TensorBoard's event files begin (``SummaryWriter`` writes them into run.dir)
TFEVENTS_PREFIX = "events.out.tfevents."
TMP_SUFFIX = ".tmp"
#: names of the random streams of a run: each generator is seeded by
#: ``schnapsen_env.seeding.derive_seed(seeding.seed, NAME)``, one name per stream, so no two share a seed
GAMES_STREAM = "games"  #: seats, opponent choice and first dealers of the self-play games (random.Random)
DEALS_STREAM = "deals"  #: the deals of the self-play games (a torch.Generator of the batched engine)
SAMPLING_STREAM = "sampling"  #: action sampling and minibatch order (torch.Generator)
POOL_STREAM = "pool"  #: the pool's baseline agents (agent k draws from stream "pool_agent"/k of this seed)
EVAL_STREAM = "eval"  #: the deals of every evaluation (agents.arena.play_pair); sub-stream "agent": the evaluated agent
WEIGHTS_STREAM = "weights"  #: torch's global generator: the initial weights
PYTHON_STREAM = "python"  #: the global generator of ``random`` (nothing in a run draws from it)
NUMPY_STREAM = "numpy"  #: the global generator of ``numpy.random`` (nothing in a run draws from it)
#: exit status after SIGINT or SIGTERM (128 + SIGINT, what a shell reports for Ctrl-C)
EXIT_INTERRUPTED = 130
#: config sections that act only while updates run (an override of them on a complete run is refused)
TRAINING_SECTIONS = ("ppo", "opponents", "game")
#: single keys that act only while updates run (the periodic evaluations, the rollouts' compilation and
#: the arithmetic of the network's forward passes)
TRAINING_KEYS = ("eval.games", "eval.every", "run.compile", "run.precision")
#: config keys a resumed run must keep (saved games, network shape and generators depend on them)
FIXED_ON_RESUME = ("seeding.seed", "game", "model", "ppo.num_games", "opponents.agents", "opponents.max_snapshots")
LOSS_KEYS = ["policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac", "explained_variance"]


# ------------------------------------------------------------------------- helpers
def atomic_save(obj: dict, path: Path) -> None:
    """``torch.save`` to a temporary file, then ``os.replace``: a reader never sees half a file."""
    tmp = path.with_name(path.name + TMP_SUFFIX)
    torch.save(obj, tmp)
    os.replace(tmp, path)


def global_rng_state() -> dict:
    np_state = np.random.get_state()
    return {"python": _rng_state(random), "torch": torch.get_rng_state(),
            "numpy": [np_state[0], torch.from_numpy(np_state[1].astype(np.int64)), int(np_state[2]),
                      int(np_state[3]), float(np_state[4])]}


def set_global_rng_state(d: dict) -> None:
    random.setstate(_rng_from_state(d["python"]))
    torch.set_rng_state(d["torch"])
    n = d["numpy"]
    np.random.set_state((n[0], n[1].numpy().astype(np.uint32), n[2], n[3], n[4]))


def stream_seeds(seed: int) -> dict:
    """The seed of each random stream of a run with master seed ``seed``, by stream name
    (``derive_seed(seed, NAME)``; the evaluated agent's is ``derive_seed(seed, EVAL_STREAM, "agent")``)."""
    names = (GAMES_STREAM, DEALS_STREAM, SAMPLING_STREAM, POOL_STREAM, EVAL_STREAM, WEIGHTS_STREAM, PYTHON_STREAM,
             NUMPY_STREAM)
    seeds = {name: derive_seed(seed, name) for name in names}
    seeds[f"{EVAL_STREAM}/agent"] = derive_seed(seed, EVAL_STREAM, "agent")
    return seeds


def eval_seed(seed: int) -> int:
    """The ``play_pair`` seed of the evaluations of a run with master seed ``seed`` (its deals)."""
    return derive_seed(seed, EVAL_STREAM)


def seed_global_generators(seed: int) -> None:
    """Seed the global generators of ``random``, ``numpy.random`` and torch (the initial weights) from
    their named streams."""
    seeds = stream_seeds(seed)
    random.seed(seeds[PYTHON_STREAM])
    np.random.seed(seeds[NUMPY_STREAM] % 2**32)
    torch.manual_seed(seeds[WEIGHTS_STREAM])


def evaluate(model: ActorCritic, cfg: TrainConfig, games: int, update: int, seconds: dict | None = None) -> dict:
    """Greedy policy vs each ``eval.opponents`` spec via ``agents.arena.play_pair`` (same deals every time);
    ``seconds`` (if given) receives the time each opponent took."""
    from agents.arena import play_pair

    out = {}
    seeds = stream_seeds(cfg.seeding.seed)
    model.eval()
    for spec in cfg.eval.opponents:
        t = time.perf_counter()
        agent = PPOAgent.from_model(model if next(model.parameters()).device.type == "cpu" else
                                    copy.deepcopy(model).cpu(), seed=seeds[f"{EVAL_STREAM}/agent"])
        agent.name = f"ppo@{update}"
        r = play_pair(agent, spec, games=games, seed=seeds[EVAL_STREAM], rules=cfg.rules(),
                      duplicate=cfg.eval.duplicate)
        out[spec] = r.to_dict()
        if seconds is not None:
            seconds[spec] = time.perf_counter() - t
    model.train()
    return out


def eval_table(results: dict) -> str:
    lines = [f"{'opponent':<24} {'games':>6} {'win rate':>9} {'95% CI':>15} {'points/game (ppo : opp)':>24}"]
    for spec, r in results.items():
        lo, hi = r["win_rate_ci"]
        pa, pb = r["mean_game_points"]
        lines.append(f"{spec:<24} {r['games']:>6} {r['win_rate']:>9.3f} {f'[{lo:.3f}, {hi:.3f}]':>15} "
                     f"{f'{pa:.3f} : {pb:.3f}':>24}")
    return "\n".join(lines)


def export_policy(ckpt: dict, path: Path) -> None:
    """The small policy-only checkpoint (what ``PPOAgent`` needs) next to the full one."""
    atomic_save({k: ckpt[k] for k in ("format", "model", "model_config", "observation_spec", "config", "rules",
                                       "update", "env_steps", "learner_steps")}, path)


# ------------------------------------------------------------------- stopping a run
def _now() -> float:
    """The clock of time budgets (``time.monotonic``; the tests replace it)."""
    return time.monotonic()


def process_age_s() -> float:
    """Seconds since this script began to run (its imports included), so a time budget also covers
    the start-up. Measured from the top of train.py, not from the process's start (see _SCRIPT_START)."""
    return max(0.0, time.monotonic() - _SCRIPT_START)


def resume_command(run_dir: Path) -> str:
    """The shell command that continues the run in ``run_dir``."""
    script = sys.argv[0] if sys.argv and os.path.basename(sys.argv[0]) == "train.py" else "train.py"
    return f"python {shlex.quote(script)} --resume {shlex.quote(str(run_dir))}"


class Interrupted(Exception):
    """:func:`train` stopped by SIGINT or SIGTERM after saving what it could: ``str()`` is the one line
    to print (what was saved, the ``--resume`` command), ``code`` the exit status."""

    def __init__(self, line: str, code: int = EXIT_INTERRUPTED):
        super().__init__(line)
        self.code = code


class _Abort(KeyboardInterrupt):
    """Raised by the signal handler where a run stops at once rather than after the update in progress."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


class _Signals:
    """SIGINT (Ctrl-C) and SIGTERM during :func:`train`.

    While ``finish_update`` is set (the training loop), the first signal is only noted: the update in
    progress finishes and the loop saves a checkpoint and stops. A second signal, or any signal
    elsewhere (setup, final evaluation, plotting), raises :class:`_Abort` at once. Inside
    :meth:`critical` (a checkpoint, a log row being written) a signal waits for the section's end, so
    a file is never left half written."""

    def __init__(self):
        self.received: int | None = None  # the first signal
        self.count = 0
        self.finish_update = False
        self._critical = 0
        self._pending = False
        self._old: dict = {}

    def install(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return  # signal handlers can only be set in the main thread
        for sig in (signal.SIGINT, signal.SIGTERM):
            self._old[sig] = signal.signal(sig, self._handle)

    def restore(self) -> None:
        for sig, handler in self._old.items():
            signal.signal(sig, handler)
        self._old = {}

    def _handle(self, signum, frame) -> None:
        self.count += 1
        if self.received is None:
            self.received = signum
        if self.finish_update and self.count == 1:
            return
        if self._critical:
            self._pending = True
            return
        raise _Abort(self.received)

    @contextlib.contextmanager
    def critical(self):
        self._critical += 1
        try:
            yield
        finally:
            self._critical -= 1
        if not self._critical and self._pending:
            self._pending = False
            raise _Abort(self.received)


def _signal_words(signum: int | None) -> str:
    return " by SIGTERM" if signum == signal.SIGTERM else ""


class TimeBudget:
    """The ``run.time_budget_min`` of one invocation: whether the next update still fits.

    It fits when, from now, the next update (the slowest of the last :attr:`RECENT` updates times
    :attr:`UPDATE_MARGIN`, plus the periodic evaluation it includes), the final evaluation
    (``eval.final_games`` per opponent) and :attr:`FIXED_RESERVE_S` (final checkpoint, learning curve,
    exit) end before the deadline. An evaluation is estimated from the time per game each opponent
    took at the latest periodic evaluation (before the first one: :attr:`PRIOR_GAME_S`), times
    :attr:`EVAL_MARGIN`; a time budget reserves it from the start, so a slower machine stops sooner."""

    #: factors on the measured times (a machine may slow down under other load while the run ends)
    UPDATE_MARGIN = 1.5
    EVAL_MARGIN = 1.5
    #: seconds per evaluation game assumed before the first periodic evaluation (about 13x what the
    #: 2x256 network takes against the heuristic agent on a 2-core machine)
    PRIOR_GAME_S = 0.01
    #: seconds kept for the final checkpoint, the learning curve (importing matplotlib) and the exit
    FIXED_RESERVE_S = 10.0
    #: updates whose times are remembered
    RECENT = 10

    def __init__(self, minutes: float, started: float, eval_cfg):
        self.minutes = minutes
        self.deadline = started + minutes * 60.0
        self.eval = eval_cfg
        self._updates: collections.deque = collections.deque(maxlen=self.RECENT)
        self._game_s: dict = {}

    def record_update(self, seconds: float) -> None:
        """Time of one update without its periodic evaluation."""
        self._updates.append(seconds)

    def record_eval(self, seconds: dict, games: int) -> None:
        """Times (by opponent spec) of an evaluation of ``games`` games per opponent."""
        for spec, s in seconds.items():
            self._game_s[spec] = s / games

    def eval_s(self, games: int) -> float:
        """Estimated seconds of an evaluation of ``games`` games against each ``eval.opponents``."""
        return sum(games * self._game_s.get(spec, self.PRIOR_GAME_S) for spec in self.eval.opponents)

    def reserve_s(self, next_evaluates: bool) -> float:
        """Seconds the next update (with its evaluation if ``next_evaluates``) and the end of the run need."""
        nxt = self.UPDATE_MARGIN * max(self._updates, default=0.0)
        if next_evaluates:
            nxt += self.EVAL_MARGIN * self.eval_s(self.eval.games)
        return nxt + self.EVAL_MARGIN * self.eval_s(self.eval.final_games) + self.FIXED_RESERVE_S

    def next_update_fits(self, now: float, next_evaluates: bool) -> bool:
        return now + self.reserve_s(next_evaluates) <= self.deadline


# ---------------------------------------------------------------------- learning curve
def read_eval_points(csv_path: Path) -> dict:
    """``{opponent spec: [(env_steps, win_rate, low, high), ...]}`` of the periodic evaluations in a
    progress.csv (``low``/``high``: the Wilson 95% interval, NaN where the log has none)."""
    points: dict = {}
    with open(csv_path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        specs = [c[len("eval_"):-len("_win_rate")] for c in reader.fieldnames or []
                 if c.startswith("eval_") and c.endswith("_win_rate")]
        for r in reader:
            for spec in specs:
                wr = r.get(f"eval_{spec}_win_rate")
                if wr in (None, ""):
                    continue
                lo, hi = (r.get(f"eval_{spec}_win_rate_{k}") for k in ("lo", "hi"))
                points.setdefault(spec, []).append(
                    (int(r["env_steps"]), float(wr), float(lo) if lo else math.nan, float(hi) if hi else math.nan))
    return points


def write_learning_curve(run_dir: Path, title: str, final: dict | None = None,
                         final_env_steps: int | None = None) -> Path | None:
    """``RUN_DIR/learning_curve.png`` (matplotlib, Agg): win rate of each periodic evaluation against
    env steps, one line per opponent with its 95% interval as a band, the final evaluation as a
    square with its interval. None (nothing written) when the run has no evaluation yet."""
    points = read_eval_points(run_dir / CSV_NAME)
    final = final or {}
    if not points and not final:
        return None
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, 4.5), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    for spec in list(points) + [s for s in final if s not in points]:
        pts = points.get(spec, [])
        color = None
        if pts:
            x, y, lo, hi = (list(v) for v in zip(*pts, strict=True))
            (line,) = ax.plot(x, y, marker="o", markersize=3, label=f"vs {spec}")
            color = line.get_color()
            if any(math.isfinite(v) for v in lo):
                ax.fill_between(x, lo, hi, color=color, alpha=0.2, linewidth=0)
        if spec in final and final_env_steps is not None:
            r = final[spec]
            lo, hi = r["win_rate_ci"]
            wr = r["win_rate"]
            ax.errorbar([final_env_steps], [wr], yerr=[[max(0.0, wr - lo)], [max(0.0, hi - wr)]],
                        fmt="s", color=color, capsize=4, label=f"vs {spec}: final, {r['games']:,} games")
    ax.set_xlabel("env steps")
    ax.set_ylabel("win rate (greedy policy; bands: 95% intervals)")
    ax.set_ylim(0.0, 1.0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    ax.set_title(title)
    fig.tight_layout()
    path = run_dir / CURVE
    tmp = path.with_name(path.name + TMP_SUFFIX)
    fig.savefig(tmp, format="png")
    os.replace(tmp, path)
    return path


def _learning_curve(run_dir: Path, title: str, final: dict, env_steps: int) -> Path | None:
    """:func:`write_learning_curve` at the end of a run: a plot that fails (other than a write error)
    costs a warning, not the run's end."""
    try:
        return write_learning_curve(run_dir, title, final, env_steps)
    except OSError:
        raise
    except Exception as e:  # noqa: BLE001 - matplotlib and a damaged log raise many kinds
        print(f"warning: {CURVE} not written: {_short_reason(e)}", file=sys.stderr)
        return None


# --------------------------------------------------------------------------- train
def train(cfg: TrainConfig, run_dir: Path, resume: dict | None = None, stop_after: int | None = None,
          started: float | None = None) -> dict:
    """Run (or continue from ``resume``, a loaded checkpoint) the PPO loop; returns the final evaluation
    (empty when there is none: ``eval.final_games`` 0, or stopped by ``stop_after``).

    ``started``: the ``time.monotonic()`` the run's time budget counts from (default: now).
    Raises ConfigError, before anything is written, when ``resume`` or the run's progress.csv
    does not fit ``cfg`` (see :func:`restore` and :func:`read_log`); :class:`Interrupted` after
    SIGINT/SIGTERM (with the checkpoint saved, see :class:`_Signals`)."""
    started = _now() if started is None else started
    signals = _Signals()
    signals.install()
    try:
        return _train(cfg, run_dir, resume, stop_after, started, signals)
    finally:
        signals.restore()


def _train(cfg: TrainConfig, run_dir: Path, resume: dict | None, stop_after: int | None, started: float,
           signals: _Signals) -> dict:
    torch.set_num_threads(cfg.seeding.torch_threads)
    torch.use_deterministic_algorithms(cfg.seeding.deterministic)
    seed = cfg.seeding.seed
    seeds = stream_seeds(seed)
    seed_global_generators(seed)  # torch's: the weight init
    rules = cfg.rules()
    p = cfg.ppo
    N, T, B = p.num_games, p.rollout_steps, cfg.batch_size
    total = cfg.run.total_updates

    device = torch.device(cfg.run.device)
    model = ActorCritic(OBS_SIZE, cfg.model.hidden).to(device)
    if resume is None and cfg.model.init is not None:  # after the random init: the seeded streams stay the same
        model.load_state_dict(initial_weights(cfg))
    optimizer = torch.optim.Adam(model.parameters(), lr=p.lr, eps=1e-5)
    games_rng = random.Random(seeds[GAMES_STREAM])  # deals, seats, opponent choice
    gen = torch.Generator(device=device).manual_seed(seeds[SAMPLING_STREAM])  # action sampling, minibatches
    o = cfg.opponents
    pool = OpponentPool(model, o.current, o.snapshots, o.agents, o.max_snapshots, seeds[POOL_STREAM],
                        rules=rules, device=device)
    games = SelfPlayGames(rules, N, pool, games_rng, gen, cfg.game.episode, cfg.game.reward, o.sample, device,
                          deal_seed=seeds[DEALS_STREAM], compile=cfg.run.compile, precision=cfg.run.precision)

    update, learner_steps, elapsed = 0, 0, 0.0
    eval_cols = [f"eval_{s}_{k}" for s in cfg.eval.opponents for k in ("win_rate", "win_rate_lo", "win_rate_hi",
                                                                       "points")]
    header = ["update", "env_steps", "learner_steps", "time_s", "rollout_steps_per_s", "lr", *LOSS_KEYS,
              "episodes", "episode_reward", *eval_cols]
    csv_path = run_dir / CSV_NAME
    rows = []
    saved = None  # the update of the checkpoint on disk (None: no checkpoint yet)
    phase = "setup"
    writer = bar = None
    try:
        if resume is None:
            games.reset()
        else:  # ConfigError (nothing written yet) when the checkpoint or the log does not fit this run
            restore(resume, cfg, model, optimizer, pool, games, games_rng, gen)
            update, learner_steps, elapsed = resume["update"], resume["learner_steps"], resume["elapsed"]
            saved = update
            rows, old_cols = read_log(csv_path, update)
            header += [c for c in old_cols if c not in header]  # columns of evaluations no longer run stay

        # logging: CSV (rows after the checkpoint are dropped on resume), TensorBoard, tqdm
        try:  # the run's first write: a place the pre-check cannot rule out (/proc/x as root) is refused here
            run_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ConfigError(f"run.dir: cannot create {show(str(run_dir))}: {_one_line(e.strerror or e)}") from None
        print(f"run directory: {run_dir}", file=sys.stderr)
        with signals.critical():  # written whole or not at all: a resume needs the rows up to its checkpoint
            tmp = csv_path.with_name(csv_path.name + TMP_SUFFIX)
            with open(tmp, "w", newline="", encoding="utf-8") as f:
                w = csv.DictWriter(f, fieldnames=header)
                w.writeheader()
                w.writerows(rows)
            os.replace(tmp, csv_path)
        if cfg.run.tensorboard:
            from torch.utils.tensorboard import SummaryWriter

            # scalars are logged at global step = update (1, 2, ...) and flushed before each checkpoint;
            # a resume from update U drops the killed run's events from step U + 1 on (one curve)
            writer = SummaryWriter(str(run_dir), purge_step=update + 1 if resume is not None else None)
        from tqdm import tqdm

        bar = tqdm(total=total, initial=update, desc=cfg.name, unit="update", disable=not cfg.run.progress,
                   dynamic_ncols=True)
        latest_eval = ""
        budget = None if cfg.run.time_budget_min is None else \
            TimeBudget(cfg.run.time_budget_min, started, cfg.eval)

        # rollout storage
        obs_buf = torch.zeros((T, N, OBS_SIZE), device=device)
        mask_buf = torch.zeros((T, N, games.mask.shape[1]), dtype=torch.bool, device=device)
        act_buf = torch.zeros((T, N), dtype=torch.int64, device=device)
        logp_buf, val_buf = torch.zeros((T, N), device=device), torch.zeros((T, N), device=device)
        rew_buf, done_buf = torch.zeros((T, N), device=device), torch.zeros((T, N), device=device)

        def checkpoint() -> None:
            """Flush the events so far, then write checkpoint.pt and policy.pt (atomically)."""
            nonlocal saved
            with signals.critical():
                if writer is not None:
                    writer.flush()
                ckpt = {"format": FORMAT, "model": {k: v.cpu() for k, v in model.state_dict().items()},
                        "model_config": model.model_config(),
                        "observation_spec": Observer(rules, bummerl=cfg.game.episode == "bummerl").spec,
                        "config": cfg.to_dict(), "rules": rules.to_dict(), "optimizer": optimizer.state_dict(),
                        "update": update, "env_steps": games.env_steps, "learner_steps": learner_steps,
                        "elapsed": elapsed, "pool": pool.state_dict(), "games": games.state_dict(),
                        "rng": {"games": _rng_state(games_rng), "sampling": gen.get_state(),
                                "global": global_rng_state()}}
                atomic_save(ckpt, run_dir / CHECKPOINT)
                export_policy(ckpt, run_dir / POLICY)
                saved = update

        ran = 0
        reason = None  # why the loop ended before total: "stop_after", "budget" or "signal"
        t_loop = time.perf_counter()
        phase = "update"
        signals.finish_update = True
        while update < total:
            if signals.received is not None:  # arrived between two updates
                reason = "signal"
                break
            t0 = time.perf_counter()
            if p.anneal_lr:
                optimizer.param_groups[0]["lr"] = p.lr * (1.0 - update / total)

            # ---- rollout: T learner decisions in each of N games
            steps0 = games.env_steps
            model.eval()
            for t in range(T):
                obs_buf[t] = games.obs
                mask_buf[t] = games.mask
                with torch.no_grad():
                    logits, value = forward_in(model, obs_buf[t], cfg.run.precision)
                    action, logp = sample_actions(logits, mask_buf[t], gen)
                act_buf[t], logp_buf[t], val_buf[t] = action, logp, value
                reward, done = games.step(action)
                rew_buf[t] = reward
                done_buf[t] = done.float()
            with torch.no_grad():
                _, next_value = forward_in(model, games.obs, cfg.run.precision)
            rollout_time = time.perf_counter() - t0
            rollout_sps = (games.env_steps - steps0) / rollout_time
            learner_steps += B

            # ---- GAE: done_buf[t] = the episode ended right after decision t
            adv = torch.zeros((T, N), device=device)
            last = torch.zeros(N, device=device)
            for t in reversed(range(T)):
                nonterminal = 1.0 - done_buf[t]
                nxt = next_value if t == T - 1 else val_buf[t + 1]
                delta = rew_buf[t] + p.gamma * nxt * nonterminal - val_buf[t]
                last = delta + p.gamma * p.gae_lambda * nonterminal * last
                adv[t] = last
            ret = adv + val_buf

            # ---- PPO update
            b_obs, b_mask = obs_buf.reshape(B, -1), mask_buf.reshape(B, -1)
            b_act, b_logp, b_val = act_buf.reshape(B), logp_buf.reshape(B), val_buf.reshape(B)
            b_adv, b_ret = adv.reshape(B), ret.reshape(B)
            model.train()
            stats = {k: [] for k in LOSS_KEYS[:-1]}
            for _epoch in range(p.update_epochs):
                perm = torch.randperm(B, generator=gen, device=device)
                for start in range(0, B, p.minibatch_size):
                    mb = perm[start:start + p.minibatch_size]
                    logits, new_val = forward_in(model, b_obs[mb], cfg.run.precision)
                    logp_all = masked_log_probs(logits, b_mask[mb])
                    new_logp = logp_all.gather(1, b_act[mb].unsqueeze(1)).squeeze(1)
                    entropy = masked_entropy(logp_all, b_mask[mb]).mean()
                    log_ratio = new_logp - b_logp[mb]
                    ratio = log_ratio.exp()
                    with torch.no_grad():
                        approx_kl = ((ratio - 1) - log_ratio).mean()
                        clipfrac = ((ratio - 1.0).abs() > p.clip_coef).float().mean()
                    mb_adv = b_adv[mb]
                    if p.norm_adv:
                        mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                    pg_loss = torch.max(-mb_adv * ratio,
                                        -mb_adv * torch.clamp(ratio, 1 - p.clip_coef, 1 + p.clip_coef)).mean()
                    if p.clip_vloss:
                        v_clipped = b_val[mb] + torch.clamp(new_val - b_val[mb], -p.clip_coef, p.clip_coef)
                        v_loss = 0.5 * torch.max((new_val - b_ret[mb]) ** 2, (v_clipped - b_ret[mb]) ** 2).mean()
                    else:
                        v_loss = 0.5 * ((new_val - b_ret[mb]) ** 2).mean()
                    loss = pg_loss - p.ent_coef * entropy + p.vf_coef * v_loss
                    optimizer.zero_grad()
                    loss.backward()
                    torch.nn.utils.clip_grad_norm_(model.parameters(), p.max_grad_norm)
                    optimizer.step()
                    for k, v in zip(stats, (pg_loss, v_loss, entropy, approx_kl, clipfrac), strict=True):
                        stats[k].append(v.item())
                if p.target_kl is not None and approx_kl.item() > p.target_kl:
                    break
            var_y = b_ret.var().item()
            explained = float("nan") if var_y == 0 else 1 - (b_ret - b_val).var().item() / var_y
            update += 1
            ran += 1
            if update % o.snapshot_every == 0:
                pool.add_snapshot()

            # ---- logging
            finished = games.pop_finished()
            elapsed += time.perf_counter() - t0
            row = {"update": update, "env_steps": games.env_steps, "learner_steps": learner_steps,
                   "time_s": round(elapsed, 3), "rollout_steps_per_s": round(rollout_sps, 1),
                   "lr": optimizer.param_groups[0]["lr"], "episodes": len(finished),
                   "episode_reward": float(np.mean([r for _, r, _ in finished])) if finished else ""}
            row.update({k: float(np.mean(v)) for k, v in stats.items()})
            row["explained_variance"] = explained
            by_opp: dict = {}
            for label, _r, won in finished:
                by_opp.setdefault(label, []).append(won)
            eval_time = 0.0
            if update % cfg.eval.every == 0 or update == total:
                t_eval = time.perf_counter()
                seconds: dict = {}
                results = evaluate(model, cfg, cfg.eval.games, update, seconds)
                eval_time = time.perf_counter() - t_eval
                elapsed += eval_time
                if budget is not None:
                    budget.record_eval(seconds, cfg.eval.games)
                for spec, r in results.items():
                    row[f"eval_{spec}_win_rate"] = r["win_rate"]
                    row[f"eval_{spec}_win_rate_lo"], row[f"eval_{spec}_win_rate_hi"] = r["win_rate_ci"]
                    row[f"eval_{spec}_points"] = r["mean_game_points"][0] - r["mean_game_points"][1]
                latest_eval = " ".join(f"{s}:{r['win_rate']:.2f}" for s, r in results.items())
            with signals.critical():  # a row is written whole (a resume reads the rows up to its checkpoint)
                with open(csv_path, "a", newline="", encoding="utf-8") as f:
                    csv.DictWriter(f, fieldnames=header).writerow(row)
                if writer is not None:
                    for k, v in row.items():
                        if k != "update" and v != "" and not k.endswith(("_win_rate_lo", "_win_rate_hi")):
                            writer.add_scalar(k.replace("eval_", "eval/", 1) if k.startswith("eval_")
                                              else f"train/{k}", float(v), update)
                    for label, wins in by_opp.items():
                        writer.add_scalar(f"train_win_rate/{label}", float(np.mean(wins)), update)
            bar.set_postfix_str(f"{rollout_sps:,.0f} steps/s" + (f" | eval {latest_eval}" if latest_eval else ""))
            bar.update(1)

            if ran == stop_after:
                reason = "stop_after"
            elif signals.received is not None:
                reason = "signal"
            elif budget is not None and update < total:
                budget.record_update(time.perf_counter() - t0 - eval_time)
                nxt = update + 1
                if not budget.next_update_fits(_now(), nxt % cfg.eval.every == 0 or nxt == total):
                    reason = "budget"
            if update % cfg.run.checkpoint_every == 0 or update == total or reason is not None:
                checkpoint()
            if reason is not None:
                break
        loop_s = time.perf_counter() - t_loop

        # ---- the end: from here a signal stops at once (the checkpoint of the last update is saved)
        if saved != update:  # a signal came between two updates
            checkpoint()
        phase = "final"
        signals.finish_update = False
        if reason is None and signals.received is not None:
            reason = "signal"
        bar.close()
        final = {}
        if reason in (None, "budget") and cfg.eval.final_games > 0:
            final = evaluate(model, cfg, cfg.eval.final_games, update)
            with signals.critical():
                (run_dir / EVAL_JSON).write_text(json.dumps(final, indent=1))
        curve = _learning_curve(run_dir, f"{cfg.name}: {update} of {total} updates", final, games.env_steps)
        with signals.critical():
            if writer is not None:
                writer.close()
                writer = None

        # ---- what happened, where the files are
        if reason == "budget":
            report(f"\nstopped by the time budget after {update} of {total} updates "
                   f"({cfg.run.time_budget_min:g} min); continue with: {resume_command(run_dir)}")
        elif reason == "stop_after":
            report(f"\nstopped after {ran} updates as asked (--stop-after); continue with: {resume_command(run_dir)}")
        if final:
            report(f"\nfinal evaluation after {update} updates, {games.env_steps:,} env steps, "
                   f"{elapsed:.1f} s (duplicate deals, greedy policy):")
            report(eval_table(final))
        report(run_summary(run_dir, update, total, ran, loop_s, started, curve, final))
        if reason == "signal":
            raise Interrupted(f"interrupted{_signal_words(signals.received)}: checkpoint saved at update "
                              f"{saved}; continue with: {resume_command(run_dir)}")
        return final
    except _Abort as e:
        if bar is not None:
            bar.close()
        if saved is None:
            raise Interrupted(f"interrupted{_signal_words(e.signum)} before the first checkpoint: nothing to "
                              "resume; start the run again") from None
        if phase == "setup":
            what = f"the checkpoint at update {saved} stays"
        elif saved == update:
            what = f"checkpoint saved at update {saved}"
        else:  # a second signal during an update
            what = f"stopped at once, the checkpoint at update {saved} stays (later updates are dropped)"
        raise Interrupted(f"interrupted{_signal_words(e.signum)}: {what}; continue with: "
                          f"{resume_command(run_dir)}") from None
    finally:
        if writer is not None:
            with contextlib.suppress(Exception):
                writer.close()


def _duration(seconds: float) -> str:
    return f"{seconds:.1f} s" if seconds < 60 else f"{seconds / 60:.1f} min ({seconds:,.0f} s)"


def run_summary(run_dir: Path, update: int, total: int, ran: int, loop_s: float, started: float,
                curve: Path | None, final: dict) -> str:
    """The last lines of a run: wall time, updates/s and where its files are."""
    wall = _now() - started
    rate = f"{ran / loop_s:.2f} updates/s" if loop_s > 0 and ran else "no update run"
    files = [("checkpoint", run_dir / CHECKPOINT), ("policy", run_dir / POLICY), ("log", run_dir / CSV_NAME)]
    if curve is not None:
        files.append(("learning curve", curve))
    if final:
        files.append(("final evaluation", run_dir / EVAL_JSON))
    return "\n".join([f"\n{update} of {total} updates; {ran} in this invocation ({rate}, periodic evaluations "
                      f"included); wall time {_duration(wall)}",
                      *(f"{name + ':':<18}{path}" for name, path in files)])


# ------------------------------------------------------------------------- resume
#: what a training checkpoint holds (``checkpoint()`` in :func:`train`)
CHECKPOINT_KEYS = ("format", "model", "model_config", "observation_spec", "config", "rules", "optimizer", "update",
                   "env_steps", "learner_steps", "elapsed", "pool", "games", "rng")
#: largest step counter a checkpoint may hold
MAX_COUNTER = 2**63 - 1


def checkpoint_problem(ckpt) -> str | None:
    """What makes ``ckpt`` (a loaded file) not a training checkpoint of this format, or None.

    Checks the keys and the types of the parts; whether the parts fit the run is checked
    when they are loaded (:func:`restore`)."""
    if not isinstance(ckpt, dict):
        return f"it holds {type(ckpt).__name__}, not a dict"
    if "observation_spec" not in ckpt and "model" in ckpt:
        return "it predates observation specs (no 'observation_spec'): start a new run"
    missing = [k for k in CHECKPOINT_KEYS if k not in ckpt]
    if missing:
        return f"it has no {', '.join(repr(k) for k in missing)}"
    if type(ckpt["format"]) is not int or ckpt["format"] != FORMAT:
        return f"format {show(ckpt['format'])}, this train.py reads format {FORMAT}"
    for key in ("update", "env_steps", "learner_steps"):
        if type(ckpt[key]) is not int or not 0 <= ckpt[key] <= MAX_COUNTER:
            return f"{key!r} is {show(ckpt[key])}, not a whole number >= 0"
    spec = spec_difference(ckpt["observation_spec"])
    if spec:
        return f"its observations are not this env's ({spec}): start a new run"
    e = ckpt["elapsed"]
    if not (type(e) is int or (type(e) is float and math.isfinite(e))) or e < 0:
        return f"'elapsed' is {show(e)}, not a number of seconds >= 0"
    shapes = {"model": dict, "model_config": dict, "config": dict, "rules": dict, "optimizer": dict, "pool": dict,
              "games": dict, "rng": dict}
    for key, tp in shapes.items():
        if not isinstance(ckpt[key], tp):
            return f"{key!r} is {type(ckpt[key]).__name__}, not a {tp.__name__}"
    if not all(type(k) is str and isinstance(v, torch.Tensor) for k, v in ckpt["model"].items()):
        return "'model' is not a mapping of parameter names to tensors"
    parts = {"optimizer": ("state", "param_groups"), "pool": ("snapshots", "snapshot_count", "agent_rng"),
             "games": ("episodes", "opp", "env_steps"), "rng": ("games", "sampling", "global")}
    for key, need in parts.items():
        lacking = [k for k in need if k not in ckpt[key]]
        if lacking:
            return f"{key!r} has no {', '.join(repr(k) for k in lacking)}"
    if not isinstance(ckpt["pool"]["snapshots"], list):
        return "'pool' snapshots are not a list"
    if not isinstance(ckpt["games"]["episodes"], dict) or not isinstance(ckpt["games"]["opp"], torch.Tensor):
        return "'games' has no episode tensors (a checkpoint of the scalar rollouts of an older train.py?)"
    g = ckpt["rng"]["global"]
    if not isinstance(g, dict) or not all(k in g for k in ("python", "torch", "numpy")):
        return "'rng' has no 'global' generator states ('python', 'torch', 'numpy')"
    return None


def restore(ckpt: dict, cfg: TrainConfig, model: ActorCritic, optimizer, pool: OpponentPool,
            games: SelfPlayGames, games_rng: random.Random, gen: torch.Generator) -> None:
    """Load a checkpoint (checked by :func:`checkpoint_problem`) into the run's objects;
    ConfigError naming the part that does not fit (the saved games must be ones this run plays)."""

    def bad(part: str, why: str) -> ConfigError:
        return ConfigError(f"--resume: the checkpoint's {part!r} does not fit this run ({why}): the file is damaged "
                           "or was not written by this train.py")

    # the hyperparameters come from the config (an override such as ppo.lr applies); the checkpoint
    # gives the optimizer's running state only
    fresh_groups = [{k: v for k, v in g.items() if k != "params"} for g in optimizer.param_groups]
    steps = [
        ("model", lambda: model.load_state_dict(ckpt["model"])),
        ("optimizer", lambda: optimizer.load_state_dict(ckpt["optimizer"])),
        ("pool", lambda: pool.load_state_dict(ckpt["pool"])),
        ("rng", lambda: (games_rng.setstate(_rng_from_state(ckpt["rng"]["games"])),
                         gen.set_state(ckpt["rng"]["sampling"]), set_global_rng_state(ckpt["rng"]["global"]))),
        ("games", lambda: games.load_state_dict(ckpt["games"])),
    ]
    for part, load in steps:
        try:
            with warnings.catch_warnings():  # stderr stays one line when the contents are odd
                warnings.simplefilter("ignore")
                load()
        except Exception as e:  # noqa: BLE001 - torch, numpy, random and the engine raise many kinds
            raise bad(part, _short_reason(e)) from None
    for g, fresh in zip(optimizer.param_groups, fresh_groups, strict=True):
        g.update(fresh)
    if not all(torch.isfinite(p).all() for p in model.parameters()):
        raise bad("model", "weights that are not finite numbers")
    for p in model.parameters():
        st = optimizer.state.get(p, {})
        if not isinstance(st, dict) or (st and set(st) != {"step", "exp_avg", "exp_avg_sq"}):
            raise bad("optimizer", "its state is not Adam's (step, exp_avg, exp_avg_sq) per weight")
        for name, v in st.items():
            fits = isinstance(v, torch.Tensor) and v.is_floating_point() and \
                (v.numel() == 1 if name == "step" else v.shape == p.shape)
            if not fits or not torch.isfinite(v).all() or (name != "exp_avg" and (v < 0).any()):
                raise bad("optimizer", f"its {name!r} state does not fit the network's weights")
    if not all(torch.isfinite(p).all() for snap in pool.snapshots for p in snap.parameters()):
        raise bad("pool", "snapshot weights that are not finite numbers")
    if len(pool.snapshots) > cfg.opponents.max_snapshots or not len(pool.snapshots) <= pool.snapshot_count:
        raise bad("pool", f"{len(pool.snapshots)} snapshots of {pool.snapshot_count} taken, at most "
                          f"{cfg.opponents.max_snapshots} kept")
    seat, opp, g = games.seat.cpu(), games.opp.cpu(), games.games
    bad_slot = ((seat != 0) & (seat != 1)) | (opp < -len(pool.agents)) | (opp > len(pool.snapshots))
    if bool(bad_slot.any()):
        i = int(bad_slot.nonzero()[0, 0])
        raise bad("games", f"slot {i}: seat {int(seat[i])} or opponent {int(opp[i])} out of range")
    waiting = (g.current_player.cpu() == seat)
    if not bool(waiting.all()):
        i = int((~waiting).nonzero()[0, 0])
        raise bad("games", f"slot {i}: the game is over or not waiting for the learner")
    if games.bummerl_mode and bool((games.episodes.scores.max(dim=1).values >= cfg.rules().bummerl_target).any()):
        raise bad("games", "a Bummerl that is decided is not an episode in progress")
    problem = _games_problem(games)
    if problem:
        raise bad("games", problem)


def _games_problem(games: SelfPlayGames) -> str | None:
    """Whether the restored games are games of these rules: each replays on the scalar engine from its
    deal and actions to the same position (a sample of slots; ``None`` when they do)."""
    g = games.games
    for i in sorted({0, games.n // 2, games.n - 1}):
        try:
            s = g.game_state(i)
        except ValueError as e:
            return f"slot {i}: its deal and actions are not a game of these rules ({_short_reason(e)})"
        if s.current_player != int(g.current_player[i]) or s.eyes != g.eyes[i].tolist() \
                or s.hands != g.hands[i].tolist():
            return f"slot {i}: the saved position is not where its deal and actions lead"
    return None


def read_log(csv_path: Path, update: int) -> tuple[list, list]:
    """``(rows up to update, column names)`` of the run's progress.csv (none if it is missing);
    ConfigError naming the file when it cannot be read."""
    st = _stat(csv_path, "--resume")
    if st is None:
        return [], []
    shown = show(str(csv_path))
    if not stat.S_ISREG(st.st_mode):
        raise ConfigError(f"--resume: {shown} is not a regular file: move it away")
    try:
        with open(csv_path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            rows = []
            for r in reader:
                r.pop(None, None)  # cells beyond the header
                n = int(r["update"])
                if n <= update:
                    rows.append(r)
            cols = [c for c in (reader.fieldnames or []) if type(c) is str]
    except (OSError, ValueError, TypeError, KeyError, csv.Error) as e:  # ValueError: also not UTF-8
        raise ConfigError(f"--resume: cannot read the log {shown} ({_short_reason(e)}): repair or delete "
                          "it") from None
    return rows, cols


# ----------------------------------------------------------------------------- CLI
class _ArgumentParser(argparse.ArgumentParser):
    """argparse that raises ConfigError (one line, exit code 2 from :func:`main`) instead of
    printing the usage and exiting."""

    def error(self, message):
        raise ConfigError(f"{message} (see python train.py --help)")


def parse_args(argv):
    """The command line; ConfigError for unknown options or bad option values."""
    ap = _ArgumentParser(description="PPO self-play training for schnapsen-env",
                         epilog="example: python train.py --config configs/default.yaml ppo.lr=1e-4")
    ap.add_argument("--config", action=Once, help="YAML config file (configs/*.yaml)")
    ap.add_argument("--resume", action=Once, metavar="RUN_DIR",
                    help="continue the run in RUN_DIR from its checkpoint.pt")
    ap.add_argument("--seed", action=Once, type=whole_number, help="master seed (same as seeding.seed=N)")
    ap.add_argument("--run-dir", action=Once, help="run directory (same as run.dir=PATH)")
    ap.add_argument("--stop-after", action=Once, type=whole_number, metavar="K",
                    help="checkpoint and stop after K updates of this invocation (as if killed then)")
    ap.add_argument("overrides", nargs="*", metavar="key=value", help="dotted config overrides, e.g. ppo.lr=1e-4")
    # intermixed: overrides may stand before, between and after the options
    return ap.parse_intermixed_args(argv)


def _option_override(overrides: list, option: str, key: str, value) -> None:
    """Append ``key=value`` for a command-line ``option``; ConfigError if ``key=`` is also overridden."""
    given = [o for o in overrides if o.partition("=")[0] == key]
    if given:
        raise ConfigError(f"{option} {_cut(str(value))} and {_cut(given[0])} both set {key}: give only one of them")
    # a JSON string is a YAML string: a path such as "2024" or "a: b" stays text
    # (ensure_ascii=False: JSON would write a character beyond U+FFFF as two escapes YAML reads as two halves)
    overrides.append(f"{key}={json.dumps(value, ensure_ascii=False) if isinstance(value, str) else value}")


def _cut(text: str, chars: int = 120) -> str:
    """``text`` shortened in the middle to about ``chars`` characters, on one line."""
    text = _one_line(text)
    return text if len(text) <= chars else text[:chars // 2] + "..." + text[-chars // 2:]


def _stat(path: Path, what: str, follow: bool = True) -> os.stat_result | None:
    """``os.stat(path)`` (``os.lstat`` with ``follow=False``: a symbolic link itself, dangling or not), None
    if it does not exist; ConfigError for a path the system refuses."""
    try:
        return os.stat(path) if follow else os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as e:
        raise ConfigError(f"{what}: cannot use {show(str(path))}: {e.strerror or type(e).__name__}") from None
    except ValueError:  # a NUL character, or text the file system cannot encode
        raise ConfigError(f"{what}: {show(str(path))}: {path_text_problem(str(path))}") from None


#: room left in a path for the names of the files a run writes (event files are the longest)
_FILE_NAME_ROOM = 200


def _check_writable_dir(path: Path, what: str) -> None:
    if not os.access(path, os.W_OK | os.X_OK):
        raise ConfigError(f"{what}: cannot write into {show(str(path))} (permission denied): choose another path")


def check_run_dir(run_dir: Path) -> None:
    """ConfigError unless ``run_dir`` is (or can be made as) a writable directory that holds no
    run yet; creates nothing."""
    shown = show(str(run_dir))
    st = _stat(run_dir, "run.dir")
    if st is None and _stat(run_dir, "run.dir", follow=False) is not None:
        raise ConfigError(f"run.dir: {shown} is a symbolic link to nothing (a dangling link): choose another path")
    if len(os.fsencode(os.path.abspath(run_dir))) > MAX_PATH_CHARS - _FILE_NAME_ROOM:
        raise ConfigError(f"run.dir: {shown} is too long for the files of a run: at most "
                          f"{MAX_PATH_CHARS - _FILE_NAME_ROOM} bytes as an absolute path (limit MAX_PATH_CHARS)")
    if st is not None and not stat.S_ISDIR(st.st_mode):
        kind = "file" if stat.S_ISREG(st.st_mode) else file_kind(st.st_mode).removeprefix("a ")
        raise ConfigError(f"run.dir: {shown} is an existing {kind}, not a directory: choose another path")
    parent, pst = run_dir, st
    while pst is None:
        parent = parent.parent
        pst = _stat(parent, "run.dir")
    if not stat.S_ISDIR(pst.st_mode):
        raise ConfigError(f"run.dir: cannot create {shown}: {show(str(parent))} is a file, not a directory")
    _check_writable_dir(parent, "run.dir")
    if st is not None and _stat(run_dir / CHECKPOINT, "run.dir") is not None:
        raise ConfigError(f"run.dir: {shown} already holds a run; resume it with --resume {run_dir} or choose "
                          "another directory")
    if st is not None:  # any entry of these names, a dangling symbolic link too (a save would write through it)
        taken = [name for name in RUN_FILES + tuple(n + TMP_SUFFIX for n in RUN_FILES)
                 if _stat(run_dir / name, "run.dir", follow=False) is not None]
        if taken:
            raise ConfigError(f"run.dir: {shown} already holds {', '.join(taken)}, which a run writes: choose an "
                              "empty or new directory (nothing there is overwritten)")
        try:
            events = sorted(e.name for e in os.scandir(run_dir) if e.name.startswith(TFEVENTS_PREFIX))
        except OSError as e:
            raise ConfigError(f"run.dir: cannot list {shown}: {e.strerror or type(e).__name__}") from None
        if events:  # TensorBoard would draw both runs' curves as one
            raise ConfigError(f"run.dir: {shown} already holds TensorBoard event files ({events[0]}"
                              f"{f' and {len(events) - 1} more' if len(events) > 1 else ''}) of another run: "
                              "choose an empty or new directory")


def check_resume_dir(text: str) -> Path:
    """The run directory of ``--resume``: an existing, writable directory; ConfigError otherwise."""
    if not text.strip():
        raise ConfigError("--resume: empty path: give the run directory that holds checkpoint.pt")
    run_dir = Path(text)
    shown = show(text)
    _stat(run_dir, "--resume")  # a NUL character or unencodable text first
    if len(os.fsencode(os.path.abspath(run_dir))) > MAX_PATH_CHARS - _FILE_NAME_ROOM:
        raise ConfigError(f"--resume: {shown} is too long for the files of a run: at most "
                          f"{MAX_PATH_CHARS - _FILE_NAME_ROOM} bytes as an absolute path (limit MAX_PATH_CHARS)")
    st = _stat(run_dir, "--resume")
    if st is None:
        raise ConfigError(f"--resume: no directory {shown}: give the run directory that holds {CHECKPOINT}")
    if not stat.S_ISDIR(st.st_mode):
        raise ConfigError(f"--resume: {shown} is {file_kind(st.st_mode)}, not a run directory: give the directory "
                          f"that holds {CHECKPOINT}")
    _check_writable_dir(run_dir, "--resume")
    return run_dir


def load_training_checkpoint(path: Path) -> dict:
    """The dict of a training checkpoint (``torch.load(..., weights_only=True)`` via
    :func:`agents.neural.read_checkpoint`); ConfigError naming the file and the problem."""
    try:
        ckpt = read_checkpoint(path)
    except CheckpointNotFoundError:
        raise ConfigError(f"--resume: no {CHECKPOINT} in {show(str(path.parent))}") from None
    except ValueError as e:
        raise ConfigError(f"--resume: {e}") from None
    problem = checkpoint_problem(ckpt)
    if problem:
        raise ConfigError(f"--resume: cannot load {show(str(path))}: not a training checkpoint written by this "
                          f"train.py ({problem})")
    return ckpt


def prepare(args) -> tuple[TrainConfig, Path, dict | None]:
    """``(config, run directory, loaded checkpoint or None)`` from the parsed command line;
    ConfigError for anything that would stop the run (nothing is written)."""
    overrides = list(args.overrides)
    if args.seed is not None:
        _option_override(overrides, "--seed", "seeding.seed", args.seed)
    if args.stop_after is not None and not 1 <= args.stop_after <= MAX_TOTAL_UPDATES:
        raise ConfigError(f"--stop-after: bad value {show(args.stop_after)}: allowed a whole number >= 1 and <= "
                          f"{MAX_TOTAL_UPDATES} (limit MAX_TOTAL_UPDATES)")
    if args.resume is not None:
        if args.config is not None:
            raise ConfigError("give either --config (a new run) or --resume RUN_DIR (its config is in the "
                              "checkpoint; change it with key=value overrides)")
        if args.run_dir is not None or any(o.partition("=")[0] == "run.dir" for o in overrides):
            raise ConfigError("--run-dir/run.dir: cannot be given with --resume: the run continues in its own "
                              "directory")
        run_dir = check_resume_dir(args.resume)
        resume = load_training_checkpoint(run_dir / CHECKPOINT)
        try:
            old = load_config(base=resume["config"])
        except ConfigError as e:
            raise ConfigError(f"--resume: the config saved in {show(str(run_dir / CHECKPOINT))} is not valid: "
                              f"{e}") from None
        cfg = load_config(base=resume["config"], overrides=overrides)
        if (None if cfg.model.init is None else init_path_text(cfg.model.init)) != old.model.init:
            started = "random weights" if old.model.init is None else show(old.model.init)
            raise ConfigError(f"model.init: a resumed run continues from its checkpoint's weights (it started from "
                              f"{started}); model.init only starts a new run")
        cfg.model.init = old.model.init  # the same file, named as recorded
        new_d, old_d = cfg.to_dict(), old.to_dict()
        for key in FIXED_ON_RESUME:
            section, _, name = key.partition(".")
            if (new_d[section][name] if name else new_d[section]) != (old_d[section][name] if name else old_d[section]):
                raise ConfigError(f"{key}: cannot change when resuming (the saved games, network and "
                                  f"generators depend on it); start a new run instead")
        if resume["update"] > cfg.run.total_updates:
            raise ConfigError(f"run.total_updates: {cfg.run.total_updates} is below the {resume['update']} updates "
                              f"the checkpoint has done: allowed a whole number >= {resume['update']}")
        idle = [k for k in (o.partition("=")[0] for o in overrides)
                if k.split(".")[0] in TRAINING_SECTIONS or k in TRAINING_KEYS]
        if resume["update"] == cfg.run.total_updates and idle:
            raise ConfigError(f"{idle[0]}: the run is complete ({resume['update']} of {cfg.run.total_updates} "
                              f"updates), so a training setting would change nothing; extend the run with "
                              f"run.total_updates=N (N > {resume['update']})")
        return cfg, run_dir, resume
    if args.config is None:
        raise ConfigError("give --config FILE (e.g. configs/default.yaml) or --resume RUN_DIR")
    if args.run_dir is not None:
        if not args.run_dir.strip():
            raise ConfigError("--run-dir: empty path: give a directory, or leave the option out for a "
                              "new directory under runs/")
        _option_override(overrides, "--run-dir", "run.dir", args.run_dir)
    cfg = load_config(args.config, overrides)
    run_dir = Path(cfg.run.dir or f"runs/{cfg.name}-seed{cfg.seeding.seed}-{time.strftime('%Y%m%d-%H%M%S')}")
    check_run_dir(run_dir)
    if cfg.model.init is not None:
        initial_weights(cfg)  # ConfigError now, before anything is written (naming the path as given)
        cfg.model.init = init_path_text(cfg.model.init)  # recorded absolute: the run may resume from elsewhere
    return cfg, run_dir, None


def init_path_text(init: str) -> str:
    """``model.init`` as recorded: ``"ppo"`` as it is, a path made absolute (from the current directory)."""
    return init if init == "ppo" else os.path.abspath(init)


def initial_weights(cfg: TrainConfig) -> dict:
    """The state dict ``model.init`` names (the shipped policy for ``"ppo"``), loaded with
    ``weights_only=True`` by :func:`agents.neural.load_model`; ConfigError when it cannot be read,
    does not fit this env's observations, or its hidden widths differ from ``model.hidden``."""
    path = DEFAULT_CHECKPOINT if cfg.model.init == "ppo" else Path(cfg.model.init)
    try:
        net, _ = load_model(path)
    except (ValueError, OSError) as e:
        raise ConfigError(f"model.init: {_one_line(e)}; or 'ppo' for the shipped policy") from None
    if net.hidden != list(cfg.model.hidden) or net.num_actions != NUM_ACTIONS:
        raise ConfigError(f"model.init: {show(cfg.model.init)} has hidden layers {net.hidden}, the run's "
                          f"model.hidden is {list(cfg.model.hidden)}: give the same widths")
    return net.state_dict()


class StdoutError(Exception):
    """Standard output could not take the run's report (closed pipe, full disk); the cause is the OSError."""


def report(text: str) -> None:
    """Print ``text`` and a newline to standard output now; :class:`StdoutError` when it cannot."""
    if sys.stdout is None:  # closed (`>&-`): Python has no stream for it
        raise StdoutError("it is closed")
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except (OSError, ValueError) as e:
        raise StdoutError(getattr(e, "strerror", None) or str(e)) from e


def _one_line(text: str) -> str:
    return " ".join(str(text).splitlines())


def main(argv=None, started: float | None = None) -> int:
    """The command line; returns the exit code: 0 done, 2 an error (one line on stderr), 130 stopped by
    SIGINT or SIGTERM (one line on stderr: what was saved, how to continue), 1 when standard output was
    closed by its reader before the end (one line on stderr).

    ``started``: the ``time.monotonic()`` a time budget counts from (default: the call)."""
    started = _now() if started is None else started
    run_dir = None
    try:
        args = parse_args(argv)
        cfg, run_dir, resume = prepare(args)
        train(cfg, run_dir, resume, args.stop_after, started)
    except Interrupted as e:
        print(_one_line(e), file=sys.stderr)
        return e.code
    except KeyboardInterrupt:  # Ctrl-C before the run started (reading the config or the checkpoint)
        print("interrupted before the run started: nothing was written", file=sys.stderr)
        return EXIT_INTERRUPTED
    except ConfigError as e:
        print(f"config error: {_one_line(e)}", file=sys.stderr)
        return 2
    except StdoutError as e:  # the run's files are written; only its report could not be printed
        silence(sys.stdout)  # what is left in its buffer goes nowhere at exit
        where = "" if run_dir is None else f"; the run's files are in {show(str(run_dir))}"
        if isinstance(e.__cause__, BrokenPipeError):  # its reader has gone (`| head`)
            print(f"error: standard output was closed before train.py finished printing{where}", file=sys.stderr)
            return 1
        print(f"error: cannot write to standard output: {_one_line(e)}{where}", file=sys.stderr)
        return 2
    except OSError as e:  # a file of the run that cannot be written (disk full, permissions changed meanwhile)
        where = f"{show(str(e.filename))}: " if e.filename is not None else ""
        print(f"error: cannot write the run's files: {where}{_one_line(e.strerror or e)}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.default_int_handler)  # imports done: main() handles Ctrl-C itself
    sys.exit(main(started=_now() - process_age_s()))
