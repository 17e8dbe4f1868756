"""The run directory of ``train.py``: one writer (a lock), checkpoints, logs, the time budget,
signals and the learning curve. The PPO algorithm itself is in ``train.py``.

Files in ``RUN_DIR``: ``checkpoint.pt`` (everything ``--resume`` needs; ``torch.load(...,
weights_only=True)``), ``policy.pt`` (the policy alone, for ``PPOAgent``), ``progress.csv`` (one row
per update), TensorBoard events, ``learning_curve.png``, ``eval.json`` (the final evaluation) and
``train.lock`` (held while a training writes the directory; it names the holder).
"""

from __future__ import annotations

import collections
import csv
import json
import math
import os
import shlex
import signal
import socket
import sys
import threading
import time
from pathlib import Path

import torch
from filelock import FileLock, Timeout

from schnapsen_env.observation import Observer

from .config import ConfigError, TrainConfig, config_from_dict, load_config
from .selfplay import _rng_from_state, _rng_state

CHECKPOINT = "checkpoint.pt"
POLICY = "policy.pt"
CSV_NAME = "progress.csv"
CURVE = "learning_curve.png"
EVAL_JSON = "eval.json"
LOCK = "train.lock"
TMP_SUFFIX = ".tmp"
#: checkpoint format version (``agents.neural`` reads the same number from ``policy.pt``)
FORMAT = 1
#: what ``policy.pt`` leaves out of a checkpoint (the training state)
TRAINING_STATE = ("optimizer", "pool", "games", "rng", "elapsed")
#: config keys a resumed run must keep (the saved games, network and generators depend on them)
FIXED_ON_RESUME = ("seeding.seed", "game", "model", "ppo.num_games", "opponents.agents", "opponents.max_snapshots")
#: exit status after SIGINT or SIGTERM (128 + SIGINT, what a shell reports for Ctrl-C)
EXIT_INTERRUPTED = 130


class RunError(Exception):
    """A run directory that cannot be used now (another training writes it); the message is one line."""


class Interrupted(Exception):
    """SIGINT or SIGTERM stopped a run: ``str()`` is the one line (what was saved, how to continue)."""

    code = EXIT_INTERRUPTED


def atomic_save(obj: dict, path: Path) -> None:
    """``torch.save`` to a temporary file, then ``os.replace``: a reader never sees half a file."""
    tmp = path.with_name(path.name + TMP_SUFFIX)
    torch.save(obj, tmp)
    os.replace(tmp, path)


def resume_command(run_dir: Path) -> str:
    """The shell command that continues the run in ``run_dir``."""
    script = sys.argv[0] if sys.argv and os.path.basename(sys.argv[0]) == "train.py" else "train.py"
    return f"python {shlex.quote(script)} --resume {shlex.quote(str(run_dir))}"


def _now() -> float:
    """The clock of time budgets (``time.monotonic``; the tests replace it)."""
    return time.monotonic()


class RunDir:
    """``run_dir`` locked for this process: the one writer of its files until :meth:`close`.

    ``new=True``: a new run (the directory is created; one that holds a checkpoint is refused with
    :class:`ConfigError`); else ``--resume`` (:attr:`checkpoint` is the loaded ``checkpoint.pt``).
    :class:`RunError` when another training holds the directory."""

    def __init__(self, run_dir: Path, new: bool):
        self.path = run_dir
        self.checkpoint: dict | None = None
        self.saved: int | None = None  # the update of the checkpoint on disk
        self.writer = None
        self.header: list = []
        if new:
            if (run_dir / CHECKPOINT).exists():
                raise ConfigError(
                    f"run.dir: {run_dir} already holds a run; resume it with --resume {run_dir} or "
                    "choose another directory"
                )
            run_dir.mkdir(parents=True, exist_ok=True)
        elif not (run_dir / CHECKPOINT).is_file():
            raise ConfigError(f"--resume: no {CHECKPOINT} in {run_dir}: give the directory of a run")
        self._lock = FileLock(run_dir / LOCK)
        try:
            self._lock.acquire(timeout=0)
        except Timeout:
            holder = (run_dir / LOCK).read_text(errors="replace").strip() or "another process"
            raise RunError(
                f"{run_dir} is in use by another training ({holder}): wait for it to end or choose another directory"
            ) from None
        (run_dir / LOCK).write_text(
            f"pid {os.getpid()} on {socket.gethostname()}, since {time.strftime('%Y-%m-%d %H:%M:%S')}\n"
        )
        if not new:
            try:
                self.checkpoint = torch.load(run_dir / CHECKPOINT, weights_only=True)
                if not isinstance(self.checkpoint, dict):
                    raise TypeError(type(self.checkpoint).__name__)
                self.saved = self.checkpoint["update"]
            except Exception as e:  # noqa: BLE001 - torch and pickle raise many kinds for a damaged file
                self.close()
                raise ConfigError(
                    f"--resume: cannot load {run_dir / CHECKPOINT}: not a checkpoint of train.py ({type(e).__name__})"
                ) from None

    def complete(self, cfg: TrainConfig) -> bool:
        """Whether a resumed run has done its ``run.total_updates`` and its final evaluation."""
        return (
            self.saved is not None
            and self.saved >= cfg.run.total_updates
            and (cfg.eval.final_games == 0 or (self.path / EVAL_JSON).exists())
        )

    def close(self) -> None:
        """Close the TensorBoard writer and release the lock."""
        if self.writer is not None:
            self.writer.close()
            self.writer = None
        self._lock.release()

    # ------------------------------------------------------------------ logs
    def open_logs(self, header: list, update: int, tensorboard: bool) -> None:
        """``progress.csv`` with the rows up to ``update`` (a resume drops rows after its checkpoint; columns
        of evaluations no longer run stay) and the TensorBoard writer (events after ``update`` purged)."""
        print(f"run directory: {self.path}", file=sys.stderr)
        (self.path / EVAL_JSON).unlink(missing_ok=True)  # the final evaluation of the run as it continues
        csv_path = self.path / CSV_NAME
        rows = []
        if update and csv_path.exists():
            with open(csv_path, newline="", encoding="utf-8") as f:
                reader = csv.DictReader(f)
                rows = [r for r in reader if int(r["update"]) <= update]
                header += [c for c in reader.fieldnames or [] if c not in header]
        self.header = header
        tmp = csv_path.with_name(CSV_NAME + TMP_SUFFIX)
        with open(tmp, "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=header, extrasaction="ignore")
            w.writeheader()
            w.writerows(rows)
        os.replace(tmp, csv_path)
        if tensorboard:
            from torch.utils.tensorboard import SummaryWriter

            # scalars at global step = update; a resume from update U drops the events after U (one curve)
            self.writer = SummaryWriter(str(self.path), purge_step=update + 1 if update else None)

    def log(self, row: dict, scalars: dict) -> None:
        """One row of ``progress.csv``; the row's numbers and ``scalars`` (tag: value) to TensorBoard."""
        with open(self.path / CSV_NAME, "a", newline="", encoding="utf-8") as f:
            csv.DictWriter(f, fieldnames=self.header).writerow(row)
        if self.writer is not None:
            step = row["update"]
            for k, v in row.items():
                if k != "update" and v != "" and not k.endswith(("_win_rate_lo", "_win_rate_hi")):
                    tag = k.replace("eval_", "eval/", 1) if k.startswith("eval_") else f"train/{k}"
                    self.writer.add_scalar(tag, float(v), step)
            for tag, v in scalars.items():
                self.writer.add_scalar(tag, v, step)

    def save(self, ckpt: dict) -> None:
        """Flush the events so far, then write ``checkpoint.pt`` and ``policy.pt`` (each atomically)."""
        if self.writer is not None:
            self.writer.flush()
        atomic_save(ckpt, self.path / CHECKPOINT)
        atomic_save({k: v for k, v in ckpt.items() if k not in TRAINING_STATE}, self.path / POLICY)
        self.saved = ckpt["update"]

    def write_final(self, results: dict) -> None:
        (self.path / EVAL_JSON).write_text(json.dumps(results, indent=1))


# ------------------------------------------------------------------ checkpoints
def checkpoint_state(cfg: TrainConfig, s: dict, counters: dict) -> dict:
    """Everything ``--resume`` needs to continue step for step (tensors and plain data only): ``s`` holds
    train.py's objects, ``counters`` the update, learner steps and elapsed seconds."""
    return {
        "format": FORMAT,
        "model": {k: v.cpu() for k, v in s["model"].state_dict().items()},
        "model_config": s["model"].model_config(),
        "observation_spec": Observer(cfg.rules(), bummerl=cfg.game.episode == "bummerl").spec,
        "config": cfg.to_dict(),
        "rules": cfg.rules().to_dict(),
        "optimizer": s["optimizer"].state_dict(),
        "env_steps": s["games"].env_steps,
        **counters,
        "pool": s["pool"].state_dict(),
        "games": s["games"].state_dict(),
        "rng": {
            "games": _rng_state(s["games_rng"]),
            "sampling": s["gen"].get_state(),
            "global": {"torch": torch.get_rng_state()},
        },
    }


def restore(run: RunDir, s: dict) -> dict:
    """Load ``run.checkpoint`` into train.py's objects ``s``; returns its counters. The hyperparameters come
    from the config (an override such as ``ppo.lr`` applies): the optimizer takes its running state only.
    :class:`ConfigError` in one line for a file that does not fit."""
    ckpt, opt = run.checkpoint, s["optimizer"]
    fresh = [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups]
    try:
        s["model"].load_state_dict(ckpt["model"])
        opt.load_state_dict(ckpt["optimizer"])
        s["pool"].load_state_dict(ckpt["pool"])
        s["games_rng"].setstate(_rng_from_state(ckpt["rng"]["games"]))
        s["gen"].set_state(ckpt["rng"]["sampling"])
        torch.set_rng_state(ckpt["rng"]["global"]["torch"])
        s["games"].load_state_dict(ckpt["games"])
    except (KeyError, TypeError, ValueError, RuntimeError) as e:
        raise ConfigError(f"--resume: {run.path / CHECKPOINT} does not fit this run ({_first_line(e)})") from None
    for g, f in zip(opt.param_groups, fresh, strict=True):
        g.update(f)
    return {k: ckpt[k] for k in ("update", "learner_steps", "elapsed")}


def resumed_config(run: RunDir, overrides: list) -> TrainConfig:
    """The config saved in ``run.checkpoint`` with ``overrides``; :class:`ConfigError` for an override of
    :data:`FIXED_ON_RESUME` (the run is then unlocked)."""
    try:
        saved = config_from_dict(run.checkpoint["config"]).to_dict()
        cfg = load_config(base=run.checkpoint["config"], overrides=overrides)
        new = cfg.to_dict()
        for key in FIXED_ON_RESUME:
            section, _, name = key.partition(".")
            if (new[section][name] if name else new[section]) != (saved[section][name] if name else saved[section]):
                raise ConfigError(
                    f"{key}: cannot change when resuming (the saved games, network and generators "
                    "depend on it); start a new run instead"
                )
        if cfg.run.total_updates < run.saved:
            raise ConfigError(
                f"run.total_updates: {cfg.run.total_updates} is below the {run.saved} updates the run "
                f"has done: allowed a whole number >= {run.saved}"
            )
    except BaseException:
        run.close()
        raise
    return cfg


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


# ------------------------------------------------------------------ stopping
class TimeBudget:
    """The ``run.time_budget_min`` of one invocation: whether the next update still fits.

    It fits when, from now, the next update (the slowest of the last :attr:`RECENT` updates times
    :attr:`UPDATE_MARGIN`, plus the periodic evaluation it includes), the final evaluation
    (``eval.final_games`` per opponent) and :attr:`FIXED_RESERVE_S` end before the deadline. An
    evaluation is estimated from the seconds per game each opponent took at the latest periodic
    evaluation (before the first one: :attr:`PRIOR_GAME_S`), times :attr:`EVAL_MARGIN`."""

    #: factors on the measured times (a machine may slow down under other load while the run ends)
    UPDATE_MARGIN = 1.5
    EVAL_MARGIN = 1.5
    #: seconds per evaluation game assumed before the first periodic evaluation
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
        """Seconds of one update without its periodic evaluation."""
        self._updates.append(seconds)

    def record_eval(self, seconds: dict, games: int) -> None:
        """Seconds (by opponent spec) of an evaluation of ``games`` games per opponent."""
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


class Signals:
    """SIGINT (Ctrl-C) and SIGTERM during a run, as a context manager.

    While :attr:`finish_update` is set (the training loop), the first signal is only noted in
    :attr:`received`: the update in progress finishes, is saved, and the run stops. A second signal,
    or any signal elsewhere, raises ``KeyboardInterrupt`` at once."""

    def __init__(self):
        self.received: int | None = None
        self.finish_update = False
        self._old: dict = {}

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():  # handlers can only be set there
            self._old = {sig: signal.signal(sig, self._handle) for sig in (signal.SIGINT, signal.SIGTERM)}
        return self

    def __exit__(self, *exc) -> None:
        for sig, handler in self._old.items():
            signal.signal(sig, handler)

    def _handle(self, signum, frame) -> None:
        first = self.received is None
        if first:
            self.received = signum
        if not (first and self.finish_update):
            raise KeyboardInterrupt

    def words(self) -> str:
        return " by SIGTERM" if self.received == signal.SIGTERM else ""


def interrupted(run: RunDir | None, signals: Signals) -> str:
    """The one line after SIGINT or SIGTERM: what was saved, how to continue."""
    if run is None:
        return "interrupted before the run started: nothing was written"
    if run.saved is None:
        return f"interrupted{signals.words()} before the first checkpoint: nothing to resume; start the run again"
    return (
        f"interrupted{signals.words()}: checkpoint saved at update {run.saved}; continue with: "
        f"{resume_command(run.path)}"
    )


# ------------------------------------------------------------------ reports
def progress_bar(cfg: TrainConfig, update: int, budget: TimeBudget | None):
    """A tqdm bar over the updates, or, under a time budget, over its seconds (the updates in its text)."""
    from tqdm import tqdm

    if budget is None:
        return tqdm(
            total=cfg.run.total_updates,
            initial=update,
            desc=cfg.name,
            unit="update",
            disable=not cfg.run.progress,
            dynamic_ncols=True,
        )
    return tqdm(
        total=round(budget.minutes * 60),
        desc=f"{cfg.name} (time budget)",
        unit="s",
        disable=not cfg.run.progress,
        dynamic_ncols=True,
        bar_format="{l_bar}{bar}| {n:.0f}/{total:.0f} s [{elapsed}<{remaining}{postfix}]",
    )


def report(
    cfg: TrainConfig,
    run: RunDir,
    counters: dict,
    env_steps: int,
    final: dict,
    reason: str | None,
    ran: int,
    loop_s: float,
    started: float,
) -> None:
    """The learning curve and the end of a run on standard output: why it stopped, the final evaluation,
    wall time and files."""
    update, total = counters["update"], cfg.run.total_updates
    curve = write_learning_curve(run.path, f"{cfg.name}: {update} of {total} updates", final, env_steps)
    if reason == "budget":
        print(
            f"\nstopped by the time budget after {update} of {total} updates ({cfg.run.time_budget_min:g} min); "
            f"continue with: {resume_command(run.path)}"
        )
    elif reason == "stop_after":
        print(f"\nstopped after {ran} updates as asked (--stop-after); continue with: {resume_command(run.path)}")
    if final:
        print(
            f"\nfinal evaluation after {update} updates, {env_steps:,} env steps, {counters['elapsed']:.1f} s "
            "(duplicate deals, greedy policy):"
        )
        print(eval_table(final))
    print(run_summary(run.path, update, total, ran, loop_s, started, curve, final), flush=True)


def eval_table(results: dict) -> str:
    """The final evaluation as a text table (win rate, its 95% interval, game points per game)."""
    lines = [f"{'opponent':<24} {'games':>6} {'win rate':>9} {'95% CI':>15} {'points/game (ppo : opp)':>24}"]
    for spec, r in results.items():
        lo, hi = r["win_rate_ci"]
        pa, pb = r["mean_game_points"]
        lines.append(
            f"{spec:<24} {r['games']:>6} {r['win_rate']:>9.3f} {f'[{lo:.3f}, {hi:.3f}]':>15} "
            f"{f'{pa:.3f} : {pb:.3f}':>24}"
        )
    return "\n".join(lines)


def _duration(seconds: float) -> str:
    return f"{seconds:.1f} s" if seconds < 60 else f"{seconds / 60:.1f} min ({seconds:,.0f} s)"


def run_summary(
    run_dir: Path, update: int, total: int, ran: int, loop_s: float, started: float, curve: Path | None, final: dict
) -> str:
    """The last lines of a run: wall time, updates/s and where its files are."""
    wall = _now() - started
    rate = f"{ran / loop_s:.2f} updates/s" if loop_s > 0 and ran else "no update run"
    files = [("checkpoint", run_dir / CHECKPOINT), ("policy", run_dir / POLICY), ("log", run_dir / CSV_NAME)]
    if curve is not None:
        files.append(("learning curve", curve))
    if final:
        files.append(("final evaluation", run_dir / EVAL_JSON))
    return "\n".join(
        [
            f"\n{update} of {total} updates; {ran} in this invocation ({rate}, periodic evaluations "
            f"included); wall time {_duration(wall)}",
            *(f"{name + ':':<18}{path}" for name, path in files),
        ]
    )


def read_eval_points(csv_path: Path) -> dict:
    """``{opponent spec: [(env_steps, win_rate, low, high), ...]}`` of the periodic evaluations in a
    progress.csv (``low``/``high``: the Wilson 95% interval, NaN where the log has none)."""
    points: dict = {}
    with open(csv_path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        specs = [
            c[len("eval_") : -len("_win_rate")]
            for c in reader.fieldnames or []
            if c.startswith("eval_") and c.endswith("_win_rate")
        ]
        for r in reader:
            for spec in specs:
                wr = r.get(f"eval_{spec}_win_rate")
                if wr:
                    lo, hi = (r.get(f"eval_{spec}_win_rate_{k}") for k in ("lo", "hi"))
                    points.setdefault(spec, []).append(
                        (int(r["env_steps"]), float(wr), float(lo) if lo else math.nan, float(hi) if hi else math.nan)
                    )
    return points


def write_learning_curve(
    run_dir: Path, title: str, final: dict | None = None, final_env_steps: int | None = None
) -> Path | None:
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
        color = None
        if spec in points:
            x, y, lo, hi = (list(v) for v in zip(*points[spec], strict=True))
            (line,) = ax.plot(x, y, marker="o", markersize=3, label=f"vs {spec}")
            color = line.get_color()
            if any(math.isfinite(v) for v in lo):
                ax.fill_between(x, lo, hi, color=color, alpha=0.2, linewidth=0)
        if spec in final and final_env_steps is not None:
            r = final[spec]
            (lo, hi), wr = r["win_rate_ci"], r["win_rate"]
            ax.errorbar(
                [final_env_steps],
                [wr],
                yerr=[[max(0.0, wr - lo)], [max(0.0, hi - wr)]],
                fmt="s",
                color=color,
                capsize=4,
                label=f"vs {spec}: final, {r['games']:,} games",
            )
    ax.set_xlabel("env steps")
    ax.set_ylabel("win rate (greedy policy; bands: 95% intervals)")
    ax.set_ylim(0.0, 1.0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    ax.set_title(title)
    fig.tight_layout()
    path = run_dir / CURVE
    tmp = path.with_name(CURVE + TMP_SUFFIX)
    fig.savefig(tmp, format="png")
    os.replace(tmp, path)
    return path
