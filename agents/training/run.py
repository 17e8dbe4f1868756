"""The run directory of a training: one writer (a lock), checkpoints, logs, the time budget, signals
and the learning curve. The PPO algorithm itself is in :mod:`agents.training.train`.

Files in ``RUN_DIR``: ``checkpoint.pt`` (everything ``--resume`` needs, every tensor on the CPU;
``torch.load(..., weights_only=True)``), ``policy.pt`` (the policy alone, for ``PPOAgent``),
``progress.csv`` (one row per update), TensorBoard events, ``learning_curve.png``, ``eval.json``
(the final evaluation) and ``train.lock`` (held while a training writes the directory; it names the
holder)."""

from __future__ import annotations

import csv
import os
import shlex
import signal
import socket
import sys
from pathlib import Path

import torch
from filelock import FileLock, Timeout

from schnapsen_env.cli_io import launcher
from schnapsen_env.observation import Observer

from ..players.neural import short_reason
from .config import ConfigError, TrainConfig, load_config

#: the files of a run directory (module docstring)
CHECKPOINT = "checkpoint.pt"
POLICY = "policy.pt"
CSV_NAME = "progress.csv"
EVAL_JSON = "eval.json"
CURVE = "learning_curve.png"
LOCK = "train.lock"
#: checkpoint format version (``agents.players.neural`` reads the same number from ``policy.pt``)
FORMAT = 1
#: what ``policy.pt`` leaves out of a checkpoint (the training state)
TRAINING_STATE = ("optimizer", "pool", "env", "rng", "elapsed")
#: config keys an override may not change on ``--resume`` (the saved games, network and generators
#: depend on them)
FIXED_ON_RESUME = (
    "seeding.seed",
    "game",
    "model",
    "ppo.num_games",
    "opponents.agents",
    "opponents.max_snapshots",
)
#: exit status after SIGINT or SIGTERM (128 + SIGINT, what a shell reports for Ctrl-C)
EXIT_INTERRUPTED = 130


class RunError(Exception):
    """A run directory that another training writes now; the message is one line."""


class CheckpointError(Exception):
    """A ``checkpoint.pt`` that cannot be read; the message is one line, ``<path>: <reason>``."""


class Interrupted(Exception):
    """SIGINT or SIGTERM stopped a run: ``str()`` is the one line (what was saved, how to
    continue)."""

    code = EXIT_INTERRUPTED


def atomic_save(obj: dict, path: Path) -> None:
    """``torch.save`` to a temporary file, then ``os.replace``: a reader never sees half a file."""
    tmp = path.with_name(path.name + ".tmp")
    torch.save(obj, tmp)
    os.replace(tmp, path)


def resume_command(run_dir: Path) -> str:
    """The shell command that continues the run in ``run_dir``: ``python -m agents.training.train --resume DIR`` when
    this run was started that way, else ``python PATH/train.py --resume DIR`` (the root script)."""
    started_as = Path(sys.argv[0]).resolve() if sys.argv and sys.argv[0] else None
    if started_as == Path(__file__).with_name("train.py").resolve():
        launch = launcher("agents.training.train")
    else:
        script = sys.argv[0] if os.path.basename(sys.argv[0]) == "train.py" else "train.py"
        launch = f"python {shlex.quote(script)}"
    return f"{launch} --resume {shlex.quote(str(run_dir))}"


class RunDir:
    """``run_dir`` locked for this process (a context manager). ``new=True``: a new run (a directory
    with a checkpoint raises :class:`ConfigError`); else :attr:`checkpoint` is the loaded
    ``checkpoint.pt`` (on the CPU; :class:`CheckpointError` when it cannot be read).
    :class:`RunError` when another training holds it."""

    def __init__(self, run_dir: Path, new: bool):
        self.path = run_dir
        self.checkpoint = None  #: the checkpoint to resume from (CPU tensors), None for a new run
        self.saved = None  #: the update of the last checkpoint saved or read, None before any
        self.writer = None  #: the TensorBoard writer once the logs are open
        if new and (run_dir / CHECKPOINT).exists():
            raise ConfigError(f"run.dir: {run_dir} already holds a run; resume it with --resume {run_dir}")
        if not new and not (run_dir / CHECKPOINT).is_file():
            raise ConfigError(f"--resume: no {CHECKPOINT} in {run_dir}: give the directory of a run")
        run_dir.mkdir(parents=True, exist_ok=True)
        self._lock = FileLock(run_dir / LOCK)
        # the holder's line, read before trying: older filelock releases truncate the file when an
        # attempt fails
        holder = (run_dir / LOCK).read_text().strip() if (run_dir / LOCK).exists() else ""
        try:
            self._lock.acquire(timeout=0)
        except Timeout:
            holder = holder or "another process"
            raise RunError(f"{run_dir} is in use by another training ({holder}): wait for it to end") from None
        (run_dir / LOCK).write_text(f"pid {os.getpid()} on {socket.gethostname()}\n")
        if not new:
            try:
                self.checkpoint = torch.load(
                    run_dir / CHECKPOINT,
                    map_location="cpu",
                    weights_only=True,
                )
                ours = isinstance(self.checkpoint, dict) and "optimizer" in self.checkpoint
                reason = None if ours else "not a checkpoint.pt written by train.py (no 'optimizer')"
            except Exception as e:  # noqa: BLE001 - torch and pickle raise many kinds for a foreign file
                reason = short_reason(e)
            if reason:
                self.close()
                raise CheckpointError(f"{run_dir / CHECKPOINT}: {reason}")
            self.saved = self.checkpoint["update"]

    def __enter__(self) -> RunDir:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Close the TensorBoard writer and release the lock."""
        if self.writer is not None:
            self.writer.close()
            self.writer = None
        if self._lock.is_locked:
            (self.path / LOCK).write_text("")  # no holder once released
        self._lock.release()

    def resumed_config(self, overrides: list) -> TrainConfig:
        """The saved config with ``overrides``; :class:`ConfigError` for an override of
        :data:`FIXED_ON_RESUME`."""
        for o in overrides:
            key = o.partition("=")[0]
            if any(key == k or key.startswith(k + ".") for k in FIXED_ON_RESUME):
                raise ConfigError(f"{key}: cannot change when resuming (the saved state depends on it)")
        return load_config(base=self.checkpoint["config"], overrides=overrides)

    def complete(self, cfg: TrainConfig) -> bool:
        """Whether a resumed run has done its ``run.total_updates`` and its final evaluation."""
        done = self.saved is not None and self.saved >= cfg.run.total_updates
        return done and (cfg.eval.final_games == 0 or (self.path / EVAL_JSON).exists())

    def open_logs(self, header: list, update: int, tensorboard: bool) -> None:
        """``progress.csv`` with its rows up to ``update`` (columns of evaluations no longer run
        stay) and the TensorBoard writer (events after ``update`` purged: one curve after a
        resume)."""
        print(f"run directory: {self.path}", file=sys.stderr)
        (self.path / EVAL_JSON).unlink(missing_ok=True)
        csv_path, rows = self.path / CSV_NAME, []
        if update:
            with open(csv_path, newline="", encoding="utf-8") as f:
                reader = csv.DictReader(f)
                rows = [r for r in reader if int(r["update"]) <= update]
                header += [c for c in reader.fieldnames if c not in header]
        self.header = header
        with open(csv_path, "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=header)
            w.writeheader()
            w.writerows(rows)
        if tensorboard:
            from torch.utils.tensorboard import SummaryWriter

            self.writer = SummaryWriter(str(self.path), purge_step=update + 1 if update else None)

    def log(self, row: dict, scalars: dict) -> None:
        """One row of ``progress.csv``; its numbers and ``scalars`` (tag: value) to TensorBoard at
        step = update."""
        with open(self.path / CSV_NAME, "a", newline="", encoding="utf-8") as f:
            csv.DictWriter(f, fieldnames=self.header).writerow(row)
        if self.writer is not None:
            for k, v in row.items():
                if k != "update" and v != "" and not k.endswith(("_lo", "_hi")):
                    tag = k.replace("eval_", "eval/", 1) if k.startswith("eval_") else f"train/{k}"
                    self.writer.add_scalar(tag, float(v), row["update"])
            for tag, v in scalars.items():
                self.writer.add_scalar(tag, v, row["update"])

    def save(self, ckpt: dict) -> None:
        """Flush the events so far, then write ``checkpoint.pt`` and ``policy.pt`` (each
        atomically)."""
        if self.writer is not None:
            self.writer.flush()
        atomic_save(ckpt, self.path / CHECKPOINT)
        atomic_save({k: v for k, v in ckpt.items() if k not in TRAINING_STATE}, self.path / POLICY)
        self.saved = ckpt["update"]


def on_cpu(obj):
    """``obj`` with every tensor in its dicts, lists and tuples moved to the CPU."""
    if isinstance(obj, torch.Tensor):
        return obj.cpu()
    if isinstance(obj, dict):
        return {k: on_cpu(v) for k, v in obj.items()}
    return type(obj)(on_cpu(v) for v in obj) if isinstance(obj, (list, tuple)) else obj


def checkpoint_state(cfg: TrainConfig, training, counters: dict) -> dict:
    """Everything ``--resume`` needs to continue step for step (tensors, every one on the CPU, and
    plain data): ``training`` is :class:`agents.training.train.Training`, ``counters`` the update,
    learner steps and elapsed seconds."""
    state = {
        "format": FORMAT,
        "model": training.model.state_dict(),
        "model_config": training.model.model_config(),
        "observation_spec": Observer(cfg.rules(), bummerl=cfg.game.episode == "bummerl").spec,
        "config": cfg.to_dict(),
        "rules": cfg.rules().to_dict(),
        "optimizer": training.optimizer.state_dict(),
        **counters,
        "pool": training.pool.state_dict(),
        "env": training.env.state_dict(),
        "rng": {"sampling": training.gen.get_state(), "torch": torch.get_rng_state()},
    }
    return on_cpu(state)


def restore(ckpt: dict, training) -> dict:
    """Load ``ckpt`` (CPU tensors) into ``training`` (:class:`agents.training.train.Training`) on the
    run's device; returns its counters. The optimizer takes its running state only: the
    hyperparameters come from the config (an override such as ``ppo.lr`` applies). Generator states
    are of one kind of device: resumed on another kind (CPU, CUDA), the sampling, deal, seat and
    pool-agent streams restart from their seeds (said on standard error)."""
    optimizer = training.optimizer
    pool = ckpt["pool"]
    env = ckpt["env"]
    fresh = [{k: v for k, v in group.items() if k != "params"} for group in optimizer.param_groups]
    training.model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])  # its tensors follow the parameters' device
    for group, hyperparameters in zip(optimizer.param_groups, fresh, strict=True):
        group.update(hyperparameters)
    saved = torch.device(ckpt["config"]["run"]["device"]).type
    device = training.gen.device.type
    if saved != device:
        print(
            f"resumed on {device} from a {saved} run: its random streams restart from their seeds",
            file=sys.stderr,
        )
        # seeds the deal and seat generators and the pool on this device from the run's seed
        training.env.reset()
        pool = {**pool, "agent_rng": [None] * len(pool["agent_rng"])}
        episodes = {**env["episodes"], "generator": training.env.episodes.generator.get_state()}
        env = {"episodes": episodes, "seat_generator": training.env.seat_generator.get_state()}
    else:
        training.gen.set_state(ckpt["rng"]["sampling"])
    training.pool.load_state_dict(pool)
    torch.set_rng_state(ckpt["rng"]["torch"])
    training.start(*training.env.load_state_dict(env))
    return {k: ckpt[k] for k in ("update", "learner_steps", "elapsed")}


class TimeBudget:
    """``run.time_budget_min`` of one invocation: the next update fits when it (the slowest update
    so far, plus its periodic evaluation if it has one), the final evaluation (both estimated from
    the seconds per game of the latest periodic evaluation; :attr:`PRIOR_GAME_S` before it), times
    :attr:`MARGIN`, and :attr:`RESERVE_S` end before the deadline. ``eval_games``, ``final_games``:
    games over all opponents."""

    #: factor on the measured times (the machine may slow down while the run ends)
    MARGIN = 1.5
    #: seconds per evaluation game assumed before the first periodic evaluation
    PRIOR_GAME_S = 0.01
    #: seconds kept for the final checkpoint, the learning curve and the exit
    RESERVE_S = 10.0

    def __init__(self, minutes: float, started: float, eval_games: int, final_games: int):
        self.minutes = minutes
        self.deadline = started + minutes * 60.0
        self.eval_games = eval_games
        self.final_games = final_games
        self.update_s = 0.0
        self.game_s = self.PRIOR_GAME_S

    def next_update_fits(
        self,
        now: float,
        update_start: float,
        eval_s: float,
        next_evaluates: bool,
    ) -> bool:
        """Record the update that began at ``update_start`` (``eval_s`` seconds of it its periodic
        evaluation; 0: none) and say whether the next one fits (times: ``time.monotonic``)."""
        self.update_s = max(self.update_s, now - update_start - eval_s)
        if eval_s:
            self.game_s = eval_s / self.eval_games
        games = self.final_games + self.eval_games * next_evaluates
        return now + self.MARGIN * (self.update_s + games * self.game_s) + self.RESERVE_S <= self.deadline


class Signals:
    """SIGINT and SIGTERM while a run is open: the first is noted in :attr:`received` (the update in
    progress finishes and is saved, then the run stops); a second raises ``KeyboardInterrupt``."""

    def __init__(self):
        self.received: int | None = None
        self._old = {sig: signal.signal(sig, self._handle) for sig in (signal.SIGINT, signal.SIGTERM)}

    def _handle(self, signum, frame) -> None:
        if self.received is not None:
            raise KeyboardInterrupt
        self.received = signum

    def restore(self) -> None:
        for sig, handler in self._old.items():
            signal.signal(sig, handler)

    def message(self, run: RunDir) -> str:
        """The one line after a signal: what was saved, how to continue."""
        by = f"interrupted by {signal.Signals(self.received or signal.SIGINT).name}"
        if run.saved is None:
            return f"{by} before the first checkpoint: nothing to resume"
        return f"{by}: checkpoint saved at update {run.saved}; continue with: {resume_command(run.path)}"


def eval_table(results: dict) -> str:
    """The final evaluation as a text table (win rate, its 95% interval, game points per game)."""
    lines = [f"{'opponent':<24} {'games':>6} {'win rate':>9} {'95% CI':>15} {'points/game (ppo : opp)':>24}"]
    for spec, r in results.items():
        (lo, hi), (pa, pb) = r["win_rate_ci"], r["mean_game_points"]
        ci, points = f"[{lo:.3f}, {hi:.3f}]", f"{pa:.3f} : {pb:.3f}"
        lines.append(f"{spec:<24} {r['games']:>6} {r['win_rate']:>9.3f} {ci:>15} {points:>24}")
    return "\n".join(lines)


def write_learning_curve(run_dir: Path, title: str) -> Path | None:
    """``RUN_DIR/learning_curve.png``: the win rate of each periodic evaluation in ``progress.csv``
    against env steps, one line per opponent with its 95% interval as a band; None when there is no
    evaluation yet."""
    with open(run_dir / CSV_NAME, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    names = [c[len("eval_") : -len("_win_rate")] for c in (rows[0] if rows else ()) if c.endswith("_win_rate")]
    columns = {s: ["env_steps", *(f"eval_{s}_win_rate{end}" for end in ("", "_lo", "_hi"))] for s in names}
    curves = {s: [[float(r[c]) for c in cols] for r in rows if r[cols[1]]] for s, cols in columns.items()}
    if not any(curves.values()):
        return None
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, 4.5), dpi=100)
    ax = fig.add_subplot()
    for s, points in curves.items():
        x, y, lo, hi = zip(*points, strict=True) if points else ((),) * 4
        (line,) = ax.plot(x, y, marker="o", markersize=3, label=f"vs {s}")
        ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.2, linewidth=0)
    ax.set(
        xlabel="env steps",
        ylabel="win rate (greedy; bands: 95% intervals)",
        ylim=(0.0, 1.0),
        title=title,
    )
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(run_dir / CURVE, format="png")
    return run_dir / CURVE


def report(
    cfg: TrainConfig,
    run: RunDir,
    counters: dict,
    env_steps: int,
    final: dict,
    reason: str | None,
) -> None:
    """The learning curve, then the end of a run on standard output: why it stopped, the final
    evaluation and the files."""
    update, total = counters["update"], cfg.run.total_updates
    curve = write_learning_curve(run.path, f"{cfg.name}: {update} of {total} updates")
    why = {
        "budget": f"by the time budget ({cfg.run.time_budget_min} min)",
        "stop_after": "as asked (--stop-after)",
    }
    if reason in why:
        print(f"\nstopped {why[reason]} after {update} of {total} updates; continue with: {resume_command(run.path)}")
    if final:
        print(f"\nfinal evaluation after {update} updates, {env_steps:,} env steps (duplicate deals, greedy policy):")
        print(eval_table(final))
    files = [
        run.path / CHECKPOINT,
        run.path / POLICY,
        run.path / CSV_NAME,
        curve,
        final and run.path / EVAL_JSON,
    ]
    print(
        f"\n{update} of {total} updates in {counters['elapsed']:.1f} s; files:",
        *filter(None, files),
        sep="\n  ",
    )
